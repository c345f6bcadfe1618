"""tracing.py records what a Python function does into a Graph (graph.py) while
it runs eagerly on the call's real values, and notices what a graph cannot
replay. Function objects (function.py) decide when to trace; executor.py replays.

While any thread traces, three process-wide swaps are in place (as the NaN
finder swaps `Op.__call__`, so the hot path never tests a flag and
ops/registry.py needs no hook): `Op.__call__` also records each op
application in the tracing thread; `Tensor._value` becomes a property that
notices Python reading a value that can change between calls (an argument,
anything computed from one, a Variable) outside an op, except for its shape
or dtype (`t._value.shape`, found in the reader's bytecode); `Variable.__init__`
refuses Variables on a retrace, as TF. The tracing thread also gets a profile
hook (sys.setprofile: per thread) that records the calls effects.py lists as
one node each, run whole at every call. NumPy's random generators are Python
side effects, drawn once while tracing, as in TF. A trace that read a
changing value in Python is untraceable: function.py then runs that
signature eagerly.
"""

import dis
import sys
import threading

from ..autodiff import tape as _tape_module
from ..core import nest
from ..core import record as _record
from ..core.sites import user_site
from ..core.tensor import Tensor, Variable
from ..ops.registry import Op
from .effects import (DIFFERENTIABLE, PURE, VALUE_SHAPED, WHEN, call_arguments, effect_function,
                      is_effect, value_shaped)
from .executor import filler
from .graph import CALL, OP, Graph, SlotRef

__all__ = ["VARIABLE_ERROR", "DryEffect", "Trace", "current_trace", "nested", "raw_value",
           "resume_profile", "retrace_dry", "tracing", "untraceable", "untraced"]

VARIABLE_ERROR = ("tf.function only supports singleton tf.Variables created on the first call. "
                  "Make sure the tf.Variable is only created once or created outside "
                  "tf.function.")

_local = threading.local()
_swap_lock = threading.Lock()
_active = 0  # traces in progress, in any thread
_slot = Tensor.__dict__["_value"]  # the real storage (a slot descriptor)
_slot_get = _slot.__get__
_plain_init = Variable.__init__
_previous_call = None


def current_trace():
    """The trace the calling thread is recording, or None (also under tf.init_scope)."""
    trace = getattr(_local, "trace", None)
    return None if trace is None or getattr(trace, "lifted", False) else trace


def untraceable(why):
    """Called by code that decides something in Python a replay could not repeat
    (RandomCrop's window): the function being traced runs eagerly instead."""
    trace = current_trace()
    if trace is not None:
        trace.untraceable(why)


def raw_value(tensor):
    """A tensor's array without the trace noticing (for a node that handles it)."""
    return _slot_get(tensor)


class Trace:
    """One recording: the graph, which tensors are in it, and whether it is sound."""

    def __init__(self, name, may_create_variables, parent=None, dry=False):
        self.name = name
        self.parent = parent  # the trace a loop body's or branch's trace is nested in
        # A branch not taken, traced on values it will not use: it must have no effects.
        self.dry = dry or (parent is not None and parent.dry)
        self.dry_stopped = False  # an effect was stopped in this dry trace
        # Tapes recording when the call began: they record the call, not the graph.
        self.outer_tapes = parent.outer_tapes if parent is not None else {
            id(tape) for tape in _record.current_tapes()}
        self.captures = []  # tensors of the parent trace this one reads (subgraph inputs)
        self.graph = Graph()
        self.may_create_variables = may_create_variables
        self.slot_of = {}  # id(tensor) -> slot
        self.keep = []  # every tensor mapped, kept alive so that ids are not reused
        self.dynamic = set()  # ids of tensors whose value can change between calls
        self.hidden = set()  # ids of tensors made inside an effect (not replayable alone)
        self.effects = []  # frames of effects in progress, outermost first
        self.problem = None  # why the graph cannot replay this function, once known
        self.passing = False  # the problem passes (a profiler): trace again at the next call
        self.shape_dependent = False  # Python read an argument-dependent shape
        self.value_shaped = set()  # ids of tensors whose shape depends on values
        self.created_variables = []

    # -- slots -----------------------------------------------------------------
    def add_input(self, tensor):
        """A tensor argument: a placeholder filled at every call (a Variable argument
        is read by reference, so that the function sees its current value)."""
        slot = self.graph.new_slot()
        self.slot_of[id(tensor)] = slot
        self.keep.append(tensor)
        self.dynamic.add(id(tensor))
        self.graph.inputs.append(slot)
        return slot

    def slot(self, tensor):
        """The slot of an op's input, capturing Variables and constants on first sight."""
        slot = self.slot_of.get(id(tensor))
        if slot is not None:
            return slot
        if self.parent is not None and self.parent.knows(tensor):
            slot = self.add_input(tensor)  # the parent's value, given at every run
            self.captures.append(tensor)
            if not self.parent.is_dynamic(tensor):
                self.dynamic.discard(id(tensor))
            return slot
        if id(tensor) in self.hidden:
            self.untraceable("a tensor computed inside an effect (an assignment, tf.print, an "
                             "optimizer step) is used outside it")
        slot = self.graph.new_slot()
        self.slot_of[id(tensor)] = slot
        self.keep.append(tensor)
        if type(tensor) is Variable:
            self.graph.variables.append((slot, tensor))
            self.dynamic.add(id(tensor))
        else:
            self.graph.constants.append((slot, _slot_get(tensor)))
        return slot

    def is_dynamic(self, tensor):
        return id(tensor) in self.dynamic or type(tensor) is Variable or (
            self.parent is not None and self.parent.is_dynamic(tensor))

    def inner_tapes(self):
        """Whether a GradientTape opened inside the traced function is recording
        (its backward pass, traced later, needs every op of a loop or branch)."""
        return any(id(tape) not in self.outer_tapes for tape in _record.current_tapes())

    def is_value_shaped(self, tensor):
        return id(tensor) in self.value_shaped or (self.parent is not None
                                                   and self.parent.is_value_shaped(tensor))

    def knows(self, tensor):
        """Whether `tensor` has a slot here or in a trace this one is nested in."""
        return id(tensor) in self.slot_of or (self.parent is not None
                                              and self.parent.knows(tensor))

    def hide(self, sub):
        """After the nested trace `sub`: the values it computed from traced ones live
        only inside its graph, so using them here is untraceable (its constants and
        Variables are not hidden)."""
        for tensor in sub.keep:
            key = id(tensor)
            if (key in sub.dynamic or key in sub.hidden) and key not in self.slot_of \
                    and type(tensor) is not Variable:
                self.hidden.add(key)
                self.keep.append(tensor)

    def add_output(self, tensor):
        """A tensor made by a node this trace added itself (a loop's result)."""
        slot = self.graph.new_slot()
        self.slot_of[id(tensor)] = slot
        self.keep.append(tensor)
        self.dynamic.add(id(tensor))
        self.hidden.discard(id(tensor))
        return slot

    # -- recording ---------------------------------------------------------------
    def add_op(self, op, inputs, attrs, out):
        if self.effects:
            self.hidden.add(id(out))
            self.keep.append(out)
            return
        slots = tuple(self.slot(t) for t in inputs)
        out_slot = self.graph.new_slot()
        self.slot_of[id(out)] = out_slot
        self.keep.append(out)
        if _record._recording:
            self.graph.taped = True
        if any(self.is_dynamic(t) for t in inputs):
            self.dynamic.add(id(out))
            if out.ndim and any(self.is_value_shaped(t) for t in inputs):
                # tf.range(n) * 1.0 has tf.range(n)'s length: a shape read in Python
                # from it would be frozen at the trace's n (a silent wrong result)
                self.value_shaped.add(id(out))
        copy_views = op.view and any(type(t) is Variable for t in inputs)
        self.graph.nodes.append((OP, op, slots, attrs, out_slot, copy_views))

    def begin_effect(self, function, args, kwargs):
        """Record a call that replays whole; returns its list of output slots."""
        outputs = []
        template = nest.map_structure(self._template_leaf, [list(args), kwargs])
        self.graph.nodes.append((CALL, function, filler(template[0]), filler(template[1]),
                                 outputs, template))
        self.graph.templates.append(template)
        return outputs

    def _template_leaf(self, leaf):
        if isinstance(leaf, Tensor):
            return SlotRef(self.slot(leaf), leaf if type(leaf) is Variable else None)
        return leaf

    def end_effect(self, outputs, result):
        """Map the tensors an effect returned to new slots (in flat order)."""
        value_shaped = bool(outputs) and outputs[-1] is VALUE_SHAPED
        if value_shaped:
            outputs.pop()
        for i, leaf in enumerate(nest.flatten(result)):
            if isinstance(leaf, Tensor) and type(leaf) is not Variable:
                slot = self.graph.new_slot()
                self.slot_of[id(leaf)] = slot
                self.keep.append(leaf)
                self.dynamic.add(id(leaf))
                self.hidden.discard(id(leaf))
                outputs.append((i, slot))
                if value_shaped and leaf.ndim:
                    self.value_shaped.add(id(leaf))

    def untraceable(self, why):
        if self.problem is None:
            site = user_site()
            self.problem = f"{why} ({site})" if site else why


