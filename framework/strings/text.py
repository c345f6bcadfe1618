"""text.py holds what every tf.strings function shares: reading an argument as
an object array of bytes (TF's errors for non-strings), applying a Python
function to each string, wrapping results as Tensors, and running an
elementwise function over a RaggedTensor's flat values."""

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.string_values import OBJECT, bytes_scalar
from ..core.tensor import Tensor, convert_to_tensor
from ..ragged.ragged_tensor import RaggedTensor

__all__ = ["string_array", "each", "tensor_of", "over_ragged", "scalar_text", "OBJECT"]


def string_array(value, what="input"):
    """`value` (a string Tensor, str, bytes, nested lists, NumPy text) as an object
    ndarray of bytes.

    Raises:
        TypeError: for numbers, as TF ("Cannot convert 1 to a tensor of dtype string").
    """
    if isinstance(value, Tensor):
        if value._value.dtype is not OBJECT:
            raise TypeError(f"{what} must be a string tensor, got a {value.dtype.name} tensor "
                            f"of shape {list(value.shape)}; tf.strings.as_string formats "
                            "numbers.")
        return np.asarray(value._value)
    return convert_to_tensor(value, dtype="string")._value


def scalar_text(value, what):
    """A scalar string argument (a separator, a pattern) as bytes."""
    array = string_array(value, what)
    if array.ndim:
        raise InvalidArgumentError(f"{what} must be a scalar, got shape: {list(array.shape)}")
    return array[()]


def each(fn, array, dtype=OBJECT):
    """`fn` applied to every element of the object array `array`, as an array of
    `dtype` with `array`'s shape (one Python call per string)."""
    out = np.empty(array.shape, dtype)
    flat = out.reshape(-1)
    for i, item in enumerate(array.reshape(-1)):
        flat[i] = fn(item)
    return out


def tensor_of(array):
    """A Tensor holding `array` (rank-0 numbers as NumPy scalars, as tapeflow keeps them)."""
    if array.ndim == 0:
        return Tensor(bytes_scalar(array[()]) if array.dtype is OBJECT else array[()])
    return Tensor(array)


def over_ragged(fn):
    """`fn(x, *args)` on a RaggedTensor `x` runs on its flat values (TF dispatches
    its elementwise string ops so); on anything else as it is."""
    def apply(x, *args, **kwargs):
        if isinstance(x, RaggedTensor):
            return x.with_flat_values(fn(x.flat_values, *args, **kwargs))
        return fn(x, *args, **kwargs)
    apply.__name__, apply.__doc__, apply.__wrapped__ = fn.__name__, fn.__doc__, fn
    return apply
