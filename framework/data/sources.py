"""sources.py holds the ways to start a `tf.data.Dataset`: from tensors and
Python values (from_tensor_slices, from_tensors), from a Python generator
checked against its output_signature, range, zip, list_files, and sampling
from or choosing between datasets, with TF's argument names and errors."""

import glob
import itertools

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor_spec import TensorSpec, _UnknownRankShape
from ..random import generator as random_generator
from . import composite, structure
from .structure import INFINITE, UNKNOWN

__all__ = ["Sources"]


def _slices_of(tensors):
    """The components of `tensors` as arrays sharing a first dimension."""
    components = structure.to_components(tensors)
    leaves = structure.flatten(components)
    if not leaves:
        raise ValueError("Invalid `element`. `element` should not be empty.")
    for leaf in leaves:
        if hasattr(leaf, "_iterate"):
            raise TypeError("from_tensor_slices cannot slice a Dataset; use "
                            "Dataset.zip or flat_map.")
    if any(not composite.is_composite(leaf) and np.ndim(leaf) == 0 for leaf in leaves):
        shapes = [tuple(np.shape(leaf)) for leaf in leaves]
        raise ValueError(f"Unbatching a tensor is only supported for rank >= 1: "
                         f"from_tensor_slices got a component of shape () (shapes: {shapes}).")
    sizes = [composite.leading_size(leaf) if composite.is_composite(leaf) else np.shape(leaf)[0]
             for leaf in leaves]
    if len(set(sizes)) != 1:
        shapes = ", ".join(str(tuple(leaf.shape)) if composite.is_composite(leaf) else
                           str(tuple(np.shape(leaf))) for leaf in leaves)
        odd = next(s for s in sizes if s != sizes[0])
        raise ValueError(f"Dimensions {sizes[0]} and {odd} are not compatible: "
                         f"from_tensor_slices needs components with the same first dimension; "
                         f"got shapes {shapes}.")
    return components, sizes[0]


def _signature(output_types, output_shapes, output_signature):
    """TF's rules for from_generator's two ways of giving the element's spec."""
    if output_signature is not None:
        if output_types is not None:
            raise TypeError("The `output_types` argument can not be used together with the "
                            "`output_signature` argument.")
        if output_shapes is not None:
            raise TypeError("The `output_shapes` argument can not be used together with the "
                            "`output_signature` argument.")
        for spec in structure.flatten(output_signature):
            if not isinstance(spec, TensorSpec):
                raise TypeError(f"`output_signature` must contain objects that are subclass "
                                f"of `tf.TypeSpec` but found {type(spec)} which is not.")
        return output_signature
    if output_types is None:
        raise TypeError("To specify the output signature you need to provide either the "
                        "`output_signature` argument or the `output_types` argument.")
    types = structure.flatten(output_types)
    if output_shapes is None:
        shapes = [None] * len(types)
    else:
        shapes = _shapes_up_to(output_types, output_shapes)
    return structure.pack_as(output_types, [TensorSpec(s, t) for t, s in zip(types, shapes)])


def _shapes_up_to(types, shapes):
    if isinstance(types, dict):
        return [s for k in sorted(types) for s in _shapes_up_to(types[k], shapes[k])]
    if isinstance(types, tuple):
        if not isinstance(shapes, (tuple, list)) or len(shapes) != len(types):
            raise TypeError(f"`output_shapes` {shapes!r} must match the structure of "
                            f"`output_types` {types!r}.")
        return [s for t, s in zip(types, shapes) for s in _shapes_up_to(t, s)]
    return [shapes]


