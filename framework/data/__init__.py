"""tapeflow.data is `tf.data`: `Dataset` pipelines over tensors, arrays,
Python values, generators and text files (dataset.py joins its parts),
`tf.data.Options` and `tf.data.experimental`. Re-exports only."""

from . import experimental
from .base import Iterator
from .dataset import Dataset
from .options import Options
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
           "TextLineDataset",
           "experimental",
]

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN
