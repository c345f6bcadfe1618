"""shape.py: primitives that move values without arithmetic -- reshape,
transpose, broadcasting and its inverse, concatenation, indexing with its
scatter, and gather with its scatter-add (a Numba kernel). Each VJP keeps any
leading batch-of-cotangent axes in place. Argument checks live in api/array_ops.py."""


import numpy as np

from ..core.errors import InvalidArgumentError
from ..runtime import kernel_start
from .registry import defop

__all__ = ["reshape", "transpose", "broadcast_to", "unbroadcast", "getitem", "scatter_into",
           "concat", "gather", "scatter_add"]


def _batch_ndim(g, out):
    return g._value.ndim - out._value.ndim


@defop(view=True)
def reshape(x, shape):
    return np.reshape(x, shape)


@reshape.defvjp
def reshape_vjp(g, out, x, shape):
    return reshape(g, shape=g._value.shape[:_batch_ndim(g, out)] + x._value.shape)


@defop(view=True)
def transpose(x, perm):
    return np.transpose(x, perm)


@transpose.defvjp
def transpose_vjp(g, out, x, perm):
    nb = _batch_ndim(g, out)
    inverse = tuple(int(i) + nb for i in np.argsort(perm))
    return transpose(g, perm=tuple(range(nb)) + inverse)


@defop(view=True)
def broadcast_to(x, shape):
    return np.broadcast_to(x, shape)


@broadcast_to.defvjp
def broadcast_to_vjp(g, out, x, shape):
    return unbroadcast(g, shape=x._value.shape, batch_ndim=_batch_ndim(g, out))


def _unbroadcast_axes(g_shape, shape, batch_ndim):
    lead = len(g_shape) - batch_ndim - len(shape)
    axes = list(range(batch_ndim, batch_ndim + lead))
    for i, d in enumerate(shape):
        axis = batch_ndim + lead + i
        if d == 1 and g_shape[axis] != 1:
            axes.append(axis)
    return tuple(axes), lead


@defop
def unbroadcast(g, shape, batch_ndim=0):
    """Sum `g` back to `shape`: the inverse of broadcasting `shape` to `g`'s shape.

    The first `batch_ndim` axes of `g` (a batch of cotangents) are kept.
    """
    axes, lead = _unbroadcast_axes(g.shape, shape, batch_ndim)
    if not axes:
        return np.reshape(g, g.shape[:batch_ndim] + tuple(shape))
    if not batch_ndim and len(axes) == lead and g.dtype.kind == "f" and g.flags.c_contiguous:
        # Only leading axes summed (a bias gradient): one BLAS product with a ones
        # vector is ~5x faster than NumPy's reduction over several axes.
        columns = int(np.prod(g.shape[lead:], dtype=np.int64))
        if columns:  # else reshape(-1, 0) cannot infer -1: a size-0 `shape` takes np.sum
            rows = g.reshape(-1, columns)
            return (np.ones(rows.shape[0], g.dtype) @ rows).reshape(tuple(shape))
    return np.reshape(np.sum(g, axis=axes, keepdims=True), g.shape[:batch_ndim] + tuple(shape))


@unbroadcast.defvjp
def unbroadcast_vjp(g, out, x, shape, batch_ndim=0):
    nb = _batch_ndim(g, out)
    inner = out._value.shape[batch_ndim:]
    _, lead = _unbroadcast_axes(x._value.shape, inner, batch_ndim)
    keep = g._value.shape[:nb + batch_ndim]
    expanded = reshape(g, shape=keep + (1,) * lead + inner)
    return broadcast_to(expanded, shape=g._value.shape[:nb] + x._value.shape)


def _is_array(k):
    return isinstance(k, np.ndarray)


def _is_basic(key):
    return not any(_is_array(k) for k in key)


def _separated_advanced(key):
    """True when NumPy moves the advanced-index axes to the front of the result:
    the array indices of `key` (and, beside them, its ints) are not adjacent."""
    if _is_basic(key):
        return False
    positions = [i for i, k in enumerate(key) if _is_array(k) or isinstance(k, (int, np.integer))]
    return positions[-1] - positions[0] + 1 != len(positions)


def _advanced_ndim(key):
    return len(np.broadcast_shapes(*[k.shape for k in key if _is_array(k)]))


def _index(x, key, batch_ndim):
    """`x[key]` applied behind `batch_ndim` leading axes, which stay in front."""
    out = x[(slice(None),) * batch_ndim + key]
    if batch_ndim and _separated_advanced(key):
        # NumPy put the broadcast index axes before the batch axes: swap them back.
        n = _advanced_ndim(key)
        out = np.moveaxis(out, tuple(range(n, n + batch_ndim)), tuple(range(batch_ndim)))
    return out


@defop(view=True)
def getitem(x, key, batch_ndim=0):
    """`x[key]` (NumPy rules) behind `batch_ndim` untouched leading axes."""
    return _index(x, key, batch_ndim)


def _reorders_only(key):
    """True when `key` only reverses or keeps whole axes (`x[:, ::-1]`, a
    backward recurrent layer's input): x[key] then holds every element of x
    once, and indexing with the same key puts them back."""
    return all(k is Ellipsis or (type(k) is slice and k.start is None and k.stop is None
                                 and k.step in (None, 1, -1)) for k in key)


