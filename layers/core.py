"""core.py holds the basic layers: Dense, Activation, Lambda and Identity. Each is
a thin use of the Layer protocol of base.py over tapeflow ops (Dense runs one
BLAS matmul over all leading axes)."""

import inspect

import numpy as np

from .. import activations, constraints, initializers, regularizers
from ..api.array_ops import reshape
from ..linalg import matmul
from ..math import add
from ..sparse.sparse_ops import sparse_dense_matmul
from ..sparse.sparse_tensor import SparseTensor
from .base import InputSpec, Layer
from .keras_tensor import KerasTensor
from .layer_utils import serialize_option, weight_options_config

__all__ = ["Dense", "Activation", "Lambda", "Identity"]


class Dense(Layer):
    """`activation(inputs @ kernel + bias)` on the last axis of the inputs.

    The kernel has shape (input_dim, units) and the bias (units,), as in Keras;
    an input of shape (..., input_dim) gives (..., units).

    Args:
        units: the output size (a positive int).
        activation: name or callable (None: linear).
        use_bias: whether to add a bias.
        kernel_initializer, bias_initializer: 'glorot_uniform' and 'zeros'.
        kernel_regularizer, bias_regularizer, activity_regularizer: penalties.
        kernel_constraint, bias_constraint: projections after updates.

    Raises:
        ValueError: for non-positive `units`, an unknown activation or
            initializer, or an input whose last axis differs from the one the
            layer was built with.
    """

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        # Any integer, NumPy's included (`Dense(np.prod(shape))`), as Keras takes them.
        if isinstance(units, (bool, np.bool_)) or not isinstance(units, (int, np.integer)) \
                or units <= 0:
            raise ValueError(f"Received an invalid value for `units` of layer {self.name!r}, "
                             f"expected a positive integer. Received: units={units!r}")
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = bool(use_bias)
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.input_spec = InputSpec(min_ndim=2)
        self.supports_masking = True

    def build(self, input_shape):
        input_dim = input_shape[-1]
        if input_dim is None:
            raise ValueError(f"Layer {self.name!r}: the last axis of the input shape "
                             f"{tuple(input_shape)} must be known to build the kernel.")
        self.kernel = self.add_weight(shape=(input_dim, self.units),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint, name="kernel")
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(shape=(self.units,), initializer=self.bias_initializer,
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint, name="bias")
        self.input_spec = InputSpec(min_ndim=2, axes={-1: input_dim})

    def call(self, inputs):
        if isinstance(inputs, SparseTensor):  # a sparse batch: a dense output, as Keras
            out = sparse_dense_matmul(inputs, self.kernel)
            out = add(out, self.bias) if self.use_bias else out
            return self.activation(out)
        shape = inputs.shape
        if len(shape) > 2:  # one BLAS call over all leading axes
            flat = reshape(inputs, (-1, shape[-1]))
            out = reshape(matmul(flat, self.kernel), tuple(shape[:-1]) + (self.units,))
        else:
            out = matmul(inputs, self.kernel)
        if self.use_bias:
            out = add(out, self.bias)
        return self.activation(out)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape)[:-1] + (self.units,)

    def get_config(self):
        config = super().get_config()
        config.update({
            "units": self.units,
            "activation": activations.serialize(self.activation),
            "use_bias": self.use_bias,
            **weight_options_config(self, "kernel", "bias"),
            "activity_regularizer": serialize_option(self.activity_regularizer, regularizers),
        })
        return config


class Activation(Layer):
    """Apply an activation function (a name such as 'relu', or a callable).

    Raises:
        ValueError: for an unknown activation name.
    """

    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)
        self.supports_masking = True

    def call(self, inputs):
        return self.activation(inputs)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config["activation"] = activations.serialize(self.activation)
        return config


class Identity(Layer):
    """Return the inputs unchanged."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def call(self, inputs):
        return inputs

    def compute_output_shape(self, input_shape):
        return input_shape


class Lambda(Layer):
    """Wrap a function of tensors as a layer: `Lambda(lambda x: x ** 2)`.

    The function may take `mask` and `training` keywords; `arguments` are
    extra keyword arguments for it. The function must not create variables
    (write a Layer subclass for that).

    Args:
        function: the callable.
        output_shape: the output shape without the batch axis, or a callable
            from input shape to output shape; else found by running it.
        mask: a fixed output mask or a callable `(inputs, mask) -> mask`.
        arguments: a dict of keyword arguments passed to `function`.
    """

    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        if not callable(function):
            raise ValueError(f"Lambda layer {self.name!r} needs a callable, got {function!r}.")
        self.function = function
        self.arguments = dict(arguments or {})
        self._output_shape = output_shape
        self.mask = mask
        self.supports_masking = mask is not None
        try:
            params = inspect.signature(function).parameters
        except (TypeError, ValueError):
            params = {}
        self._fn_takes_mask = "mask" in params
        self._fn_takes_training = "training" in params

    def call(self, inputs, mask=None, training=None):
        kwargs = dict(self.arguments)
        if self._fn_takes_mask:
            kwargs["mask"] = mask
        if self._fn_takes_training:
            kwargs["training"] = training
        return self.function(inputs, **kwargs)

    def compute_mask(self, inputs, mask=None):
        if callable(self.mask):
            return self.mask(inputs, mask)
        return self.mask

    def compute_output_shape(self, input_shape):
        if self._output_shape is None:
            return super().compute_output_shape(input_shape)
        if callable(self._output_shape):
            return self._output_shape(input_shape)
        return (tuple(input_shape)[0],) + tuple(self._output_shape)

    def get_config(self):
        config = super().get_config()
        # The function itself is kept (it cannot be written to JSON): from_config works
        # in the same process, as Keras's safe mode does for lambdas it cannot load.
        config.update({"function": self.function, "output_shape": self._output_shape,
                       "mask": self.mask, "arguments": self.arguments})
        return config


KerasTensor._operator_layer = Lambda  # `x + y` on symbolic tensors records a Lambda node
