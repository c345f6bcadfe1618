"""sequential.py owns `Sequential`: a Model that is a plain stack of layers.
It builds from an `Input` (or a first layer's `input_shape`) at once, else
lazily on the first call; its call simply runs the layers in order."""

from ..layers.input_layer import Input, InputLayerOf, conform_to_input
from ..layers.keras_tensor import KerasTensor
from ..layers.serialization import deserialize
from .functional import FunctionalGraph
from ..layers.base import Layer
from .model import Model

__all__ = ["Sequential"]


class Sequential(Model):
    """A linear stack of layers, as `tf.keras.Sequential`.

    >>> model = tf.keras.Sequential([
    ...     tf.keras.Input(shape=(784,)),
    ...     tf.keras.layers.Dense(128, activation="relu"),
    ...     tf.keras.layers.Dense(10)])
    """

    def __init__(self, layers=None, trainable=True, name=None):
        super().__init__(trainable=trainable, name=name)
        object.__setattr__(self, "_input", None)
        self._stack = []
        for layer in layers or []:
            self.add(layer, rebuild=False)
        self._maybe_build_graph()

    def add(self, layer, rebuild=True):
        """Append a layer (or start the stack with a `tf.keras.Input`).

        Raises:
            TypeError: if `layer` is neither a Layer nor an Input.
        """
        if isinstance(layer, InputLayerOf):  # a functional model's, from its `layers`
            layer = Input(batch_shape=layer.batch_shape, dtype=layer.dtype, name=layer.name)
        if isinstance(layer, KerasTensor):
            if self._stack or self._input is not None:
                raise ValueError("An Input can only be the first element of a Sequential.")
            object.__setattr__(self, "_input", layer)
            return
        if not isinstance(layer, Layer):
            raise TypeError(f"Sequential.add expects a Layer instance, got {layer!r} of type "
                            f"{type(layer).__name__}.")
        if any(existing.name == layer.name for existing in self._stack):
            raise ValueError(f"All layers added to a Sequential model should have unique "
                             f"names. Name {layer.name!r} is already the name of a layer in "
                             "this model.")
        if not self._stack and self._input is None and layer._input_shape_arg is not None:
            object.__setattr__(self, "_input", Input(
                batch_shape=(layer._batch_size_arg,) + tuple(layer._input_shape_arg)))
        self._stack.append(layer)
        object.__setattr__(self, "_graph", None)
        if rebuild:
            self._maybe_build_graph()

    def pop(self):
        """Remove and return the last layer."""
        if not self._stack:
            raise TypeError("There are no layers in the model.")
        layer = self._stack.pop()
        object.__setattr__(self, "_graph", None)
        self._maybe_build_graph()
        return layer

    def _maybe_build_graph(self):
        """With a known input shape, trace the stack symbolically (shapes for summary)."""
        if self._input is None or not self._stack:
            return
        out = self._input
        for layer in self._stack:
            out = layer(out)
        object.__setattr__(self, "_graph", FunctionalGraph(self._input, out))
        object.__setattr__(self, "built", True)

    @property
    def layers(self):
        return list(self._stack)

    @property
    def input_shape(self):
        return None if self._input is None else self._input.shape

    def build(self, input_shape=None):
        if input_shape is not None and self._graph is None:
            object.__setattr__(self, "_input", Input(batch_shape=tuple(input_shape)))
            object.__setattr__(self, "_input_from_shape", True)  # dtype unknown: float32
            self._maybe_build_graph()
        object.__setattr__(self, "built", True)

    def call(self, inputs, training=None, mask=None):
        # With an Input the user gave, inputs take its dtype and rank, as Keras's
        # functional models; one made from the first call's shape knows no dtype (text
        # into TextVectorization, integer ids into Embedding run as they come).
        conform = self._input is not None and not self.__dict__.get("_input_from_shape")
        out = conform_to_input(self._input, inputs) if conform else inputs
        for layer in self._stack:
            out = layer(out, training=training)
        return out

    def get_config(self):
        layers = [{"class_name": type(layer).__name__, "config": layer.get_config()}
                  for layer in self._stack]
        config = {"name": self.name, "layers": layers}
        if self._input is not None:
            config["input_shape"] = list(self._input.shape)
            config["input_dtype"] = self._input.dtype.name
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        model = cls(name=config.get("name"))
        if config.get("input_shape") is not None:
            model.add(Input(batch_shape=tuple(config["input_shape"]),
                            dtype=config.get("input_dtype", "float32")))
        for spec in config["layers"]:
            model.add(deserialize(spec, custom_objects), rebuild=False)
        model._maybe_build_graph()
        return model
