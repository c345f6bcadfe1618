"""preprocessing.py holds Keras's numeric preprocessing layers: Normalization
(with `adapt`), Rescaling, CategoryEncoding and Discretization (Keras's
quantile sketch). The image layers are in preprocessing_image.py and
preprocessing_affine.py. They are plain layers on tensors, so they also work
in `Dataset.map`; Normalization and Rescaling are differentiable in the input.
"""

import numpy as np

from ..api.array_ops import cast, reshape
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor
from ..math import add, maximum, multiply, sqrt, subtract, truediv
from .base import Layer

__all__ = ["Normalization", "Rescaling", "CategoryEncoding", "Discretization",
           "encode_categorical", "batches_of"]

_EPSILON = 1e-7  # keras.backend.epsilon(), Normalization's floor on the standard deviation


def batches_of(data):
    """The batches `adapt` reads: an array is one batch; a Dataset or another
    iterable yields batches (the x of (x, y) pairs). A Dataset of unbatched
    rank-0/1 elements is batched by 128, as Keras does.

    Raises:
        TypeError: for data that is neither an array nor an iterable.
        ValueError: for an empty iterable.
    """
    if isinstance(data, list) and data and not hasattr(data[0], "shape"):
        data = np.asarray(data)  # nested lists of numbers: one array
    if isinstance(data, (np.ndarray, Tensor)):
        return [np.asarray(data.numpy() if isinstance(data, Tensor) else data)]
    spec = getattr(data, "element_spec", None)
    spec = spec[0] if isinstance(spec, tuple) else spec
    if spec is not None and hasattr(data, "batch") and len(getattr(spec, "shape", (0, 0))) <= 1:
        data = data.batch(128)
    if not hasattr(data, "__iter__"):
        raise TypeError(f"Unsupported data type: {type(data)}. `adapt` supports NumPy arrays, "
                        "tensors, tf.data.Dataset and iterables of batches.")
    found = []
    for batch in data:
        batch = batch[0] if isinstance(batch, tuple) else batch
        found.append(np.asarray(batch.numpy() if isinstance(batch, Tensor) else batch))
    if not found:
        raise ValueError("adapt() received an empty iterable (no batches). Expected at "
                         "least one batch.")
    return found


