"""math.py is the public `tf.math` namespace: it converts and checks the
arguments, then calls the primitives of ops/ (which hold the math and VJPs).
Functions built from primitives (softsign, selu, logsumexp, ...) need no VJP
of their own. `__all__` is exported top-level (`tf.add`); the activations of
`NN_ACTIVATIONS` are tf.math/tf.nn names only, re-exported by nn.py."""

import builtins

import numpy as np

from .core import dtypes
from .core.args import apply_binary, normalize_axis
from .core.errors import InvalidArgumentError
from .ops import math as _m
from .ops import reduce as _r
from .ops import shape as _s
from .core.tensor import Tensor, as_tensor, binary_operands

_FLOAT64 = np.dtype(np.float64)

__all__ = [
    # arithmetic
    "add", "subtract", "multiply", "divide", "truediv", "divide_no_nan", "floordiv",
    "floormod", "mod", "pow", "negative", "reciprocal", "square", "squared_difference",
    "sqrt", "rsqrt", "exp", "expm1", "log", "log1p", "abs", "sign", "maximum", "minimum",
    "clip_by_value", "add_n", "where", "floor", "ceil", "round", "is_nan", "is_finite",
    "is_inf",
    # transcendental
    "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "tanh", "sigmoid", "erf",
    "erfc",
    # reductions and scans
    "reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
    "reduce_logsumexp", "reduce_variance", "reduce_std", "reduce_all", "reduce_any",
    "reduce_euclidean_norm", "argmax", "argmin", "count_nonzero", "cumsum", "cumprod",
    # comparisons and logic (not differentiable)
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal", "logical_and",
    "logical_or", "logical_not", "logical_xor",
]

# tf.nn activations defined here (most are tf.math names too); not top-level in TF.
NN_ACTIVATIONS = ("relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "silu", "swish",
                  "softplus", "softsign", "log_sigmoid", "sigmoid", "tanh")

_FLOAT_LIST = "bfloat16, half, float, double"


def _float_input(x, tf_name):
    """`x` as a Tensor; TF defines `tf_name` for floating dtypes only."""
    x = as_tensor(x)
    if x._value.dtype.kind not in "fc":
        raise InvalidArgumentError(f"Value for attr 'T' of {x.dtype.name} is not in the list "
                                   f"of allowed values: {_FLOAT_LIST} [Op:{tf_name}]; cast "
                                   "the input to a float dtype first.")
    return x


# -- arithmetic ------------------------------------------------------------------
def add(x, y, name=None):
    """x + y elementwise, with broadcasting."""
    return apply_binary(_m.add, x, y, "AddV2")


def subtract(x, y, name=None):
    """x - y elementwise, with broadcasting."""
    return apply_binary(_m.subtract, x, y, "Sub")


def multiply(x, y, name=None):
    """x * y elementwise, with broadcasting.

    Raises:
        InvalidArgumentError: for shapes that do not broadcast, or mixed dtypes.
    """
    return apply_binary(_m.multiply, x, y, "Mul")


def divide(x, y, name=None):
    """x / y elementwise. Integers are divided as float64, as TF's truediv."""
    x, y = binary_operands(x, y, "RealDiv")
    if x._value.dtype.kind in "iu":
        x, y = _m.cast(x, dtype=_FLOAT64), _m.cast(y, dtype=_FLOAT64)
    return apply_binary(_m.divide, x, y, "RealDiv")


truediv = divide


def divide_no_nan(x, y, name=None):
    """x / y, and 0 wherever y == 0 (also its gradient there), as TF."""
    x, y = binary_operands(x, y, "DivNoNan")
    zero = y._value == 0
    safe_y = _m.add(y, _m.mask_of(zero, y))
    return _m.multiply(apply_binary(_m.divide, x, safe_y, "DivNoNan"), _m.mask_of(~zero, y))


def floordiv(x, y, name=None):
    """floor(x / y) elementwise; not differentiable (TF registers no gradient)."""
    return apply_binary(_m.floordiv, x, y, "FloorDiv")


def floormod(x, y, name=None):
    """x - floor(x / y) * y, with the sign of y; TF's gradient (1, -floor(x / y))."""
    return apply_binary(_m.floormod, x, y, "FloorMod")


mod = floormod


def pow(x, y, name=None):  # noqa: A001 -- TF's name
    """x ** y elementwise, with broadcasting.

    Raises:
        InvalidArgumentError: for integer x with a negative integer exponent.
    """
    x, y = binary_operands(x, y, "Pow")
    if x._value.dtype.kind in "iu" and np.any(y._value < 0):
        raise InvalidArgumentError("Integers to negative integer powers are not allowed "
                                   "[Op:Pow]; cast to float first.")
    return apply_binary(_m.pow, x, y, "Pow")


