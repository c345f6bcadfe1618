"""Argument checks shared by tf.image's families, with TF's ValueError wording
(tensorflow/python/ops/image_ops_impl.py: _CheckAtLeast3DImage and friends)."""

from ..core.tensor import as_tensor

__all__ = []


def image_3d_or_4d(image, name="image"):
    """`image` as a Tensor of rank 3 (HWC) or 4 (NHWC) whose inner 3 dims are positive."""
    x = as_tensor(image)
    shape = x._value.shape
    if len(shape) < 3:
        raise ValueError(f"'{name}' (shape {list(shape)}) must be at least three-dimensional.")
    if len(shape) > 4:
        raise ValueError(f"'{name}' (shape {list(shape)}) must have either 3 or 4 dimensions.")
    if any(d == 0 for d in shape[-3:]):
        raise ValueError(f"inner 3 dims of '{name}.shape' must be > 0: {list(shape)}")
    return x


def at_least_3d(image, name="image"):
    """`image` as a Tensor of rank >= 3 whose inner 3 dims are positive."""
    x = as_tensor(image)
    shape = x._value.shape
    if len(shape) < 3:
        raise ValueError(f"'{name}' (shape {list(shape)}) must be at least three-dimensional.")
    if any(d == 0 for d in shape[-3:]):
        raise ValueError(f"inner 3 dims of '{name}.shape' must be > 0: {list(shape)}")
    return x


def as_int(value, name):
    """A Python int from an int, NumPy integer or scalar integer Tensor."""
    v = as_tensor(value)._value
    if v.ndim != 0 or v.dtype.kind not in "iu":
        raise TypeError(f"`{name}` must be a scalar integer, got {value!r}.")
    return int(v)
