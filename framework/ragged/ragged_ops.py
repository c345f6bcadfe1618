"""ragged_ops.py is the `tf.ragged` namespace's functions -- constant,
map_flat_values, range, stack, the segment-id conversions -- and the ragged
versions of tf.concat and tf.stack, which api/array_ops.py dispatches to when
an input is a RaggedTensor."""

import builtins

import numpy as np

from ..api import array_ops as _array_ops
from ..api import indexing_ops as _indexing_ops
from ..api import dispatch as _dispatch
from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor, convert_to_tensor
from .ragged_tensor import RaggedTensor, gather_rows

__all__ = ["constant", "map_flat_values", "range", "stack", "boolean_mask",
           "row_splits_to_segment_ids", "segment_ids_to_row_splits"]


def _depths(value, depth, found):
    """Collect the nesting depth of every scalar (and of every empty list + 1)."""
    if isinstance(value, (list, tuple)):
        if not value:
            found.setdefault("empty", set()).add(depth + 1)
        for item in value:
            _depths(item, depth + 1, found)
    else:
        found.setdefault("scalar", set()).add(depth)


def _flatten(value, levels, lengths):
    """The items `levels` lists deep, recording each level's row lengths."""
    items = list(value)
    for _ in builtins.range(levels):
        lengths.append([len(v) for v in items])
        items = [x for v in items for x in v]
    return items


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None,
             row_splits_dtype=dtypes.int64):
    """A RaggedTensor from nested Python lists, as tf.ragged.constant: every
    level is ragged but the innermost `len(inner_shape)` ones (by default all
    but none, or as `ragged_rank` says). Ints become int32, floats float32.

    >>> print(tf.ragged.constant([[1, 2], [3]]))
    <tf.RaggedTensor [[1, 2], [3]]>

    Raises:
        ValueError: if scalars sit at different nesting depths, or a level meant
            to be uniform is not.
    """
    if isinstance(pylist, (RaggedTensor, Tensor)):
        raise TypeError("tf.ragged.constant expects nested Python lists, got a "
                        f"{type(pylist).__name__}.")
    found = {}
    _depths(pylist, 0, found)
    scalars = found.get("scalar", set())
    if len(scalars) > 1:
        raise ValueError(f"all scalar values must have the same nesting depth, got depths "
                         f"{sorted(scalars)} in {pylist!r}.")
    depth = scalars.pop() if scalars else max(found.get("empty", {1}))
    if depth == 0:
        raise ValueError("tf.ragged.constant: expected a nested list, got a scalar "
                         f"{pylist!r}; use tf.constant.")
    inner = 0 if inner_shape is None else len(tuple(inner_shape))
    if ragged_rank is None:
        ragged_rank = max(0, depth - 1 - inner)
    ragged_rank = int(ragged_rank)
    if ragged_rank == 0:
        return convert_to_tensor(pylist, dtype=dtype)
    if ragged_rank > depth - 1:
        raise ValueError(f"ragged_rank {ragged_rank} must be less than the nesting depth "
                         f"{depth} of {pylist!r}.")
    lengths = []
    items = _flatten(pylist, ragged_rank, lengths)
    if not items and inner_shape is not None:
        flat = np.zeros((0,) + tuple(inner_shape), dtypes.as_dtype(dtype or "float32")._np)
        values = Tensor(flat)
    elif not items:
        values = Tensor(np.zeros((0,) + (0,) * (depth - 1 - ragged_rank),
                                 dtypes.as_dtype(dtype or "float32")._np))
    else:
        try:
            values = convert_to_tensor(items, dtype=dtype)
        except ValueError as error:
            if depth - 1 == ragged_rank:
                raise
            raise ValueError(f"tf.ragged.constant: the innermost {depth - 1 - ragged_rank} "
                             f"level(s) must be uniform (set ragged_rank higher): "
                             f"{error}") from None
    if inner_shape is not None and tuple(values._value.shape[1:]) != tuple(inner_shape):
        values = _array_ops.reshape(values, (-1,) + tuple(inner_shape))
    return RaggedTensor.from_nested_row_lengths(values, lengths)


