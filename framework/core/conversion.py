"""conversion.py turns Python and NumPy values into the ndarray a Tensor holds,
with TF's rules: Python floats become float32, ints int32, text tf.string (an
object array of bytes, see string_values.py); non-rectangular lists and text
meeting a numeric dtype get TF's errors. Wrapping the array is tensor.py's job."""

import numpy as np

from . import dtypes
from .string_values import OBJECT as _OBJECT
from .string_values import holds_text, to_bytes_array

__all__ = ["python_value_to_array"]

_float32 = np.dtype(np.float32)
_int32 = np.dtype(np.int32)
_int64 = np.dtype(np.int64)


def _ragged_detail(value):
    """Where nested lists stop being rectangular: two items of one depth that differ."""
    def size(v):
        if not isinstance(v, (list, tuple)):
            return "is a scalar"
        return f"has {len(v)} element" + ("" if len(v) == 1 else "s")

    level = [("", value)]
    while level:
        lengths = [len(v) if isinstance(v, (list, tuple)) else None for _, v in level]
        odd = next((i for i, n in enumerate(lengths) if n != lengths[0]), None)
        if odd is not None:
            (first, a), (other, b) = level[0], level[odd]
            return (f"value{first} {size(a)} but value{other} {size(b)} (lengths at "
                    f"that depth: {sorted({n for n in lengths if n is not None})})")
        if lengths[0] is None:
            break
        level = [(f"{path}[{i}]", item) for path, v in level for i, item in enumerate(v)]
    return "its rows differ in length"


def python_value_to_array(value, dtype, hint=False):
    """TF's conversion: Python floats become float32, ints int32 and text tf.string.

    `hint` makes `dtype` a preference (TF's dtype_hint): text that cannot take
    it becomes a string tensor instead of an error."""
    try:
        array = np.asarray(value)
    except ValueError:
        if not isinstance(value, (list, tuple)):
            raise
        # TF: "Can't convert non-rectangular Python sequence to Tensor."
        raise ValueError(f"Can't convert non-rectangular Python sequence to Tensor: "
                         f"{_ragged_detail(value)}. Pad the rows to one length first.") from None
    if dtype is not None:
        if dtype is _OBJECT or array.dtype.kind in "OUS":
            return _text_array(value, array, dtype, hint)
        if array.dtype.kind == "f" and dtype.kind in "iu" and not isinstance(value, np.ndarray):
            if not np.all(np.mod(array, 1) == 0):
                raise TypeError(f"Cannot convert {value!r} to a tensor of dtype "
                                f"{dtypes._BY_NUMPY[dtype].name}: it has a fractional part.")
        return array.astype(dtype, copy=False)
    if isinstance(value, (np.ndarray, np.generic)):
        return to_bytes_array(value) if array.dtype.kind in "OUS" else array
    if array.dtype == np.float64:
        return array.astype(_float32)
    if array.dtype == _int64 and array.size and (array.max() <= 2**31 - 1
                                                   and array.min() >= -2**31):
        return array.astype(_int32)
    if array.dtype == _int64 and not array.size:
        return array.astype(_int32)
    if array.dtype.kind in "US" or (array.dtype.kind == "O" and holds_text(array)):
        return to_bytes_array(value)
    if array.dtype.kind == "O":
        raise _unsupported(value, array)
    return array


def _unsupported(value, array):
    """TF's ValueError for a value (or a list element) that is neither a number nor text."""
    items = array.reshape(-1)
    bad = next((v for v in items if not isinstance(v, (int, float, complex, np.number,
                                                       np.bool_))), value)
    if any(isinstance(v, (int, float, complex, np.number, np.bool_)) for v in items):
        return ValueError(f"Can't convert Python sequence with mixed types to Tensor: {bad!r} "
                          f"({type(bad).__name__}) sits among numbers.")
    return ValueError(f"Attempt to convert a value ({bad!r}) with an unsupported type "
                      f"({type(bad)}) to a Tensor.")


def _text_array(value, array, dtype, hint):
    """The conversions where text meets a dtype: strings to tf.string, and TF's
    TypeError for numbers asked to be strings or strings asked to be numbers."""
    text = holds_text(array)
    if text and (dtype is _OBJECT or hint):
        return to_bytes_array(value)
    if not text and dtype is not _OBJECT:
        return array.astype(dtype)  # an object array of numbers
    if not array.size and dtype is _OBJECT:
        return np.empty(array.shape, _OBJECT)  # tf.constant([], tf.string)
    if hint:
        return python_value_to_array(value, None)
    name = dtypes._BY_NUMPY[dtype].name
    advice = " (tf.strings.to_number parses text)" if text else ""
    raise TypeError(f"Cannot convert {value!r} to a tensor of dtype {name}{advice}.")
