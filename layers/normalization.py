"""normalization.py holds BatchNormalization, LayerNormalization and
GroupNormalization. Each is written with whole-tensor ops (reductions and
broadcasting, no Python loop over the batch), so its gradient comes from the op
library; BatchNormalization's moving statistics are updated by in-place assigns."""

import numpy as np

from .. import constraints, initializers, regularizers
from ..api.array_ops import cast, reshape
from ..math import add, divide, multiply, reduce_mean, reduce_sum, sqrt, square, subtract
from ..core.tensor import Tensor
from ..distribute.replica_ops import all_sum, in_distributed_step
from .base import InputSpec, Layer
from .layer_utils import serialize_option, weight_options_config

__all__ = ["BatchNormalization", "LayerNormalization", "GroupNormalization"]

_KERAS_EPSILON = 1e-7


def _scalar(value, like):
    return Tensor(np.asarray(value, like._value.dtype))


def _moments(x, axes):
    """Mean and biased variance over `axes`, kept as size-1 axes."""
    mean = reduce_mean(x, axis=axes, keepdims=True)
    variance = reduce_mean(square(subtract(x, mean)), axis=axes, keepdims=True)
    return mean, variance


def _normalize_axis(axis, ndim, layer):
    axes = [axis] if isinstance(axis, int) else list(axis)
    result = []
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError(f"Layer {layer.name!r}: invalid axis {a} for an input of rank "
                             f"{ndim}.")
        result.append(a % ndim)
    return sorted(result)


class _Affine(Layer):
    """Shared gamma/beta configuration of the normalization layers."""

    def __init__(self, epsilon, center, scale, beta_initializer, gamma_initializer,
                 beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint,
                 **kwargs):
        super().__init__(**kwargs)
        self.epsilon = float(epsilon)
        self.center, self.scale = bool(center), bool(scale)
        self.beta_initializer = initializers.get(beta_initializer)
        self.gamma_initializer = initializers.get(gamma_initializer)
        self.beta_regularizer = regularizers.get(beta_regularizer)
        self.gamma_regularizer = regularizers.get(gamma_regularizer)
        self.beta_constraint = constraints.get(beta_constraint)
        self.gamma_constraint = constraints.get(gamma_constraint)
        self.supports_masking = True

    def _add_gamma(self, shape):
        return self.add_weight(shape=shape, initializer=self.gamma_initializer,
                               regularizer=self.gamma_regularizer,
                               constraint=self.gamma_constraint, name="gamma")

    def _add_beta(self, shape):
        return self.add_weight(shape=shape, initializer=self.beta_initializer,
                               regularizer=self.beta_regularizer,
                               constraint=self.beta_constraint, name="beta")

    def _affine(self, normalized, broadcast_shape):
        if self.scale:
            normalized = multiply(normalized, reshape(self.gamma, broadcast_shape))
        if self.center:
            normalized = add(normalized, reshape(self.beta, broadcast_shape))
        return normalized

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({
            "epsilon": self.epsilon, "center": self.center, "scale": self.scale,
            **weight_options_config(self, "beta", "gamma"),
        })
        return config