class Normalization(Layer):
    """Shift and scale inputs to mean 0 and variance 1: (x - mean) / sqrt(var).

    The mean and variance come from `adapt(data)` or the `mean` / `variance`
    arguments; `invert=True` maps normalized values back. The standard
    deviation is floored at 1e-7.

    Args:
        axis: the axis or axes with their own mean and variance (-1: one per
            feature); None for one scalar mean and variance.
        mean, variance: given values, broadcast to the kept axes (both or neither).
        invert: apply the inverse transformation.

    Weights (after adapt or a first call, without given values): non-trainable
    `mean`, `variance` and `count`, as Keras's.

    Raises:
        ValueError: for only one of mean/variance, shapes that differ, an
            axis outside the input's rank, or adapt data of another shape.

    >>> layer = tf.keras.layers.Normalization(axis=None)
    >>> layer.adapt(np.array([1., 2., 3., 4., 5.]))
    >>> layer(np.array([1., 2., 3.]))   # [-1.4142135, -0.70710677, 0.]
    """

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        self.axis = () if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
        self.input_mean, self.input_variance, self.invert = mean, variance, bool(invert)
        self.supports_masking = True
        if (mean is None) != (variance is None):
            raise ValueError("When setting values directly, both `mean` and `variance` must be "
                             f"set. Received: mean={mean} and variance={variance}")
        if mean is not None:
            if np.shape(mean) != np.shape(variance):
                raise ValueError("When setting values directly, `mean` and `variance` must "
                                 f"have the same shape. Received: mean shape {np.shape(mean)} "
                                 f"and variance shape {np.shape(variance)}")
            if np.ndim(mean) > len(self.axis):
                raise ValueError("The rank of `mean` must be less than or equal to the number "
                                 f"of axes ({len(self.axis)}). Received: mean shape "
                                 f"{np.shape(mean)} for axis {self.axis}")
        self._built_shape = None

    def build(self, input_shape):
        ndim = len(input_shape)
        if any(a < -ndim or a >= ndim for a in self.axis):
            raise ValueError("All `axis` values must be in the range [-ndim, ndim). Received "
                             f"inputs with ndim={ndim}, while axis={self.axis}")
        self._built_shape = tuple(input_shape)
        self._keep_axis = tuple(sorted(a % ndim for a in self.axis))
        self._reduce_axis = tuple(d for d in range(ndim) if d not in self._keep_axis)
        for d in self._keep_axis:
            if input_shape[d] is None:
                raise ValueError(f"All `axis` values to be kept must have a known shape. "
                                 f"Received axis={self.axis}, inputs.shape={input_shape}, "
                                 f"with unknown axis at index {d}")
        self._broadcast_shape = [input_shape[d] if d in self._keep_axis else 1
                                 for d in range(ndim)]
        kept = tuple(input_shape[d] for d in self._keep_axis)
        if self.input_mean is None:
            self.adapt_mean = self.add_weight(name="mean", shape=kept, initializer="zeros",
                                              trainable=False)
            self.adapt_variance = self.add_weight(name="variance", shape=kept,
                                                  initializer="ones", trainable=False)
            self.count = self.add_weight(name="count", shape=(), dtype="int64",
                                         initializer="zeros", trainable=False)
        else:
            self._given = [self._broadcast(v) for v in (self.input_mean, self.input_variance)]
        self.built = True

    def _broadcast(self, value):
        """A given mean or variance aligned to the kept axes, right to left, as Keras."""
        value = np.asarray(value, dtype=np.float64)
        expanded = [1] * len(self._broadcast_shape)
        for i in range(1, value.ndim + 1):
            expanded[self._keep_axis[-i]] = value.shape[-i]
        return np.broadcast_to(value.reshape(expanded), self._broadcast_shape)

    def adapt(self, data):
        """Compute the mean and variance of `data` (an array, a tensor, a Dataset or
        an iterable of batches) over the reduced axes, batch by batch."""
        if self.input_mean is not None:
            raise ValueError("adapt() cannot be used when `mean` and `variance` were given.")
        batches = batches_of(data)
        if not self.built:
            self.build(batches[0].shape)
        total_mean = total_var = 0.0
        total_count = 0
        for batch in batches:
            for d in self._keep_axis:
                if batch.ndim != len(self._built_shape) or batch.shape[d] != self._built_shape[d]:
                    raise ValueError(f"The layer was built with input_shape={self._built_shape},"
                                     " but adapt() is being called with data with an "
                                     f"incompatible shape, data.shape={batch.shape}")
            batch = batch.astype(np.float64)
            batch_mean = batch.mean(axis=self._reduce_axis)
            batch_var = batch.var(axis=self._reduce_axis)
            count = int(np.prod([batch.shape[d] for d in self._reduce_axis], dtype=np.int64))
            total_count += count
            weight = count / total_count
            new_mean = total_mean * (1 - weight) + batch_mean * weight
            # Chan's parallel update, Keras's "lack-of-fit sum of squares" form.
            total_var = ((total_var + (total_mean - new_mean) ** 2) * (1 - weight)
                         + (batch_var + (batch_mean - new_mean) ** 2) * weight)
            total_mean = new_mean
        self.adapt_mean.assign(np.asarray(total_mean, self.adapt_mean.dtype.as_numpy_dtype))
        self.adapt_variance.assign(np.asarray(total_var,
                                              self.adapt_variance.dtype.as_numpy_dtype))
        self.count.assign(np.int64(total_count))

    def _statistics(self):
        if self.input_mean is None:
            return (reshape(self.adapt_mean, self._broadcast_shape),
                    reshape(self.adapt_variance, self._broadcast_shape))
        return tuple(Tensor(v) for v in self._given)

    @property
    def mean(self):
        """The mean in the input's broadcast shape (e.g. (1, features)); None unbuilt."""
        return cast(self._statistics()[0], self.dtype) if self.built else None

    @property
    def variance(self):
        """The variance in the input's broadcast shape; None before the layer is built."""
        return cast(self._statistics()[1], self.dtype) if self.built else None

    def call(self, inputs):
        inputs = cast(as_tensor(inputs), self.dtype)
        mean, variance = self.mean, self.variance
        std = maximum(sqrt(variance), Tensor(np.asarray(_EPSILON, inputs.dtype.as_numpy_dtype)))
        if self.invert:
            return add(mean, multiply(inputs, std))
        return truediv(subtract(inputs, mean), std)

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"axis": self.axis, "invert": self.invert,
                       "mean": None if self.input_mean is None
                       else np.array(self.input_mean).tolist(),
                       "variance": None if self.input_variance is None
                       else np.array(self.input_variance).tolist()})
        return config