# -- the swaps active while any thread traces ------------------------------------
def _tracing_call(self, *inputs, **attrs):
    if sys.getprofile() is _profile:
        # An op's forward is array code without effects: the profile hook (which
        # finds effects) stands down, so a kernel's first call, which loads it
        # through thousands of Python calls in Numba, costs no more than eagerly.
        sys.setprofile(None)
        try:
            out = _previous_call(self, *inputs, **attrs)
        finally:
            sys.setprofile(_profile)
    else:
        out = _previous_call(self, *inputs, **attrs)
    trace = getattr(_local, "trace", None)
    if trace is not None:
        trace.add_op(self, inputs, attrs, out)
    return out


def _guarded_value(self):
    value = _slot_get(self)
    trace = getattr(_local, "trace", None)
    if trace is not None and not trace.effects and trace.problem is None and (
            trace.is_dynamic(self)):
        frame = sys._getframe(1)
        code = frame.f_code
        if code in _VALUE_READERS:
            return value
        attribute = "shape" if code in _SHAPE_READERS else _metadata_read(code, frame.f_lasti)
        if attribute is not None:
            if attribute != "dtype" and attribute != "itemsize" and type(self) is not Variable:
                trace.shape_dependent = True  # a shape read in Python may be baked in
                if attribute != "ndim" and trace.is_value_shaped(self):  # its rank is fixed
                    trace.untraceable(f"the shape of a tensor whose shape depends on values "
                                      f"(from tf.range of a traced limit, ...) is used in "
                                      f"Python by {code.co_qualname}")
        else:
            what = "a Variable's" if type(self) is Variable else "a traced tensor's"
            trace.untraceable(f"{what} value is used in Python by {code.co_qualname} "
                              f"({code.co_filename.rsplit('/', 1)[-1]}), so it would be "
                              f"frozen at its trace-time value")
    return value


def _checked_init(self, *args, **kwargs):
    trace = getattr(_local, "trace", None)
    if trace is not None:
        # As TF, on a retrace even an effect may not create one (a second optimizer's
        # slots); created_variables, which makes function.py retrace dry, counts only
        # those made outside effects (an optimizer's first step creates its own).
        if not trace.may_create_variables:
            raise ValueError(VARIABLE_ERROR)
        if not trace.effects:
            trace.created_variables.append(self)
    _plain_init(self, *args, **kwargs)


_guarded = property(_guarded_value, _slot.__set__)


def _code(fn):
    return getattr(fn, "__code__", None) or fn.fget.__code__


