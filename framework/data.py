"""data.py is a light `tf.data`: `Dataset` pipelines over NumPy arrays
(from_tensor_slices, shuffle, batch, map, repeat, take, prefetch...). A
pipeline of slices, a full shuffle and a batch runs vectorised; anything
else runs element by element. It knows nothing about models."""

import numpy as np

from .core import nest
from .core.tensor import Tensor, convert_to_tensor
from .random import generator

__all__ = ["Dataset", "AUTOTUNE"]

AUTOTUNE = -1


def _to_array(value):
    if isinstance(value, Tensor):
        return np.asarray(value._value)
    return np.asarray(value) if not isinstance(value, np.ndarray) else value


def _as_tensors(structure):
    return nest.map_structure(lambda v: Tensor(v) if isinstance(v, (np.ndarray, np.generic))
                              else convert_to_tensor(v), structure)


class Dataset:
    """A re-iterable pipeline of elements (nested structures of tensors).

    Iterating yields Tensors, as TF's eager datasets do. Build one with
    `from_tensor_slices`, `from_tensors`, `from_generator` or `range`.
    """

    def __init__(self, iterate, length=None, slices=None, order=None, batch=None):
        self._iterate = iterate      # () -> iterator of nested NumPy structures
        self._length = length        # number of elements, or None if unknown
        # A vectorisable pipeline: source arrays, shuffled order maker, batch args.
        self._slices = slices
        self._order = order
        self._batch = batch

    # -- sources ------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors):
        """Elements are the slices of `tensors` along their first axis.

        Raises:
            ValueError: if the components have different first dimensions.
        """
        structure = nest.map_structure(_to_array, tensors)
        leaves = nest.flatten(structure)
        if not leaves or any(a.ndim == 0 for a in leaves):
            raise ValueError("from_tensor_slices needs arrays with at least one axis.")
        lengths = {a.shape[0] for a in leaves}
        if len(lengths) != 1:
            raise ValueError(f"from_tensor_slices: all components must have the same first "
                             f"dimension, got {sorted(lengths)}.")
        n = lengths.pop()

        def iterate():
            for i in range(n):
                yield nest.map_structure(lambda a: a[i], structure)

        return Dataset(iterate, n, slices=structure)

    @staticmethod
    def from_tensors(tensors):
        structure = nest.map_structure(_to_array, tensors)
        return Dataset(lambda: iter([structure]), 1)

    @staticmethod
    def range(*args, dtype=np.int64):
        values = np.arange(*args).astype(np.dtype(dtype) if not hasattr(dtype, "_np")
                                          else dtype._np)
        return Dataset.from_tensor_slices(values)

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None):
        """Elements are what `generator(*args)` yields, re-run on every iteration."""
        def iterate():
            for element in generator(*(args or ())):
                yield nest.map_structure(_to_array, element)

        return Dataset(iterate)

    # -- transformations ----------------------------------------------------
    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True):
        """Shuffle with a buffer of `buffer_size` elements, as TF.

        A buffer as large as the dataset gives a uniform permutation.
        """

        buffer_size = int(buffer_size)
        if buffer_size <= 0:
            raise ValueError(f"shuffle: buffer_size must be positive, got {buffer_size}.")
        fixed = generator(seed).integers(2**63) if not reshuffle_each_iteration else None

        def rng():
            return np.random.default_rng(fixed) if fixed is not None else \
                np.random.default_rng(generator(seed).integers(2**63))

        if self._slices is not None and self._order is None and self._batch is None and \
                buffer_size >= self._length:
            n = self._length
            return Dataset(lambda: _slices_in(self._slices, rng().permutation(n)), n,
                           slices=self._slices, order=lambda: rng().permutation(n))

        def iterate():
            r = rng()
            buffer = []
            for element in self._iterate():
                buffer.append(element)
                if len(buffer) >= buffer_size:
                    yield buffer.pop(int(r.integers(len(buffer))))
            while buffer:
                yield buffer.pop(int(r.integers(len(buffer))))

        return Dataset(iterate, self._length)

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None):
        """Stack consecutive elements into batches of `batch_size`."""
        batch_size = int(batch_size)
        if batch_size <= 0:
            raise ValueError(f"batch: batch_size must be positive, got {batch_size}.")
        length = None
        if self._length is not None:
            length = self._length // batch_size if drop_remainder else -(-self._length //
                                                                         batch_size)
        if self._slices is not None and self._batch is None:
            slices, order, n = self._slices, self._order, self._length

            def iterate_batches():
                index = order() if order is not None else np.arange(n)
                stop = n - n % batch_size if drop_remainder else n
                for start in range(0, stop, batch_size):
                    yield _slices_in(slices, index[start:start + batch_size], stacked=True)

            return Dataset(iterate_batches, length, batch=(batch_size, drop_remainder))

        def iterate():
            pending = []
            for element in self._iterate():
                pending.append(element)
                if len(pending) == batch_size:
                    yield _stack(pending)
                    pending = []
            if pending and not drop_remainder:
                yield _stack(pending)

        return Dataset(iterate, length)

    def map(self, map_func, num_parallel_calls=None, deterministic=None):
        """Apply `map_func` to every element (a tuple element is unpacked)."""
        def iterate():
            for element in self._iterate():
                tensors = _as_tensors(element)
                out = map_func(*tensors) if isinstance(tensors, tuple) else map_func(tensors)
                yield nest.map_structure(_to_array, out)

        return Dataset(iterate, self._length)

    def filter(self, predicate):
        def iterate():
            for element in self._iterate():
                tensors = _as_tensors(element)
                keep = predicate(*tensors) if isinstance(tensors, tuple) else predicate(tensors)
                if bool(keep):
                    yield element

        return Dataset(iterate)

    def repeat(self, count=None):
        """Repeat the dataset `count` times (forever when None or -1)."""
        count = None if count is None or count == -1 else int(count)

        def iterate():
            k = 0
            while count is None or k < count:
                empty = True
                for element in self._iterate():
                    empty = False
                    yield element
                k += 1
                if empty:
                    return

        length = None if count is None or self._length is None else self._length * count
        return Dataset(iterate, length)

    def take(self, count):
        count = int(count)

        def iterate():
            if count == 0:
                return
            for i, element in enumerate(self._iterate()):
                yield element
                if i + 1 >= count:
                    return

        length = count if self._length is None or count < 0 else min(count, self._length)
        return Dataset(iterate, None if count < 0 and self._length is None else length)

    def skip(self, count):
        count = int(count)

        def iterate():
            for i, element in enumerate(self._iterate()):
                if i >= count:
                    yield element

        return Dataset(iterate, None if self._length is None else max(self._length - count, 0))

    def prefetch(self, buffer_size=None):
        """A no-op: tapeflow runs the pipeline in the training thread."""
        return self

    def cache(self, filename=""):
        """A no-op: the pipeline reads from memory already."""
        return self

    # -- consumption --------------------------------------------------------
    def __iter__(self):
        for element in self._iterate():
            yield _as_tensors(element)

    def as_numpy_iterator(self):
        return iter(self._iterate())

    def numpy_batches(self):
        """Iterate the elements as NumPy structures (what `fit` consumes)."""
        return self._iterate()

    def cardinality(self):
        return Tensor(np.int64(-1 if self._length is None else self._length))

    def __len__(self):
        if self._length is None:
            raise TypeError("The length of this dataset is unknown.")
        return self._length


def _slices_in(structure, index, stacked=False):
    if stacked:
        return nest.map_structure(lambda a: a[index], structure)
    return (nest.map_structure(lambda a: a[i], structure) for i in index)


def _stack(elements):
    flat = [nest.flatten(e) for e in elements]
    stacked = [np.stack(parts) for parts in zip(*flat)]
    return nest.pack_sequence_as(elements[0], stacked)
