"""files.py: tf.io.read_file and tf.io.write_file, the byte-string plumbing the
other tf.io modules share (string tensors in and out); files are written through
runtime/atomic_files.py. String tensors hold object ndarrays of `bytes`, as TF's `.numpy()`."""

import os

from ..core.errors import InvalidArgumentError, NotFoundError
from ..core.string_values import OBJECT, to_bytes_array
from ..core.tensor import Tensor
from ..runtime.atomic_files import atomic_write as _atomic_write
from ..runtime.atomic_files import temporary_beside
from .gfile import FailedPreconditionError, _local

__all__ = ["read_file", "write_file", "atomic_write", "string_tensor", "byte_strings",
           "one_byte_string", "tf_type_name", "temporary_beside"]

# TF's C++ names of dtypes, which its attr errors use ("... of float is not in the list").
_TF_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "half"}


def tf_type_name(dtype):
    """The name TF's kernel errors give `dtype` (a DType): float, double, int32, ..."""
    return _TF_TYPE_NAMES.get(dtype.name, dtype.name)


def string_tensor(values):
    """A tf.string Tensor of `values` (bytes, str, or an ndarray/nested list of them)."""
    return Tensor(to_bytes_array(values))


def byte_strings(value, what):
    """`value` (a string Tensor, str/bytes, or nested lists/arrays of them) as an
    object ndarray of bytes.

    Raises:
        TypeError: naming `what`, for numbers or a Tensor of another dtype.
    """
    if isinstance(value, Tensor):
        if value._value.dtype != OBJECT:
            raise TypeError(f"{what} must be a tf.string Tensor, got dtype {value.dtype.name}.")
        return value._value
    try:
        return to_bytes_array(value)
    except ValueError as error:
        raise TypeError(f"{what} must be strings (str or bytes) or a tf.string Tensor: "
                        f"{error}") from None


def one_byte_string(value, what, op="", label=None):
    """`value` as one bytes object; InvalidArgumentError (TF's message, `label` naming
    the tensor) unless it is a scalar."""
    array = byte_strings(value, what)
    if array.ndim != 0:
        suffix = f" [Op:{op}]" if op else ""
        raise InvalidArgumentError(f"{label or what} tensor must be scalar, but had shape: "
                                   f"{list(array.shape)}{suffix}")
    return array[()]


def atomic_write(filepath, data):
    """Write `data` (bytes) to `filepath` atomically (runtime/atomic_files.py)."""
    _atomic_write(filepath, lambda f: f.write(data))


def read_file(filename, name=None):
    """The whole content of `filename` as a scalar tf.string Tensor, as tf.io.read_file.

    Raises:
        NotFoundError: if there is no such file (TF's message).
    """
    path = _local(one_byte_string(filename, "filename", "ReadFile", "Input filename")
                  .decode("utf-8"))
    try:
        with open(path, "rb") as f:
            return string_tensor(f.read())
    except FileNotFoundError:
        raise NotFoundError(f"{path}; No such file or directory [Op:ReadFile]") from None
    except IsADirectoryError:
        raise FailedPreconditionError(f"{path}; Is a directory [Op:ReadFile]") from None


def write_file(filename, contents, name=None):
    """Write the scalar string `contents` to `filename`, as tf.io.write_file; the
    directory is created as TF does, and the file is replaced atomically.

    Raises:
        InvalidArgumentError: if `contents` is not a scalar string.
    """
    path = _local(one_byte_string(filename, "filename", "WriteFile", "Input filename")
                  .decode("utf-8"))
    data = one_byte_string(contents, "contents", "WriteFile", "Contents")
    parent = os.path.dirname(path)
    if parent:
        os.makedirs(parent, exist_ok=True)
    atomic_write(path, data)