class Rescaling(Layer):
    """inputs * scale + offset, in the layer's dtype (uint8 images become float32).

    >>> tf.keras.layers.Rescaling(1. / 255)(np.array([0, 255], np.uint8))  # [0., 1.]
    """

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.offset = scale, offset
        self.supports_masking = True

    def call(self, inputs):
        inputs = cast(as_tensor(inputs), self.dtype)
        dtype = inputs.dtype.as_numpy_dtype
        return add(multiply(inputs, Tensor(np.asarray(self.scale, dtype))),
                   Tensor(np.asarray(self.offset, dtype)))

    def compute_output_shape(self, input_shape):
        return input_shape

    def get_config(self):
        config = super().get_config()
        config.update({"scale": np.asarray(self.scale).tolist(),
                       "offset": np.asarray(self.offset).tolist()})
        return config


def encode_categorical(indices, output_mode, depth, dtype, count_weights=None, ignore=None):
    """Keras's encoding of integer indices: 'int' (as they are), 'one_hot' (a
    trailing axis of size 1 is replaced), 'multi_hot' or 'count' over the last
    axis (a scalar is one sample). Entries where `ignore` holds (a lookup's mask
    token) count for nothing.

    Raises:
        InvalidArgumentError: for an index outside [0, depth).
        ValueError: for an input of rank > 2 with multi_hot or count.
    """
    indices = np.asarray(indices)
    if output_mode == "int":
        return Tensor(indices.astype(dtype))
    keep = np.ones(indices.shape, bool) if ignore is None else ~np.asarray(ignore, bool)
    if indices.ndim == 0:
        indices, keep = indices[None], keep[None]
    indices = np.where(keep, indices, 0)
    if indices.size and (indices.min() < 0 or indices.max() >= depth):
        raise InvalidArgumentError(f"Input values must be in the range 0 <= values < "
                                   f"num_tokens with num_tokens={depth}. Received: min "
                                   f"{indices.min()}, max {indices.max()}")
    indices = indices.astype(np.int64)
    if output_mode == "one_hot":
        if indices.ndim > 1 and indices.shape[-1] == 1:
            indices, keep = indices[..., 0], keep[..., 0]
        out = np.zeros(indices.shape + (depth,), np.float64)
        np.put_along_axis(out, indices[..., None], keep[..., None].astype(np.float64), axis=-1)
        return Tensor(out.astype(dtype))
    if indices.ndim > 2:
        raise ValueError("When output_mode is not 'int', maximum supported output rank is 2. "
                         f"Received output_mode {output_mode} and input shape "
                         f"{indices.shape}, which would result in output rank "
                         f"{indices.ndim + 1}.")
    rows = indices.reshape(-1, indices.shape[-1]) if indices.ndim == 2 else indices[None]
    weights = keep.reshape(rows.shape).astype(np.float64)
    if count_weights is not None and output_mode == "count":
        weights = weights * np.asarray(count_weights, np.float64).reshape(rows.shape)
    out = np.zeros((rows.shape[0], depth), np.float64)
    np.add.at(out, (np.arange(rows.shape[0])[:, None], rows), weights)
    if output_mode == "multi_hot":
        out = (out > 0).astype(np.float64)
    return Tensor(out.reshape(indices.shape[:-1] + (depth,)).astype(dtype))


