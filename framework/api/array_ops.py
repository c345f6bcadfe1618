"""array_ops.py is the public API for creating tensors, changing their shape
(`tf.reshape`, `tf.concat`, `tf.pad`, ...); picking elements out is indexing_ops.py.
The primitives and their VJPs live in ops/shape.py; this module checks the
arguments, raises TF's errors, and composes the rest from those primitives."""

import builtins

import numpy as np

from ..core import dtypes
from ..core.args import normalize_axis
from ..core.errors import InvalidArgumentError
from ..core.record import cut as _cut
from ..core.string_values import OBJECT as _OBJECT
from ..ops import math as _m
from ..ops import shape as _s
from . import dispatch as _dispatch
from ..core.tensor import Tensor, as_tensor, convert_to_tensor

__all__ = ["reshape", "transpose", "expand_dims", "squeeze", "broadcast_to", "cast",
           "identity", "stop_gradient", "ones", "zeros", "ones_like", "zeros_like", "fill",
           "range", "shape", "size", "rank", "concat", "stack", "unstack", "split", "tile",
           "pad", "reverse", "roll"]


def _shape_tuple(shape, what):
    if isinstance(shape, Tensor):
        shape = shape._value.tolist()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    try:
        return tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        raise TypeError(f"{what}: shape must be a list of ints, got {shape!r}.") from None


