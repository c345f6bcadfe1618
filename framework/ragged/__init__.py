"""`tf.ragged`: RaggedTensor (ragged_tensor.py, with `[]` and operators from
ragged_indexing.py) and the functions on it (ragged_ops.py); this package only
re-exports, and installs the operators once."""

from . import ragged_indexing as _indexing
from .ragged_ops import *  # noqa: F401,F403
from .ragged_ops import __all__ as _ops
from .ragged_tensor import RaggedTensor

_indexing.install()

__all__ = ["RaggedTensor"] + _ops