def _generated(value, signature):
    """One yielded element, converted and checked as TF's generator_py_func does."""
    specs = structure.flatten(signature)
    try:
        parts = _parts_up_to(signature, value)
    except TypeError:
        dtypes_of = structure.map_structure(lambda s: s.dtype, signature)
        raise InvalidArgumentError(
            f"TypeError: `generator` yielded an element that did not match the expected "
            f"structure. The expected structure was {dtypes_of!r}, but the yielded element "
            f"was {value!r}.") from None
    out = []
    for part, spec in zip(parts, specs):
        try:
            if spec.dtype == dtypes.string:
                array = structure.to_component(part)
                if array.dtype.kind != "O":
                    raise TypeError
            else:
                array = np.asarray(part, dtype=spec.dtype._np)
        except (TypeError, ValueError):
            raise InvalidArgumentError(
                f"TypeError: `generator` yielded an element that could not be converted to "
                f"the expected type. The expected type was {spec.dtype.name}, but the yielded "
                f"element was {part!r}.") from None
        if not spec.is_compatible_with(TensorSpec(np.shape(array), spec.dtype)):
            raise InvalidArgumentError(
                f"TypeError: `generator` yielded an element of shape {np.shape(array)} where "
                f"an element of shape {_shape_text(spec.shape)} was expected.")
        scalar = isinstance(array, np.ndarray) and array.ndim == 0 and array.dtype.kind != "O"
        out.append(array[()] if scalar else array)  # the forms Tensors hold
    return structure.pack_as(signature, out)


def _shape_text(shape):
    return "<unknown>" if isinstance(shape, _UnknownRankShape) else \
        "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


def _parts_up_to(signature, value):
    if isinstance(signature, dict):
        if not isinstance(value, dict):
            raise TypeError
        return [p for k in sorted(signature) for p in _parts_up_to(signature[k], value[k])]
    if isinstance(signature, tuple):
        if not isinstance(value, tuple) or len(value) != len(signature):
            raise TypeError
        return [p for s, v in zip(signature, value) for p in _parts_up_to(s, v)]
    return [value]


def _weights(weights, count):
    row = np.asarray(structure.to_component(weights), dtype=np.float64).reshape(-1)
    if row.shape != (count,):
        raise ValueError(f"Invalid `weights`. The shape of `weights` should be ({count},), got "
                         f"{row.shape}.")
    return row


def _matching_files(file_pattern):
    patterns = structure.to_component(file_pattern)
    patterns = [p.decode() if isinstance(p, bytes) else str(p)
                for p in np.asarray(patterns, dtype=object).reshape(-1)]
    found = sorted(name for p in patterns for name in glob.glob(p, include_hidden=True))
    if not found:
        raise InvalidArgumentError(f"Expected 'tf.Tensor(False, shape=(), dtype=bool)' to be "
                                   f"true. Summarized data: b'No files matched pattern: "
                                   f"{', '.join(patterns)}'")
    return found


