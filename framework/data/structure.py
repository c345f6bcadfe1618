"""structure.py holds what tf.data knows about an element: its nesting (tuples,
namedtuples and dicts are structure; a Python list is one component, converted
to a tensor, as TF's tf.data nest), the conversion of components to the NumPy
values pipelines pass along, their `TensorSpec`s and `DatasetSpec`."""

import contextlib
import logging
import threading

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, TensorShape, convert_to_tensor
from ..core.tensor_spec import TensorSpec
from . import composite

__all__ = ["AUTOTUNE", "INFINITE", "UNKNOWN", "DatasetSpec", "call_unpacked", "check_same_structure", "flatten", "function_output", "map_structure", "pack_as", "row", "scalar_bool", "spec_of", "stack", "to_component", "to_components", "to_numpy", "to_tensors", "unknown_sizes"]

AUTOTUNE = -1
INFINITE = -1   # tf.data.INFINITE_CARDINALITY
UNKNOWN = -2    # tf.data.UNKNOWN_CARDINALITY


def _is_structure(value):
    return isinstance(value, (tuple, dict))


def flatten(element):
    """The components of `element`, depth first, dict values in sorted key order."""
    if not _is_structure(element):
        return [element]
    if type(element) is tuple and not any(isinstance(v, (tuple, dict)) for v in element):
        return list(element)
    items = [element[k] for k in sorted(element)] if isinstance(element, dict) else element
    return [leaf for item in items for leaf in flatten(item)]


def pack_as(structure, leaves):
    """`structure` rebuilt with the components taken in order from `leaves`."""
    leaves = iter(leaves)
    built = _build(structure, leaves)
    if next(leaves, _END) is not _END:
        raise ValueError(f"More components than the structure {structure!r} holds.")
    return built


_END = object()


def _build(item, leaves):
    if isinstance(item, dict):
        built = {k: _build(item[k], leaves) for k in sorted(item)}
        return type(item)((k, built[k]) for k in item)
    if isinstance(item, tuple):
        values = [_build(v, leaves) for v in item]
        return type(item)(*values) if hasattr(item, "_fields") else tuple(values)
    return next(leaves)


def map_structure(fn, element):
    if not isinstance(element, _STRUCTURES):
        return fn(element)
    if type(element) is tuple:
        for v in element:
            if isinstance(v, _STRUCTURES):
                break
        else:  # the common flat (features, label): no rebuild
            return tuple([fn(v) for v in element])
    return pack_as(element, [fn(leaf) for leaf in flatten(element)])


_STRUCTURES = (tuple, dict)


def check_same_structure(expected, got, what):
    """Raise TypeError naming both structures when `got` is not nested like `expected`."""
    def shape(value):
        if isinstance(value, dict):
            return {k: shape(value[k]) for k in sorted(value)}
        if isinstance(value, tuple):
            return tuple(shape(v) for v in value)
        return "."

    if shape(expected) != shape(got):
        raise TypeError(f"{what}: the structures differ: expected {_skeleton(expected)}, "
                        f"got {_skeleton(got)}.")


def _skeleton(value):
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_skeleton(value[k])}" for k in sorted(value)) + "}"
    if isinstance(value, tuple):
        return "(" + ", ".join(_skeleton(v) for v in value) + ("," if len(value) == 1 else "") \
            + ")"
    return "component"


def to_component(value):
    """One component as the NumPy value a pipeline carries (a Tensor's `_value`).

    Python numbers and lists convert as TF converts them (ints to int32, floats
    to float32); NumPy arrays keep their dtype, text becomes tf.string's object
    arrays of bytes. A Dataset stays a Dataset.
    """
    if type(value) is Tensor:
        return value._value
    if isinstance(value, Tensor):
        return convert_to_tensor(value)._value  # a Variable is read
    if isinstance(value, (np.ndarray, np.generic)) and value.dtype.kind not in "OSU":
        return value
    if hasattr(value, "_iterate") or composite.is_composite(value):
        return value
    if hasattr(value, "__array__") and not isinstance(value, (list, tuple, Tensor, np.ndarray,
                                                              np.generic)):
        return to_component(np.asarray(value))  # a pandas Series keeps its dtype, as in TF
    if value is None:
        raise TypeError("A dataset component cannot be None: give a tensor, a NumPy array or "
                        "a Python number or list.")
    return convert_to_tensor(value)._value


def to_components(element):
    return map_structure(to_component, element)


def row(array, i):
    """`array[i]` as a component: a string scalar stays a 0-d object array, the
    form string Tensors hold (NumPy would give the bare bytes); a RaggedTensor's
    or SparseTensor's row is composite.row's."""
    if composite.is_composite(array):
        return composite.row(array, i)
    value = array[i]
    if isinstance(value, bytes):
        return np.array(value, dtype=object)
    return value


def _tensor(value):
    return value if hasattr(value, "_iterate") or composite.is_composite(value) else \
        Tensor(value)


def to_tensors(element):
    """An element as Tensors, as iterating a TF dataset gives it."""
    return map_structure(_tensor, element)


def _numpy(value):
    if hasattr(value, "_iterate"):
        raise TypeError("Dataset.as_numpy_iterator() is not supported for datasets that produce "
                        "values of type DatasetSpec (such as the windows of `window`): iterate "
                        "the dataset itself.")
    if composite.is_composite(value):
        return value  # TF gives RaggedTensorValue / SparseTensorValue objects
    if value.dtype.kind in "OSU":
        return Tensor(value).numpy()
    return value


def to_numpy(element):
    """An element as NumPy values (strings as bytes), as `as_numpy_iterator` gives it."""
    return map_structure(_numpy, element)


