"""indexing_ops.py is the public API for picking elements out of tensors:
`tensor[...]`, tf.gather, gather_nd, boolean_mask, one_hot, the segment and
scatter ops and sort. The primitives (getitem, gather, scatter_add) and their
VJPs live in ops/shape.py; this module checks indices and names errors."""

import builtins

import numpy as np

from ..core import dtypes
from .array_ops import _axis
from ..core.errors import InvalidArgumentError
from ..ops import math as _m
from ..ops import shape as _s
from ..core.tensor import Tensor, as_tensor, convert_to_tensor

__all__ = ["getitem", "gather", "gather_nd", "boolean_mask", "one_hot", "unsorted_segment_sum",
           "tensor_scatter_nd_add", "tensor_scatter_nd_update", "sort", "argsort"]

_FLOAT32 = np.dtype(np.float32)


_INDEX_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "integer or boolean tensors are valid indices, got {!r}")


def _index_part(k):
    """One entry of a `tensor[...]` key in NumPy's terms (bool masks as nonzero arrays)."""
    if isinstance(k, slice):
        return slice(*[None if v is None else int(v.__index__()) for v in
                       (k.start, k.stop, k.step)])
    if k is None or k is Ellipsis or isinstance(k, (bool, np.bool_)):
        return (np.asarray(k),) if isinstance(k, (bool, np.bool_)) else (k,)
    if isinstance(k, (int, np.integer)):
        return (int(k),)
    array = k._value if isinstance(k, Tensor) else np.asarray(k) if isinstance(
        k, (list, tuple, np.ndarray)) else None
    if array is not None and array.size == 0:
        array = array.astype(np.int64)  # `x[[]]`: an empty index list
    if array is None or array.dtype.kind not in "iub":
        raise TypeError(_INDEX_TYPE_ERROR.format(k))
    if array.dtype.kind == "b":
        return np.nonzero(array) if array.ndim else (array,)
    return (int(array),) if array.ndim == 0 else (array.astype(np.int64, copy=False),)


def getitem(x, key):
    """`x[key]`: ints, slices with any step, Ellipsis, tf.newaxis, and int or bool
    tensors/lists (NumPy's rules); differentiable, repeated indices accumulate.

    Raises:
        InvalidArgumentError: for an index out of range, naming the shape.
        TypeError: for an index of another type (a float, a string).
    """
    x = as_tensor(x)
    parts = []
    for k in key if isinstance(key, tuple) else (key,):
        part = _index_part(k)
        parts.extend([part] if isinstance(part, slice) else part)
    try:
        return _s.getitem(x, key=tuple(parts))
    except IndexError as error:
        raise InvalidArgumentError(f"Index {key!r} is out of range for a tensor of shape "
                                   f"{list(x._value.shape)}: {error} [Op:StridedSlice]") from None


def _check_int_indices(indices, op_name, attr="Tindices"):
    idx = as_tensor(indices)
    if idx._value.dtype.kind not in "iu":
        raise InvalidArgumentError(f"Value for attr '{attr}' of {idx.dtype.name} is not in the "
                                   f"list of allowed values: int16, int32, int64 "
                                   f"[Op:{op_name}]")
    return idx


