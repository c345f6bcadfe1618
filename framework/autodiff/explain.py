"""explain.py answers "why is my gradient None": from what a GradientTape
recorded (its records, the sources it watched, and the notes core/record.py
leaves where a path was cut), it names the cause and the user's line. TF says
only "No gradients provided"; the tape already knows more, so it says it.

Causes (the `cause` field of an Explanation):
    connected            the gradient flows; `chain` holds the ops from source to target
    released             a non-persistent tape dropped its records in `gradient`
    integer_source       the source is an integer or boolean tensor
    integer_target       the target is an integer or boolean tensor
    untrainable_variable the source is a Variable with trainable=False
    not_watched          the source is a tensor the tape never watched
    not_read             the source is a trainable Variable the tape never saw read
    no_gradient_op       every path goes through stop_gradient or an op with no gradient
    left_tape            a value on the path left the tape (.numpy(), NumPy, float())
    stop_recording       the target may have been computed under stop_recording
    after_context        the target was computed after the tape's context closed
    no_path              the target depends on other watched values only
"""

from ..core.sites import block_end
from ..core.tensor import Tensor, Variable

__all__ = ["Explanation", "explain", "remember_unconnected", "why_no_gradient"]

# Variable uid -> (tape's line, Explanation) of its latest None gradient, kept for
# the optimizer's messages: `apply_gradients` runs after a non-persistent tape has
# dropped its records. Explained again only from a tape opened at another line,
# so a training loop walks its records once, not every step.
_why_none = {}


class Explanation:
    """Why a gradient is what it is. `str()` is a paragraph for a person; the
    fields are for code: `cause` (see the module docstring), `connected`,
    `sites` (the user's lines involved, as core/sites.Site), `chain` (op names
    from source to target when connected)."""

    def __init__(self, cause, message, sites=(), chain=()):
        self.cause = cause
        self.connected = cause == "connected"
        self.message = message
        self.sites = tuple(s for s in sites if s is not None)
        self.chain = tuple(chain)

    def __str__(self):
        return self.message

    def __repr__(self):
        return f"<Explanation {self.cause}: {self.message}>"


def _describe(t):
    if isinstance(t, Variable):
        return f"Variable {t.name!r}"
    return f"the {t.dtype.name} tensor of shape {tuple(t._value.shape)}"


def _where(site):
    return f" at {site}" if site is not None else ""


def _dependents(records, start_id):
    """Ids of every recorded tensor computed from `start_id`, itself included."""
    found = {start_id}
    for _, inputs, out, _ in records:
        if any(id(x) in found for x in inputs):
            found.add(id(out))
    return found


def _chain(records, source_id, target_id, dependents):
    """Op names along one path from the source to the target."""
    producer = {id(rec[2]): rec for rec in records}
    names, key = [], target_id
    while key != source_id and key in producer:
        op, inputs, _, _ = producer[key]
        names.append(op.name)
        key = next((id(x) for x in inputs if id(x) in dependents), source_id)
    return names[::-1]


def _ancestors(records, target_id):
    """Ids of everything the target was computed from on the tape, and the records."""
    producer = {id(rec[2]): rec for rec in records}
    seen, stack, used = {target_id}, [target_id], []
    while stack:
        rec = producer.get(stack.pop())
        if rec is None:
            continue
        used.append(rec)
        for x in rec[1]:
            if id(x) not in seen:
                seen.add(id(x))
                stack.append(id(x))
    return seen, used


def _source_not_tracked(tape, source, name):
    enter = _where(tape._enter_site)
    if isinstance(source, Variable):
        if not source.trainable:
            return Explanation("untrainable_variable", (
                f"{name} has trainable=False, so the tape{enter} did not watch it when it was "
                f"read. Create it with trainable=True, or call tape.watch(variable) "
                "inside the context."), [tape._enter_site])
        if not tape._watch_accessed:
            return Explanation("not_watched", (
                f"The tape{enter} was created with watch_accessed_variables=False and {name} "
                "was never passed to tape.watch(); call tape.watch(variable) inside the "
                "context before reading it."), [tape._enter_site])
        return Explanation("not_read", (
            f"{name} was never read while the tape{enter} recorded: the target does not "
            "use it, or used a value read before the tape started or under stop_recording. "
            "Read the variable inside the `with tf.GradientTape()` block."),
            [tape._enter_site])
    return Explanation("not_watched", (
        f"The source, {name}, was never watched by the tape{enter}: only trainable "
        "Variables are watched automatically. Call tape.watch(x) inside the context before "
        "computing with x (a tf.constant is a plain tensor, not a Variable)."),
        [tape._enter_site])


def _cut_evidence(tape, dependents):
    """The notes that cut a path starting at the source: (cuts, escapes, pauses)."""
    cuts, escapes = [], []
    notes = tape._notes or ()
    for kind, what, input_ids, site in notes:
        if kind in ("cut", "escape") and any(i in dependents for i in input_ids):
            (cuts if kind == "cut" else escapes).append((what, site))
    pauses = [site for kind, _, _, site in notes if kind == "pause"]
    return cuts, escapes, pauses


