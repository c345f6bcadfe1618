"""base.py holds what every dataset has: how it is iterated (as Tensors, as NumPy
values, or as the NumPy batches `fit` consumes), its cardinality, element_spec,
options and repr. The transformations and sources are mixins beside it
(transformations.py, batching.py, sources.py); dataset.py joins them."""

import itertools

import numpy as np

from ..core.errors import InvalidArgumentError, OutOfRangeError
from ..core.tensor import Tensor, Variable
from . import structure
from .missing import missing_method
from .options import Options

__all__ = ["DatasetCore", "Iterator"]


class Iterator:
    """What `iter(dataset)` returns, as TF's OwnedIterator: `next(it)`,
    `it.get_next()` and `it.element_spec`.

    A `tf.train.Checkpoint` holding it saves its position (the number of
    elements read); after `restore`, the next element comes from a fresh pass
    over the dataset, with that many elements skipped. TF saves the pipeline's
    state instead: the two agree for deterministic pipelines, not where each
    pass draws a new random order (shuffle's reshuffle_each_iteration).
    """

    def __init__(self, dataset):
        self._elements = dataset._iterate()
        self._dataset = dataset
        self._consumed = 0
        self._position = None   # a Variable, once a checkpoint holds the iterator
        self._synced = 0        # the position last written to or read from it

    @property
    def element_spec(self):
        return self._dataset.element_spec

    def __iter__(self):
        return self

    def __next__(self):
        if self._position is not None:
            saved = int(self._position._value)
            if saved != self._synced:  # a checkpoint was restored into the Variable
                self._seek(saved)
        element = next(self._elements)
        self._consumed += 1
        return structure.to_tensors(element)

    def get_next(self):
        """The next element.

        Raises:
            tf.errors.OutOfRangeError: at the end ("End of sequence", as TF;
                `next(iterator)` raises StopIteration there).
        """
        try:
            return next(self)
        except StopIteration:
            raise OutOfRangeError("End of sequence") from None

    def _seek(self, position):
        self._elements = self._dataset._iterate()
        for _ in itertools.islice(self._elements, position):
            pass
        self._consumed = self._synced = position

    def _checkpoint_dependencies(self):
        """The iterator's position, as a Variable a checkpoint saves and restores."""
        if self._position is None:
            self._position = Variable(np.int64(self._consumed), trainable=False,
                                      name="iterator_position")
            self._synced = self._consumed
        elif int(self._position._value) == self._synced:
            self._position.assign(np.int64(self._consumed))
            self._synced = self._consumed
        # else a restored position waits for the next element: keep it
        return [("position", self._position)]


class DatasetCore:
    """The state of a dataset and the ways to read it.

    `_iterate()` starts a fresh pass and yields elements as nested NumPy values;
    `_cardinality` and `_spec` are values or functions that compute them on first
    use (a map's element_spec runs the function once). A pipeline of slices of
    arrays keeps them in `_slices` (with a shuffle's `_order` and a batch's
    `_batch`), so that `fit` reads it vectorised.
    """

    def __init__(self, iterate, cardinality, spec, kind="Dataset", slices=None, order=None,
                 batch=None, options=None):
        self._iterate = iterate
        self._cardinality_value = cardinality
        self._spec_value = spec
        self._kind = kind
        self._slices = slices
        self._order = order
        self._batch = batch
        self._options = options

    def __getattr__(self, name):
        # Only for names no class defines: TF's methods tapeflow lacks are named.
        raise missing_method(name)

    # -- making others ------------------------------------------------------
    @classmethod
    def _new(cls, iterate, cardinality, spec, kind, **state):
        raise NotImplementedError  # dataset.py's Dataset makes Datasets

    def _derive(self, iterate, cardinality, spec, kind, **state):
        """A dataset made from this one, with its options."""
        state.setdefault("options", self._options)
        return self._new(iterate, cardinality, spec, kind, **state)

    def _pass_through(self, kind, **state):
        """The same elements under another name (prefetch, cache of slices)."""
        state = {"slices": self._slices, "order": self._order, "batch": self._batch, **state}
        return self._derive(self._iterate, self._cardinality_value, self._same_spec(),
                            kind, **state)

    def _same_spec(self):
        """This dataset's spec for a dataset of the same elements: the value when
        known, else a function computing it on first use."""
        return self._spec_value if not callable(self._spec_value) else \
            (lambda: self.element_spec)

    def _static_spec(self):
        """The element_spec if known without running user code, else None."""
        return None if callable(self._spec_value) else self._spec_value

    @classmethod
    def _from_elements(cls, elements, spec):
        """A dataset of a list of (already converted) elements."""
        return cls._new(lambda: iter(elements), len(elements), spec, "_VariantDataset")

    # -- what it is ---------------------------------------------------------
    def cardinality(self):
        """The number of elements as an int64 scalar Tensor: INFINITE_CARDINALITY
        (-1) for an infinite dataset, UNKNOWN_CARDINALITY (-2) when it cannot be
        known without iterating (after `filter`, `from_generator`, ...), as TF."""
        return Tensor(np.int64(self._known_cardinality()))

    def _known_cardinality(self):
        if callable(self._cardinality_value):
            self._cardinality_value = int(self._cardinality_value())
        return self._cardinality_value

    @property
    def _length(self):
        """The number of elements when finite and known, else None (for `fit`)."""
        n = self._known_cardinality()
        return n if n >= 0 else None

    def __len__(self):
        n = self._known_cardinality()
        if n == structure.INFINITE:
            raise TypeError("The dataset is infinite.")
        if n == structure.UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return n

    def __bool__(self):
        return True  # as TF: a dataset is truthy even when __len__ would be 0 or raise

    @property
    def element_spec(self):
        """The TensorSpec structure of one element (DatasetSpec for a dataset
        component). Where TF traces a map function, tapeflow runs it on the first
        element; see `map`."""
        if callable(self._spec_value):
            self._spec_value = self._spec_value()
        return self._spec_value

    def __repr__(self):
        return f"<{self._kind} element_spec={self.element_spec!r}>"

    def options(self):
        """The `tf.data.Options` set by `with_options` on this dataset or its inputs.
        Options only describe; tapeflow runs every pipeline in the calling thread."""
        return self._options if self._options is not None else Options()

    # -- reading it ---------------------------------------------------------
    def __iter__(self):
        return Iterator(self)

    def as_numpy_iterator(self):
        """The elements as NumPy values (strings as bytes), structure kept.

        Raises:
            TypeError: if the elements hold datasets (as TF).
        """
        return (structure.to_numpy(element) for element in self._iterate())

    def numpy_batches(self):
        """The elements as nested NumPy values: what `fit` consumes."""
        return self._iterate()

    def get_single_element(self, name=None):
        """The one element of a dataset with exactly one.

        Raises:
            tf.errors.InvalidArgumentError: if it has none or more than one (TF's
                messages).
        """
        elements = self._iterate()
        first = next(elements, _NONE)
        if first is _NONE:
            raise InvalidArgumentError("Dataset was empty.")
        if next(elements, _NONE) is not _NONE:
            raise InvalidArgumentError("Dataset had more than one element.")
        return structure.to_tensors(first)


_NONE = object()
