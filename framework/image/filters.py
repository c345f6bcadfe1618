"""filters.py holds tf.image's neighbourhood ops: total_variation, image_gradients,
sobel_edges and extract_patches, composed from slices, pads and sums with TF's formulas
(tensorflow/python/ops/image_ops_impl.py), so their gradients come from those ops."""

import numpy as np

from .. import math as _math
from ..api import array_ops
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor
from ..ops import shape as _s

__all__ = ["total_variation", "image_gradients", "sobel_edges", "extract_patches"]


def total_variation(images, name=None):
    """The sum of absolute differences of neighbouring pixels (down and across), per image
    for NHWC (shape (N,)), a scalar for HWC, as tf.image.total_variation.

    Raises:
        ValueError: if `images` is not of rank 3 or 4 (TF's message).
    """
    x = as_tensor(images)
    ndim = x._value.ndim
    if ndim not in (3, 4):
        raise ValueError("'images' must be either 3 or 4-dimensional.")
    lead = (slice(None),) * (ndim - 3)
    down = _math.subtract(_s.getitem(x, key=lead + (slice(1, None),)),
                          _s.getitem(x, key=lead + (slice(None, -1),)))
    across = _math.subtract(_s.getitem(x, key=lead + (slice(None), slice(1, None))),
                            _s.getitem(x, key=lead + (slice(None), slice(None, -1))))
    axis = None if ndim == 3 else [1, 2, 3]
    return _math.add(_math.reduce_sum(_math.abs(down), axis=axis),
                     _math.reduce_sum(_math.abs(across), axis=axis))


def image_gradients(image):
    """(dy, dx): forward differences down and across, zero in the last row / column, each
    of the image's shape, as tf.image.image_gradients.

    Raises:
        ValueError: if `image` is not 4-D (TF's message).
    """
    x = as_tensor(image)
    if x._value.ndim != 4:
        raise ValueError(f"image_gradients expects a 4D tensor [batch_size, h, w, d], not "
                         f"{list(x._value.shape)}.")
    _, h, w, _ = x._value.shape
    dy = _math.subtract(_s.getitem(x, key=(slice(None), slice(1, None))),
                        _s.getitem(x, key=(slice(None), slice(None, -1))))
    dx = _math.subtract(_s.getitem(x, key=(slice(None), slice(None), slice(1, None))),
                        _s.getitem(x, key=(slice(None), slice(None), slice(None, -1))))
    dy = array_ops.pad(dy, [[0, 0], [0, 1], [0, 0], [0, 0]]) if h else dy
    dx = array_ops.pad(dx, [[0, 0], [0, 0], [0, 1], [0, 0]]) if w else dx
    return dy, dx


# TF's two 3x3 kernels, applied as a cross-correlation: [vertical (dy), horizontal (dx)].
_SOBEL = np.array([[[-1, -2, -1], [0, 0, 0], [1, 2, 1]],
                   [[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]]], np.float64)


def sobel_edges(image):
    """The Sobel responses of each channel, shape (N, H, W, C, 2) with [..., 0] the
    vertical (dy) and [..., 1] the horizontal (dx) one, over a REFLECT-padded image, as
    tf.image.sobel_edges.

    Raises:
        ValueError: if `image` is not 4-D.
    """
    x = as_tensor(image)
    if x._value.ndim != 4:
        raise ValueError(f"sobel_edges expects a 4D tensor [batch_size, h, w, d], not "
                         f"{list(x._value.shape)}.")
    if not x.dtype.is_floating:
        raise TypeError(f"sobel_edges: 'image' must be a float tensor, got {x.dtype.name}.")
    _, h, w, _ = x._value.shape
    if h < 2 or w < 2:
        raise InvalidArgumentError(f"sobel_edges: REFLECT padding needs height and width of at "
                                   f"least 2, got shape {list(x._value.shape)}.")
    # REFLECT padding of height and width by one, as gathers (tf.pad refuses an empty batch).
    padded = _s.gather(x, Tensor(np.r_[1, np.arange(h), h - 2]), axis=1)
    padded = _s.gather(padded, Tensor(np.r_[1, np.arange(w), w - 2]), axis=2)
    outputs = []
    for kernel in _SOBEL:
        total = None
        for i in range(3):
            for j in range(3):
                if kernel[i, j] == 0:
                    continue
                window = _s.getitem(padded, key=(slice(None), slice(i, i + h), slice(j, j + w)))
                term = _math.multiply(window, Tensor(np.asarray(kernel[i, j], x._value.dtype)))
                total = term if total is None else _math.add(total, term)
        outputs.append(total)
    return array_ops.stack(outputs, axis=-1)


