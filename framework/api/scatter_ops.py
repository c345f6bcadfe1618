"""scatter_ops.py is the public API for writing slices into tensors at index
vectors: tf.scatter_nd and the tf.tensor_scatter_nd_* family. It checks the
indices and the shapes, names TF's errors, and builds each op from the
scatter-add of ops/shape.py, or the min/max scatter of ops/scatter.py."""

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError, NotFoundError
from ..core.tensor import Tensor, as_tensor, convert_to_tensor
from ..ops import math as _m
from ..ops import scatter as _sc
from ..ops import shape as _s
from .array_ops import _shape_tuple
from .indexing_ops import _check_int_indices

__all__ = ["scatter_nd", "tensor_scatter_nd_add", "tensor_scatter_nd_sub",
           "tensor_scatter_nd_min", "tensor_scatter_nd_max", "tensor_scatter_nd_update"]


def _scatter_nd_parts(tensor, indices, updates, op_name):
    """(x, linear cell index per update, updates as rows, number of cells)."""
    x = as_tensor(tensor)
    idx = _check_int_indices(indices, op_name)._value
    u = updates if isinstance(updates, Tensor) else convert_to_tensor(
        updates, dtype_hint=x._value.dtype)
    if u._value.dtype != x._value.dtype:
        raise InvalidArgumentError(f"{op_name}: updates of dtype {u.dtype.name} do not match "
                                   f"the tensor's dtype {x.dtype.name} [Op:{op_name}]")
    k, xs = idx.shape[-1] if idx.ndim else 0, x._value.shape
    want = idx.shape[:-1] + xs[k:]
    if idx.ndim < 1 or k > len(xs) or u._value.shape != want:
        raise InvalidArgumentError(f"{op_name}: updates shape {list(u._value.shape)} must be "
                                   f"indices.shape[:-1] + tensor.shape[{k}:] = {list(want)} "
                                   f"(tensor {list(xs)}, indices {list(idx.shape)})")
    bad = ((idx < 0) | (idx >= np.asarray(xs[:k], np.int64))).any(axis=-1)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidArgumentError(f"indices{list(where)} = {idx[where].tolist()} does not "
                                   f"index into shape {list(xs)} [Op:{op_name}]")
    lin = np.ravel_multi_index(tuple(np.moveaxis(idx.reshape(-1, k), -1, 0)), xs[:k]) \
        if k else np.zeros(idx.size, np.int64)
    rows = _s.reshape(u, shape=(lin.size,) + xs[k:])
    cells = int(np.prod(xs[:k], dtype=np.int64))
    return x, lin.astype(np.int64), rows, cells


def scatter_nd(indices, updates, shape, name=None):
    """Zeros of `shape` with `updates` added at the index vectors `indices`, as
    tf.scatter_nd; repeated indices add up. Differentiable w.r.t. `updates`.

    >>> tf.scatter_nd([[1], [3]], [9, 10], [5]).numpy()
    array([ 0,  9,  0, 10,  0], dtype=int32)

    Raises:
        InvalidArgumentError: for an index outside `shape`, or updates whose shape
            is not indices.shape[:-1] + shape[indices.shape[-1]:].
    """
    u = as_tensor(updates)
    target = _shape_tuple(shape, "scatter_nd")
    if any(d < 0 for d in target):
        raise InvalidArgumentError(f"scatter_nd: shape {list(target)} has a negative "
                                   "dimension [Op:ScatterNd]")
    zeros = Tensor(np.zeros(target, u._value.dtype))
    return _add_rows(*_scatter_nd_parts(zeros, indices, u, "ScatterNd"))


def _add_rows(x, lin, rows, cells):
    added = _s.scatter_add(rows, Tensor(lin), axis=0, size=cells)
    return _m.add(x, _s.reshape(added, shape=x._value.shape))


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """`tensor` with `updates` added at the index vectors `indices` (repeats add up)."""
    return _add_rows(*_scatter_nd_parts(tensor, indices, updates, "TensorScatterAdd"))


def tensor_scatter_nd_sub(tensor, indices, updates, name=None):
    """`tensor` with `updates` subtracted at the index vectors `indices` (repeats add up)."""
    x, lin, rows, cells = _scatter_nd_parts(tensor, indices, updates, "TensorScatterSub")
    return _add_rows(x, lin, _m.negative(rows), cells)


def _extremum(tensor, indices, updates, mode, op_name):
    x, lin, rows, cells = _scatter_nd_parts(tensor, indices, updates, op_name)
    if x._value.dtype == dtypes.bool._np:  # TF has no bool kernel: NotFoundError
        raise NotFoundError(f"{op_name} has no kernel for bool tensors [Op:{op_name}]")
    flat = _s.reshape(x, shape=(cells,) + rows._value.shape[1:])
    out = _sc.scatter_extremum(flat, rows, lin=lin, mode=mode)
    return _s.reshape(out, shape=x._value.shape)


def tensor_scatter_nd_min(tensor, indices, updates, name=None):
    """`tensor` with each entry at `indices` replaced by its minimum with the
    update, as tf.tensor_scatter_nd_min; on a tie the gradient is split evenly."""
    return _extremum(tensor, indices, updates, "min", "TensorScatterMin")


def tensor_scatter_nd_max(tensor, indices, updates, name=None):
    """`tensor` with each entry at `indices` replaced by its maximum with the
    update, as tf.tensor_scatter_nd_max; on a tie the gradient is split evenly."""
    return _extremum(tensor, indices, updates, "max", "TensorScatterMax")


def tensor_scatter_nd_update(tensor, indices, updates, name=None):
    """`tensor` with the entries at `indices` replaced by `updates` (for a repeated
    index the last update wins; TF leaves that order unspecified)."""
    x, lin, rows, cells = _scatter_nd_parts(tensor, indices, updates, "TensorScatterUpdate")
    _, last = np.unique(lin[::-1], return_index=True)
    keep = lin.size - 1 - last
    chosen = _s.gather(rows, Tensor(keep), axis=0)
    placed = _s.reshape(_s.scatter_add(chosen, Tensor(lin[keep]), axis=0, size=cells),
                        shape=x._value.shape)
    untouched = np.ones(cells, x._value.dtype)
    untouched[lin] = 0
    untouched = untouched.reshape(x._value.shape[:len(x._value.shape) - rows._value.ndim + 1]
                                  + (1,) * (rows._value.ndim - 1))
    return _m.add(_m.multiply(x, Tensor(untouched)), placed)
