"""pooling.py holds the pooling layers: MaxPooling1D/2D and AveragePooling1D/2D
(windows, through the tf.nn pool ops and their Numba kernels), MaxPooling3D and
AveragePooling3D (composites of strided slices: no kernel of their own) and the global
average / max pools of 1, 2 and 3 spatial dims (one reduction). Shapes follow Keras 3, channels_last by
default."""

from .. import nn as _nn
import numpy as np

from ..api.array_ops import cast, expand_dims, pad, stack
from ..core.tensor import Tensor
from ..math import divide, maximum, multiply, reduce_max, reduce_mean, reduce_sum
from .base import InputSpec, Layer
from .conv import (conv_output_length, from_channels_last, normalize_data_format,
                   normalize_padding, normalize_tuple, to_channels_last)

__all__ = ["MaxPooling1D", "MaxPooling2D", "AveragePooling1D", "AveragePooling2D",
           "GlobalAveragePooling1D", "GlobalAveragePooling2D", "GlobalMaxPooling1D",
           "GlobalMaxPooling2D", "MaxPool1D", "MaxPool2D", "AvgPool1D", "AvgPool2D",
           "GlobalAvgPool1D", "GlobalAvgPool2D", "GlobalMaxPool1D", "GlobalMaxPool2D",
           "GlobalAveragePooling3D", "GlobalMaxPooling3D", "GlobalAvgPool3D", "GlobalMaxPool3D",
           "MaxPooling3D", "AveragePooling3D", "MaxPool3D", "AvgPool3D"]

_NO_DEFAULT = object()


