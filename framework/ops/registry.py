"""registry.py defines what an op is: a forward function on ndarrays plus one
VJP per input, written with tapeflow ops. Calling an op runs the forward and,
when a recording tape tracks one of its inputs, leaves one small record on
that tape. The recording stack is core/record.py's, the backward walk autodiff/tape.py's."""

import functools

from ..core import record as _record
from ..core.errors import InvalidArgumentError, UnimplementedError
from ..core.string_values import OBJECT as _OBJECT
from ..core.string_values import bytes_scalar
from ..core.tensor import Tensor, Variable

__all__ = ["Op", "defop", "all_ops", "NON_DIFFERENTIABLE", "STRING_OPS"]

_REGISTRY = {}

# Ops whose outputs carry no gradient (TF registers them with no gradient or a
# zero one). Their results are never recorded, so gradients through them are None.
NON_DIFFERENTIABLE = set()

# Ops that take string tensors (TF has string kernels for them): moving,
# picking and joining elements, and `add`, which concatenates strings as TF's
# Add does. Any other op raises InvalidArgumentError on a string input: NumPy's
# TypeError is turned into it at no cost to numbers (see Op.__call__), and the
# ops in _SILENT_ON_STRINGS, whose NumPy forward would compute something from
# strings (max of bytes, sum as concatenation), check their inputs first.
STRING_OPS = frozenset({"add", "getitem", "gather", "concat", "reshape", "transpose",
                        "broadcast_to", "identity", "stop_gradient", "select", "unbroadcast"})
_SILENT_ON_STRINGS = frozenset({"maximum", "minimum", "reduce_max", "reduce_min",
                                "reduce_sum", "cumsum", "cast", "real", "imag"})


_new_tensor = object.__new__


class Op:
    """One primitive: `forward(*arrays, **attrs) -> ndarray` and its VJPs.

    `vjps[i](g, out, *inputs, **attrs)` returns the gradient for input i (or
    None), given the upstream gradient `g` and the forward output `out`, all as
    Tensors. A VJP may receive a `g` with extra leading dimensions (a batch of
    cotangents, used by `jacobian`): it must treat `g.ndim - out.ndim` leading
    axes as batch axes.

    Flags:
        broadcasting: the op broadcasts its inputs, so the engine sums each
            input's gradient back to that input's shape.
        view: the forward may return a view of its input; a view of a Variable
            is copied so that later assignments do not change the result.
    """

    __slots__ = ("name", "forward", "vjps", "joint", "broadcasting", "view", "differentiable")

    def __init__(self, forward, name, broadcasting, view, differentiable):
        self.name = name
        self.forward = forward
        self.vjps = None
        self.joint = False
        self.broadcasting = broadcasting
        self.view = view
        self.differentiable = differentiable

    def defvjp(self, *vjps):
        """Register one VJP per input; usable as a decorator for one-input ops."""
        self.vjps = vjps
        return vjps[0] if len(vjps) == 1 else vjps

    def defvjp_joint(self, vjp):
        """One VJP for all inputs, for ops whose input gradients share work.

        `vjp(g, out, needed, *inputs, **attrs)` returns one gradient (or None)
        per input; `needed[i]` says whether input i's gradient is wanted. As
        TF's gradient functions, which return every input's gradient at once.
        """
        self.vjps = vjp
        self.joint = True
        return vjp

    def defvjp_variadic(self, vjp):
        """For ops with any number of inputs: `vjp(j, g, out, *inputs, **attrs)`."""
        self.vjps = _EachInput(vjp)
        return vjp

    def __call__(self, *inputs, **attrs):
        try:  # free unless raised: 3.11's exceptions cost nothing on the way through
            if len(inputs) == 2:
                out = self.forward(inputs[0]._value, inputs[1]._value, **attrs)
            elif len(inputs) == 1:
                out = self.forward(inputs[0]._value, **attrs)
            else:
                out = self.forward(*[t._value for t in inputs], **attrs)
        except (TypeError, ValueError):
            if self.name not in STRING_OPS and any(t._value.dtype is _OBJECT for t in inputs):
                raise _no_string_kernel(self, inputs) from None
            raise
        if type(out) is bytes:  # NumPy hands back the bare element of a rank-0 string
            out = bytes_scalar(out)
        if self.view and any(type(t) is Variable for t in inputs) and out.base is not None:
            out = out.copy()
        result = _new_tensor(Tensor)  # no __init__ frame: this runs for every op
        result._value = out
        if _record._recording:
            if self.differentiable:
                _record.record(self, inputs, result, attrs)
            else:  # a path cut here, for GradientTape.explain
                _record.note_cut(self, inputs, result)
        return result

    def __repr__(self):
        return f"<op {self.name}>"


def _no_string_kernel(op, inputs):
    dtypes = ", ".join(t.dtype.name for t in inputs)
    return InvalidArgumentError(
        f"Value for attr 'T' of string is not in the list of allowed values: op {op.name!r} "
        f"has no kernel for strings (inputs: {dtypes}); tf.strings has the text ops "
        f"[Op:{op.name}]")


class _EachInput:
    """The VJPs of a variadic op: `vjps[j]` is `vjp` with the input index bound."""

    __slots__ = ("vjp",)

    def __init__(self, vjp):
        self.vjp = vjp

    def __getitem__(self, j):
        return functools.partial(self.vjp, j)


def defop(forward=None, *, name=None, broadcasting=False, view=False, differentiable=True):
    """Register `forward` as an op; attach its VJPs with `op.defvjp`.

    Used bare (`@defop`) or with flags (`@defop(broadcasting=True)`).
    """
    def register(fn):
        op_name = name or fn.__name__
        if op_name in _REGISTRY:
            raise ValueError(f"An op named {op_name!r} is already registered.")
        forward = _numbers_only(fn, op_name) if op_name in _SILENT_ON_STRINGS else fn
        op = Op(forward, op_name, broadcasting, view, differentiable)
        if not differentiable:
            NON_DIFFERENTIABLE.add(op_name)
        _REGISTRY[op_name] = op
        return op

    return register if forward is None else register(forward)


def _numbers_only(forward, name):
    """`forward` refusing string inputs, and casts between strings and numbers (TF's
    Cast has no such kernel; tf.strings.to_number and as_string convert text)."""
    @functools.wraps(forward)
    def checked(*arrays, **attrs):
        if any(a.dtype is _OBJECT for a in arrays):
            if name != "cast":
                raise InvalidArgumentError(
                    f"Value for attr 'T' of string is not in the list of allowed values: op "
                    f"{name!r} has no kernel for strings [Op:{name}]")
            if attrs["dtype"] != _OBJECT:
                raise UnimplementedError(f"Cast string to {_dtype_name(attrs['dtype'])} is not "
                                         "supported; tf.strings.to_number parses text [Op:Cast]")
        elif name == "cast" and attrs.get("dtype") is _OBJECT:
            raise UnimplementedError(f"Cast {_dtype_name(arrays[0].dtype)} to string is not "
                                     "supported; tf.strings.as_string formats numbers [Op:Cast]")
        return forward(*arrays, **attrs)

    return checked


def _dtype_name(np_dtype):
    return "float" if np_dtype == "float32" else "double" if np_dtype == "float64" else \
        str(np_dtype)


def all_ops():
    """Every registered op by name (the test suite checks each has a gradcheck)."""
    return dict(_REGISTRY)