class BatchNormalization(_Affine):
    """Normalize each channel (`axis`) by batch statistics in training and by
    moving statistics in inference, then scale by gamma and shift by beta.

    In training (`training=True` and the layer trainable) the batch mean and
    biased variance over all other axes are used, and the moving statistics
    are updated in place: `moving = momentum * moving + (1 - momentum) * batch`.
    A frozen layer (`trainable=False`) always runs in inference mode, as in
    Keras. Weights, in order: gamma, beta (trainable), moving_mean,
    moving_variance (non-trainable). An optional `mask` (the input shape
    without the channel axis) weights the batch statistics.

    Args:
        axis: the channel axis (-1).
        momentum: 0.99; epsilon: 1e-3, added to the variance.
        center, scale: whether to use beta and gamma.
        synchronized: in a distributed step, use the global batch's statistics
            (sums over the replicas) instead of each replica's own, as Keras 3.

    Raises:
        ValueError: for an input whose channel count or rank differs from the
            one the layer was built with.
    """

    def __init__(self, axis=-1, momentum=0.99, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones",
                 moving_mean_initializer="zeros", moving_variance_initializer="ones",
                 beta_regularizer=None, gamma_regularizer=None, beta_constraint=None,
                 gamma_constraint=None, synchronized=False, **kwargs):
        kwargs.pop("fused", None)
        if kwargs.pop("renorm", False) or kwargs.pop("virtual_batch_size", None):
            raise NotImplementedError("BatchNormalization: renorm and virtual_batch_size are "
                                      "not supported by tapeflow.")
        super().__init__(epsilon, center, scale, beta_initializer, gamma_initializer,
                         beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint,
                         **kwargs)
        if not isinstance(axis, int):
            raise TypeError(f"Layer {self.name!r}: expected an int for `axis`, got {axis!r}.")
        self.axis = axis
        self.momentum = float(momentum)
        self.moving_mean_initializer = initializers.get(moving_mean_initializer)
        self.moving_variance_initializer = initializers.get(moving_variance_initializer)
        self.synchronized = synchronized

    def build(self, input_shape):
        ndim = len(input_shape)
        (axis,) = _normalize_axis(self.axis, ndim, self)
        channels = input_shape[axis]
        if channels is None:
            raise ValueError(f"Layer {self.name!r}: axis {self.axis} of the input shape "
                             f"{tuple(input_shape)} must be known.")
        self._channel_axis = axis
        self._reduction_axes = tuple(i for i in range(ndim) if i != axis)
        self._broadcast_shape = tuple(channels if i == axis else 1 for i in range(ndim))
        self.gamma = self._add_gamma((channels,)) if self.scale else None
        self.beta = self._add_beta((channels,)) if self.center else None
        self.moving_mean = self.add_weight(shape=(channels,),
                                           initializer=self.moving_mean_initializer,
                                           trainable=False, name="moving_mean")
        self.moving_variance = self.add_weight(shape=(channels,),
                                               initializer=self.moving_variance_initializer,
                                               trainable=False, name="moving_variance")
        self.input_spec = InputSpec(ndim=ndim, axes={self.axis: channels})

    def _batch_moments(self, inputs, mask):
        if self.synchronized and mask is None and in_distributed_step():
            return self._global_moments(inputs)
        if mask is None:
            return _moments(inputs, self._reduction_axes)
        mask = cast(mask, inputs.dtype)
        if mask.ndim != inputs.ndim - 1:
            raise ValueError(f"Layer {self.name!r}: the mask should have one dimension less "
                             f"than the inputs. Received: mask.shape={tuple(mask.shape)}, "
                             f"inputs.shape={tuple(inputs.shape)}")
        weights = reshape(mask, tuple(mask.shape[:self._channel_axis]) + (1,)
                          + tuple(mask.shape[self._channel_axis:]))
        weighted = multiply(weights, inputs)
        total = add(reduce_sum(weights, axis=self._reduction_axes, keepdims=True),
                    _scalar(_KERAS_EPSILON, inputs))
        mean = divide(reduce_sum(weighted, axis=self._reduction_axes, keepdims=True), total)
        deviation = square(subtract(weighted, mean))
        variance = divide(reduce_sum(multiply(weights, deviation), axis=self._reduction_axes,
                                     keepdims=True), total)
        return mean, variance

    def _global_moments(self, inputs):
        """The moments of the global batch, whose rows are spread over the replicas:
        sums and counts summed over them (differentiably), as Keras's synchronized
        BatchNormalization."""
        axes = self._reduction_axes
        rows = np.prod([inputs.shape[a] for a in axes], dtype=np.int64)
        count = all_sum(_scalar(float(rows), inputs))
        mean = divide(all_sum(reduce_sum(inputs, axis=axes, keepdims=True)), count)
        mean_square = divide(all_sum(reduce_sum(square(inputs), axis=axes, keepdims=True)),
                             count)
        return mean, subtract(mean_square, square(mean))

    def _update_moving(self, moving, batch):
        """moving * momentum + batch * (1 - momentum), by ops (a traced step replays
        them; the assign is an effect), each product in its own dtype as Keras."""
        m = self.momentum
        decayed = multiply(moving, _scalar(m, moving))
        new = multiply(reshape(batch, (-1,)), _scalar(1.0 - m, batch))
        moving.assign(add(decayed, cast(new, moving.dtype)))

    def call(self, inputs, training=None, mask=None):
        if training and self.trainable:
            mean, variance = self._batch_moments(inputs, mask)
            self._update_moving(self.moving_mean, mean)
            self._update_moving(self.moving_variance, variance)
        else:
            mean = reshape(cast(self.moving_mean, inputs.dtype), self._broadcast_shape)
            variance = reshape(cast(self.moving_variance, inputs.dtype), self._broadcast_shape)
        inv = divide(_scalar(1, inputs), sqrt(add(variance, _scalar(self.epsilon, inputs))))
        normalized = multiply(subtract(inputs, mean), inv)
        return self._affine(normalized, self._broadcast_shape)

    def get_config(self):
        config = super().get_config()
        config.update({
            "axis": self.axis, "momentum": self.momentum, "synchronized": self.synchronized,
            "moving_mean_initializer": serialize_option(self.moving_mean_initializer, initializers),
            "moving_variance_initializer": serialize_option(self.moving_variance_initializer,
                                                      initializers),
        })
        return config


