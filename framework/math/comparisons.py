"""comparisons.py: tf.math's comparisons and logical operators, computed on
the NumPy arrays directly (bool results, not differentiable, never recorded
on a tape)."""

import numpy as np

from ..core.args import shape_error
from ..core.record import cut as _cut
from ..core.tensor import Tensor, as_tensor, binary_operands

__all__ = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
           "logical_and", "logical_or", "logical_not", "logical_xor"]


def _compare(np_fn, tf_name):
    def apply(x, y, name=None):
        x, y = binary_operands(x, y, tf_name)
        try:
            return Tensor(np_fn(x._value, y._value))
        except ValueError as error:
            raise shape_error(error, x, y, tf_name) from None
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
    return _cut("logical_not", (x,), Tensor(np.logical_not(x._value)))
