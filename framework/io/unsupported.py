"""unsupported.py: the tf.io names of TFRecord files and tf.train.Example
protos, which tapeflow does not implement. The feature specs are TF's
namedtuples (so code that builds a spec dict still runs); parsing and writing
raise NotImplementedError saying what to use instead."""

import collections

__all__ = ["FixedLenFeature", "FixedLenSequenceFeature", "VarLenFeature", "parse_example",
           "parse_single_example", "TFRecordWriter", "TFRecordOptions"]

_INSTEAD = ("tapeflow does not read or write TFRecord files or tf.train.Example protos. Keep "
            "the data as NumPy arrays (np.save / np.load), CSV (tf.io.decode_csv, "
            "tf.data.TextLineDataset) or image files (tf.io.decode_image), or tensors "
            "serialized with tf.io.serialize_tensor / parse_tensor.")


class FixedLenFeature(collections.namedtuple("FixedLenFeature",
                                             ["shape", "dtype", "default_value"])):
    """TF's spec of a fixed-length feature (parsing it is not implemented)."""

    def __new__(cls, shape, dtype, default_value=None):
        return super().__new__(cls, shape, dtype, default_value)


class FixedLenSequenceFeature(collections.namedtuple(
        "FixedLenSequenceFeature", ["shape", "dtype", "allow_missing", "default_value"])):
    """TF's spec of a sequence feature (parsing it is not implemented)."""

    def __new__(cls, shape, dtype, allow_missing=False, default_value=None):
        return super().__new__(cls, shape, dtype, allow_missing, default_value)


class VarLenFeature(collections.namedtuple("VarLenFeature", ["dtype"])):
    """TF's spec of a variable-length feature (parsing it is not implemented)."""


def parse_single_example(serialized, features, example_names=None, name=None):
    """Not implemented: raises NotImplementedError naming the alternatives."""
    raise NotImplementedError(f"tf.io.parse_single_example: {_INSTEAD}")


def parse_example(serialized, features, example_names=None, name=None):
    """Not implemented: raises NotImplementedError naming the alternatives."""
    raise NotImplementedError(f"tf.io.parse_example: {_INSTEAD}")


class TFRecordOptions:
    """Not implemented: raises NotImplementedError naming the alternatives."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"tf.io.TFRecordOptions: {_INSTEAD}")


class TFRecordWriter:
    """Not implemented: raises NotImplementedError naming the alternatives."""

    def __init__(self, path, options=None):
        raise NotImplementedError(f"tf.io.TFRecordWriter: {_INSTEAD}")
