"""splitting.py: the tf.strings functions that turn each string into a list
(split, bytes_split, unicode_split, unicode_decode) and unicode_encode, their
inverse. As TF: a scalar input gives a 1-D Tensor, an input of rank N a
RaggedTensor of rank N + 1 (RaggedTensor inputs keep their rows)."""

import codecs

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor
from ..ragged.ragged_tensor import RaggedTensor
from .text import OBJECT, scalar_text, string_array, tensor_of

__all__ = ["split", "bytes_split", "unicode_split", "unicode_decode", "unicode_encode"]

_INT32 = np.dtype(np.int32)


def _lists_to_rows(pieces_of, input, dtype=OBJECT):  # noqa: A002 -- TF's name
    """`pieces_of(bytes) -> list` over every string of `input`: a 1-D Tensor for a
    scalar, else a RaggedTensor with one more (ragged) dimension."""
    if isinstance(input, RaggedTensor):
        return input.with_flat_values(_lists_to_rows(pieces_of, input.flat_values, dtype))
    array = string_array(input)
    lists = [pieces_of(s) for s in array.reshape(-1)]
    flat = np.empty(sum(len(items) for items in lists), dtype)
    flat[:] = [item for items in lists for item in items]
    if array.ndim == 0:
        return tensor_of(flat)
    result = RaggedTensor.from_row_lengths(Tensor(flat), [len(items) for items in lists])
    for axis in range(array.ndim - 1, 0, -1):  # outer axes: rows of equal length, as TF
        outer = int(np.prod(array.shape[:axis], dtype=np.int64))
        result = RaggedTensor.from_row_lengths(result, [array.shape[axis]] * outer)
    return result


def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002 -- TF's name
    """Split each string at `sep` (at runs of ASCII whitespace, dropping empty
    pieces, when `sep` is None or ''), at most `maxsplit` times, as tf.strings.split.

    >>> tf.strings.split("hello world").numpy()
    array([b'hello', b'world'], dtype=object)
    >>> tf.strings.split(["a b", "c"])
    <tf.RaggedTensor [[b'a', b'b'], [b'c']]>

    Raises:
        InvalidArgumentError: if `sep` is not a scalar.
    """
    separator = None if sep is None else scalar_text(sep, "sep") or None
    limit = int(maxsplit)
    return _lists_to_rows(lambda s: s.split(separator, limit), input)


def bytes_split(input, name=None):  # noqa: A002 -- TF's name
    """Split each string into its bytes, as tf.strings.bytes_split."""
    return _lists_to_rows(lambda s: [s[i:i + 1] for i in range(len(s))], input)


def _codec(encoding):
    try:
        return codecs.lookup(str(encoding)).name
    except LookupError:
        raise InvalidArgumentError(f"Could not create converter for input encoding: "
                                   f"{encoding}") from None


def _decode(s, encoding, errors, replacement_char, replace_control_characters=False):
    """The code points of `s`, invalid sequences handled as TF: 'replace' puts
    `replacement_char` for each maximal invalid subsequence, 'ignore' drops it,
    'strict' raises."""
    if errors not in ("strict", "replace", "ignore"):
        raise ValueError(f"errors must be 'strict', 'replace' or 'ignore', got {errors!r}.")
    chars, start = [], 0
    while True:
        try:
            chars.extend(s[start:].decode(encoding))
            break
        except UnicodeDecodeError as error:
            if errors == "strict":
                raise InvalidArgumentError("Invalid formatting on input string "
                                           "[Op:UnicodeDecode]") from None
            chars.extend(s[start:start + error.start].decode(encoding))
            if errors == "replace":
                chars.append(chr(replacement_char))
            start += error.end
    points = [ord(c) for c in chars]
    if replace_control_characters:
        points = [replacement_char if p < 0x20 or 0x7F <= p < 0xA0 else p for p in points]
    return points


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
    """int32 code points of each string, as tf.strings.unicode_decode.

    >>> tf.strings.unicode_decode("hé", "UTF-8").numpy()
    array([104, 233], dtype=int32)

    Raises:
        InvalidArgumentError: with `errors='strict'`, for an invalid sequence.
    """
    encoding = _codec(input_encoding)
    return _lists_to_rows(lambda s: _decode(s, encoding, errors, replacement_char,
                                            replace_control_characters), input, _INT32)


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                  name=None):
    """Each string cut into its characters (each re-encoded in `input_encoding`),
    as tf.strings.unicode_split; invalid sequences as in `unicode_decode`.

    >>> tf.strings.unicode_split("hé", "UTF-8").numpy()
    array([b'h', b'\\xc3\\xa9'], dtype=object)
    """
    encoding = _codec(input_encoding)
    return _lists_to_rows(lambda s: [chr(p).encode(encoding, "surrogatepass") for p in
                                     _decode(s, encoding, errors, replacement_char)], input)


def _encode_row(points, encoding, errors, replacement_char):
    chars = []
    for p in points.tolist():
        if 0 <= p <= 0x10FFFF and not 0xD800 <= p <= 0xDFFF:
            chars.append(chr(p))
        elif errors == "strict":
            raise InvalidArgumentError("Code point is out of range for Unicode, or is a "
                                       "surrogate. [Op:UnicodeEncode]")
        elif errors == "replace":
            chars.append(chr(replacement_char))
    return "".join(chars).encode(encoding)


def unicode_encode(input, output_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   name=None):
    """Encode each innermost row of int32 code points as one string, as
    tf.strings.unicode_encode: a [..., n] Tensor (or a RaggedTensor) gives
    strings of shape [...]. Invalid code points are replaced, dropped
    (`errors='ignore'`) or raise (`'strict'`).

    >>> tf.strings.unicode_encode([104, 233], "UTF-8").numpy()
    b'h\\xc3\\xa9'
    """
    encoding = _codec(output_encoding)
    if isinstance(input, RaggedTensor):
        if isinstance(input.values, RaggedTensor):
            return input.with_values(unicode_encode(input.values, output_encoding, errors,
                                                    replacement_char))
        values, splits = np.asarray(input.values.numpy()), input.row_splits.numpy()
        out = np.empty(len(splits) - 1, OBJECT)
        out[:] = [_encode_row(values[a:b], encoding, errors, replacement_char)
                  for a, b in zip(splits[:-1], splits[1:])]
        return tensor_of(out)
    array = np.asarray(as_tensor(input)._value)
    if array.ndim == 0:
        raise ValueError("input_tensor's rank must be at least 1.")
    if array.dtype.kind not in "iu":
        raise TypeError(f"unicode_encode: input must hold int32 code points, got {array.dtype}.")
    rows = array.reshape(-1, array.shape[-1]) if array.size else array.reshape(
        int(np.prod(array.shape[:-1], dtype=np.int64)), array.shape[-1])
    out = np.empty(len(rows), OBJECT)
    out[:] = [_encode_row(row, encoding, errors, replacement_char) for row in rows]
    return tensor_of(out.reshape(array.shape[:-1]))
