"""batching.py holds the transformations that group or split elements: batch,
padded_batch, unbatch, rebatch and window, with TF's shapes, cardinalities and
errors. A batch of slices of arrays (from_tensor_slices, maybe shuffled) is cut
from the arrays in one indexing step instead of being stacked element by element."""

import collections

import numpy as np

from ..core.errors import DataLossError, InvalidArgumentError
from ..core.tensor_spec import TensorSpec
from . import composite, structure
from .structure import INFINITE, UNKNOWN

__all__ = ["Batching"]


def _positive(value, name, what):
    try:
        value = int(value)
    except (TypeError, ValueError):
        raise TypeError(f"{what}: `{name}` must be an integer scalar, got {value!r}.") from None
    if value <= 0:
        raise InvalidArgumentError(f"{what}: `{name}` must be greater than zero, but got "
                                   f"{value}.")
    return value


def _batched_cardinality(n, size, drop_remainder):
    if n < 0:
        return n
    return n // size if drop_remainder else -(-n // size)


def _batched_spec(spec, size, ragged=False):
    def leaf(s):
        if composite.is_composite_spec(s) or ragged and isinstance(s, TensorSpec) and \
                s.shape.rank is not None:
            return composite.batch_spec(s, size)
        if not isinstance(s, TensorSpec):
            raise TypeError("Cannot batch elements holding datasets; flat_map them first.")
        return TensorSpec(None if s.shape.rank is None else [size] + list(s.shape), s.dtype)

    return structure.map_structure(leaf, spec)


def _grouped(dataset, size, drop_remainder, ragged=False):
    """The iterate function of batches stacked element by element; a spec known
    without running user code decides ragged and sparse components."""
    def iterate():
        spec = dataset.element_spec if ragged else dataset._static_spec()
        pending = []
        for element in dataset._iterate():
            pending.append(element)
            if len(pending) == size:
                batch = structure.skipped(structure.stack, pending, "batch", spec, ragged)
                if batch is not structure.SKIP:
                    yield batch
                pending = []
        if pending and not drop_remainder:
            batch = structure.skipped(structure.stack, pending, "batch", spec, ragged)
            if batch is not structure.SKIP:
                yield batch

    return iterate


def _flatten_up_to(spec, value, what):
    """The parts of `value` that stand for each component of `spec` (TF's
    nest.flatten_up_to: a shape like (None,) given for one component is one part)."""
    if isinstance(spec, dict):
        if not isinstance(value, dict) or set(value) != set(spec):
            raise TypeError(f"`{what}` must have the structure of the elements, keys "
                            f"{sorted(spec)}; got {value!r}.")
        return [part for k in sorted(spec) for part in _flatten_up_to(spec[k], value[k], what)]
    if isinstance(spec, tuple):
        if not isinstance(value, (tuple, list)) or len(value) != len(spec):
            raise TypeError(f"`{what}` must have the structure of the elements ({len(spec)} "
                            f"components); got {value!r}.")
        return [part for s, v in zip(spec, value) for part in _flatten_up_to(s, v, what)]
    return [value]


def _padded_shape(shape):
    if shape is None:
        return None
    if hasattr(shape, "_value"):
        shape = shape._value.tolist()
    dims = [shape] if isinstance(shape, (int, np.integer)) else list(shape)
    return [None if d is None or int(d) == -1 else int(d) for d in dims]


def _padding_value(value, spec):
    """A padding value, which must have the component's dtype as TF converts it
    (a Python int is int32, a float float32: pad an int64 component with
    np.int64(-1) or tf.constant(-1, tf.int64), as in TF)."""
    if value is None:
        return b"" if spec.dtype.name == "string" else spec.dtype._np.type(0)
    array = structure.to_component(value)
    if np.ndim(array) != 0:
        raise ValueError(f"Invalid `padding_values`: each must be a scalar, got shape "
                         f"{np.shape(array)}.")
    dtype = structure.spec_of(array).dtype
    if dtype != spec.dtype:
        raise TypeError(f"Invalid `padding_values`. `padding_values` values type {dtype!r} "
                        f"does not match type {spec.dtype!r} of the corresponding input "
                        "component.")
    return array


