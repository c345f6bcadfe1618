"""color.py holds tf.image's pixel-value ops: dtype conversion with TF's
scale/saturate rules, brightness, contrast, gamma, grayscale, per-image
standardization and their random_* forms, composed from tapeflow's math ops so
that their gradients come from those ops (tensorflow/python/ops/image_ops_impl.py).

One difference from TF: where TF computes a float64 image in float32 (it converts
every dtype but float16/float32 to float32 first), tapeflow keeps float64, so that
float64 programs (and gradient checks) keep their precision; the values agree to
float32 rounding."""

import numpy as np

from .. import math as _math
from .. import random as _random
from ..api import array_ops
from ..core import dtypes
from ..core.tensor import Tensor, as_tensor, convert_to_tensor
from ._checks import at_least_3d

__all__ = ["convert_image_dtype", "adjust_brightness", "adjust_contrast", "adjust_gamma",
           "rgb_to_grayscale", "grayscale_to_rgb", "per_image_standardization",
           "random_brightness", "random_contrast"]


def _saturate_cast(values, target):
    """TF's saturate_cast for ndarrays: clip to the largest values of `values`' dtype
    that fit `target`, then cast (float to int truncates toward zero)."""
    info = np.iinfo(target) if target.kind in "iu" else np.finfo(target)
    lo, hi = np.asarray(info.min).astype(values.dtype), np.asarray(info.max).astype(values.dtype)
    if values.dtype.kind == "f":
        if float(hi) > float(info.max):
            hi = np.nextafter(hi, values.dtype.type(0))
        if float(lo) < float(info.min):
            lo = np.nextafter(lo, values.dtype.type(0))
    elif values.dtype.kind in "iu" and target.kind in "iu":
        in_info = np.iinfo(values.dtype)
        lo = np.asarray(max(int(info.min), in_info.min), values.dtype)
        hi = np.asarray(min(int(info.max), in_info.max), values.dtype)
    return np.clip(values, lo, hi).astype(target)


