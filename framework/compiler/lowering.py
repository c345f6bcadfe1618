"""lowering.py says how each node of a traced graph becomes Numba source text
(codegen.py writes the function; native.py compiles and runs it). A node
without a lowering here keeps its graph on the executor's replay.

What lowers: the elementwise ops (their NumPy expression, which Numba fuses
into one loop over arrays; exp, log, tanh, sin, cos and powers other than
NumPy's short ways only under jit_compile=True: INEXACT), ReLU's gradient, sums
and means (a float one over all axes or the last in NumPy's pairwise order,
kernels/reductions.py, so a loss's mean gives NumPy's bits), a bias gradient's
unbroadcast (under jit_compile=True only: the executor's runs on BLAS), casts and
comparisons, Variable assignments, and
the updates of the SGD family and of Adam with a constant learning rate
(on the fused kernel eager runs, kernels/optimizers.py, where eager runs it).
Each lowering returns source lines; `Unlowerable` says why one cannot.
"""

import numpy as np

from ..core.tensor import Variable
from ..math import comparisons as _comparisons
from ..api import array_ops as _array_ops

__all__ = ["EXPRESSIONS", "INEXACT", "ORDERED_SUMS", "Unlowerable", "effect_lowering",
           "reduction_expression", "unbroadcast_expression"]


class Unlowerable(Exception):
    """A node (or a value) that the generated code cannot express; the message says which."""


# op name -> NumPy expression over the inputs {0}, {1}; {t} is the result's dtype
# constructor (np.float32), for constants that must not widen the result.
EXPRESSIONS = {
    "add": "{0} + {1}",
    "subtract": "{0} - {1}",
    "multiply": "{0} * {1}",
    "divide": "{0} / {1}",
    "pow": "{0} ** {1}",
    "maximum": "np.maximum({0}, {1})",
    "minimum": "np.minimum({0}, {1})",
    "negative": "-{0}",
    "square": "{0} * {0}",
    "sqrt": "np.sqrt({0})",
    "exp": "np.exp({0})",
    "log": "np.log({0})",
    "sin": "np.sin({0})",
    "cos": "np.cos({0})",
    "tanh": "np.tanh({0})",
    "abs": "np.abs({0})",
    "sign": "np.sign({0})",
    "floor": "np.floor({0})",
    "ceil": "np.ceil({0})",
    "relu": "np.maximum({0}, {t}(0))",
    "relu_grad": "{0} * ({1} > {t}(0))",  # as ops/math.relu_grad's NumPy form
    "identity": "{0}",
    "stop_gradient": "{0}",
}
# Reductions over all axes, or over one axis without keepdims (the forms Numba's
# np.sum/np.max take). A float32/float64 sum or mean over all axes or the last one
# adds in NumPy's own order (kernels/reductions.py), so that it gives NumPy's bits:
# native.py keeps only code that does, and Numba's np.sum, adding in sequence, had
# kept every graph with a loss's mean replayed. Over another axis NumPy adds the
# rows in sequence, as Numba's np.sum does (the check finds where they differ). A
# mean divides in float64 and rounds to the dtype, as np.mean (a float32 count
# above 2**24 is inexact). NumPy adds a view in another order than a C-contiguous
# array, so code with these sums replays calls on views (ORDERED_SUMS).
REDUCTIONS = {"reduce_sum": "np.sum", "reduce_max": "np.max", "reduce_min": "np.min",
              "reduce_mean": "np.mean", "reduce_prod": "np.prod"}
_PAIRWISE = (np.dtype(np.float32), np.dtype(np.float64))
ORDERED_SUMS = ("reduction_kernels.", "np.sum(")  # in a source: its sums need C order


def reduction_expression(name, argument, attrs, ndim, dtype=None):
    """The expression of a reduction op with its attributes (on an argument of
    `ndim` axes and `dtype`), or None."""
    function = REDUCTIONS.get(name)
    if function is None or attrs.get("keepdims"):
        return None
    axis = attrs.get("axis")
    if isinstance(axis, (list, tuple)):
        axis = [a % ndim for a in axis] if ndim else list(axis)
        if sorted(axis) == list(range(ndim)):
            axis = None
        elif len(axis) == 1:
            axis = axis[0]
        else:
            return None
    if axis is not None:
        axis = int(axis) % ndim
    if name in ("reduce_sum", "reduce_mean") and dtype is not None and \
            np.dtype(dtype) in _PAIRWISE:
        kind = f"np.{np.dtype(dtype).name}"
        if axis is None or ndim == 1:
            total = f"reduction_kernels.pairwise_total({argument})"
            return total if name == "reduce_sum" else \
                f"{kind}({total} / np.float64({argument}.size))"
        total = f"reduction_kernels.pairwise_rows({argument})" if axis == ndim - 1 else \
            f"np.sum({argument}, axis={axis})"
        return total if name == "reduce_sum" else \
            f"({total} / np.float64({argument}.shape[{axis}])).astype({kind})"
    if axis is None or ndim == 1:
        return f"{function}({argument})"
    if function in ("np.prod", "np.mean"):
        return None  # Numba's np.prod and np.mean take no axis
    return f"{function}({argument}, axis={axis})"


