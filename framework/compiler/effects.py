"""effects.py lists the calls a trace records whole instead of op by op
(tracing.py's profile hook finds them by their code): effects, which must run
at every call of a traced function (Variable assigns, `tf.print`, `tf.random`
draws, `tf.py_function`, an optimizer's `apply`, a Keras metric's `update_state` and `result`,
`next()` and `get_next()` of a tf.data iterator made outside the trace), and
public functions that compute on values
outside the ops (comparisons, argmax, tf.range, tf.cast), replayed with the
call's tensors. Anything else may register with `register_effect`.
"""

import types
import weakref

import numpy as np

from .. import random as _random
from ..api import array_ops as _array_ops
from ..api import printing as _printing
from ..api import py_func as _py_func
from ..core import dtypes as _dtypes
from ..core import nest
from ..core.tensor import Tensor, Variable
from ..math import comparisons as _comparisons
from ..math import reductions as _reductions
from ..ops import conv as _conv_ops

__all__ = [
    "DIFFERENTIABLE",
    "PURE",
    "VALUE_SHAPED",
    "WHEN",
    "call_arguments",
    "effect_function",
    "is_effect",
    "register_effect",
    "value_shaped",
]

EFFECTS = {}  # code object -> the function to call at replay (None: a method, found by self)


PURE = set()  # codes of whole calls without side effects (recorded only on traced inputs)
VALUE_SHAPED = set()  # codes of whole calls whose result's shape depends on values
# code of a pure whole call that may run ops a tape needs -> predicate(args, kwargs, value)
# saying whether this call does (`value` reads a tensor's array without the trace noticing)
DIFFERENTIABLE = {}
# code of a pure whole call -> predicate(args, kwargs, value): recorded whole only when it
# holds (the other calls' ops are recorded one by one)
WHEN = {}


def register_effect(function, pure=False, value_shaped=False, differentiable=False, when=None):
    """Make calls of `function` replay whole at every call of a traced function
    (with the call's tensors), instead of recording the ops inside. For calls
    that read values in Python: assignments, printing, random draws, optimizer
    updates (effects), and public functions computing outside the ops
    (`pure`: recorded only when an argument is traced; `value_shaped`: the
    shape of the result depends on the values, so Python may not read it;
    `differentiable`: under a recording tape the call runs as it is, so that
    the tape sees its ops; `when`: a predicate of (args, kwargs, value) for the
    calls that compute outside the ops, the others being recorded op by op).
    Returns `function` (usable as a decorator)."""
    EFFECTS[function.__code__] = function
    if pure:
        PURE.add(function.__code__)
    if value_shaped:
        VALUE_SHAPED.add(function.__code__)
    if when is not None:
        WHEN[function.__code__] = when
    if differentiable:  # (tf.cast between floats is an op)
        DIFFERENTIABLE[function.__code__] = differentiable if callable(differentiable) \
            else _always
    return function


def _always(args, kwargs, value):
    return True


def _integer_input(args, kwargs, value):
    """reduce_mean computes an integer tensor's mean in NumPy, a float's with ops."""
    x = args[0] if args else kwargs.get("input_tensor")
    try:
        return (value(x) if isinstance(x, Tensor) else np.asarray(x)).dtype.kind in "iu"
    except (TypeError, ValueError):
        return False  # its own error follows


def _float_cast(args, kwargs, value):
    """tf.cast runs ops a tape records only between float (or complex) dtypes."""
    x = args[0] if args else kwargs.get("x")
    dtype = args[1] if len(args) > 1 else kwargs.get("dtype")
    try:
        source = value(x).dtype if isinstance(x, Tensor) else np.asarray(x).dtype
        return source.kind in "fc" and _dtypes.as_dtype(dtype)._np.kind in "fc"
    except (TypeError, ValueError):
        return True  # let the call run as it is; its own error or ops follow


# tf.py_function and tf.numpy_function run their Python function at every call, as TF's.
for _effect in (Variable.assign, Variable.assign_add, Variable.assign_sub, _printing.print_,
                _py_func.py_function, _py_func.numpy_function):
    register_effect(_effect)
# Random draws: fresh values at every call, as TF's stateful random ops.
for _fn in [getattr(_random, n) for n in ("normal", "uniform", "truncated_normal", "shuffle",
                                          "categorical")] + [
        getattr(_random.Generator, n) for n in ("normal", "uniform", "truncated_normal")
        if hasattr(_random.Generator, n)] + [_random.draw]:
    register_effect(_fn)