def convert_image_dtype(image, dtype, saturate=False, name=None):
    """Convert an image's values to `dtype`, rescaling as tf.image.convert_image_dtype.

    Floats are in [0, 1), integers in [0, dtype.max]. Float to float is a cast (with
    a gradient); int to float multiplies by 1 / in.max; float to int multiplies by
    out.max + 0.5 and truncates; int to int divides (floor) or multiplies by the ratio of
    (max + 1)s. `saturate=True` clips before casting where the cast could overflow.

    Raises:
        AttributeError: if `dtype` or the image's dtype is neither floating nor integer
            (TF's exception type).
    """
    x = as_tensor(image)
    target = dtypes.as_dtype(dtype)
    if not target.is_floating and not target.is_integer:
        raise AttributeError("dtype must be either floating point or integer")
    source = x.dtype
    if not source.is_floating and not source.is_integer:
        raise AttributeError(f"image dtype must be either floating point or integer, got "
                             f"{source.name}")
    if target == source:
        return array_ops.identity(x)
    if source.is_floating and target.is_floating:
        return array_ops.cast(x, target)
    v, out = x._value, target._np
    if source.is_integer and target.is_integer:
        scale_in, scale_out = int(source.max), int(target.max)
        if scale_in > scale_out:
            scaled = v // v.dtype.type((scale_in + 1) // (scale_out + 1))
            values = _saturate_cast(scaled, out) if saturate else scaled.astype(out)
        else:
            cast = _saturate_cast(v, out) if saturate else v.astype(out)
            values = cast * out.type((scale_out + 1) // (scale_in + 1))
        return Tensor(np.asarray(values, out))
    if source.is_integer:  # cast, then scale: no gradient through an integer input, as in TF
        return Tensor(np.asarray(v.astype(out) * out.type(1.0 / int(source.max)), out))
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = v * v.dtype.type(int(target.max) + 0.5)
        values = _saturate_cast(scaled, out) if saturate else scaled.astype(out)
    return Tensor(np.asarray(values, out))


def _to_float(x):
    """The working image: float16/32/64 as they are, other dtypes converted to float32."""
    return x if x.dtype.is_floating else convert_image_dtype(x, dtypes.float32)


def _scalar(value, like, name):
    if not isinstance(value, Tensor):  # a Python float in the image's precision, not float32's
        value = np.asarray(value, like._value.dtype)
    t = convert_to_tensor(value)
    if t.dtype != like.dtype:
        t = array_ops.cast(t, like.dtype)
    if t._value.ndim != 0:
        raise ValueError(f"`{name}` must be a scalar, got shape {list(t._value.shape)}.")
    return t


def adjust_brightness(image, delta):
    """`image + delta` (in [0, 1) for integer images, then converted back with
    saturation), as tf.image.adjust_brightness; differentiable in both."""
    x = as_tensor(image)
    flt = _to_float(x)
    adjusted = _math.add(flt, _scalar(delta, flt, "delta"))
    return convert_image_dtype(adjusted, x.dtype, saturate=True)


def adjust_contrast(images, contrast_factor):
    """`(x - mean) * contrast_factor + mean` per channel of each image, the mean over
    its height and width, as tf.image.adjust_contrast.

    Raises:
        ValueError: if `images` has rank below 3.
    """
    x = at_least_3d(images, "images")
    flt = _to_float(x)
    mean = _math.reduce_mean(flt, axis=[-3, -2], keepdims=True)
    factor = _scalar(contrast_factor, flt, "contrast_factor")
    adjusted = _math.add(_math.multiply(_math.subtract(flt, mean), factor), mean)
    return convert_image_dtype(adjusted, x.dtype, saturate=True)


def adjust_gamma(image, gamma=1, gain=1):
    """`gain * image ** gamma` (in [0, 1) for integer images), as tf.image.adjust_gamma.

    Raises:
        ValueError: if `gamma` is negative (TF's message).
    """
    x = as_tensor(image)
    flt = _to_float(x)
    g = _scalar(gamma, flt, "gamma")
    if (g._value < 0).any():
        raise ValueError("Gamma should be a non-negative real number.")
    adjusted = _math.multiply(_scalar(gain, flt, "gain"), _math.pow(flt, g))
    return convert_image_dtype(adjusted, x.dtype, saturate=True)


_GRAY_WEIGHTS = (0.2989, 0.5870, 0.1140)  # TF's rgb_weights


def rgb_to_grayscale(images, name=None):
    """The weighted sum 0.2989 R + 0.5870 G + 0.1140 B, keeping a last axis of size 1,
    as tf.image.rgb_to_grayscale (integer images convert to float and back, unsaturated).

    Raises:
        ValueError: if the last axis is not of size 3.
    """
    x = as_tensor(images)
    shape = x._value.shape
    if not shape or shape[-1] != 3:
        raise ValueError(f"rgb_to_grayscale: the last dimension of 'images' must be 3 (R, G, "
                         f"B), got shape {list(shape)}.")
    flt = _to_float(x)
    weights = Tensor(np.asarray(_GRAY_WEIGHTS, flt._value.dtype))
    gray = _math.reduce_sum(_math.multiply(flt, weights), axis=-1, keepdims=True)
    return convert_image_dtype(gray, x.dtype)


def grayscale_to_rgb(images, name=None):
    """Repeat the single channel three times, as tf.image.grayscale_to_rgb.

    Raises:
        ValueError: for rank below 2 or a last axis not of size 1 (TF's messages).
    """
    x = as_tensor(images)
    shape = x._value.shape
    if len(shape) < 2:
        raise ValueError(f"'image' (shape {list(shape)}) must be at least two-dimensional.")
    if shape[-1] != 1:
        raise ValueError(f"Last dimension of a grayscale image should be size 1. (shape "
                         f"{list(shape)})")
    return array_ops.tile(x, [1] * (len(shape) - 1) + [3])


def per_image_standardization(image):
    """`(x - mean) / max(stddev, 1 / sqrt(N))` over each image's last 3 axes (N values),
    as tf.image.per_image_standardization. Integer images give float32, as in TF.

    Raises:
        ValueError: if `image` has rank below 3 or an inner dimension of 0.
    """
    x = at_least_3d(image)
    flt = x if x.dtype.is_floating and x.dtype != dtypes.float16 else \
        array_ops.cast(x, dtypes.float32)
    axes = [-1, -2, -3]
    mean = _math.reduce_mean(flt, axis=axes, keepdims=True)
    std = _math.reduce_std(flt, axis=axes, keepdims=True)
    pixels = int(np.prod(x._value.shape[-3:]))
    floor = Tensor(np.asarray(1.0 / np.sqrt(np.float32(pixels)), flt._value.dtype))
    return _math.divide(_math.subtract(flt, mean), _math.maximum(std, floor))


def random_brightness(image, max_delta, seed=None):
    """adjust_brightness by a delta drawn uniformly from [-max_delta, max_delta), as
    tf.image.random_brightness.

    Raises:
        ValueError: if `max_delta` is negative.
    """
    if float(max_delta) < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = _random.uniform([], -float(max_delta), float(max_delta), seed=seed)
    return adjust_brightness(image, float(delta._value))


def random_contrast(image, lower, upper, seed=None):
    """adjust_contrast by a factor drawn uniformly from [lower, upper), as
    tf.image.random_contrast.

    Raises:
        ValueError: if upper <= lower or lower < 0 (TF's messages).
    """
    return adjust_contrast(image, _random_factor(lower, upper, seed))


def _random_factor(lower, upper, seed):
    """A factor drawn uniformly from [lower, upper) with TF's checks (random_contrast,
    random_saturation)."""
    if upper <= lower:
        raise ValueError("upper must be > lower.")
    if lower < 0:
        raise ValueError("lower must be non-negative.")
    return float(_random.uniform([], lower, upper, seed=seed)._value)
