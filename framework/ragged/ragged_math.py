"""ragged_math.py holds what tf.math and tf.nn do to a RaggedTensor, as TF's
ragged dispatch computes it: the reductions (sum, mean, max, min) as segment
reductions of the flat values by row, differentiable through scatter-add and
the min/max scatter; elementwise functions on the flat values; embedding
lookups of ragged ids. They are registered in api/dispatch.py ("reduce_sum",
..., "elementwise", "embedding_lookup") for tf.math and tf.nn to call when
handed a RaggedTensor."""

import numpy as np

from ..api import array_ops as _array_ops
from ..api import dispatch as _dispatch
from ..api import indexing_ops as _indexing_ops
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ..math import reductions as _dense
from ..ops import scatter as _sc
from ..ops import shape as _s
from .ragged_indexing import apply_elementwise
from .ragged_tensor import RaggedTensor

__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "elementwise",
           "embedding_lookup"]


def _segments(rt, axis, op_name):
    """(flat values, segment of each, number of segments, rebuild) for `axis`:
    rebuild turns the (segments, ...) result into the reduced tensor."""
    k = rt.ragged_rank
    axis = _array_ops._axis(axis, rt.ndim, op_name)
    flat = rt.flat_values
    if axis > k:  # a uniform inner dimension: reduce the flat values directly
        return flat, None, axis - k, rt.with_flat_values
    nested = [rt]
    while isinstance(nested[-1].values, RaggedTensor):
        nested.append(nested[-1].values)
    if axis == 0 and k == 1:
        ids = np.arange(flat._value.shape[0]) - np.repeat(rt._splits[:-1], np.diff(rt._splits))
        size = int(np.diff(rt._splits).max()) if rt.nrows_int() else 0
        return flat, ids, size, lambda reduced: reduced
    if axis != k:
        raise NotImplementedError(f"{op_name} of a RaggedTensor of shape {rt.shape}: tapeflow "
                                  f"reduces the innermost ragged axis ({k}), the uniform axes "
                                  f"and, for 2-D, axis 0; got axis {axis}.")
    inner = nested[-1]
    ids = inner.value_rowids()._value
    splits = [n._splits for n in nested[:-1]]

    def rebuild(reduced):
        return RaggedTensor.from_nested_row_splits(reduced, splits) if splits else reduced

    return flat, ids, inner.nrows_int(), rebuild


def _reduce(rt, axis, op_name, segment, dense):
    if axis is None:
        return dense(rt.flat_values, None)
    flat, ids, size, rebuild = _segments(rt, axis, op_name)
    if ids is None:
        return rebuild(dense(flat, size))
    return rebuild(segment(flat, ids, size))


def _check(rt, keepdims, op_name):
    if keepdims:
        raise NotImplementedError(f"{op_name} of a RaggedTensor with keepdims=True is not "
                                  f"supported by tapeflow.")
    if rt.flat_values._value.dtype.kind not in "iuf":
        raise InvalidArgumentError(f"{op_name} of a RaggedTensor of {rt.dtype.name} values is "
                                   "not defined.")


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """Sum of a RaggedTensor over `axis`, as tf.reduce_sum; empty rows give 0."""
    _check(input_tensor, keepdims, "reduce_sum")
    return _reduce(input_tensor, axis, "reduce_sum",
                   lambda v, ids, n: _s.scatter_add(v, Tensor(ids), axis=0, size=n),
                   _dense.reduce_sum)


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """Mean of a RaggedTensor over `axis`, as TF's ragged reduce_mean: the sum
    divided by the count (true division: integer values give floats, an empty
    row NaN)."""
    total = reduce_sum(input_tensor, axis, keepdims)
    ones = input_tensor.with_flat_values(Tensor(np.ones_like(input_tensor.flat_values._value)))
    count = reduce_sum(ones, axis, keepdims)
    with np.errstate(invalid="ignore", divide="ignore"):
        if isinstance(total, RaggedTensor):
            return total.with_flat_values(total.flat_values / count.flat_values)
        return total / count


def _extremum(mode, op_name):
    def reduce(input_tensor, axis=None, keepdims=False, name=None):
        _check(input_tensor, keepdims, op_name)

        def segment(v, ids, n):
            dtype = v._value.dtype
            info = np.finfo(dtype) if dtype.kind == "f" else np.iinfo(dtype)
            empty = -np.inf if dtype.kind == "f" and mode == "max" else np.inf \
                if dtype.kind == "f" else (info.min if mode == "max" else info.max)
            start = Tensor(np.full((n,) + v._value.shape[1:], empty, dtype))
            return _sc.scatter_extremum(start, v, lin=ids.astype(np.int64), mode=mode)

        return _reduce(input_tensor, axis, op_name, segment, getattr(_dense, op_name))

    reduce.__name__ = op_name
    reduce.__doc__ = (f"{op_name} of a RaggedTensor over `axis`; an empty row gives the "
                      f"dtype's {'lowest' if mode == 'max' else 'highest'} value, as TF's "
                      f"unsorted_segment_{mode}.")
    return reduce


reduce_max = _extremum("max", "reduce_max")
reduce_min = _extremum("min", "reduce_min")


def elementwise(fn, *args, **kwargs):
    """`fn(*args)` for an elementwise tf.math function `fn` with a RaggedTensor
    among `args`: applied to the flat values, the other arguments matched to
    them (scalars, a RaggedTensor of the same partition, dense broadcasting)."""
    position = next(i for i, a in enumerate(args) if isinstance(a, RaggedTensor))
    rt = args[position]
    if len(args) == 1:
        return rt.with_flat_values(fn(rt.flat_values, **kwargs))
    if len(args) != 2:
        raise NotImplementedError(f"{getattr(fn, '__name__', fn)} of a RaggedTensor with "
                                  f"{len(args)} arguments is not supported by tapeflow.")
    other = args[1 - position]
    if position == 0:
        return apply_elementwise(lambda a, b: fn(a, b, **kwargs), rt, other)
    return apply_elementwise(lambda a, b: fn(b, a, **kwargs), rt, other)


def embedding_lookup(params, ids, max_norm=None, name=None):
    """tf.nn.embedding_lookup with ragged `ids`: a RaggedTensor of the rows of
    `params`, one per id (a gather: gradients reach params)."""
    if max_norm is not None:
        raise NotImplementedError("embedding_lookup of ragged ids with max_norm is not "
                                  "supported by tapeflow.")
    return ids.with_flat_values(_indexing_ops.gather(params, ids.flat_values))


_dispatch.register("elementwise", RaggedTensor, elementwise)
_dispatch.register("embedding_lookup", RaggedTensor, embedding_lookup)
for _name, _fn in (("reduce_sum", reduce_sum), ("reduce_mean", reduce_mean),
                   ("reduce_max", reduce_max), ("reduce_min", reduce_min)):
    _dispatch.register(_name, RaggedTensor, _fn)
