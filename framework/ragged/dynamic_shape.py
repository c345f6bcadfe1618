"""dynamic_shape.py holds `tf.experimental.DynamicRaggedShape` and
`RowPartition`: the shape of a RaggedTensor as row partitions (one per ragged
or partitioned dimension) over an inner dense shape. `tf.shape` of a
RaggedTensor returns one, and `tf.reshape`, `tf.zeros`, `tf.ones` and
`tf.fill` build a RaggedTensor from one (registered in api/dispatch.py)."""

import numpy as np

from ..api import array_ops as _array_ops
from ..api import dispatch as _dispatch
from ..core import dtypes
from ..core.tensor import Tensor, as_tensor
from .ragged_tensor import RaggedTensor

__all__ = ["DynamicRaggedShape", "RowPartition"]


class RowPartition:
    """How a dimension cuts its values into rows: int64 row splits, as
    tf.experimental.RowPartition (uniform when every row has one length)."""

    __slots__ = ("_splits", "_uniform")

    def __init__(self, splits, uniform=None):
        self._splits = np.asarray(splits, np.int64)
        self._uniform = uniform

    @classmethod
    def from_row_lengths(cls, row_lengths, validate=True, dtype=None, dtype_hint=None):
        lengths = np.asarray(as_tensor(row_lengths)._value, np.int64).reshape(-1)
        if validate and (lengths < 0).any():
            raise ValueError(f"row_lengths must be non-negative, got {lengths.tolist()}.")
        return cls(np.concatenate([[0], np.cumsum(lengths)]))

    @classmethod
    def from_row_splits(cls, row_splits, validate=True, dtype=None, dtype_hint=None):
        splits = np.asarray(as_tensor(row_splits)._value, np.int64).reshape(-1)
        if validate and (splits.size == 0 or splits[0] != 0 or (np.diff(splits) < 0).any()):
            raise ValueError(f"row_splits must start at 0 and never decrease, got "
                             f"{splits.tolist()}.")
        return cls(splits)

    @classmethod
    def from_uniform_row_length(cls, uniform_row_length, nvals=None, nrows=None,
                                validate=True, dtype=None, dtype_hint=None):
        length = int(uniform_row_length)
        rows = int(nrows) if nrows is not None else (int(nvals) // length if length else 0)
        return cls(np.arange(rows + 1, dtype=np.int64) * length, uniform=length)

    def row_splits(self):
        return Tensor(self._splits)

    def row_lengths(self):
        return Tensor(np.diff(self._splits))

    def nrows(self):
        return Tensor(np.int64(self._splits.size - 1))

    def nvals(self):
        return Tensor(np.int64(self._splits[-1]))

    def is_uniform(self):
        return self._uniform is not None

    def uniform_row_length(self):
        return None if self._uniform is None else Tensor(np.int64(self._uniform))

    def __repr__(self):
        return f"tf.RowPartition(row_splits={self._splits.tolist()})"


class DynamicRaggedShape:
    """A ragged shape: `row_partitions` over `inner_shape` (whose first entry is
    the innermost partition's number of values), as TF's.

    >>> print(tf.shape(tf.ragged.constant([[1], [2, 3]])))
    <DynamicRaggedShape lengths=[2, (1, 2)] num_row_partitions=1>
    """

    __slots__ = ("_partitions", "_inner")

    def __init__(self, row_partitions, inner_shape, dtype=None, validate=True,
                 static_inner_shape=None):
        self._partitions = tuple(row_partitions)
        self._inner = tuple(int(d) for d in np.asarray(as_tensor(inner_shape)._value)
                            .reshape(-1))
        count = None
        for i, p in enumerate(self._partitions):
            if count is not None and p._splits.size - 1 != count:
                raise ValueError(f"row_partitions[{i}] has {p._splits.size - 1} rows but the "
                                 f"partition before it has {count} values.")
            count = int(p._splits[-1])
        if validate and count is not None and (not self._inner or self._inner[0] != count):
            raise ValueError(f"inner_shape {list(self._inner)} must start with the last "
                             f"partition's number of values, {count}.")

    @classmethod
    def from_lengths(cls, lengths, num_row_partitions=None, dtype=dtypes.int64):
        """From `[nrows, d1, ...]` where a tuple entry lists the row lengths of a
        ragged dimension, e.g. `[4, (2, 1, 0, 8), 12]`."""
        lengths = list(lengths)
        last_ragged = max((i for i, d in enumerate(lengths) if isinstance(d, (tuple, list))),
                          default=0)
        partitions, count = [], int(lengths[0])
        for d in lengths[1:last_ragged + 1]:
            if isinstance(d, (tuple, list)):
                if len(d) != count:
                    raise ValueError(f"from_lengths: {len(d)} row lengths {tuple(d)} for "
                                     f"{count} rows in {lengths}.")
                partitions.append(RowPartition.from_row_lengths(list(d)))
            else:
                partitions.append(RowPartition.from_uniform_row_length(d, nrows=count))
            count = int(partitions[-1]._splits[-1])
        return cls(partitions, [count] + [int(d) for d in lengths[last_ragged + 1:]])

    @classmethod
    def from_tensor(cls, t, dtype=None):
        """The shape of a RaggedTensor or a dense tensor."""
        if isinstance(t, RaggedTensor):
            partitions, rt = [], t
            while isinstance(rt, RaggedTensor):
                partitions.append(RowPartition(rt._splits, rt._uniform))
                rt = rt.values
            return cls(partitions, rt._value.shape)
        return cls([], as_tensor(t)._value.shape)

    row_partitions = property(lambda self: self._partitions)
    num_row_partitions = property(lambda self: len(self._partitions))
    inner_shape = property(lambda self: Tensor(np.asarray(self._inner, np.int64)))
    dtype = property(lambda self: dtypes.int64)

    @property
    def rank(self):
        return len(self._partitions) + len(self._inner)

    def _nrows(self):
        return self._partitions[0]._splits.size - 1 if self._partitions else self._inner[0]

    def static_lengths(self):
        if not self.rank:
            return []
        out = [self._nrows()]
        for p in self._partitions:
            out.append(p._uniform if p._uniform is not None else tuple(np.diff(p._splits)
                                                                       .tolist()))
        return out + list(self._inner[1:])

    def __getitem__(self, index):
        """An int gives that dimension's size (ValueError for a ragged one); a
        slice `[:k]` the shape of the first k dimensions."""
        if isinstance(index, slice):
            if index.start not in (None, 0) or index.step not in (None, 1):
                raise ValueError("DynamicRaggedShape takes slices [:k] only.")
            k = self.rank if index.stop is None else index.stop % (self.rank + 1)
            n = len(self._partitions)
            if k <= n:
                kept = self._partitions[:max(k - 1, 0)]
                count = int(kept[-1]._splits[-1]) if kept else self._nrows()
                return DynamicRaggedShape(kept, [count] if k else [])
            return DynamicRaggedShape(self._partitions, self._inner[:k - n])
        index = int(index)
        if not -self.rank <= index < self.rank:
            raise IndexError(f"Index {index} is out of range for a shape of rank {self.rank}.")
        index %= self.rank
        n = len(self._partitions)
        if index == 0:
            return Tensor(np.int64(self._nrows()))
        if index <= n:
            length = self._partitions[index - 1]._uniform
            if length is None:
                raise ValueError(f"Index {index} is not uniform")
            return Tensor(np.int64(length))
        return Tensor(np.int64(self._inner[index - n]))

    def _build(self, flat):
        for p in reversed(self._partitions):
            flat = RaggedTensor(flat, p._splits, _checked=True, _uniform=p._uniform)
        return flat

    def __repr__(self):
        return (f"<DynamicRaggedShape lengths={self.static_lengths()} "
                f"num_row_partitions={len(self._partitions)}>")

    __str__ = __repr__


def _shape(input, out_type=None, name=None):  # noqa: A002 -- TF's name
    return DynamicRaggedShape.from_tensor(input)


def _reshape(tensor, shape, name=None):
    return shape._build(_array_ops.reshape(tensor, list(shape._inner)))


def _zeros(shape, dtype=dtypes.float32, name=None):
    return shape._build(_array_ops.zeros(list(shape._inner), dtype))


def _ones(shape, dtype=dtypes.float32, name=None):
    return shape._build(_array_ops.ones(list(shape._inner), dtype))


def _fill(dims, value, name=None):
    return dims._build(_array_ops.fill(list(dims._inner), value))


_dispatch.register("shape", RaggedTensor, _shape)
for _name, _fn in (("reshape", _reshape), ("zeros", _zeros), ("ones", _ones),
                   ("fill", _fill)):
    _dispatch.register(_name, DynamicRaggedShape, _fn)
