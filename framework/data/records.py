"""records.py holds `tf.data.TFRecordDataset`: the records of TFRecord files
(length, masked CRC32C of it, bytes, masked CRC32C of them), checked and given
as scalar tf.string elements. Parsing tf.train.Example protos is tf.io's."""

import gzip
import io
import struct
import zlib

import numpy as np

from ..core import dtypes
from ..core.errors import DataLossError
from ..core.tensor_spec import TensorSpec
from ..summary.records import masked_crc32c
from .dataset import Dataset
from .structure import UNKNOWN
from .text import compression_of, file_names, not_compressed_error, read_files

__all__ = ["TFRecordDataset"]


def _open(name, compression):
    if compression == "ZLIB":
        with open(name, "rb") as handle:
            return io.BytesIO(zlib.decompress(handle.read()))
    return gzip.open(name, "rb") if compression == "GZIP" else open(name, "rb")


def _checked(handle, size, name, offset, what):
    data = handle.read(size)
    if len(data) != size:
        raise DataLossError(f"{name}: truncated record at {offset} (its {what}).")
    return data


def _records(name, compression):
    with not_compressed_error(name, compression), _open(name, compression) as handle:
        offset = 0
        while True:
            header = handle.read(8)
            if not header:
                return
            if len(header) != 8:
                raise DataLossError(f"{name}: truncated record at {offset}.")
            crc, = struct.unpack("<I", _checked(handle, 4, name, offset, "length's CRC"))
            if crc != masked_crc32c(header):
                raise DataLossError(f"{name}: corrupted record at {offset} (the CRC of its "
                                    "length does not match).")
            length, = struct.unpack("<Q", header)
            data = _checked(handle, length, name, offset, "data")
            crc, = struct.unpack("<I", _checked(handle, 4, name, offset, "data's CRC"))
            if crc != masked_crc32c(data):
                raise DataLossError(f"{name}: corrupted record at {offset} (the CRC of its "
                                    "data does not match).")
            offset += 16 + length
            yield np.array(data, dtype=object)


class TFRecordDataset(Dataset):
    """The records of TFRecord files as scalar tf.string elements, as TF's.

    Args:
        filenames: a file name, a list of them, a string Tensor, or a Dataset of
            scalar strings.
        compression_type: None or "" (none), "ZLIB" or "GZIP".
        buffer_size: accepted, as TF's read buffer size; unused.
        num_parallel_reads: if above 1, that many files are read in turn, one
            record from each (TF's interleaved order); still in one thread.

    Raises:
        tf.errors.DataLossError: while iterating, for a truncated record, a CRC
            that does not match, or data that does not decompress (as TF).
        tf.errors.NotFoundError: while iterating, for a missing file.
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        compression = compression_of(compression_type)
        iterate = read_files(file_names(filenames), lambda n: _records(n, compression),
                             num_parallel_reads)
        super().__init__(iterate, UNKNOWN, TensorSpec([], dtypes.string), "TFRecordDatasetV2")
