"""reductions.py: tf.math's reductions (reduce_*, argmax/argmin,
count_nonzero) and scans (cumsum, cumprod): axis and dtype checks, TF's
results for empty and integer inputs, then the primitives of ops/reduce.py.
Elementwise functions and comparisons are the sibling modules'."""

import builtins

import numpy as np

from ..core import dtypes
from ..api.array_ops import cast as _cast
from ..api.dispatch import composite_aware
from ..core.args import normalize_axis
from ..core.errors import InvalidArgumentError
from ..core.record import cut as _cut
from ..core.string_values import refuse_strings
from ..core.tensor import Tensor, as_tensor
from ..ops import math as _m
from ..ops import reduce as _r
from ..ops import shape as _s
from . import comparisons as _comparisons
from ._checks import float_input

__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod",
           "reduce_logsumexp", "reduce_variance", "reduce_std", "reduce_all", "reduce_any",
           "reduce_euclidean_norm", "argmax", "argmin", "count_nonzero", "cumsum", "cumprod"]


def _reduce_args(input_tensor, axis, tf_name, allow_bool=False):
    x = as_tensor(input_tensor)
    if x._value.dtype.kind == "b" and not allow_bool:
        raise TypeError(f"{tf_name} is not defined for bool tensors; cast first.")
    try:  # the shape only for the message: a traced step may not read a value-shaped one
        return x, normalize_axis(axis, x._value.ndim, tf_name)
    except InvalidArgumentError:
        return x, normalize_axis(axis, x._value.ndim, tf_name, x._value.shape)


def reduce_sum(input_tensor, axis=None, keepdims=False, name=None):
    """Sum over `axis` (all axes when None); the dtype is kept, as tf.reduce_sum.

    Raises:
        InvalidArgumentError: for an axis outside the tensor's rank.
    """
    x, axes = _reduce_args(input_tensor, axis, "Sum")
    return _r.reduce_sum(x, axis=axes, keepdims=builtins.bool(keepdims))


