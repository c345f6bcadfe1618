"""sparse_ops.py is the `tf.sparse` namespace's functions: conversion to and
from dense tensors, reordering, sums, products with dense matrices, concat,
reshape, slicing and masking of SparseTensors. Each is built from the dense
primitives (gather, scatter-add, multiply), so gradients flow to `values` and
to a dense operand with no VJP of their own."""

import builtins

import numpy as np

from ..api.array_ops import _shape_tuple
from ..core import dtypes
from ..core.args import normalize_axis
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor
from ..ops import math as _m
from ..ops import shape as _s
from .sparse_tensor import SparseTensor, fill_value

__all__ = ["to_dense", "from_dense", "reorder", "add", "sparse_dense_matmul", "reduce_sum",
           "reduce_max", "concat", "reshape", "retain", "slice", "transpose", "map_values",
           "to_indicator", "expand_dims"]


def _sparse(sp, op_name):
    if not isinstance(sp, SparseTensor):
        raise TypeError(f"{op_name} expects a SparseTensor, got {type(sp).__name__}: "
                        f"{sp!r}. Make one with tf.sparse.from_dense.")
    return sp


def _shape(sp):
    return tuple(int(d) for d in sp.dense_shape._value)


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


def _linear(indices, shape):
    """Row-major position of each index row in a dense tensor of `shape`."""
    if indices.shape[0] == 0 or not shape:
        return np.zeros(indices.shape[0], np.int64)
    return np.ravel_multi_index(tuple(indices.T), shape)


def _unravel(lin, shape):
    return np.stack(np.unravel_index(lin, shape), axis=1).astype(np.int64) if shape else \
        np.zeros((lin.size, 0), np.int64)


def _check_indices(sp, op_name):
    """TF's validate_indices: every index inside the shape, in row-major order, unique."""
    ind, shape = sp.indices._value, _shape(sp)
    outside = ((ind < 0) | (ind >= np.asarray(shape, np.int64))).any(axis=1)
    if outside.any():
        i = int(np.flatnonzero(outside)[0])
        raise InvalidArgumentError(f"indices[{i}] = {ind[i].tolist()} is out of bounds: need 0 "
                                   f"<= index < {list(shape)} [Op:{op_name}]")
    lin = _linear(ind, shape)
    step = np.diff(lin)
    if (step <= 0).any():
        i = int(np.flatnonzero(step <= 0)[0]) + 1
        what = "repeated" if step[i - 1] == 0 else "out of order"
        raise InvalidArgumentError(
            f"indices[{i}] = {ind[i].tolist()} is {what}. Many sparse ops require sorted "
            f"indices. Use `tf.sparse.reorder` to create a correctly ordered copy. "
            f"[Op:{op_name}]")
    return lin


def _is_numeric(values):
    return values._value.dtype.kind in "biufc"


def to_dense(sp_input, default_value=None, validate_indices=True, name=None):
    """The dense tensor: `values` at `indices`, `default_value` (0) elsewhere, as
    tf.sparse.to_dense. Differentiable w.r.t. the values.

    Raises:
        InvalidArgumentError: with `validate_indices`, for an index outside the
            shape, out of row-major order, or repeated (tf.sparse.reorder sorts).
    """
    sp = _sparse(sp_input, "tf.sparse.to_dense")
    shape, values = _shape(sp), sp.values
    lin = _check_indices(sp, "SparseToDense") if validate_indices else _linear(
        sp.indices._value, shape)
    if not _is_numeric(values):  # strings: no arithmetic, no gradient
        dense = np.full(_size(shape), fill_value(values, default_value), values._value.dtype)
        dense[lin] = values._value
        return Tensor(dense.reshape(shape))
    placed = _s.scatter_add(values, Tensor(lin), axis=0, size=_size(shape))
    dense = _s.reshape(placed, shape=shape)
    fill = fill_value(values, default_value)
    if fill != 0:
        border = np.full(_size(shape), fill, values._value.dtype)
        border[lin] = 0
        dense = _m.add(dense, Tensor(border.reshape(shape)))
    return dense