def reshape(tensor, shape, name=None):
    """Reshape to `shape` (one entry may be -1), as tf.reshape.

    Raises:
        InvalidArgumentError: if the element counts differ.
    """
    if _dispatch.for_value("reshape", shape):
        return _dispatch.for_value("reshape", shape)(tensor, shape)
    x = as_tensor(tensor)
    target = _shape_tuple(shape, "reshape")
    size = x._value.size
    if target.count(-1) > 1:
        raise InvalidArgumentError(f"reshape: only one dimension can be -1, got {list(target)}.")
    if -1 in target:
        known = int(np.prod([d for d in target if d != -1], dtype=np.int64))
        if known == 0 and size == 0:  # any size fits -1: TF refuses to guess
            raise InvalidArgumentError(
                f"reshape: cannot infer the missing input size for an empty tensor (shape "
                f"{list(x._value.shape)}) unless all specified input sizes are non-zero, got "
                f"{list(target)}.")
        if known == 0 or size % known:
            raise InvalidArgumentError(f"reshape: cannot reshape a tensor with {size} elements "
                                       f"(shape {list(x._value.shape)}) to {list(target)}.")
        target = tuple(size // known if d == -1 else d for d in target)
    elif int(np.prod(target, dtype=np.int64)) != size:
        raise InvalidArgumentError(f"Input to reshape is a tensor with {size} values (shape "
                                   f"{list(x._value.shape)}), but the requested shape "
                                   f"{list(target)} has {int(np.prod(target, dtype=np.int64))}.")
    return _s.reshape(x, shape=target)


def transpose(a, perm=None, conjugate=False, name=None):
    """Permute the axes (reverse them when `perm` is None), as tf.transpose."""
    x = as_tensor(a)
    ndim = x._value.ndim
    perm = tuple(reversed(builtins.range(ndim))) if perm is None else _shape_tuple(perm,
                                                                                 "transpose")
    if sorted(p % ndim if ndim else p for p in perm) != list(builtins.range(ndim)) or \
            any(not -ndim <= p < ndim for p in perm):
        raise InvalidArgumentError(f"transpose: perm {list(perm)} is not a permutation of the "
                                   f"{ndim} axes of a tensor of shape {list(x._value.shape)}.")
    return _s.transpose(x, perm=tuple(p % ndim for p in perm))


def expand_dims(input, axis, name=None):  # noqa: A002 -- TF's name
    x = as_tensor(input)
    ndim = x._value.ndim
    axis = int(axis)
    if not -ndim - 1 <= axis <= ndim:
        raise InvalidArgumentError(f"expand_dims: axis {axis} is out of range for a tensor of "
                                   f"rank {ndim}; it must be in [{-ndim - 1}, {ndim}].")
    axis = axis % (ndim + 1)
    shape = x._value.shape
    return _s.reshape(x, shape=shape[:axis] + (1,) + shape[axis:])


def squeeze(input, axis=None, name=None):  # noqa: A002
    x = as_tensor(input)
    shape = x._value.shape
    if axis is None:
        axes = [i for i, d in enumerate(shape) if d == 1]
    else:
        axes = normalize_axis(axis, len(shape), "squeeze", shape)
        for a in axes:
            if shape[a] != 1:
                raise InvalidArgumentError(f"squeeze: cannot squeeze axis {a} of size "
                                           f"{shape[a]} in shape {list(shape)}.")
    return _s.reshape(x, shape=tuple(d for i, d in enumerate(shape) if i not in axes))


def broadcast_to(input, shape, name=None):  # noqa: A002
    x = as_tensor(input)
    target = _shape_tuple(shape, "broadcast_to")
    try:
        np.broadcast_shapes(x._value.shape, target)
    except ValueError:
        raise InvalidArgumentError(f"broadcast_to: cannot broadcast shape "
                                   f"{list(x._value.shape)} to {list(target)}.") from None
    if len(target) < x._value.ndim or np.broadcast_shapes(x._value.shape, target) != target:
        raise InvalidArgumentError(f"broadcast_to: cannot broadcast shape "
                                   f"{list(x._value.shape)} to {list(target)}.")
    return _s.broadcast_to(x, shape=target)


def cast(x, dtype, name=None):
    """Cast to `dtype`; gradients flow between floating dtypes, as in TF."""
    x = as_tensor(x)
    target = dtypes.as_dtype(dtype)._np
    if x._value.dtype == target:
        return x
    if (x._value.dtype.kind in "fc" and target.kind in "fc") or _OBJECT in (x._value.dtype,
                                                                             target):
        return _m.cast(x, dtype=target)  # between strings and numbers, TF's Unimplemented
    return _cut("cast", (x,), Tensor(x._value.astype(target)))  # no gradient: a path ends


def identity(input, name=None):  # noqa: A002
    """A new tensor with the same value; a Variable's current value is copied."""
    return _m.identity(as_tensor(input))


def stop_gradient(input, name=None):  # noqa: A002
    """The same value, with no gradient flowing through it."""
    return _m.stop_gradient(as_tensor(input))


def ones(shape, dtype=dtypes.float32, name=None):
    if _dispatch.for_value("ones", shape):
        return _dispatch.for_value("ones", shape)(shape, dtype)
    return Tensor(_full(_shape_tuple(shape, "ones"), dtypes.as_dtype(dtype)._np, 1, "Ones"))


def zeros(shape, dtype=dtypes.float32, name=None):
    if _dispatch.for_value("zeros", shape):
        return _dispatch.for_value("zeros", shape)(shape, dtype)
    return Tensor(_full(_shape_tuple(shape, "zeros"), dtypes.as_dtype(dtype)._np, 0, "Zeros"))


def ones_like(input, dtype=None, name=None):  # noqa: A002 -- no gradient, as in TF
    x = as_tensor(input)
    return Tensor(_full(x._value.shape, x._value.dtype if dtype is None
                        else dtypes.as_dtype(dtype)._np, 1, "OnesLike"))


def zeros_like(input, dtype=None, name=None):  # noqa: A002 -- no gradient, as in TF
    x = as_tensor(input)
    return Tensor(_full(x._value.shape, x._value.dtype if dtype is None
                        else dtypes.as_dtype(dtype)._np, 0, "ZerosLike"))


def _full(shape, np_dtype, number, op):
    """An array of `number`; of b'' for zeros of strings, as TF (strings have no ones)."""
    if np_dtype != _OBJECT:
        return np.full(shape, number, np_dtype)
    if number:
        raise InvalidArgumentError(f"Value for attr 'T' of string is not in the list of "
                                   f"allowed values: {op} has no kernel for strings [Op:{op}]")
    return np.full(shape, b"", dtype=object)


def fill(dims, value, name=None):
    if _dispatch.for_value("fill", dims):
        return _dispatch.for_value("fill", dims)(dims, value)
    v = as_tensor(value)
    return Tensor(np.full(_shape_tuple(dims, "fill"), v._value, dtype=v._value.dtype))


_RANGE_ORDER = [np.dtype(t) for t in (np.int32, np.int64, np.float32, np.float64)]


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """Like Python's range, as a tensor. Without `dtype`, TF's inference: the widest of
    the arguments' dtypes in int32 < int64 < float32 < float64 (Python ints are int32,
    floats float32; an int64 tensor or NumPy int64 gives int64)."""
    if limit is None:
        start, limit = 0, start
    args = [convert_to_tensor(v) for v in (start, limit, delta)]
    values = [a._value.item() for a in args]
    if values[2] == 0:
        raise InvalidArgumentError("range: delta must not be 0.")
    if dtype is None:
        kinds = [a._value.dtype for a in args]
        np_dtype = max(kinds, key=lambda d: _RANGE_ORDER.index(d) if d in _RANGE_ORDER else 0)
    else:
        np_dtype = dtypes.as_dtype(dtype)._np
    return Tensor(np.arange(*values).astype(np_dtype))


def shape(input, out_type=dtypes.int32, name=None):  # noqa: A002
    if _dispatch.for_value("shape", input):
        return _dispatch.for_value("shape", input)(input, out_type)
    return Tensor(np.asarray(as_tensor(input)._value.shape, dtypes.as_dtype(out_type)._np))


def size(input, out_type=dtypes.int32, name=None):  # noqa: A002
    return Tensor(np.asarray(as_tensor(input)._value.size, dtypes.as_dtype(out_type)._np))


def rank(input, name=None):  # noqa: A002
    return Tensor(np.asarray(as_tensor(input)._value.ndim, np.int32))


def _tensors(values, op_name):
    """Convert a list of values, Python numbers taking the dtype of the first Tensor."""
    if isinstance(values, Tensor):
        return unstack(values)
    values = list(values)
    if not values:
        raise ValueError(f"{op_name} expects a non-empty list of tensors.")
    like = next((v for v in values if isinstance(v, Tensor)), None)
    hint = None if like is None else like._value.dtype
    tensors = [v if isinstance(v, Tensor) else convert_to_tensor(v, dtype_hint=hint)
               for v in values]
    for i, t in enumerate(tensors):
        if t._value.dtype != tensors[0]._value.dtype:
            raise InvalidArgumentError(
                f"{op_name}: all inputs must have one dtype, but values[0] is "
                f"{tensors[0].dtype.name} and values[{i}] is {t.dtype.name}.")
    return tensors


def _axis(axis, ndim, op_name):
    axis = int(axis)
    if not -ndim <= axis < ndim:
        raise InvalidArgumentError(f"{op_name}: axis {axis} is out of range for a tensor of "
                                   f"rank {ndim}; it must be in [{-ndim}, {ndim}).")
    return axis % ndim


def concat(values, axis, name="concat"):
    """Join tensors along an existing `axis`, as tf.concat.

    Raises:
        InvalidArgumentError: if the ranks differ, another dimension differs, or
            `axis` is out of range (the message names both shapes).
    """
    impl = _dispatch.for_any("concat", values)
    if impl is not None:
        return impl(values, axis)
    xs = _tensors(values, "ConcatOp")
    s0 = xs[0]._value.shape
    for i, x in enumerate(xs[1:], 1):
        si = x._value.shape
        if len(si) != len(s0):
            raise InvalidArgumentError(f"ConcatOp : Ranks of all input tensors should match: "
                                       f"shape[0] = {list(s0)} vs. shape[{i}] = {list(si)} "
                                       "[Op:ConcatV2]")
    ndim = len(s0)
    if ndim == 0:
        raise InvalidArgumentError("ConcatOp : Can't concatenate scalars (use tf.stack "
                                   "instead) [Op:ConcatV2]")
    if not -ndim <= int(axis) < ndim:
        raise InvalidArgumentError(f"ConcatOp : Expected concatenating dimensions in the range "
                                   f"[{-ndim}, {ndim}), but got {int(axis)} [Op:ConcatV2]")
    axis = int(axis) % ndim
    for i, x in enumerate(xs[1:], 1):
        si = x._value.shape
        for d in builtins.range(ndim):
            if d != axis and si[d] != s0[d]:
                raise InvalidArgumentError(
                    f"ConcatOp : Dimension {d} in both shapes must be equal: shape[0] = "
                    f"{list(s0)} vs. shape[{i}] = {list(si)} [Op:ConcatV2]")
    return _s.concat(*xs, axis=axis)


def stack(values, axis=0, name="stack"):
    """Join tensors of one shape along a new `axis`, as tf.stack.

    Raises:
        InvalidArgumentError: if the shapes differ or `axis` is out of range.
    """
    impl = _dispatch.for_any("stack", values)
    if impl is not None:
        return impl(values, axis)
    xs = _tensors(values, "Pack")
    s0 = xs[0]._value.shape
    for i, x in enumerate(xs):
        if x._value.shape != s0:
            raise InvalidArgumentError(f"Shapes of all inputs must match: values[0].shape = "
                                       f"{list(s0)} != values[{i}].shape = "
                                       f"{list(x._value.shape)} [Op:Pack]")
    axis = _axis(axis, len(s0) + 1, "stack")
    new = s0[:axis] + (1,) + s0[axis:]
    return _s.concat(*[_s.reshape(x, shape=new) for x in xs], axis=axis)


def unstack(value, num=None, axis=0, name="unstack"):
    """Split along `axis` into a list of tensors of one rank less, as tf.unstack.

    Raises:
        InvalidArgumentError: if `axis` is out of range or `num` differs from the size.
    """
    x = as_tensor(value)
    shape = x._value.shape
    axis = _axis(axis, len(shape), "unstack")
    if num is not None and int(num) != shape[axis]:
        raise InvalidArgumentError(f"Input shape axis {axis} must equal {int(num)}, got shape "
                                   f"{list(shape)} [Op:Unpack]")
    lead = (slice(None),) * axis
    return [_s.getitem(x, key=lead + (i,)) for i in builtins.range(shape[axis])]


def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Split along `axis` into equal parts or parts of the given sizes, as tf.split.

    Args:
        num_or_size_splits: an int (number of equal parts) or a list of sizes,
            one of which may be -1.

    Returns:
        A list of tensors.

    Raises:
        InvalidArgumentError: if the parts do not add up to the axis size.
    """
    x = as_tensor(value)
    shape = x._value.shape
    axis = _axis(axis, len(shape), "split")
    n = shape[axis]
    if isinstance(num_or_size_splits, Tensor):
        num_or_size_splits = num_or_size_splits._value.tolist()
    if isinstance(num_or_size_splits, (int, np.integer)):
        parts = int(num_or_size_splits)
        if parts <= 0 or n % parts:
            raise InvalidArgumentError(
                f"Number of ways to split should evenly divide the split dimension, but got "
                f"split_dim {axis} (size = {n}) and num_split {parts} [Op:Split]")
        sizes = [n // parts] * parts
    else:
        sizes = [int(s) for s in num_or_size_splits]
        known = sum(s for s in sizes if s != -1)
        if sizes.count(-1) == 1 and known <= n:
            sizes[sizes.index(-1)] = n - known
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise InvalidArgumentError(
                f"Determined shape must either match input shape along split_dim exactly if "
                f"fully specified, or be less than the size of the input along split_dim if "
                f"not fully specified. Got sizes {list(num_or_size_splits)} for dimension "
                f"{axis} of shape {list(shape)} [Op:SplitV]")
    starts = np.cumsum([0] + sizes)
    lead = (slice(None),) * axis
    return [_s.getitem(x, key=lead + (slice(int(a), int(b)),))
            for a, b in zip(starts[:-1], starts[1:])]


def tile(input, multiples, name=None):  # noqa: A002
    """Repeat `input` `multiples[i]` times along axis i, as tf.tile.

    Raises:
        InvalidArgumentError: if `multiples` has the wrong length or a negative entry.
    """
    if _dispatch.for_value("tile", input):
        return _dispatch.for_value("tile", input)(input, multiples)
    x = as_tensor(input)
    shape = x._value.shape
    reps = _shape_tuple(multiples, "tile")
    if len(reps) != len(shape):
        raise InvalidArgumentError(f"Expected multiples argument to be a vector of length "
                                   f"{len(shape)} but got length {len(reps)} [Op:Tile]")
    if any(m < 0 for m in reps):
        raise InvalidArgumentError(f"Expected multiples to be non-negative, got {list(reps)} "
                                   "[Op:Tile]")
    if not shape:
        return x
    # reshape to (1, d0, 1, d1, ...), broadcast to (m0, d0, m1, d1, ...), merge pairs.
    pairs = tuple(v for d in shape for v in (1, d))
    spread = tuple(v for m, d in zip(reps, shape) for v in (m, d))
    y = _s.broadcast_to(_s.reshape(x, shape=pairs), shape=spread)
    return _s.reshape(y, shape=tuple(m * d for m, d in zip(reps, shape)))


def pad(tensor, paddings, mode="CONSTANT", constant_values=0, name=None):
    """Pad with a constant, or by reflecting the edges, as tf.pad.

    Args:
        paddings: an int (rank, 2) list: entries before and after, per axis.
        mode: "CONSTANT", "REFLECT" (edge not repeated) or "SYMMETRIC" (edge repeated).

    Raises:
        InvalidArgumentError: for a bad `paddings` shape, negative or too large paddings.
        ValueError: for an unknown mode.
    """
    x = as_tensor(tensor)
    shape = x._value.shape
    pads = np.asarray(paddings._value if isinstance(paddings, Tensor) else paddings)
    if pads.shape != (len(shape), 2) or pads.dtype.kind not in "iu":
        raise InvalidArgumentError(f"The first dimension of paddings must be the rank of "
                                   f"inputs [{len(shape)},2], but got {list(pads.shape)} "
                                   f"paddings of dtype {pads.dtype} [Op:Pad]")
    if (pads < 0).any():
        raise InvalidArgumentError(f"Paddings must be non-negative: {pads.tolist()} [Op:Pad]")
    mode = str(mode).upper()
    if mode == "CONSTANT":
        out_shape = tuple(int(d + a + b) for d, (a, b) in zip(shape, pads))
        key = tuple(slice(int(a), int(a + d)) for d, (a, _) in zip(shape, pads))
        if x._value.dtype == _OBJECT:  # strings: padded with b'' (or the given text)
            out = np.full(out_shape, b"" if constant_values == 0 else
                          convert_to_tensor(constant_values)._value[()], dtype=object)
            out[key] = x._value
            return Tensor(out)
        out = _s.scatter_into(x, key=key, shape=out_shape)
        c = convert_to_tensor(constant_values, dtype_hint=x._value.dtype)._value
        if c.item() != 0:  # TF: no gradient for constant_values
            border = np.full(out_shape, c, dtype=x._value.dtype)
            border[key] = 0
            out = _m.add(out, Tensor(border))
        return out
    if mode not in ("REFLECT", "SYMMETRIC"):
        raise ValueError(f'Value of argument `mode` expected to be one of "CONSTANT", '
                         f'"REFLECT", or "SYMMETRIC". Received `mode` = {mode}')
    shift = 1 if mode == "REFLECT" else 0
    out = x
    for axis, (d, (a, b)) in enumerate(zip(shape, pads.tolist())):
        if max(a, b) > d - shift:
            rule = "less than" if shift else "no greater than"
            raise InvalidArgumentError(f"paddings must be {rule} the dimension size: {a}, {b} "
                                       f"is not {rule} {d} (shape {list(shape)}) "
                                       f"[Op:MirrorPad]")
        if a or b:
            idx = np.concatenate([np.arange(a - 1 + shift, shift - 1, -1), np.arange(d),
                                  np.arange(d - 1 - shift, d - 1 - shift - b, -1)])
            out = _s.gather(out, Tensor(idx), axis=axis)
    return out


def reverse(tensor, axis, name=None):
    """Reverse the order of entries along each axis in `axis`, as tf.reverse."""
    if _dispatch.for_value("reverse", tensor):
        return _dispatch.for_value("reverse", tensor)(tensor, axis)
    x = as_tensor(tensor)
    axes = normalize_axis(list(_shape_tuple(axis, "reverse")), x._value.ndim, "ReverseV2",
                          x._value.shape) or ()
    key = tuple(slice(None, None, -1) if i in axes else slice(None)
                for i in builtins.range(x._value.ndim))
    return _s.getitem(x, key=key)


def roll(input, shift, axis, name=None):  # noqa: A002
    """Shift entries cyclically by `shift` along `axis` (ints or matching lists), as tf.roll."""
    x = as_tensor(input)
    shifts, axes = _shape_tuple(shift, "roll"), _shape_tuple(axis, "roll")
    if len(shifts) != len(axes):
        raise InvalidArgumentError(f"shift and axis must have the same size: {list(shifts)} vs."
                                   f" {list(axes)} [Op:Roll]")
    total = {}
    for s, a in zip(shifts, axes):
        a = _axis(a, x._value.ndim, "roll")
        total[a] = total.get(a, 0) + s
    for a, s in total.items():
        n = x._value.shape[a]
        if n and s % n:
            x = _s.gather(x, Tensor((np.arange(n) - s) % n), axis=a)
    return x