class _Pooling(Layer):
    rank = 2
    _op = None

    def __init__(self, pool_size, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        if pool_size is _NO_DEFAULT:
            raise TypeError(f"{type(self).__name__}.__init__() missing 1 required argument: "
                            "'pool_size' (average pooling has no default pool size).")
        n = self.rank
        self.pool_size = normalize_tuple(pool_size, n, "pool_size", self.name)
        self.strides = self.pool_size if strides is None else normalize_tuple(
            strides, n, "strides", self.name)
        self.padding = normalize_padding(padding, self.name)
        self.data_format = normalize_data_format(data_format, self.name)
        self.input_spec = InputSpec(ndim=n + 2)

    def call(self, inputs):
        x = to_channels_last(inputs, self.rank, self.data_format)
        pool = type(self)._op
        out = pool(x, self.pool_size, self.strides, self.padding.upper())
        return from_channels_last(out, self.rank, self.data_format)

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        first = self.data_format == "channels_last"
        spatial = shape[1:-1] if first else shape[2:]
        out = tuple(conv_output_length(d, k, self.padding, s) for d, k, s in
                    zip(spatial, self.pool_size, self.strides))
        return (shape[0],) + out + (shape[-1],) if first else shape[:2] + out

    def get_config(self):
        config = super().get_config()
        config.update({"pool_size": self.pool_size, "strides": self.strides,
                       "padding": self.padding, "data_format": self.data_format})
        return config


class MaxPooling2D(_Pooling):
    """The maximum over (ph, pw) windows: (batch, H, W, C) -> (batch, H', W', C).

    Args:
        pool_size: an int or 2 ints (default 2).
        strides: an int or 2 ints (default `pool_size`).
        padding: 'valid' or 'same' (padding cells never win).
        data_format: 'channels_last' (default) or 'channels_first'.

    Raises:
        ValueError: for bad arguments or an input that is not 4-D.
    """

    rank = 2
    _op = staticmethod(_nn.max_pool2d)

    def __init__(self, pool_size=(2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class MaxPooling1D(_Pooling):
    """The maximum over windows of `pool_size` steps (default 2): (batch, steps, C)."""

    rank = 1
    _op = staticmethod(_nn.max_pool1d)

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling2D(_Pooling):
    """The mean over (ph, pw) windows; `pool_size` is required (no default, as
    Keras 3). With 'same' padding each mean is over the real cells only."""

    rank = 2
    _op = staticmethod(_nn.avg_pool2d)

    def __init__(self, pool_size=_NO_DEFAULT, strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling1D(_Pooling):
    """The mean over windows of `pool_size` steps (required); 'same' padding
    averages over the real steps only."""

    rank = 1
    _op = staticmethod(_nn.avg_pool1d)

    def __init__(self, pool_size=_NO_DEFAULT, strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


def _same_padding(size, k, s):
    """(before, after) of TF's 'SAME' padding of one dimension."""
    total = max((-(-size // s) - 1) * s + k - size, 0)
    return total // 2, total - total // 2


def _windows(x, ksize, strides):
    """The k_d * k_h * k_w strided views of a (N, D, H, W, C) tensor, stacked on axis 0:
    element j of the window of each output cell, for every j."""
    spans = [max((n - k) // s + 1, 0) for n, k, s in zip(x.shape[1:4], ksize, strides)]

    def cut(start, axis):  # the strided slice of window offset `start` on spatial `axis`
        return slice(start, start + (spans[axis] - 1) * strides[axis] + 1 if spans[axis]
                     else start, strides[axis])

    views = [x[:, cut(a, 0), cut(b, 1), cut(c, 2), :]
             for a in range(ksize[0]) for b in range(ksize[1]) for c in range(ksize[2])]
    return stack(views, axis=0)


def _padded(x, ksize, strides, padding, value):
    if padding == "VALID":
        return x, None
    pads = [_same_padding(n, k, s) for n, k, s in zip(x.shape[1:4], ksize, strides)]
    return pad(x, [[0, 0], *pads, [0, 0]], constant_values=value), pads


def max_pool3d(x, ksize, strides, padding):
    """3-D max pooling of (N, D, H, W, C) as a composite of strided slices and a max
    over the stacked windows ('SAME' pads with -inf, which is never a window's max).
    Where a window holds tied maxima the gradient is shared among them (reduce_max's
    rule); TF's MaxPool3DGrad gives it all to one."""
    x, _ = _padded(x, ksize, strides, padding, -np.inf)
    return reduce_max(_windows(x, ksize, strides), axis=0)


def avg_pool3d(x, ksize, strides, padding):
    """3-D average pooling of (N, D, H, W, C); 'SAME' averages over the real cells
    only, as TF (the padded zeros are not counted)."""
    padded, pads = _padded(x, ksize, strides, padding, 0)
    total = reduce_sum(_windows(padded, ksize, strides), axis=0)
    if pads is None:
        return divide(total, cast(Tensor(np.prod(ksize)), total.dtype))
    ones = np.pad(np.ones((1,) + tuple(x.shape[1:4]) + (1,), x.dtype.as_numpy_dtype),
                  [(0, 0), *pads, (0, 0)])
    counts = reduce_sum(_windows(Tensor(ones), ksize, strides), axis=0)
    return divide(total, cast(counts, total.dtype))


class MaxPooling3D(_Pooling):
    """Max pooling over (D, H, W) windows: (batch, D, H, W, C) -> pooled, as Keras.

    Args:
        pool_size: an int or 3 ints (default 2).
        strides: an int, 3 ints, or None for `pool_size`.
        padding: 'valid' or 'same'.
        data_format: 'channels_last' (default) or 'channels_first'.
    """

    rank = 3
    _op = staticmethod(max_pool3d)

    def __init__(self, pool_size=(2, 2, 2), strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class AveragePooling3D(_Pooling):
    """Average pooling over (D, H, W) windows; `pool_size` is required (Keras 3);
    'same' padding averages over the real cells only."""

    rank = 3
    _op = staticmethod(avg_pool3d)

    def __init__(self, pool_size=_NO_DEFAULT, strides=None, padding="valid", data_format=None,
                 **kwargs):
        super().__init__(pool_size, strides, padding, data_format, **kwargs)


class _GlobalPooling(Layer):
    rank = 2

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.data_format = normalize_data_format(data_format, self.name)
        self.keepdims = bool(keepdims)
        self.input_spec = InputSpec(ndim=self.rank + 2)

    def _axes(self):
        if self.data_format == "channels_last":
            return tuple(range(1, self.rank + 1))
        return tuple(range(2, self.rank + 2))

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        axes = self._axes()
        if self.keepdims:
            return tuple(1 if i in axes else d for i, d in enumerate(shape))
        return tuple(d for i, d in enumerate(shape) if i not in axes)

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        config = super().get_config()
        config.update({"data_format": self.data_format, "keepdims": self.keepdims})
        return config


class GlobalAveragePooling2D(_GlobalPooling):
    """The mean over H and W: (batch, H, W, C) -> (batch, C), or (batch, 1, 1, C)
    with `keepdims=True`."""

    rank = 2

    def call(self, inputs):
        return reduce_mean(inputs, axis=self._axes(), keepdims=self.keepdims)


class GlobalMaxPooling2D(_GlobalPooling):
    """The maximum over H and W: (batch, H, W, C) -> (batch, C) (keepdims as above)."""

    rank = 2

    def call(self, inputs):
        return reduce_max(inputs, axis=self._axes(), keepdims=self.keepdims)


class GlobalAveragePooling1D(_GlobalPooling):
    """The mean over the steps: (batch, steps, C) -> (batch, C).

    With a mask (batch, steps) -- from Embedding(mask_zero=True) or `mask=` --
    the mean is over the unmasked steps only, as Keras.
    """

    rank = 1

    def call(self, inputs, mask=None):
        axis = self._axes()[0]
        if mask is None:
            return reduce_mean(inputs, axis=axis, keepdims=self.keepdims)
        weights = cast(mask, inputs.dtype)
        weights = expand_dims(weights, 2 if self.data_format == "channels_last" else 1)
        total = reduce_sum(multiply(inputs, weights), axis=axis, keepdims=self.keepdims)
        count = reduce_sum(weights, axis=axis, keepdims=self.keepdims)
        return divide(total, maximum(count, 1.0))


class GlobalMaxPooling1D(_GlobalPooling):
    """The maximum over the steps: (batch, steps, C) -> (batch, C)."""

    rank = 1

    def call(self, inputs):
        return reduce_max(inputs, axis=self._axes()[0], keepdims=self.keepdims)


class GlobalAveragePooling3D(_GlobalPooling):
    """The mean over D, H and W: (batch, D, H, W, C) -> (batch, C), or
    (batch, 1, 1, 1, C) with `keepdims=True`."""

    rank = 3

    def call(self, inputs):
        return reduce_mean(inputs, axis=self._axes(), keepdims=self.keepdims)


class GlobalMaxPooling3D(_GlobalPooling):
    """The maximum over D, H and W: (batch, D, H, W, C) -> (batch, C) (keepdims as above)."""

    rank = 3

    def call(self, inputs):
        return reduce_max(inputs, axis=self._axes(), keepdims=self.keepdims)


# Keras's aliases.
MaxPool1D, MaxPool2D, AvgPool1D, AvgPool2D = (MaxPooling1D, MaxPooling2D, AveragePooling1D,
                                              AveragePooling2D)
GlobalAvgPool1D, GlobalAvgPool2D = GlobalAveragePooling1D, GlobalAveragePooling2D
GlobalMaxPool1D, GlobalMaxPool2D = GlobalMaxPooling1D, GlobalMaxPooling2D
GlobalAvgPool3D, GlobalMaxPool3D = GlobalAveragePooling3D, GlobalMaxPooling3D
MaxPool3D, AvgPool3D = MaxPooling3D, AveragePooling3D
