"""geometry.py holds tf.image's geometric ops: flips, rotations, crops and pads,
composed from tapeflow's array ops (so their gradients come from those ops) with
TF's argument checks and ValueError wording (tensorflow/python/ops/image_ops_impl.py,
random_crop_ops.py)."""

import numpy as np

from ..api import array_ops
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor
from ..math import elementwise
from ..ops import shape as _s
from .. import random as _random
from ._checks import as_int, image_3d_or_4d

__all__ = ["flip_left_right", "flip_up_down", "random_flip_left_right", "random_flip_up_down",
           "rot90", "transpose", "crop_to_bounding_box", "pad_to_bounding_box", "central_crop",
           "resize_with_crop_or_pad", "random_crop"]


def _reverse(x, axis):
    key = tuple(slice(None, None, -1) if i == axis else slice(None) for i in range(x._value.ndim))
    return _s.getitem(x, key=key)


def _flip(image, flip_index):
    x = image_3d_or_4d(image)
    return _reverse(x, flip_index + x._value.ndim - 3)


def flip_left_right(image):
    """Mirror an HWC or NHWC image along its width, as tf.image.flip_left_right.

    Raises:
        ValueError: if `image` is not of rank 3 or 4, or an inner dimension is 0.
    """
    return _flip(image, 1)


def flip_up_down(image):
    """Mirror an HWC or NHWC image along its height, as tf.image.flip_up_down.

    Raises:
        ValueError: if `image` is not of rank 3 or 4, or an inner dimension is 0.
    """
    return _flip(image, 0)


def _random_flip(image, flip_index, seed):
    x = image_3d_or_4d(image)
    if x._value.ndim == 3:
        # TF: one uniform draw, flip when it is below 0.5.
        u = float(_random.uniform([], 0, 1.0, seed=seed)._value)
        return _reverse(x, flip_index) if u < 0.5 else x
    # TF: one draw per image, flips = round(u) (0.5 rounds to even, 0), then
    # flips * flipped + (1 - flips) * image; a mask select has the same value and gradient.
    n = x._value.shape[0]
    u = _random.uniform([n], 0, 1.0, seed=seed)._value
    flips = np.round(u) == 1
    if not flips.any():
        return x
    flipped = _reverse(x, flip_index + 1)
    if flips.all():
        return flipped
    mask = np.broadcast_to(flips.reshape(n, 1, 1, 1), x._value.shape)
    return elementwise.where(Tensor(mask), flipped, x)


def random_flip_left_right(image, seed=None):
    """Flip an image (each image of a batch independently) along its width with
    probability 1/2, as tf.image.random_flip_left_right.

    Args:
        image: HWC or NHWC.
        seed: the op-level seed, with tf.random's seeding rules (tapeflow.random).
    """
    return _random_flip(image, 1, seed)


def random_flip_up_down(image, seed=None):
    """Flip an image (each image of a batch independently) along its height with
    probability 1/2, as tf.image.random_flip_up_down."""
    return _random_flip(image, 0, seed)


def rot90(image, k=1, name=None):
    """Rotate an HWC or NHWC image by `k` quarter turns counter-clockwise, as tf.image.rot90."""
    x = image_3d_or_4d(image)
    k = as_int(k, "k") % 4
    h = x._value.ndim - 3  # the height axis
    swap = list(range(x._value.ndim))
    swap[h], swap[h + 1] = swap[h + 1], swap[h]
    if k == 1:
        return _s.transpose(_reverse(x, h + 1), perm=tuple(swap))
    if k == 2:
        return _reverse(_reverse(x, h), h + 1)
    if k == 3:
        return _reverse(_s.transpose(x, perm=tuple(swap)), h + 1)
    return x


def transpose(image, name=None):
    """Swap height and width of an HWC or NHWC image, as tf.image.transpose."""
    x = image_3d_or_4d(image)
    perm = (1, 0, 2) if x._value.ndim == 3 else (0, 2, 1, 3)
    return _s.transpose(x, perm=perm)


def _hw(x):
    shape = x._value.shape
    return shape[-3], shape[-2]


def crop_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """The `target_height` x `target_width` window of `image` whose top-left corner is
    (`offset_height`, `offset_width`), as tf.image.crop_to_bounding_box.

    Raises:
        ValueError: for a bad rank, a negative offset, a non-positive target size, or a
            window that does not fit in the image (TF's messages).
    """
    x = image_3d_or_4d(image)
    oh, ow = as_int(offset_height, "offset_height"), as_int(offset_width, "offset_width")
    th, tw = as_int(target_height, "target_height"), as_int(target_width, "target_width")
    h, w = _hw(x)
    if ow < 0:
        raise ValueError("offset_width must be >= 0.")
    if oh < 0:
        raise ValueError("offset_height must be >= 0.")
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    if w < tw + ow:
        raise ValueError(f"width must be >= target + offset. (width {w}, target {tw}, "
                         f"offset {ow})")
    if h < th + oh:
        raise ValueError(f"height must be >= target + offset. (height {h}, target {th}, "
                         f"offset {oh})")
    lead = (slice(None),) * (x._value.ndim - 3)
    return _s.getitem(x, key=lead + (slice(oh, oh + th), slice(ow, ow + tw)))