def map_flat_values(op, *args, **kwargs):
    """`op` applied to the flat values of the RaggedTensors among the arguments
    (which must share their row partitions), as tf.ragged.map_flat_values; the
    result keeps that partition. Gradients reach the values through `op`.

    Raises:
        ValueError: if no argument is ragged, the partitions differ, or `op`
            changes the number of values.
    """
    ragged = [a for a in list(args) + list(kwargs.values()) if isinstance(a, RaggedTensor)]
    if not ragged:
        raise ValueError("map_flat_values: no RaggedTensor among the arguments.")
    splits = [s._value for s in ragged[0].nested_row_splits]
    for rt in ragged[1:]:
        other = [s._value for s in rt.nested_row_splits]
        if len(other) != len(splits) or not all(np.array_equal(a, b)
                                                for a, b in zip(splits, other)):
            raise ValueError("map_flat_values: all RaggedTensor arguments must have the same "
                             "row partitions (nested_row_splits).")

    def flat(a):
        return a.flat_values if isinstance(a, RaggedTensor) else a

    result = op(*[flat(a) for a in args], **{k: flat(v) for k, v in kwargs.items()})
    return ragged[0].with_flat_values(result)


def range(starts, limits=None, deltas=1, dtype=None, name=None,  # noqa: A001 -- TF's name
          row_splits_dtype=dtypes.int64):
    """Row i is `tf.range(starts[i], limits[i], deltas[i])`, as tf.ragged.range
    (scalars broadcast).

    Raises:
        InvalidArgumentError: if a delta is 0.
    """
    if limits is None:
        starts, limits = 0, starts
    parts = [as_tensor(v)._value for v in (starts, limits, deltas)]
    # TF's rule: the widest of the inputs' dtypes in the order int32, int64, float32, float64.
    order = [np.dtype(t) for t in (np.int32, np.int64, np.float32, np.float64)]
    out = dtypes.as_dtype(dtype)._np if dtype is not None else max(
        (p.dtype for p in parts), key=lambda t: order.index(t) if t in order else 0)
    s, lim, d = np.broadcast_arrays(*[np.atleast_1d(p) for p in parts])
    if (d == 0).any():
        raise InvalidArgumentError("Requires delta != 0 [Op:RaggedRange]")
    lengths = np.maximum(np.ceil((lim - s) / d), 0).astype(np.int64)
    rows = np.repeat(np.arange(lengths.size), lengths)
    position = np.arange(rows.size) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    values = (s[rows] + d[rows] * position).astype(out)
    return RaggedTensor.from_row_lengths(Tensor(values), lengths)


def boolean_mask(data, mask, name=None):
    """The entries of `data` where `mask` is True, keeping the rank, as
    tf.ragged.boolean_mask: a 1-D mask picks rows; a 2-D mask (dense, or ragged
    with data's row partition) keeps entries within each row, giving ragged rows.
    Differentiable w.r.t. the kept values.

    Raises:
        ValueError: for a mask of another rank or shape.
    """
    if isinstance(mask, RaggedTensor):
        if not isinstance(data, RaggedTensor) or mask.ragged_rank != 1 or not np.array_equal(
                mask._splits, data._splits):
            raise ValueError(f"boolean_mask: a ragged mask of shape {mask.shape} must have "
                             f"the row partition of data (shape {getattr(data, 'shape', '?')}).")
        keep = np.asarray(mask.values._value, bool)
        rows = data.value_rowids()._value[keep]
        return RaggedTensor.from_row_lengths(gather_rows(data.values, np.flatnonzero(keep)),
                                             np.bincount(rows, minlength=data.nrows_int()))
    m = np.asarray(as_tensor(mask)._value)
    if m.dtype.kind != "b" or m.ndim not in (1, 2):
        raise ValueError(f"boolean_mask: mask must be a bool tensor of rank 1 or 2 (or a "
                         f"ragged one), got {m.dtype} of shape {list(m.shape)}.")
    if m.ndim == 1:
        if isinstance(data, RaggedTensor):
            if m.size != data.nrows_int():
                raise ValueError(f"boolean_mask: {m.size} mask entries for "
                                 f"{data.nrows_int()} rows.")
            return gather_rows(data, np.flatnonzero(m))
        return _indexing_ops.boolean_mask(data, m)
    if isinstance(data, RaggedTensor):
        raise ValueError("boolean_mask: mask a RaggedTensor with a ragged mask of its "
                         "row partition (a 2-D dense mask fits dense data only).")
    return RaggedTensor.from_row_lengths(_indexing_ops.boolean_mask(data, m), m.sum(axis=1))


