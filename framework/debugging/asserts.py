"""asserts.py holds TF's eager assertions (`tf.debugging.assert_*`, several also
in the root namespace): each checks its condition now and raises
InvalidArgumentError with the condition, the user's message and the values, as
TF does in eager mode; each returns None. `check_numerics` passes its tensor
through, checking it forwards and its gradient backwards, as TF's op does."""

import numpy as np

from ..autodiff.custom_gradient import custom_gradient
from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, convert_to_tensor

__all__ = ["assert_equal", "assert_none_equal", "assert_less", "assert_less_equal",
           "assert_greater", "assert_greater_equal", "assert_positive", "assert_negative",
           "assert_non_negative", "assert_non_positive", "assert_near", "assert_rank",
           "assert_rank_at_least", "assert_type", "assert_shapes", "assert_all_finite",
           "check_numerics", "is_numeric_tensor"]


def _values(x, y=None):
    x = convert_to_tensor(x)
    if y is None:
        return x, None
    y = convert_to_tensor(y, dtype=x.dtype) if not isinstance(y, Tensor) else y
    try:
        np.broadcast_shapes(x._value.shape, y._value.shape)
    except ValueError:
        raise ValueError(f"Shapes {tuple(x.shape)} and {tuple(y.shape)} are incompatible.") from None
    return x, y


def _fail(condition, message, summarize, **tensors):
    parts = [message] if message else []
    parts.append(f"Condition {condition} did not hold element-wise:")
    for name, t in tensors.items():
        flat = t._value.ravel()
        shown = flat if summarize is None else flat[:summarize]
        parts.append(f"{name} (shape={tuple(t.shape)}) = {shown.tolist()}")
    raise InvalidArgumentError("\n".join(parts))


def _binary(symbol, compare):
    def check(x, y, message=None, summarize=None, name=None):
        x, y = _values(x, y)
        if not np.all(compare(x._value, y._value)):
            _fail(f"x {symbol} y", message, summarize, x=x, y=y)
    check.__doc__ = f"Raise InvalidArgumentError unless `x {symbol} y` holds element-wise."
    return check


def _unary(symbol, compare):
    def check(x, message=None, summarize=None, name=None):
        x, _ = _values(x)
        if not np.all(compare(x._value)):
            _fail(f"x {symbol}", message, summarize, x=x)
    check.__doc__ = f"Raise InvalidArgumentError unless `x {symbol}` holds element-wise."
    return check


assert_equal = _binary("==", np.equal)
assert_none_equal = _binary("!=", np.not_equal)
assert_less = _binary("<", np.less)
assert_less_equal = _binary("<=", np.less_equal)
assert_greater = _binary(">", np.greater)
assert_greater_equal = _binary(">=", np.greater_equal)
assert_positive = _unary("> 0", lambda v: v > 0)
assert_negative = _unary("< 0", lambda v: v < 0)
assert_non_negative = _unary(">= 0", lambda v: v >= 0)
assert_non_positive = _unary("<= 0", lambda v: v <= 0)


def assert_near(x, y, rtol=None, atol=None, message=None, summarize=None, name=None):
    """Raise unless `|x - y| <= atol + rtol * |y|` element-wise; TF's default
    tolerances are 10 * eps of the dtype (float32: about 1.2e-6)."""
    x, y = _values(x, y)
    eps = np.finfo(x._value.dtype).eps if x._value.dtype.kind in "fc" else 0.0
    rtol = 10 * eps if rtol is None else rtol
    atol = 10 * eps if atol is None else atol
    if not np.all(np.abs(x._value - y._value) <= atol + rtol * np.abs(y._value)):
        _fail(f"x and y within tolerance rtol={rtol}, atol={atol}", message, summarize, x=x, y=y)


def assert_rank(x, rank, message=None, name=None):
    """Raise ValueError unless `x` has rank `rank` (TF raises ValueError for a static rank)."""
    x = convert_to_tensor(x)
    if x.ndim != int(rank):
        raise ValueError(f"{message + ' ' if message else ''}Tensor must have rank {int(rank)}. "
                         f"Received rank {x.ndim}, shape {tuple(x.shape)}")


def assert_rank_at_least(x, rank, message=None, name=None):
    x = convert_to_tensor(x)
    if x.ndim < int(rank):
        raise ValueError(f"{message + ' ' if message else ''}Tensor must have rank at least "
                         f"{int(rank)}. Received rank {x.ndim}, shape {tuple(x.shape)}")


def assert_type(tensor, tf_type, message=None, name=None):
    """Raise TypeError unless `tensor` has dtype `tf_type`."""
    want = dtypes.as_dtype(tf_type)
    if convert_to_tensor(tensor).dtype != want:
        raise TypeError(f"{message + ' ' if message else ''}tensor must be of type "
                        f"{want.name}; got {convert_to_tensor(tensor).dtype.name}")


def assert_shapes(shapes, data=None, summarize=None, message=None, name=None):
    """Check tensors against symbolic shapes, e.g. [(x, ('N', 'D')), (y, ('N',))]:
    a name stands for the same size everywhere, an int for itself, '.' for any one
    dimension and a leading '...' for any number, as TF's assert_shapes."""
    sizes = {}
    for tensor, spec in (shapes.items() if isinstance(shapes, dict) else shapes):
        shape = tuple(convert_to_tensor(tensor).shape)
        spec = tuple(spec) if not isinstance(spec, str) else tuple(spec.split())
        if spec[:1] == ("...",):
            spec = spec[1:]
            if len(shape) < len(spec):
                raise ValueError(f"Specified by tensor shape {shape}: rank must be at least "
                                 f"{len(spec)}, the spec {spec}.")
            shape = shape[len(shape) - len(spec):]
        elif len(shape) != len(spec):
            raise ValueError(f"Tensor of shape {shape} must have rank {len(spec)}, "
                             f"as the spec {spec}.")
        for size, symbol in zip(shape, spec):
            if symbol == "." or symbol is None:
                continue
            if isinstance(symbol, int):
                expected = symbol
            else:
                expected = sizes.setdefault(symbol, size)
            if size != expected:
                raise ValueError(f"{message + ' ' if message else ''}Dimension {symbol!r} "
                                 f"must be {expected}, but a tensor of shape {shape} has {size}.")


def _check_finite(value, message):
    v = value._value
    if v.dtype.kind in "fc" and not np.isfinite(v).all():
        nan, inf = bool(np.isnan(v).any()), bool(np.isinf(v).any())
        what = " and ".join(k for k, present in (("Inf", inf), ("NaN", nan)) if present)
        raise InvalidArgumentError(f"{message} : Tensor had {what} values")


def check_numerics(tensor, message, name=None):
    """Return `tensor`, raising InvalidArgumentError if it holds NaN or Inf, and
    its gradient likewise (TF's CheckNumerics and its gradient)."""
    tensor = convert_to_tensor(tensor)
    _check_finite(tensor, message)

    @custom_gradient
    def passed(x):
        def grad(upstream):
            _check_finite(upstream, "Not a number (NaN) or infinity (Inf) values detected in "
                          "gradient. " + message)
            return upstream
        return x + 0 if x._value.dtype.kind in "fc" else x, grad

    return passed(tensor)


def assert_all_finite(t, msg, name=None, x=None, message=None):
    """`check_numerics` under its TF 2 name in tf.debugging (`x`/`message` as TF's aliases)."""
    return check_numerics(t if x is None else x, msg if message is None else message)


def is_numeric_tensor(tensor):
    return isinstance(tensor, Tensor) and tensor.dtype.name != "string"
