"""`keras.config` (Keras 3): the global settings programs read and set, the same
functions as `keras.backend`'s, and `enable_unsafe_deserialization`. `backend()`
is "tensorflow": tapeflow is TF's API, so code that branches on the backend takes
its TF branch. Re-exports only."""

from ..backend import (epsilon, floatx, image_data_format, set_epsilon, set_floatx,
                       set_image_data_format)
from ..models.keras_reader import enable_unsafe_deserialization

__all__ = ["backend", "epsilon", "floatx", "image_data_format", "set_epsilon", "set_floatx",
           "set_image_data_format", "enable_unsafe_deserialization"]


def backend():
    """The name Keras 3 programs test: "tensorflow" (tapeflow is TF's API)."""
    return "tensorflow"