def unbroadcast_expression(argument, attrs, shape, dtype, exact=True):
    """The expression of ops/shape.unbroadcast summing the leading axis of a float
    `shape` away (a bias gradient) or changing nothing, or None for the other forms
    and, when `exact`, for a sum: the executor's runs on BLAS (a product with a ones
    vector), in an order no loop here repeats, so its code would never be kept."""
    target = tuple(attrs.get("shape", ()))
    if attrs.get("batch_ndim", 0) or len(target) > len(shape):
        return None
    lead = len(shape) - len(target)
    if tuple(shape[lead:]) != target:
        return None  # a broadcast size-1 axis is summed too: not lowered
    if lead == 0:
        return argument
    if lead != 1 or not target or np.dtype(dtype).kind != "f" or exact:
        return None
    return f"reduction_kernels.sum_leading_axis({argument})"


FLOAT_ONLY = frozenset({"divide", "sqrt", "exp", "log", "sin", "cos", "tanh", "floor", "ceil"})
# Functions whose results Numba (libm, LLVM) and NumPy (SVML on AVX-512, its own SIMD
# code elsewhere) round differently for some arguments: float32 exp 39% of normal
# values, tanh 44%, log 27%, pow 19% (Zen 4, NumPy 2.4, Numba 0.68). Code that must
# give the executor's bits cannot hold them: a check on one call's values could pass
# and the next call's differ. pow by a constant 2 is x * x on both sides.
INEXACT = frozenset({"exp", "log", "sin", "cos", "tanh", "pow"})

_COMPARE_CODE = _comparisons.less.__code__  # every comparison is one closure of this code
_COMPARISONS = {"less": "<", "less_equal": "<=", "greater": ">", "greater_equal": ">=",
                "equal": "==", "not_equal": "!=", "logical_and": "&", "logical_or": "|",
                "logical_xor": "^"}


def effect_lowering(function):
    """The lowering of a CALL node's function, or None."""
    code = getattr(function, "__code__", None)
    if code is _COMPARE_CODE:
        return lower_comparison
    if function in _ASSIGNS:
        return lower_assign
    if function is _array_ops.cast:
        return lower_cast
    if code is not None and code.co_qualname == "Optimizer.apply":
        return lower_optimizer_apply
    return None


# Each effect lowering is `(emit, function, args, kwargs, outputs) -> None`: `emit` is
# codegen's Emitter (`value(leaf)` names a template leaf, `line` writes, `bind(slot,
# expression)` defines an output slot, `variable(v)` names a Variable's array), args
# and kwargs the call's template (SlotRefs for tensors), outputs its (leaf, slot) pairs.


def _comparison_operator(function):
    cells = dict(zip(function.__code__.co_freevars,
                     (c.cell_contents for c in function.__closure__)))
    return _COMPARISONS.get(cells["np_fn"].__name__)


def lower_comparison(emit, function, args, kwargs, outputs):
    operator = _comparison_operator(function)
    if operator is None or len(args) < 2 or not outputs:
        raise Unlowerable(f"comparison {function.__name__}")
    x, y = args[0], args[1]
    dtype = emit.dtype_of(x) if emit.is_slot(x) else emit.dtype_of(y)
    left, right = emit.value(x, dtype), emit.value(y, dtype)
    emit.bind(outputs[0][1], f"({left}) {operator} ({right})")


def lower_cast(emit, function, args, kwargs, outputs):
    if not outputs or not emit.is_slot(args[0]):
        raise Unlowerable("tf.cast without a tensor and a result")
    emit.bind(outputs[0][1], emit.value(args[0]), convert=True)


_ASSIGNS = {Variable.assign: "=", Variable.assign_add: "+=", Variable.assign_sub: "-="}


def lower_assign(emit, function, args, kwargs, outputs):
    value = args[1] if len(args) > 1 else kwargs.get("value", kwargs.get("delta"))
    variable = emit.variable_of(args[0])
    if variable is None:
        raise Unlowerable("an assignment to something other than a Variable")
    operator = _ASSIGNS[function]
    name = emit.variable(variable, write=True)
    dtype = variable._value.dtype
    value = emit.value(value, dtype)
    if variable._value.ndim == 0:
        current = f"{name}[0]"
        new = value if operator == "=" else f"{current} {operator[0]} {value}"
        emit.line(f"{current} = {emit.ctor(dtype)}({new})")
    else:
        emit.line(f"{name}[:] {operator} {value}")
    emit.refresh_variables()


