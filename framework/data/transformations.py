"""transformations.py holds the element-wise and ordering transformations of
`tf.data.Dataset` (map, filter, flat_map, interleave, shuffle, repeat, take,
skip, cache, ...) with TF's cardinality rules. Functions given to them run
eagerly in the calling thread, one element at a time, in order; batching and
windows are in batching.py."""

import itertools
import os
import pickle

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor_spec import TensorSpec
from ..random import generator
from ..runtime.atomic_files import atomic_write
from . import structure
from .structure import AUTOTUNE, INFINITE, UNKNOWN
from .tracing import first_output, most_specific, output_spec

__all__ = ["Transformations"]

_CACHE_SUFFIX = ".tapeflow-cache"

_NONE = object()


def _count(value, name):
    """An int argument (a Python int or a scalar Tensor)."""
    try:
        return int(value)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be an integer scalar, got {value!r}.") from None


def _parallel_calls(value):
    """TF's check of num_parallel_calls; the calls still run one by one (see map)."""
    if value is not None and value != AUTOTUNE and _count(value, "num_parallel_calls") <= 0:
        raise InvalidArgumentError(f"num_parallel_calls must be positive or "
                                   f"tf.data.AUTOTUNE (-1), got {value}.")


def _dataset_result(value, what):
    if not hasattr(value, "_iterate"):
        raise TypeError(f"`{what}` must return a `tf.data.Dataset` object; got "
                        f"{type(value).__name__}.")
    return value