def _pad_component(values, shape, fill, i):
    ranks = {np.ndim(v) for v in values}
    if len(ranks) != 1 or shape is not None and len(shape) != ranks.copy().pop():
        raise InvalidArgumentError(f"padded_batch: the elements of component {i} have ranks "
                                   f"{sorted(ranks)}, padded shape {shape}; all must match.")
    rank = ranks.pop()
    shape = [None] * rank if shape is None else shape
    target = [max(np.shape(v)[d] for v in values) if shape[d] is None else shape[d]
              for d in range(rank)]
    out = np.full([len(values)] + target, fill, dtype=np.asarray(values[0]).dtype)
    for j, value in enumerate(values):
        if any(a > b for a, b in zip(np.shape(value), target)):
            raise DataLossError(
                f"Attempted to pad to a smaller size than the input element: component {i} "
                f"has shape {list(np.shape(value))}, padded shape {target}.")
        out[(j,) + tuple(slice(0, d) for d in np.shape(value))] = value
    return out


def _windows(elements, size, shift, stride, drop_remainder):
    """Lists of elements, TF's WindowDataset: a window takes every `stride`-th of
    the next (size - 1) * stride + 1 elements, and the next starts `shift` later."""
    span = (size - 1) * stride + 1
    buffer = collections.deque()
    ended = False
    skip = 0
    while True:
        while not ended and len(buffer) < span:
            element = next(elements, _END)
            if element is _END:
                ended = True
            elif skip:
                skip -= 1
            else:
                buffer.append(element)
        if not buffer:
            return
        window = list(buffer)[::stride][:size]
        if len(window) < size and drop_remainder:
            return
        yield window
        dropped = min(shift, len(buffer))
        for _ in range(dropped):
            buffer.popleft()
        skip = shift - dropped


_END = object()


