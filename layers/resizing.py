"""resizing.py holds the layers that change spatial sizes without weights:
UpSampling2D (nearest or bilinear), ZeroPadding1D/2D and Cropping1D/2D. Each
is a fixed linear map written with broadcast/reshape, matmul, pad or slicing
ops, so gradients come from the op library."""

import numbers

import numpy as np

from ..api.array_ops import broadcast_to, pad, reshape
from ..linalg import matmul
from ..core.tensor import Tensor
from .base import InputSpec, Layer
from .conv import from_channels_last, normalize_data_format, normalize_tuple, to_channels_last

__all__ = ["UpSampling2D", "ZeroPadding1D", "ZeroPadding2D", "Cropping1D", "Cropping2D"]


def _bilinear_matrix(size, scale, dtype):
    """(size * scale, size) weights of half-pixel-centred bilinear resizing with
    clamped edges (TF's resize_bilinear with half_pixel_centers=True)."""
    out = np.arange(size * scale)
    source = np.clip((out + 0.5) / scale - 0.5, 0, size - 1)
    low = np.floor(source).astype(np.int64)
    high = np.minimum(low + 1, size - 1)
    frac = source - low
    matrix = np.zeros((size * scale, size))
    matrix[out, low] += 1 - frac
    matrix[out, high] += frac
    return matrix.astype(dtype)


class UpSampling2D(Layer):
    """Repeat rows and columns: (batch, H, W, C) -> (batch, H * sh, W * sw, C).

    Args:
        size: an int or 2 ints, the factors for rows and columns (default 2).
        data_format: 'channels_last' (default) or 'channels_first'.
        interpolation: 'nearest' (each value repeated) or 'bilinear'
            (half-pixel centres, edges clamped, as tf.image.resize).

    Raises:
        ValueError: for a bad size, interpolation or input rank.
    """

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        self.size = normalize_tuple(size, 2, "size", self.name)
        self.data_format = normalize_data_format(data_format, self.name)
        if interpolation not in ("nearest", "bilinear"):
            raise ValueError(f"Layer {self.name!r}: `interpolation` must be 'nearest' or "
                             f"'bilinear'. Received: interpolation={interpolation!r}")
        self.interpolation = interpolation
        self.input_spec = InputSpec(ndim=4)

    def call(self, inputs):
        x = to_channels_last(inputs, 2, self.data_format)
        n, h, w, c = x.shape
        sh, sw = self.size
        if self.interpolation == "nearest":
            tiled = broadcast_to(reshape(x, (n, h, 1, w, 1, c)), (n, h, sh, w, sw, c))
            out = reshape(tiled, (n, h * sh, w * sw, c))
        else:
            dtype = x._value.dtype
            rows = Tensor(_bilinear_matrix(h, sh, dtype))                 # (H', H)
            cols = Tensor(_bilinear_matrix(w, sw, dtype))                 # (W', W)
            # Rows: (H', H) @ (n, H, W * C); columns: (W', W) @ (n, H', W, C) per row.
            out = matmul(rows, reshape(x, (n, h, w * c)))
            out = reshape(out, (n * h * sh, w, c))
            out = reshape(matmul(cols, out), (n, h * sh, w * sw, c))
        return from_channels_last(out, 2, self.data_format)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        axes = (1, 2) if self.data_format == "channels_last" else (2, 3)
        for axis, factor in zip(axes, self.size):
            shape[axis] = None if shape[axis] is None else shape[axis] * factor
        return tuple(shape)

    def get_config(self):
        config = super().get_config()
        config.update({"size": self.size, "data_format": self.data_format,
                       "interpolation": self.interpolation})
        return config


def _pairs(value, n, what, layer_name):
    """An int, n ints (symmetric) or n pairs of ints, as n (before, after) pairs;
    for n == 1 a single (before, after) pair is accepted too."""
    def is_int(v):
        return isinstance(v, numbers.Integral) and not isinstance(v, bool)

    def fail():
        raise ValueError(f"Layer {layer_name!r}: `{what}` should be an int, a tuple of {n} "
                         f"ints or a tuple of {n} tuples of 2 non-negative ints. Received: "
                         f"{what}={value!r}")

    if is_int(value):
        result = ((int(value), int(value)),) * n
    else:
        try:
            items = list(value)
        except TypeError:
            fail()
        if n == 1 and len(items) == 2 and all(is_int(v) for v in items):
            items = [tuple(items)]
        if len(items) != n:
            fail()
        result = []
        for item in items:
            if is_int(item):
                result.append((int(item), int(item)))
            elif isinstance(item, (list, tuple)) and len(item) == 2 and all(
                    is_int(v) for v in item):
                result.append((int(item[0]), int(item[1])))
            else:
                fail()
        result = tuple(result)
    if any(a < 0 or b < 0 for a, b in result):
        fail()
    return result


