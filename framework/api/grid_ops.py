"""grid_ops.py: the tensors TF builds from numbers alone, without an input to
reshape: `tf.eye`, `tf.linspace` and `tf.meshgrid` (array_ops.py creates and
reshapes tensors from inputs)."""

import builtins

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor
from ..ops import shape as _s
from .array_ops import _shape_tuple, reshape

__all__ = ["eye", "linspace", "meshgrid"]


def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """An identity matrix (or a batch of them), as tf.eye."""
    cols = num_rows if num_columns is None else num_columns
    matrix = np.eye(int(num_rows), int(cols), dtype=dtypes.as_dtype(dtype)._np)
    batch = () if batch_shape is None else _shape_tuple(batch_shape, "eye")
    return Tensor(np.broadcast_to(matrix, batch + matrix.shape).copy())


def linspace(start, stop, num, name=None, axis=0):
    """`num` evenly spaced values from `start` to `stop` inclusive, as tf.linspace.
    Python floats give float32; integer inputs give float64 (TF divides them)."""
    a, b = as_tensor(start)._value, as_tensor(stop)._value
    dtype = np.result_type(a, b)
    dtype = dtype if dtype.kind == "f" else np.dtype(np.float64)
    if int(num) < 0:
        raise InvalidArgumentError(f"Requires num > 0: {int(num)} [Op:LinSpace]")
    return Tensor(np.linspace(a, b, int(num), axis=int(axis)).astype(dtype))


def meshgrid(*args, **kwargs):
    """N-D coordinate grids from N 1-D tensors, as tf.meshgrid: `indexing="xy"`
    (default, Cartesian: the first two axes swapped) or "ij" (matrix)."""
    indexing = kwargs.pop("indexing", "xy")
    kwargs.pop("name", None)
    if kwargs or indexing not in ("xy", "ij"):
        raise TypeError(f"meshgrid: unexpected arguments {sorted(kwargs)} or indexing "
                        f"{indexing!r} (expected 'xy' or 'ij').")
    xs = [reshape(a, [-1]) for a in args]
    sizes = [x._value.shape[0] for x in xs]
    order = list(builtins.range(len(xs)))
    if indexing == "xy" and len(xs) > 1:
        order[0], order[1] = 1, 0
    full = tuple(sizes[k] for k in order)
    grids = []
    for i, x in enumerate(xs):
        at = order.index(i)
        shaped = _s.reshape(x, shape=(1,) * at + (sizes[i],) + (1,) * (len(xs) - at - 1))
        grids.append(_s.broadcast_to(shaped, shape=full))
    return grids