def reduce_mean(input_tensor, axis=None, keepdims=False, name=None):
    """Mean over `axis`; integer tensors give the truncated integer mean, as TF."""
    x, axes = _reduce_args(input_tensor, axis, "Mean")
    keepdims = builtins.bool(keepdims)
    if x._value.dtype.kind in "iu":
        total = np.sum(x._value, axis=axes, keepdims=keepdims, dtype=np.int64)
        count = max(_r._count(x._value.shape, axes), 1)
        mean = np.sign(total) * (np.abs(total) // count)
        return Tensor(np.asarray(mean).astype(x._value.dtype))
    return _r.reduce_mean(x, axis=axes, keepdims=keepdims)


def _extremum(op, tf_name):
    def apply(input_tensor, axis=None, keepdims=False, name=None):
        x, axes = _reduce_args(input_tensor, axis, tf_name, allow_bool=True)
        # An empty input goes through the op too (TF: -inf for a float max, +inf for a
        # min, and an empty gradient, not None).
        return op(x, axis=axes, keepdims=builtins.bool(keepdims))
    apply.__name__ = op.name
    apply.__doc__ = (f"{op.name} over `axis`; tied entries share the gradient evenly, as "
                     f"TF.\n\nRaises:\n    InvalidArgumentError: for an invalid axis.\n")
    return apply


reduce_max = _extremum(_r.reduce_max, "Max")
reduce_min = _extremum(_r.reduce_min, "Min")


def reduce_prod(input_tensor, axis=None, keepdims=False, name=None):
    """Product over `axis`; the gradient is exact when entries are zero."""
    x, axes = _reduce_args(input_tensor, axis, "Prod")
    return _r.reduce_prod(x, axis=axes, keepdims=builtins.bool(keepdims))


def reduce_logsumexp(input_tensor, axis=None, keepdims=False, name=None):
    """log(sum(exp(x))) over `axis`, computed stably (the max is subtracted first)."""
    x = float_input(input_tensor, "ReduceLogSumExp")
    axes = normalize_axis(axis, x._value.ndim, "ReduceLogSumExp", x._value.shape)
    top = np.max(x._value, axis=axes, keepdims=True, initial=-np.inf)
    top = Tensor(np.where(np.isfinite(top), top, 0).astype(x._value.dtype))  # a constant
    summed = _r.reduce_sum(_m.exp(_m.subtract(x, top)), axis=axes, keepdims=True)
    # An empty sum's log is -inf, TF's result, which it gives without NumPy's warning.
    if x._value.size == 0:
        with np.errstate(divide="ignore"):
            result = _m.add(_m.log(summed), top)
    else:
        result = _m.add(_m.log(summed), top)
    if not keepdims:
        shape = x._value.shape
        result = _s.reshape(result, shape=() if axes is None else tuple(
            d for i, d in enumerate(shape) if i not in axes))
    return result


def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The (biased) variance over `axis`: mean of squared deviations from the mean."""
    x = float_input(input_tensor, "ReduceVariance")
    axes = normalize_axis(axis, x._value.ndim, "ReduceVariance", x._value.shape)
    mean = _r.reduce_mean(x, axis=axes, keepdims=True)
    return _r.reduce_mean(_m.square(_m.subtract(x, mean)), axis=axes,
                          keepdims=builtins.bool(keepdims))


def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(reduce_variance); its gradient is infinite where the variance is 0, as TF."""
    return _m.sqrt(reduce_variance(input_tensor, axis, keepdims))


def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x ** 2)) over `axis`."""
    x = float_input(input_tensor, "EuclideanNorm")
    axes = normalize_axis(axis, x._value.ndim, "EuclideanNorm", x._value.shape)
    return _m.sqrt(_r.reduce_sum(_m.square(x), axis=axes, keepdims=builtins.bool(keepdims)))


_UINT8, _BOOL = np.dtype(np.uint8), np.dtype(np.bool_)


def _logical_reduction(extremum, np_name, tf_name):
    def apply(input_tensor, axis=None, keepdims=False, name=None):
        x = as_tensor(input_tensor)
        if x._value.dtype.kind != "b":
            raise TypeError(f"{tf_name} needs a bool tensor, got {x.dtype.name}; compare or "
                            "cast first.")
        axes = normalize_axis(axis, x._value.ndim, tf_name, x._value.shape)
        # The max (any) or min (all) of 0/1 bytes, with ops, so that a traced
        # function replays it (an empty axis gives False / True, as TF).
        flags = extremum(_m.cast(x, dtype=_UINT8), axis=axes, keepdims=builtins.bool(keepdims))
        return _m.cast(flags, dtype=_BOOL)
    apply.__name__ = np_name
    apply.__doc__ = f"Logical {np_name} over `axis` (not differentiable)."
    return apply


reduce_all = _logical_reduction(_r.reduce_min, "all", "All")
reduce_any = _logical_reduction(_r.reduce_max, "any", "Any")


def _single_axis(x, axis, tf_name):
    if x._value.ndim == 0:
        raise InvalidArgumentError(f"{tf_name}: expected a tensor of rank >= 1, got a scalar.")
    return normalize_axis(int(axis), x._value.ndim, tf_name, x._value.shape)[0]


def _index_reduction(np_fn, tf_name):
    def apply(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
        x = refuse_strings(as_tensor(input), tf_name)
        out = dtypes.as_dtype(output_type)
        if out not in (dtypes.int32, dtypes.int64):
            raise TypeError(f"{tf_name}: output_type must be int32 or int64, got {out.name}.")
        a = _single_axis(x, 0 if axis is None else axis, tf_name)
        if x._value.shape[a] == 0:
            raise InvalidArgumentError(f"{tf_name}: reduction axis {a} of shape "
                                       f"{list(x._value.shape)} is empty.")
        return _cut(np_fn.__name__, (x,),
                    Tensor(np.asarray(np_fn(x._value, axis=a)).astype(out._np)))
    apply.__name__ = np_fn.__name__
    apply.__doc__ = (f"Index of the {np_fn.__name__[3:]} along `axis` (default 0), as int64 "
                     "(or `output_type`); not differentiable.")
    return apply


argmax = _index_reduction(np.argmax, "ArgMax")
argmin = _index_reduction(np.argmin, "ArgMin")


def count_nonzero(input, axis=None, keepdims=None, dtype=dtypes.int64, name=None):  # noqa: A002
    """The number of nonzero entries over `axis`, as int64 (or `dtype`).

    Computed as TF does, not_equal to zero, cast to int64, summed, cast to `dtype`
    (ops, so a traced step replays it); strings count the non-empty ones."""
    x = as_tensor(input)
    axes = normalize_axis(axis, x._value.ndim, "count_nonzero", x._value.shape)
    zero = Tensor(np.asarray(b"" if x._value.dtype.kind == "O" else 0, x._value.dtype))
    nonzero = _cast(_comparisons.not_equal(x, zero), dtypes.int64)
    counts = _r.reduce_sum(nonzero, axis=axes, keepdims=builtins.bool(keepdims))
    return _cast(counts, dtype)


def _scan(op, tf_name):
    def apply(x, axis=0, exclusive=False, reverse=False, name=None):
        x = as_tensor(x)
        if x._value.dtype.kind == "b":
            raise TypeError(f"{tf_name} is not defined for bool tensors; cast first.")
        a = _single_axis(x, axis, tf_name)
        return op(x, axis=a, exclusive=builtins.bool(exclusive), reverse=builtins.bool(reverse))
    apply.__name__ = op.name
    apply.__doc__ = (f"Cumulative {op.name[3:]} along `axis`; `exclusive` leaves out each "
                     "entry itself, `reverse` runs from the end, as TF.")
    return apply


cumsum = _scan(_r.cumsum, "Cumsum")
cumprod = _scan(_r.cumprod, "Cumprod")


# RaggedTensors reduce row by row (tf.ragged registers them in api/dispatch.py).
reduce_sum = composite_aware(reduce_sum, "reduce_sum")
reduce_mean = composite_aware(reduce_mean, "reduce_mean")
reduce_max = composite_aware(reduce_max, "reduce_max")
reduce_min = composite_aware(reduce_min, "reduce_min")