class _Padding(Layer):
    rank = 2

    def __init__(self, padding, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.padding = _pairs(padding, self.rank, "padding", self.name)
        self.data_format = normalize_data_format(data_format, self.name)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _spatial_axes(self):
        first = 1 if self.data_format == "channels_last" else 2
        return tuple(range(first, first + self.rank))

    def call(self, inputs):
        pads = [[0, 0]] * (self.rank + 2)
        for axis, pair in zip(self._spatial_axes(), self.padding):
            pads[axis] = list(pair)
        return pad(inputs, pads)

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        for axis, (a, b) in zip(self._spatial_axes(), self.padding):
            shape[axis] = None if shape[axis] is None else shape[axis] + a + b
        return tuple(shape)

    def get_config(self):
        config = super().get_config()
        config.update({"padding": self.padding, "data_format": self.data_format})
        return config


class ZeroPadding2D(_Padding):
    """Add rows and columns of zeros: `padding` is an int, (rows, cols), or
    ((top, bottom), (left, right)); default 1 everywhere."""

    rank = 2

    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(padding, data_format, **kwargs)


class ZeroPadding1D(_Padding):
    """Add zero steps: `padding` is an int or (left, right); default 1.
    Inputs are (batch, steps, channels)."""

    rank = 1

    def __init__(self, padding=1, **kwargs):
        super().__init__(padding, None, **kwargs)

    def get_config(self):
        config = super().get_config()
        config.pop("data_format")
        config["padding"] = self.padding[0]
        return config


class _Cropping(Layer):
    rank = 2

    def __init__(self, cropping, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.cropping = _pairs(cropping, self.rank, "cropping", self.name)
        self.data_format = normalize_data_format(data_format, self.name)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _spatial_axes(self):
        first = 1 if self.data_format == "channels_last" else 2
        return tuple(range(first, first + self.rank))

    def _check(self, shape):
        for axis, (a, b) in zip(self._spatial_axes(), self.cropping):
            if shape[axis] is not None and a + b >= shape[axis]:
                raise ValueError(f"Layer {self.name!r}: cropping {self.cropping} leaves "
                                 f"nothing of the input of shape {tuple(shape)} (axis {axis} "
                                 f"has {shape[axis]} entries).")

    def call(self, inputs):
        shape = tuple(inputs.shape)
        self._check(shape)
        key = [slice(None)] * len(shape)
        for axis, (a, b) in zip(self._spatial_axes(), self.cropping):
            key[axis] = slice(a, shape[axis] - b)
        return inputs[tuple(key)]

    def compute_output_shape(self, input_shape):
        shape = list(input_shape)
        self._check(shape)
        for axis, (a, b) in zip(self._spatial_axes(), self.cropping):
            shape[axis] = None if shape[axis] is None else shape[axis] - a - b
        return tuple(shape)

    def get_config(self):
        config = super().get_config()
        config.update({"cropping": self.cropping, "data_format": self.data_format})
        return config


class Cropping2D(_Cropping):
    """Remove rows and columns at the borders: `cropping` is an int, (rows, cols),
    or ((top, bottom), (left, right)); default 0.

    Raises:
        ValueError: for a cropping that leaves nothing, naming the input shape.
    """

    rank = 2

    def __init__(self, cropping=((0, 0), (0, 0)), data_format=None, **kwargs):
        super().__init__(cropping, data_format, **kwargs)


class Cropping1D(_Cropping):
    """Remove steps at the start and end: `cropping` is an int or (start, end);
    default (1, 1)."""

    rank = 1

    def __init__(self, cropping=(1, 1), **kwargs):
        super().__init__(cropping, None, **kwargs)

    def get_config(self):
        config = super().get_config()
        config.pop("data_format")
        config["cropping"] = self.cropping[0]
        return config