def _check_range(idx, limit, op_name):
    bad = (idx < 0) | (idx >= limit)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidArgumentError(f"indices[{','.join(map(str, where))}] = {idx[where]} is not "
                                   f"in [0, {limit}) [Op:{op_name}]")


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of `params` along `axis` at `indices`, as tf.gather.

    With `batch_dims=b`, the first b axes of `params` and `indices` are batch
    axes gathered in lockstep. The gradient is a scatter-add (repeated indices
    accumulate), run by a Numba kernel.

    Raises:
        InvalidArgumentError: for an index outside [0, params.shape[axis]), float
            indices, or inconsistent axis/batch_dims.
    """
    x = as_tensor(params)
    idx = _check_int_indices(indices, "GatherV2")
    batch_dims = int(batch_dims)
    if batch_dims < 0:
        batch_dims += idx._value.ndim
    axis = batch_dims if axis is None else int(axis.__index__() if isinstance(axis, Tensor)
                                               else axis)
    axis = _axis(axis, x._value.ndim, "gather")
    if not 0 <= batch_dims <= min(axis, idx._value.ndim):
        raise InvalidArgumentError(f"batch_dims ({batch_dims}) must be in [0, min(axis "
                                   f"({axis}), rank(indices) ({idx._value.ndim}))] "
                                   "[Op:GatherV2]")
    xs, ids = x._value.shape, idx._value
    if xs[:batch_dims] != ids.shape[:batch_dims]:
        raise InvalidArgumentError(f"params.shape[:{batch_dims}] = {list(xs[:batch_dims])} "
                                   f"must equal indices.shape[:{batch_dims}] = "
                                   f"{list(ids.shape[:batch_dims])} [Op:GatherV2]")
    _check_range(ids, xs[axis], "GatherV2")
    if batch_dims == 0:
        return _s.gather(x, idx, axis=axis)
    # Fold the batch axes into the gathered one: gather from (N * A, ...) at
    # n * A + index, after moving `axis` just behind the batch axes.
    b = batch_dims
    perm = tuple(builtins.range(b)) + (axis,) + tuple(i for i in builtins.range(b, len(xs))
                                                      if i != axis)
    moved = _s.transpose(x, perm=perm) if perm != tuple(builtins.range(len(xs))) else x
    ms = moved._value.shape
    n = int(np.prod(ms[:b], dtype=np.int64))
    flat = _s.reshape(moved, shape=(n * ms[b],) + ms[b + 1:])
    offsets = (np.arange(n) * ms[b]).reshape((n,) + (1,) * (ids.ndim - b))
    flat_ids = ids.astype(np.int64).reshape((n,) + ids.shape[b:]) + offsets
    out = _s.reshape(_s.gather(flat, Tensor(flat_ids), axis=0),
                     shape=ids.shape + ms[b + 1:])
    # out is batch + index + (params axes b..axis-1) + rest; put index after axis-1.
    k, between = ids.ndim - b, axis - b
    order = (tuple(builtins.range(b)) + tuple(builtins.range(b + k, b + k + between))
             + tuple(builtins.range(b, b + k)) + tuple(builtins.range(b + k + between,
                                                                     out._value.ndim)))
    return _s.transpose(out, perm=order) if between else out


def gather_nd(params, indices, batch_dims=0, name=None):
    """Slices of `params` at the index vectors in the last axis of `indices`, as
    tf.gather_nd. The result has shape indices.shape[:-1] + params.shape[b + k:].

    Raises:
        InvalidArgumentError: for an index vector outside `params`, or bad shapes.
    """
    x = as_tensor(params)
    idx = _check_int_indices(indices, "GatherNd")
    ids, xs, b = idx._value, x._value.shape, int(batch_dims)
    if ids.ndim < 1 or ids.ndim - 1 < b:
        raise InvalidArgumentError(f"indices must have rank at least {b + 1}, got shape "
                                   f"{list(ids.shape)} [Op:GatherNd]")
    k = ids.shape[-1]
    if k > len(xs) - b or xs[:b] != ids.shape[:b]:
        raise InvalidArgumentError(f"index innermost dimension length {k} and batch_dims {b} "
                                   f"do not fit params shape {list(xs)} (indices shape "
                                   f"{list(ids.shape)}) [Op:GatherNd]")
    dims = xs[b:b + k]
    bad = ((ids < 0) | (ids >= np.asarray(dims, dtype=np.int64))).any(axis=-1)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidArgumentError(f"indices{list(where)} = {ids[where].tolist()} does not "
                                   f"index into param shape {list(xs)} [Op:GatherNd]")
    n = int(np.prod(xs[:b], dtype=np.int64))
    cells = int(np.prod(dims, dtype=np.int64))
    flat = _s.reshape(x, shape=(n * cells,) + xs[b + k:])
    lin = np.ravel_multi_index(tuple(np.moveaxis(ids.astype(np.int64), -1, 0)), dims) \
        if k else np.zeros(ids.shape[:-1], np.int64)
    lin = lin.reshape(n, -1) + (np.arange(n) * cells)[:, None]
    out = _s.gather(flat, Tensor(lin.reshape(-1)), axis=0)
    return _s.reshape(out, shape=ids.shape[:-1] + xs[b + k:])


def boolean_mask(tensor, mask, axis=None, name="boolean_mask"):
    """The entries of `tensor` where `mask` is True, as tf.boolean_mask: the mask's
    axes (from `axis`, default 0) are replaced by one axis of the True entries.

    Raises:
        InvalidArgumentError: if the mask is not boolean, is a scalar, or its shape
            differs from the masked axes.
    """
    x = as_tensor(tensor)
    m = as_tensor(mask)._value
    xs = x._value.shape
    if m.dtype.kind != "b" or m.ndim == 0:
        raise InvalidArgumentError(f"boolean_mask: mask must be a boolean tensor of rank >= 1, "
                                   f"got {m.dtype} of shape {list(m.shape)}.")
    axis = 0 if axis is None else int(axis) % max(len(xs), 1)
    if xs[axis:axis + m.ndim] != m.shape:
        raise InvalidArgumentError(f"boolean_mask: Shapes {list(xs[axis:axis + m.ndim])} and "
                                   f"{list(m.shape)} are incompatible (tensor shape {list(xs)},"
                                   f" mask shape {list(m.shape)}, axis {axis}).")
    merged = _s.reshape(x, shape=xs[:axis] + (m.size,) + xs[axis + m.ndim:])
    return _s.gather(merged, Tensor(np.flatnonzero(m)), axis=axis)


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """One-hot vectors of length `depth` along a new `axis` (default last), as tf.one_hot.
    Out-of-range indices give all-`off_value` rows. Not differentiable.

    Returns:
        A tensor of `dtype` (default: on_value's dtype, else float32).

    Raises:
        InvalidArgumentError: for non-integer indices, a negative depth or a bad axis.
    """
    idx = _check_int_indices(indices, "OneHot", attr="TI")._value
    depth = int(depth)
    if depth < 0:
        raise InvalidArgumentError(f"depth must be non-negative, got: {depth} [Op:OneHot]")
    if dtype is not None:
        np_dtype = dtypes.as_dtype(dtype)._np
    elif isinstance(on_value, Tensor) or isinstance(off_value, Tensor):
        np_dtype = (on_value if isinstance(on_value, Tensor) else off_value)._value.dtype
    else:
        np_dtype = _FLOAT32
    axis = -1 if axis is None else int(axis)
    if not -1 <= axis <= idx.ndim:
        raise InvalidArgumentError(f"Expected axis to be -1 or between [0, {idx.ndim}).  But "
                                   f"received: {axis} [Op:OneHot]")
    on = np.asarray(1 if on_value is None else np.asarray(on_value), np_dtype)
    off = np.asarray(0 if off_value is None else np.asarray(off_value), np_dtype)
    hot = idx[..., None] == np.arange(depth)
    out = np.where(hot, on, off).astype(np_dtype)
    return Tensor(np.moveaxis(out, -1, axis) if axis != -1 else out)


def unsorted_segment_sum(data, segment_ids, num_segments, name=None):
    """Sums of the slices of `data` sharing a segment id, as tf.math.unsorted_segment_sum.
    Negative ids are dropped. The result has shape (num_segments,) + data.shape[ids.ndim:].

    Raises:
        InvalidArgumentError: if data's shape does not start with the ids' shape or
            an id is >= num_segments.
    """
    x = as_tensor(data)
    ids = _check_int_indices(segment_ids, "UnsortedSegmentSum")
    n = int(num_segments)
    if x._value.shape[:ids._value.ndim] != ids._value.shape:
        raise InvalidArgumentError(f"data.shape = {list(x._value.shape)} does not start with "
                                   f"segment_ids.shape = {list(ids._value.shape)} "
                                   "[Op:UnsortedSegmentSum]")
    too_big = ids._value >= n
    if too_big.any():
        where = tuple(int(i) for i in np.argwhere(too_big)[0])
        raise InvalidArgumentError(f"segment_ids[{','.join(map(str, where))}] = "
                                   f"{ids._value[where]} is out of range [0, {n}) "
                                   "[Op:UnsortedSegmentSum]")
    return _s.scatter_add(x, ids, axis=0, size=n)


def _scatter_nd_parts(tensor, indices, updates, op_name):
    x = as_tensor(tensor)
    idx = _check_int_indices(indices, op_name)._value
    u = convert_to_tensor(updates, dtype_hint=x._value.dtype) if not isinstance(
        updates, Tensor) else updates
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
    return x, lin, rows, cells


def tensor_scatter_nd_add(tensor, indices, updates, name=None):
    """`tensor` with `updates` added at the index vectors `indices` (repeats add up)."""
    x, lin, rows, cells = _scatter_nd_parts(tensor, indices, updates, "TensorScatterAdd")
    added = _s.scatter_add(rows, Tensor(lin), axis=0, size=cells)
    return _m.add(x, _s.reshape(added, shape=x._value.shape))


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


def _order(values, axis, direction, op_name):
    x = as_tensor(values)
    if direction not in ("ASCENDING", "DESCENDING"):
        raise ValueError(f"{op_name}: direction must be 'ASCENDING' or 'DESCENDING', got "
                         f"{direction!r}.")
    axis = _axis(axis, x._value.ndim, op_name)
    v = x._value if direction == "ASCENDING" else -x._value.astype(np.float64) \
        if x._value.dtype.kind == "u" else -x._value
    return x, np.argsort(v, axis=axis, kind="stable"), axis


def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """Indices (int32) that sort `values` along `axis`, as tf.argsort (stable)."""
    _, order, _ = _order(values, axis, direction, "argsort")
    return Tensor(order.astype(np.int32))


def sort(values, axis=-1, direction="ASCENDING", name=None):
    """`values` sorted along `axis`, as tf.sort; gradients flow to the moved entries."""
    x, order, axis = _order(values, axis, direction, "sort")
    key = list(np.indices(order.shape, sparse=True))
    key[axis] = order
    return _s.getitem(x, key=tuple(key))
