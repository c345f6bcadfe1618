"""reshaping.py holds the layers that only move values: Flatten, Reshape, Permute
and RepeatVector. Each is one reshape/transpose/broadcast op, so gradients come
from the op library; padding, cropping and upsampling live elsewhere."""

import numpy as np

from ..api.array_ops import broadcast_to, expand_dims, reshape, transpose
from .base import InputSpec, Layer

__all__ = ["Flatten", "Reshape", "Permute", "RepeatVector"]


def _check_data_format(data_format, layer):
    data_format = "channels_last" if data_format is None else str(data_format).lower()
    if data_format not in ("channels_last", "channels_first"):
        raise ValueError(f"Layer {layer}: data_format must be 'channels_last' or "
                         f"'channels_first', got {data_format!r}.")
    return data_format


class Flatten(Layer):
    """Flatten all axes but the batch axis: (batch, ...) -> (batch, prod(...)).

    With `data_format='channels_first'` the channel axis is moved last first,
    so that the order of features matches a channels_last model.
    """

    def __init__(self, data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.data_format = _check_data_format(data_format, self.name)
        self.input_spec = InputSpec(min_ndim=1)

    def call(self, inputs):
        shape = inputs.shape
        if self.data_format == "channels_first" and len(shape) > 2:
            inputs = transpose(inputs, (0,) + tuple(range(2, len(shape))) + (1,))
        return reshape(inputs, (shape[0], -1) if shape[0] else (0, int(np.prod(shape[1:]))))

    def compute_output_shape(self, input_shape):
        rest = tuple(input_shape)[1:]
        size = None if any(d is None for d in rest) else int(np.prod(rest, dtype=np.int64))
        return (tuple(input_shape)[0], size)

    def get_config(self):
        config = super().get_config()
        config["data_format"] = self.data_format
        return config


class Reshape(Layer):
    """Reshape each example to `target_shape` (the batch axis is kept; one entry
    may be -1).

    Raises:
        ValueError: if an input's size does not fit `target_shape`, naming the
            layer and both shapes.
    """

    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(int(d) for d in target_shape)
        if sum(d == -1 for d in self.target_shape) > 1 or any(
                d < -1 or d == 0 for d in self.target_shape):
            raise ValueError(f"Layer {self.name!r}: invalid target_shape {self.target_shape}; "
                             "use positive sizes and at most one -1.")

    def _resolve(self, input_shape):
        size = int(np.prod(tuple(input_shape)[1:], dtype=np.int64))
        known = int(np.prod([d for d in self.target_shape if d != -1], dtype=np.int64))
        if -1 in self.target_shape:
            if size % known:
                raise ValueError(self._mismatch(input_shape))
            return tuple(size // known if d == -1 else d for d in self.target_shape)
        if known != size:
            raise ValueError(self._mismatch(input_shape))
        return self.target_shape

    def _mismatch(self, input_shape):
        return (f"Layer {self.name!r}: cannot reshape input of shape {tuple(input_shape)} "
                f"({int(np.prod(tuple(input_shape)[1:], dtype=np.int64))} values per example) "
                f"to target_shape {self.target_shape}.")

    def call(self, inputs):
        return reshape(inputs, (inputs.shape[0],) + self._resolve(inputs.shape))

    def compute_output_shape(self, input_shape):
        if any(d is None for d in tuple(input_shape)[1:]):
            return (tuple(input_shape)[0],) + tuple(None if d == -1 else d
                                                    for d in self.target_shape)
        return (tuple(input_shape)[0],) + self._resolve(input_shape)

    def get_config(self):
        config = super().get_config()
        config["target_shape"] = self.target_shape
        return config


class Permute(Layer):
    """Permute the non-batch axes: `dims` is a permutation of 1..rank-1
    (1-indexed, as in Keras).

    Raises:
        ValueError: if `dims` is not such a permutation, or the input rank is
            not len(dims) + 1.
    """

    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(int(d) for d in dims)
        if sorted(self.dims) != list(range(1, len(self.dims) + 1)):
            raise ValueError(f"Layer {self.name!r}: invalid permutation argument `dims` "
                             f"{self.dims}; it must be a permutation of 1..{len(self.dims)} "
                             "(the batch axis 0 cannot be permuted).")
        self.input_spec = InputSpec(ndim=len(self.dims) + 1)

    def call(self, inputs):
        return transpose(inputs, (0,) + self.dims)

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        return (shape[0],) + tuple(shape[d] for d in self.dims)

    def get_config(self):
        config = super().get_config()
        config["dims"] = self.dims
        return config


class RepeatVector(Layer):
    """Repeat a (batch, features) input `n` times: (batch, n, features).

    Raises:
        ValueError: for an input that is not 2-D.
    """

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        if not isinstance(n, int) or n <= 0:
            raise ValueError(f"Layer {self.name!r}: n must be a positive int, got {n!r}.")
        self.n = n
        self.input_spec = InputSpec(ndim=2)

    def call(self, inputs):
        batch, features = inputs.shape
        return broadcast_to(expand_dims(inputs, 1), (batch, self.n, features))

    def compute_output_shape(self, input_shape):
        return (tuple(input_shape)[0], self.n, tuple(input_shape)[1])

    def get_config(self):
        config = super().get_config()
        config["n"] = self.n
        return config