# An update eager runs on a fused kernel calls it (`_kernel_update`); a small or
# strided one (optimizers/_fused.py `_runs_kernel`) is written out: the SGD family's
# NumPy formulas (optimizers/sgd.py), with the learning rate and momentum as
# per-call constants; Adam's (optimizers/adam.py), whose per-step coefficients (bias
# corrections) are its own `_coefficients` at each call.
_SGD_KERNELS = ("sgd", "sgd_momentum", "sgd_nesterov")
_ADAM_KERNELS = ("adam", "adam_amsgrad")


def lower_optimizer_apply(emit, function, args, kwargs, outputs):
    optimizer = args[0]
    grads = args[1] if len(args) > 1 else kwargs.get("grads")
    variables = args[2] if len(args) > 2 else kwargs.get("trainable_variables")
    kernel = getattr(optimizer, "_kernel_name", None)
    kernel = kernel() if kernel is not None else None
    name = type(optimizer).__name__
    if kernel in _ADAM_KERNELS and type(optimizer).__name__ == "Adam":
        if len(emit.scopes) > 1:
            raise Unlowerable(f"the update of {name} inside a loop (its coefficients change "
                              "with the step)")
        if id(optimizer._iterations) in emit.assigned:
            raise Unlowerable(f"a second update of one {name} in the function")
    elif kernel not in _SGD_KERNELS or optimizer._coefs_use_step:
        raise Unlowerable(f"the update of {name} (only SGD's and Adam's lower)")
    if optimizer._lr_kind != 0 or optimizer.clipnorm or optimizer.global_clipnorm or \
            optimizer.clipvalue or optimizer.weight_decay or optimizer.use_ema:
        raise Unlowerable(f"{name} with a learning-rate schedule, clipping, "
                          "weight decay or EMA")
    if variables is None or len(variables) != len(grads):
        raise Unlowerable("an optimizer update without its variables")
    for g, leaf in zip(grads, variables):
        v = emit.variable_of(leaf)
        if g is None or v is None or v.constraint is not None:
            raise Unlowerable("an optimizer update with a None gradient, a constraint or a "
                              "non-Variable")
        if optimizer._runs_kernel(v._value):
            update = _kernel_update  # as an eager update does
        else:
            update = _adam_update if kernel in _ADAM_KERNELS else _sgd_update
        update(emit, optimizer, v, emit.value(g, v._value.dtype))
    iterations = emit.variable(optimizer._iterations, write=True)
    emit.line(f"{iterations}[0] += 1")
    emit.refresh_variables()


def _kernel_update(emit, optimizer, v, grad):
    """The kernel an eager update of `v` runs (optimizers/_fused.py ->
    kernels/optimizers.run), on the flat arrays, with the coefficients eager casts
    to v's dtype and the threads eager gives it: the same bits as eager. The
    update written out below, compiled without the kernel's fastmath, differed in
    the last bits, and a segment holding it stayed on the replay (exact
    agreement, native.py)."""
    dtype, name = v._value.dtype, optimizer._kernel_name()
    coefs = emit.per_call(lambda o=optimizer, d=dtype: _coefficients(o, d), reads=optimizer._lr)
    threads = emit.per_call(lambda o=optimizer, n=name, size=v._value.size:
                            o._kernel_threads(n, size))
    arrays = [f"{emit.variable(x, write=True)}.reshape(-1)"
              for x in [v] + list(optimizer._slots[optimizer._index[id(v)]])]
    flat_grad = f"g{len(emit.lines)}_flat"  # made before the thread count is set
    emit.line(f"{flat_grad} = np.ascontiguousarray({grad}).reshape(-1)")
    arrays.insert(1, flat_grad)
    count = len(_coefficients(optimizer, dtype))
    args = ", ".join(arrays + [f"{coefs}[{i}]" for i in range(count)] + [f"{emit.ctor(dtype)}(0)"])
    was = f"threads{len(emit.lines)}"
    emit.line(f"{was} = optimizer_kernels.set_threads({threads})")
    emit.line(f"optimizer_kernels.{name}({args})")
    emit.line(f"optimizer_kernels.set_threads({was})")


def _coefficients(optimizer, dtype):
    """The kernel's coefficients at the call's step, as FusedOptimizer._step_coefficients
    casts them (the learning rate as Optimizer.apply reads it)."""
    lr, step = float(optimizer._lr._value), int(optimizer._iterations._value)
    return tuple(dtype.type(c) for c in optimizer._coefficients(lr, step))