def _window_arg(values, name):
    try:
        v = [int(d) for d in (values._value.tolist() if isinstance(values, Tensor) else values)]
    except (TypeError, ValueError):
        raise InvalidArgumentError(f"extract_patches: `{name}` must be a list of 4 ints, got "
                                   f"{values!r}.") from None
    if len(v) != 4:
        raise InvalidArgumentError(f"Sliding window {name} field must specify 4 dimensions, "
                                   f"got {v}.")
    if v[0] != 1 or v[3] != 1:
        raise InvalidArgumentError(f"Only support {name} across space, got {v} (the batch and "
                                   f"depth entries must be 1).")
    if min(v) < 1:
        raise InvalidArgumentError(f"extract_patches: `{name}` must be positive, got {v}.")
    return v[1], v[2]


def extract_patches(images, sizes, strides, rates, padding):
    """The `sizes` patches of each image, flattened (patch row, patch column, channel)
    into the last axis, as tf.image.extract_patches.

    Args:
        images: NHWC.
        sizes, strides, rates: [1, rows, cols, 1] each (rates dilate the patch).
        padding: "VALID", or "SAME" (zero padding, the extra row/column after).

    Returns:
        (N, out_rows, out_cols, rows * cols * C).

    Raises:
        ValueError: if `images` is not 4-D. InvalidArgumentError: for bad window arguments.
    """
    x = as_tensor(images)
    if x._value.ndim != 4:
        raise ValueError(f"extract_patches: 'images' must be 4-D [batch, in_rows, in_cols, "
                         f"depth], got shape {list(x._value.shape)}.")
    kr, kc = _window_arg(sizes, "ksizes")
    sr, sc = _window_arg(strides, "strides")
    rr, rc = _window_arg(rates, "rates")
    padding = str(padding).upper()
    if padding not in ("VALID", "SAME"):
        raise ValueError(f"padding must be 'VALID' or 'SAME', got {padding!r}.")
    n, h, w, d = x._value.shape
    er, ec = kr + (kr - 1) * (rr - 1), kc + (kc - 1) * (rc - 1)   # dilated extent
    if padding == "VALID":
        out_h, out_w = max((h - er) // sr + 1, 0), max((w - ec) // sc + 1, 0)
        top = left = 0
    else:
        out_h, out_w = -(-h // sr), -(-w // sc)
        pad_h = max((out_h - 1) * sr + er - h, 0)
        pad_w = max((out_w - 1) * sc + ec - w, 0)
        top, left = pad_h // 2, pad_w // 2
        x = array_ops.pad(x, [[0, 0], [top, pad_h - top], [left, pad_w - left], [0, 0]])
    pieces = []
    for i in range(kr):
        for j in range(kc):
            r0, c0 = i * rr, j * rc
            pieces.append(_s.getitem(x, key=(slice(None),
                                             slice(r0, r0 + (out_h - 1) * sr + 1, sr),
                                             slice(c0, c0 + (out_w - 1) * sc + 1, sc))))
    if out_h == 0 or out_w == 0:
        return Tensor(np.zeros((n, out_h, out_w, kr * kc * d), x._value.dtype))
    return array_ops.reshape(array_ops.stack(pieces, axis=3), [n, out_h, out_w, kr * kc * d])
