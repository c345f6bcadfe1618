"""tracing.py records what a Python function does into a Graph (graph.py) while
it runs eagerly on the call's real values, and notices what a graph cannot
replay. Function objects (function.py) decide when to trace; executor.py replays.

While any thread traces, three process-wide swaps are in place (as the NaN
finder swaps `Op.__call__`, so the hot path never tests a flag and
ops/registry.py needs no hook): `Op.__call__` also records each op application in the tracing thread; `Tensor._value`
becomes a property that notices Python reading a value that can change
between calls (an argument, anything computed from one, a Variable) outside
an op; `Variable.__init__` refuses Variables on a retrace, as TF. The tracing
thread also gets a profile hook (sys.setprofile: per thread) that records the
calls which must run whole at every call (effects: Variable assigns,
`tf.print`, `tf.random` draws, an optimizer's `apply`) and notices NumPy's
random generators called directly. A trace that read a changing value in
Python is untraceable: function.py then runs that signature eagerly.
"""

import dis
import sys
import threading
import types

from .. import random as _random
from ..api import array_ops as _array_ops
from ..api import printing as _printing
from ..autodiff import tape as _tape_module
from ..core import nest
from ..core import record as _record
from ..core.sites import user_site
from ..core.tensor import Tensor, Variable
from ..math import comparisons as _comparisons
from ..math import reductions as _reductions
from ..ops.registry import Op
from .executor import filler
from .graph import CALL, OP, Graph, SlotRef

__all__ = ["VARIABLE_ERROR", "Trace", "current_trace", "register_effect", "tracing"]

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
    """The trace the calling thread is recording, or None."""
    return getattr(_local, "trace", None)


def raw_value(tensor):
    """A tensor's array without the trace noticing (for a node that handles it)."""
    return _slot_get(tensor)


class Trace:
    """One recording: the graph, which tensors are in it, and whether it is sound."""

    def __init__(self, name, may_create_variables, parent=None):
        self.name = name
        self.parent = parent  # the trace a loop body's trace is nested in
        self.captures = []  # tensors of the parent trace this one reads (subgraph inputs)
        self.graph = Graph()
        self.may_create_variables = may_create_variables
        self.slot_of = {}  # id(tensor) -> slot
        self.keep = []  # every tensor mapped, kept alive so that ids are not reused
        self.dynamic = set()  # ids of tensors whose value can change between calls
        self.hidden = set()  # ids of tensors made inside an effect (not replayable alone)
        self.effects = []  # frames of effects in progress, outermost first
        self.problem = None  # why the graph cannot replay this function, once known
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

    def is_value_shaped(self, tensor):
        return id(tensor) in self.value_shaped or (self.parent is not None
                                                   and self.parent.is_value_shaped(tensor))

    def knows(self, tensor):
        """Whether `tensor` has a slot here or in a trace this one is nested in."""
        return id(tensor) in self.slot_of or (self.parent is not None
                                              and self.parent.knows(tensor))

    def hide(self, tensors):
        """Tensors that live only inside a nested graph: using them here is untraceable."""
        for tensor in tensors:
            if id(tensor) not in self.slot_of:
                self.hidden.add(id(tensor))
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
        if any(self.is_dynamic(t) for t in inputs):
            self.dynamic.add(id(out))
        copy_views = op.view and any(type(t) is Variable for t in inputs)
        self.graph.nodes.append((OP, op, slots, attrs, out_slot, copy_views))

    def begin_effect(self, function, args, kwargs):
        """Record a call that replays whole; returns its list of output slots."""
        outputs = []
        template = nest.map_structure(self._template_leaf, [list(args), kwargs])
        self.graph.nodes.append((CALL, function, filler(template[0]), filler(template[1]),
                                 outputs))
        self.graph.templates.append(template)
        return outputs

    def _template_leaf(self, leaf):
        if isinstance(leaf, Tensor):
            return SlotRef(self.slot(leaf), leaf if type(leaf) is Variable else None)
        return leaf

    def end_effect(self, outputs, result):
        """Map the tensors an effect returned to new slots (in flat order)."""
        value_shaped = bool(outputs) and outputs[-1] is _VALUE_SHAPED
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
                if value_shaped:
                    self.value_shaped.add(id(leaf))

    def untraceable(self, why):
        if self.problem is None:
            site = user_site()
            self.problem = f"{why} ({site})" if site else why


# -- the swaps active while any thread traces ------------------------------------
def _tracing_call(self, *inputs, **attrs):
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
                if trace.is_value_shaped(self):
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
    if trace is not None and not trace.effects:
        if not trace.may_create_variables:
            raise ValueError(VARIABLE_ERROR)
        trace.created_variables.append(self)
    _plain_init(self, *args, **kwargs)


_guarded = property(_guarded_value, _slot.__set__)


def _code(fn):
    return getattr(fn, "__code__", None) or fn.fget.__code__


# Code that reads a traced value for its shape, dtype or text only. The text
# (repr/str/print inside a traced function) is a trace-time side effect, as
# Python's print is in TF; the others are fixed for a signature.
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


_EFFECTS = {}  # code object -> the function to call at replay (None: a method, found by self)


_PURE = set()  # codes of whole calls without side effects (recorded only on traced inputs)
_VALUE_SHAPED = set()  # codes of whole calls whose result's shape depends on values
_DIFFERENTIABLE = set()  # codes of pure whole calls that may run ops a tape needs


