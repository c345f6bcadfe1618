"""clip_ops.py holds TF's clipping functions of the root namespace, as TF's
module of that name: clip_by_norm and clip_by_global_norm, composites of math
ops (so their gradients come from those ops' VJPs, to any order).
clip_by_value lives in math/elementwise.py and global_norm in linalg.py; both
are re-exported here, as TF's clip_ops has them."""

from collections import abc

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor
from ..linalg import global_norm
from ..math.elementwise import clip_by_value, maximum, minimum, multiply, divide, sqrt, where
from ..math.reductions import reduce_sum
from ..ops import math as _m

__all__ = ["clip_by_value", "clip_by_norm", "clip_by_global_norm", "global_norm"]


def _float_tensor(t, function, argument):
    t = as_tensor(t)
    if t._value.dtype.kind != "f":
        raise TypeError(f"{function}: `{argument}` must be a floating point tensor, got "
                        f"{t.dtype.name}; tf.cast it first.")
    return t


def _clip_norm(clip_norm, like):
    """`clip_norm` in `like`'s dtype, negative values taken as 0 (TF's rule)."""
    if isinstance(clip_norm, Tensor):
        return _m.cast(maximum(clip_norm, _m.const(0, clip_norm)), dtype=like._value.dtype)
    value = np.asarray(clip_norm)
    if value.dtype.kind not in "iuf":
        raise TypeError(f"clip_by_norm: `clip_norm` must be a number, got {clip_norm!r}.")
    return Tensor(np.maximum(value, 0).astype(like._value.dtype))


def clip_by_norm(t, clip_norm, axes=None, name=None):
    """`t * clip_norm / max(l2norm(t), clip_norm)`, the L2 norm taken over `axes`.

    As tf.clip_by_norm: `t` is unchanged where its norm is at most `clip_norm`,
    else scaled to norm `clip_norm`; with `axes=[1]` each row of a matrix is
    clipped alone. A negative `clip_norm` counts as 0. The gradient at an
    all-zero `t` is finite (TF's double-where guard around the square root).

    Args:
        t: a floating point tensor.
        clip_norm: a scalar > 0 (or a tensor broadcastable to `t` that leaves its
            shape unchanged).
        axes: None (all axes) or the axes to take the norm over.

    Returns:
        A tensor of `t`'s shape and dtype.

    Raises:
        TypeError: if `t` is not floating point.
        ValueError: if `clip_norm` would broadcast `t` to a larger shape.
    """
    values = _float_tensor(t, "clip_by_norm", "t")
    clip_norm = _clip_norm(clip_norm, values)
    l2sum = reduce_sum(multiply(values, values), axis=axes, keepdims=True)
    positive = Tensor(l2sum._value > 0)
    # sqrt only where the sum is positive, so its gradient is never 1/0 * 0 = NaN.
    safe = where(positive, l2sum, Tensor(np.ones_like(l2sum._value)))
    l2norm = where(positive, sqrt(safe), l2sum)
    intermediate = multiply(values, clip_norm)
    if intermediate._value.shape != values._value.shape:
        raise ValueError(f"clip_by_norm: `clip_norm` of shape {list(clip_norm._value.shape)} "
                         f"broadcasts t of shape {list(values._value.shape)} to "
                         f"{list(intermediate._value.shape)}; pass a scalar.")
    return divide(intermediate, maximum(l2norm, clip_norm))


def clip_by_global_norm(t_list, clip_norm, use_norm=None, name=None):
    """Scale every tensor of `t_list` by `clip_norm / max(global_norm, clip_norm)`.

    As tf.clip_by_global_norm: `global_norm` is `tf.linalg.global_norm(t_list)`
    unless `use_norm` gives it; None entries stay None; when the global norm is
    inf or NaN every clipped tensor is NaN, to signal the error.

    Returns:
        (list_clipped, global_norm): a list as long as `t_list`, and the norm used.

    Raises:
        TypeError: if `t_list` is not a sequence of tensors.
    """
    if not isinstance(t_list, abc.Sequence) or isinstance(t_list, (str, bytes)):
        raise TypeError(f"`t_list` should be a sequence of tensors. Received {type(t_list)}.")
    t_list = list(t_list)
    use_norm = global_norm(t_list) if use_norm is None else as_tensor(use_norm)
    if use_norm._value.dtype.kind != "f" or use_norm._value.ndim != 0:
        raise InvalidArgumentError(f"clip_by_global_norm: `use_norm` must be a float scalar, "
                                   f"got {use_norm.dtype.name} of shape "
                                   f"{list(use_norm._value.shape)}.")
    if isinstance(clip_norm, Tensor) and clip_norm._value.dtype != use_norm._value.dtype:
        raise InvalidArgumentError(f"clip_by_global_norm: `clip_norm` is {clip_norm.dtype.name} "
                                   f"but the global norm is {use_norm.dtype.name}.")
    one = _m.const(1, use_norm)
    scale = multiply(clip_norm, minimum(divide(one, use_norm), divide(one, clip_norm)))
    # A finite norm adds 0; inf or NaN makes the scale NaN, as TF.
    with np.errstate(invalid="ignore"):  # inf - inf is the NaN wanted here
        scale = _m.add(scale, _m.subtract(use_norm, use_norm))
    clipped = []
    for i, t in enumerate(t_list):
        if t is None:
            clipped.append(None)
            continue
        v = _float_tensor(t, "clip_by_global_norm", f"t_list[{i}]")
        clipped.append(multiply(v, _m.cast(scale, dtype=v._value.dtype)))
    return clipped, use_norm
