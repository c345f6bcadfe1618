"""`tf.sparse`: SparseTensor (sparse_tensor.py) and the functions on it
(sparse_ops.py; picking rows for the fit loop's batches, rows.py); this package
only re-exports."""

from .sparse_ops import *  # noqa: F401,F403
from .sparse_ops import __all__ as _ops
from .sparse_tensor import SparseTensor

__all__ = ["SparseTensor"] + _ops