def row_splits_to_segment_ids(splits, name=None, out_type=None):
    """The row of each value, from row splits."""
    s = np.asarray(as_tensor(splits)._value, np.int64)
    return Tensor(np.repeat(np.arange(s.size - 1), np.diff(s)))


def segment_ids_to_row_splits(segment_ids, num_segments=None, out_type=None, name=None):
    """Row splits from the (sorted) row of each value."""
    ids = np.asarray(as_tensor(segment_ids)._value, np.int64)
    n = (int(ids.max()) + 1 if ids.size else 0) if num_segments is None else int(num_segments)
    return Tensor(np.concatenate([[0], np.cumsum(np.bincount(ids, minlength=n))]))


def _as_ragged(value, ragged_rank):
    if isinstance(value, RaggedTensor):
        return value
    return RaggedTensor.from_tensor(as_tensor(value), ragged_rank=ragged_rank)


def _concat_values(values):
    if all(isinstance(v, Tensor) for v in values):
        return _array_ops.concat(values, 0)
    if not all(isinstance(v, RaggedTensor) for v in values):
        raise InvalidArgumentError("tf.concat: the inputs' ragged ranks differ.")
    return concat(values, 0)


def concat(values, axis, name=None):
    """tf.concat with a RaggedTensor among `values`: along the rows (axis 0), or
    row by row (axis 1); deeper axes need one row partition. Differentiable.

    Raises:
        InvalidArgumentError: if the ranks differ or, for axis 1, the row counts.
    """
    first = next(v for v in values if isinstance(v, RaggedTensor))
    rts = [_as_ragged(v, first.ragged_rank) for v in values]
    rank = first.ndim
    if any(rt.ndim != rank for rt in rts):
        raise InvalidArgumentError(f"tf.concat: ragged inputs must have one rank, got shapes "
                                   f"{[rt.shape for rt in rts]}.")
    axis = _array_ops._axis(axis, rank, "concat")
    if axis == 0:
        offsets = np.cumsum([0] + [rt._splits[-1] for rt in rts[:-1]])
        splits = np.concatenate([rts[0]._splits[:1]] + [rt._splits[1:] + o
                                                         for rt, o in zip(rts, offsets)])
        return RaggedTensor.from_row_splits(_concat_values([rt.values for rt in rts]), splits)
    n = first.nrows_int()
    if any(rt.nrows_int() != n for rt in rts):
        raise InvalidArgumentError(f"tf.concat along axis {axis}: every input needs {n} rows, "
                                   f"got shapes {[rt.shape for rt in rts]}.")
    if axis > 1:
        if not all(np.array_equal(rt._splits, first._splits) for rt in rts):
            raise InvalidArgumentError(f"tf.concat along axis {axis} needs inputs with one row "
                                       f"partition in dimension 1.")
        return first.with_values(concat([rt.values for rt in rts], axis - 1))
    rows = np.concatenate([rt.value_rowids()._value * len(rts) + j for j, rt in enumerate(rts)])
    order = np.argsort(rows, kind="stable")  # row by row, inputs in order within a row
    joined = gather_rows(_concat_values([rt.values for rt in rts]), order)
    return RaggedTensor.from_row_lengths(joined, sum(np.diff(rt._splits) for rt in rts))


def stack(values, axis=0, name=None):
    """tf.stack with a RaggedTensor among `values`: along a new axis 0 or 1."""
    first = next((v for v in values if isinstance(v, RaggedTensor)), None)
    if first is None:
        return _array_ops.stack(values, axis)
    rts = [_as_ragged(v, first.ragged_rank) for v in values]
    axis = _array_ops._axis(axis, first.ndim + 1, "stack")
    if axis == 0:
        wrapped = [RaggedTensor.from_row_splits(rt, [0, rt.nrows_int()]) for rt in rts]
    elif axis == 1:
        wrapped = [_rows_of_one(rt) for rt in rts]
    else:
        raise NotImplementedError("tapeflow stacks RaggedTensors along axis 0 or 1 only.")
    return concat(wrapped, axis)


