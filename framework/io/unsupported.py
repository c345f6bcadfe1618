"""unsupported.py: the tf.io names of TFRecord files, which tapeflow does not
implement; they raise NotImplementedError saying what to use instead."""

__all__ = ["TFRecordWriter", "TFRecordOptions"]

_INSTEAD = ("tapeflow does not write TFRecord files. Keep the data as NumPy arrays "
            "(np.save / np.load), CSV (tf.io.decode_csv, tf.data.TextLineDataset) or image files "
            "(tf.io.decode_image), or tensors serialized with tf.io.serialize_tensor / "
            "parse_tensor; serialized tf.train.Example bytes parse with tf.io.parse_example.")


class TFRecordOptions:
    """Not implemented: raises NotImplementedError naming the alternatives."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError(f"tf.io.TFRecordOptions: {_INSTEAD}")


class TFRecordWriter:
    """Not implemented: raises NotImplementedError naming the alternatives."""

    def __init__(self, path, options=None):
        raise NotImplementedError(f"tf.io.TFRecordWriter: {_INSTEAD}")
