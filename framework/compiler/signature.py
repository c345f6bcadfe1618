"""signature.py turns a call's arguments into the key a traced function is
cached under, with TF's rules: tensors by shape and dtype, Python values by
value (and type), other objects by identity, nested lists, tuples and dicts by
structure; `input_signature` TensorSpecs (None dims) and `reduce_retracing`'s
relaxed shapes; and says what changed between two keys for the retrace
warning. function.py decides what to do with a key.
"""

import weakref

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, Variable, convert_to_tensor
from ..core.tensor_spec import TensorSpec

__all__ = [
    "call_key",
    "check_signature",
    "describe_change",
    "is_general",
    "leaf_key",
    "matches",
    "relax",
    "spec_of_key",
]


class _Identity:
    """An object in a key by identity, without keeping it alive (TF's weak refs)."""

    __slots__ = ("ident", "label", "ref")

    def __init__(self, value):
        self.ident = id(value)
        try:
            self.ref = weakref.ref(value)
        except TypeError:
            self.ref = lambda value=value: value
        self.label = f"{type(value).__name__} object at {id(value):#x}"

    def __eq__(self, other):
        return (type(other) is _Identity and other.ident == self.ident
                and self.ref() is not None and self.ref() is other.ref())

    def __hash__(self):
        return self.ident


def leaf_key(value):
    """The key of one argument leaf (tensors must already be Tensors)."""
    if type(value) is Tensor:
        return ("T", value._value.shape, value._value.dtype)
    if isinstance(value, Variable):
        return ("V", _Identity(value))
    if isinstance(value, TensorSpec):
        shape = None if value.shape.rank is None else tuple(value.shape.as_list())
        return ("T", shape, np.dtype(value.dtype.as_numpy_dtype))
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, tuple(leaf_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple((k, leaf_key(value[k])) for k in sorted(value)))
    if value is None or isinstance(value, (bool, int, float, complex, str, bytes)):
        return ("P", type(value), value)
    try:
        hash(value)
    except TypeError:
        return ("O", _Identity(value))
    if type(value).__eq__ is object.__eq__:
        return ("O", _Identity(value))
    return ("P", type(value), value)


def call_key(names, values):
    """The key of a whole call: one (name, leaf key) per bound argument."""
    return tuple((name, leaf_key(value)) for name, value in zip(names, values))


def _relax_leaf(a, b):
    if a[0] == "T" and b[0] == "T" and a[2] == b[2] and a[1] is not None and b[1] is not None \
            and len(a[1]) == len(b[1]):
        return ("T", tuple(x if x == y else None for x, y in zip(a[1], b[1])), a[2])
    if a[0] == b[0] and a[0] in ("list", "tuple") and len(a[1]) == len(b[1]):
        parts = [_relax_leaf(x, y) for x, y in zip(a[1], b[1])]
        return None if None in parts else (a[0], tuple(parts))
    return a if a == b else None


def relax(key, other):
    """The most specific key both match (differing dims None), or None: reduce_retracing."""
    if len(key) != len(other) or any(n != m for (n, _), (m, _) in zip(key, other)):
        return None
    parts = [_relax_leaf(a, b) for (_, a), (_, b) in zip(key, other)]
    return None if None in parts else tuple((n, p) for (n, _), p in zip(key, parts))


def _matches_leaf(general, leaf):
    if general[0] == "T" and leaf[0] == "T":
        if general[2] != leaf[2]:
            return False
        if general[1] is None:
            return True
        return leaf[1] is not None and len(general[1]) == len(leaf[1]) and all(
            g is None or g == d for g, d in zip(general[1], leaf[1]))
    if general[0] == leaf[0] and general[0] in ("list", "tuple"):
        return len(general[1]) == len(leaf[1]) and all(
            _matches_leaf(g, d) for g, d in zip(general[1], leaf[1]))
    return general == leaf


def matches(general, key):
    """Whether a call with `key` may run a function traced for `general`."""
    return len(general) == len(key) and all(
        n == m and _matches_leaf(g, k) for (n, g), (m, k) in zip(general, key))


def _describe(leaf):
    if leaf[0] == "T":
        shape = "unknown rank" if leaf[1] is None else str(tuple(leaf[1]))
        return f"{dtypes.as_dtype(leaf[2]).name} tensor of shape {shape}"
    if leaf[0] in ("V", "O"):
        return leaf[1].label
    if leaf[0] == "P":
        return repr(leaf[2])
    return f"{leaf[0]} of {len(leaf[1])}"


def describe_change(old, new):
    """'argument 'x': shape (32, 10) -> (17, 10)': what differs between two keys."""
    if old is None:
        return ""
    for (name, a), (_, b) in zip(old, new):
        if a == b:
            continue
        if a[0] == "T" and b[0] == "T" and a[2] == b[2]:
            return f"argument {name!r}: shape {a[1]} -> {b[1]}"
        if a[0] == "T" and b[0] == "T" and a[1] == b[1]:
            return (f"argument {name!r}: dtype {dtypes.as_dtype(a[2]).name} -> "
                    f"{dtypes.as_dtype(b[2]).name}")
        return f"argument {name!r}: {_describe(a)} -> {_describe(b)}"
    return "the number of arguments changed" if len(old) != len(new) else ""


def _general_leaf(leaf):
    if leaf[0] == "T":
        return leaf[1] is None or None in leaf[1]
    if leaf[0] in ("list", "tuple"):
        return any(_general_leaf(v) for v in leaf[1])
    if leaf[0] == "dict":
        return any(_general_leaf(v) for _, v in leaf[1])
    return False


def is_general(key):
    """Whether a key has None dims (so calls of other shapes match it)."""
    return any(_general_leaf(leaf) for _, leaf in key)


def spec_of_key(leaf):
    """The TensorSpec (or Python value) a leaf key stands for: structured_input_signature."""
    kind = leaf[0]
    if kind == "T":
        return TensorSpec(leaf[1], dtypes.as_dtype(leaf[2]))
    if kind == "V":
        return leaf[1].ref()
    if kind == "P":
        return leaf[2]
    if kind == "O":
        return leaf[1].ref()
    if kind == "dict":
        return {k: spec_of_key(v) for k, v in leaf[1]}
    items = [spec_of_key(v) for v in leaf[1]]
    return tuple(items) if kind == "tuple" else items


def check_signature(name, specs, values, error=TypeError):
    """Convert `values` to Tensors as `specs` (a TensorSpec per leaf) says;
    raise `error` naming the argument for a value the spec does not accept."""
    out = []
    for i, (spec, value) in enumerate(zip(specs, values)):
        if not isinstance(spec, TensorSpec):
            out.append(value)
            continue
        if isinstance(value, TensorSpec):
            compatible = value.dtype == spec.dtype and spec.is_compatible_with(value)
        else:
            if not isinstance(value, Tensor):
                try:
                    value = convert_to_tensor(value, dtype=spec.dtype)
                except (TypeError, ValueError, InvalidArgumentError):
                    raise error(f"{name}: argument {i} ({value!r}) cannot be converted to "
                                f"{spec}.") from None
            compatible = value.dtype == spec.dtype and spec.is_compatible_with(value)
        if not compatible:
            what = (f"{value.dtype.name} spec of shape {value.shape}" if isinstance(
                value, TensorSpec) else f"{value.dtype.name} tensor of shape "
                f"{tuple(value.shape)}")
            raise error(f"Binding inputs to tf.function `{name}` failed: argument {i} is a "
                        f"{what}, which the input_signature {spec} does not accept.")
        out.append(value)
    return out
