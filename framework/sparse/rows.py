"""rows.py: picking rows (the first dimension) of a SparseTensor, as the fit
loop's batching picks rows of arrays: a slice or an index array, in its order."""

import numpy as np

from ..core.tensor import Tensor
from ..ops import shape as _s
from .sparse_ops import reorder
from .sparse_tensor import SparseTensor

__all__ = ["take_rows"]


def take_rows(sp, index):
    """The SparseTensor of `sp`'s rows `index` (a slice or an int array), renumbered
    0..k-1 in that order; its values are gathered, so gradients reach `sp.values`."""
    n = int(sp.dense_shape._value[0])
    rows = np.arange(n)[index]
    position = np.full(n, -1, np.int64)
    position[rows] = np.arange(rows.size)
    indices = sp.indices._value
    keep = np.flatnonzero(position[indices[:, 0]] >= 0) if indices.size else np.zeros(0, int)
    new_indices = indices[keep].copy()
    new_indices[:, 0] = position[new_indices[:, 0]]
    values = _s.gather(sp.values, Tensor(np.asarray(keep, np.int64)), axis=0)
    shape = np.concatenate([[rows.size], sp.dense_shape._value[1:]])
    return reorder(SparseTensor(new_indices, values, shape))
