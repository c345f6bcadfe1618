"""hsv.py holds tf.image's HSV colour space: rgb_to_hsv / hsv_to_rgb with the
formulas of TF's kernels (tensorflow/core/kernels/image/colorspace_op.h), and
adjust_saturation / adjust_hue and their random forms on top of them. Built from
tapeflow ops: differentiable wherever the formulas are smooth (TF defines no
gradient for AdjustSaturation/AdjustHue; here one exists)."""

import numpy as np

from .. import math as _math
from .. import random as _random
from ..api import array_ops
from ..core.tensor import Tensor, as_tensor
from ..ops import shape as _s
from .color import _random_factor, _scalar, _to_float, convert_image_dtype

__all__ = ["rgb_to_hsv", "hsv_to_rgb", "adjust_saturation", "adjust_hue", "random_saturation",
           "random_hue"]


def _channels(x, name):
    shape = x._value.shape
    if not shape or shape[-1] != 3:
        raise ValueError(f"{name}: the last dimension of 'images' must be 3, got shape "
                         f"{list(shape)}.")
    lead = (slice(None),) * (len(shape) - 1)
    return [_s.getitem(x, key=lead + (i,)) for i in range(3)]


def _const(value, like):
    return Tensor(np.asarray(value, like._value.dtype))


def _float_image(images, name):
    x = as_tensor(images)
    if not x.dtype.is_floating:
        raise TypeError(f"{name}: 'images' must be a float tensor (half, float, double), got "
                        f"{x.dtype.name}; convert it with tf.image.convert_image_dtype.")
    return x


def rgb_to_hsv(images, name=None):
    """RGB in [0, 1] to HSV, all channels in [0, 1], as tf.image.rgb_to_hsv.

    V = max(R, G, B), S = (V - min) / V (0 where V = 0), H from the largest channel
    (R first, then G, as TF's kernel picks on ties), 0 for grey pixels.

    Raises:
        TypeError: for a non-float image. ValueError: if the last axis is not 3.
    """
    x = _float_image(images, "rgb_to_hsv")
    r, g, b = _channels(x, "rgb_to_hsv")
    rv, gv, bv = r._value, g._value, b._value
    v_np = np.maximum(np.maximum(rv, gv), bv)
    is_r = rv == v_np
    is_g = ~is_r & (gv == v_np)
    v = _math.where(Tensor(is_r), r, _math.where(Tensor(is_g), g, b))
    low = _math.minimum(_math.minimum(r, g), b)
    spread = _math.subtract(v, low)
    has_value, has_spread = v_np > 0, (v_np - np.minimum(np.minimum(rv, gv), bv)) > 0
    zero = _const(0, v)
    s = _math.where(Tensor(has_value), _math.divide(spread, _math.where(
        Tensor(has_value), v, _const(1, v))), zero)
    norm = _math.divide(_const(1.0 / 6.0, v),
                        _math.where(Tensor(has_spread), spread, _const(1, v)))
    h = _math.where(Tensor(is_r), _math.multiply(norm, _math.subtract(g, b)),
                    _math.where(Tensor(is_g),
                                _math.add(_math.multiply(norm, _math.subtract(b, r)),
                                          _const(2.0 / 6.0, v)),
                                _math.add(_math.multiply(norm, _math.subtract(r, g)),
                                          _const(4.0 / 6.0, v))))
    h = _math.where(Tensor(has_spread), h, zero)
    h = _math.where(Tensor(h._value < 0), _math.add(h, _const(1, h)), h)
    return array_ops.stack([h, s, v], axis=-1)


def hsv_to_rgb(images, name=None):
    """HSV (all in [0, 1]) to RGB, as tf.image.hsv_to_rgb (TF's kernel: per channel
    clamp(|6h - 3| - 1), clamp(2 - |6h - 2|), clamp(2 - |6h - 4|) mixed with (1 - s),
    times v).

    Raises:
        TypeError: for a non-float image. ValueError: if the last axis is not 3.
    """
    x = _float_image(images, "hsv_to_rgb")
    h, s, v = _channels(x, "hsv_to_rgb")
    dh = _math.multiply(h, _const(6, h))

    def clamp01(t):
        return _math.clip_by_value(t, _const(0, t), _const(1, t))

    dr = clamp01(_math.subtract(_math.abs(_math.subtract(dh, _const(3, dh))), _const(1, dh)))
    dg = clamp01(_math.subtract(_const(2, dh), _math.abs(_math.subtract(dh, _const(2, dh)))))
    db = clamp01(_math.subtract(_const(2, dh), _math.abs(_math.subtract(dh, _const(4, dh)))))
    one_minus_s = _math.subtract(_const(1, s), s)
    rgb = [_math.multiply(_math.add(one_minus_s, _math.multiply(s, d)), v)
           for d in (dr, dg, db)]
    return array_ops.stack(rgb, axis=-1)


def adjust_saturation(image, saturation_factor, name=None):
    """Scale the saturation (HSV's S, clipped to [0, 1]) by `saturation_factor`, as
    tf.image.adjust_saturation; integer images convert to float and back.

    Raises:
        ValueError: if the last axis is not 3.
    """
    x = as_tensor(image)
    flt = _to_float(x)
    h, s, v = _channels(rgb_to_hsv(flt), "adjust_saturation")
    s = _math.clip_by_value(_math.multiply(s, _scalar(saturation_factor, s, "saturation_factor")),
                            _const(0, s), _const(1, s))
    return convert_image_dtype(hsv_to_rgb(array_ops.stack([h, s, v], axis=-1)), x.dtype)


def adjust_hue(image, delta, name=None):
    """Rotate the hue (HSV's H, wrapped to [0, 1)) by `delta`, as tf.image.adjust_hue;
    integer images convert to float and back.

    Raises:
        ValueError: if `delta` is outside [-1, 1] (TF's check) or the last axis is not 3.
    """
    x = as_tensor(image)
    flt = _to_float(x)
    d = _scalar(delta, flt, "delta")
    if not -1 <= float(d._value) <= 1:
        raise ValueError(f"delta must be in the interval [-1, 1], got {float(d._value)}.")
    h, s, v = _channels(rgb_to_hsv(flt), "adjust_hue")
    h = _math.floormod(_math.add(h, d), _const(1, h))
    return convert_image_dtype(hsv_to_rgb(array_ops.stack([h, s, v], axis=-1)), x.dtype)


def random_saturation(image, lower, upper, seed=None):
    """adjust_saturation by a factor drawn uniformly from [lower, upper), as
    tf.image.random_saturation.

    Raises:
        ValueError: if upper <= lower or lower < 0 (TF's messages).
    """
    return adjust_saturation(image, _random_factor(lower, upper, seed))


def random_hue(image, max_delta, seed=None):
    """adjust_hue by a delta drawn uniformly from [-max_delta, max_delta), as
    tf.image.random_hue.

    Raises:
        ValueError: if `max_delta` is outside [0, 0.5] (TF's messages).
    """
    if max_delta > 0.5:
        raise ValueError("max_delta must be <= 0.5.")
    if max_delta < 0:
        raise ValueError("max_delta must be non-negative.")
    delta = _random.uniform([], -max_delta, max_delta, seed=seed)
    return adjust_hue(image, float(delta._value))
