"""`tf.ragged`: RaggedTensor (ragged_tensor.py, with `[]` and operators from
ragged_indexing.py), RaggedTensorSpec and the functions on it (ragged_ops.py); this package only
re-exports, and installs the operators once."""

from . import ragged_indexing as _indexing
from . import ragged_math as _math  # noqa: F401 -- registers the ragged reductions
from .dynamic_shape import DynamicRaggedShape, RowPartition  # noqa: F401 -- tf.shape's result
from .ragged_ops import *  # noqa: F401,F403
from .ragged_ops import __all__ as _ops
from .ragged_tensor import RaggedTensor
from .ragged_tensor_spec import RaggedTensorSpec

_indexing.install()

__all__ = ["RaggedTensor", "RaggedTensorSpec"] + _ops
