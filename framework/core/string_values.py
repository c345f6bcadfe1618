"""string_values.py owns the storage of string tensors: an object ndarray of
`bytes` (str is encoded as UTF-8), which is what TF's `.numpy()` returns. It
builds that array from Python str/bytes, nested lists and NumPy U/S/O arrays
with TF's errors for mixed or ragged input; tensor.py decides when to call it."""

import numpy as np

from .errors import InvalidArgumentError

__all__ = ["OBJECT", "to_bytes_array", "bytes_scalar", "holds_text", "refuse_strings"]

OBJECT = np.dtype(object)


def bytes_scalar(item):
    """A rank-0 object array holding `item` (NumPy hands back bare elements)."""
    array = np.empty((), OBJECT)
    array[()] = item
    return array


def _element(item):
    if isinstance(item, bytes):
        return bytes(item)  # np.bytes_ -> bytes, as TF's numpy() gives
    if isinstance(item, str):
        return item.encode("utf-8")
    if isinstance(item, (list, tuple)):
        raise ValueError("Can't convert non-rectangular Python sequence to Tensor: a string "
                         f"sits beside the sequence {item!r} at one depth. Pad the rows to one "
                         "length first.")
    raise ValueError(f"Can't convert Python sequence with mixed types to Tensor: {item!r} "
                     f"({type(item).__name__}) sits among strings.")


def holds_text(array):
    """Whether an ndarray converted from a Python value holds strings."""
    kind = array.dtype.kind
    if kind in "US":
        return True
    if kind != "O":
        return False
    return any(isinstance(item, (str, bytes)) for item in array.reshape(-1))


def to_bytes_array(value):
    """`value` (str, bytes, nested lists of them, or a NumPy array of them) as an
    object ndarray of bytes.

    Raises:
        ValueError: for numbers or other objects among the strings, or rows of
            different lengths (TF's messages).
    """
    if isinstance(value, (str, bytes)):
        return bytes_scalar(_element(value))
    if isinstance(value, np.ndarray) and value.dtype.kind == "S":
        return value.astype(OBJECT)
    if isinstance(value, np.ndarray) and value.dtype.kind == "U":
        return np.char.encode(value, "utf-8").astype(OBJECT)
    if isinstance(value, np.ndarray) and value.dtype.kind == "O":
        bad = [v for v in value.reshape(-1) if not isinstance(v, (str, bytes))][:1]
        if bad:
            bad = bad[0]
            raise ValueError("Failed to convert a NumPy array to a Tensor (Unsupported object "
                             f"type {type(bad).__name__}: {bad!r}).")
    array = np.array(value, dtype=OBJECT)
    if array.ndim == 0:
        return bytes_scalar(_element(array[()]))
    flat = [_element(item) for item in array.reshape(-1)]
    out = np.empty(array.shape, OBJECT)
    out.reshape(-1)[:] = flat
    return out


def refuse_strings(tensor, op_name):
    """TF's error for a string tensor given to an op with no string kernel (for the
    public functions that compute on arrays directly, where NumPy would order bytes)."""
    if tensor._value.dtype is OBJECT:
        raise InvalidArgumentError(f"Value for attr 'T' of string is not in the list of "
                                   f"allowed values: {op_name} takes numbers [Op:{op_name}]")
    return tensor
