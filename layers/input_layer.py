"""input_layer.py holds `tf.keras.Input`, the symbolic input of the functional API."""

from .keras_tensor import KerasTensor

__all__ = ["Input", "reset_input_names"]


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