class DatasetSpec:
    """The spec of a component that is itself a dataset (`window` makes them), as
    `tf.data.DatasetSpec(element_spec, dataset_shape=())`."""

    __slots__ = ("_dataset_shape", "_element_spec")

    def __init__(self, element_spec, dataset_shape=()):
        self._element_spec = element_spec
        self._dataset_shape = TensorShape(dataset_shape)

    @property
    def element_spec(self):
        return self._element_spec

    @property
    def shape(self):
        return self._dataset_shape

    def __eq__(self, other):
        return isinstance(other, DatasetSpec) and other._element_spec == self._element_spec

    def __hash__(self):
        return hash(repr(self))

    def __repr__(self):
        return f"DatasetSpec({self._element_spec!r}, {self._dataset_shape!r})"


def _dtype_of(value):
    return dtypes.as_dtype(dtypes.string if value.dtype.kind in "OSU" else value.dtype)


def spec_of(element, unknown_sizes=()):
    """The TensorSpec structure of one element; dimensions whose size is in
    `unknown_sizes` are reported as None (see Dataset.map)."""
    def leaf_spec(value):
        if hasattr(value, "_iterate"):
            return DatasetSpec(value.element_spec)
        if composite.is_composite(value):
            return composite.spec_of(value)
        shape = [None if d in unknown_sizes else d for d in np.shape(value)]
        return TensorSpec(shape, _dtype_of(value))

    return map_structure(leaf_spec, element)


def unknown_sizes(spec, element):
    """The sizes `element` has where `spec` leaves a dimension unknown."""
    sizes = set()
    for leaf_spec, value in zip(flatten(spec), flatten(element)):
        shape = getattr(leaf_spec, "shape", None)
        if shape is None or shape.rank is None:
            sizes.update(np.shape(value))
            continue
        sizes.update(d for d, s in zip(np.shape(value), shape) if s is None)
    return sizes


_IGNORING = threading.local()   # set while an ignore_errors pulls from its input
SKIP = object()                 # what `skipped` returns for an element whose error is ignored


def skipped(fn, *args):
    """`fn(*args)`, or SKIP if it raises while a `Dataset.ignore_errors` downstream
    is pulling (TF drops such elements); the error propagates otherwise."""
    try:
        return fn(*args)
    except Exception as error:
        if not getattr(_IGNORING, "depth", 0):
            raise
        if _IGNORING.log:
            logging.getLogger("tapeflow").warning("Dataset.ignore_errors dropped an element: "
                                                  "%s: %s", type(error).__name__, error)
        return SKIP


@contextlib.contextmanager
def errors_ignored(log_warning):
    """The scope in which `skipped` drops elements instead of raising."""
    outer = getattr(_IGNORING, "depth", 0), getattr(_IGNORING, "log", False)
    _IGNORING.depth, _IGNORING.log = outer[0] + 1, log_warning
    try:
        yield
    finally:
        _IGNORING.depth, _IGNORING.log = outer


def call_unpacked(func, element):
    """Call a user function on an element as TF does: a tuple is unpacked into
    positional arguments, anything else (a dict, a namedtuple) is one argument."""
    tensors = to_tensors(element)
    return func(*tensors) if type(tensors) is tuple else func(tensors)


def function_output(value, what):
    """A user function's result as components: a list becomes a tuple, as TF's
    `_should_pack` does (tf.data would otherwise stack it into one tensor)."""
    if isinstance(value, list):
        value = tuple(value)
    try:
        return to_components(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"{what} must return a tensor or a (nested) tuple or dict of tensors; "
                        f"it returned {value!r} ({error})") from None


def scalar_bool(value, what):
    """The Python bool of a predicate's result, which must be a scalar tf.bool."""
    array = to_component(value) if not isinstance(value, bool) else np.bool_(value)
    if getattr(array, "dtype", None) != np.bool_ or np.ndim(array) != 0:
        spec = spec_of(array) if hasattr(array, "dtype") else type(value).__name__
        raise ValueError(f"Invalid `predicate`. `predicate` passed to {what} must return a "
                         f"`tf.bool` scalar tensor, but its return type is {spec}.")
    return bool(array)


def stack(elements, what="batch", spec=None, ragged=False):
    """Stack equal-shaped elements along a new first axis, or raise TF's error.

    Components whose `spec` is ragged or sparse (or that are RaggedTensors or
    SparseTensors) batch into one of those; with `ragged`, dense components of
    different shapes batch into a RaggedTensor (dense_to_ragged_batch)."""
    first = flatten(elements[0])
    specs = [None] * len(first) if spec is None else flatten(spec)
    columns = list(zip(*[flatten(e) for e in elements]))
    stacked = []
    for i, (column, leaf_spec) in enumerate(zip(columns, specs)):
        leaf = column[0]
        if hasattr(leaf, "_iterate"):
            raise TypeError(f"Cannot {what} elements holding datasets; flat_map them first.")
        if ragged and isinstance(leaf_spec, TensorSpec) or composite.is_composite(leaf) or \
                composite.is_composite_spec(leaf_spec):
            stacked.append(composite.stack(column, leaf_spec if leaf_spec is not None else
                                           spec_of(leaf)))
            continue
        try:
            stacked.append(np.stack(column))
        except ValueError:  # shapes differ: name the first that does, as TF
            j = next(j for j, v in enumerate(column) if np.shape(v) != np.shape(leaf))
            raise InvalidArgumentError(
                f"Cannot {what} tensors with different shapes in component {i}. First element "
                f"had shape {list(np.shape(leaf))} and element {j} had shape "
                f"{list(np.shape(column[j]))}.") from None
    return pack_as(elements[0], stacked)
