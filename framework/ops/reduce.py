"""reduce.py: reductions over axes and cumulative sums/products. `axis` is
always a tuple of non-negative ints or None here (the public wrappers in
framework/math/reductions.py normalise and check it). Each VJP broadcasts the cotangent
back over the reduced axes, keeping any leading batch axes."""

import warnings

import numpy as np

from ..core.tensor import Tensor
from .math import add, divide, mask_of, multiply
from .registry import defop
from .shape import broadcast_to, reshape, transpose

__all__ = ["reduce_sum", "reduce_mean", "reduce_max", "reduce_min", "reduce_prod", "cumsum",
           "cumprod"]


def _kept_shape(shape, axis):
    """`shape` with the reduced axes set to 1 (keepdims=True)."""
    if axis is None:
        return (1,) * len(shape)
    return tuple(1 if i in axis else d for i, d in enumerate(shape))


def _expand_back(g, out, x, axis):
    """The cotangent `g` of a reduction, broadcast back to `x`'s shape."""
    nb = g._value.ndim - out._value.ndim
    batch = g._value.shape[:nb]
    g = reshape(g, shape=batch + _kept_shape(x._value.shape, axis))
    return broadcast_to(g, shape=batch + x._value.shape)


@defop
def reduce_sum(x, axis=None, keepdims=False):
    # dtype=x.dtype: NumPy would widen int32 sums to int64; TF keeps the dtype.
    return np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


@reduce_sum.defvjp
def reduce_sum_vjp(g, out, x, axis=None, keepdims=False):
    return _expand_back(g, out, x, axis)


def _count(shape, axis):
    if axis is None:
        return int(np.prod(shape, dtype=np.int64))
    return int(np.prod([shape[a] for a in axis], dtype=np.int64))


@defop
def reduce_mean(x, axis=None, keepdims=False):
    if x.size == 0:
        return _mean_of_empty(x, axis, keepdims)
    return np.mean(x, axis=axis, keepdims=keepdims)


def _mean_of_empty(x, axis, keepdims):
    """The mean over an empty axis: nan (0 / 0), which TF returns without a word and
    NumPy with a RuntimeWarning."""
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.mean(x, axis=axis, keepdims=keepdims)


@reduce_mean.defvjp
def reduce_mean_vjp(g, out, x, axis=None, keepdims=False):
    count = Tensor(np.asarray(max(_count(x._value.shape, axis), 1), x._value.dtype))
    return divide(_expand_back(g, out, x, axis), count)


def _extremum_vjp(g, out, x, axis):
    # TF splits the gradient evenly between tied extreme entries.
    at_extreme = x._value == np.reshape(out._value, _kept_shape(x._value.shape, axis))
    share = at_extreme / np.sum(at_extreme, axis=axis, keepdims=True)
    return multiply(_expand_back(g, out, x, axis), mask_of(share, x))


def _extremum_of_empty(np_fn, x, axis, keepdims, lowest):
    """np.max/np.min over an empty axis, as TF: the reduction's identity, -inf for
    a float max (+inf for min), the dtype's lowest (highest) int, False (True) for bool."""
    kind = x.dtype.kind
    if kind == "f":
        start = -np.inf if lowest else np.inf
    elif kind == "b":
        start = not lowest
    else:
        info = np.iinfo(x.dtype)
        start = info.min if lowest else info.max
    return np.asarray(np_fn(x, axis=axis, keepdims=keepdims, initial=start))


@defop
def reduce_max(x, axis=None, keepdims=False):
    try:
        return np.max(x, axis=axis, keepdims=keepdims)
    except ValueError:  # NumPy refuses an empty axis (no identity); TF gives -inf
        return _extremum_of_empty(np.max, x, axis, keepdims, lowest=True)


@reduce_max.defvjp
def reduce_max_vjp(g, out, x, axis=None, keepdims=False):
    return _extremum_vjp(g, out, x, axis)


@defop
def reduce_min(x, axis=None, keepdims=False):
    try:
        return np.min(x, axis=axis, keepdims=keepdims)
    except ValueError:  # an empty axis: +inf, as TF
        return _extremum_of_empty(np.min, x, axis, keepdims, lowest=False)


@reduce_min.defvjp
def reduce_min_vjp(g, out, x, axis=None, keepdims=False):
    return _extremum_vjp(g, out, x, axis)


@defop
def reduce_prod(x, axis=None, keepdims=False):
    return np.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype)


def _product_of_others(x, axis):
    """For each entry, the product of the other entries of its reduced group.

    TF's construction: the reduced axes are moved to the front and flattened,
    and the exclusive cumulative products from both ends are multiplied. No
    division, so zeros in `x` are handled exactly.
    """
    shape = x._value.shape
    reduced = tuple(range(len(shape))) if axis is None else axis
    other = tuple(i for i in range(len(shape)) if i not in reduced)
    perm = reduced + other
    permuted_shape = tuple(shape[i] for i in perm)
    n = _count(shape, reduced)
    flat = reshape(transpose(x, perm=perm), shape=(n, -1) if n else (0, _count(shape, other)))
    left = cumprod(flat, axis=0, exclusive=True, reverse=False)
    right = cumprod(flat, axis=0, exclusive=True, reverse=True)
    others = reshape(multiply(left, right), shape=permuted_shape)
    return transpose(others, perm=tuple(int(i) for i in np.argsort(perm)))


@reduce_prod.defvjp
def reduce_prod_vjp(g, out, x, axis=None, keepdims=False):
    return multiply(_expand_back(g, out, x, axis), _product_of_others(x, axis))


def _reverse(a, axis, reverse):
    return np.flip(a, axis) if reverse else a


def _shift_exclusive(a, axis, identity):
    """Shift `a` by one along `axis`, filling with `identity` (exclusive scans)."""
    pad = [(0, 0)] * a.ndim
    pad[axis] = (1, 0)
    index = [slice(None)] * a.ndim
    index[axis] = slice(0, a.shape[axis])
    return np.pad(a, pad, constant_values=identity)[tuple(index)]


def _scan(ufunc, identity, x, axis, exclusive, reverse):
    a = _reverse(x, axis, reverse)
    if exclusive:
        a = _shift_exclusive(a, axis, identity)
    result = ufunc.accumulate(a, axis=axis, dtype=x.dtype)
    return np.ascontiguousarray(_reverse(result, axis, reverse))


@defop
def cumsum(x, axis=0, exclusive=False, reverse=False):
    return _scan(np.add, 0, x, axis, exclusive, reverse)


@cumsum.defvjp
def cumsum_vjp(g, out, x, axis=0, exclusive=False, reverse=False):
    nb = g._value.ndim - out._value.ndim
    return cumsum(g, axis=axis + nb, exclusive=exclusive, reverse=not reverse)


@defop
def cumprod(x, axis=0, exclusive=False, reverse=False):
    return _scan(np.multiply, 1, x, axis, exclusive, reverse)


@cumprod.defvjp
def cumprod_vjp(g, out, x, axis=0, exclusive=False, reverse=False):
    # TF's rule: cumsum(out * g, reversed) / x, with 0 where x == 0. Exact when x
    # has no zeros (reduce_prod's first-order gradient does not go through here).
    nb = g._value.ndim - out._value.ndim
    summed = cumsum(multiply(out, g), axis=axis + nb, exclusive=exclusive,
                    reverse=not reverse)
    zero = x._value == 0
    safe_x = add(x, mask_of(zero, x))
    return multiply(divide(summed, safe_x), mask_of(~zero, x))
