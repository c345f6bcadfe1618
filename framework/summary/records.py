"""records.py encodes what TensorBoard reads: `Event` protocol buffers (with their
`Summary`, `SummaryMetadata` and `TensorProto` fields, written by hand in the
protobuf wire format) framed as TFRecords (length, masked CRC32C of the length,
data, masked CRC32C of the data). It knows nothing about writers or steps."""

import struct

import numpy as np

__all__ = [
    "FILE_VERSION",
    "crc32c",
    "event",
    "masked_crc32c",
    "summary_metadata",
    "summary_value",
    "tensor_proto",
    "tfrecord",
]

FILE_VERSION = "brain.Event:2"  # the first record of every TF 2 event file

# -- CRC32C (Castagnoli, reflected polynomial 0x82F63B78) ----------------------------
_POLY = 0x82F63B78


def _make_table():
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ _POLY if crc & 1 else crc >> 1
        table.append(crc)
    return table


_TABLE = _make_table()
_TABLE_NP = np.array(_TABLE, dtype=np.uint32)
_CHUNK = 64  # bytes per lane of the vectorised CRC
_VECTOR_FROM = 8192  # below this the byte loop is as fast as NumPy (measured)


def _crc32c_bytewise(data):
    crc, table = 0xFFFFFFFF, _TABLE
    for byte in data:
        crc = table[(crc ^ byte) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


def _shift(tables, registers):
    """Apply a zero-byte shift, given as its four byte tables, to uint32 registers."""
    return (tables[0][registers & 0xFF] ^ tables[1][(registers >> 8) & 0xFF]
            ^ tables[2][(registers >> 16) & 0xFF] ^ tables[3][registers >> 24])


def _crc32c_vectorised(data):
    """The CRC as a tree: lanes of _CHUNK bytes in parallel, then pairs joined by
    shifting the left one over the right one's length (the CRC is linear in GF(2)).

    The initial register 0xFFFFFFFF equals XOR-ing the first four bytes with 0xFF and
    starting from 0, and leading zero bytes leave a zero register unchanged: so the
    data is zero-padded in front to a power-of-two number of lanes."""
    n = len(data)
    lanes = 1 << max(0, (-(-n // _CHUNK) - 1).bit_length())
    buffer = np.zeros(lanes * _CHUNK, dtype=np.uint8)
    pad = lanes * _CHUNK - n
    buffer[pad:] = np.frombuffer(data, dtype=np.uint8)
    buffer[pad:pad + 4] ^= 0xFF
    columns = np.ascontiguousarray(buffer.reshape(lanes, _CHUNK).T).astype(np.uint32)
    crcs = np.zeros(lanes, dtype=np.uint32)
    # The shift over _CHUNK zero bytes, as tables of the register's four bytes.
    shift = (np.arange(256, dtype=np.uint32)[None, :]
             << (np.arange(4, dtype=np.uint32)[:, None] * np.uint32(8)))
    for column in columns:
        crcs = _TABLE_NP[(crcs ^ column) & 0xFF] ^ (crcs >> 8)
        shift = _TABLE_NP[shift & 0xFF] ^ (shift >> 8)
    while len(crcs) > 1:
        crcs = _shift(shift, crcs[0::2]) ^ crcs[1::2]
        shift = _shift(shift, shift)  # twice the length: the next level's pairs
    return int(crcs[0]) ^ 0xFFFFFFFF


def crc32c(data):
    """The CRC32C of `data` (bytes), as TFRecord files use it."""
    data = bytes(data)
    if len(data) < _VECTOR_FROM:
        return _crc32c_bytewise(data)
    return _crc32c_vectorised(data)


def masked_crc32c(data):
    """TFRecord's masked CRC: rotate right by 15 bits and add 0xA282EAD8."""
    crc = crc32c(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def tfrecord(data):
    """One TFRecord: uint64 length, masked CRC of it, the data, masked CRC of the data."""
    header = struct.pack("<Q", len(data))
    return (header + struct.pack("<I", masked_crc32c(header)) + data
            + struct.pack("<I", masked_crc32c(data)))


# -- protobuf wire format -------------------------------------------------------------
def _varint(value):
    value &= 0xFFFFFFFFFFFFFFFF  # negative int64s as ten-byte two's complement, as protobuf
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _key(field, wire_type):
    return _varint(field << 3 | wire_type)


def _int_field(field, value):
    return _key(field, 0) + _varint(int(value)) if value else b""  # proto3 omits zeros


def _double_field(field, value):
    return _key(field, 1) + struct.pack("<d", value)


def _bytes_field(field, value, keep_empty=False):
    if isinstance(value, str):
        value = value.encode("utf-8")
    if not value and not keep_empty:
        return b""
    return _key(field, 2) + _varint(len(value)) + value


# TF's DataType enum (types.proto) for the NumPy dtypes a summary can hold.
_DATA_TYPES = {"float32": 1, "float64": 2, "int32": 3, "uint8": 4, "int16": 5, "int8": 6,
               "complex64": 8, "int64": 9, "bool": 10, "uint16": 17, "complex128": 18,
               "float16": 19, "uint32": 22, "uint64": 23}
DT_STRING = 7


def tensor_proto(array):
    """A TensorProto of a NumPy array: numbers as little-endian `tensor_content`
    (as TF's writer stores them), strings as `string_val` (UTF-8 for str)."""
    shape = b"".join(_bytes_field(2, _int_field(1, size), keep_empty=True)
                     for size in array.shape)
    if array.dtype.kind in "USO":
        values = [v if isinstance(v, bytes) else str(v).encode("utf-8")
                  for v in array.reshape(-1).tolist()]
        return (_int_field(1, DT_STRING) + _bytes_field(2, shape, keep_empty=True)
                + b"".join(_bytes_field(8, v, keep_empty=True) for v in values))
    code = _DATA_TYPES.get(array.dtype.name)
    if code is None:
        raise TypeError(f"A summary cannot hold a tensor of dtype {array.dtype.name}; "
                        f"supported: {sorted(_DATA_TYPES)} and strings.")
    content = np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<")).tobytes()
    return (_int_field(1, code) + _bytes_field(2, shape, keep_empty=True)
            + _bytes_field(4, content))


def summary_metadata(plugin_name, content=b"", display_name=None, description=None):
    """A serialized SummaryMetadata naming the TensorBoard plugin that shows the value."""
    plugin_data = _bytes_field(1, plugin_name) + _bytes_field(2, content)
    return (_bytes_field(1, plugin_data, keep_empty=True) + _bytes_field(2, display_name or "")
            + _bytes_field(3, description or ""))


def summary_value(tag, tensor, metadata=b""):
    """A serialized Summary holding one Value: tag, metadata (serialized) and tensor."""
    value = (_bytes_field(1, tag) + _bytes_field(9, metadata)
             + _bytes_field(8, tensor, keep_empty=True))
    return _bytes_field(1, value, keep_empty=True)


def event(wall_time, step=0, summary=None, file_version=None, source_writer=None):
    """A serialized Event: a summary (serialized Summary) at a step, or the file's
    version record."""
    out = _double_field(1, wall_time) + _int_field(2, step)
    if file_version is not None:
        out += _bytes_field(3, file_version)
    if summary is not None:
        out += _bytes_field(5, summary, keep_empty=True)
    if source_writer is not None:
        out += _bytes_field(10, _bytes_field(1, source_writer), keep_empty=True)
    return out
