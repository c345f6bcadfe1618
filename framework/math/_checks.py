"""_checks.py: the argument check shared by the tf.math modules (floating
inputs only, with TF's error message). Axis and operand checks live in
core/args.py."""

from ..core.errors import InvalidArgumentError
from ..core.tensor import as_tensor

__all__ = ["float_input"]

_FLOAT_LIST = "bfloat16, half, float, double"


def float_input(x, tf_name):
    """`x` as a Tensor; TF defines `tf_name` for floating dtypes only."""
    x = as_tensor(x)
    if x._value.dtype.kind not in "fc":
        raise InvalidArgumentError(f"Value for attr 'T' of {x.dtype.name} is not in the list "
                                   f"of allowed values: {_FLOAT_LIST} [Op:{tf_name}]; cast "
                                   "the input to a float dtype first.")
    return x
