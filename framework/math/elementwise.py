"""elementwise.py: tf.math's elementwise functions -- arithmetic, the unary
transcendental functions, rounding, finiteness tests, maximum/minimum,
clip_by_value, add_n and where. Each checks its arguments and calls the
primitives of ops/math.py, which own the math and the VJPs. Activations,
reductions and comparisons are the sibling modules'."""

import numpy as np

from ..api.dispatch import composite_aware
from ..core.args import apply_binary
from ..core.errors import InvalidArgumentError
from ..core.record import cut as _cut
from ..core.tensor import Tensor, as_tensor, binary_operands
from ..ops import math as _m
from ._checks import float_input

__all__ = ["add", "subtract", "multiply", "divide", "truediv", "divide_no_nan", "floordiv",
           "floormod", "mod", "pow", "negative", "reciprocal", "square", "squared_difference",
           "sqrt", "rsqrt", "exp", "expm1", "log", "log1p", "abs", "sign", "maximum", "minimum",
           "clip_by_value", "add_n", "where", "floor", "ceil", "round", "is_nan", "is_finite",
           "is_inf", "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "tanh",
           "sigmoid", "erf", "erfc", "softplus"]

_FLOAT32 = np.dtype(np.float32)
_FLOAT64 = np.dtype(np.float64)


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
    """x / y elementwise. Integers are divided as floats, as TF's truediv: 8- and
    16-bit ones as float32 (so `uint8_images / 255` meets float32 weights), 32-
    and 64-bit ones as float64."""
    x, y = binary_operands(x, y, "RealDiv")
    dtype = x._value.dtype
    if dtype.kind in "iu":
        as_float = _FLOAT32 if dtype.itemsize <= 2 else _FLOAT64
        x, y = _m.cast(x, dtype=as_float), _m.cast(y, dtype=as_float)
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
    x = float_input(x, "Reciprocal")
    return _m.divide(_m.const(1, x), x)


def squared_difference(x, y, name=None):
    """(x - y) ** 2 elementwise, with broadcasting."""
    return _m.square(apply_binary(_m.subtract, x, y, "SquaredDifference"))


def rsqrt(x, name=None):
    """1 / sqrt(x) elementwise."""
    x = float_input(x, "Rsqrt")
    return _m.divide(_m.const(1, x), _m.sqrt(x))


def _unary(op, tf_name, float_only=True):
    def apply(x, name=None):
        return op(float_input(x, tf_name) if float_only else as_tensor(x))
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
    x = float_input(x, "IsNan")
    return _cut("is_nan", (x,), Tensor(np.isnan(x._value)))


def is_finite(x, name=None):
    x = float_input(x, "IsFinite")
    return _cut("is_finite", (x,), Tensor(np.isfinite(x._value)))


def is_inf(x, name=None):
    x = float_input(x, "IsInf")
    return _cut("is_inf", (x,), Tensor(np.isinf(x._value)))


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
    elements, as tf.where. Under tapeflow.function the signature runs eagerly (one
    warning): n depends on values, which tapeflow's traces do not yet follow through
    later ops.

    Raises:
        ValueError: if only one of `x`, `y` is given.
        InvalidArgumentError: if `condition` is not bool or the shapes do not broadcast.
    """
    c = as_tensor(condition)
    if x is None and y is None:
        return _cut("where", (c,), Tensor(np.argwhere(c._value).astype(np.int64)))
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


# RaggedTensors (api/dispatch.py): tf.add(ragged, 3), tf.exp(ragged), ... act on the
# flat values. Wrapped last, so that this module's own calls skip the extra frame.
for _name in ("add", "subtract", "multiply", "divide", "truediv", "divide_no_nan",
              "floordiv", "floormod", "mod", "pow", "negative", "reciprocal", "square",
              "squared_difference", "sqrt", "rsqrt", "exp", "expm1", "log", "log1p", "abs",
              "sign", "maximum", "minimum", "floor", "ceil", "round", "sin", "cos", "tan",
              "sinh", "cosh", "asin", "acos", "atan", "tanh", "sigmoid", "erf", "erfc",
              "softplus"):
    globals()[_name] = composite_aware(globals()[_name])
