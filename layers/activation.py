"""activation.py holds the activation layers with parameters: ReLU, LeakyReLU,
PReLU (a learned slope), ELU and Softmax (with an optional mask). The math is
in tapeflow.activations; these layers add configuration and weights."""

import numpy as np

from .. import activations, constraints, initializers, regularizers
from ..api.array_ops import cast, stop_gradient
from ..math import add, divide, exp, multiply, negative, reduce_max, reduce_sum, subtract
from ..nn import relu as _relu
from ..core.tensor import Tensor
from .base import InputSpec, Layer

__all__ = ["ReLU", "LeakyReLU", "PReLU", "ELU", "Softmax"]


class _Elementwise(Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def compute_output_shape(self, input_shape):
        return input_shape


class ReLU(_Elementwise):
    """Keras's ReLU: `max_value` caps the output, values below `threshold` are
    `negative_slope * (x - threshold)`, the rest are x.

    Raises:
        ValueError: for a negative max_value or negative_slope.
    """

    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        if max_value is not None and max_value < 0.0:
            raise ValueError(f"Layer {self.name!r}: max_value of a ReLU layer cannot be a "
                             f"negative value. Received: {max_value}")
        if negative_slope is None or negative_slope < 0.0:
            raise ValueError(f"Layer {self.name!r}: negative_slope of a ReLU layer cannot be a "
                             f"negative value. Received: {negative_slope}")
        if threshold is None:
            raise ValueError(f"Layer {self.name!r}: threshold of a ReLU layer cannot be None.")
        self.max_value = max_value
        self.negative_slope = negative_slope
        self.threshold = threshold

    def call(self, inputs):
        return activations.relu(inputs, negative_slope=self.negative_slope,
                                max_value=self.max_value, threshold=self.threshold)

    def get_config(self):
        config = super().get_config()
        config.update({"max_value": self.max_value, "negative_slope": self.negative_slope,
                       "threshold": self.threshold})
        return config


class LeakyReLU(_Elementwise):
    """x for x > 0, else negative_slope * x (0.3 by default, as in Keras).

    The tf.keras 2 keyword `alpha` is accepted for negative_slope.
    """

    def __init__(self, negative_slope=0.3, **kwargs):
        if "alpha" in kwargs:
            negative_slope = kwargs.pop("alpha")
        super().__init__(**kwargs)
        if negative_slope is None or negative_slope < 0:
            raise ValueError(f"Layer {self.name!r}: the negative_slope value of a Leaky ReLU "
                             f"layer cannot be None or negative. Received: {negative_slope}")
        self.negative_slope = float(negative_slope)

    def call(self, inputs):
        return activations.leaky_relu(inputs, negative_slope=self.negative_slope)

    def get_config(self):
        config = super().get_config()
        config["negative_slope"] = self.negative_slope
        return config


class PReLU(_Elementwise):
    """x for x > 0, else alpha * x with a learned alpha.

    `alpha` has the input's shape without the batch axis (Keras), with size 1
    on the `shared_axes` (1-indexed axes of the input, e.g. [1, 2] for one
    alpha per channel of images). It starts at zeros.
    """

    def __init__(self, alpha_initializer="zeros", alpha_regularizer=None,
                 alpha_constraint=None, shared_axes=None, **kwargs):
        super().__init__(**kwargs)
        self.alpha_initializer = initializers.get(alpha_initializer)
        self.alpha_regularizer = regularizers.get(alpha_regularizer)
        self.alpha_constraint = constraints.get(alpha_constraint)
        if shared_axes is None:
            self.shared_axes = None
        elif isinstance(shared_axes, (list, tuple)):
            self.shared_axes = tuple(int(a) for a in shared_axes)
        else:
            self.shared_axes = (int(shared_axes),)

    def build(self, input_shape):
        param_shape = list(input_shape[1:])
        if self.shared_axes is not None:
            for axis in self.shared_axes:
                if not 1 <= axis < len(input_shape):
                    raise ValueError(f"Layer {self.name!r}: shared axis {axis} is out of range "
                                     f"for input shape {tuple(input_shape)}.")
                param_shape[axis - 1] = 1
        if None in param_shape:
            raise ValueError(f"Layer {self.name!r}: every non-shared axis of the input shape "
                             f"{tuple(input_shape)} must be known.")
        self.alpha = self.add_weight(shape=tuple(param_shape), initializer=self.alpha_initializer,
                                     regularizer=self.alpha_regularizer,
                                     constraint=self.alpha_constraint, name="alpha")
        axes = {i: input_shape[i] for i in range(1, len(input_shape))
                if self.shared_axes is None or i not in self.shared_axes}
        self.input_spec = InputSpec(ndim=len(input_shape), axes=axes)

    def call(self, inputs):
        return add(_relu(inputs), multiply(negative(self.alpha), _relu(negative(inputs))))

    def get_config(self):
        config = super().get_config()
        config.update({
            "alpha_initializer": initializers.serialize(self.alpha_initializer),
            "alpha_regularizer": None if self.alpha_regularizer is None
            else regularizers.serialize(self.alpha_regularizer),
            "alpha_constraint": None if self.alpha_constraint is None
            else constraints.serialize(self.alpha_constraint),
            "shared_axes": self.shared_axes,
        })
        return config


class ELU(_Elementwise):
    """x for x >= 0, else alpha * (exp(x) - 1); alpha = 1.0."""

    def __init__(self, alpha=1.0, **kwargs):
        super().__init__(**kwargs)
        self.alpha = float(alpha)

    def call(self, inputs):
        return activations.elu(inputs, alpha=self.alpha)

    def get_config(self):
        config = super().get_config()
        config["alpha"] = self.alpha
        return config


def _large_negative(dtype):
    return -3e4 if np.dtype(dtype) == np.float16 else -1e9


class Softmax(_Elementwise):
    """softmax over `axis` (-1, or a tuple of axes). With a `mask` (True = keep),
    masked positions get probability 0 (an all-masked row gives zeros)."""

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis if isinstance(axis, int) else tuple(int(a) for a in axis)

    def call(self, inputs, mask=None):
        if mask is not None:
            keep = np.asarray(mask._value if isinstance(mask, Tensor) else mask)
            if keep.dtype != bool:
                keep = keep > 0.5
            dtype = inputs._value.dtype
            drop = Tensor(np.asarray(~keep, dtype) * np.asarray(_large_negative(dtype), dtype))
            inputs = add(multiply(inputs, Tensor(keep.astype(dtype))), drop)
        if isinstance(self.axis, tuple) and len(self.axis) > 1:
            outputs = self._softmax_axes(inputs, self.axis)
        else:
            axis = self.axis[0] if isinstance(self.axis, tuple) else self.axis
            outputs = activations.softmax(inputs, axis=axis)
        if mask is not None:
            outputs = multiply(outputs, cast(Tensor(keep), outputs.dtype))
        return outputs

    @staticmethod
    def _softmax_axes(x, axes):
        shifted = subtract(x, stop_gradient(reduce_max(x, axis=axes, keepdims=True)))
        e = exp(shifted)
        return divide(e, reduce_sum(e, axis=axes, keepdims=True))

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config
