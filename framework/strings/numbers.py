"""numbers.py: text to numbers and back (tf.strings.as_string, also `tf.as_string`;
tf.strings.to_number) and strings to bucket ids (to_hash_bucket_fast, by
FarmHash's Fingerprint64 as TF, so ids equal TF's)."""

import re

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import as_tensor
from .farmhash import fingerprint64
from .text import OBJECT, each, over_ragged, string_array, tensor_of

__all__ = ["as_string", "to_number", "to_hash_bucket_fast"]

_FILL_FLAGS = " +-0#"  # the printf flags TF's AsString accepts as `fill`


def _printf_spec(dtype, precision, scientific, shortest, width, fill):
    """TF's AsString format: '%' + fill flag + width + '.precision' + conversion."""
    if scientific and shortest:
        raise InvalidArgumentError("Cannot select both scientific and shortest notation "
                                   "[Op:AsString]")
    if len(fill) > 1:
        raise InvalidArgumentError("Fill string must be one or fewer characters [Op:AsString]")
    if fill and fill not in _FILL_FLAGS:
        raise InvalidArgumentError(f'Fill argument not supported: "{fill}" [Op:AsString]')
    if precision > -1 and dtype.kind in "iu":
        raise InvalidArgumentError(f"precision not supported for datatype "
                                   f"{dtypes.as_dtype(dtype).name} [Op:AsString]")
    spec = "%" + fill + (str(width) if width > -1 else "") + \
        (f".{precision}" if precision > -1 else "")
    if dtype.kind in "iu":
        return spec + "d"
    return spec + ("g" if shortest else "e" if scientific else "f")


@over_ragged
def as_string(input, precision=-1, scientific=False, shortest=False,  # noqa: A002
              width=-1, fill="", name=None):
    """Format each number as text, as tf.strings.as_string (C's printf rules:
    `%f` by default, `%e` with `scientific`, `%g` with `shortest`; `width` pads
    with spaces, or zeros with `fill='0'`, or on the right with `fill='-'`).
    Booleans become b'true'/b'false', complex numbers '(re,im)'; strings pass
    through.

    >>> tf.strings.as_string([3.14, 2.0], precision=2).numpy()
    array([b'3.14', b'2.00'], dtype=object)

    Raises:
        InvalidArgumentError: for `precision` with integers, both `scientific` and
            `shortest`, or a `fill` other than one of ' +-0#'.
    """
    x = as_tensor(input)
    array = np.asarray(x._value)
    if array.dtype is OBJECT:
        return tensor_of(array.copy())
    if array.dtype.kind == "b":
        return tensor_of(each(lambda b: b"true" if b else b"false", array.astype(object)))
    spec = _printf_spec(array.dtype, precision, scientific, shortest, width, fill)
    if array.dtype.kind == "c":
        pair = f"({spec},{spec})"
        return tensor_of(each(lambda z: (pair % (z.real, z.imag)).encode(),
                              array.astype(object)))
    values = array.astype(object) if array.dtype.kind in "iu" else \
        array.astype(np.float64).astype(object)
    return tensor_of(each(lambda v: (spec % v).encode(), values))


_SPACE = b" \t\n\r\x0b\x0c"
_DECIMAL = re.compile(rb"[+-]?(?:\d+\.?\d*(?:[eE][+-]?\d+)?|\.\d+(?:[eE][+-]?\d+)?)")
_SPECIAL = re.compile(rb"[+-]?(?:inf|infinity|nan)", re.IGNORECASE)
_HEX = re.compile(rb"[+-]?0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?")
_INTEGER = re.compile(rb"[+-]?\d+")
_UNSIGNED = re.compile(rb"\+?\d+")
_OUT_TYPES = {"float32": "float", "float64": "double", "int32": "int32", "int64": "int64",
              "uint32": "uint32", "uint64": "uint64"}


def _parse_float(text):
    if _DECIMAL.fullmatch(text) or _SPECIAL.fullmatch(text):
        return float(text)
    if _HEX.fullmatch(text):
        return float.fromhex(text.decode())
    return None


def _parser(np_dtype):
    if np_dtype.kind == "f":
        return _parse_float
    info = np.iinfo(np_dtype)
    grammar = _INTEGER if np_dtype.kind == "i" else _UNSIGNED

    def parse_int(text):
        if grammar.fullmatch(text):
            value = int(text)
            return value if info.min <= value <= info.max else None
        return None
    return parse_int


@over_ragged
def to_number(input, out_type=dtypes.float32, name=None):  # noqa: A002 -- TF's name
    """Parse each string as a number of `out_type` (float32, float64, int32, int64,
    uint32 or uint64), as tf.strings.to_number. Surrounding ASCII whitespace is
    allowed; floats take C's syntax (`1e3`, `.5`, `inf`, `nan`, hex `0x1p3`; too
    large is inf); integers are decimal and must fit `out_type`. Floats are parsed
    in double precision, then rounded to float32.

    >>> tf.strings.to_number(["1.5", "-2"]).numpy()
    array([ 1.5, -2. ], dtype=float32)

    Raises:
        InvalidArgumentError: naming the first string that is not a number of
            `out_type`.
    """
    dtype = dtypes.as_dtype(out_type)
    if dtype.name not in _OUT_TYPES:
        raise InvalidArgumentError(f"Value for attr 'out_type' of {dtype.name} is not in the "
                                   f"list of allowed values: {', '.join(_OUT_TYPES.values())} "
                                   "[Op:StringToNumber]")
    array = string_array(input)
    parse = _parser(dtype._np)
    values = []
    for text in array.reshape(-1):
        value = parse(text.strip(_SPACE))
        if value is None:
            raise InvalidArgumentError("StringToNumberOp could not correctly convert string: "
                                       f"{text.decode('utf-8', 'backslashreplace')} "
                                       "[Op:StringToNumber]")
        values.append(value)
    wide = np.float64 if dtype.is_floating else dtype._np
    with np.errstate(over="ignore"):  # C's strtof: out of range is inf
        out = np.array(values, wide).astype(dtype._np).reshape(array.shape)
    return tensor_of(out)




@over_ragged
def to_hash_bucket_fast(input, num_buckets, name=None):  # noqa: A002 -- TF's name
    """int64 bucket of each string: FarmHash Fingerprint64 modulo `num_buckets`,
    as tf.strings.to_hash_bucket_fast (the same ids as TF).

    >>> tf.strings.to_hash_bucket_fast(["Hello", "TensorFlow", "2.x"], 3).numpy()
    array([0, 2, 2])
    """
    if int(num_buckets) < 1:
        raise InvalidArgumentError(f"num_buckets must be >= 1, got {num_buckets} "
                                   "[Op:StringToHashBucketFast]")
    buckets = int(num_buckets)
    return tensor_of(each(lambda s: fingerprint64(s) % buckets, string_array(input), np.int64))
