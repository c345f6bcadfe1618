"""sparse_tensor.py holds `tf.SparseTensor`: int64 `indices` (N, rank), `values`
(N,) of any dtype, int64 `dense_shape` (rank,), with TF's checks and repr, and
the operators TF defines on it (`sparse * dense`, `sparse / dense`). The ops on
sparse tensors are sparse_ops.py; gradients flow through `values`."""

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, TensorShape, as_tensor, binary_operands, convert_to_tensor
from ..ops import math as _m
from ..ops import shape as _s

__all__ = ["SparseTensor", "fill_value"]


def _int64(value, what):
    array = value._value if isinstance(value, Tensor) else np.asarray(value)
    if array.size and array.dtype.kind not in "iu":
        raise TypeError(f"SparseTensor: {what} must be integers, got dtype {array.dtype}: "
                        f"{value!r}.")
    return Tensor(array.astype(np.int64))


def fill_value(values, default_value):
    """The entry a dense conversion puts where `values` (a Tensor) has none:
    `default_value` in the values' dtype, or its zero (b'' for strings)."""
    array = values._value
    if default_value is None:
        return b"" if array.dtype.kind == "O" else array.dtype.type()
    return convert_to_tensor(default_value, dtype=values.dtype)._value[()]


class SparseTensor:
    """A tensor of shape `dense_shape` holding `values[i]` at `indices[i]` and
    zeros elsewhere, as tf.SparseTensor.

    Args:
        indices: int (N, rank): where the values are (row-major order, as TF's
            ops expect: `tf.sparse.reorder` sorts them).
        values: (N,) tensor or list; its gradient is the gradient of the values.
        dense_shape: int (rank,): the shape of the dense tensor.

    Raises:
        ValueError: if the three shapes do not fit together.
        TypeError: if indices or dense_shape are not integers.
    """

    __slots__ = ("_indices", "_values", "_dense_shape")

    def __init__(self, indices, values, dense_shape):
        self._indices = _int64(indices, "indices")
        self._values = as_tensor(values)
        self._dense_shape = _int64(dense_shape, "dense_shape")
        ind, shape = self._indices._value, self._dense_shape._value
        if ind.size == 0:  # `indices=[]`: no values, of the dense rank
            self._indices = Tensor(ind.reshape(0, shape.size))
            ind = self._indices._value
        if shape.ndim != 1 or ind.ndim != 2 or ind.shape[1] != shape.size or \
                self._values._value.shape != (ind.shape[0],):
            raise ValueError(f"SparseTensor: indices must have shape [N, rank], values [N] and "
                             f"dense_shape [rank]; got indices {list(ind.shape)}, values "
                             f"{list(self._values._value.shape)}, dense_shape "
                             f"{list(shape.shape)}.")

    indices = property(lambda self: self._indices, doc="int64 (N, rank): where the values are.")
    values = property(lambda self: self._values, doc="(N,): the values, in index order.")
    dense_shape = property(lambda self: self._dense_shape, doc="int64 (rank,): the shape.")

    @property
    def shape(self):
        return TensorShape(int(d) for d in self._dense_shape._value)

    def get_shape(self):
        return self.shape

    @property
    def dtype(self):
        return self._values.dtype

    @property
    def ndim(self):
        return int(self._dense_shape._value.size)

    def with_values(self, new_values):
        """The same indices and shape with `new_values` (of the same length)."""
        return SparseTensor(self._indices, new_values, self._dense_shape)

    def consumers(self):
        return []

    def __array__(self, dtype=None, copy=None):
        # Reached when a SparseTensor is handed to a function that takes dense tensors.
        raise TypeError(f"A SparseTensor of shape {list(self.shape)} cannot be converted to a "
                        "dense Tensor implicitly: use tf.sparse.to_dense(st), or the "
                        "tf.sparse function for the op.")

    def __repr__(self):
        return (f"SparseTensor(indices={self._indices!s}, values={self._values!s}, "
                f"dense_shape={self._dense_shape!s})")

    # TF defines only these operators on SparseTensor (math_ops: sparse_dense_cwise_*).
    def _cwise(self, other, op, name):
        if isinstance(other, SparseTensor):
            raise TypeError(f"SparseTensor {name} SparseTensor is not defined (as in TF): "
                            f"convert one side with tf.sparse.to_dense.")
        _, y = binary_operands(self._values, other, f"SparseDenseCwise{name}")
        shape = self.shape
        try:
            fits = np.broadcast_shapes(y._value.shape, shape) == shape
        except ValueError:
            fits = False
        if not fits:
            raise InvalidArgumentError(f"SparseDenseBinaryOp only supports broadcasting dense "
                                       f"to sparse: dense shape {list(y._value.shape)}, sparse "
                                       f"shape {list(shape)}.")
        dense = _s.broadcast_to(y, shape=shape) if y._value.shape != shape else y
        lin = np.ravel_multi_index(tuple(self._indices._value.T), shape) if shape else \
            np.zeros(self._values._value.shape, np.int64)
        picked = _s.gather(_s.reshape(dense, shape=(int(np.prod(shape, dtype=np.int64)),)),
                           Tensor(lin), axis=0)
        return self.with_values(op(self._values, picked))

    def __mul__(self, other):
        return self._cwise(other, _m.multiply, "Mul")

    __rmul__ = __mul__

    def __truediv__(self, other):
        return self._cwise(other, _m.divide, "Div")

    def __neg__(self):
        return self.with_values(_m.negative(self._values))
