"""embedding.py holds Embedding: integer ids to rows of a learned table, one
`tf.gather` (whose gradient is a scatter-add), and the padding mask of
`mask_zero=True` that downstream layers receive automatically."""

import numpy as np

from .. import constraints, initializers, regularizers
from ..api.array_ops import cast
from .base import Layer
from ..api.indexing_ops import gather
from ..math.comparisons import not_equal

__all__ = ["Embedding"]


class Embedding(Layer):
    """Map integer ids in [0, input_dim) to vectors of size `output_dim`.

    The table `embeddings` has shape (input_dim, output_dim) and starts
    uniform in (-0.05, 0.05). Inputs of shape (...) give (..., output_dim).
    With `mask_zero=True`, id 0 is padding: the output carries the mask
    `inputs != 0`, and the vocabulary still needs input_dim >= 1 + largest id.

    Raises:
        ValueError: for non-positive dimensions.
        InvalidArgumentError: for an id outside [0, input_dim).
    """

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform",
                 embeddings_regularizer=None, embeddings_constraint=None, mask_zero=False,
                 weights=None, **kwargs):
        kwargs.pop("input_length", None)
        kwargs.pop("sparse", None)
        super().__init__(**kwargs)
        for what, value in (("input_dim", input_dim), ("output_dim", output_dim)):
            if not isinstance(value, (int, np.integer)) or value <= 0:
                raise ValueError(f"Layer {self.name!r}: {what} must be a positive int, got "
                                 f"{value!r}.")
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        self.embeddings_initializer = initializers.get(embeddings_initializer)
        self.embeddings_regularizer = regularizers.get(embeddings_regularizer)
        self.embeddings_constraint = constraints.get(embeddings_constraint)
        self.mask_zero = bool(mask_zero)
        self.supports_masking = self.mask_zero
        self._initial_weights = weights

    def build(self, input_shape=None):
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer,
                                          regularizer=self.embeddings_regularizer,
                                          constraint=self.embeddings_constraint,
                                          name="embeddings")
        if self._initial_weights is not None:
            self.set_weights(self._initial_weights)
            self._initial_weights = None

    def call(self, inputs):
        if inputs.dtype not in ("int32", "int64"):
            inputs = cast(inputs, "int32")
        return gather(self.embeddings, inputs, axis=0)

    def compute_mask(self, inputs, mask=None):
        if not self.mask_zero:
            return None
        return not_equal(inputs, 0)  # an op: a traced step replays it (a mask read in Python froze)

    def compute_output_shape(self, input_shape):
        return tuple(input_shape) + (self.output_dim,)

    def get_config(self):
        config = super().get_config()
        config.update({
            "input_dim": self.input_dim, "output_dim": self.output_dim,
            "embeddings_initializer": initializers.serialize(self.embeddings_initializer),
            "embeddings_regularizer": None if self.embeddings_regularizer is None
            else regularizers.serialize(self.embeddings_regularizer),
            "embeddings_constraint": None if self.embeddings_constraint is None
            else constraints.serialize(self.embeddings_constraint),
            "mask_zero": self.mask_zero,
        })
        return config
