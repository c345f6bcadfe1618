"""input_layer.py holds `tf.keras.Input`, the symbolic input of the functional API."""

import numpy as np

from ..api.array_ops import cast, expand_dims, squeeze
from ..core.tensor import Tensor, constant, convert_to_tensor
from ..sparse.sparse_tensor import SparseTensor
from .keras_tensor import KerasTensor

__all__ = ["Input", "reset_input_names", "conform_to_input"]


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


def conform_to_input(symbolic, value):
    """`value` made to fit the Input `symbolic` as Keras's functional models make
    it: in the Input's dtype (uint8 images into a float32 model, float64 arrays
    into float32), and with a trailing axis of size 1 added or removed when that
    is the only difference in rank ((batch,) data into an Input of shape (1,)).
    A value that already fits is returned as it is.

    Raises:
        TypeError: for text given to a numeric Input or numbers to a string Input.
    """
    if value is None:
        return value
    target = symbolic.dtype
    if isinstance(value, SparseTensor):  # Input(sparse=True): Dense multiplies it as it is
        if value.dtype != target:
            value = SparseTensor(value.indices, cast(value.values, target), value.dense_shape)
        return value
    # A tensor's value is not read here (a traced step must not look at values; a
    # string Tensor already holds bytes): only NumPy text arrays become string tensors.
    if isinstance(value, np.ndarray) and value.dtype.kind in "US":
        value = constant(value)
    dtype = value.dtype if isinstance(value, (Tensor, np.ndarray)) else None
    if dtype is None or np.dtype(getattr(dtype, "as_numpy_dtype", dtype)) != np.dtype(
            target.as_numpy_dtype):
        if not isinstance(value, Tensor):
            value = convert_to_tensor(np.asarray(value) if dtype is None else value)
        if (value.dtype.name == "string") != (target.name == "string"):
            raise TypeError(f"Input {symbolic.name!r} expects {target.name} values; the value "
                            f"given is {value.dtype.name} (shape {tuple(value.shape)}), which "
                            "cannot be cast to it.")
        value = cast(value, target)
    rank, expected = len(value.shape), len(symbolic.shape)
    if rank == expected + 1 and value.shape[-1] == 1:
        return squeeze(value, axis=-1)
    if rank == expected - 1 and symbolic.shape[-1] == 1:
        return expand_dims(value, axis=-1)
    return value