def pad_to_bounding_box(image, offset_height, offset_width, target_height, target_width):
    """Zero-pad `image` to `target_height` x `target_width`, its top-left corner at
    (`offset_height`, `offset_width`), as tf.image.pad_to_bounding_box.

    Raises:
        ValueError: for a bad rank, a negative offset, or an image that does not fit in
            the target at that offset (TF's messages).
    """
    x = image_3d_or_4d(image)
    oh, ow = as_int(offset_height, "offset_height"), as_int(offset_width, "offset_width")
    th, tw = as_int(target_height, "target_height"), as_int(target_width, "target_width")
    h, w = _hw(x)
    after_w, after_h = tw - ow - w, th - oh - h
    if oh < 0:
        raise ValueError("offset_height must be >= 0")
    if ow < 0:
        raise ValueError("offset_width must be >= 0")
    if after_w < 0:
        raise ValueError(f"width must be <= target - offset (width {w}, target {tw}, "
                         f"offset {ow})")
    if after_h < 0:
        raise ValueError(f"height must be <= target - offset (height {h}, target {th}, "
                         f"offset {oh})")
    paddings = [[0, 0]] * (x._value.ndim - 3) + [[oh, after_h], [ow, after_w], [0, 0]]
    return array_ops.pad(x, paddings)


def central_crop(image, central_fraction):
    """The central `central_fraction` of each side of an image, as tf.image.central_crop.

    The border removed on each side is int((size - size * fraction) / 2), computed in
    float64 as TF does.

    Raises:
        ValueError: if `central_fraction` is not in (0, 1], or for a bad rank.
    """
    x = image_3d_or_4d(image)
    fraction = float(central_fraction)
    if fraction <= 0.0 or fraction > 1.0:
        raise ValueError("central_fraction must be within (0, 1]")
    if fraction == 1.0:
        return x
    h, w = _hw(x)
    top = int((np.float64(h) - np.float64(h) * fraction) / 2)
    left = int((np.float64(w) - np.float64(w) * fraction) / 2)
    lead = (slice(None),) * (x._value.ndim - 3)
    return _s.getitem(x, key=lead + (slice(top, h - top), slice(left, w - left)))


def resize_with_crop_or_pad(image, target_height, target_width):
    """Centre-crop and/or zero-pad an image to `target_height` x `target_width`, as
    tf.image.resize_with_crop_or_pad (an odd difference leaves the extra row or column
    at the bottom/right).

    Raises:
        ValueError: for a bad rank or a non-positive target size.
    """
    x = image_3d_or_4d(image)
    th, tw = as_int(target_height, "target_height"), as_int(target_width, "target_width")
    if tw <= 0:
        raise ValueError("target_width must be > 0.")
    if th <= 0:
        raise ValueError("target_height must be > 0.")
    h, w = _hw(x)
    dw, dh = tw - w, th - h
    cropped = crop_to_bounding_box(x, max(-dh // 2, 0), max(-dw // 2, 0), min(th, h),
                                   min(tw, w))
    return pad_to_bounding_box(cropped, max(dh // 2, 0), max(dw // 2, 0), th, tw)


def random_crop(value, size, seed=None, name=None):
    """A window of shape `size` at a uniformly random offset of `value`, as
    tf.random_crop / tf.image.random_crop.

    The offset is TF's: one int32 draw per axis in [0, 2**31 - 1) taken modulo
    (shape - size + 1), with tf.random's seeding rules.

    Raises:
        InvalidArgumentError: if `size` has the wrong length or exceeds `value`'s shape.
    """
    x = as_tensor(value)
    shape = x._value.shape
    sizes = np.asarray(size._value if isinstance(size, Tensor) else size)
    if sizes.ndim != 1 or sizes.dtype.kind not in "iu" or sizes.size != len(shape):
        raise InvalidArgumentError(f"random_crop: size must be a vector of {len(shape)} ints "
                                   f"(the rank of value, shape {list(shape)}), got "
                                   f"{sizes.tolist()}.")
    sizes = [int(s) for s in sizes]
    if any(s < 0 or s > d for s, d in zip(sizes, shape)):
        raise InvalidArgumentError(f"Need value.shape >= size, got {list(shape)} {sizes}")
    limit = np.array([d - s + 1 for d, s in zip(shape, sizes)], np.int64)
    draws = _random.uniform([len(shape)], 0, np.iinfo(np.int32).max, dtype="int32",
                            seed=seed)._value.astype(np.int64)
    offset = draws % limit
    return _s.getitem(x, key=tuple(slice(int(o), int(o) + s) for o, s in zip(offset, sizes)))

