"""composite.py lets tf.data elements hold RaggedTensors and SparseTensors, as
TF's do: their specs (`tf.RaggedTensorSpec`, and `tf.SparseTensorSpec`, which
lives here), a row of one (slicing, unbatch), rows batched into one (batch,
with a ragged spec even for rows of equal length, as TF) and the ragged
batches of dense elements of `dense_to_ragged_batch`."""

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor, TensorShape
from ..core.tensor_spec import TensorSpec
from ..ragged import RaggedTensor, RaggedTensorSpec
from ..sparse.sparse_tensor import SparseTensor

__all__ = [
    "SparseTensorSpec",
    "batch_spec",
    "is_composite",
    "is_composite_spec",
    "leading_size",
    "row",
    "spec_of",
    "stack",
    "unbatch_spec",
]


class SparseTensorSpec:
    """The spec of a SparseTensor component, as `tf.SparseTensorSpec(shape, dtype)`."""

    __slots__ = ("_dtype", "_shape")
    value_type = SparseTensor

    def __init__(self, shape=None, dtype=dtypes.float32):
        self._shape = TensorShape(shape) if shape is not None else None
        self._dtype = dtypes.as_dtype(dtype)

    @classmethod
    def from_value(cls, value):
        return cls(value.shape, value.dtype)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    def __eq__(self, other):
        return isinstance(other, SparseTensorSpec) and (self._shape, self._dtype) == (
            other._shape, other._dtype)

    def __hash__(self):
        return hash((self._shape, self._dtype))

    def __repr__(self):
        return f"SparseTensorSpec({self._shape!r}, {self._dtype!r})"


def is_composite(value):
    return isinstance(value, (RaggedTensor, SparseTensor))


def is_composite_spec(spec):
    return isinstance(spec, (RaggedTensorSpec, SparseTensorSpec))


def spec_of(value):
    if isinstance(value, RaggedTensor):
        return RaggedTensorSpec.from_value(value)
    return SparseTensorSpec.from_value(value)


def relaxed(values):
    """The spec of composite `values` together: dimensions that differ are None."""
    specs = [spec_of(v) for v in values]
    first = specs[0]
    if first.shape is None or len({len(s.shape) for s in specs if s.shape is not None}) != 1:
        return first
    dims = [d[0] if len(set(d)) == 1 else None for d in zip(*(list(s.shape) for s in specs))]
    if isinstance(first, SparseTensorSpec):
        return SparseTensorSpec(dims, first.dtype)
    return RaggedTensorSpec(dims, first.dtype, first.ragged_rank, first.row_splits_dtype)


def leading_size(value):
    return value.nrows_int() if isinstance(value, RaggedTensor) else \
        int(value.dense_shape._value[0])


def row(value, i):
    """Row `i` of a RaggedTensor (a dense row as an array, as TF's elements are
    Tensors then) or of a SparseTensor (one rank lower)."""
    if isinstance(value, RaggedTensor):
        part = value[i]
        return part._value if isinstance(part, Tensor) else part
    indices = value.indices._value
    keep = indices[:, 0] == i
    return SparseTensor(indices[keep][:, 1:], value.values._value[keep],
                        value.dense_shape._value[1:])


def unbatch_spec(spec):
    if isinstance(spec, SparseTensorSpec):
        return SparseTensorSpec(None if spec.shape is None else list(spec.shape)[1:],
                                spec.dtype)
    return RaggedTensorSpec(list(spec.shape)[1:], spec.dtype, max(spec.ragged_rank - 1, 0),
                            spec.row_splits_dtype)


def batch_spec(spec, size):
    if isinstance(spec, SparseTensorSpec):
        return SparseTensorSpec(None if spec.shape is None else [size] + list(spec.shape),
                                spec.dtype)
    if isinstance(spec, RaggedTensorSpec):
        return RaggedTensorSpec([size] + list(spec.shape), spec.dtype, spec.ragged_rank + 1,
                                spec.row_splits_dtype)
    # dense_to_ragged_batch: ragged up to the last unknown dimension
    dims = list(spec.shape)
    unknown = [i for i, d in enumerate(dims) if d is None]
    if not unknown:
        return TensorSpec([size] + dims, spec.dtype)
    return RaggedTensorSpec([size] + dims, spec.dtype, unknown[-1] + 1, dtypes.int64)


def _ragged_rows(rows, dtype, ragged_rank=1):
    """Rows (dense arrays or RaggedTensors) as one RaggedTensor with a row each,
    of `ragged_rank` (dense rows are made ragged_rank - 1 themselves first)."""
    if ragged_rank > 1:
        rows = [r if isinstance(r, RaggedTensor) else
                RaggedTensor.from_tensor(Tensor(np.asarray(r)), ragged_rank=ragged_rank - 1)
                for r in rows]
    if all(isinstance(r, RaggedTensor) for r in rows) and rows:
        levels = [r.nested_row_lengths() for r in rows]
        nested = [np.array([r.nrows_int() for r in rows], np.int64)] + [
            np.concatenate([lv[k]._value for lv in levels]).astype(np.int64)
            for k in range(len(levels[0]))]
        flat = np.concatenate([r.flat_values._value for r in rows])
        return RaggedTensor.from_nested_row_lengths(Tensor(flat), [Tensor(n) for n in nested])
    values = [np.asarray(r) for r in rows]
    lengths = np.array([len(v) for v in values], np.int64)
    flat = np.concatenate(values) if values else np.zeros((0,), dtype)
    return RaggedTensor.from_row_lengths(Tensor(flat), Tensor(lengths))


def _sparse_batch(items):
    rank = len(items[0].dense_shape._value)
    shape = np.max([s.dense_shape._value for s in items], axis=0) if rank else []
    indices = [np.concatenate([np.full((len(s.indices._value), 1), i, np.int64),
                               s.indices._value.reshape(-1, rank)], axis=1)
               for i, s in enumerate(items)]
    return SparseTensor(np.concatenate(indices), np.concatenate([s.values._value for s in items]),
                        np.concatenate([[len(items)], shape]).astype(np.int64))


def stack(column, spec):
    """The batch of one component's values, by its spec: sparse, ragged, or
    (ragged_batch) ragged up to the last unknown dimension of a dense spec."""
    if isinstance(spec, SparseTensorSpec) or isinstance(column[0], SparseTensor):
        return _sparse_batch(column)
    dtype = object if spec.dtype == dtypes.string else spec.dtype._np
    if isinstance(spec, RaggedTensorSpec) or any(isinstance(c, RaggedTensor) for c in column):
        return _ragged_rows(column, dtype, batch_spec(spec_of(column[0]) if isinstance(
            column[0], RaggedTensor) else spec, None).ragged_rank)
    batched = batch_spec(spec, None)
    if isinstance(batched, RaggedTensorSpec):
        return _ragged_rows(column, dtype, batched.ragged_rank)
    return np.stack(column)
