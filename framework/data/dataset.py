"""dataset.py joins the parts of `tf.data.Dataset`: reading it (base.py),
its sources (sources.py), its element-wise transformations
(transformations.py), its batching and windows (batching.py), grouping by
key (grouping.py), resampling by class (resampling.py) and save/load
(saving.py)."""

from .base import DatasetCore
from .batching import Batching
from .grouping import Grouping
from .resampling import Resampling
from .saving import Saving
from .sources import Sources
from .transformations import Transformations

__all__ = ["Dataset"]


class Dataset(Batching, Grouping, Resampling, Transformations, Sources, Saving,
              DatasetCore):
    """A re-iterable pipeline of elements, as `tf.data.Dataset`.

    Elements are tensors or nested tuples, namedtuples and dicts of them (a
    Python list is one tensor, as in TF). Iterating yields Tensors, as TF's
    eager datasets do; `as_numpy_iterator()` yields NumPy values. Start one
    with `from_tensor_slices`, `from_tensors`, `from_generator`, `range`, `zip`,
    `list_files` or `tf.data.TextLineDataset`.

    tapeflow runs a pipeline in the thread that iterates it, one element at a
    time and in order: `num_parallel_calls`, `prefetch` and `tf.data.Options`
    are accepted and change nothing but speed, which they do not improve.
    """

    @classmethod
    def _new(cls, iterate, cardinality, spec, kind, **state):
        return Dataset(iterate, cardinality, spec, kind, **state)
