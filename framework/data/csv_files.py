"""csv_files.py holds `tf.data.experimental.CsvDataset` (the records of CSV
files as tuples of scalars, typed by `record_defaults`) and `make_csv_dataset`
(batches of feature dicts, with TF's column type inference, shuffling and
repetition). Files are read with Python's csv module (RFC 4180 quoting)."""

import collections
import csv
import glob

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor_spec import TensorSpec
from . import structure
from .dataset import Dataset
from .structure import UNKNOWN
from .text import compression_of, file_names, raw_lines

__all__ = ["CsvDataset", "make_csv_dataset"]

_CSV_TYPES = (dtypes.float32, dtypes.float64, dtypes.int32, dtypes.int64, dtypes.string)


def _rows(name, compression, field_delim, use_quote_delim, header):
    lines = (line.decode("utf-8") for line in raw_lines(name, compression))
    reader = csv.reader(lines, delimiter=field_delim,
                        quoting=csv.QUOTE_MINIMAL if use_quote_delim else csv.QUOTE_NONE)
    if header:
        next(reader, None)
    yield from reader


def _column(default):
    """(dtype, default value or None when the column is required) of one
    record_defaults entry: a dtype, or a tensor with one value or none."""
    if isinstance(default, dtypes.DType) or isinstance(default, type) and default in (
            float, int, str):
        dtype = dtypes.as_dtype(default)
        if dtype not in _CSV_TYPES:
            raise TypeError(f"record_defaults: {dtype.name} is not a CSV type; use float32, "
                            f"float64, int32, int64 or string.")
        return dtype, None
    value = np.asarray(structure.to_component(default))
    dtype = structure.spec_of(value).dtype
    if dtype not in _CSV_TYPES:
        raise TypeError(f"record_defaults: a default of dtype {dtype.name} is not a CSV type; "
                        "use float32, float64, int32, int64 or string.")
    if value.size > 1:
        raise ValueError(f"record_defaults: each default must hold one value or none (a "
                         f"required column), got shape {value.shape}.")
    return dtype, (value.reshape(-1)[0] if value.size else None)


def _parse(field, dtype, default, index, record, na_value):
    if field == "" or field == na_value:
        if default is None:
            raise InvalidArgumentError(f"Field {index} is required but missing in record "
                                       f"{record}!")
        return np.array(default, dtype=object) if dtype == dtypes.string else \
            dtype._np.type(default)
    if dtype == dtypes.string:
        return np.array(field.encode("utf-8"), dtype=object)
    try:
        if dtype.is_integer:
            number = int(field.strip())
            if not dtype.min <= number <= dtype.max:
                raise ValueError
            return dtype._np.type(number)
        return dtype._np.type(float(field.strip()))
    except ValueError:
        raise InvalidArgumentError(f"Field {index} in record {record} is not a valid "
                                   f"{dtype.name}: {field}") from None


def _records(names, columns, compression, header, field_delim, use_quote_delim, na_value,
             select, exclude, skip_errors=False):
    """The iterate function of CSV records: tuples of scalars, one per column."""
    def record(row, number):
        chosen = select if select is not None else \
            [i for i in range(len(row)) if i not in exclude]
        if len(chosen) != len(columns) or chosen and chosen[-1] >= len(row):
            raise InvalidArgumentError(f"Expect {len(columns)} fields but have "
                                       f"{len(row) if select is None else len(chosen)} in "
                                       f"record {number}")
        return tuple(_parse(row[i], dtype, default, k, number, na_value)
                     for k, (i, (dtype, default)) in enumerate(zip(chosen, columns)))

    def iterate():
        for file_name in names():
            rows = _rows(file_name, compression, field_delim, use_quote_delim, header)
            for number, row in enumerate(rows):
                try:
                    parsed = structure.skipped(record, row, number)
                except InvalidArgumentError:
                    if not skip_errors:
                        raise
                    continue
                if parsed is not structure.SKIP:
                    yield parsed

    return iterate


class CsvDataset(Dataset):
    """The records of CSV files, each a tuple of scalars, as TF's
    `tf.data.experimental.CsvDataset`.

    `record_defaults` has one entry per selected column: a dtype (float32,
    float64, int32, int64, string) for a required column, or a value (a scalar
    or one-element tensor) filling an empty or `na_value` field.

    Raises:
        tf.errors.InvalidArgumentError: while iterating, for a missing required
            field, a field that does not parse, or a record with the wrong
            number of fields (TF's messages).
    """

    def __init__(self, filenames, record_defaults, compression_type=None, buffer_size=None,
                 header=False, field_delim=",", use_quote_delim=True, na_value="",
                 select_cols=None, exclude_cols=None, name=None):
        if select_cols is not None and exclude_cols is not None:
            raise InvalidArgumentError("Either select_cols or exclude_cols should be given, "
                                       "not both.")
        columns = [_column(d) for d in record_defaults]
        select = None if select_cols is None else [int(c) for c in select_cols]
        if select is not None and select != sorted(set(select)):
            raise InvalidArgumentError(f"select_cols must be sorted and unique, got {select}.")
        exclude = set() if exclude_cols is None else {int(c) for c in exclude_cols}
        iterate = _records(file_names(filenames), columns, compression_of(compression_type),
                           header, field_delim, use_quote_delim, na_value, select, exclude)
        spec = tuple(TensorSpec([], dtype) for dtype, _ in columns)
        super().__init__(iterate, UNKNOWN, spec, "CsvDatasetV2")


