"""dtypes.py owns tapeflow's dtype objects (`tf.float32`, ...) and the rules
that turn Python and NumPy values into them. It knows nothing about tensors."""

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
    def size(self):
        return self._np.itemsize

    @property
    def min(self):
        return np.finfo(self._np).min if self.is_floating else np.iinfo(self._np).min

    @property
    def max(self):
        return np.finfo(self._np).max if self.is_floating else np.iinfo(self._np).max

    def __repr__(self):
        return f"tf.{self.name}"

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
string = DType("string", np.str_)

_BY_NUMPY = {d._np: d for d in (float16, float32, float64, int8, int16, int32, int64,
                                uint8, uint16, uint32, uint64, bool, complex64, complex128)}
_BY_NAME = {d.name: d for d in _BY_NUMPY.values()}
_BY_NAME.update({"bfloat16": float32, "half": float16, "float": float32, "double": float64})


def as_dtype(value):
    """Return the DType for a DType, NumPy dtype or type, or name ('float32').

    Raises:
        TypeError: if `value` names no dtype tapeflow supports.
    """
    if isinstance(value, DType):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    try:
        found = _BY_NUMPY.get(np.dtype(value))
    except TypeError:
        found = None
    if found is None:
        raise TypeError(f"Cannot convert {value!r} to a tapeflow dtype; expected one of "
                        f"{sorted(_BY_NAME)}.")
    return found


def numpy_dtype(value):
    """The NumPy dtype for anything `as_dtype` accepts, or None for None."""
    return None if value is None else as_dtype(value)._np
