"""example.py: tf.io.parse_single_example / parse_example, reading serialized
tf.train.Example protos (Features -> map<string, Feature>, each a bytes, float
or int64 list) with the protobuf reader of raw.py, into the feature specs'
results as TF builds them: FixedLenFeature a dense Tensor, VarLenFeature a
SparseTensor, RaggedFeature a RaggedTensor (plain, no partitions),
FixedLenSequenceFeature a padded dense Tensor. Errors are TF 2.21's."""

import collections

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ..ragged.ragged_tensor import RaggedTensor
from ..sparse.sparse_tensor import SparseTensor
from .files import byte_strings, string_tensor, tf_type_name
from .raw import message_fields, read_varint, signed

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "RaggedFeature",
           "parse_single_example", "parse_example"]


class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """A feature of `shape` values of `dtype` (tf.string, tf.int64 or tf.float32),
    as tf.io.FixedLenFeature; `default_value` (exactly prod(shape) values) fills it
    when an Example lacks it, else the feature is required."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """Any number of `shape`-sized items, padded to the longest of the batch with
    `default_value`, as tf.io.FixedLenSequenceFeature (allow_missing must be True)."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """Any number of values, parsed into a SparseTensor, as tf.io.VarLenFeature."""


class RaggedFeature(collections.namedtuple(
        "RaggedFeature", ["dtype", "value_key", "partitions", "row_splits_dtype", "validate"])):
    """Any number of values, parsed into a RaggedTensor, as tf.io.RaggedFeature
    (without `partitions`, which tapeflow does not implement)."""

    def __new__(cls, dtype, value_key=None, partitions=(), row_splits_dtype=dtypes.int32,
                validate=False):
        if partitions:
            raise NotImplementedError("tf.io.RaggedFeature with partitions: tapeflow parses "
                                      "flat ragged features only (one ragged dimension).")
        return super().__new__(cls, dtype, value_key, partitions, row_splits_dtype, validate)


# Feature's oneof: field number -> (the kind TF's errors name, NumPy type of a value).
_KINDS = {1: ("string", object), 2: ("float", np.float32), 3: ("int64", np.int64)}
_KIND_OF_DTYPE = {"string": "string", "float32": "float", "int64": "int64"}
_SPEC_ATTR = {FixedLenFeature: "Tdense", FixedLenSequenceFeature: "Tdense",
              VarLenFeature: "sparse_types", RaggedFeature: "ragged_value_types"}


def feature_values(feature):
    """(kind, list of values) of one serialized Feature (kind None when empty);
    also tf.train.Feature's decoder (train/example.py)."""
    for number, _, payload in message_fields(feature):
        kind = _KINDS.get(number)
        if kind is None:
            continue
        values = []
        for _, wire, item in message_fields(payload):
            if number == 1:
                values.append(bytes(item))
            elif number == 2:
                values.extend(np.frombuffer(item, "<f4").tolist())  # packed or one fixed32
            elif wire == 0:
                values.append(signed(item))
            else:
                i = 0
                while i < len(item):
                    value, i = read_varint(item, i)
                    values.append(signed(value))
        return kind[0], values
    return None, []


def _example(serialized):
    """{key: (kind, values)} of one serialized Example."""
    features = {}
    try:
        for number, _, payload in message_fields(serialized):
            if number != 1:
                continue
            for entry_number, _, entry in message_fields(payload):
                if entry_number != 1:
                    continue
                key, feature = b"", b""
                for field, _, value in message_fields(entry):
                    if field == 1:
                        key = bytes(value)
                    elif field == 2:
                        feature = value
                features[key.decode("utf-8")] = feature_values(feature)
    except (ValueError, IndexError, UnicodeDecodeError):
        raise InvalidArgumentError("Could not parse example input, value: "
                                   f"{serialized[:40]!r} [Op:ParseExampleV2]") from None
    return features


def _np_type(dtype):
    return object if dtype == dtypes.string else dtype._np


def _check_spec(key, spec):
    dtype = dtypes.as_dtype(spec.dtype)
    if dtype.name not in _KIND_OF_DTYPE:
        raise InvalidArgumentError(f"Value for attr '{_SPEC_ATTR[type(spec)]}' of "
                                   f"{tf_type_name(dtype)} is not in the list of allowed values: "
                                   "float, int64, string")
    if isinstance(spec, FixedLenSequenceFeature) and not spec.allow_missing:
        raise ValueError("Unsupported: FixedLenSequenceFeature requires allow_missing to be "
                         "True.")
    return dtype


def _values_of(parsed, key, dtype, where):
    """The values of feature `key` in one Example, checked against `dtype` (None if absent)."""
    kind, values = parsed.get(key, (None, None))
    if values is None:
        return None
    expected = _KIND_OF_DTYPE[dtype.name]
    if kind is not None and kind != expected:
        raise InvalidArgumentError(f"{where}.  Data types don't match. Data type: {kind} but "
                                   f"expected type: {expected} [Op:ParseExampleV2]")
    return values


def _default(spec, dtype, shape):
    value = spec.default_value
    if value is None:
        return None
    array = byte_strings(value, "default_value") if dtype == dtypes.string else \
        np.asarray(value, dtype._np)
    size = int(np.prod(shape, dtype=np.int64))
    if array.size != size:
        raise InvalidArgumentError(f"Input to reshape is a tensor with {array.size} values, but "
                                   f"the requested shape has {size} [Op:Reshape]")
    return array.reshape(shape)