@getitem.defvjp
def getitem_vjp(g, out, x, key, batch_ndim=0):
    nb = _batch_ndim(g, out)
    if key and _reorders_only(key):  # g[key], a view, not zeros scattered into
        # (W8's IMDB: two 0.47 ms ops gone; the directions' gradients' sum then reads a
        # reversed operand, 0.7 -> 1.5 ms; x[()] keeps scatter_into's 0-d array)
        return getitem(g, key=key, batch_ndim=nb + batch_ndim)
    return scatter_into(g, key=key, shape=g._value.shape[:nb] + x._value.shape,
                        batch_ndim=nb + batch_ndim)


@defop
def scatter_into(g, key, shape, batch_ndim=0):
    """Zeros of `shape` with `g` added at `key` (behind `batch_ndim` axes);
    repeated indices accumulate."""
    result = np.zeros(shape, dtype=g.dtype)
    full_key = (slice(None),) * batch_ndim + key
    if _is_basic(key):
        result[full_key] = g
        return result
    if batch_ndim and _separated_advanced(key):
        n = _advanced_ndim(key)
        g = np.moveaxis(g, tuple(range(batch_ndim)), tuple(range(n, n + batch_ndim)))
    np.add.at(result, full_key, g)
    return result


@scatter_into.defvjp
def scatter_into_vjp(g, out, x, key, shape, batch_ndim=0):
    nb = _batch_ndim(g, out)
    return getitem(g, key=key, batch_ndim=nb + batch_ndim)


@defop
def concat(*xs, axis):
    """NumPy's concatenate of any number of inputs along `axis`."""
    return np.concatenate(xs, axis=axis)


def _concat_vjp(j, g, out, *xs, axis):
    nb = _batch_ndim(g, out)
    start = sum(x._value.shape[axis] for x in xs[:j])
    key = (slice(None),) * axis + (slice(start, start + xs[j]._value.shape[axis]),)
    return getitem(g, key=key, batch_ndim=nb)


# A variadic op has one VJP per input position, however many inputs a call has.
concat.defvjp_variadic(_concat_vjp)


def _take(x, indices, axis):
    """np.take, with zeros where an index is negative (scatter_add drops those)."""
    if indices.size and indices.min() < 0:
        valid = indices >= 0
        out = np.take(x, np.where(valid, indices, 0), axis=axis)
        shape = (1,) * axis + valid.shape + (1,) * (x.ndim - axis - 1)
        return out * valid.reshape(shape)
    return np.take(x, indices, axis=axis)


def check_range(indices, limit, op_name):
    """TF's kernel check of gather-like indices: InvalidArgumentError naming the first
    index outside [0, limit)."""
    bad = (indices < 0) | (indices >= limit)
    if bad.any():
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidArgumentError(f"indices[{','.join(map(str, where))}] = {indices[where]} "
                                   f"is not in [0, {limit}) [Op:{op_name}]")


@defop
def gather(x, indices, axis, check=None):
    """`x` indexed by the int array `indices` along `axis`. `check`: the TF op name
    whose range check runs here, inside the op, so that a traced call checks every
    batch's indices (None: the caller checked them)."""
    if check is not None:
        check_range(indices, x.shape[axis], check)
    return _take(x, indices, axis)


def _gather_vjp(g, out, x, indices, axis, check=None):
    nb = _batch_ndim(g, out)
    return scatter_add(g, indices, axis=axis + nb, size=x._value.shape[axis])


gather.defvjp(_gather_vjp, lambda g, out, x, indices, axis, check=None: None)


@defop
def scatter_add(g, indices, axis, size):
    """The adjoint of gather: zeros with `size` entries on `axis`, and each slice of
    `g` along the `indices.ndim` axes from `axis` added at its index. Repeated indices
    accumulate; negative ones are dropped (TF's unsorted_segment_sum)."""
    k = indices.ndim
    pre, post = g.shape[:axis], g.shape[axis + k:]
    n = indices.size
    if n == 0:  # no index: all zeros (and reshape(0, -1) below could not infer -1)
        return np.zeros(pre + (size,) + post, g.dtype)
    # Bring the index axes to the front, so that every case is the embedding case:
    # rows of a (n, everything else) matrix added into rows of a (size, ...) one.
    rows = np.moveaxis(g.reshape(pre + (n,) + post), len(pre), 0)
    rows = np.ascontiguousarray(rows.reshape(n, -1))
    result = np.zeros((size, rows.shape[1]), dtype=g.dtype)
    ids = np.ascontiguousarray(indices.reshape(-1), dtype=np.int64)
    if result.dtype.kind in "fiu" and result.dtype.itemsize >= 4 and \
            kernel_start.use_kernel(rows.size):
        from ..kernels import gather as _k
        _k.embedding_scatter_add(result, ids, rows)
    else:  # the kernel's sums: each row added in order, ids out of range dropped
        keep = (ids >= 0) & (ids < size)
        np.add.at(result, ids[keep], rows[keep])
    result = result.reshape((size,) + pre + post)
    return np.moveaxis(result, 0, len(pre))


def _scatter_add_vjp(g, out, x, indices, axis, size):
    nb = _batch_ndim(g, out)
    return gather(g, indices, axis=axis + nb)


scatter_add.defvjp(_scatter_add_vjp, lambda g, out, x, indices, axis, size: None)
