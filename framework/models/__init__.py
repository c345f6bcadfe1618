"""models/ is the `tf.keras.models` namespace: Model, Sequential, Input,
`load_model`/`save_model`, `clone_model` and `model_from_json`. This
`__init__` only re-exports."""

from ..layers.input_layer import Input
from .model import Model
from .cloning import clone_model, model_from_json
from .saving import load_model, save_model
from .sequential import Sequential

Functional = Model

__all__ = ["Model", "Sequential", "Input", "load_model", "save_model", "clone_model",
           "model_from_json"]