def _check_output_mode(output_mode, allowed):
    if output_mode == "binary":  # Keras 2's name
        output_mode = "multi_hot"
    if output_mode not in allowed:
        raise ValueError(f"Unknown arg for output_mode: {output_mode}. Expected one of "
                         f"{allowed}")
    return output_mode


class CategoryEncoding(Layer):
    """Encode integer features: 'one_hot', 'multi_hot' or 'count' over `num_tokens`.

    Args:
        num_tokens: the number of categories; inputs must lie in [0, num_tokens).
        output_mode: 'multi_hot' (default), 'one_hot' or 'count'.
        sparse: not supported (True raises).

    `call(inputs, count_weights=None)`: with 'count', weights per input value.

    Raises:
        ValueError: for a missing or non-positive num_tokens or an unknown mode.
        InvalidArgumentError: for an input outside [0, num_tokens).
    """

    def __init__(self, num_tokens=None, output_mode="multi_hot", sparse=False, **kwargs):
        kwargs.setdefault("autocast", False)
        super().__init__(**kwargs)
        self.output_mode = _check_output_mode(output_mode, ("count", "one_hot", "multi_hot"))
        if num_tokens is None:
            raise ValueError("num_tokens must be set to use this layer. If the number of "
                             "tokens is not known beforehand, use the IntegerLookup layer "
                             "instead.")
        if num_tokens < 1:
            raise ValueError(f"`num_tokens` must be >= 1. Received: num_tokens={num_tokens}.")
        if sparse:
            raise NotImplementedError("CategoryEncoding: sparse=True is not supported by "
                                      "tapeflow (no sparse tensors); leave sparse=False.")
        self.num_tokens, self.sparse = int(num_tokens), False

    def call(self, inputs, count_weights=None):
        if count_weights is not None and self.output_mode != "count":
            raise ValueError("`count_weights` is not used when `output_mode` is not "
                             f"`'count'`. Received `count_weights={count_weights}`.")
        values = inputs.numpy() if isinstance(inputs, Tensor) else inputs
        if count_weights is not None and isinstance(count_weights, Tensor):
            count_weights = count_weights.numpy()
        return encode_categorical(values, self.output_mode, self.num_tokens, self.dtype,
                                  count_weights)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if not input_shape:
            return (self.num_tokens,)
        if self.output_mode == "one_hot" and (input_shape[-1] != 1 or len(input_shape) == 1):
            return input_shape + (self.num_tokens,)
        return input_shape[:-1] + (self.num_tokens,)

    def get_config(self):
        config = super().get_config()
        config.update({"num_tokens": self.num_tokens, "output_mode": self.output_mode,
                       "sparse": self.sparse})
        return config


# -- Discretization: Keras's quantile summaries, ported as they are -------------------------


def _summarize(values, epsilon):
    values = np.sort(np.reshape(values, [-1]))
    step = max(values.size / (1.0 / epsilon), 1)
    boundaries = values[int(step - 1)::int(step)]
    return np.stack([boundaries, np.ones_like(boundaries) * step])


def _compress(summary, epsilon):
    if summary.shape[1] * epsilon < 1:
        return summary
    percents = epsilon + np.arange(0.0, 1.0, epsilon)
    cum_weights = summary[1].cumsum()
    cum_percents = cum_weights / cum_weights[-1]
    new_bins = np.interp(percents, cum_percents, summary[0])
    cum_weights = np.interp(percents, cum_percents, cum_weights)
    new_weights = cum_weights - np.concatenate((np.array([0]), cum_weights[:-1]))
    return np.stack((new_bins, new_weights)).astype("float32")