def from_dense(tensor, name=None):
    """The non-zero entries of a dense tensor as a SparseTensor, as
    tf.sparse.from_dense. Differentiable w.r.t. the kept entries."""
    x = as_tensor(tensor)
    zero = x._value.dtype.type()
    nonzero = x._value != zero
    flat = _s.reshape(x, shape=(x._value.size,))
    values = _s.gather(flat, Tensor(np.flatnonzero(nonzero)), axis=0)
    return SparseTensor(np.argwhere(nonzero).astype(np.int64), values, x._value.shape)


def _pick(sp, rows, indices=None, dense_shape=None):
    """A SparseTensor of the values at positions `rows` (gathered: differentiable)."""
    ind = sp.indices._value[rows] if indices is None else indices
    return SparseTensor(ind, _s.gather(sp.values, Tensor(rows), axis=0),
                        sp.dense_shape if dense_shape is None else dense_shape)


def reorder(sp_input, name=None):
    """The same SparseTensor with its indices in row-major order, as tf.sparse.reorder."""
    sp = _sparse(sp_input, "tf.sparse.reorder")
    order = np.argsort(_linear(sp.indices._value, _shape(sp)), kind="stable")
    return _pick(sp, order)


def add(a, b, threshold=0):
    """`a + b` as tf.sparse.add: two SparseTensors give a SparseTensor (values at a
    shared index add up; sums smaller in magnitude than `threshold` are dropped),
    a SparseTensor and a dense tensor give a dense tensor. Differentiable.

    Raises:
        InvalidArgumentError: if the dense shapes differ.
        TypeError: if neither operand is a SparseTensor.
    """
    if not isinstance(a, SparseTensor) and not isinstance(b, SparseTensor):
        raise TypeError("tf.sparse.add: at least one of a, b must be a SparseTensor; add "
                        "dense tensors with tf.add.")
    if not isinstance(a, SparseTensor) or not isinstance(b, SparseTensor):
        sp, dense = (a, b) if isinstance(a, SparseTensor) else (b, a)
        dense = as_tensor(dense)
        if _shape(sp) != dense._value.shape:
            raise InvalidArgumentError(f"tf.sparse.add: the SparseTensor's shape "
                                       f"{list(_shape(sp))} differs from the dense shape "
                                       f"{list(dense._value.shape)} [Op:SparseTensorDenseAdd]")
        return _m.add(dense, to_dense(sp, validate_indices=False))
    shape = _shape(a)
    if shape != _shape(b):
        raise InvalidArgumentError(f"Operands' shapes do not match: got {list(shape)} and "
                                   f"{list(_shape(b))} [Op:SparseAdd]")
    lin = np.concatenate([_linear(a.indices._value, shape), _linear(b.indices._value, shape)])
    cells, where = np.unique(lin, return_inverse=True)
    both = _s.concat(a.values, b.values, axis=0) if a.values._value.dtype == \
        b.values._value.dtype else _bad_dtypes(a, b)
    summed = _s.scatter_add(both, Tensor(where.reshape(-1)), axis=0, size=cells.size)
    result = SparseTensor(_unravel(cells, shape), summed, shape)
    if threshold:
        keep = np.abs(summed._value) >= as_tensor(threshold)._value
        result = retain(result, keep)
    return result


def _bad_dtypes(a, b):
    raise InvalidArgumentError(f"tf.sparse.add: the values' dtypes differ: {a.dtype.name} and "
                               f"{b.dtype.name} [Op:SparseAdd]")


