"""csv.py: tf.io.decode_csv, TF's CSV parser (quotes, na_value, select_cols) with
its column typing by record_defaults and its InvalidArgumentErrors, checked
against TF 2.21's messages. Python loops over the records: this is a data
loading step, not a hot path of training."""

import re

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, convert_to_tensor
from .files import byte_strings, string_tensor, tf_type_name

__all__ = ["decode_csv"]

_ALLOWED = {"float32": np.float32, "float64": np.float64, "int32": np.int32,
            "int64": np.int64, "string": object}
_INT = re.compile(rb"^\s*[+-]?\d+\s*$")
_FLOAT_CHARS = re.compile(rb"^[\s0-9a-zA-Z.+-]*$")  # no "_", which Python's float() allows


def _error(message):
    return InvalidArgumentError(f"{message} [Op:DecodeCSV]")


def _defaults(record_defaults):
    """[(numpy type, default value or None when the column is required)]."""
    columns = []
    for i, default in enumerate(record_defaults):
        t = default if isinstance(default, Tensor) else convert_to_tensor(default)
        value = t._value
        name = t.dtype.name
        if name not in _ALLOWED:
            raise InvalidArgumentError(
                f"Value for attr 'OUT_TYPE' of {tf_type_name(t.dtype)} is not in the "
                "list of allowed values: float, double, int32, int64, string")
        if value.ndim > 1:
            raise _error("Each record default should be at most rank 1")
        if value.size > 1:
            raise _error(f"There should only be 1 default per field but field {i} has "
                         f"{value.size}")
        default = value.reshape(-1)[0] if value.size else None
        if name == "string" and default is not None:
            default = byte_strings(default, "record_defaults")[()]
        columns.append((_ALLOWED[name], default, t.dtype))
    return columns


def _split(record, delim, use_quote_delim):
    """The fields of one record (bytes), with TF's quoting rules."""
    if not record:
        return []
    fields, i, n = [], 0, len(record)
    while True:
        if use_quote_delim and record[i:i + 1] == b'"':
            i += 1
            field = bytearray()
            while True:
                if i >= n:
                    raise _error("Quoted field has to end with quote followed by delim or end")
                c = record[i:i + 1]
                if c == b'"':
                    if record[i + 1:i + 2] == b'"':
                        field += b'"'
                        i += 2
                        continue
                    i += 1
                    break
                field += c
                i += 1
            if i < n and record[i:i + 1] != delim:
                raise _error("Quote inside a string has to be escaped by another quote")
            fields.append(bytes(field))
        else:
            end = record.find(delim, i)
            end = n if end < 0 else end
            field = record[i:end]
            if b"\r" in field or b"\n" in field or (use_quote_delim and b'"' in field):
                raise _error("Unquoted fields cannot have quotes/CRLFs inside")
            fields.append(field)
            i = end
        if i >= n:
            return fields
        i += 1  # the delimiter
        if i == n:  # a trailing delimiter ends with one more, empty, field
            fields.append(b"")
            return fields


def _parse(field, np_type, dtype, column, record):
    if np_type is object:
        return field
    if np_type in (np.int32, np.int64):
        if _INT.match(field):
            value = int(field)
            info = np.iinfo(np_type)
            if info.min <= value <= info.max:
                return value
    else:
        text = field.strip().decode("ascii", "replace")
        if _FLOAT_CHARS.match(field) and text:
            try:
                return float(text)
            except ValueError:
                try:
                    return float.fromhex(text)  # strtod reads hex floats, as "0x10"
                except ValueError:
                    pass
    raise _error(f"Field {column} in record {record} is not a valid "
                 f"{tf_type_name(dtype)}: {field.decode('utf-8', 'replace')}")


def decode_csv(records, record_defaults, field_delim=",", use_quote_delim=True, name=None,
               na_value="", select_cols=None):
    """Parse CSV records into one Tensor per column, as tf.io.decode_csv.

    Args:
        records: a string Tensor (any shape) of lines, or str/bytes/lists of them.
        record_defaults: one entry per (selected) column: a one-element list or
            Tensor whose dtype (float32, float64, int32, int64 or string) types the
            column and whose value fills empty fields, or an empty Tensor
            (`tf.constant([], tf.int32)`) for a required column.
        field_delim: the one-character separator.
        use_quote_delim: whether double quotes quote fields ("" is a quote inside).
        na_value: a field equal to it counts as empty.
        select_cols: strictly increasing column indices to keep; the others are
            skipped (and fields after the last are ignored).

    Returns:
        A list of Tensors of the shape of `records`, one per column.

    Raises:
        InvalidArgumentError: a record with the wrong number of fields, a field
            that does not parse as its column's type, a missing required field, a
            misplaced quote (TF's messages, naming field and record).
        ValueError: select_cols not strictly increasing or not one per default.
    """
    if select_cols is not None:
        select_cols = [int(c) for c in select_cols]
        if any(b <= a for a, b in zip(select_cols, select_cols[1:])):
            raise ValueError("select_cols is not strictly increasing.")
        if select_cols and select_cols[0] < 0:
            raise ValueError("select_cols contains negative values.")
        if len(select_cols) != len(record_defaults):
            raise ValueError("Length of select_cols and record_defaults do not match.")
    columns = _defaults(record_defaults)
    delim = field_delim.encode("utf-8") if isinstance(field_delim, str) else bytes(field_delim)
    if len(delim) != 1:
        raise _error("field_delim should be only 1 char")
    na = na_value.encode("utf-8") if isinstance(na_value, str) else bytes(na_value)
    lines = byte_strings(records, "records")
    outputs = [np.empty(lines.shape, t if t is not object else object) for t, _, _ in columns]
    for r, (index, line) in enumerate(np.ndenumerate(lines)):
        fields = _split(line, delim, use_quote_delim)
        if select_cols is not None:
            fields = [fields[c] for c in select_cols if c < len(fields)]
        wrong_count = len(fields) < len(columns) if select_cols else len(fields) != len(columns)
        if wrong_count:
            raise _error(f"Expect {len(columns)} fields but have {len(fields)} in record {r}")
        for c, (field, (np_type, default, dtype)) in enumerate(zip(fields, columns)):
            if field == b"" or field == na:
                if default is None:
                    raise _error(f"Field {c} is required but missing in record {r}!")
                outputs[c][index] = default
            else:
                outputs[c][index] = _parse(field, np_type, dtype, c, r)
    return [string_tensor(out) if out.dtype == object else Tensor(out) for out in outputs]