class Batching:
    """batch, padded_batch, unbatch, rebatch and window (a mixin of Dataset)."""

    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None,
              deterministic=None, name=None):
        """Stack `batch_size` consecutive elements into one; the last batch is
        smaller unless `drop_remainder`. The batch dimension of `element_spec` is
        None unless `drop_remainder` (as TF).

        Raises:
            tf.errors.InvalidArgumentError: if elements of a batch differ in shape
                (TF's message, naming the component and shapes).
        """
        size = _positive(batch_size, "batch_size", "batch")
        cardinality = lambda: _batched_cardinality(self._known_cardinality(), size,
                                                   drop_remainder)
        spec = lambda: _batched_spec(self.element_spec, size if drop_remainder else None)
        if self._slices is not None and self._batch is None:
            slices, order, n = self._slices, self._order, self._length

            def cut():
                index = order() if order is not None else None
                stop = n - n % size if drop_remainder else n
                for start in range(0, stop, size):
                    part = slice(start, start + size) if index is None else \
                        index[start:start + size]
                    yield structure.map_structure(lambda a, part=part: a[part], slices)

            return self._derive(cut, cardinality, spec, "_BatchDataset",
                                batch=(size, drop_remainder))

        return self._derive(_grouped(self, size, drop_remainder), cardinality, spec,
                            "_BatchDataset")

    def ragged_batch(self, batch_size, drop_remainder=False, row_splits_dtype=None, name=None):
        """Batch elements that may differ in shape: a component whose spec has
        unknown dimensions becomes a RaggedTensor, ragged up to the last of them;
        one of fully known shape batches as `batch` does (TF's rule)."""
        size = _positive(batch_size, "batch_size", "ragged_batch")
        return self._derive(
            _grouped(self, size, drop_remainder, ragged=True),
            lambda: _batched_cardinality(self._known_cardinality(), size, drop_remainder),
            lambda: _batched_spec(self.element_spec, size if drop_remainder else None, True),
            "_DenseToRaggedDataset")

    def padded_batch(self, batch_size, padded_shapes=None, padding_values=None,
                     drop_remainder=False, name=None):
        """Batch elements of different shapes, padding each component to
        `padded_shapes` (a dimension of None or -1: the largest in the batch;
        `padded_shapes=None`: every dimension so) with `padding_values` (0, or b''
        for strings, by default; one scalar pads every component; each of the
        component's dtype, as TF requires).

        Raises:
            tf.errors.DataLossError: if an element is larger than its padded
                shape ("Attempted to pad to a smaller size than the input
                element", TF 2.21's error).
            tf.errors.InvalidArgumentError: if ranks differ.
            TypeError: if padded_shapes or padding_values are not structured like
                the elements, or a padding Tensor's dtype differs.
        """
        size = _positive(batch_size, "batch_size", "padded_batch")
        spec = self.element_spec
        leaves = structure.flatten(spec)
        if any(not isinstance(s, TensorSpec) for s in leaves):
            raise TypeError(f"padded_batch is only supported for datasets of dense tensors; "
                            f"the elements are {spec}. Use batch (or ragged_batch).")
        if padded_shapes is None:
            unknown = next((i for i, s in enumerate(leaves) if s.shape.rank is None), None)
            if unknown is not None:
                raise ValueError(f"You must provide `padded_shapes` argument because "
                                 f"component {unknown} has unknown rank.")
        shapes = [None] * len(leaves) if padded_shapes is None else \
            [_padded_shape(s) for s in _flatten_up_to(spec, padded_shapes, "padded_shapes")]
        if padding_values is None or not isinstance(padding_values, (tuple, dict)):
            values = [padding_values] * len(leaves)  # one value pads every component (TF)
        else:
            values = _flatten_up_to(spec, padding_values, "padding_values")
        fills = [_padding_value(v, s) for v, s in zip(values, leaves)]
        for s, shape in zip(leaves, shapes):
            if shape is not None and s.shape.rank is not None and s.shape.rank != len(shape):
                raise ValueError(f"The padded shape {tuple(shape)} is not compatible with the "
                                 f"shape {s.shape} of the corresponding input component.")

        def pad(elements):
            columns = zip(*(structure.flatten(e) for e in elements))
            return structure.pack_as(spec, [_pad_component(list(c), shape, fill, i)
                                            for i, (c, shape, fill)
                                            in enumerate(zip(columns, shapes, fills))])

        def iterate():
            pending = []
            for element in self._iterate():
                pending.append(element)
                if len(pending) == size:
                    yield pad(pending)
                    pending = []
            if pending and not drop_remainder:
                yield pad(pending)

        def padded_spec():
            def leaf(s, shape):
                dims = [None] * s.shape.rank if shape is None else shape
                return TensorSpec([size if drop_remainder else None] + dims, s.dtype)

            return structure.pack_as(spec, [leaf(s, shape) for s, shape in zip(leaves, shapes)])

        return self._derive(iterate, lambda: _batched_cardinality(
            self._known_cardinality(), size, drop_remainder), padded_spec,
            "_PaddedBatchDataset")

    def unbatch(self, name=None):
        """Split each element along its first dimension into elements.

        Raises:
            ValueError: for a scalar component or known first dimensions that
                differ (as TF).
            tf.errors.InvalidArgumentError: while iterating, if components differ
                in their first dimension.
        """
        specs = structure.flatten(self.element_spec)
        shapes = [getattr(s, "shape", None) for s in specs]
        if any(shape is not None and shape.rank == 0 for shape in shapes):
            raise ValueError("Cannot unbatch an input with scalar components.")
        known = [d for d in dict.fromkeys(shape[0] for shape in shapes
                                          if shape is not None and shape.rank) if d is not None]
        if len(known) > 1:
            first, second = known[:2]
            raise ValueError(f"`unbatch()` is only supported for datasets of elements whose "
                             f"components have a matching leading dimension. Encountered both "
                             f"{first} and {second}.")

        def split(element):
            leaves = structure.flatten(element)
            if any(not composite.is_composite(leaf) and np.ndim(leaf) == 0 for leaf in leaves):
                raise ValueError("Cannot unbatch an input with scalar components.")
            sizes = [composite.leading_size(leaf) if composite.is_composite(leaf) else
                     np.shape(leaf)[0] for leaf in leaves]
            odd = next((i for i, s in enumerate(sizes) if s != sizes[0]), None)
            if odd is not None:
                raise InvalidArgumentError(
                    f"Input element must have the same batch size in each component. "
                    f"Component 0 had size {sizes[0]} but component {odd} had size "
                    f"{sizes[odd]}.")
            for i in range(sizes[0]):
                yield structure.pack_as(element, [structure.row(leaf, i) for leaf in leaves])

        def iterate():
            for element in self._iterate():
                yield from split(element)

        def cardinality():
            n = self._known_cardinality()
            firsts = {s.shape[0] if getattr(s, "shape", None) is not None and s.shape.rank
                      else None for s in structure.flatten(self.element_spec)}
            if n in (INFINITE, UNKNOWN) or len(firsts) != 1 or None in firsts:
                return UNKNOWN if n != INFINITE else n
            return n * firsts.pop()

        def spec():
            return structure.map_structure(
                lambda s: composite.unbatch_spec(s) if composite.is_composite_spec(s) else
                TensorSpec(None if s.shape.rank is None else list(s.shape)[1:], s.dtype),
                self.element_spec)

        return self._derive(iterate, cardinality, spec, "_UnbatchDataset")

    def rebatch(self, batch_size, drop_remainder=False, name=None):
        """Re-cut batched elements into batches of `batch_size` (or, given a list,
        of its sizes in turn), as `unbatch().batch(...)`."""
        sizes = [_positive(b, "batch_size", "rebatch") for b in
                 (batch_size if isinstance(batch_size, (list, tuple)) else [batch_size])]
        if len(sizes) == 1:
            return self.unbatch().batch(sizes[0], drop_remainder)
        flat = self.unbatch()

        def iterate():
            elements = flat._iterate()
            for size in _cycle(sizes):
                batch = [e for _, e in zip(range(size), elements)]
                if not batch or drop_remainder and len(batch) < size:
                    return
                yield structure.stack(batch)

        return self._derive(iterate, UNKNOWN, lambda: _batched_spec(flat.element_spec, None),
                            "_RebatchDataset")

    def window(self, size, shift=None, stride=1, drop_remainder=False, name=None):
        """A dataset of windows: each element is the input's structure with every
        component a Dataset of `size` consecutive values (every `stride`-th), the
        next window starting `shift` (default `size`) elements later. Windows at
        the end are shorter unless `drop_remainder`. Use `flat_map` to batch them.
        """
        size = _positive(size, "size", "window")
        shift = size if shift is None else _positive(shift, "shift", "window")
        stride = _positive(stride, "stride", "window")

        def to_datasets(window):
            columns = zip(*(structure.flatten(e) for e in window))
            specs = structure.flatten(self.element_spec)
            return structure.pack_as(window[0], [
                self._from_elements(list(column), spec) for column, spec in zip(columns, specs)])

        def iterate():
            for window in _windows(self._iterate(), size, shift, stride, drop_remainder):
                yield to_datasets(window)

        def cardinality():
            n = self._known_cardinality()
            if n < 0:
                return n
            if drop_remainder:
                rest = n - ((size - 1) * stride + 1)
                return 0 if rest < 0 else rest // shift + 1
            return -(-n // shift)

        return self._derive(iterate, cardinality, lambda: structure.map_structure(
            structure.DatasetSpec, self.element_spec), "_WindowDataset")


def _cycle(sizes):
    while True:
        yield from sizes