def sparse_dense_matmul(sp_a, b, adjoint_a=False, adjoint_b=False, name=None):
    """The matrix product of a rank-2 SparseTensor and a dense matrix (either
    order), as tf.sparse.sparse_dense_matmul; `adjoint_*` transposes an operand
    first. The result is dense; differentiable w.r.t. the sparse values and the
    dense matrix.

    Raises:
        InvalidArgumentError: if an operand is not a matrix, the inner dimensions
            differ, or the dtypes differ.
    """
    if not isinstance(sp_a, SparseTensor):  # dense @ sparse = (sparse^T @ dense^T)^T
        product = sparse_dense_matmul(_sparse(b, "tf.sparse.sparse_dense_matmul"), sp_a,
                                      adjoint_a=not adjoint_b, adjoint_b=not adjoint_a)
        return _s.transpose(product, perm=(1, 0))
    dense = as_tensor(b)
    shape = _shape(sp_a)
    if len(shape) != 2 or dense._value.ndim != 2:
        raise InvalidArgumentError(f"Tensor 'a' and 'b' must be matrices: got sparse shape "
                                   f"{list(shape)} and dense shape {list(dense._value.shape)} "
                                   "[Op:SparseTensorDenseMatMul]")
    if sp_a.values._value.dtype != dense._value.dtype:
        raise InvalidArgumentError(f"sparse_dense_matmul: the sparse values are "
                                   f"{sp_a.dtype.name} but the dense matrix is "
                                   f"{dense.dtype.name} [Op:SparseTensorDenseMatMul]")
    ind = sp_a.indices._value
    rows, cols = (ind[:, 1], ind[:, 0]) if adjoint_a else (ind[:, 0], ind[:, 1])
    m, k = shape[::-1] if adjoint_a else shape
    if adjoint_b:
        dense = _s.transpose(dense, perm=(1, 0))
    if dense._value.shape[0] != k:
        raise InvalidArgumentError(
            f"Cannot multiply A and B because inner dimension does not match: {k} vs. "
            f"{dense._value.shape[0]}. Did you forget a transpose? Dimensions of A: "
            f"[{m}, {k}). Dimensions of B: {list(dense._value.shape)} "
            "[Op:SparseTensorDenseMatMul]")
    picked = _s.gather(dense, Tensor(cols), axis=0)
    terms = _m.multiply(_s.reshape(sp_a.values, shape=(ind.shape[0], 1)), picked)
    return _s.scatter_add(terms, Tensor(rows), axis=0, size=m)


def _reduction_groups(sp, axis, keepdims, op_name):
    shape = _shape(sp)
    axes = tuple(builtins.range(len(shape))) if axis is None else tuple(
        normalize_axis(axis, len(shape), op_name, shape))
    kept = [d for d in builtins.range(len(shape)) if d not in axes]
    out_shape = tuple(shape[d] for d in kept)
    lin = _linear(sp.indices._value[:, kept], out_shape)
    final = tuple(1 if d in axes else shape[d] for d in builtins.range(len(shape))) \
        if keepdims else out_shape
    return lin, out_shape, final


def reduce_sum(sp_input, axis=None, keepdims=False, output_is_sparse=False, name=None):
    """Sum over `axis` (all axes when None), as tf.sparse.reduce_sum: a dense
    tensor, or with `output_is_sparse` a SparseTensor of the groups that hold a
    value. Differentiable w.r.t. the values."""
    sp = _sparse(sp_input, "tf.sparse.reduce_sum")
    lin, out_shape, final = _reduction_groups(sp, axis, keepdims, "SparseReduceSum")
    if output_is_sparse:
        cells, where = np.unique(lin, return_inverse=True)
        sums = _s.scatter_add(sp.values, Tensor(where.reshape(-1)), axis=0, size=cells.size)
        return SparseTensor(_unravel(cells, final), sums, final)
    sums = _s.scatter_add(sp.values, Tensor(lin), axis=0, size=_size(out_shape))
    return _s.reshape(sums, shape=final)


def reduce_max(sp_input, axis=None, keepdims=False, output_is_sparse=False, name=None):
    """The maximum of the values present over `axis`, as tf.sparse.reduce_max:
    the implicit zeros take no part, and a group with no value gives 0. Not
    differentiable (TF registers no gradient for it)."""
    sp = _sparse(sp_input, "tf.sparse.reduce_max")
    lin, out_shape, final = _reduction_groups(sp, axis, keepdims, "SparseReduceMax")
    values = sp.values._value
    low = np.finfo(values.dtype).min if values.dtype.kind == "f" else np.iinfo(values.dtype).min
    out = np.full(_size(out_shape), low, values.dtype)
    np.maximum.at(out, lin, values)
    present = np.zeros(out.size, bool)
    present[lin] = True
    if output_is_sparse:
        cells = np.flatnonzero(present)
        return SparseTensor(_unravel(cells, final), Tensor(out[cells]), final)
    out[~present] = 0
    return Tensor(out.reshape(final))


