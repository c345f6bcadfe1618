"""args.py: argument checking shared by the public op wrappers, so that bad
input fails with an InvalidArgumentError naming the op and the shapes."""

from .errors import InvalidArgumentError, OpError
from .tensor import Tensor, binary_operands


def normalize_axis(axis, ndim, op_name, shape=None):
    """`axis` (None, int or sequence) as a sorted tuple of non-negative ints, or None."""
    if axis is None:
        return None
    if isinstance(axis, Tensor):
        axis = axis._value.tolist()
    axes = [axis] if not isinstance(axis, (list, tuple)) else list(axis)
    result = []
    for a in axes:
        a = int(a)
        if not -ndim <= a < max(ndim, 1) or (ndim == 0 and a not in (0, -1)):
            raise InvalidArgumentError(
                f"{op_name}: invalid axis {a} for a tensor of rank {ndim}"
                + (f" and shape {tuple(shape)}" if shape is not None else "")
                + f"; axis must be in [{-ndim}, {ndim}).")
        result.append(a % ndim if ndim else 0)
    if len(set(result)) != len(result):
        raise InvalidArgumentError(f"{op_name}: axis {axes} contains duplicates.")
    if ndim == 0:
        return None
    return tuple(sorted(result))


def apply_binary(op, x, y, tf_name):
    """Convert the operands of a broadcasting op, check dtypes, then apply it."""
    x, y = binary_operands(x, y, tf_name)
    try:
        return op(x, y)
    except ValueError as error:
        raise shape_error(error, x, y, tf_name) from None


def shape_error(error, x, y, tf_name):
    """TF's error for a broadcasting op whose forward raised `error` (NumPy's
    ValueError for shapes that do not broadcast); an OpError raised inside the op
    (the NaN check of tf.debugging, a kernel's own) passes through unchanged."""
    if isinstance(error, OpError):
        return error
    return InvalidArgumentError(f"Incompatible shapes: {list(x._value.shape)} vs. "
                                f"{list(y._value.shape)} [Op:{tf_name}]")
