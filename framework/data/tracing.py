"""tracing.py holds what tapeflow does where TF traces a user function to
learn a dataset's element_spec: it runs the function on the first elements
(or on zeros of the input's spec when there are none) and reads the specs off
the results, a dimension unknown where they differ."""

import itertools

import numpy as np

from ..core import dtypes
from ..core.tensor_spec import TensorSpec
from . import composite, structure

__all__ = ["first_output", "most_specific", "output_spec", "placeholder"]

_NONE = object()


def first_output(dataset, func):
    """`func(first element)` and the sizes of the input's unknown dimensions in it.
    An empty input is called on zeros of its spec, unknown sizes taken as 0."""
    first = next(dataset._iterate(), _NONE)
    if first is _NONE:
        first = structure.map_structure(placeholder, dataset.element_spec)
    return func(first), structure.unknown_sizes(dataset.element_spec, first)


def placeholder(spec):
    """Zeros (b'' for strings) of a spec's shape, unknown sizes taken as 0."""
    shape = [d or 0 for d in spec.shape] if spec.shape.rank is not None else []
    if spec.dtype == dtypes.string:
        return np.full(shape, b"", dtype=object)
    return np.zeros(shape, spec.dtype._np)


def output_spec(dataset, func, samples=2):
    """The spec of `func`'s outputs, from running it on the first `samples`
    elements (TF traces it instead): a dimension is None where the outputs
    differ in size, or where in every sample its size is that of an unknown
    dimension of the input element."""
    elements = list(itertools.islice(dataset._iterate(), samples))
    if not elements:
        return structure.spec_of(*first_output(dataset, func))
    outputs = [func(e) for e in elements]
    unknown = [structure.unknown_sizes(dataset.element_spec, e) for e in elements]
    first = structure.spec_of(outputs[0])
    try:
        columns = list(zip(*(structure.flatten(out) for out in outputs)))
        for other in outputs[1:]:
            structure.check_same_structure(outputs[0], other, "map_func")
    except TypeError:
        return first  # outputs of different structures: iterating will tell

    def leaf(spec, values):
        if composite.is_composite_spec(spec):
            return composite.relaxed(values)
        if not isinstance(spec, TensorSpec):
            return spec
        shapes = [np.shape(v) for v in values]
        if len({len(s) for s in shapes}) != 1:
            return TensorSpec(None, spec.dtype)
        dims = [None if len(set(sizes)) > 1 or all(d in u for d, u in zip(sizes, unknown))
                else sizes[0] for sizes in zip(*shapes)]
        return TensorSpec(dims, spec.dtype)

    return structure.pack_as(first, [leaf(spec, values) for spec, values in
                                     zip(structure.flatten(first), columns)])


def most_specific(first, second):
    """The specs of both: dimensions that differ become None."""
    def relax(a, b):
        if not isinstance(a, TensorSpec):
            return a
        if a.shape.rank is None or b.shape.rank is None or a.shape.rank != b.shape.rank:
            return TensorSpec(None, a.dtype)
        return TensorSpec([x if x == y else None for x, y in zip(a.shape, b.shape)], a.dtype)

    return structure.pack_as(first, [relax(a, b) for a, b in zip(structure.flatten(first),
                                                                  structure.flatten(second))])