# Public functions that compute outside the ops (on `._value`): replayed whole.
for _fn in [getattr(_comparisons, n) for n in _comparisons.__all__] + [
        _reductions.argmax, _reductions.argmin]:
    register_effect(_fn, pure=True)
register_effect(_array_ops.range, pure=True, value_shaped=True)
register_effect(_reductions.reduce_mean, pure=True, when=_integer_input)  # TF's truncated mean
register_effect(_array_ops.cast, pure=True, differentiable=_float_cast)
# A Conv2D layer's backward pass (conv + bias + activation) replays whole, so that its
# first-order shortcuts run as they do eagerly (one kernel pass masking the gradient and
# summing the bias gradient; the direct filter kernel of a first layer); under a
# recording tape (a higher order) its ops are recorded one by one.
register_effect(_conv_ops.conv2d_bias_activation.vjps, pure=True, differentiable=True)
# Optimizers live in a higher layer: their one entry point is matched by name.
_OPTIMIZER_APPLY = ("Optimizer.apply", "optimizer.py")
# So do Keras metrics, which update and read their state in NumPy: their update_state
# and result run whole at every call (a Metric subclass's, found by its base class).
_METRIC_METHODS = frozenset({"update_state", "result"})
_METRIC_BASE = ("Metric", "tapeflow.metrics.base")
# A tf.data iterator's next element, matched by name too (loading tf.data costs ~90 ms):
# one made outside the trace (an argument, a global) is read at every call, as TF's
# iterator resource; one the traced Python makes (`for x in dataset`, unrolled) is not.
_ITERATOR = ("Iterator", "data/base.py")
_ITERATOR_READS = frozenset({"__next__", "get_next"})
_made_while_tracing = weakref.WeakSet()  # iterators made by a traced function's Python


def is_effect(code):
    """Whether calls of `code` may be recorded whole (then ask effect_function)."""
    return code in EFFECTS or code.co_qualname == _OPTIMIZER_APPLY[0] or \
        code.co_name in _METRIC_METHODS or code.co_qualname.startswith("Iterator.")


def effect_function(code, frame):
    function = EFFECTS.get(code)
    if function is not None:
        if code.co_freevars:  # one code for many closures (tf.less, tf.greater, ...)
            cells = tuple(types.CellType(frame.f_locals[n]) for n in code.co_freevars)
            return types.FunctionType(code, frame.f_globals, code.co_name, None, cells)
        return function
    owner = frame.f_locals.get("self")
    if code.co_qualname == _OPTIMIZER_APPLY[0] and code.co_filename.endswith(_OPTIMIZER_APPLY[1]):
        return _method(owner, "apply", code)
    if code.co_qualname.startswith("Iterator.") and code.co_filename.endswith(_ITERATOR[1]):
        return _iterator_read(owner, code)
    if code.co_name in _METRIC_METHODS and any(
            (c.__name__, c.__module__) == _METRIC_BASE for c in type(owner).__mro__):
        return _method(owner, code.co_name, code)
    return None


def _iterator_read(iterator, code):
    """The iterator's read to record (None: not recorded)."""
    if code.co_name == "__init__":
        _made_while_tracing.add(iterator)
        return None
    if code.co_name not in _ITERATOR_READS or iterator in _made_while_tracing:
        return None
    return _method(iterator, code.co_name, code)


def value_shaped(code, args):
    """Whether the result of a whole call of `code` (with `args`) has a shape that
    depends on values, so that Python may not read it: the registered ones, and an
    iterator's element unless its element_spec is fully defined (a last partial
    batch), so that Python reading its shape makes the function run eagerly."""
    if code in VALUE_SHAPED:
        return True
    if code.co_name in _ITERATOR_READS and code.co_qualname.startswith("Iterator."):
        return not all(getattr(s, "shape", None) is not None and s.shape.is_fully_defined()
                       for s in nest.flatten(args[0].element_spec))
    return False


def _method(owner, name, code):
    """The function in `owner`'s class hierarchy whose code is `code`."""
    for cls in type(owner).__mro__:
        method = cls.__dict__.get(name)
        if getattr(method, "__code__", None) is code or getattr(
                getattr(method, "__wrapped__", None), "__code__", None) is code:
            return method  # (a decorated method replays through its decorator: a lock)
    return None


def call_arguments(code, local):
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
