"""ragged_tensor_spec.py holds `tf.RaggedTensorSpec`: the description of a
RaggedTensor (shape with None for ragged dimensions, dtype, ragged_rank,
row_splits_dtype) that `tf.function(input_signature=...)` takes."""

from ..core import dtypes
from ..core.tensor_spec import _as_shape, _compatible, _UnknownRankShape
from .ragged_tensor import RaggedTensor

__all__ = ["RaggedTensorSpec"]


class RaggedTensorSpec:
    """Describes a RaggedTensor, as tf.RaggedTensorSpec.

    Args:
        shape: its shape, None for unknown sizes (ragged dimensions are None).
        dtype: the values' dtype.
        ragged_rank: the number of ragged dimensions (default: rank - 1).
        row_splits_dtype: int64 (tapeflow's row splits are int64).

    Raises:
        ValueError: for a ragged_rank outside [0, rank) or a rank below 2.
    """

    __slots__ = ("_shape", "_dtype", "_ragged_rank", "_row_splits_dtype", "_flat_values_spec")

    def __init__(self, shape=None, dtype=dtypes.float32, ragged_rank=None,
                 row_splits_dtype=dtypes.int64, flat_values_spec=None):
        self._shape = _as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        self._row_splits_dtype = dtypes.as_dtype(row_splits_dtype)
        self._flat_values_spec = flat_values_spec
        rank = self._shape.rank
        if ragged_rank is None:
            if rank is None:
                raise ValueError("Must specify ragged_rank or a shape with a known rank.")
            ragged_rank = rank - 1
        if rank is not None and not 0 <= int(ragged_rank) < max(rank, 1):
            raise ValueError(f"ragged_rank must be in [0, {rank}) for shape {self._shape}, got "
                             f"{ragged_rank}.")
        self._ragged_rank = int(ragged_rank)

    shape = property(lambda self: self._shape)
    dtype = property(lambda self: self._dtype)
    ragged_rank = property(lambda self: self._ragged_rank)
    row_splits_dtype = property(lambda self: self._row_splits_dtype)
    flat_values_spec = property(lambda self: self._flat_values_spec)
    value_type = property(lambda self: RaggedTensor)

    @classmethod
    def from_value(cls, value):
        """The spec of a RaggedTensor."""
        return cls(value.shape, value.dtype, value.ragged_rank)

    def is_compatible_with(self, spec_or_value):
        """True for a RaggedTensor (or spec) of this dtype, ragged rank and a shape
        matching this one's known dimensions."""
        other = spec_or_value
        if isinstance(other, RaggedTensor):
            other = RaggedTensorSpec.from_value(other)
        if not isinstance(other, RaggedTensorSpec):
            return False
        return (other.dtype == self._dtype and other.ragged_rank == self._ragged_rank
                and _compatible(self._shape, other.shape))

    def __repr__(self):
        return (f"RaggedTensorSpec({self._shape!r}, {self._dtype!r}, {self._ragged_rank}, "
                f"{self._row_splits_dtype!r})")

    def __eq__(self, other):
        return type(self) is type(other) and (self._shape, self._dtype, self._ragged_rank) == (
            other._shape, other._dtype, other._ragged_rank)

    def __hash__(self):
        shape = None if isinstance(self._shape, _UnknownRankShape) else tuple(self._shape)
        return hash((shape, self._dtype, self._ragged_rank))
