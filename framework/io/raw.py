"""raw.py: tf.io.decode_raw (bytes reinterpreted as numbers) and
tf.io.serialize_tensor / parse_tensor, which write and read TF's TensorProto
wire format byte for byte (dtype, shape, tensor_content or string_val), so
tensors serialized by TF parse here and the other way round."""

import base64

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor
from ..summary.records import tensor_proto
from .files import byte_strings, one_byte_string, string_tensor, tf_type_name

__all__ = ["decode_raw", "serialize_tensor", "parse_tensor", "message_fields", "read_varint",
           "signed"]

def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """Reinterpret each string of `input_bytes` as a vector of `out_type`, as
    tf.io.decode_raw: the result has shape `input_bytes.shape + [n]`.

    Args:
        fixed_length: if given, each string is cut or zero-padded to this many bytes
            first (then strings may differ in length).

    Raises:
        InvalidArgumentError: strings of different lengths (without fixed_length), or a
            length that is not a multiple of the type's size (TF's messages).
    """
    target = dtypes.as_dtype(out_type)
    if target == dtypes.string:
        raise InvalidArgumentError("Value for attr 'out_type' of string is not in the list of "
                                   "allowed values [Op:DecodeRaw]")
    np_type = np.dtype(target._np).newbyteorder("<" if little_endian else ">")
    size = np_type.itemsize
    strings = byte_strings(input_bytes, "input_bytes")
    flat = list(strings.reshape(-1))
    if fixed_length is not None:
        fixed_length = int(fixed_length)
        if fixed_length % size:
            raise InvalidArgumentError(f"fixed_length ({fixed_length}) must be a multiple of "
                                       f"the size of out_type ({size}) [Op:DecodeRaw]")
        flat = [s[:fixed_length].ljust(fixed_length, b"\0") for s in flat]
    length = len(flat[0]) if flat else 0
    for i, s in enumerate(flat):
        if len(s) != length:
            raise InvalidArgumentError(f"DecodeRaw requires input strings to all be the same "
                                       f"size, but element {i} has size {len(s)} != {length} "
                                       "[Op:DecodeRaw]")
    if length % size:
        raise InvalidArgumentError(f"Input to DecodeRaw has length {length} that is not a "
                                   f"multiple of {size}, the size of {tf_type_name(target)} "
                                   "[Op:DecodeRaw]")
    values = np.frombuffer(b"".join(flat), dtype=np_type).astype(target._np)
    return Tensor(values.reshape(strings.shape + (length // size,)))


# -- TensorProto wire format ---------------------------------------------------------
# Fields (tensorflow/core/framework/tensor.proto): 1 dtype, 2 tensor_shape
# (TensorShapeProto: 2 dim {1 size}), 4 tensor_content, 8 string_val; the typed
# repeated fields a proto may carry instead of tensor_content, by field number
# (summary/records.py writes the format; this module reads it):
_TYPED_FIELDS = {5: "<f4", 6: "<f8", 7: "int", 9: "<f4", 10: "int", 11: "int", 12: "<f8",
                 13: "int", 16: "int", 17: "int"}


def serialize_tensor(tensor, name=None):
    """`tensor` as a scalar string Tensor holding TF's serialized TensorProto, as
    tf.io.serialize_tensor (the same bytes TF writes; the encoder is tf.summary's)."""
    x = as_tensor(tensor)
    array = byte_strings(x, "tensor") if x.dtype == dtypes.string else x._value
    return string_tensor(tensor_proto(array))


def read_varint(data, i):
    value, shift = 0, 0
    while True:
        byte = data[i]
        i += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, i
        shift += 7


def message_fields(data):
    """(field number, wire type, value) of a message: ints for varints, bytes else."""
    i, n = 0, len(data)
    while i < n:
        key, i = read_varint(data, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = read_varint(data, i)
        elif wire == 2:
            length, i = read_varint(data, i)
            value, i = data[i:i + length], i + length
            if i > n:
                raise ValueError("truncated field")
        elif wire in (1, 5):
            width = 8 if wire == 1 else 4
            value, i = data[i:i + width], i + width
        else:
            raise ValueError(f"wire type {wire}")
        yield number, wire, value


def signed(value, bits=64):
    return value - (1 << bits) if value >= 1 << (bits - 1) else value


def _typed_values(number, wire, value):
    kind = _TYPED_FIELDS[number]
    if kind != "int":
        return list(np.frombuffer(value, kind))
    if wire == 0:
        return [signed(value)]
    values, i = [], 0
    while i < len(value):
        v, i = read_varint(value, i)
        values.append(signed(v))
    return values


def parse_tensor(serialized, out_type, name=None):
    """The Tensor a serialized TensorProto holds, as tf.io.parse_tensor.

    Raises:
        InvalidArgumentError: bytes that are not a TensorProto, or a dtype other
            than `out_type` (TF's messages).
    """
    data = one_byte_string(serialized, "serialized")
    target = dtypes.as_dtype(out_type)
    dtype_enum, shape, content, strings, typed = 0, [], None, [], []
    try:
        for number, wire, value in message_fields(data):
            if number == 1:
                dtype_enum = value
            elif number == 2:
                for dim_number, _, dim in message_fields(value):
                    if dim_number == 2:
                        size = [v for f, _, v in message_fields(dim) if f == 1]
                        shape.append(signed(size[0]) if size else 0)
            elif number == 4:
                content = value
            elif number == 8:
                strings.append(bytes(value))
            elif number in _TYPED_FIELDS:
                typed.extend(_typed_values(number, wire, value))
        parsed = dtypes.as_dtype(dtype_enum)
    except (ValueError, IndexError, TypeError):
        encoded = base64.b64encode(data).decode("ascii")
        raise InvalidArgumentError(f"Could not parse `serialized` as TensorProto, base64: "
                                   f"{encoded} [Op:ParseTensor]") from None
    if parsed != target:
        raise InvalidArgumentError(f"Type mismatch between parsed tensor "
                                   f"({tf_type_name(parsed)}) and dtype "
                                   f"({tf_type_name(target)}) [Op:ParseTensor]")
    shape = tuple(shape)
    count = int(np.prod(shape, dtype=np.int64))
    if parsed == dtypes.string:
        return string_tensor(np.array(strings + [b""] * (count - len(strings)),
                                      dtype=object).reshape(shape))
    np_type = parsed._np
    if content is not None:
        values = np.frombuffer(content, np_type.newbyteorder("<")).astype(np_type)
    else:
        if parsed == dtypes.float16 and typed:  # half_val holds the bits
            typed = list(np.array(typed, np.uint16).view(np.float16))
        if parsed.is_complex and typed:
            typed = [complex(a, b) for a, b in zip(typed[::2], typed[1::2])]
        # As TF: fewer values than elements repeat the last one.
        values = np.array(typed + typed[-1:] * (count - len(typed)) if typed else
                          np.zeros(count), np_type)
    return Tensor(values.reshape(shape))