class LayerNormalization(_Affine):
    """Normalize each example over `axis` (-1, or a list of axes) by its own mean
    and biased variance, then scale by gamma and shift by beta (shaped like
    the normalized axes). Weights: gamma, then beta. epsilon = 1e-3.

    Raises:
        ValueError: for an input whose normalized axes differ from the built ones.
    """

    def __init__(self, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs):
        if kwargs.pop("rms_scaling", False):
            raise NotImplementedError("LayerNormalization(rms_scaling=True) is not supported "
                                      "by tapeflow.")
        super().__init__(epsilon, center, scale, beta_initializer, gamma_initializer,
                         beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint,
                         **kwargs)
        self.axis = axis if isinstance(axis, int) else tuple(int(a) for a in axis)

    def build(self, input_shape):
        ndim = len(input_shape)
        axes = _normalize_axis(self.axis, ndim, self)
        param_shape = tuple(input_shape[a] for a in axes)
        if None in param_shape:
            raise ValueError(f"Layer {self.name!r}: the normalized axes {self.axis} of the "
                             f"input shape {tuple(input_shape)} must be known.")
        self._axes = tuple(axes)
        self._broadcast_shape = tuple(input_shape[i] if i in axes else 1 for i in range(ndim))
        self.gamma = self._add_gamma(param_shape) if self.scale else None
        self.beta = self._add_beta(param_shape) if self.center else None
        self.input_spec = InputSpec(ndim=ndim, axes={a: input_shape[a] for a in axes})

    def call(self, inputs):
        mean, variance = _moments(inputs, self._axes)
        inv = divide(_scalar(1, inputs), sqrt(add(variance, _scalar(self.epsilon, inputs))))
        return self._affine(multiply(subtract(inputs, mean), inv), self._broadcast_shape)

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config


class GroupNormalization(_Affine):
    """Split the channels (`axis`) into `groups` blocks of adjacent channels and
    normalize each example over each block (and all non-batch axes); then a
    per-channel gamma and beta. `groups=-1` means one group per channel
    (instance normalization); `groups=1` is layer normalization over all axes.

    Args:
        groups: 32 by default; must divide the channel count.
        axis: the channel axis (-1); epsilon: 1e-3.

    Raises:
        ValueError: if `groups` does not divide the channel count, naming both.
    """

    def __init__(self, groups=32, axis=-1, epsilon=1e-3, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", beta_regularizer=None,
                 gamma_regularizer=None, beta_constraint=None, gamma_constraint=None,
                 **kwargs):
        super().__init__(epsilon, center, scale, beta_initializer, gamma_initializer,
                         beta_regularizer, gamma_regularizer, beta_constraint, gamma_constraint,
                         **kwargs)
        self.groups = int(groups)
        self.axis = int(axis)

    def build(self, input_shape):
        ndim = len(input_shape)
        (axis,) = _normalize_axis(self.axis, ndim, self)
        if axis == 0:
            raise ValueError(f"Layer {self.name!r}: the channel axis cannot be the batch axis.")
        channels = input_shape[axis]
        if channels is None:
            raise ValueError(f"Layer {self.name!r}: axis {self.axis} of the input shape "
                             f"{tuple(input_shape)} must be known.")
        groups = channels if self.groups == -1 else self.groups
        if groups > channels:
            raise ValueError(f"Layer {self.name!r}: number of groups ({groups}) cannot be more "
                             f"than the number of channels ({channels}).")
        if groups <= 0 or channels % groups:
            raise ValueError(f"Layer {self.name!r}: number of groups ({groups}) must be a "
                             f"multiple of the number of channels ({channels}).")
        self._channel_axis, self._groups = axis, groups
        self._broadcast_shape = tuple(channels if i == axis else 1 for i in range(ndim))
        self.gamma = self._add_gamma((channels,)) if self.scale else None
        self.beta = self._add_beta((channels,)) if self.center else None
        self.input_spec = InputSpec(ndim=ndim, axes={self.axis: channels})

    def call(self, inputs):
        shape = tuple(inputs.shape)
        axis, groups = self._channel_axis, self._groups
        grouped_shape = shape[:axis] + (groups, shape[axis] // groups) + shape[axis + 1:]
        grouped = reshape(inputs, grouped_shape)
        axes = tuple(i for i in range(1, len(grouped_shape)) if i != axis)
        mean, variance = _moments(grouped, axes)
        inv = divide(_scalar(1, inputs), sqrt(add(variance, _scalar(self.epsilon, inputs))))
        normalized = reshape(multiply(subtract(grouped, mean), inv), shape)
        return self._affine(normalized, self._broadcast_shape)

    def get_config(self):
        config = super().get_config()
        config.update({"groups": self.groups, "axis": self.axis})
        return config