def concat(axis, sp_inputs, expand_nonconcat_dims=False, name=None):
    """Join SparseTensors along `axis`, as tf.sparse.concat; with
    `expand_nonconcat_dims` the other dimensions may differ and take the largest.

    Raises:
        InvalidArgumentError: if the ranks differ, another dimension differs, or
            the dtypes differ.
    """
    sps = [_sparse(sp, "tf.sparse.concat") for sp in sp_inputs]
    shapes = [_shape(sp) for sp in sps]
    rank = len(shapes[0])
    if any(len(s) != rank for s in shapes):
        raise InvalidArgumentError(f"Input shapes must have the same rank: got shapes "
                                   f"{[list(s) for s in shapes]} [Op:SparseConcat]")
    axis = normalize_axis(axis, rank, "SparseConcat", shapes[0])[0]
    out = list(shapes[0])
    for i, s in enumerate(shapes[1:], 1):
        for d in builtins.range(rank):
            if d != axis and s[d] != out[d]:
                if not expand_nonconcat_dims:
                    raise InvalidArgumentError(
                        f"Input shapes must match: expected {out[d]} for dimension {d} but "
                        f"got {s[d]} (shapes[0] = {list(shapes[0])}, shapes[{i}] = "
                        f"{list(s)}) [Op:SparseConcat]")
                out[d] = max(out[d], s[d])
    out[axis] = sum(s[axis] for s in shapes)
    offsets = np.cumsum([0] + [s[axis] for s in shapes[:-1]])
    indices = []
    for sp, offset in zip(sps, offsets):
        ind = sp.indices._value.copy()
        ind[:, axis] += offset
        indices.append(ind)
    values = _s.concat(*[sp.values for sp in sps], axis=0)
    if any(sp.values._value.dtype != values._value.dtype for sp in sps):
        raise InvalidArgumentError("tf.sparse.concat: the values' dtypes differ: "
                                   f"{[sp.dtype.name for sp in sps]} [Op:SparseConcat]")
    return reorder(SparseTensor(np.concatenate(indices), values, out))


def reshape(sp_input, shape, name=None):
    """The same values in a dense shape of as many elements (one entry may be -1),
    as tf.sparse.reshape.

    Raises:
        InvalidArgumentError: if the element counts differ.
    """
    sp = _sparse(sp_input, "tf.sparse.reshape")
    old = _shape(sp)
    target = list(_shape_tuple(shape, "tf.sparse.reshape"))
    known = _size([d for d in target if d != -1])
    if target.count(-1) == 1 and known and _size(old) % known == 0:
        target[target.index(-1)] = _size(old) // known
    if target.count(-1) or _size(target) != _size(old):
        raise InvalidArgumentError(f"Input to reshape is a SparseTensor with {_size(old)} "
                                   f"dense values (shape {list(old)}), but the requested "
                                   f"shape {list(_shape_tuple(shape, 'reshape'))} does not "
                                   f"fit [Op:SparseReshape]")
    lin = _linear(sp.indices._value, old)
    return SparseTensor(_unravel(lin, tuple(target)), sp.values, target)


def retain(sp_input, to_retain):
    """The values where the boolean vector `to_retain` is True, as tf.sparse.retain."""
    sp = _sparse(sp_input, "tf.sparse.retain")
    keep = np.asarray(as_tensor(to_retain)._value)
    if keep.dtype.kind != "b" or keep.shape != sp.values._value.shape:
        raise ValueError(f"tf.sparse.retain: to_retain must be a bool vector of length "
                         f"{sp.values._value.shape[0]}, got {keep.dtype} of shape "
                         f"{list(keep.shape)}.")
    return _pick(sp, np.flatnonzero(keep))


