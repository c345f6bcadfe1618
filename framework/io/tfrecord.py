"""tfrecord.py: tf.io.TFRecordWriter and tf.io.TFRecordOptions, and the reader
(`read_records`) a TFRecordDataset needs. Records are
framed as TF frames them (length, masked CRC32C of the length, data, masked
CRC32C of the data: summary/records.py's `tfrecord`), optionally in one ZLIB
or GZIP stream, so TF's tf.data.TFRecordDataset reads the files. The file is
written to a temporary beside the target and renamed on close (atomic)."""

import os
import zlib

from ..core.errors import DataLossError
from ..summary.records import masked_crc32c, tfrecord
from .files import temporary_beside
from .gfile import FailedPreconditionError, _local

__all__ = ["TFRecordWriter", "TFRecordOptions", "TFRecordCompressionType", "read_records",
           "DataLossError"]


class TFRecordCompressionType:
    """TF's enum of compression types (tf.compat.v1.io.TFRecordCompressionType)."""
    NONE, ZLIB, GZIP = 0, 1, 2


_BY_NAME = {None: "", "": "", "NONE": "", "ZLIB": "ZLIB", "GZIP": "GZIP",
            TFRecordCompressionType.NONE: "", TFRecordCompressionType.ZLIB: "ZLIB",
            TFRecordCompressionType.GZIP: "GZIP"}


def _compression_name(compression_type):
    try:
        return _BY_NAME[compression_type]
    except (KeyError, TypeError):
        raise ValueError(f'Not a valid compression_type: "{compression_type}"') from None


class TFRecordOptions:
    """Options of a TFRecord file, as tf.io.TFRecordOptions: `compression_type`
    ("", "ZLIB" or "GZIP") and `compression_level` (0-9) are used; the buffer and
    zlib tuning arguments are accepted for compatibility and ignored."""

    def __init__(self, compression_type=None, flush_mode=None, input_buffer_size=None,
                 output_buffer_size=None, window_bits=None, compression_level=None,
                 compression_method=None, mem_level=None, compression_strategy=None):
        self.compression_type = _compression_name(compression_type)
        self.compression_level = compression_level
        self.flush_mode = flush_mode
        self.input_buffer_size = input_buffer_size
        self.output_buffer_size = output_buffer_size
        self.window_bits = window_bits
        self.compression_method = compression_method
        self.mem_level = mem_level
        self.compression_strategy = compression_strategy

    @classmethod
    def get_compression_type_string(cls, options):
        """"" / "ZLIB" / "GZIP" for options given as a TFRecordOptions, a string or None."""
        if isinstance(options, TFRecordOptions):
            return options.compression_type
        return _compression_name(options)


class TFRecordWriter:
    """Write records (bytes or str) to a TFRecord file, as tf.io.TFRecordWriter.

    Args:
        path: the file to write.
        options: a TFRecordOptions, or a compression type ("", "ZLIB", "GZIP").

    The records become visible under `path` when the writer is closed (the file is
    written atomically); `flush` pushes them to the temporary file.
    """

    def __init__(self, path, options=None):
        if not isinstance(options, TFRecordOptions):
            options = TFRecordOptions(compression_type=options)
        self._path = _local(path)
        fd, self._tmp = temporary_beside(self._path)
        self._file = os.fdopen(fd, "wb")
        level = -1 if options.compression_level is None else int(options.compression_level)
        wbits = {"ZLIB": 15, "GZIP": 31}.get(options.compression_type)
        self._compressor = None if wbits is None else zlib.compressobj(level, zlib.DEFLATED,
                                                                        wbits)

    def write(self, record):
        """Append one record (bytes, or str encoded as UTF-8)."""
        if self._file is None:
            raise FailedPreconditionError("Writer is closed.")
        data = tfrecord(record.encode("utf-8") if isinstance(record, str) else bytes(record))
        self._file.write(self._compressor.compress(data) if self._compressor else data)

    def flush(self):
        """Push the written records to the temporary file."""
        if self._file is None:
            raise FailedPreconditionError("Writer is closed.")
        if self._compressor is not None:
            self._file.write(self._compressor.flush(zlib.Z_SYNC_FLUSH))
        self._file.flush()

    def close(self):
        """Finish the file and move it into place; closing twice is a no-op."""
        if self._file is None:
            return
        try:
            if self._compressor is not None:
                self._file.write(self._compressor.flush())
            self._file.flush()
            os.fsync(self._file.fileno())
            self._file.close()
            os.replace(self._tmp, self._path)
        finally:
            self._file = None
            if os.path.exists(self._tmp):
                os.remove(self._tmp)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        if getattr(self, "_file", None) is not None:  # never closed: leave no temporary
            self._file.close()
            if os.path.exists(self._tmp):
                os.remove(self._tmp)


def read_records(path, compression_type=None):
    """The records of a TFRecord file, in order (what tf.data.TFRecordDataset
    yields), both CRCs checked.

    Raises:
        DataLossError: a truncated record or a CRC that does not match.
    """
    with open(_local(path), "rb") as f:
        data = f.read()
    kind = TFRecordOptions.get_compression_type_string(compression_type)
    if kind:
        data = zlib.decompress(data, {"ZLIB": 15, "GZIP": 31}[kind])
    i, n = 0, len(data)
    while i < n:
        header = data[i:i + 8]
        if len(header) < 8 or data[i + 8:i + 12] != _crc_bytes(header):
            raise DataLossError(f"corrupted record at {i} in {path}: bad length or its CRC")
        length = int.from_bytes(header, "little")
        record = data[i + 12:i + 12 + length]
        end = i + 12 + length
        if len(record) < length or data[end:end + 4] != _crc_bytes(record):
            raise DataLossError(f"corrupted record at {i} in {path}: truncated data or bad CRC")
        yield record
        i = end + 4


def _crc_bytes(data):
    return masked_crc32c(data).to_bytes(4, "little")
