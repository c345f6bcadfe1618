"""resizing.py holds tf.image.resize (TF 2: half-pixel centres) and resize_with_pad.

Every method but nearest is a separable linear map: one (out, in) weight matrix per
axis, computed here in NumPy with the formulas of TF's kernels
(tensorflow/core/kernels/image/: resize_bilinear_op.cc, resize_bicubic_op.cc with its
1024-entry Keys table, resize_area_op.cc, scale_and_translate_op.cc with
sampling_kernels.h for antialias and lanczos/gaussian/mitchellcubic), then applied with
two matmuls, so the gradient (and every higher order) is that of matmul. Nearest is a
gather and keeps the dtype. The result is float32 as in TF, except that float64 images
stay float64 (tapeflow keeps float64 programs in float64)."""

import numpy as np

from ..api import array_ops
from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor
from ..ops import math as _m
from ..ops import shape as _s
from ._checks import as_int
from .geometry import pad_to_bounding_box

__all__ = ["ResizeMethod", "resize", "resize_with_pad"]


class ResizeMethod:
    """The names tf.image.resize takes for `method`."""
    BILINEAR = "bilinear"
    NEAREST_NEIGHBOR = "nearest"
    BICUBIC = "bicubic"
    AREA = "area"
    LANCZOS3 = "lanczos3"
    LANCZOS5 = "lanczos5"
    GAUSSIAN = "gaussian"
    MITCHELLCUBIC = "mitchellcubic"


def _triangle(x):
    return np.where(x < 1, 1 - x, 0.0)


def _keys_cubic(x):  # Keys, a = -0.5
    return np.where(x >= 2, 0.0, np.where(x >= 1, ((-0.5 * x + 2.5) * x - 4) * x + 2,
                                          (1.5 * x - 2.5) * x * x + 1))


def _lanczos(radius):
    def kernel(x):
        pi = 3.14159265359  # TF's constant
        safe = np.where(x <= 1e-3, 1.0, x)
        value = radius * np.sin(pi * safe) * np.sin(pi * safe / radius) / (pi * pi * safe * safe)
        return np.where(x > radius, 0.0, np.where(x <= 1e-3, 1.0, value))
    return kernel


def _gaussian(x):
    sigma = 1.5
    return np.where(x < 3.0, np.exp(-x * x / (2 * sigma * sigma)), 0.0)


def _mitchell_cubic(x):
    return np.where(x >= 2, 0.0, np.where(
        x >= 1, (((-7.0 / 18.0) * x + 2.0) * x - 10.0 / 3.0) * x + 16.0 / 9.0,
        ((7.0 / 6.0) * x - 2.0) * x * x + 8.0 / 9.0))


_KERNELS = {"bilinear": (_triangle, 1.0), "bicubic": (_keys_cubic, 2.0),
            "lanczos3": (_lanczos(3.0), 3.0), "lanczos5": (_lanczos(5.0), 5.0),
            "gaussian": (_gaussian, 3.0), "mitchellcubic": (_mitchell_cubic, 2.0)}


def _scale_and_translate_weights(in_size, out_size, method, antialias):
    """ScaleAndTranslate's spans (translation 0): a normalised kernel per output sample."""
    kernel, radius = _KERNELS[method]
    inv_scale = np.float64(np.float32(1.0) / (np.float32(out_size) / np.float32(in_size)))
    kernel_scale = max(inv_scale, 1.0) if antialias else 1.0
    weights = np.zeros((out_size, in_size))
    for i in range(out_size):
        sample = (i + 0.5) * inv_scale
        if sample < 0 or sample > in_size:
            continue
        start = int(np.ceil(sample - radius * kernel_scale - 0.5))
        end = int(np.floor(sample + radius * kernel_scale - 0.5))
        start, end = min(max(start, 0), in_size - 1), min(max(end, 0), in_size - 1) + 1
        src = np.arange(start, end)
        w = kernel(np.abs((src + 0.5 - sample) / kernel_scale))
        total = w.sum()
        if abs(total) >= 1000 * np.finfo(np.float32).tiny:
            w = w / total
        weights[i, start:end] = w
    return weights