# Code that reads a traced value for an op, a record's dtype or for text. The
# text (repr/str/print inside a traced function) is a trace-time side effect,
# as Python's print is in TF.
_VALUE_READERS = {_code(f) for f in (
    Tensor.__repr__, Tensor.__str__, Tensor.__format__, Variable.__repr__, Variable.__format__,
    Variable.__init__, _record.record, _record.note_cut, _tracing_call)}


def _with_nested(code):
    """`code` and the code of its comprehensions (`[t._value for t in inputs]`)."""
    found = {code}
    for const in code.co_consts:
        if hasattr(const, "co_code"):
            found |= _with_nested(const)
    return found


_VALUE_READERS |= _with_nested(Op.__call__.__code__)
# Code that reads shapes only: the length and iteration of a tensor, and the
# tape's walk (seeds of ones, shape checks).
_SHAPE_READERS = {_code(f) for f in (Tensor.__len__, Tensor.__iter__, Tensor.get_shape,
                                     Tensor.set_shape)}
_SHAPE_READERS.update(
    c.__code__ for c in vars(_tape_module).values() if hasattr(c, "__code__"))
_SHAPE_READERS.update(
    m.__code__ for m in vars(_tape_module.GradientTape).values() if hasattr(m, "__code__"))

# `t._value.dtype`, `t._value.shape[0]`: the read is followed by one of these
# attribute loads, found in the caller's bytecode (cached per code object).
_METADATA_ATTRIBUTES = frozenset({"dtype", "shape", "ndim", "size", "itemsize"})
_metadata_sites = {}  # code -> offsets of `._value` loads followed by a metadata attribute


def _metadata_read(code, offset):
    """The attribute read right after the `._value` load at `offset`, if metadata."""
    sites = _metadata_sites.get(code)
    if sites is None:
        sites = {}
        previous = None
        for instruction in dis.get_instructions(code):
            if (previous is not None and instruction.opname == "LOAD_ATTR"
                    and instruction.argval in _METADATA_ATTRIBUTES):
                sites[previous] = instruction.argval
            previous = instruction.offset if (instruction.opname == "LOAD_ATTR"
                                              and instruction.argval == "_value") else None
        _metadata_sites[code] = sites
    return sites.get(offset)


def _profile(frame, event, arg):
    trace = _local.trace
    if event == "call":
        code = frame.f_code
        if is_effect(code):
            function = effect_function(code, frame)
            if function is None:
                return
            outputs = None
            if not trace.effects:
                if trace.dry and code not in PURE:
                    trace.dry_stopped = True
                    raise DryEffect(f"{code.co_qualname} in a branch not taken while tracing")
                args, kwargs = call_arguments(code, frame.f_locals)
                if code in WHEN and not WHEN[code](args, kwargs, raw_value):
                    return
                if code in PURE and (not any(
                        isinstance(t, Tensor) and trace.is_dynamic(t)
                        for t in nest.flatten([args, kwargs])) or (
                        code in DIFFERENTIABLE and _record.current_tapes()
                        and DIFFERENTIABLE[code](args, kwargs, raw_value))):
                    # Of constants only, its result is a constant too; under a tape,
                    # a differentiable one's ops are recorded one by one.
                    return
                outputs = trace.begin_effect(function, args, kwargs)
                if value_shaped(code, args) or any(  # tf.cast(tf.range(n)): n's length too
                        isinstance(t, Tensor) and trace.is_value_shaped(t)
                        for t in nest.flatten([args, kwargs])):
                    outputs.append(VALUE_SHAPED)
            trace.effects.append((frame, outputs))
    elif event == "return" and trace.effects and trace.effects[-1][0] is frame:
        _, outputs = trace.effects.pop()
        if outputs is not None:
            trace.end_effect(outputs, arg)