class Sources:
    """The dataset constructors (a mixin of Dataset); TF's are static methods, so
    these are class methods that always make a `tf.data.Dataset`."""

    @classmethod
    def from_tensor_slices(cls, tensors, name=None):
        """Elements are the slices of `tensors` along their first dimension.

        `tensors` may nest tuples, namedtuples and dicts (kept in each element);
        a Python list is one component, converted to a tensor (ints to int32,
        floats to float32), as TF.

        Raises:
            ValueError: if the components differ in their first dimension (naming
                the shapes), or a component is a scalar.
        """
        components, n = _slices_of(tensors)
        spec = structure.map_structure(
            lambda a: composite.unbatch_spec(composite.spec_of(a)) if composite.is_composite(a)
            else TensorSpec(np.shape(a)[1:], structure._dtype_of(a)), components)
        dense = not any(composite.is_composite(a) for a in structure.flatten(components))

        def iterate():
            for i in range(n):
                yield structure.map_structure(lambda a, i=i: structure.row(a, i), components)

        return cls._new(iterate, n, spec, "_TensorSliceDataset",
                        slices=components if dense else None)

    @classmethod
    def from_tensors(cls, tensors, name=None):
        """One element: `tensors` whole."""
        element = structure.to_components(tensors)
        return cls._new(lambda: iter([element]), 1, structure.spec_of(element),
                        "_TensorDataset")

    @classmethod
    def range(cls, *args, output_type=dtypes.int64, name=None):
        """Elements start, start + step, ... below stop, as Python's range, of
        dtype `output_type` (int64).

        Raises:
            tf.errors.InvalidArgumentError: for step 0.
        """
        if not 1 <= len(args) <= 3:
            raise ValueError(f"Dataset.range takes 1 to 3 arguments (start, stop, step), got "
                             f"{len(args)}.")
        bounds = [int(a) for a in args]
        if len(bounds) == 3 and bounds[2] == 0:
            raise InvalidArgumentError("step must be a non-zero integer.")
        numbers = range(*bounds)
        dtype = dtypes.as_dtype(output_type)
        cast = dtype._np.type
        return cls._new(lambda: (cast(v) for v in numbers), len(numbers),
                        TensorSpec([], dtype), "_RangeDataset")

    @classmethod
    def from_generator(cls, generator, output_types=None, output_shapes=None, args=None,
                       output_signature=None, name=None):
        """Elements are what `generator(*args)` yields, called afresh on each pass.

        Each yielded element is converted to the dtypes of `output_signature` (a
        nested structure of `tf.TensorSpec`), or of the legacy `output_types` and
        `output_shapes`, and checked against them as TF checks it.

        Raises:
            TypeError: if `generator` is not callable, or the signature is given
                both ways or not at all (TF's messages).
            tf.errors.InvalidArgumentError: while iterating, for a yielded value of
                the wrong structure, shape or an unconvertible type.
        """
        if not callable(generator):
            raise TypeError("`generator` must be a Python callable.")
        signature = _signature(output_types, output_shapes, output_signature)
        # NumPy values, as TF passes them (a string is bytes, a scalar a NumPy scalar)
        call_args = tuple(structure.to_numpy(structure.to_component(a)) for a in (args or ()))

        def iterate():
            for value in generator(*call_args):
                element = structure.skipped(_generated, value, signature)
                if element is not structure.SKIP:
                    yield element

        return cls._new(iterate, UNKNOWN, signature, "_FlatMapDataset")

    @classmethod
    def zip(cls, *args, datasets=None, name=None):
        """Elements are the structure of the datasets' elements, until the
        shortest ends: `zip(a, b)` or `zip((a, b))` or `zip({"x": a, "y": b})`.

        Raises:
            TypeError: for a list or a leaf that is not a Dataset (as TF).
        """
        if datasets is None:
            datasets = args[0] if len(args) == 1 else tuple(args)
        elif args:
            raise TypeError("Dataset.zip: give the datasets positionally or as `datasets`, "
                            "not both.")
        leaves = structure.flatten(datasets)
        if isinstance(datasets, list) or not all(hasattr(d, "_iterate") for d in leaves):
            raise TypeError("Invalid input to `zip`. Inputs are expected to be (nested) "
                            "structures of `tf.data.Dataset` objects. Python `list` is not "
                            "supported and you should use `tuple` instead.")

        def iterate():
            return (structure.pack_as(datasets, parts)
                    for parts in zip(*(d._iterate() for d in leaves)))

        def cardinality():
            result = INFINITE
            for n in (d._known_cardinality() for d in leaves):
                if n == UNKNOWN:
                    return UNKNOWN
                if n != INFINITE and (result == INFINITE or n < result):
                    result = n
            return result

        spec = lambda: structure.pack_as(datasets, [d.element_spec for d in leaves])
        state = {}
        if all(d._slices is not None and d._order is None and d._batch is None
               for d in leaves):
            n = min(d._length for d in leaves)
            state["slices"] = structure.pack_as(datasets, [structure.map_structure(
                lambda a: a[:n], d._slices) for d in leaves])
        return cls._new(iterate, cardinality, spec, "_ZipDataset", **state)

    @classmethod
    def list_files(cls, file_pattern, shuffle=None, seed=None, name=None):
        """The names of the files matching the glob `file_pattern` (a string or a
        list of them), as scalar tf.string elements, sorted, then shuffled each
        pass unless `shuffle=False`.

        Raises:
            tf.errors.InvalidArgumentError: if no file matches (TF's message).
        """
        names = np.array(_matching_files(file_pattern), dtype=object)
        names = np.array([n.encode() for n in names], dtype=object)
        dataset = cls.from_tensor_slices(names)
        if shuffle is None or shuffle:
            dataset = dataset.shuffle(len(names), seed=seed)
        return dataset

    @classmethod
    def counter(cls, start=0, step=1, dtype=dtypes.int64, name=None):
        """An infinite dataset counting from `start` by `step`."""
        cast = dtypes.as_dtype(dtype)._np.type
        return cls._new(lambda: (cast(v) for v in itertools.count(int(start), int(step))),
                        INFINITE, TensorSpec([], dtype), "_CounterDataset")

    @classmethod
    def random(cls, seed=None, rerandomize_each_iteration=None, name=None):
        """An infinite dataset of random int64 scalars (uniform over int64); the
        same sequence on every pass unless `rerandomize_each_iteration`, and on
        every run with a seed or after `tf.random.set_seed`."""
        base = int(random_generator(seed).integers(2**63))
        passes = itertools.count()

        def iterate():
            draw = np.random.default_rng([base, next(passes) if rerandomize_each_iteration
                                          else 0])
            while True:
                yield from draw.integers(-2**63, 2**63 - 1, size=256, dtype=np.int64,
                                         endpoint=True)

        return cls._new(iterate, INFINITE, TensorSpec([], dtypes.int64), "_RandomDataset")

    @classmethod
    def sample_from_datasets(cls, datasets, weights=None, seed=None,
                             stop_on_empty_dataset=False, rerandomize_each_iteration=None):
        """Each element is drawn from one of `datasets`, chosen at random with
        probabilities `weights` (uniform by default; or a Dataset of weight
        vectors, one per draw, as TF allows). An exhausted dataset is dropped
        from the draw, or ends the result if `stop_on_empty_dataset`."""
        datasets = list(datasets)
        if not datasets:
            raise ValueError("Invalid `datasets`. `datasets` should not be empty.")
        if hasattr(weights, "_iterate"):
            weight_rows = weights
        else:
            fixed = np.full(len(datasets), 1.0 / len(datasets)) if weights is None else \
                _weights(weights, len(datasets))
            weight_rows = None
        base = int(random_generator(seed).integers(2**63))
        passes = itertools.count()
        rerandomize = rerandomize_each_iteration

        def iterate():
            draw = np.random.default_rng([base, next(passes) if rerandomize else 0])
            iterators = [d._iterate() for d in datasets]
            rows = itertools.repeat(fixed) if weight_rows is None else \
                (_weights(w, len(datasets)) for w in weight_rows._iterate())
            ended = np.zeros(len(datasets), bool)
            for row in rows:
                live = np.where(ended, 0.0, row)
                if live.sum() <= 0:
                    return
                i = int(draw.choice(len(live), p=live / live.sum()))
                element = next(iterators[i], None)
                if element is None:
                    if stop_on_empty_dataset:
                        return
                    ended[i] = True
                    continue
                yield element

        return cls._new(iterate, UNKNOWN, lambda: datasets[0].element_spec,
                        "_DirectedInterleaveDataset")

    @classmethod
    def choose_from_datasets(cls, datasets, choice_dataset, stop_on_empty_dataset=True):
        """Element k is the next element of `datasets[choice_k]`, for each int64
        `choice` of `choice_dataset`.

        Raises:
            tf.errors.InvalidArgumentError: for a choice out of range.
        """
        datasets = list(datasets)

        def iterate():
            iterators = [d._iterate() for d in datasets]
            for choice in choice_dataset._iterate():
                i = int(choice)
                if not 0 <= i < len(iterators):
                    raise InvalidArgumentError(f"Selector index {i} out of range; there are "
                                               f"{len(iterators)} datasets.")
                element = next(iterators[i], None)
                if element is None:
                    if stop_on_empty_dataset:
                        return
                    continue
                yield element

        return cls._new(iterate, UNKNOWN, lambda: datasets[0].element_spec,
                        "_DirectedInterleaveDataset")
