"""_checks.py: the argument checks shared by the tf.nn modules: a floating
tensor, and the class axis of logits. Window arguments (strides, padding)
are _windows.py's."""

from ..core.args import normalize_axis
from ..core.errors import InvalidArgumentError
from ..core.tensor import as_tensor

__all__ = ["float_tensor", "last_axis"]


def float_tensor(value, op_name, what="logits"):
    """`value` as a Tensor, which must be floating."""
    t = as_tensor(value)
    if t._value.dtype.kind != "f":
        raise InvalidArgumentError(f"{op_name}: {what} must be a floating tensor, got "
                                   f"{t.dtype.name}.")
    return t


def last_axis(x, axis, op_name):
    """The class axis of logits `x` as a non-negative int (default the last)."""
    if x._value.ndim == 0:
        raise InvalidArgumentError(f"{op_name}: logits must have rank at least 1, got a scalar.")
    return normalize_axis(-1 if axis is None else axis, x._value.ndim, op_name,
                          x._value.shape)[0]