class tracing:
    """`with tracing(trace):` records the calling thread's ops into `trace`."""

    def __init__(self, trace):
        self.trace = trace

    def __enter__(self):
        global _active, _previous_call
        self.outer = getattr(_local, "trace", None)  # (None, or init_scope's stand-in)
        if current_trace() is not None:
            raise RuntimeError("tracing: a trace is already recording in this thread")
        with _swap_lock:
            if _active == 0:
                _previous_call = Op.__call__  # the NaN finder's, when it is on
                _VALUE_READERS.update(_with_nested(_previous_call.__code__))
                Op.__call__ = _tracing_call
                Tensor._value = _guarded
                Variable.__init__ = _checked_init
            _active += 1
            _record.tracing.append(self.trace)  # the ops' array shortcuts stand down
        _local.trace = self.trace
        self.profile = sys.getprofile()
        if self.profile is None:
            sys.setprofile(_profile)
        return self.trace

    def __exit__(self, *exc):
        global _active
        if self.profile is None:
            sys.setprofile(None)
        else:  # the cause, before whatever it made the trace notice (an effect's Python)
            self.trace.problem = None
            self.trace.untraceable("a profiler (cProfile, or another sys.setprofile hook) was "
                                   "active while tracing, so effects could not be recorded")
            self.trace.passing = True
        _local.trace = self.outer
        with _swap_lock:
            _active -= 1
            _record.tracing.remove(self.trace)
            if _active == 0:
                Op.__call__ = _previous_call
                Tensor._value = _slot
                Variable.__init__ = _plain_init
        return False


class DryEffect(BaseException):
    """Raised (from the profile hook, before the call runs) at an effect in a dry
    trace; the profile hook is then off until `resume_profile()`. A BaseException,
    so that no `except Exception` between the effect and the branch swallows it."""


def resume_profile():
    """Put the profile hook back after a DryEffect (raising switched it off)."""
    if _local.trace is not None:
        sys.setprofile(_profile)


class nested:
    """`with nested(sub):` records into `sub`, a trace nested in the current one
    (a loop's condition or body), then hands its problems to the parent."""

    def __init__(self, trace):
        self.trace = trace

    def __enter__(self):
        self.outer = _local.trace
        _local.trace = self.trace
        return self.trace

    def __exit__(self, *exc):
        _local.trace = self.outer
        if self.trace.problem is not None and self.outer.problem is None:
            self.outer.problem = self.trace.problem  # (its site is in it already)
        self.outer.shape_dependent |= self.trace.shape_dependent
        self.outer.hide(self.trace)
        return False


class untraced:
    """`with untraced():` runs ops in the tracing thread without recording them
    (a traced loop's later iterations, run by the executor while tracing);
    `untraced(lift)` puts `lift(trace)` in the trace's place (tf.init_scope's)."""

    def __init__(self, lift=None):
        self.lift = lift

    def __enter__(self):
        self.outer = getattr(_local, "trace", None)
        _local.trace = None if self.lift is None or self.outer is None else self.lift(self.outer)
        profile = sys.getprofile()
        self.profile = profile if profile is _profile else None
        if self.profile is not None:
            sys.setprofile(None)

    def __exit__(self, *exc):
        if self.profile is not None:
            sys.setprofile(self.profile)
        _local.trace = self.outer
        return False


def retrace_dry(name, call, values):
    """TF traces a function whose first trace created Variables a second time,
    refusing new ones; this runs `call(values)` so, dry (stopped at its first
    effect, which the first trace ran already), and raises TF's ValueError for a
    Variable the function creates at every call. Other errors are dropped: the
    call itself succeeded, and its result stands."""
    dry = Trace(name, may_create_variables=False, dry=True)
    try:
        with tracing(dry):
            for leaf in nest.flatten(values):
                if type(leaf) is Tensor:
                    dry.add_input(leaf)
            call(values)
    except DryEffect:
        pass
    except ValueError as error:
        if str(error) == VARIABLE_ERROR:
            raise ValueError(VARIABLE_ERROR) from None
    except Exception:  # noqa: BLE001, S110 -- see the docstring
        pass