def reciprocal(x, name=None):
    """1 / x elementwise."""
    x = _float_input(x, "Reciprocal")
    return _m.divide(_m.const(1, x), x)


def squared_difference(x, y, name=None):
    """(x - y) ** 2 elementwise, with broadcasting."""
    return _m.square(apply_binary(_m.subtract, x, y, "SquaredDifference"))


def rsqrt(x, name=None):
    """1 / sqrt(x) elementwise."""
    x = _float_input(x, "Rsqrt")
    return _m.divide(_m.const(1, x), _m.sqrt(x))


def _unary(op, tf_name, float_only=True):
    def apply(x, name=None):
        return op(_float_input(x, tf_name) if float_only else as_tensor(x))
    apply.__name__ = op.name
    apply.__doc__ = f"Elementwise {op.name}, as tf.math.{op.name}."
    return apply


negative = _unary(_m.negative, "Neg", float_only=False)
square = _unary(_m.square, "Square", float_only=False)
abs = _unary(_m.abs, "Abs", float_only=False)  # noqa: A001
sign = _unary(_m.sign, "Sign", float_only=False)
sqrt = _unary(_m.sqrt, "Sqrt")
exp = _unary(_m.exp, "Exp")
expm1 = _unary(_m.expm1, "Expm1")
log = _unary(_m.log, "Log")
log1p = _unary(_m.log1p, "Log1p")
sin = _unary(_m.sin, "Sin")
cos = _unary(_m.cos, "Cos")
tan = _unary(_m.tan, "Tan")
sinh = _unary(_m.sinh, "Sinh")
cosh = _unary(_m.cosh, "Cosh")
asin = _unary(_m.asin, "Asin")
acos = _unary(_m.acos, "Acos")
atan = _unary(_m.atan, "Atan")
tanh = _unary(_m.tanh, "Tanh")
sigmoid = _unary(_m.sigmoid, "Sigmoid")
erf = _unary(_m.erf, "Erf")
erfc = _unary(_m.erfc, "Erfc")
softplus = _unary(_m.softplus, "Softplus")
floor = _unary(_m.floor, "Floor")
ceil = _unary(_m.ceil, "Ceil")


def round(x, name=None):  # noqa: A001 -- TF's name
    """Round half to even, as tf.math.round; integers are returned unchanged."""
    x = as_tensor(x)
    return x if x._value.dtype.kind in "iub" else _m.round(x)


def is_nan(x, name=None):
    return Tensor(np.isnan(_float_input(x, "IsNan")._value))


def is_finite(x, name=None):
    return Tensor(np.isfinite(_float_input(x, "IsFinite")._value))


def is_inf(x, name=None):
    return Tensor(np.isinf(_float_input(x, "IsInf")._value))


def maximum(x, y, name=None):
    """Elementwise maximum; on a tie the gradient goes to `x`, as in TF."""
    return apply_binary(_m.maximum, x, y, "Maximum")


def minimum(x, y, name=None):
    """Elementwise minimum; on a tie the gradient goes to `x`, as in TF."""
    return apply_binary(_m.minimum, x, y, "Minimum")


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    """Clip `t` to [clip_value_min, clip_value_max], as tf.clip_by_value.

    Built as maximum(minimum(t, max), min), like TF, so the gradient passes to
    `t` inside the bounds and on them, and to a bound where `t` is beyond it.

    Raises:
        InvalidArgumentError: if the bounds do not broadcast to `t`'s shape.
    """
    t = as_tensor(t)
    result = maximum(minimum(t, clip_value_max), clip_value_min)
    if result._value.shape != t._value.shape:
        raise InvalidArgumentError(f"clip_by_value: the bounds broadcast t of shape "
                                   f"{list(t._value.shape)} to {list(result._value.shape)}; "
                                   "they must be scalars or broadcastable to t's shape.")
    return result


def add_n(inputs, name=None):
    """The elementwise sum of a list of tensors of one shape and dtype.

    Raises:
        ValueError: for an empty list; InvalidArgumentError for mixed shapes or dtypes.
    """
    if isinstance(inputs, Tensor) or not inputs:
        raise ValueError("add_n: inputs must be a non-empty list of tensors of one shape "
                         "and dtype.")
    tensors = [as_tensor(t) for t in inputs]
    first = tensors[0]
    for t in tensors[1:]:
        if t._value.shape != first._value.shape or t._value.dtype != first._value.dtype:
            raise InvalidArgumentError(
                f"add_n: all inputs must have one shape and dtype, got {list(first.shape)} "
                f"{first.dtype.name} and {list(t.shape)} {t.dtype.name} [Op:AddN]")
    total = first
    for t in tensors[1:]:
        total = _m.add(total, t)
    return total