class Discretization(Layer):
    """Bucket numeric features by `bin_boundaries` (np.digitize: bucket i holds
    boundaries[i-1] <= x < boundaries[i]), or by `num_bins` quantiles learned by
    `adapt` (Keras's summary sketch with tolerance `epsilon`).

    Args:
        bin_boundaries: sorted boundaries, or None to adapt.
        num_bins: the number of bins to adapt to.
        epsilon: the quantile error tolerance of adapt.
        output_mode: 'int' (bucket indices, int64), 'one_hot', 'multi_hot', 'count'.

    >>> layer = tf.keras.layers.Discretization(bin_boundaries=[0., 1., 2.])
    >>> layer(np.array([[-1.5, 1.0, 3.4, .5]]))   # [[0, 2, 3, 1]]
    """

    def __init__(self, bin_boundaries=None, num_bins=None, epsilon=0.01, output_mode="int",
                 sparse=False, dtype=None, name=None, **kwargs):
        output_mode = _check_output_mode(output_mode, ("int", "one_hot", "multi_hot", "count"))
        # autocast off: float inputs are bucketed as they are, not cast to an int dtype
        super().__init__(dtype=dtype or ("int64" if output_mode == "int" else "float32"),
                         name=name, autocast=False, **kwargs)
        if sparse:
            raise NotImplementedError("Discretization: sparse=True is not supported by "
                                      "tapeflow; leave sparse=False.")
        if num_bins is not None and num_bins < 0:
            raise ValueError("`num_bins` must be greater than or equal to 0. Received: "
                             f"`num_bins={num_bins}`")
        if num_bins is not None and bin_boundaries is not None and len(
                bin_boundaries) != num_bins - 1:
            raise ValueError("Both `num_bins` and `bin_boundaries` should not be set. "
                             f"Received: `num_bins={num_bins}` and "
                             f"`bin_boundaries={bin_boundaries}`")
        self.bin_boundaries = None if bin_boundaries is None else list(bin_boundaries)
        self.num_bins, self.epsilon = num_bins, epsilon
        self.output_mode, self.sparse = output_mode, False
        self._summary = np.array([[], []], dtype="float32")

    def adapt(self, data, steps=None):
        """Learn `num_bins - 1` quantile boundaries from `data` (array, Dataset or batches)."""
        if self.num_bins is None:
            raise ValueError("Cannot adapt a Discretization layer that has been initialized "
                             "with `bin_boundaries`, use `num_bins` instead.")
        self._summary = np.array([[], []], dtype="float32")
        for i, batch in enumerate(batches_of(data)):
            if steps is not None and i >= steps:
                break
            summary = _summarize(batch.astype("float32"), self.epsilon)
            merged = np.concatenate((self._summary, summary), axis=1)
            self._summary = _compress(np.take(merged, np.argsort(merged[0]), axis=1),
                                      self.epsilon)
        self.bin_boundaries = _compress(self._summary, 1.0 / self.num_bins)[0, :-1].tolist()

    def call(self, inputs):
        if self.bin_boundaries is None:
            raise ValueError("You need to either pass the `bin_boundaries` argument at "
                             "construction time or call `adapt(dataset)` before you can start "
                             "using the `Discretization` layer.")
        values = np.asarray(inputs.numpy() if isinstance(inputs, Tensor) else inputs)
        indices = np.digitize(values, self.bin_boundaries)
        return encode_categorical(indices, self.output_mode, len(self.bin_boundaries) + 1,
                                  self.dtype)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return input_shape
        depth = (len(self.bin_boundaries) + 1 if self.bin_boundaries is not None
                 else self.num_bins)
        if self.output_mode == "one_hot":
            if input_shape and input_shape[-1] == 1 and len(input_shape) > 1:
                return input_shape[:-1] + (depth,)
            return input_shape + (depth,)
        return input_shape[:-1] + (depth,) if len(input_shape) >= 2 else (depth,)

    def get_config(self):
        config = super().get_config()
        config.update({"bin_boundaries": self.bin_boundaries, "num_bins": self.num_bins,
                       "epsilon": self.epsilon, "output_mode": self.output_mode,
                       "sparse": self.sparse})
        return config

    @classmethod
    def from_config(cls, config):
        config = dict(config)
        boundaries = config.pop("bin_boundaries", None)
        layer = cls(**config)
        layer.bin_boundaries = boundaries
        return layer
