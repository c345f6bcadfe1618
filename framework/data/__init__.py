"""tapeflow.data is `tf.data`: `Dataset` pipelines over tensors, arrays,
Python values, generators, text, CSV and TFRecord files (dataset.py joins its parts),
`tf.data.Options` and `tf.data.experimental`. Re-exports only (and the
AttributeError naming a tf.data name tapeflow lacks)."""

from . import experimental
from .base import Iterator
from .dataset import Dataset
from .missing import missing_attribute
from .options import Options
from .records import TFRecordDataset
from .structure import AUTOTUNE, INFINITE, UNKNOWN, DatasetSpec
from .text import TextLineDataset

__all__ = [
           "AUTOTUNE",
           "INFINITE_CARDINALITY",
           "UNKNOWN_CARDINALITY",
           "Dataset",
           "DatasetSpec",
           "Iterator",
           "Options",
           "TFRecordDataset",
           "TextLineDataset",
           "experimental",
]

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN
__getattr__ = missing_attribute("tf.data", __all__)