def _rows_of_one(rt):
    """rt with a new axis 1 of size 1: row i becomes [row i]."""
    n = rt.nrows_int()
    inner = RaggedTensor.from_row_splits(rt.values, rt._splits)
    return RaggedTensor.from_row_splits(inner, np.arange(n + 1))


def _positions(rt):
    """(row start, row length, position in row) of each value of rt."""
    lengths = np.diff(rt._splits)
    rows = np.repeat(np.arange(lengths.size), lengths)
    return rt._splits[:-1][rows], lengths[rows], np.arange(rows.size) - rt._splits[rows]


def reverse(tensor, axis):
    """tf.reverse of a RaggedTensor: axis 0 reverses the rows, axis 1 each row,
    deeper axes the values."""
    rt = tensor
    for a in sorted({_array_ops._axis(a, rt.ndim, "reverse") for a in np.atleast_1d(
            as_tensor(axis)._value).tolist()}):
        if a == 0:
            rt = gather_rows(rt, np.arange(rt.nrows_int())[::-1])
        elif a == 1:
            start, length, position = _positions(rt)
            rt = rt.with_values(gather_rows(rt.values, start + length - 1 - position))
        else:
            inner = rt.values
            rt = rt.with_values(reverse(inner, [a - 1]) if isinstance(inner, RaggedTensor)
                                else _array_ops.reverse(inner, [a - 1]))
    return rt


def tile(input, multiples):  # noqa: A002 -- TF's name
    """tf.tile of a RaggedTensor: rows repeated multiples[0] times, each row's
    values multiples[1] times in a row, the values by the rest."""
    reps = [int(m) for m in np.asarray(as_tensor(multiples)._value).reshape(-1)]
    if len(reps) != input.ndim or any(m < 0 for m in reps):
        raise InvalidArgumentError(f"tile: multiples {reps} must hold {input.ndim} "
                                   f"non-negative counts for shape {input.shape}.")
    rt = gather_rows(input, np.tile(np.arange(input.nrows_int()), reps[0]))
    lengths = np.diff(rt._splits)
    new_lengths = lengths * reps[1]
    rows = np.repeat(np.arange(lengths.size), new_lengths)
    position = np.arange(rows.size) - np.repeat(np.cumsum(new_lengths) - new_lengths,
                                                 new_lengths)
    idx = rt._splits[:-1][rows] + position % np.maximum(lengths[rows], 1)
    values = gather_rows(rt.values, idx)
    if any(m != 1 for m in reps[2:]):
        values = tile(values, reps[1:]) if isinstance(values, RaggedTensor) else \
            _array_ops.tile(values, [1] + reps[2:])
    return RaggedTensor.from_row_lengths(values, new_lengths)


def _gather(params, indices, axis=None, batch_dims=0):
    """tf.gather of a RaggedTensor: its rows at `indices` (axis 0 only)."""
    if axis not in (None, 0) or batch_dims:
        raise NotImplementedError("tapeflow gathers the rows of a RaggedTensor only (axis=0, "
                                  "batch_dims=0).")
    ids = np.asarray(as_tensor(indices)._value)
    n = params.nrows_int()
    if ids.dtype.kind not in "iu" or ids.ndim > 1 or ((ids < 0) | (ids >= n)).any():
        raise InvalidArgumentError(f"gather: indices {ids.tolist()} must be ints in [0, {n}) "
                                   f"for a RaggedTensor of shape {params.shape}.")
    return gather_rows(params, ids.reshape(-1)) if ids.ndim else params[int(ids)]


def _boolean_mask(tensor, mask, axis=None):
    if axis not in (None, 0):
        raise NotImplementedError("tf.boolean_mask of a RaggedTensor takes axis=0 only.")
    return boolean_mask(tensor, mask)


_dispatch.register("gather", RaggedTensor, _gather)
_dispatch.register("boolean_mask", RaggedTensor, _boolean_mask)
for _name, _fn in (("concat", concat), ("stack", stack), ("reverse", reverse), ("tile", tile)):
    _dispatch.register(_name, RaggedTensor, _fn)
