"""text.py holds `tf.data.TextLineDataset`: the lines of text files (plain,
GZIP or ZLIB) as scalar tf.string elements, file after file or interleaved
across `num_parallel_reads` files as TF orders them."""

import contextlib
import gzip
import zlib

import numpy as np

from ..core import dtypes
from ..core.errors import DataLossError, InvalidArgumentError, NotFoundError
from ..core.tensor_spec import TensorSpec
from . import structure
from .dataset import Dataset
from .structure import UNKNOWN

__all__ = ["TextLineDataset", "compression_of", "file_names", "not_compressed_error", "raw_lines", "read_files"]

_COMPRESSIONS = ("", "ZLIB", "GZIP")


def file_names(filenames):
    """The file names as str: from a str, bytes, a list of them, a string Tensor
    or array, or (read on each pass) a Dataset of scalar strings."""
    if hasattr(filenames, "_iterate"):
        return lambda: [_text(structure.to_component(n)) for n in filenames._iterate()]
    names = [_text(n) for n in np.asarray(structure.to_component(filenames),
                                          dtype=object).reshape(-1)]
    if not names:
        raise InvalidArgumentError("TextLineDataset: `filenames` must not be empty.")
    return lambda: names


def _text(name):
    name = np.asarray(name, dtype=object).reshape(())[()]
    if isinstance(name, bytes):
        return name.decode()
    if not isinstance(name, str):
        raise TypeError(f"TextLineDataset: file names must be strings, got {name!r}.")
    return name


def _zlib_chunks(handle):
    inflate = zlib.decompressobj()
    for chunk in iter(lambda: handle.read(1 << 16), b""):
        yield inflate.decompress(chunk)
    yield inflate.flush()


def _zlib_lines(handle):
    pending = b""
    for chunk in _zlib_chunks(handle):
        pending += chunk
        *lines, pending = pending.split(b"\n")
        yield from (line + b"\n" for line in lines)
    if pending:
        yield pending


def raw_lines(name, compression):
    """The lines of one file as bytes with their line endings (also for the
    CSV reader). `compression` is "", "ZLIB" or "GZIP"."""
    opener = gzip.open if compression == "GZIP" else open
    with not_compressed_error(name, compression), opener(name, "rb") as handle:
        yield from (_zlib_lines(handle) if compression == "ZLIB" else handle)


@contextlib.contextmanager
def not_compressed_error(name, compression):
    """A missing file as NotFoundError, data that does not decompress as
    DataLossError, both naming the file, as TF."""
    try:
        yield
    except FileNotFoundError:
        raise NotFoundError(f"{name}; No such file or directory") from None
    except (zlib.error, gzip.BadGzipFile, EOFError) as error:
        raise DataLossError(f"{name} is not {compression} data ({error}).") from None


def compression_of(compression_type):
    compression = (compression_type or "").upper()
    if compression not in _COMPRESSIONS:
        raise InvalidArgumentError(f"Unsupported compression_type: {compression_type!r}; "
                                   f"use None, '', 'ZLIB' or 'GZIP'.")
    return compression


def _lines(name, compression):
    """The lines of one file without their line ending ("\\n", "\\r\\n", or a "\\r"
    ending the file), as TF."""
    for line in raw_lines(name, compression):
        if line.endswith(b"\n"):
            line = line[:-1]
        if line.endswith(b"\r"):
            line = line[:-1]
        yield np.array(line, dtype=object)


_SPEC = TensorSpec([], dtypes.string)


def read_files(names, read_one, num_parallel_reads):
    """The iterate function of a reader: `read_one(name)`'s elements, file after
    file, or with `num_parallel_reads` > 1 in turns across that many files (TF's
    order for parallel reads: an interleave with block length 1)."""
    if num_parallel_reads in (None, 1):
        def iterate():
            for name in names():
                yield from read_one(name)
        return iterate
    files = Dataset._new(lambda: (np.array(n.encode(), dtype=object) for n in names()),
                         UNKNOWN, _SPEC, "_TensorSliceDataset")
    return files.interleave(
        lambda n: Dataset._new(lambda: read_one(n.numpy().decode()), UNKNOWN, _SPEC,
                               "_FileDataset"),
        cycle_length=num_parallel_reads, block_length=1)._iterate


class TextLineDataset(Dataset):
    """The lines of `filenames` as scalar tf.string elements, as TF's.

    Args:
        filenames: a file name, a list of them, a string Tensor, or a Dataset of
            scalar strings.
        compression_type: None or "" (plain text), "ZLIB" or "GZIP".
        buffer_size: accepted, as TF's read buffer size; unused.
        num_parallel_reads: if above 1, that many files are read in turn, one
            line from each (TF's interleaved order); still in one thread.

    Raises:
        tf.errors.InvalidArgumentError: for an unknown compression_type.
        tf.errors.NotFoundError: while iterating, for a missing file.
    """

    def __init__(self, filenames, compression_type=None, buffer_size=None,
                 num_parallel_reads=None, name=None):
        compression = compression_of(compression_type)
        iterate = read_files(file_names(filenames), lambda n: _lines(n, compression),
                             num_parallel_reads)
        super().__init__(iterate, UNKNOWN, _SPEC, "TextLineDatasetV2")
