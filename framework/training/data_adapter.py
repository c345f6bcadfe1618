"""data_adapter.py turns what `fit`, `evaluate` and `predict` accept (arrays,
tensors, dicts and lists of them, Python generators, `tapeflow.data.Dataset`)
into epochs of NumPy batches `(x, y, sample_weight)`. It checks the data up
front, so that bad input fails before the first step with a clear message."""

import numpy as np

from ..core import nest
from ..core.tensor import Tensor

__all__ = ["make_data", "unpack_x_y_sample_weight", "train_validation_split"]


def unpack_x_y_sample_weight(data):
    """(x,), (x, y) or (x, y, sample_weight) as a triple, as Keras's helper."""
    if isinstance(data, list):
        data = tuple(data)
    if not isinstance(data, tuple):
        return data, None, None
    if len(data) == 1:
        return data[0], None, None
    if len(data) == 2:
        return data[0], data[1], None
    if len(data) == 3:
        return data
    raise ValueError(f"Data must be (x,), (x, y) or (x, y, sample_weight); got a tuple of "
                     f"{len(data)} elements.")


def _array(value):
    if isinstance(value, Tensor):
        return np.asarray(value._value)
    if isinstance(value, np.ndarray):
        return value
    array = np.asarray(value)
    if array.dtype == np.float64 and not isinstance(value, np.ndarray):
        array = array.astype(np.float32)  # Python floats are float32, as in TF
    return array


def _is_array_like(value):
    return value is None or isinstance(value, (np.ndarray, Tensor, list, tuple, dict)) and all(
        isinstance(leaf, (np.ndarray, Tensor, list, float, int, np.number))
        for leaf in nest.flatten(value))


def _check_finite(name, structure):
    for leaf in nest.flatten(structure):
        if leaf.dtype.kind == "f" and not np.isfinite(leaf).all():
            bad = np.argwhere(~np.isfinite(leaf))[0]
            raise ValueError(f"{name} contains NaN or infinity (first at index "
                             f"{tuple(int(i) for i in bad)}); clean the data before training.")