def _cell(emit, variable):
    """(the expression of `variable`'s value, a function writing a new value to it)."""
    dtype = variable._value.dtype
    name = emit.variable(variable, write=True)
    if variable._value.ndim == 0:
        cell = f"{name}[0]"
        return cell, lambda text: emit.line(f"{cell} = {emit.ctor(dtype)}({text})")
    return name, lambda text: emit.line(f"{name}[:] = {text}")


def _flush_now(emit, optimizer, v):
    """Whether this step flushes v's slots, as the NumPy formulas decide it
    (optimizers/_fused.py `_flush_small`: every step for a small variable)."""
    period = optimizer._flush_period(v._value.size)
    if period == 1:
        return "True"
    return f"{emit.variable(optimizer._iterations)}[0] % {period} == 0"


def _sgd_update(emit, optimizer, v, grad):
    dtype = v._value.dtype
    cell, store = _cell(emit, v)
    lr = emit.per_call(lambda o=optimizer, d=dtype: d.type(float(o._lr._value)),
                       reads=optimizer._lr)
    momentum = getattr(optimizer, "momentum", 0.0)
    if momentum == 0:
        store(f"{cell} - {grad} * {lr}")
        return
    mcell, mstore = _cell(emit, optimizer._slots[optimizer._index[id(v)]][0])
    mu = emit.constant(dtype.type(momentum))
    mstore(f"{mcell} * {mu} - {grad} * {lr}")
    floor = emit.constant(optimizer._slot_floor(dtype))  # optimizers/_fused.py flush_small
    if v._value.ndim == 0:
        emit.line(f"if abs({mcell}) < {floor}:")
        emit.line(f"    {mcell} = {floor} - {floor}")
    else:
        emit.line(f"if {_flush_now(emit, optimizer, v)}:")
        emit.line(f"    {mcell}[:] = np.where(np.abs({mcell}) < {floor}, {floor} - {floor}, "
                  f"{mcell})")
    if optimizer.nesterov:
        store(f"{cell} + ({mcell} * {mu} - {grad} * {lr})")
    else:
        store(f"{cell} + {mcell}")


def _adam_update(emit, optimizer, v, grad):
    """One loop over the elements, as kernels/optimizers._adam: each array is read
    and written once (array expressions would take three passes and temporaries)."""
    dtype = v._value.dtype
    coefs = emit.per_call(lambda o=optimizer, d=dtype: _coefficients(o, d), reads=optimizer._lr)
    slots = optimizer._slots[optimizer._index[id(v)]][:3 if optimizer.amsgrad else 2]
    tag = len(emit.lines)
    flat = []
    for k, variable in enumerate([v] + list(slots)):
        flat.append(f"f{tag}_{k}")
        emit.line(f"{flat[-1]} = {emit.variable(variable, write=True)}.reshape(-1)")
    p, m, s = flat[:3]
    scalar_grad = v._value.ndim == 0
    if not scalar_grad:
        emit.line(f"f{tag}_g = np.ascontiguousarray({grad}).reshape(-1)")
    flush = f"flush{tag}"
    emit.line(f"{flush} = {_flush_now(emit, optimizer, v)}")
    emit.line(f"for i{tag} in range({p}.size):")
    i = f"i{tag}"
    emit.depth += 1
    emit.line(f"g{tag} = {grad if scalar_grad else f'f{tag}_g[{i}]'}")
    floor = emit.constant(optimizer._slot_floor(dtype))  # optimizers/_fused.py flush_small
    emit.line(f"m{tag} = {m}[{i}] + (g{tag} - {m}[{i}]) * {coefs}[1]")
    emit.line(f"m{tag} = {floor} - {floor} if {flush} and abs(m{tag}) < {floor} else m{tag}")
    emit.line(f"{m}[{i}] = m{tag}")
    emit.line(f"s{tag} = {s}[{i}] + (g{tag} * g{tag} - {s}[{i}]) * {coefs}[2]")
    emit.line(f"s{tag} = {floor} - {floor} if {flush} and abs(s{tag}) < {floor} else s{tag}")
    if optimizer.amsgrad:
        emit.line(f"{s}[{i}] = s{tag}")
        emit.line(f"s{tag} = max({flat[3]}[{i}], s{tag})")
        emit.line(f"{flat[3]}[{i}] = s{tag}")
    else:
        emit.line(f"{s}[{i}] = s{tag}")
    emit.line(f"{p}[{i}] = {p}[{i}] - (m{tag} * {coefs}[0]) / (np.sqrt(s{tag}) + {coefs}[3])")
    emit.depth -= 1