def where(condition, x=None, y=None, name=None):
    """Select from `x` where `condition` is true, else from `y` (all three broadcast).

    With `condition` alone, the int64 coordinates (n, rank) of its true (nonzero)
    elements, as tf.where.

    Raises:
        ValueError: if only one of `x`, `y` is given.
        InvalidArgumentError: if `condition` is not bool or the shapes do not broadcast.
    """
    c = as_tensor(condition)
    if x is None and y is None:
        return Tensor(np.argwhere(c._value).astype(np.int64))
    if x is None or y is None:
        raise ValueError("x and y must both be non-None or both be None.")
    if c._value.dtype.kind != "b":
        raise InvalidArgumentError(f"cannot compute SelectV2 as input #0(zero-based) was "
                                   f"expected to be a bool tensor but is a {c.dtype.name} "
                                   "tensor [Op:SelectV2]")
    x, y = binary_operands(x, y, "SelectV2")
    shapes = [list(t._value.shape) for t in (c, x, y)]
    try:
        np.broadcast_shapes(c._value.shape, x._value.shape, y._value.shape)
    except ValueError:
        raise InvalidArgumentError(f"condition, x and y must broadcast together, got shapes "
                                   f"{shapes[0]}, {shapes[1]} and {shapes[2]} "
                                   "[Op:SelectV2]") from None
    return _m.select(c, x, y)


# -- activations (tf.nn) --------------------------------------------------------
def relu(features, name=None):
    """max(features, 0); the gradient at 0 is 0, as in TF."""
    return _m.relu(as_tensor(features))


def relu6(features, name=None):
    """min(max(features, 0), 6); the gradient is 1 strictly inside (0, 6), as TF."""
    x = as_tensor(features)
    return _m.select(Tensor(x._value < 6), _m.relu(x), _m.const(6, x))


def leaky_relu(features, alpha=0.2, name=None):
    """features where positive, else alpha * features (gradient alpha at 0, as TF)."""
    x = as_tensor(features)
    if x._value.dtype.kind in "iu":
        x = _m.cast(x, dtype=np.dtype(np.float32))  # TF casts integer features too
    return _m.select(Tensor(x._value > 0), x, _m.multiply(x, _m.const(alpha, x)))


def _negative_part(x):
    """expm1(min(x, 0)): ELU's negative branch, never overflowing for large x."""
    return _m.expm1(_m.minimum(x, _m.const(0, x)))


def elu(features, name=None):
    """features where positive, else exp(features) - 1."""
    x = _float_input(features, "Elu")
    # TF's Elu/EluGrad take the linear branch at 0 (`features < 0` picks exp).
    return _m.select(Tensor(x._value >= 0), x, _negative_part(x))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(features, name=None):
    """scale * (features if positive else alpha * (exp(features) - 1)), TF's constants."""
    x = _float_input(features, "Selu")
    negative_part = _m.multiply(_m.const(_SELU_ALPHA, x), _negative_part(x))
    # TF's SeluGrad takes the linear branch at 0: the gradient there is scale, not
    # scale * alpha.
    return _m.multiply(_m.const(_SELU_SCALE, x),
                       _m.select(Tensor(x._value >= 0), x, negative_part))