def _bilinear_weights(in_size, out_size):
    """resize_bilinear, half-pixel centres: lerp between floor and ceil, clamped to the edge."""
    scale = np.float32(in_size) / np.float32(out_size)
    weights = np.zeros((out_size, in_size))
    for i in range(out_size):
        x = float((np.float32(i) + np.float32(0.5)) * scale - np.float32(0.5))
        lower = max(int(np.floor(x)), 0)
        upper = min(int(np.ceil(x)), in_size - 1)
        lerp = x - np.floor(x)
        weights[i, lower] += 1 - lerp
        weights[i, upper] += lerp
    return weights


_TABLE_SIZE = 1024


def _bicubic_weights(in_size, out_size):
    """resize_bicubic, half-pixel centres: Keys (a = -0.5) at TF's table resolution of
    1/1024, taps outside the image dropped and the rest renormalised."""
    scale = np.float32(in_size) / np.float32(out_size)
    weights = np.zeros((out_size, in_size))
    for i in range(out_size):
        x = float((np.float32(i) + np.float32(0.5)) * scale - np.float32(0.5))
        base = int(np.floor(x))
        t = np.rint((x - base) * _TABLE_SIZE) / _TABLE_SIZE
        taps = _keys_cubic(np.abs(np.array([1 + t, t, 1 - t, 2 - t])))
        for k, tap in enumerate(taps):
            j = base - 1 + k
            if 0 <= j < in_size:
                weights[i, j] += tap
        total = weights[i].sum()
        if abs(total) >= 1000 * np.finfo(np.float32).tiny:
            weights[i] /= total
    return weights


def _area_weights(in_size, out_size):
    """resize_area: each output cell averages the input cells it covers, by overlap."""
    scale = float(np.float32(in_size) / np.float32(out_size))
    weights = np.zeros((out_size, in_size))
    for i in range(out_size):
        lo, hi = i * scale, (i + 1) * scale
        for j in range(int(np.floor(lo)), int(np.ceil(hi))):
            if j < lo:
                part = scale if j + 1 > hi else j + 1 - lo
            else:
                part = hi - j if j + 1 > hi else 1.0
            weights[i, min(j, in_size - 1)] += part / scale
    return weights


def _weights(in_size, out_size, method, antialias):
    if method == "area":
        return _area_weights(in_size, out_size)
    if method in ("bilinear", "bicubic") and not antialias:
        return (_bilinear_weights if method == "bilinear" else _bicubic_weights)(in_size,
                                                                                 out_size)
    return _scale_and_translate_weights(in_size, out_size, method, antialias)


def _nearest_indices(in_size, out_size):
    scale = np.float32(in_size) / np.float32(out_size)
    x = (np.arange(out_size, dtype=np.float32) + np.float32(0.5)) * scale
    return np.clip(np.floor(x).astype(np.int64), 0, in_size - 1)


def _size(size):
    try:
        values = np.asarray(size._value if isinstance(size, Tensor) else size)
    except (TypeError, ValueError):
        raise ValueError("'size' must be a 1-D int32 Tensor") from None
    if values.dtype.kind not in "iu":
        raise ValueError(f"'size' must be a 1-D int32 Tensor, got {values.tolist()!r}")
    if values.shape != (2,):
        raise ValueError("'size' must be a 1-D Tensor of 2 elements: new_height, new_width")
    return int(values[0]), int(values[1])


