"""signature.py turns a call's arguments into the key a traced function is
cached under, with TF's rules: tensors by shape and dtype, Python values by
value (and type), other objects by identity, nested lists, tuples and dicts by
structure; `input_signature` TensorSpecs (None dims) and `reduce_retracing`'s
relaxed shapes; and says what changed between two keys for the retrace
warning. function.py decides what to do with a key.
"""

import inspect
import weakref

import numpy as np

from ..core import dtypes, nest
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, Variable, convert_to_tensor
from ..core.tensor_spec import TensorSpec
from .trace_type import PlaceholderContext, TraceType, TracingContext

__all__ = [
    "UNTRACED",
    "as_argument",
    "bind",
    "call_key",
    "check_signature",
    "describe_change",
    "fast_key",
    "fill_key",
    "function_type",
    "is_general",
    "leaf_key",
    "matches",
    "mismatch",
    "placeholders",
    "relax",
    "spec_of_key",
    "tensor_count",
    "tensor_names",
    "trace_type_text",
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
    if hasattr(type(value), "__tf_tracing_type__"):
        return ("X", _trace_type_of(value))
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


class _CallContext(TracingContext):
    """What `__tf_tracing_type__(context)` is given."""


def _trace_type_of(value):
    """The TraceType `value.__tf_tracing_type__` gives, checked as TF checks it.

    Raises:
        TypeError: if it is not a TraceType, or is not hashable.
    """
    generated = value.__tf_tracing_type__(_CallContext())
    if not isinstance(generated, TraceType):
        raise TypeError(f"Expected an instance of TraceType for Tracing Protocol call to "
                        f"{value!r} but got {generated!r}.")
    try:
        hash(generated)
    except TypeError:
        raise TypeError(f"The TraceType {type(generated).__name__} given by "
                        f"{type(value).__name__}.__tf_tracing_type__ is not hashable: define "
                        "__hash__ beside __eq__.") from None
    return generated


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
    if a[0] == "X" and b[0] == "X" and a != b:
        common = a[1].most_specific_common_supertype([b[1]])
        return None if common is None else ("X", common)
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
    if general[0] == "X" and leaf[0] == "X":
        return general[1] == leaf[1] or bool(leaf[1].is_subtype_of(general[1]))
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
    if leaf[0] == "X":
        return repr(leaf[1])
    return f"{leaf[0]} of {len(leaf[1])}"


def describe_change(old, new):
    """"argument 'x': shape (32, 10) -> (17, 10)": what differs between two keys,
    down to the leaf of a nested argument ("argument 'data'[1]: dtype int32 -> int64")."""
    if old is None:
        return ""
    for (name, a), (_, b) in zip(old, new):
        if a != b:
            return _leaf_change(f"argument {name!r}", a, b)
    return "the number of arguments changed" if len(old) != len(new) else ""


def _leaf_change(path, a, b):
    if a[0] == "T" and b[0] == "T" and a[2] == b[2]:
        return f"{path}: shape {a[1]} -> {b[1]}"
    if a[0] == "T" and b[0] == "T" and a[1] == b[1]:
        return f"{path}: dtype {dtypes.as_dtype(a[2]).name} -> {dtypes.as_dtype(b[2]).name}"
    if a[0] == b[0] and a[0] in ("list", "tuple", "dict") and len(a[1]) == len(b[1]) and (
            a[0] != "dict" or [k for k, _ in a[1]] == [k for k, _ in b[1]]):
        for i, (x, y) in enumerate(zip(a[1], b[1])):
            if x != y:
                if a[0] == "dict":
                    return _leaf_change(f"{path}[{x[0]!r}]", x[1], y[1])
                return _leaf_change(f"{path}[{i}]", x, y)
    return f"{path}: {_describe(a)} -> {_describe(b)}"


def _general_leaf(leaf):
    if leaf[0] == "T":
        return leaf[1] is None or None in leaf[1]
    if leaf[0] == "X":  # a call's type may be a subtype of it (TF's dispatch)
        return True
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
    if kind == "X":
        return leaf[1]
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


def trace_type_text(leaf):
    """TF's text for one argument's trace type: a TensorSpec, `Literal[2]`,
    `List[Literal[1], Literal[-1]]`, ... (what pretty_printed_signature shows)."""
    kind = leaf[0]
    if kind == "T":
        return str(spec_of_key(leaf))
    if kind == "P":
        return f"Literal[{leaf[2]}]"
    if kind in ("list", "tuple"):
        name = "List" if kind == "list" else "Tuple"
        return f"{name}[{', '.join(trace_type_text(v) for v in leaf[1])}]"
    if kind == "dict":
        return "Dict[" + ", ".join(f"[{k!r}, {trace_type_text(v)}]" for k, v in leaf[1]) + "]"
    return repr(leaf[1]) if kind == "X" else leaf[1].label


class FunctionType:
    """A concrete function's signature as TF's FunctionType prints it: str() is
    `(a: TensorSpec(...)) -> TensorSpec(...)`, repr() the verbose form
    pretty_printed_signature gives (parameters, output, captured Variables)."""

    def __init__(self, parameters, output, captures):
        self.parameters = parameters  # [(name, kind name, type text)]
        self.output = output  # the output's text
        self.captures = captures  # [(id, type text)]

    def __str__(self):
        inside = ", ".join(f"{name}: {text}" for name, _, text in self.parameters)
        return f"({inside}) -> {self.output}"

    def __repr__(self):
        lines = ["Input Parameters:"]
        lines += [f"  {name} ({kind}): {text}" for name, kind, text in self.parameters]
        lines += ["Output Type:", f"  {self.output}", "Captures:"]
        lines += [f"  {ident}: {text}" for ident, text in self.captures] or ["  None"]
        return "\n".join(lines)


def function_type(key, kinds, outputs, variables):
    """The FunctionType of a traced signature: its key, each parameter's kind
    (inspect's, by name), the output specs (TensorSpecs in a structure) and the
    Variables its graph reads (TF's captures; tensors captured by value are
    constants in tapeflow's graph and not listed): `variables` as Graph.variables.
    Where it differs from TF: the output specs are those of the first call's
    result, so a signature with None dims shows that call's output shape (TF
    infers the shape symbolically, with None where it may vary)."""
    parameters = [(name, str(kinds.get(name, "POSITIONAL_OR_KEYWORD")), trace_type_text(leaf))
                  for name, leaf in key]
    captures = [(id(v), "TensorSpec(shape=(), dtype=tf.resource, name=None)")
                for _, v in variables]
    return FunctionType(parameters, _output_text(outputs), captures)


UNTRACED = "Unknown (traced at its first call)"  # the output of a TensorSpec signature not yet called


def _output_text(outputs):
    if outputs is UNTRACED:
        return outputs
    if isinstance(outputs, (list, tuple)):
        name = "List" if isinstance(outputs, list) else "Tuple"
        return f"{name}[{', '.join(_output_text(o) for o in outputs)}]"
    if isinstance(outputs, dict):
        return "Dict[" + ", ".join(f"[{k!r}, {_output_text(v)}]"
                                   for k, v in sorted(outputs.items())) + "]"
    return str(outputs) if isinstance(outputs, TensorSpec) else f"Literal[{outputs}]"


def fill_key(key, tensors):
    """The arguments a key stands for, its tensor leaves taken from `tensors` in
    order and its Python values those it was traced with (a concrete function
    called with its flat signature: the tensors only, as TF allows)."""
    tensors = iter(tensors)

    def fill(leaf):
        kind = leaf[0]
        if kind == "T":
            return next(tensors)
        if kind in ("list", "tuple"):
            items = [fill(v) for v in leaf[1]]
            return items if kind == "list" else tuple(items)
        if kind == "dict":
            return {k: fill(v) for k, v in leaf[1]}
        if kind == "X":
            return leaf[1].placeholder_value(PlaceholderContext())
        return leaf[2] if kind == "P" else leaf[1].ref()

    return [fill(leaf) for _, leaf in key]


def placeholders(key, values):
    """`values` with each argument that has a TraceType in `key` replaced by the
    type's `placeholder_value`: what the function is traced with, as in TF."""
    def fill(leaf, value):
        kind = leaf[0]
        if kind == "X":
            return leaf[1].placeholder_value(PlaceholderContext())
        if kind in ("list", "tuple") and isinstance(value, (list, tuple)) and len(value) == len(
                leaf[1]) and _has_trace_type(leaf):
            items = [fill(v, x) for v, x in zip(leaf[1], value)]
            return type(value)(*items) if hasattr(value, "_fields") else type(value)(items)
        if kind == "dict" and isinstance(value, dict) and _has_trace_type(leaf):
            types = dict(leaf[1])
            return type(value)({k: fill(types[k], v) for k, v in value.items()})
        return value

    return [fill(leaf, value) for (_, leaf), value in zip(key, values)]


def _has_trace_type(leaf):
    if leaf[0] == "X":
        return True
    if leaf[0] in ("list", "tuple"):
        return any(_has_trace_type(v) for v in leaf[1])
    return leaf[0] == "dict" and any(_has_trace_type(v) for _, v in leaf[1])


def tensor_count(key):
    """How many tensor leaves a key has (the length of its flat signature)."""
    def count(leaf):
        if leaf[0] == "T":
            return 1
        if leaf[0] in ("list", "tuple"):
            return sum(count(v) for v in leaf[1])
        return sum(count(v) for _, v in leaf[1]) if leaf[0] == "dict" else 0
    return sum(count(leaf) for _, leaf in key)


def tensor_names(key):
    """The name of each tensor leaf, as TF names a graph's placeholders (`x`,
    then `x_1`, ... for the leaves of a nested argument)."""
    names = []
    for name, leaf in key:
        for i in range(tensor_count(((name, leaf),))):
            names.append(name if i == 0 else f"{name}_{i}")
    return names


def fast_key(args):
    """(shape, dtype) per positional argument when all are Tensors, else None:
    the key of function.py's fast path."""
    try:
        key = tuple((a._value.shape, a._value.dtype) for a in args if type(a) is Tensor)
    except AttributeError:
        return None
    return key if len(key) == len(args) else None


def as_argument(value):
    return convert_to_tensor(value) if isinstance(value, np.ndarray) else value


def bind(name, parameters, input_signature, args, kwargs):
    """A call's parameter names and values, defaults filled in, ndarrays as
    Tensors, checked against input_signature (`parameters`: inspect's, or None).

    Raises:
        TypeError: for arguments the function or its input_signature refuses.
    """
    if parameters is None:
        names = [f"arg{i}" for i in range(len(args))] + sorted(kwargs)
        values = list(args) + [kwargs[k] for k in sorted(kwargs)]
    else:
        try:
            bound = inspect.Signature(parameters.values()).bind(*args, **kwargs)
        except TypeError as e:
            raise TypeError(f"{name}(): {e}") from None
        bound.apply_defaults()
        names, values = list(bound.arguments), list(bound.arguments.values())
    values = [nest.map_structure(as_argument, v) for v in values]
    if input_signature is not None:
        if len(values) < len(input_signature):
            raise TypeError(f"{name}: the input_signature has {len(input_signature)} entries "
                            f"but only {len(values)} arguments were given.")
        if len(args) > len(input_signature):
            raise TypeError(f"{name}: called with {len(args)} positional arguments but its "
                            f"input_signature has {len(input_signature)}.")
        for i, spec in enumerate(input_signature):
            checked = check_signature(name, nest.flatten(spec), nest.flatten(values[i]))
            values[i] = nest.pack_sequence_as(spec, checked) if nest.is_nested(
                spec) else checked[0]
    return names, values


def mismatch(what, general, key):
    """The error for a call whose `key` does not match the signature `general`:
    InvalidArgumentError for a tensor of another dtype or shape, else TypeError."""
    for (name, want), (_, got) in zip(general, key):
        if not matches(((name, want),), ((name, got),)):
            error = InvalidArgumentError if want[0] == "T" and got[0] == "T" else TypeError
            return error(f"{what}: argument {name!r} is a {_describe(got)}, but this "
                         f"function was traced for a {_describe(want)}.")
    return TypeError(f"{what}: the arguments do not match its signature.")
