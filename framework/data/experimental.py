"""experimental.py is `tf.data.experimental`: the names tutorials still use
(AUTOTUNE, cardinality and its constants, AutoShardPolicy, Counter, the
function forms of transformations that later moved onto Dataset)."""


from ..core import dtypes
from ..core.errors import FailedPreconditionError
from .csv_files import CsvDataset, make_csv_dataset
from .dataset import Dataset
from .missing import missing_attribute
from .options import AutoShardPolicy
from .structure import AUTOTUNE, INFINITE, UNKNOWN

__all__ = [
    "AUTOTUNE",
    "INFINITE_CARDINALITY",
    "UNKNOWN_CARDINALITY",
    "AutoShardPolicy",
    "Counter",
    "CsvDataset",
    "assert_cardinality",
    "cardinality",
    "choose_from_datasets",
    "dense_to_ragged_batch",
    "enumerate_dataset",
    "get_single_element",
    "ignore_errors",
    "load",
    "make_csv_dataset",
    "map_and_batch",
    "parallel_interleave",
    "sample_from_datasets",
    "save",
    "shuffle_and_repeat",
    "unbatch",
]

INFINITE_CARDINALITY = INFINITE
UNKNOWN_CARDINALITY = UNKNOWN


def cardinality(dataset):
    """`dataset.cardinality()`: an int64 scalar Tensor, -1 infinite, -2 unknown."""
    return dataset.cardinality()


def get_single_element(dataset):
    """`dataset.get_single_element()`."""
    return dataset.get_single_element()


def sample_from_datasets(datasets, weights=None, seed=None, stop_on_empty_dataset=False):
    return Dataset.sample_from_datasets(datasets, weights, seed, stop_on_empty_dataset)


def choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset=True):
    return Dataset.choose_from_datasets(datasets, choice_dataset, stop_on_empty_dataset)


def Counter(start=0, step=1, dtype=dtypes.int64, name=None):  # TF's name
    """An infinite dataset counting from `start` by `step` (`Dataset.counter`)."""
    return Dataset.counter(start, step, dtype)


def enumerate_dataset(start=0):
    """For `dataset.apply(...)`: `dataset.enumerate(start)`."""
    return lambda dataset: dataset.enumerate(start)


def dense_to_ragged_batch(batch_size, drop_remainder=False, row_splits_dtype=dtypes.int64):
    """For `dataset.apply(...)`: `dataset.ragged_batch(batch_size, drop_remainder)`."""
    return lambda dataset: dataset.ragged_batch(batch_size, drop_remainder, row_splits_dtype)


def ignore_errors(log_warning=False):
    """For `dataset.apply(...)`: `dataset.ignore_errors(log_warning)`."""
    return lambda dataset: dataset.ignore_errors(log_warning)


def save(dataset, path, compression=None, shard_func=None, checkpoint_args=None):
    """`dataset.save(path, ...)` (see Dataset.save: tapeflow's own format)."""
    return dataset.save(path, compression, shard_func, checkpoint_args)


def load(path, element_spec=None, compression=None, reader_func=None):
    """`tf.data.Dataset.load(path, ...)`."""
    return Dataset.load(path, element_spec, compression, reader_func)


def shuffle_and_repeat(buffer_size, count=None, seed=None):
    """For `dataset.apply(...)`: `dataset.shuffle(buffer_size, seed).repeat(count)`,
    a new order on each repetition (TF's fused op)."""
    return lambda dataset: dataset.shuffle(buffer_size, seed).repeat(count)


def map_and_batch(map_func, batch_size, num_parallel_batches=None, drop_remainder=False,
                  num_parallel_calls=None):
    """For `dataset.apply(...)`: `dataset.map(map_func).batch(batch_size, ...)`."""
    return lambda dataset: dataset.map(map_func).batch(batch_size, drop_remainder)


def unbatch():
    """For `dataset.apply(...)`: `dataset.unbatch()`."""
    return lambda dataset: dataset.unbatch()


def parallel_interleave(map_func, cycle_length, block_length=1, sloppy=False,
                        buffer_output_elements=None, prefetch_input_elements=None):
    """For `dataset.apply(...)`: `dataset.interleave(map_func, cycle_length,
    block_length)`, in the deterministic order (`sloppy` changes nothing)."""
    return lambda dataset: dataset.interleave(map_func, cycle_length, block_length)


def assert_cardinality(expected_cardinality):
    """For `dataset.apply(...)`: the same elements, with `expected_cardinality`
    as their cardinality; iterating raises if the count differs (TF's messages).
    """
    expected = int(expected_cardinality)

    def apply(dataset):
        def iterate():
            count = 0
            for element in dataset._iterate():
                count += 1
                if expected >= 0 and count > expected:
                    raise FailedPreconditionError(f"Input dataset was expected to contain "
                                               f"{expected} elements but contained at least "
                                               f"{count} elements.")
                yield element
            if expected == INFINITE or count < expected:
                raise FailedPreconditionError(f"Input dataset was expected to contain "
                                           f"{_elements(expected)} but contained only "
                                           f"{_elements(count)}.")

        return dataset._derive(iterate, expected, dataset._same_spec(),
                               "_AssertCardinalityDataset")

    return apply


def _elements(n):
    if n == INFINITE:
        return "an infinite number of elements"
    return f"{n} element" + ("" if n == 1 else "s")


__getattr__ = missing_attribute("tf.data.experimental", __all__)