class ArrayData:
    """Batches of in-memory arrays, reshuffled each epoch from (seed, epoch)."""

    def __init__(self, x, y=None, sample_weight=None, batch_size=32, shuffle=False,
                 steps_per_epoch=None, seed=0, check_finite=True):
        self.x = nest.map_structure(_array, x)
        self.y = None if y is None else nest.map_structure(_array, y)
        self.sample_weight = None if sample_weight is None else _array(sample_weight)
        sizes = {"x": {a.shape[0] if a.ndim else None for a in nest.flatten(self.x)}}
        if self.y is not None:
            sizes["y"] = {a.shape[0] if a.ndim else None for a in nest.flatten(self.y)}
        if self.sample_weight is not None:
            sizes["sample_weight"] = {self.sample_weight.shape[0]}
        lengths = set().union(*sizes.values())
        if None in lengths:
            raise ValueError("Training data must have a batch (first) axis; got a scalar.")
        if len(lengths) != 1:
            detail = ", ".join(f"{k} sizes: {', '.join(str(s) for s in sorted(v))}"
                               for k, v in sizes.items())
            raise ValueError(f"Data cardinality is ambiguous: {detail}. Make sure all arrays "
                             "contain the same number of samples.")
        self.size = lengths.pop()
        if check_finite:
            _check_finite("x", self.x)
            if self.y is not None:
                _check_finite("y", self.y)
        self.batch_size = int(batch_size or 32)
        if self.batch_size <= 0:
            raise ValueError(f"batch_size must be positive, got {batch_size}.")
        self.shuffle = shuffle
        self.seed = seed
        full = -(-self.size // self.batch_size)
        self.steps = full if steps_per_epoch is None else min(int(steps_per_epoch), full)

    def epoch(self, epoch_index):
        if self.shuffle is True:
            order = np.random.default_rng([self.seed, epoch_index]).permutation(self.size)
        else:
            order = None
        starts = list(range(0, self.size, self.batch_size))
        if self.shuffle == "batch":
            np.random.default_rng([self.seed, epoch_index]).shuffle(starts)
        for step, start in enumerate(starts[:self.steps]):
            if order is None:
                index = slice(start, start + self.batch_size)
            else:
                index = order[start:start + self.batch_size]
            yield (nest.map_structure(lambda a: a[index], self.x),
                   None if self.y is None else nest.map_structure(lambda a: a[index], self.y),
                   None if self.sample_weight is None else self.sample_weight[index])


class IterableData:
    """Batches from a generator, iterator or Dataset (already batched).

    A Dataset is read afresh each epoch unless `steps_per_epoch` is given; then,
    as in Keras, one iterator runs on across epochs (restarting when it ends).
    """

    def __init__(self, source, steps_per_epoch=None):
        self.source = source
        self.reiterable = hasattr(source, "numpy_batches")
        self.steps_per_epoch = None if steps_per_epoch is None else int(steps_per_epoch)
        self.steps = self.steps_per_epoch
        if self.steps is None and self.reiterable and source._length is not None:
            self.steps = source._length
        self._iterator = None

    def _next(self):
        if self._iterator is None:
            self._iterator = iter(self.source.numpy_batches() if self.reiterable
                                  else self.source)
        try:
            return next(self._iterator)
        except StopIteration:
            if not self.reiterable:
                raise
            self._iterator = iter(self.source.numpy_batches())
            return next(self._iterator)  # StopIteration again: the dataset is empty

    def _batches(self):
        if self.reiterable and self.steps_per_epoch is None:
            yield from self.source.numpy_batches()
            return
        step = 0
        while self.steps_per_epoch is None or step < self.steps_per_epoch:
            try:
                yield self._next()
            except StopIteration:
                return
            step += 1

    def epoch(self, epoch_index):
        for data in self._batches():
            x, y, sw = unpack_x_y_sample_weight(data)
            yield (nest.map_structure(_array, x), None if y is None else
                   nest.map_structure(_array, y), None if sw is None else _array(sw))


def make_data(x, y=None, sample_weight=None, batch_size=None, shuffle=False,
              steps_per_epoch=None, seed=0, class_weight=None):
    """Wrap what the user passed to fit/evaluate/predict.

    Raises:
        ValueError: for mismatched lengths, NaN in the data, `y` given with a
            generator or Dataset, or an unsupported type.
    """
    if hasattr(x, "numpy_batches") or hasattr(x, "__next__") or (
            callable(getattr(x, "__iter__", None)) and not _is_array_like(x)):
        if y is not None or sample_weight is not None:
            raise ValueError("`y` and `sample_weight` cannot be given when x is a generator or "
                             "a Dataset: it must yield (x, y) or (x, y, sample_weight).")
        if class_weight is not None:
            raise ValueError("class_weight is only supported with array data in tapeflow.")
        return IterableData(x, steps_per_epoch)
    if x is None:
        raise ValueError("fit/evaluate/predict needs input data `x`.")
    if class_weight is not None:
        sample_weight = _class_sample_weight(y, sample_weight, class_weight)
    return ArrayData(x, y, sample_weight, batch_size, shuffle, steps_per_epoch, seed)


def _class_sample_weight(y, sample_weight, class_weight):
    if y is None or isinstance(y, (dict, list, tuple)) and not isinstance(y, np.ndarray) and \
            len(nest.flatten(y)) > 1:
        raise ValueError("class_weight needs a single array of labels y.")
    labels = _array(nest.flatten(y)[0])
    if labels.ndim > 1 and labels.shape[-1] > 1:
        labels = np.argmax(labels, axis=-1)
    labels = labels.reshape(labels.shape[0], -1)[:, 0].astype(np.int64)
    table = np.ones(int(max(max(class_weight) + 1, labels.max() + 1)), np.float32)
    for cls, weight in class_weight.items():
        table[int(cls)] = weight
    weights = table[labels]
    return weights if sample_weight is None else weights * _array(sample_weight)


def train_validation_split(x, y, sample_weight, validation_split):
    """The last `validation_split` fraction of the arrays is held out (Keras's rule)."""
    if not 0.0 < validation_split < 1.0:
        raise ValueError(f"validation_split must be in (0, 1), got {validation_split}.")
    if hasattr(x, "numpy_batches") or hasattr(x, "__next__"):
        raise ValueError("validation_split is only supported for array data, not for a "
                         "generator or Dataset; pass validation_data instead.")
    n = nest.flatten(nest.map_structure(_array, x))[0].shape[0]
    cut = int(n * (1.0 - validation_split))
    if cut == 0 or cut == n:
        raise ValueError(f"validation_split={validation_split} leaves an empty training or "
                         f"validation set for {n} samples.")

    def split(structure, part):
        if structure is None:
            return None
        return nest.map_structure(lambda a: _array(a)[:cut] if part == 0 else
                                  _array(a)[cut:], structure)

    return ((split(x, 0), split(y, 0), split(sample_weight, 0)),
            (split(x, 1), split(y, 1), split(sample_weight, 1)))