def register_effect(function, pure=False, value_shaped=False, differentiable=False):
    """Make calls of `function` replay whole at every call of a traced function
    (with the call's tensors), instead of recording the ops inside. For calls
    that read values in Python: assignments, printing, random draws, optimizer
    updates (effects), and public functions computing outside the ops
    (`pure`: recorded only when an argument is traced; `value_shaped`: the
    shape of the result depends on the values, so Python may not read it;
    `differentiable`: under a recording tape the call runs as it is, so that
    the tape sees its ops). Returns `function` (usable as a decorator)."""
    _EFFECTS[function.__code__] = function
    if pure:
        _PURE.add(function.__code__)
    if value_shaped:
        _VALUE_SHAPED.add(function.__code__)
    if differentiable:  # (tf.cast between floats is an op)
        _DIFFERENTIABLE.add(function.__code__)
    return function


for _effect in (Variable.assign, Variable.assign_add, Variable.assign_sub, _printing.print_):
    register_effect(_effect)
# Random draws: fresh values at every call, as TF's stateful random ops.
for _fn in [getattr(_random, n) for n in ("normal", "uniform", "truncated_normal", "shuffle",
                                          "categorical")] + [
        getattr(_random.Generator, n) for n in ("normal", "uniform", "truncated_normal")
        if hasattr(_random.Generator, n)]:
    register_effect(_fn)
# Public functions that compute outside the ops (on `._value`): replayed whole.
for _fn in [getattr(_comparisons, n) for n in _comparisons.__all__] + [
        _reductions.argmax, _reductions.argmin]:
    register_effect(_fn, pure=True)
register_effect(_array_ops.range, pure=True, value_shaped=True)
register_effect(_array_ops.cast, pure=True, differentiable=True)
# Optimizers live in a higher layer: their one entry point is matched by name.
_OPTIMIZER_APPLY = ("Optimizer.apply", "optimizer.py")


def _effect_function(code, frame):
    function = _EFFECTS.get(code)
    if function is not None:
        if code.co_freevars:  # one code for many closures (tf.less, tf.greater, ...)
            cells = tuple(types.CellType(frame.f_locals[n]) for n in code.co_freevars)
            return types.FunctionType(code, frame.f_globals, code.co_name, None, cells)
        return function
    if code.co_qualname == _OPTIMIZER_APPLY[0] and code.co_filename.endswith(_OPTIMIZER_APPLY[1]):
        owner = frame.f_locals.get("self")
        for cls in type(owner).__mro__:
            method = cls.__dict__.get("apply")
            if getattr(method, "__code__", None) is code:
                return method
    return None


def _call_arguments(code, local):
    names = code.co_varnames
    count = code.co_argcount
    args = [local[n] for n in names[:count]]
    end = count + code.co_kwonlyargcount
    kwargs = {n: local[n] for n in names[count:end]}
    if code.co_flags & 0x04:  # CO_VARARGS
        args.extend(local[names[end]])
        end += 1
    if code.co_flags & 0x08:  # CO_VARKEYWORDS
        kwargs.update(local[names[end]])
    return args, kwargs


def _profile(frame, event, arg):
    trace = _local.trace
    if event == "call":
        code = frame.f_code
        if code in _EFFECTS or code.co_qualname == _OPTIMIZER_APPLY[0]:
            function = _effect_function(code, frame)
            if function is None:
                return
            outputs = None
            if not trace.effects:
                args, kwargs = _call_arguments(code, frame.f_locals)
                if code in _PURE and (not any(
                        isinstance(t, Tensor) and trace.is_dynamic(t)
                        for t in nest.flatten([args, kwargs])) or (
                        code in _DIFFERENTIABLE and _record.current_tapes())):
                    # Of constants only, its result is a constant too; under a tape,
                    # a differentiable one's ops are recorded one by one.
                    return
                outputs = trace.begin_effect(function, args, kwargs)
                if code in _VALUE_SHAPED:
                    outputs.append(_VALUE_SHAPED)
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
        self.outer = getattr(_local, "trace", None)
        if self.outer is not None:
            raise RuntimeError("tracing: a trace is already recording in this thread")
        with _swap_lock:
            if _active == 0:
                _previous_call = Op.__call__  # the NaN finder's, when it is on
                _VALUE_READERS.update(_with_nested(_previous_call.__code__))
                Op.__call__ = _tracing_call
                Tensor._value = _guarded
                Variable.__init__ = _checked_init
            _active += 1
        _local.trace = self.trace
        self.profile = sys.getprofile()
        if self.profile is None:
            sys.setprofile(_profile)
        return self.trace

    def __exit__(self, *exc):
        global _active
        if self.profile is None:
            sys.setprofile(None)
        else:
            self.trace.untraceable("a profiler is active, so effects cannot be recorded")
        _local.trace = None
        with _swap_lock:
            _active -= 1
            if _active == 0:
                Op.__call__ = _previous_call
                Tensor._value = _slot
                Variable.__init__ = _plain_init
        return False



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
        if self.trace.problem is not None:
            self.outer.untraceable(self.trace.problem)
        self.outer.shape_dependent |= self.trace.shape_dependent
        self.outer.hide(self.trace.keep)
        return False


class untraced:
    """`with untraced():` runs ops in the tracing thread without recording them
    (a traced loop's later iterations, run by the executor while tracing)."""

    def __enter__(self):
        self.outer = getattr(_local, "trace", None)
        _local.trace = None
        profile = sys.getprofile()
        self.profile = profile if profile is _profile else None
        if self.profile is not None:
            sys.setprofile(None)

    def __exit__(self, *exc):
        if self.profile is not None:
            sys.setprofile(self.profile)
        _local.trace = self.outer
        return False
