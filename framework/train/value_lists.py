"""value_lists.py holds the protobuf message API that tf.train's Example
classes share (`_Message`: bytes, equality, text format) and the three value
lists of feature.proto: BytesList, FloatList, Int64List. example.py builds
Feature, Features, Example and SequenceExample on them.

The bytes are protobuf's: the encoder is tf.summary's (summary/records.py),
the decoder tf.io's Feature parser (io/example.py)."""

import struct

import numpy as np

from ..io.example import feature_values
from ..summary.records import _key, _varint  # protobuf's wire format, written once

__all__ = ["BytesList", "FloatList", "Int64List", "DecodeError"]


def length_delimited(field, payload):
    return _key(field, 2) + _varint(len(payload)) + payload


def escape(data):
    """protobuf's CEscape of bytes, as its text format prints them."""
    special = {10: "\\n", 13: "\\r", 9: "\\t", 34: '\\"', 39: "\\'", 92: "\\\\"}
    return "".join(special.get(b) or (chr(b) if 32 <= b < 127 else f"\\{b:03o}") for b in data)


def _shortest_float32(value):
    """The shortest %g text that reads back as the same float32 (protobuf's text: 1, 0.1)."""
    for digits in range(6, 10):
        text = f"{value:.{digits}g}"
        if np.float32(float(text)) == np.float32(value):
            return text
    return f"{value:.9g}"


class Message:
    """The protobuf API shared by the messages: bytes, equality, text, copies."""

    __slots__ = ()

    @classmethod
    def FromString(cls, serialized):  # noqa: N802 -- protobuf's name
        message = cls()
        message.ParseFromString(serialized)
        return message

    def ParseFromString(self, serialized):  # noqa: N802
        """Replaces the contents with the message `serialized` holds; returns its length."""
        data = bytes(serialized)
        self.Clear()
        try:
            self._merge(data)
        except (ValueError, IndexError, UnicodeDecodeError, struct.error) as error:
            raise DecodeError(f"Error parsing message with type 'tensorflow.{type(self).__name__}'"
                              f": {error}") from None
        return len(data)

    def MergeFromString(self, serialized):  # noqa: N802
        data = bytes(serialized)
        self._merge(data)
        return len(data)

    def SerializeToString(self, deterministic=None):  # noqa: N802
        return self._encode()

    def ByteSize(self):  # noqa: N802
        return len(self._encode())

    def CopyFrom(self, other):  # noqa: N802
        if type(other) is not type(self):
            raise TypeError(f"Parameter to CopyFrom() must be instance of same class: expected "
                            f"{type(self).__name__} got {type(other).__name__}.")
        if other is not self:
            self.ParseFromString(other.SerializeToString())

    def __eq__(self, other):
        if not isinstance(other, Message):
            return NotImplemented
        return type(self) is type(other) and self._encode() == other._encode()

    __hash__ = None  # mutable, as protobuf's messages

    def __str__(self):
        return "".join(self._text(0))

    def __repr__(self):
        return str(self)


class DecodeError(ValueError):
    """protobuf's `google.protobuf.message.DecodeError` for bytes that are no such message."""


# -- the value lists --------------------------------------------------------------------

class _Repeated(list):
    """A repeated scalar field: a list whose items are checked and converted on the way in."""

    def __init__(self, convert, values=()):
        self._convert = convert
        super().__init__(convert(v) for v in values)

    def append(self, value):
        super().append(self._convert(value))

    def extend(self, values):
        super().extend(self._convert(v) for v in values)

    def insert(self, index, value):
        super().insert(index, self._convert(value))

    def __setitem__(self, index, value):
        if isinstance(index, slice):
            super().__setitem__(index, [self._convert(v) for v in value])
        else:
            super().__setitem__(index, self._convert(value))


def _as_bytes(value):
    if not isinstance(value, (bytes, bytearray, np.bytes_)):
        raise TypeError(f"expected bytes, {type(value).__name__} found")
    return bytes(value)


def _as_float(value):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"must be real number, not {type(value).__name__}")
    return float(np.float32(value))  # a float field holds float32s


def _as_int64(value):
    if isinstance(value, (float, np.floating)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")
    value = int(value)
    if not -2 ** 63 <= value < 2 ** 63:
        raise ValueError(f"Value out of range: {value}")
    return value


class _ValueList(Message):
    """A message with one repeated field, `value` (BytesList, FloatList, Int64List)."""

    __slots__ = ("_value",)
    _convert = None

    def __init__(self, value=()):
        self._value = _Repeated(type(self)._convert, value)

    @property
    def value(self):
        return self._value

    @value.setter
    def value(self, values):
        raise AttributeError("Assignment not allowed to repeated field \"value\" in protocol "
                             "message object; use value.extend(...) or the constructor.")

    def Clear(self):  # noqa: N802
        del self._value[:]

    def _merge(self, data):
        kind, values = feature_values(length_delimited(self._FEATURE_FIELD, data))
        self._value.extend(values)

    def _text(self, indent):
        pad = " " * indent
        return [f"{pad}value: {self._format(v)}\n" for v in self._value]


class BytesList(_ValueList):
    """tf.train.BytesList: `value` is a list of bytes."""

    __slots__ = ()
    _convert = staticmethod(_as_bytes)
    _FEATURE_FIELD = 1

    def _encode(self):
        return b"".join(length_delimited(1, v) for v in self._value)

    @staticmethod
    def _format(value):
        return f'"{escape(value)}"'


class FloatList(_ValueList):
    """tf.train.FloatList: `value` is a list of float32 values (packed on the wire)."""

    __slots__ = ()
    _convert = staticmethod(_as_float)
    _FEATURE_FIELD = 2

    def _encode(self):
        if not self._value:
            return b""
        return length_delimited(1, np.asarray(self._value, "<f4").tobytes())

    _format = staticmethod(_shortest_float32)


class Int64List(_ValueList):
    """tf.train.Int64List: `value` is a list of int64 values (packed on the wire)."""

    __slots__ = ()
    _convert = staticmethod(_as_int64)
    _FEATURE_FIELD = 3

    def _encode(self):
        if not self._value:
            return b""
        return length_delimited(1, b"".join(_varint(v) for v in self._value))

    _format = staticmethod(str)
