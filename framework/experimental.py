"""tf.experimental: the names TF keeps there that tapeflow has, re-exported from
where they live (DynamicRaggedShape and RowPartition are tf.ragged's). TF-NumPy
(`tf.experimental.numpy`) and DTensor are left out on purpose (see
tests/compat/API_COVERAGE.md)."""

from .ragged import DynamicRaggedShape, RowPartition

__all__ = ["DynamicRaggedShape", "RowPartition"]