def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit, as tf.nn.gelu.

    Args:
        approximate: False (TF's default) for x * Phi(x) with the exact erf;
            True for the tanh approximation
            0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
    """
    x = _float_input(features, "Gelu")
    half, one = _m.const(0.5, x), _m.const(1, x)
    if approximate:
        cubic = _m.multiply(_m.const(0.044715, x), _m.multiply(x, _m.square(x)))
        inner = _m.multiply(_m.const(0.7978845608028654, x), _m.add(x, cubic))
        return _m.multiply(_m.multiply(half, x), _m.add(one, _m.tanh(inner)))
    phi = _m.add(one, _m.erf(_m.multiply(x, _m.const(0.7071067811865476, x))))
    return _m.multiply(_m.multiply(half, x), phi)


def silu(features, beta=1.0, name=None):
    """features * sigmoid(beta * features) (tf.nn.silu, also tf.nn.swish)."""
    x = _float_input(features, "Silu")
    scaled = x if beta == 1.0 else _m.multiply(x, _m.const(beta, x))
    return _m.multiply(x, _m.sigmoid(scaled))


swish = silu


def softsign(features, name=None):
    """features / (1 + |features|)."""
    x = _float_input(features, "Softsign")
    return _m.divide(x, _m.add(_m.const(1, x), _m.abs(x)))


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|."""
    x = _float_input(x, "LogSigmoid")
    return _m.negative(_m.softplus(_m.negative(x)))


# -- reductions -----------------------------------------------------------------
def _reduce_args(input_tensor, axis, tf_name, allow_bool=False):
    x = as_tensor(input_tensor)
    if x._value.dtype.kind == "b" and not allow_bool:
        raise TypeError(f"{tf_name} is not defined for bool tensors; cast first.")
    return x, normalize_axis(axis, x._value.ndim, tf_name, x._value.shape)


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """Sum over `axis` (all axes when None); the dtype is kept, as tf.reduce_sum.

    Raises:
        InvalidArgumentError: for an axis outside the tensor's rank.
    """
    x, axes = _reduce_args(input_tensor, axis, "Sum")
    return _r.reduce_sum(x, axis=axes, keepdims=builtins.bool(keepdims))


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """Mean over `axis`; integer tensors give the truncated integer mean, as TF."""
    x, axes = _reduce_args(input_tensor, axis, "Mean")
    keepdims = builtins.bool(keepdims)
    if x._value.dtype.kind in "iu":
        total = np.sum(x._value, axis=axes, keepdims=keepdims, dtype=np.int64)
        count = max(_r._count(x._value.shape, axes), 1)
        mean = np.sign(total) * (np.abs(total) // count)
        return Tensor(np.asarray(mean).astype(x._value.dtype))
    return _r.reduce_mean(x, axis=axes, keepdims=keepdims)


def _extremum(op, np_fn, tf_name, lowest):
    def apply(input_tensor, axis=None, keepdims=False, name=None):
        x, axes = _reduce_args(input_tensor, axis, tf_name, allow_bool=True)
        if x._value.size == 0:  # TF: the identity of the reduction (-inf for max)
            dtype = x._value.dtype
            info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
            start = (-np.inf if lowest else np.inf) if dtype.kind == "f" else (
                info.min if lowest else info.max)
            return Tensor(np.asarray(np_fn(x._value, axis=axes, keepdims=builtins.bool(
                keepdims), initial=start)))
        return op(x, axis=axes, keepdims=builtins.bool(keepdims))
    apply.__name__ = op.name
    apply.__doc__ = (f"{op.name} over `axis`; tied entries share the gradient evenly, as "
                     f"TF.\n\nRaises:\n    InvalidArgumentError: for an invalid axis.\n")
    return apply


reduce_max = _extremum(_r.reduce_max, np.max, "Max", lowest=True)
reduce_min = _extremum(_r.reduce_min, np.min, "Min", lowest=False)


def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    """Product over `axis`; the gradient is exact when entries are zero."""
    x, axes = _reduce_args(input_tensor, axis, "Prod")
    return _r.reduce_prod(x, axis=axes, keepdims=builtins.bool(keepdims))


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) over `axis`, computed stably (the max is subtracted first)."""
    x = _float_input(input_tensor, "ReduceLogSumExp")
    axes = normalize_axis(axis, x._value.ndim, "ReduceLogSumExp", x._value.shape)
    top = np.max(x._value, axis=axes, keepdims=True, initial=-np.inf)
    top = Tensor(np.where(np.isfinite(top), top, 0).astype(x._value.dtype))  # a constant
    summed = _r.reduce_sum(_m.exp(_m.subtract(x, top)), axis=axes, keepdims=True)
    result = _m.add(_m.log(summed), top)
    if not keepdims:
        shape = x._value.shape
        result = _s.reshape(result, shape=() if axes is None else tuple(
            d for i, d in enumerate(shape) if i not in axes))
    return result


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The (biased) variance over `axis`: mean of squared deviations from the mean."""
    x = _float_input(input_tensor, "ReduceVariance")
    axes = normalize_axis(axis, x._value.ndim, "ReduceVariance", x._value.shape)
    mean = _r.reduce_mean(x, axis=axes, keepdims=True)
    return _r.reduce_mean(_m.square(_m.subtract(x, mean)), axis=axes,
                          keepdims=builtins.bool(keepdims))


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(reduce_variance); its gradient is infinite where the variance is 0, as TF."""
    return _m.sqrt(reduce_variance(input_tensor, axis, keepdims))


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x ** 2)) over `axis`."""
    x = _float_input(input_tensor, "EuclideanNorm")
    axes = normalize_axis(axis, x._value.ndim, "EuclideanNorm", x._value.shape)
    return _m.sqrt(_r.reduce_sum(_m.square(x), axis=axes, keepdims=builtins.bool(keepdims)))


def _logical_reduction(np_fn, tf_name):
    def apply(input_tensor, axis=None, keepdims=False, name=None):
        x = as_tensor(input_tensor)
        if x._value.dtype.kind != "b":
            raise TypeError(f"{tf_name} needs a bool tensor, got {x.dtype.name}; compare or "
                            "cast first.")
        axes = normalize_axis(axis, x._value.ndim, tf_name, x._value.shape)
        return Tensor(np.asarray(np_fn(x._value, axis=axes, keepdims=builtins.bool(keepdims))))
    apply.__name__ = np_fn.__name__
    apply.__doc__ = f"Logical {np_fn.__name__} over `axis` (not differentiable)."
    return apply


reduce_all = _logical_reduction(np.all, "All")
reduce_any = _logical_reduction(np.any, "Any")


def _single_axis(x, axis, tf_name):
    if x._value.ndim == 0:
        raise InvalidArgumentError(f"{tf_name}: expected a tensor of rank >= 1, got a scalar.")
    return normalize_axis(int(axis), x._value.ndim, tf_name, x._value.shape)[0]


def _index_reduction(np_fn, tf_name):
    def apply(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
        x = as_tensor(input)
        out = dtypes.as_dtype(output_type)
        if out not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"{tf_name}: output_type must be int32 or int64, got {out.name}.")
        a = _single_axis(x, 0 if axis is None else axis, tf_name)
        if x._value.shape[a] == 0:
            raise InvalidArgumentError(f"{tf_name}: reduction axis {a} of shape "
                                       f"{list(x._value.shape)} is empty.")
        return Tensor(np.asarray(np_fn(x._value, axis=a)).astype(out._np))
    apply.__name__ = np_fn.__name__
    apply.__doc__ = (f"Index of the {np_fn.__name__[3:]} along `axis` (default 0), as int64 "
                     "(or `output_type`); not differentiable.")
    return apply


argmax = _index_reduction(np.argmax, "ArgMax")
argmin = _index_reduction(np.argmin, "ArgMin")


def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64, name=None):  # noqa: A002
    """The number of nonzero entries over `axis`, as int64 (or `dtype`)."""
    x = as_tensor(input)
    axes = normalize_axis(axis, x._value.ndim, "count_nonzero", x._value.shape)
    counts = np.count_nonzero(x._value, axis=axes, keepdims=builtins.bool(keepdims))
    return Tensor(np.asarray(counts).astype(dtypes.as_dtype(dtype)._np))


