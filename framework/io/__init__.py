"""tf.io: files (read_file, write_file), tf.io.gfile, CSV parsing, raw bytes and
TF's TensorProto serialization, image codecs through Pillow (the optional
`image` extra). Re-exports only, plus the names tapeflow does not implement,
which raise NotImplementedError saying what to use instead."""

from . import gfile
from .csv import decode_csv
from .files import read_file, write_file
from .images import (decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png,
                     encode_jpeg, encode_png, is_jpeg)
from .raw import decode_raw, parse_tensor, serialize_tensor
from .unsupported import (FixedLenFeature, FixedLenSequenceFeature, TFRecordOptions,
                          TFRecordWriter, VarLenFeature, parse_example, parse_single_example)

__all__ = ["gfile", "decode_csv", "read_file", "write_file", "decode_bmp", "decode_gif",
           "decode_image", "decode_jpeg", "decode_png", "encode_jpeg", "encode_png", "is_jpeg",
           "decode_raw", "parse_tensor", "serialize_tensor", "FixedLenFeature",
           "FixedLenSequenceFeature", "VarLenFeature", "parse_example", "parse_single_example",
           "TFRecordWriter", "TFRecordOptions"]