def _infer_type(value, na_value, previous):
    """TF's _infer_type: the least permissive of int32, int64, float32, float64,
    string that this value and the column's earlier ones fit."""
    if value in ("", na_value):
        return previous
    order = [dtypes.int32, dtypes.int64, dtypes.float32, dtypes.float64, dtypes.string]
    start = 0 if previous is None else order.index(previous)
    for dtype in order[start:]:
        if dtype == dtypes.string:
            return dtype
        try:
            if dtype.is_integer:
                number = int(value)
                if dtype.min <= number <= dtype.max:
                    return dtype
            elif abs(float(dtype._np.type(value))) < np.inf:
                return dtype
        except (ValueError, OverflowError):
            continue
    return dtypes.string


def _matching(file_pattern):
    patterns = file_pattern if isinstance(file_pattern, list) else [file_pattern]
    if not patterns:
        raise ValueError("Argument `file_pattern` should not be empty.")
    found = sorted(name for p in patterns for name in glob.glob(str(p)))
    if not found:
        raise ValueError(f"No files match `file_pattern` {file_pattern}.")
    return found


def make_csv_dataset(file_pattern, batch_size, column_names=None, column_defaults=None,
                     label_name=None, select_columns=None, field_delim=",",
                     use_quote_delim=True, na_value="", header=True, num_epochs=None,
                     shuffle=True, shuffle_buffer_size=10000, shuffle_seed=None,
                     prefetch_buffer_size=None, num_parallel_reads=None, sloppy=False,
                     num_rows_for_inference=100, compression_type=None, ignore_errors=False,
                     encoding="utf-8"):
    """Batches of CSV records as `(features, label)` (an OrderedDict of columns
    and the `label_name` column) or as `features` alone, as TF's.

    Column names come from the header, types from the first
    `num_rows_for_inference` rows unless `column_defaults` gives them.
    `num_epochs=None` repeats forever (then every batch is full, as TF drops
    the remainder); rows are shuffled with a buffer unless `shuffle=False`.
    `ignore_errors` skips rows that do not parse.

    Raises:
        ValueError: for no matching files, no header to name the columns,
            duplicate names, a label_name or select_columns naming no column.
    """
    names = _matching(file_pattern)
    compression = compression_of(compression_type)
    read = {"field_delim": field_delim, "use_quote_delim": use_quote_delim}
    if column_names is None:
        if not header:
            raise ValueError("Cannot infer column names without a header line.")
        column_names = next(_rows(names[0], compression, header=False, **read), None)
        if column_names is None:
            raise ValueError(f"Received StopIteration when reading the header line of "
                             f"{names[0]}.  Empty file?")
    column_names = list(column_names)
    if len(column_names) != len(set(column_names)):
        raise ValueError("Cannot have duplicate column names.")
    select = None
    if select_columns is not None:
        index = {n: i for i, n in enumerate(column_names)}
        select = []
        for column in select_columns:
            if not isinstance(column, int) and column not in index:
                raise ValueError(f"Value '{column}' specified in select_columns not a valid "
                                 f"column index or name.")
            select.append(column if isinstance(column, int) else index[column])
        select = sorted(set(select))
    chosen = select if select is not None else list(range(len(column_names)))
    if column_defaults is None:
        types = [None] * len(chosen)
        rows = (row for name in names for row in _rows(name, compression, header=header,
                                                       **read))
        for number, row in enumerate(rows):
            if num_rows_for_inference is not None and number >= num_rows_for_inference:
                break
            if len(row) != len(column_names):
                raise ValueError("Problem inferring types: CSV row has different number of "
                                 "fields than expected.")
            types = [_infer_type(row[i], na_value, t) for i, t in zip(chosen, types)]
        columns = [(t or dtypes.string, b"" if t in (None, dtypes.string) else 0)
                   for t in types]
    else:
        columns = [_column(d) for d in column_defaults]
    if len(columns) != len(chosen):
        raise ValueError("If specified, column_defaults and select_columns must have same "
                         "length.")
    selected_names = [column_names[i] for i in chosen]
    if label_name is not None and label_name not in selected_names:
        raise ValueError("`label_name` provided must be one of the columns.")

    files = Dataset.from_tensor_slices(np.array([n.encode() for n in names], dtype=object))
    if shuffle:
        files = files.shuffle(len(names), shuffle_seed)
    spec = tuple(TensorSpec([], dtype) for dtype, _ in columns)

    def file_records(name):
        iterate = _records(lambda: [name.numpy().decode()], columns, compression, header,
                           field_delim, use_quote_delim, na_value, select, set(), ignore_errors)
        return Dataset._new(iterate, UNKNOWN, spec, "CsvDatasetV2")

    dataset = files.interleave(file_records, cycle_length=num_parallel_reads or 1)
    if shuffle:
        dataset = dataset.shuffle(shuffle_buffer_size, shuffle_seed)
    if num_epochs != 1:
        dataset = dataset.repeat(num_epochs)
    dataset = dataset.batch(batch_size, drop_remainder=num_epochs is None)

    def to_features(*columns):
        features = collections.OrderedDict(zip(selected_names, columns))
        if label_name is None:
            return features
        label = features.pop(label_name)
        return features, label

    return dataset.map(to_features)
