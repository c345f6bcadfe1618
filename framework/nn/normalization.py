"""normalization.py: tf.nn's moments and batch_normalization (the statistics
and the affine step of batch normalisation) and dropout (random masking with
tf.random's seeds), composed from primitives that carry the VJPs."""

import numbers

import numpy as np

from .. import math as _pm
from ..core.args import normalize_axis
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor
from ..ops import math as _m
from ..ops import reduce as _r
from ..ops import shape as _s
from ..random import _op_generator  # op seeds follow tf.random's rules
from ._checks import float_tensor

__all__ = ["dropout", "moments", "batch_normalization"]


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zero each element with probability `rate` and scale the rest by 1 / (1 - rate).

    Args:
        x: a floating tensor.
        rate: the drop probability, in [0, 1); 0 returns `x` unchanged.
        noise_shape: the shape of the keep mask, broadcast against x (None
            entries take x's dimension); default x's shape.
        seed: op seed; with `tf.random.set_seed` the masks repeat between runs.

    Raises:
        ValueError: for a rate outside [0, 1) or a non-floating x.
    """
    x = as_tensor(x)
    if x._value.dtype.kind != "f":
        raise ValueError(f"x has to be a floating point tensor since it's going to be scaled. "
                         f"Got a {x.dtype.name} tensor instead.")
    r = float(rate._value) if isinstance(rate, Tensor) else rate
    if not isinstance(r, numbers.Real) or not 0 <= r < 1:
        raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), "
                         f"got {rate}")
    if r == 0:
        return x
    shape = x._value.shape if noise_shape is None else tuple(
        d if s is None else int(s) for s, d in zip(
            np.asarray(getattr(noise_shape, "_value", noise_shape), object).tolist(),
            x._value.shape))
    keep = _op_generator(seed).random(shape) >= r
    mask = Tensor((keep * (1.0 / (1.0 - r))).astype(x._value.dtype))
    try:
        return _m.multiply(x, mask)
    except ValueError:
        raise InvalidArgumentError(f"dropout: noise_shape {list(shape)} does not broadcast "
                                   f"to x's shape {list(x._value.shape)}.") from None


def moments(x, axes, shift=None, keepdims=False, name=None):
    """The mean and (biased) variance of `x` over `axes`.

    Unlike TF, the mean is not wrapped in stop_gradient inside the variance:
    the first derivative is the same, and second derivatives are exact.

    Returns:
        (mean, variance), with the reduced axes kept as 1 when `keepdims`.
    """
    x = float_tensor(x, "moments", "x")
    ax = normalize_axis(axes, x._value.ndim, "moments", x._value.shape)
    mean = _r.reduce_mean(x, axis=ax, keepdims=True)
    variance = _r.reduce_mean(_m.square(_m.subtract(x, mean)), axis=ax, keepdims=True)
    if not keepdims:
        kept = tuple(d for i, d in enumerate(x._value.shape) if ax is not None and i not in ax)
        mean, variance = _s.reshape(mean, shape=kept), _s.reshape(variance, shape=kept)
    return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset, as TF computes it:
    x * inv + (offset - mean * inv) with inv = scale / sqrt(variance + epsilon).
    `offset` and `scale` may be None."""
    inv = _pm.reciprocal(_pm.sqrt(_pm.add(variance, variance_epsilon)))
    if scale is not None:
        inv = _pm.multiply(inv, scale)
    shift = _pm.negative(_pm.multiply(mean, inv))
    if offset is not None:
        shift = _pm.add(offset, shift)
    return _pm.add(_pm.multiply(x, inv), shift)