def resize(images, size, method=ResizeMethod.BILINEAR, preserve_aspect_ratio=False,
           antialias=False, name=None):
    """Resize HWC or NHWC images to `size` = (new_height, new_width), as tf.image.resize.

    Args:
        method: "bilinear", "nearest", "bicubic", "area", "lanczos3", "lanczos5",
            "gaussian" or "mitchellcubic" (ResizeMethod).
        preserve_aspect_ratio: scale both sides by the smaller of the two ratios (rounded,
            in float32, as TF), so the result fits in `size`.
        antialias: widen the kernel when downsampling (all but nearest and area).

    Returns:
        float32 (float64 for float64 images); the input's dtype for "nearest".

    Raises:
        ValueError: for a rank other than 3 or 4, a bad `size`, an unknown method.
        InvalidArgumentError: for a non-positive output size.
    """
    x = as_tensor(images)
    if x._value.ndim not in (3, 4):
        raise ValueError("'images' must have either 3 or 4 dimensions.")
    method = str(method).lower()
    if method != "nearest" and method != "area" and method not in _KERNELS:
        raise ValueError(f"Resize method is not implemented: {method}")
    new_h, new_w = _size(size)
    h, w = x._value.shape[-3], x._value.shape[-2]
    if preserve_aspect_ratio:
        factor = min(np.float32(new_h) / np.float32(h), np.float32(new_w) / np.float32(w))
        new_h = int(np.round(factor * np.float32(h)))
        new_w = int(np.round(factor * np.float32(w)))
    if new_h <= 0 or new_w <= 0:
        raise InvalidArgumentError(f"resize: output dimensions must be positive, got "
                                   f"[{new_h}, {new_w}] [Op:ResizeBilinear]")
    if h == 0 or w == 0:
        raise InvalidArgumentError(f"resize: input image must be of non-zero size, got shape "
                                   f"{list(x._value.shape)}.")
    h_axis = x._value.ndim - 3
    if method == "nearest":
        out = _s.gather(x, Tensor(_nearest_indices(h, new_h)), axis=h_axis)
        return _s.gather(out, Tensor(_nearest_indices(w, new_w)), axis=h_axis + 1)
    if x.dtype != dtypes.float64:
        x = array_ops.cast(x, dtypes.float32) if x.dtype.is_floating else \
            Tensor(x._value.astype(np.float32))
    dtype = x._value.dtype
    wh = Tensor(_weights(h, new_h, method, antialias).astype(dtype))
    ww = Tensor(_weights(w, new_w, method, antialias).astype(dtype))
    perm = (2, 0, 1) if h_axis == 0 else (0, 3, 1, 2)       # channels ahead of H, W
    back = (1, 2, 0) if h_axis == 0 else (0, 2, 3, 1)
    t = _s.transpose(x, perm=perm)
    t = _m.matmul(_m.matmul(wh, t), ww, transpose_b=True)
    return _s.transpose(t, perm=back)


def resize_with_pad(image, target_height, target_width, method=ResizeMethod.BILINEAR,
                    antialias=False):
    """Resize to fit in `target_height` x `target_width` keeping the aspect ratio, then
    zero-pad to that size (centred), as tf.image.resize_with_pad.

    Raises:
        ValueError: for a rank other than 3 or 4 or a non-positive target size.
    """
    x = as_tensor(image)
    if x._value.ndim not in (3, 4):
        raise ValueError(f"'image' (shape {list(x._value.shape)}) must have either 3 or 4 "
                         f"dimensions.")
    th, tw = as_int(target_height, "target_height"), as_int(target_width, "target_width")
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    h, w = (np.float32(d) for d in x._value.shape[-3:-1])
    fth, ftw = np.float32(th), np.float32(tw)
    ratio = max(w / ftw, h / fth)
    rh, rw = h / ratio, w / ratio
    pad_h = max(0, int(np.floor((fth - rh) / np.float32(2))))
    pad_w = max(0, int(np.floor((ftw - rw) / np.float32(2))))
    resized = resize(x, [int(np.floor(rh)), int(np.floor(rw))], method, antialias=antialias)
    return pad_to_bounding_box(resized, pad_h, pad_w, th, tw)
