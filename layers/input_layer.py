"""input_layer.py holds `tf.keras.Input`, the symbolic input of the functional API."""

import numpy as np

from ..api.array_ops import cast
from ..core.tensor import Tensor, convert_to_tensor
from .keras_tensor import KerasTensor

__all__ = ["Input", "reset_input_names", "cast_to_input"]


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=None, tensor=None,
          ragged=None, batch_shape=None, optional=False):  # noqa: N802 -- Keras's name
    """A symbolic input of the functional API, as `tf.keras.Input`.

    Args:
        shape: the shape of one example, without the batch axis.
        batch_size: a fixed batch size (None means any).
        dtype: the input dtype, float32 by default.
        batch_shape: the full shape including the batch axis, instead of `shape`.

    >>> inputs = tf.keras.Input(shape=(784,))
    >>> outputs = tf.keras.layers.Dense(10)(inputs)
    >>> model = tf.keras.Model(inputs, outputs)
    """
    if batch_shape is None:
        if shape is None:
            raise ValueError("Input needs `shape` (without the batch axis) or `batch_shape`.")
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        batch_shape = (batch_size,) + shape
    tensor = KerasTensor(batch_shape, dtype or "float32", name=name or _unique_input_name())
    return tensor


_input_count = [0]


def _unique_input_name():
    _input_count[0] += 1
    return "input_layer" if _input_count[0] == 1 else f"input_layer_{_input_count[0] - 1}"


def reset_input_names():
    """The next Input is 'input_layer' again (`tf.keras.backend.clear_session()`)."""
    _input_count[0] = 0


def cast_to_input(symbolic, value):
    """`value` in the dtype of the Input `symbolic`, as Keras casts a model's inputs
    (uint8 images into a float32 model, float64 arrays into float32). A value
    already in that dtype is returned as it is.

    Raises:
        TypeError: for text given to a numeric Input or numbers to a string Input.
    """
    if value is None:
        return value
    target = symbolic.dtype
    dtype = value.dtype if isinstance(value, (Tensor, np.ndarray)) else None
    if dtype is not None and np.dtype(getattr(dtype, "as_numpy_dtype", dtype)) == np.dtype(
            target.as_numpy_dtype):
        return value
    if not isinstance(value, Tensor):
        value = convert_to_tensor(np.asarray(value) if dtype is None else value)
    if (value.dtype.name == "string") != (target.name == "string"):
        raise TypeError(f"Input {symbolic.name!r} expects {target.name} values; the value "
                        f"given is {value.dtype.name} (shape {tuple(value.shape)}), which "
                        "cannot be cast to it.")
    return cast(value, target)