def _parse(examples, names, features, batched):
    parsed = [_example(e) for e in examples]
    out = {}
    for key, spec in sorted(features.items()):  # TF's result lists the keys sorted
        dtype = _check_spec(key, spec)
        # TF's prefixes: "Name: <unknown>, " and ", Index: i" name the example of a batch.
        name_of = [f"Name: {names[i] if names else '<unknown>'}, " if batched else ""
                   for i in range(len(parsed))]
        at = [f"{name_of[i]}Key: {key}" + (f", Index: {i}" if batched else "")
              for i in range(len(parsed))]
        rows = [_values_of(p, key, dtype, at[i]) for i, p in enumerate(parsed)]
        t = _np_type(dtype)
        if isinstance(spec, FixedLenFeature):
            shape = tuple(int(d) for d in spec.shape)
            default = _default(spec, dtype, shape)
            dense = []
            for i, values in enumerate(rows):
                if values is None:
                    if default is None:
                        raise InvalidArgumentError(
                            f"{name_of[i]}Feature: {key} (data type: {tf_type_name(dtype)}) is "
                            "required but could not be found. [Op:ParseExampleV2]")
                    dense.append(default)
                    continue
                if len(values) != int(np.prod(shape, dtype=np.int64)):
                    kind = _KIND_OF_DTYPE[dtype.name]
                    raise InvalidArgumentError(
                        f"{at[i]}.  Number of {kind} values != "
                        f"expected.  Values size: {len(values)} but output shape: "
                        f"{list(shape)} [Op:ParseExampleV2]")
                dense.append(np.array(values, t).reshape(shape))
            array = np.stack(dense) if dense else np.zeros((0,) + shape, t)
            out[key] = _tensor(array if batched else array[0], dtype)
        elif isinstance(spec, FixedLenSequenceFeature):
            item = tuple(int(d) for d in spec.shape)
            size = int(np.prod(item, dtype=np.int64))
            rows = [np.array(v or [], t).reshape((-1,) + item) if size else
                    np.zeros((0,) + item, t) for v in rows]
            longest = max((len(r) for r in rows), default=0)
            fill = spec.default_value if spec.default_value is not None else (
                b"" if dtype == dtypes.string else 0)
            array = np.empty((len(rows), longest) + item, t)
            array[...] = fill
            for i, r in enumerate(rows):
                array[i, :len(r)] = r
            out[key] = _tensor(array if batched else array[0], dtype)
        else:
            rows = [v or [] for v in rows]
            flat = np.array([x for r in rows for x in r], t) if any(rows) else np.zeros(0, t)
            if isinstance(spec, VarLenFeature):
                if batched:
                    indices = [[b, j] for b, r in enumerate(rows) for j in range(len(r))]
                    shape = [len(rows), max((len(r) for r in rows), default=0)]
                else:
                    indices, shape = [[j] for j in range(len(rows[0]))], [len(rows[0])]
                out[key] = SparseTensor(np.array(indices, np.int64).reshape(-1, len(shape)),
                                        _tensor(flat, dtype), shape)
            elif batched:
                splits = np.concatenate([[0], np.cumsum([len(r) for r in rows])])
                out[key] = RaggedTensor.from_row_splits(_tensor(flat, dtype), splits)
            else:
                out[key] = _tensor(flat, dtype)
    return out


def _tensor(array, dtype):
    return string_tensor(array) if dtype == dtypes.string else Tensor(array)


def parse_single_example(serialized, features, example_names=None, name=None):
    """The features of one serialized tf.train.Example, as tf.io.parse_single_example.

    Args:
        serialized: a scalar string (the Example's bytes).
        features: {key: FixedLenFeature | VarLenFeature | RaggedFeature |
            FixedLenSequenceFeature}.

    Returns:
        {key: Tensor, SparseTensor (VarLenFeature) or Tensor (RaggedFeature: one row)}.

    Raises:
        InvalidArgumentError: a required feature missing, a type or size mismatch,
            a dtype other than string, int64, float32 (TF's messages).
    """
    data = byte_strings(serialized, "serialized")
    if data.ndim != 0:
        raise ValueError(f"Shape {list(data.shape)} must have rank 0: parse_single_example "
                         "takes one serialized Example (use parse_example for a batch).")
    return _parse([data[()]], None, features, batched=False)


def parse_example(serialized, features, example_names=None, name=None):
    """The features of a batch of serialized tf.train.Examples, as tf.io.parse_example.

    Returns:
        {key: [batch, ...] Tensor (FixedLen, FixedLenSequence padded), SparseTensor
        of dense_shape [batch, longest] (VarLen) or RaggedTensor [batch, None]}.

    Raises:
        InvalidArgumentError: as parse_single_example, naming the example.
    """
    data = byte_strings(serialized, "serialized")
    if data.ndim != 1:
        raise ValueError(f"Shape {list(data.shape)} must have rank 1: parse_example takes a "
                         "vector of serialized Examples.")
    names = None
    if example_names is not None:
        names = [n.decode("utf-8") for n in byte_strings(example_names, "example_names")]
    return _parse(list(data), names, features, batched=True)

