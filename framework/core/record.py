"""record.py owns the recording stacks: the tapes that are recording now, one
stack per thread as in TF, and `record`, which an op calls to leave one small
record on each tape of the calling thread that tracks one of its inputs. It
sits below the ops so that they can report to it; the tapes themselves and
the backward walk are autodiff/'s."""

import contextlib
import operator
import threading

from . import tensor as _tensor
from .sites import user_site
from .tensor import Variable

__all__ = ["record", "note_cut", "note_escape", "note_constant", "cut", "add_note", "paused",
           "push", "pop", "insert", "current_tapes"]

# Every tape recording now, in any thread, in the order pushed. Ops test this
# list before doing any tape work, so an op run while no thread records pays
# one truth test; while some thread records, ops in every thread call `record`,
# which looks at the calling thread's own stack only.
_recording = []
# Every trace of tapeflow.function in progress, in any thread. The ops' first-order
# shortcuts (a VJP computing on arrays, as no tape records it) are off while it is
# non-empty, so that a traced backward pass is made of ops a replay can run.
tracing = []
# Graphs traced under a recording tape (their own GradientTape) being replayed, in
# any thread: what a forward keeps for its backward under a tape (a convolution's
# im2col columns) it keeps while one replays too, as the replayed backward reads it.
replaying = []


class _Stacks(threading.local):
    def __init__(self):
        self.tapes = []  # this thread's recording tapes, outermost first


_local = _Stacks()
# Pushes, pops and pauses change a thread's stack and `_recording` together; a
# tape may be popped from another thread than its own (`gradient` called there).
_lock = threading.Lock()


def push(tape):
    """Start recording on `tape` in the calling thread (innermost); returns its stack."""
    stack = _local.tapes
    with _lock:
        stack.append(tape)
        _recording.append(tape)
    return stack


def pop(tape, stack):
    """Stop recording on `tape`, which `push` put on `stack`; returns its index there,
    or None if it was not on it."""
    with _lock:
        position = _remove(stack, tape)
        _remove(_recording, tape)
    return position


def insert(tape, stack, position):
    """Put `tape` back on `stack` at `position` (after `stop_recording`)."""
    with _lock:
        stack.insert(min(position, len(stack)), tape)
        _recording.append(tape)


def _remove(tapes, tape):
    for i in range(len(tapes) - 1, -1, -1):
        if tapes[i] is tape:
            del tapes[i]
            return i
    return None


def current_tapes():
    """The calling thread's recording tapes, outermost first (a copy)."""
    return list(_local.tapes)


def recording_here():
    """Whether a tape records in the calling thread (the process-wide truth test
    first: no thread-local lookup while no thread records)."""
    return bool(_recording) and bool(_local.tapes)


class _Record(tuple):
    """One recorded op application, (op, inputs, out, attrs): what the walk needs.

    A tuple, because making records is the hottest thing a tape does and a
    tuple is made without running any Python code.
    """

    __slots__ = ()
    op = property(operator.itemgetter(0))
    inputs = property(operator.itemgetter(1))
    out = property(operator.itemgetter(2))
    attrs = property(operator.itemgetter(3))

    @property
    def _op(self):  # label for debugging
        return self[0].name

    def __repr__(self):
        return f"<record {self.op.name} {[tuple(t.shape) for t in self.inputs]}>"


_new_record = tuple.__new__


def record(op, inputs, out, attrs):
    """Put `op` on every tape recording in the calling thread that tracks one of `inputs`."""
    if out._value.dtype.kind not in "fc":
        note_cut(op, inputs, out)  # integer and boolean results carry no gradient
        return
    rec = None
    for tape in _local.tapes:
        tracked = tape._tracked
        hit = False
        for t in inputs:
            if id(t) in tracked:
                hit = True
            elif (type(t) is Variable and tape._watch_accessed and t._trainable
                  and t._value.dtype.kind in "fc"):
                tape._watch_one(t)
                hit = True
        if hit:
            if rec is None:
                rec = _new_record(_Record, (op, inputs, out, attrs))
            tracked.add(id(out))
            tape._records.append(rec)
        elif tape._cut_ids:  # computed from a cut path: remember which cut (explain)
            _follow_cut(tape._cut_ids, inputs, out)


def add_note(tape, note):
    """Append `note` to the tape's notes (made on first use); its index."""
    if tape._notes is None:
        tape._notes = []
    tape._notes.append(note)
    return len(tape._notes) - 1


def _cuts(tape):
    if tape._cut_ids is None:
        tape._cut_ids = {}
    return tape._cut_ids


def _follow_cut(cut_ids, inputs, out):
    for t in inputs:
        note = cut_ids.get(id(t))
        if note is not None:
            cut_ids[id(out)] = note
            return


def _note(kind, name, inputs, out=None):
    """Leave a note of a path cut at the user's line on every tape of the calling
    thread that tracks one of `inputs` (or computed them from a cut), for
    `GradientTape.explain`; `out`, the cut's result, is remembered as coming from
    it. Rare: only ops with no gradient and values leaving the tape come here."""
    site = None
    for tape in _local.tapes:
        tracked = tape._tracked
        for t in inputs:
            if id(t) in tracked:
                if site is None:
                    site = user_site()
                index = add_note(tape, (kind, name, tuple(id(x) for x in inputs), site))
                if out is not None:
                    _cuts(tape)[id(out)] = index
                break
        else:
            if out is not None and tape._cut_ids:
                _follow_cut(tape._cut_ids, inputs, out)


def note_cut(op, inputs, out=None):
    """`op` ran on a tracked input but carries no gradient (stop_gradient, argmax,
    a comparison, an integer result): a gradient path ends here."""
    _note("cut", op.name, inputs, out)


def cut(name, inputs, out):
    """A public function computed `out` from `inputs` outside the ops, with no
    gradient (tf.math.argmax, is_nan, ...): noted as an op with no gradient would
    be; returns `out`."""
    if _recording and _local.tapes:
        _note("cut", name, inputs, out)
    return out


def note_escape(tensor, how):
    """A tracked `tensor` left the tape as a NumPy value or Python number (`how`:
    '.numpy()', 'np.asarray', 'float()', ...): what is computed from it is not recorded."""
    if _local.tapes:
        _note("escape", how, (tensor,))



def note_constant(value, out):
    """`tf.constant` made `out` while this thread records: from a tracked tensor it
    is a copy the tape cannot follow (a cut); from a NumPy or Python value after a
    value left the tape, it is taken to come from the latest such escape."""
    for tape in _local.tapes:
        if id(value) in tape._tracked:
            index = add_note(tape, ("escape", "tf.constant(tensor)", (id(value),), user_site()))
            _cuts(tape)[id(out)] = index
            continue
        notes = tape._notes or ()
        for index in range(len(notes) - 1, -1, -1):
            if notes[index][0] == "escape":
                _cuts(tape)[id(out)] = index
                break


_tensor._recording = _recording  # the same list: Tensor.numpy() tests it before noting
_tensor._note_escape = note_escape
_tensor._note_constant = note_constant


@contextlib.contextmanager
def paused():
    """No tape of the calling thread records inside the block (Keras's shape
    inference runs layers on placeholder values that no gradient should see);
    other threads' tapes go on recording their own ops."""
    stack = _local.tapes
    with _lock:
        saved = list(stack)
        stack.clear()
        for tape in saved:
            _remove(_recording, tape)
    try:
        yield
    finally:
        with _lock:
            saved = [tape for tape in saved  # not ended nor re-entered inside the block
                     if tape._active and not any(t is tape for t in stack)]
            stack[:0] = saved
            _recording.extend(saved)
