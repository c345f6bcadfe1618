"""dtypes.py owns tapeflow's dtype objects (`tf.float32`, ...) and the rules
that turn Python and NumPy values into them. It knows nothing about tensors."""

import builtins

import numpy as np

__all__ = [
    "DType", "as_dtype", "float16", "float32", "float64", "bfloat16", "int8", "int16",
    "int32", "int64", "uint8", "uint16", "uint32", "uint64", "bool", "complex64",
    "complex128", "string",
]


class DType:
    """A TF-style dtype: compares equal to its NumPy dtype and to its name."""

    __slots__ = ("name", "as_numpy_dtype", "_np")

    def __init__(self, name, np_type):
        self.name = name
        self.as_numpy_dtype = np_type
        self._np = np.dtype(np_type)

    @property
    def is_floating(self):
        return self._np.kind == "f"

    @property
    def is_integer(self):
        return self._np.kind in "iu"

    @property
    def is_complex(self):
        return self._np.kind == "c"

    @property
    def is_bool(self):
        return self._np.kind == "b"

    @property
    def as_datatype_enum(self):
        """TF's DataType enum value (types.proto): DT_FLOAT=1, DT_DOUBLE=2, ..."""
        return _ENUM_BY_NAME[self.name]

    @property
    def size(self):
        return 0 if self._np.kind == "O" else self._np.itemsize  # TF: tf.string.size is 0

    @property
    def min(self):
        return np.finfo(self._np).min if self.is_floating else np.iinfo(self._limits()).min

    @property
    def max(self):
        return np.finfo(self._np).max if self.is_floating else np.iinfo(self._limits()).max

    def _limits(self):
        if self._np.kind == "O":
            raise TypeError(f"Cannot find minimum value of {self!r}: strings have no range.")
        return self._np

    def __repr__(self):
        return f"tf.{self.name}"

    def __str__(self):
        return f"<dtype: '{self.name}'>"  # TF's str; its repr is tf.float32

    def __eq__(self, other):
        if isinstance(other, DType):
            return self._np == other._np
        try:
            return self._np == as_dtype(other)._np
        except TypeError:
            return False

    def __hash__(self):
        return hash(self._np)

    def __reduce__(self):
        return as_dtype, (self.name,)


float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
bfloat16 = float32  # NumPy has no bfloat16; tapeflow computes it as float32.
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
uint16 = DType("uint16", np.uint16)
uint32 = DType("uint32", np.uint32)
uint64 = DType("uint64", np.uint64)
bool = DType("bool", np.bool_)  # noqa: A001 -- TF's name
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
# TF's strings are byte strings: a string tensor holds an object ndarray of
# `bytes` (what TF's `.numpy()` returns), so `tf.string.as_numpy_dtype` is object.
string = DType("string", object)

_BY_NUMPY = {d._np: d for d in (float16, float32, float64, int8, int16, int32, int64,
                                uint8, uint16, uint32, uint64, bool, complex64, complex128,
                                string)}
_BY_NAME = {d.name: d for d in _BY_NUMPY.values()}
_BY_NAME.update({"bfloat16": float32, "half": float16, "float": float32, "double": float64})


# TF's DataType enum (tensorflow/core/framework/types.proto), which TF accepts
# wherever it takes a dtype: `tf.zeros(3, 1)` is float32 zeros.
_ENUM_BY_NAME = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
                 "string": 7, "complex64": 8, "int64": 9, "bool": 10, "uint16": 17,
                 "complex128": 18, "float16": 19, "uint32": 22, "uint64": 23}
_BY_ENUM = {number: _BY_NAME.get(name, string) for name, number in _ENUM_BY_NAME.items()}
_BY_ENUM[14] = bfloat16
_UNSUPPORTED_ENUMS = {0: "DT_INVALID", 11: "DT_QINT8", 12: "DT_QUINT8", 13: "DT_QINT32",
                      15: "DT_QINT16", 16: "DT_QUINT16", 20: "DT_RESOURCE", 21: "DT_VARIANT"}


def _from_enum(value):
    found = _BY_ENUM.get(int(value))
    if found is None:
        what = (f"TF's {_UNSUPPORTED_ENUMS[int(value)]}, which tapeflow does not support"
                if int(value) in _UNSUPPORTED_ENUMS else "not a DataType enum value TF defines")
        raise TypeError(f"Cannot convert {value!r} to a tapeflow dtype: it is {what}. Valid "
                        f"enum values are {sorted(_BY_ENUM)}.")
    return found


def as_dtype(value):
    """Return the DType for a DType, NumPy dtype or type, name ('float32') or
    TF DataType enum value (1 is float32, as `tf.float32.as_datatype_enum`).

    Raises:
        TypeError: if `value` names no dtype tapeflow supports.
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    if isinstance(value, (int, np.integer)) and not isinstance(value, (builtins.bool, np.bool_)):
        return _from_enum(value)
    if value is str or value is bytes:  # as TF: np.str_, np.bytes_ and object name tf.string
        raise TypeError(f"Cannot convert {value!r} to a tapeflow dtype: use tf.string (or "
                        "np.str_, np.bytes_, object) for strings.")
    try:
        np_dtype = np.dtype(value)
        found = string if np_dtype.kind in "US" else _BY_NUMPY.get(np_dtype)
    except TypeError:
        found = None
    if found is None:
        raise TypeError(f"Cannot convert {value!r} to a tapeflow dtype; expected one of "
                        f"{sorted(_BY_NAME)}.")
    return found


def numpy_dtype(value):
    """The NumPy dtype for anything `as_dtype` accepts, or None for None."""
    return None if value is None else as_dtype(value)._np