def _list(items):
    return "; ".join(f"`{what}`{_where(site)}" for what, site in items)


def explain(tape, target, source):
    """The Explanation of `tape.gradient(target, source)`; see GradientTape.explain."""
    for role, value in (("target", target), ("source", source)):
        if not isinstance(value, Tensor):
            raise TypeError(f"explain() takes one Tensor or Variable as the {role}, got "
                            f"{type(value).__name__}: {value!r}.")
    name, target_name = _describe(source), _describe(target)
    if tape._records is None:
        return Explanation("released", (
            "This non-persistent tape dropped its records when gradient() ran. Call "
            "tape.explain(...) before tape.gradient(...), or create the tape with "
            "persistent=True."))
    if source._value.dtype.kind not in "fc":
        return Explanation("integer_source", (
            f"The source, {name}, has dtype {source.dtype.name}: integer and boolean values "
            "have no gradient. Cast it to a float dtype before computing with it."))
    if target is source:
        return Explanation("connected", "The target is the source: the gradient is ones.")
    if target._value.dtype.kind not in "fc":
        return Explanation("integer_target", (
            f"The target, {target_name}, has dtype {target.dtype.name}: integer and boolean "
            "results carry no gradient (argmax, comparisons, casts to int end every path)."))
    records = tape._records
    if id(source) not in tape._tracked:
        return _source_not_tracked(tape, source, name)
    dependents = _dependents(records, id(source))
    if id(target) in dependents:
        chain = _chain(records, id(source), id(target), dependents)
        steps = " -> ".join(["source"] + chain + ["target"])
        return Explanation("connected", (
            f"The gradient flows from {name} to the target through {len(chain)} recorded "
            f"op(s): {steps}."), chain=chain)
    cuts, escapes, pauses = _cut_evidence(tape, dependents)
    exact = (tape._cut_ids or {}).get(id(target))  # the target was computed from this cut
    if exact is not None:
        kind, what, input_ids, site = tape._notes[exact]
        if any(i in dependents for i in input_ids):
            cuts, escapes = ([(what, site)], []) if kind == "cut" else ([], [(what, site)])
    if exact is None and id(target) not in tape._tracked:
        if pauses:
            return Explanation("stop_recording", (
                f"The target was not recorded from {name}. The tape stopped recording under "
                f"stop_recording{_where(pauses[0])}; a target computed inside that block is "
                "not recorded. Compute it outside the block."), pauses)
        if not tape._active and tape._exited and tape._enter_site is not None:
            last = block_end(tape._enter_site)  # the end of the `with` block it opened
            return Explanation("after_context", (
                f"The target was not recorded on this tape, which stopped recording when its "
                f"`with` block ended{_where(last)}. A target computed after that line "
                f"is not recorded: move its computation inside the `with` block (or it was "
                f"computed from values the tape does not watch, not from {name})."),
                [last])
    if escapes:
        return Explanation("left_tape", (
            f"A value computed from {name} left the tape: {_list(escapes)}. What is "
            "computed from a NumPy array or Python number is not recorded; keep the "
            "computation in tapeflow ops (tf.math.*, operators on tensors)."),
            [site for _, site in escapes])
    if cuts:
        return Explanation("no_gradient_op", (
            f"Every path from {name} to the target goes through an op with no gradient: "
            f"{_list(cuts)}. tf.stop_gradient blocks gradients on purpose; argmax, round, "
            "comparisons and casts to integers have none. Use a differentiable op there "
            "(e.g. softmax instead of argmax)."), [site for _, site in cuts])
    if id(target) in tape._tracked:
        return _no_path(records, target, name)
    return Explanation("no_path", (
        f"The target does not depend on {name}, nor on anything else the tape watched: it "
        "was computed from constants only."))


def _no_path(records, target, name):
    """The target is recorded, but from other sources: name them and the ops nearest them."""
    seen, used = _ancestors(records, id(target))
    produced = {id(rec[2]) for rec in used}
    leaves = {id(x): x for _, inputs, _, _ in used for x in inputs if id(x) not in produced}
    watched = [x for x in leaves.values() if x._value.dtype.kind in "fc"]
    described = ", ".join(_describe(x) for x in watched[:5]) or "other values"
    last = next((op.name for op, _, out, _ in used if out is target), None)
    return Explanation("no_path", (
        f"The target does not depend on {name}: it is computed from {described}"
        + (f", last by `{last}`" if last else "") + ". Check that the source is used in "
        "the computation of the target (a copy or a re-created tensor is another value)."))


def remember_unconnected(tape, targets, sources, results):
    """Before a tape drops its records: explain each Variable whose gradient is None
    and that has no explanation yet (autodiff/tape.py calls this on a None only)."""
    for source, result in zip(sources, results):
        if result is None and isinstance(source, Variable):
            known = _why_none.get(source._uid)
            if known is None or known[0] != tape._enter_site:
                _why_none[source._uid] = (tape._enter_site, explain(tape, targets[0], source))


def why_no_gradient(variable):
    """The Explanation remembered for `variable`'s None gradient, or None."""
    known = _why_none.get(getattr(variable, "_uid", None))
    return None if known is None else known[1]