class Transformations:
    """The transformations of a Dataset that keep elements whole (a mixin of Dataset)."""

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        """Apply `map_func` to each element, as TF's `Dataset.map`.

        A tuple element is unpacked into positional arguments (`lambda x, y:`);
        a dict or namedtuple is one argument. A list returned becomes a tuple.
        tapeflow calls `map_func` eagerly on each element in order, so tapeflow
        ops, NumPy and Python all work inside it; `num_parallel_calls` is checked
        but the calls run one at a time in the iterating thread (a thread pool
        would not run Python code in parallel, and keeps the order anyway).

        `element_spec` runs `map_func` on the first two elements (TF traces it
        instead): a dimension is reported unknown (None) where the two outputs
        differ or where its size equals that of an unknown input dimension, so a
        size that only varies later is reported as the first one's.
        """
        _parallel_calls(num_parallel_calls)

        def apply(element):
            return structure.function_output(structure.call_unpacked(map_func, element),
                                             "map_func")

        def iterate():
            for element in self._iterate():
                out = structure.skipped(apply, element)
                if out is not structure.SKIP:
                    yield out

        return self._derive(iterate, self._cardinality_value, lambda: output_spec(self, apply),
                            "_MapDataset")

    def filter(self, predicate, name=None):
        """Keep the elements for which `predicate` (unpacked as in `map`) returns
        True; it must return a scalar tf.bool, else ValueError (TF's message)."""
        def keep(element):
            return structure.scalar_bool(structure.call_unpacked(predicate, element), "filter")

        def iterate():
            for element in self._iterate():
                if structure.skipped(keep, element) is True:
                    yield element

        return self._derive(iterate, UNKNOWN, self._same_spec(), "_FilterDataset")

    def take_while(self, predicate, name=None):
        """The elements up to the first for which `predicate` returns False."""
        def iterate():
            for element in self._iterate():
                if not structure.scalar_bool(structure.call_unpacked(predicate, element),
                                             "take_while"):
                    return
                yield element

        return self._derive(iterate, UNKNOWN, self._same_spec(), "_TakeWhileDataset")

    def flat_map(self, map_func, name=None):
        """Map each element to a dataset and chain their elements, in order."""
        def datasets():
            for element in self._iterate():
                yield _dataset_result(structure.call_unpacked(map_func, element), "map_func")

        def iterate():
            for dataset in datasets():
                yield from dataset._iterate()

        def spec():
            return first_output(self, lambda e: _dataset_result(
                structure.call_unpacked(map_func, e), "map_func").element_spec)[0]

        return self._derive(iterate, UNKNOWN, spec, "_FlatMapDataset")

    def interleave(self, map_func, cycle_length=None, block_length=None,
                   num_parallel_calls=None, deterministic=None, name=None):
        """Map each element to a dataset and interleave them, in TF's order: up to
        `cycle_length` datasets are open at once, `block_length` consecutive
        elements are taken from each in turn, and an exhausted one is replaced
        by the next input element's dataset in the same slot.

        `cycle_length=None` (or AUTOTUNE) is the number of CPUs, as TF decides it;
        the datasets are read one at a time in the calling thread.
        """
        _parallel_calls(num_parallel_calls)
        cycle = (os.cpu_count() or 1) if cycle_length in (None, AUTOTUNE) else \
            _count(cycle_length, "cycle_length")
        block = 1 if block_length is None else _count(block_length, "block_length")
        if cycle <= 0 or block <= 0:
            raise InvalidArgumentError(f"interleave: cycle_length ({cycle_length}) and "
                                       f"block_length ({block_length}) must be positive.")

        def iterate():
            inputs = self._iterate()
            slots = [None] * cycle
            index = taken = open_count = 0
            ended = False
            while not ended or open_count:
                if slots[index] is not None:
                    element = next(slots[index], _NONE)
                    if element is not _NONE:
                        yield element
                        taken += 1
                        if taken < block:
                            continue
                    else:
                        slots[index] = None
                        open_count -= 1
                elif not ended:
                    element = next(inputs, _NONE)
                    if element is _NONE:
                        ended = True
                    else:
                        dataset = _dataset_result(structure.call_unpacked(map_func, element),
                                                  "map_func")
                        slots[index] = dataset._iterate()
                        open_count += 1
                    continue
                index, taken = (index + 1) % cycle, 0

        def spec():
            return first_output(self, lambda e: _dataset_result(
                structure.call_unpacked(map_func, e), "map_func").element_spec)[0]

        return self._derive(iterate, UNKNOWN, spec, "_InterleaveDataset")

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=None, name=None):
        """Shuffle with TF's buffer: the first `buffer_size` elements fill a
        buffer, each output is drawn uniformly from it and replaced by the next
        input element. A buffer as large as the dataset is a uniform permutation.

        Each pass (each epoch) draws a new order unless
        `reshuffle_each_iteration=False`. With `seed`, or after
        `tf.random.set_seed`, the sequence of orders is the same on every run.

        Raises:
            tf.errors.InvalidArgumentError: if buffer_size is not positive.
        """
        buffer_size = _count(buffer_size, "buffer_size")
        if buffer_size <= 0:
            raise InvalidArgumentError(f"buffer_size must be greater than zero, got "
                                       f"{buffer_size}.")
        reshuffle = True if reshuffle_each_iteration is None else bool(reshuffle_each_iteration)
        base = int(generator(seed).integers(2**63))
        passes = itertools.count()

        def rng():
            return np.random.default_rng([base, next(passes) if reshuffle else 0])

        n = self._length if self._slices is not None else None
        if self._slices is not None and self._order is None and self._batch is None and \
                buffer_size >= n:
            slices = self._slices
            return self._derive(lambda: _slices_in(slices, rng().permutation(n)),
                                self._cardinality_value, self._same_spec(),
                                "_ShuffleDataset", slices=slices,
                                order=lambda: rng().permutation(n))

        def iterate():
            draw = rng()
            buffer = []
            for element in self._iterate():
                if len(buffer) < buffer_size:
                    buffer.append(element)
                    continue
                i = int(draw.integers(buffer_size))
                yield buffer[i]
                buffer[i] = element
            while buffer:
                i = int(draw.integers(len(buffer)))
                buffer[i], buffer[-1] = buffer[-1], buffer[i]
                yield buffer.pop()

        return self._derive(iterate, self._cardinality_value, self._same_spec(),
                            "_ShuffleDataset")

    def repeat(self, count=None, name=None):
        """Repeat the dataset `count` times (forever for None or -1)."""
        count = -1 if count is None else _count(count, "count")

        def iterate():
            for _ in itertools.count() if count < 0 else range(count):
                empty = True
                for element in self._iterate():
                    empty = False
                    yield element
                if empty:
                    return

        def cardinality():
            n = self._known_cardinality()
            if count == 0 or n == 0:
                return 0
            if count < 0:
                return INFINITE
            return n if n < 0 else n * count

        return self._derive(iterate, cardinality, self._same_spec(), "_RepeatDataset")

    def take(self, count, name=None):
        """The first `count` elements (all of them for -1)."""
        count = _count(count, "count")

        def iterate():
            return itertools.islice(self._iterate(), None if count < 0 else count)

        def cardinality():
            n = self._known_cardinality()
            if n == UNKNOWN:
                return UNKNOWN
            if count < 0:
                return n
            return count if n == INFINITE else min(n, count)

        return self._derive(iterate, cardinality, self._same_spec(), "_TakeDataset")

    def skip(self, count, name=None):
        """All but the first `count` elements (none for -1)."""
        count = _count(count, "count")

        def iterate():
            elements = self._iterate()
            if count < 0:
                for _ in elements:
                    pass
                return iter(())
            return itertools.islice(elements, count, None)

        def cardinality():
            n = self._known_cardinality()
            if n < 0:
                return n
            return 0 if count < 0 else max(n - count, 0)

        return self._derive(iterate, cardinality, self._same_spec(), "_SkipDataset")

    def shard(self, num_shards, index, name=None):
        """Every `num_shards`-th element, starting at `index`."""
        num_shards, index = _count(num_shards, "num_shards"), _count(index, "index")
        if num_shards <= 0 or not 0 <= index < num_shards:
            raise InvalidArgumentError(f"shard: num_shards must be positive and 0 <= index < "
                                       f"num_shards; got num_shards={num_shards}, "
                                       f"index={index}.")

        def cardinality():
            n = self._known_cardinality()
            return n if n < 0 else n // num_shards + (index < n % num_shards)

        return self._derive(lambda: itertools.islice(self._iterate(), index, None, num_shards),
                            cardinality, self._same_spec(), "_ShardDataset")

    def enumerate(self, start=0, name=None):
        """(index, element) pairs, the index an int64 counting from `start`."""
        start = _count(start, "start")

        def iterate():
            return ((np.int64(i), e) for i, e in enumerate(self._iterate(), start))

        return self._derive(iterate, self._cardinality_value,
                            lambda: (TensorSpec([], dtypes.int64), self.element_spec),
                            "_EnumerateDataset")

    def concatenate(self, dataset, name=None):
        """This dataset's elements, then `dataset`'s.

        Raises:
            TypeError: if the two have different structures or dtypes (as TF).
        """
        first, second = self.element_spec, dataset.element_spec
        try:
            structure.check_same_structure(first, second, "concatenate")
            same = all(getattr(a, "dtype", None) == getattr(b, "dtype", None) for a, b in
                       zip(structure.flatten(first), structure.flatten(second)))
        except TypeError:
            same = False
        if not same:
            raise TypeError(f"Incompatible dataset elements:\n  {first} vs.\n  {second}")

        def cardinality():
            n, m = self._known_cardinality(), dataset._known_cardinality()
            if INFINITE in (n, m):
                return INFINITE
            return UNKNOWN if UNKNOWN in (n, m) else n + m

        return self._derive(lambda: itertools.chain(self._iterate(), dataset._iterate()),
                            cardinality, lambda: most_specific(first, second),
                            "_ConcatenateDataset")

    def cache(self, filename="", name=None):
        """Keep the elements of the first complete pass and replay them on later
        passes (a random map or shuffle before `cache` is then fixed), as TF.

        With `filename`, the pass is also written to `<filename>.tapeflow-cache`
        (tapeflow's own format: pickled NumPy values, written atomically once the
        pass is complete), and a later run that finds the file reads it instead
        of computing the elements again, as TF's file cache does; delete the
        file to recompute. An unfinished pass writes nothing.
        """
        path = os.fspath(filename) + _CACHE_SUFFIX if filename else None
        if path is None and self._slices is not None and self._order is None:
            return self._pass_through("CacheDataset")  # slices of arrays are a cache already
        done = []

        def iterate():
            if not done and path is not None and os.path.exists(path):
                with open(path, "rb") as f:
                    done.append(pickle.load(f))
            if done:
                yield from done[0]
                return
            written = []
            for element in self._iterate():
                written.append(element)
                yield element
            if not done:
                done.append(written)
                if path is not None:
                    atomic_write(path, lambda f: pickle.dump(written, f, pickle.HIGHEST_PROTOCOL))

        return self._derive(iterate, self._cardinality_value, self._same_spec(),
                            "CacheDataset")

    def prefetch(self, buffer_size, name=None):
        """The same elements: tapeflow computes each when it is asked for, in the
        training thread, so there is nothing to prefetch into."""
        if buffer_size is not None and buffer_size != AUTOTUNE and \
                _count(buffer_size, "buffer_size") < 0:
            raise InvalidArgumentError(f"prefetch: buffer_size must be >= 0 or "
                                       f"tf.data.AUTOTUNE, got {buffer_size}.")
        return self._pass_through("_PrefetchDataset")

    def with_options(self, options, name=None):
        """This dataset with `options` merged into its own (see `options()`)."""
        if not hasattr(options, "merge"):
            raise TypeError(f"with_options expects a tf.data.Options, got "
                            f"{type(options).__name__}.")
        merged = self.options().merge(options)
        return self._pass_through("_OptionsDataset", options=merged)

    def ignore_errors(self, log_warning=False, name=None):
        """Drop the elements whose making raised an error upstream (in a map or
        filter function, from a generator's wrong value, in batching), as TF's;
        `log_warning` logs each. An error elsewhere (a generator that itself
        raises) still propagates: its pipeline cannot go on."""
        def iterate():
            upstream = self._iterate()
            while True:
                with structure.errors_ignored(log_warning):
                    element = next(upstream, _NONE)
                if element is _NONE:
                    return
                yield element

        return self._derive(iterate, UNKNOWN, self._same_spec(), "_IgnoreErrorsDataset")

    def apply(self, transformation_func):
        """`transformation_func(self)`, which must return a Dataset."""
        return _dataset_result(transformation_func(self), "transformation_func")

    def reduce(self, initial_state, reduce_func, name=None):
        """Fold the elements: `state = reduce_func(state, element)` from
        `initial_state`; returns the final state as Tensors.

        Raises:
            TypeError: if reduce_func changes the state's structure or dtypes (TF).
        """
        state = structure.to_components(initial_state)
        for element in self._iterate():
            new = structure.function_output(
                reduce_func(structure.to_tensors(state), structure.to_tensors(element)),
                "reduce_func")
            _check_state(state, new, "reduce_func")
            state = new
        return structure.to_tensors(state)

    def scan(self, initial_state, scan_func, name=None):
        """Elements `output` of `(state, output) = scan_func(state, element)`."""
        initial = structure.to_components(initial_state)

        def step(state, element):
            out = scan_func(structure.to_tensors(state), structure.to_tensors(element))
            if not isinstance(out, (tuple, list)) or len(out) != 2:
                raise TypeError("scan_func must return a pair (new_state, output_element).")
            new = structure.function_output(out[0], "scan_func")
            _check_state(state, new, "scan_func")
            return new, structure.function_output(out[1], "scan_func")

        def iterate():
            state = initial
            for element in self._iterate():
                state, output = step(state, element)
                yield output

        return self._derive(iterate, self._cardinality_value, lambda: output_spec(
            self, lambda e: step(initial, e)[1], samples=1), "_ScanDataset")


def _check_state(old, new, what):
    structure.check_same_structure(old, new, what)
    old_types = [structure.spec_of(v).dtype for v in structure.flatten(old)]
    new_types = [structure.spec_of(v).dtype for v in structure.flatten(new)]
    if old_types != new_types:
        expected, got = ((old_types[0], new_types[0]) if len(old_types) == 1 else
                         (tuple(old_types), tuple(new_types)))
        raise TypeError(f"The element types for the new state must match the initial state. "
                        f"Expected {expected!r} but got {got!r}.")


def _slices_in(slices, index):
    for i in index:
        yield structure.map_structure(lambda a, i=i: structure.row(a, i), slices)
