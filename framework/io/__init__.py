"""tf.io: files (read_file, write_file), tf.io.gfile, CSV parsing, raw bytes and
TF's TensorProto serialization, tf.train.Example parsing, TFRecord writing,
image codecs through Pillow (the optional `image` extra). Re-exports only."""

from . import gfile
from .csv import decode_csv
from .files import read_file, write_file
from .images import (decode_bmp, decode_gif, decode_image, decode_jpeg, decode_png,
                     encode_jpeg, encode_png, is_jpeg)
from .example import (FixedLenFeature, FixedLenSequenceFeature, RaggedFeature, VarLenFeature,
                      parse_example, parse_single_example)
from .raw import decode_raw, parse_tensor, serialize_tensor
from .tfrecord import TFRecordOptions, TFRecordWriter

__all__ = ["gfile", "decode_csv", "read_file", "write_file", "decode_bmp", "decode_gif",
           "decode_image", "decode_jpeg", "decode_png", "encode_jpeg", "encode_png", "is_jpeg",
           "decode_raw", "parse_tensor", "serialize_tensor", "FixedLenFeature",
           "FixedLenSequenceFeature", "VarLenFeature", "RaggedFeature", "parse_example",
           "parse_single_example", "TFRecordWriter", "TFRecordOptions"]
