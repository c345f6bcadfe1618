"""indexing_ops.py is the public API for picking elements out of tensors:
`tensor[...]`, tf.slice, strided_slice, gather, gather_nd, boolean_mask,
one_hot, the segment ops, sort, searchsorted and unique. The primitives
(getitem, gather, scatter_add) and their VJPs live in ops/shape.py; this
module checks indices and names errors. Writing at indices is scatter_ops.py."""

import builtins

import numpy as np

import collections

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.string_values import refuse_strings
from ..core.tensor import Tensor, as_tensor
from ..ops import math as _m
from ..ops import shape as _s
from . import dispatch as _dispatch
from .array_ops import _axis, _shape_tuple, cast as _cast

__all__ = ["getitem", "slice", "strided_slice", "gather", "gather_nd", "boolean_mask", "one_hot",
           "unsorted_segment_sum", "dynamic_partition", "sort", "argsort", "searchsorted",
           "unique", "unique_with_counts", "sequence_mask", "repeat"]

_FLOAT32 = np.dtype(np.float32)


_INDEX_TYPE_ERROR = ("Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and "
                     "integer or boolean tensors are valid indices, got {!r}")


def _index_part(k):
    """One entry of a `tensor[...]` key in NumPy's terms (bool masks as nonzero arrays)."""
    if isinstance(k, builtins.slice):
        return builtins.slice(*[None if v is None else int(v.__index__()) for v in
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
        parts.extend([part] if isinstance(part, builtins.slice) else part)
    try:
        return _s.getitem(x, key=tuple(parts))
    except IndexError as error:
        raise InvalidArgumentError(f"Index {key!r} is out of range for a tensor of shape "
                                   f"{list(x._value.shape)}: {error} [Op:StridedSlice]") from None


def _bits(mask, n):
    return [bool(int(mask) >> i & 1) for i in builtins.range(n)]


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0,
                  new_axis_mask=0, shrink_axis_mask=0, var=None, name=None):
    """`input_[begin:end:strides]` spelled as TF's StridedSlice: bit i of a mask
    applies to entry i of `begin`/`end`/`strides` (begin_mask/end_mask: that bound
    is open; ellipsis_mask: the entry is `...`; new_axis_mask: `tf.newaxis`;
    shrink_axis_mask: the entry is the int `begin[i]`). Differentiable.

    Raises:
        InvalidArgumentError: if begin, end and strides differ in length, a stride
            is 0, or a shrunk index is out of range.
    """
    b, e = _shape_tuple(begin, "strided_slice"), _shape_tuple(end, "strided_slice")
    st = (1,) * len(b) if strides is None else _shape_tuple(strides, "strided_slice")
    if not len(b) == len(e) == len(st):
        raise InvalidArgumentError(f"Expected begin, end, and strides to be 1D equal size "
                                   f"tensors, but got shapes [{len(b)}], [{len(e)}], and "
                                   f"[{len(st)}] instead. [Op:StridedSlice]")
    if 0 in st:
        raise InvalidArgumentError(f"strides[{st.index(0)}] must be non-zero "
                                   "[Op:StridedSlice]")
    n = len(b)
    masks = zip(_bits(begin_mask, n), _bits(end_mask, n), _bits(ellipsis_mask, n),
                _bits(new_axis_mask, n), _bits(shrink_axis_mask, n))
    key = []
    for i, (open_begin, open_end, ellipsis, new_axis, shrink) in enumerate(masks):
        if ellipsis:
            key.append(Ellipsis)
        elif new_axis:
            key.append(None)
        elif shrink:
            key.append(b[i])
        else:
            key.append(builtins.slice(None if open_begin else b[i], None if open_end else e[i],
                                      st[i]))
    return getitem(input_, tuple(key))


def slice(input_, begin, size, name=None):  # noqa: A001 -- TF's name
    """The block of `input_` starting at `begin` with `size` entries per axis
    (-1: all the rest), as tf.slice. Differentiable.

    >>> tf.slice(tf.constant([0, 1, 2, 3, 4]), begin=[1], size=[3]).numpy()
    array([1, 2, 3], dtype=int32)

    Raises:
        InvalidArgumentError: if begin or size do not match the rank, or the block
            does not fit in the tensor (the message names the axis and the range).
    """
    x = as_tensor(input_)
    shape = x._value.shape
    b, sz = _shape_tuple(begin, "slice"), _shape_tuple(size, "slice")
    if len(b) != len(shape) or len(sz) != len(shape):
        raise InvalidArgumentError(f"Expected begin and size arguments to be 1-D tensors of "
                                   f"size {len(shape)}, but got shapes [{len(b)}] and "
                                   f"[{len(sz)}] instead. [Op:Slice]")
    key = []
    for i, (d, start, count) in enumerate(zip(shape, b, sz)):
        if not 0 <= start <= d:
            raise InvalidArgumentError(f"Expected begin[{i}] in [0, {d}], but got {start} "
                                       f"(input shape {list(shape)}) [Op:Slice]")
        count = d - start if count == -1 else count
        if not 0 <= count <= d - start:
            raise InvalidArgumentError(f"Expected size[{i}] in [0, {d - start}], but got "
                                       f"{count} (input shape {list(shape)}, begin "
                                       f"{list(b)}) [Op:Slice]")
        key.append(builtins.slice(start, start + count))
    return _s.getitem(x, key=tuple(key))


def _check_int_indices(indices, op_name, attr="Tindices"):
    idx = as_tensor(indices)
    if idx._value.dtype.kind not in "iu":
        raise InvalidArgumentError(f"Value for attr '{attr}' of {idx.dtype.name} is not in the "
                                   f"list of allowed values: int16, int32, int64 "
                                   f"[Op:{op_name}]")
    return idx


def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """Slices of `params` along `axis` at `indices`, as tf.gather.

    With `batch_dims=b`, the first b axes of `params` and `indices` are batch
    axes gathered in lockstep. The gradient is a scatter-add (repeated indices
    accumulate), run by a Numba kernel.

    Raises:
        InvalidArgumentError: for an index outside [0, params.shape[axis]), float
            indices, or inconsistent axis/batch_dims.
    """
    if _dispatch.for_value("gather", params):
        return _dispatch.for_value("gather", params)(params, indices, axis, batch_dims)
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
    xs, ids_shape = x._value.shape, idx._value.shape
    if xs[:batch_dims] != ids_shape[:batch_dims]:
        raise InvalidArgumentError(f"params.shape[:{batch_dims}] = {list(xs[:batch_dims])} "
                                   f"must equal indices.shape[:{batch_dims}] = "
                                   f"{list(ids_shape[:batch_dims])} [Op:GatherV2]")
    if batch_dims == 0:  # the range checked inside the op (a traced call checks each time)
        return _s.gather(x, idx, axis=axis, check="GatherV2")
    ids = idx._value
    _s.check_range(ids, xs[axis], "GatherV2")
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
    Under tapeflow.function the signature runs eagerly (one warning): the result's
    length depends on values, which tapeflow's traces do not yet follow through
    later ops.

    Raises:
        InvalidArgumentError: if the mask is not boolean, is a scalar, or its shape
            differs from the masked axes.
    """
    if _dispatch.for_value("boolean_mask", tensor) or _dispatch.for_value("boolean_mask", mask):
        return (_dispatch.for_value("boolean_mask", tensor) or _dispatch.for_value(
            "boolean_mask", mask))(tensor, mask, axis)
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
    idx = _check_int_indices(indices, "OneHot", attr="TI")
    depth = int(depth)
    if depth < 0:
        raise InvalidArgumentError(f"depth must be non-negative, got: {depth} [Op:OneHot]")
    if dtype is not None:
        np_dtype = dtypes.as_dtype(dtype)._np
    elif on_value is not None or off_value is not None:  # TF: the given value's dtype
        np_dtype = as_tensor(on_value if on_value is not None else off_value)._value.dtype
    else:
        np_dtype = _FLOAT32
    rank = idx._value.ndim
    axis = -1 if axis is None else int(axis)
    if not -1 <= axis <= rank:
        raise InvalidArgumentError(f"Expected axis to be -1 or between [0, {rank}).  But "
                                   f"received: {axis} [Op:OneHot]")
    # Ops, not NumPy on the indices, so a traced step replays it: on_value where
    # index >= k and k >= index, so an index that is none of 0..depth-1 (negative,
    # too big) gives a row of off_value, as in TF.
    column = _s.reshape(idx, shape=idx._value.shape + (1,))
    positions = Tensor(np.arange(depth, dtype=idx._value.dtype))
    on, off = _hot_value(on_value, 1, np_dtype), _hot_value(off_value, 0, np_dtype)
    out = _m.select(_m._greater_equal(column, positions),
                    _m.select(_m._greater_equal(positions, column), on, off), off)
    if axis != -1 and axis != rank:
        out = _s.transpose(out, perm=tuple(builtins.range(axis)) + (rank,) + tuple(
            builtins.range(axis, rank)))
    return out


def _hot_value(value, default, np_dtype):
    """one_hot's on/off value as a rank-0 tensor of `np_dtype`, cut from any tape
    (TF's OneHot has no gradient)."""
    if value is None:
        return Tensor(np.asarray(default, np_dtype))
    if isinstance(value, Tensor):
        return _m.stop_gradient(_cast(value, np_dtype))
    return Tensor(np.asarray(value, np_dtype))


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


def _order(values, axis, direction, op_name):
    x = refuse_strings(as_tensor(values), op_name)
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


def dynamic_partition(data, partitions, num_partitions, name=None):
    """Split `data` into `num_partitions` tensors by the partition index of each
    slice, as tf.dynamic_partition; slices keep their order. Differentiable.

    Raises:
        InvalidArgumentError: if `partitions`' shape does not start `data`'s, or an
            index is outside [0, num_partitions).
    """
    x = as_tensor(data)
    parts = _check_int_indices(partitions, "DynamicPartition")._value
    n = int(num_partitions)
    xs = x._value.shape
    if xs[:parts.ndim] != parts.shape:
        raise InvalidArgumentError(f"data.shape must start with partitions.shape, got data."
                                   f"shape = {list(xs)}, partitions.shape = "
                                   f"{list(parts.shape)} [Op:DynamicPartition]")
    _s.check_range(parts, n, "DynamicPartition")
    flat = _s.reshape(x, shape=(parts.size,) + xs[parts.ndim:])
    ids = parts.reshape(-1)
    return [_s.gather(flat, Tensor(np.flatnonzero(ids == i)), axis=0)
            for i in builtins.range(n)]


def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """Where each of `values` would go in the innermost axis of `sorted_sequence`
    to keep it sorted, as tf.searchsorted (`side` 'left' or 'right'). Leading axes
    of both must match. Not differentiable.

    Raises:
        ValueError: for another `side`.
        InvalidArgumentError: if the leading axes differ.
    """
    seq, vals = as_tensor(sorted_sequence)._value, as_tensor(values)._value
    if side not in ("left", "right"):
        raise ValueError(f"Argument `side` must be either 'right' or 'left'. Received: "
                         f"`side` = '{side}'.")
    if seq.ndim < 1 or vals.ndim < 1 or seq.shape[:-1] != vals.shape[:-1]:
        raise InvalidArgumentError(f"Leading dim_size of both tensors must match, got "
                                   f"sorted_sequence shape {list(seq.shape)} and values shape "
                                   f"{list(vals.shape)} [Op:LowerBound]")
    rows_seq = seq.reshape(-1, seq.shape[-1])
    rows_val = vals.reshape(-1, vals.shape[-1]) if vals.ndim else vals.reshape(1, 1)
    out = np.empty(rows_val.shape, np.int64)
    for r in builtins.range(rows_seq.shape[0]):
        out[r] = np.searchsorted(rows_seq[r], rows_val[r], side=side)
    return Tensor(out.reshape(vals.shape).astype(dtypes.as_dtype(out_type)._np))


Unique = collections.namedtuple("Unique", ["y", "idx"])
UniqueWithCounts = collections.namedtuple("UniqueWithCounts", ["y", "idx", "count"])


def _unique(x, out_type, op_name):
    x = as_tensor(x)
    v = x._value
    if v.ndim != 1:
        raise InvalidArgumentError(f"unique expects a 1D vector, got shape {list(v.shape)} "
                                   f"[Op:{op_name}]")
    values, first, inverse, counts = np.unique(v, return_index=True, return_inverse=True,
                                               return_counts=True)
    order = np.argsort(first, kind="stable")  # TF keeps the order of first appearance
    rank = np.argsort(order, kind="stable")
    out = dtypes.as_dtype(out_type)._np
    return (Tensor(values[order]), Tensor(rank[inverse.reshape(-1)].astype(out)),
            Tensor(counts[order].astype(out)))


def unique(x, out_type=dtypes.int32, name=None):
    """The distinct values of the 1-D `x` in order of first appearance, and for
    each entry of `x` the index of its value, as tf.unique: `Unique(y, idx)`.
    Under tapeflow.function the signature runs eagerly (one warning): the result's
    length depends on values, which tapeflow's traces do not yet follow through
    later ops."""
    y, idx, _ = _unique(x, out_type, "Unique")
    return Unique(y, idx)


def unique_with_counts(x, out_type=dtypes.int32, name=None):
    """As `unique`, plus how often each distinct value occurs: `UniqueWithCounts(y,
    idx, count)`, as tf.unique_with_counts."""
    return UniqueWithCounts(*_unique(x, out_type, "UniqueWithCounts"))


def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """`mask[..., j] = j < lengths[...]`, of `maxlen` columns (default max(lengths)),
    as tf.sequence_mask.

    Raises:
        InvalidArgumentError: for non-integer lengths or a negative maxlen.
    """
    n = _check_int_indices(lengths, "SequenceMask", attr="T")._value
    width = (int(n.max()) if n.size else 0) if maxlen is None else int(as_tensor(maxlen))
    if width < 0:
        raise InvalidArgumentError(f"maxlen must be non-negative, got {width} "
                                   "[Op:SequenceMask]")
    mask = n[..., None] > np.arange(width)
    return Tensor(mask.astype(dtypes.as_dtype(dtype)._np))


def repeat(input, repeats, axis=None, name=None):  # noqa: A002
    """Repeat each entry along `axis` (flattened first when None) `repeats` times
    (an int, or one count per entry), as tf.repeat. Differentiable."""
    x = as_tensor(input)
    if axis is None:
        x, axis = _s.reshape(x, shape=(x._value.size,)), 0
    axis = _axis(axis, x._value.ndim, "repeat")
    counts = np.asarray(as_tensor(repeats)._value)
    n = x._value.shape[axis]
    if counts.dtype.kind not in "iu" or counts.ndim > 1 or (counts.ndim and counts.size not in (
            1, n)):  # TF's static shape check: a ValueError
        raise ValueError(f"repeat: repeats must be an int or a list of 1 or {n} of them (axis "
                         f"{axis} of shape {list(x._value.shape)}), got {counts.tolist()}.")
    if (counts < 0).any():
        raise InvalidArgumentError(f"repeat: repeats must be non-negative, got "
                                   f"{counts.tolist()} [Op:Tile]")
    return _s.gather(x, Tensor(np.repeat(np.arange(n), counts.reshape(-1))), axis=axis)