def _scan(op, tf_name):
    def apply(x, axis=0, exclusive=False, reverse=False, name=None):
        x = as_tensor(x)
        if x._value.dtype.kind == "b":
            raise TypeError(f"{tf_name} is not defined for bool tensors; cast first.")
        a = _single_axis(x, axis, tf_name)
        return op(x, axis=a, exclusive=builtins.bool(exclusive), reverse=builtins.bool(reverse))
    apply.__name__ = op.name
    apply.__doc__ = (f"Cumulative {op.name[3:]} along `axis`; `exclusive` leaves out each "
                     "entry itself, `reverse` runs from the end, as TF.")
    return apply


cumsum = _scan(_r.cumsum, "Cumsum")
cumprod = _scan(_r.cumprod, "Cumprod")


# -- comparisons and logic -------------------------------------------------------
def _compare(np_fn, tf_name):
    def apply(x, y, name=None):
        x, y = binary_operands(x, y, tf_name)
        try:
            return Tensor(np_fn(x._value, y._value))
        except ValueError:
            raise InvalidArgumentError(f"Incompatible shapes: {list(x._value.shape)} vs. "
                                       f"{list(y._value.shape)} [Op:{tf_name}]") from None
    apply.__name__ = tf_name
    apply.__doc__ = f"Elementwise {np_fn.__name__} (not differentiable)."
    return apply


equal = _compare(np.equal, "Equal")
not_equal = _compare(np.not_equal, "NotEqual")
less = _compare(np.less, "Less")
less_equal = _compare(np.less_equal, "LessEqual")
greater = _compare(np.greater, "Greater")
greater_equal = _compare(np.greater_equal, "GreaterEqual")
logical_and = _compare(np.logical_and, "LogicalAnd")
logical_or = _compare(np.logical_or, "LogicalOr")
logical_xor = _compare(np.logical_xor, "LogicalXor")


def logical_not(x, name=None):
    x = as_tensor(x)
    if x._value.dtype.kind != "b":
        raise TypeError(f"logical_not needs a bool tensor, got {x.dtype!r}.")
    return Tensor(np.logical_not(x._value))
