"""models/ is the `tf.keras.models` namespace: Model, Sequential, Input and
`load_model`. It holds no code of its own."""

from ..layers.input_layer import Input
from .model import Model
from .saving import load_model
from .sequential import Sequential

Functional = Model

__all__ = ["Model", "Sequential", "Input", "load_model"]