def slice(sp_input, start, size, name=None):  # noqa: A001 -- TF's name
    """The values inside the block [start, start + size), shifted to start at 0,
    as tf.sparse.slice; the block is clipped to the dense shape."""
    sp = _sparse(sp_input, "tf.sparse.slice")
    shape = np.asarray(_shape(sp), np.int64)
    begin = np.asarray(_shape_tuple(start, "tf.sparse.slice"), np.int64)
    count = np.asarray(_shape_tuple(size, "tf.sparse.slice"), np.int64)
    if begin.shape != shape.shape or count.shape != shape.shape:
        raise InvalidArgumentError(f"Expected start and size of length {shape.size} (the "
                                   f"rank), got {begin.tolist()} and {count.tolist()} "
                                   "[Op:SparseSlice]")
    ind = sp.indices._value
    inside = ((ind >= begin) & (ind < begin + count)).all(axis=1)
    rows = np.flatnonzero(inside)
    out_shape = np.maximum(np.minimum(begin + count, shape) - begin, 0)
    return _pick(sp, rows, indices=ind[rows] - begin, dense_shape=out_shape)


def transpose(sp_input, perm=None, name=None):
    """The SparseTensor with its axes permuted (reversed when None), as
    tf.sparse.transpose; the result's indices are in row-major order."""
    sp = _sparse(sp_input, "tf.sparse.transpose")
    shape = _shape(sp)
    perm = tuple(reversed(builtins.range(len(shape)))) if perm is None else \
        _shape_tuple(perm, "tf.sparse.transpose")
    if sorted(perm) != list(builtins.range(len(shape))):
        raise InvalidArgumentError(f"tf.sparse.transpose: perm {list(perm)} is not a "
                                   f"permutation of the {len(shape)} axes [Op:SparseTranspose]")
    moved = SparseTensor(sp.indices._value[:, perm], sp.values, [shape[p] for p in perm])
    return reorder(moved)


def expand_dims(sp_input, axis=None, name=None):
    """A SparseTensor with a new axis of size 1 at `axis`, as tf.sparse.expand_dims."""
    sp = _sparse(sp_input, "tf.sparse.expand_dims")
    shape = _shape(sp)
    axis = -1 if axis is None else int(axis)
    if not -len(shape) - 1 <= axis <= len(shape):
        raise InvalidArgumentError(f"tf.sparse.expand_dims: axis {axis} is out of range for "
                                   f"rank {len(shape)} [Op:SparseExpandDims]")
    axis %= len(shape) + 1
    ind = np.insert(sp.indices._value, axis, 0, axis=1)
    return SparseTensor(ind, sp.values, shape[:axis] + (1,) + shape[axis:])


def map_values(op, *args, **kwargs):
    """`op` applied to the values of the SparseTensors among the arguments (which
    must share their indices and shape), as tf.sparse.map_values.

    Raises:
        ValueError: if no argument is a SparseTensor or their indices differ.
    """
    sparse = [a for a in list(args) + list(kwargs.values()) if isinstance(a, SparseTensor)]
    if not sparse:
        raise ValueError("tf.sparse.map_values: no SparseTensor among the arguments.")
    first = sparse[0]
    for sp in sparse[1:]:
        if _shape(sp) != _shape(first) or not np.array_equal(sp.indices._value,
                                                             first.indices._value):
            raise ValueError("tf.sparse.map_values: all SparseTensors passed must have the "
                             "same indices and dense_shape.")

    def values_of(a):
        return a.values if isinstance(a, SparseTensor) else a

    result = op(*[values_of(a) for a in args], **{k: values_of(v) for k, v in kwargs.items()})
    return first.with_values(result)


def to_indicator(sp_input, vocab_size, name=None):
    """A dense bool tensor of shape dense_shape[:-1] + [vocab_size], True at
    [index[:-1], value] for each value, as tf.sparse.to_indicator."""
    sp = _sparse(sp_input, "tf.sparse.to_indicator")
    ids = sp.values._value
    if ids.dtype.kind not in "iu":
        raise InvalidArgumentError(f"tf.sparse.to_indicator: values must be integer ids, "
                                   f"got {sp.dtype.name}")
    size = int(vocab_size)
    if ids.size and (ids.min() < 0 or ids.max() >= size):
        raise InvalidArgumentError(f"tf.sparse.to_indicator: ids must be in [0, {size}), got "
                                   f"{ids.min()} to {ids.max()}")
    shape = _shape(sp)[:-1] + (size,)
    out = np.zeros(shape, dtypes.bool._np)
    out[tuple(sp.indices._value[:, :-1].T) + (ids,)] = True
    return Tensor(out)
