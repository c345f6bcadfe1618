"""custom_gradient.py: `tf.custom_gradient` and `tf.recompute_grad`. A decorated
call runs the user's function as usual, then leaves one op-like record on the
tapes that track its inputs (or the Variables it read), whose VJP calls the
user's `grad_fn`; tape.py's walk treats it as any op, so a `grad_fn` written
with tapeflow ops is recorded by outer tapes (higher order). It knows nothing
about layers."""

import functools
import inspect

import numpy as np

from ..core import nest
from ..core import record as _record
from ..core.tensor import Tensor, Variable, convert_to_tensor
from ..ops import shape as _shape_ops
from ..ops.math import cast, identity
from ..ops.registry import Op
from .tape import GradientTape, UnconnectedGradients

__all__ = ["custom_gradient", "recompute_grad"]


def custom_gradient(f=None):
    """Decorator: a function with a custom gradient, as `tf.custom_gradient`.

    `f(*x)` returns `(y, grad_fn)`: `y` a Tensor or nested structure of
    Tensors, `grad_fn(*upstream)` the input gradients (one per Tensor in the
    flattened `x`, None for none) given one upstream gradient per flattened
    output. If `f` reads Variables that are not among its arguments,
    `grad_fn(*upstream, variables=None)` receives them and returns the pair
    `(input_grads, variable_grads)`.

    Args:
        f: the function; `custom_gradient()` with no argument returns the decorator.

    Returns:
        A function computing `f(*x)[0]` whose gradient is given by `grad_fn`.

    Raises:
        TypeError: when the call is made, if `f` does not return `(y, grad_fn)`,
            or reads Variables while `grad_fn` takes no `variables` argument.
        ValueError: when the gradient is taken, if `grad_fn` returns a wrong
            number of gradients or a gradient of the wrong shape.

    >>> @tf.custom_gradient
    ... def log1pexp(x):
    ...     e = tf.exp(x)
    ...     def grad(upstream):
    ...         return upstream * (1 - 1 / (1 + e))
    ...     return tf.math.log(1 + e), grad
    """
    if f is None:
        return custom_gradient
    return _Decorated(f, pause_forward=False)


def recompute_grad(f):
    """A function computing `f` whose activations are not kept for the backward
    pass, as `tf.recompute_grad`: the forward runs without recording, and the
    gradient runs `f` again under a tape. Gradients equal those of `f`,
    Variables read by `f` included.

    Args:
        f: a function of Tensors returning a Tensor or nested structure of them.

    Returns:
        A function with the same values and gradients as `f`.
    """
    def pair(*args, **kwargs):
        result = f(*args, **kwargs)

        def grad(*upstream, variables=None):
            flat = nest.flatten(args)
            ids = [identity(a) if _differentiable(a) else a for a in flat]
            sources = [t for t in ids if isinstance(t, Tensor)] + list(variables or ())
            with GradientTape() as tape:
                tape.watch(sources)
                recomputed = f(*nest.pack_sequence_as(args, ids), **kwargs)
            grads = tape.gradient(recomputed, sources, output_gradients=list(upstream),
                                  unconnected_gradients=UnconnectedGradients.ZERO)
            found = iter(grads)
            input_grads = [next(found) if isinstance(t, Tensor) else None for t in ids]
            return input_grads, list(found)

        return result, grad

    pair.__name__ = getattr(f, "__name__", type(f).__name__)
    decorated = _Decorated(pair, pause_forward=True)

    def wrapper(*args, **kwargs):
        return decorated(*args, **kwargs)

    return functools.update_wrapper(wrapper, f, updated=())


class _Decorated:
    """The decorated function; binds like a function, so methods work (TF's Bind)."""

    def __init__(self, f, pause_forward):
        self._f = f
        self._pause_forward = pause_forward
        functools.update_wrapper(self, f, updated=())

    def __get__(self, instance, owner):
        if instance is None:
            return self
        return _Decorated(self._f.__get__(instance, owner), self._pause_forward)

    def __call__(self, *args, **kwargs):
        return _call(self._f, args, kwargs, self._pause_forward)


def _differentiable(value):
    return isinstance(value, Tensor) and value._value.dtype.kind in "fc"


def _accepts_variables(fn):
    try:
        spec = inspect.getfullargspec(fn)
    except TypeError:
        return True  # a builtin or C callable: let the call itself decide
    return "variables" in spec.args or "variables" in spec.kwonlyargs or bool(spec.varkw)


def _as_input(value, name, index):
    if isinstance(value, Tensor):
        return value
    try:
        return convert_to_tensor(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"@tf.custom_gradient: argument {index} of {name} (flattened) is "
                        f"{type(value).__name__} {value!r}, which is not a Tensor and cannot "
                        f"be converted to one: {error}") from None


def _as_output(value, name):
    if type(value) is Variable:
        return Tensor(value._value.copy())  # a snapshot: the Variable may be assigned later
    if isinstance(value, Tensor):
        return Tensor(value._value)  # a new node: the record's output must not be an input
    try:
        return convert_to_tensor(value)
    except (TypeError, ValueError) as error:
        raise TypeError(f"@tf.custom_gradient: {name} returned {type(value).__name__} "
                        f"{value!r} among its outputs, which is not a Tensor: {error}") from None


def _run_forward(f, args, kwargs, name):
    watcher = GradientTape()  # TF's VariableWatcher: which Variables does f read?
    with watcher:
        returned = f(*args, **kwargs)
    if not (isinstance(returned, (tuple, list)) and len(returned) == 2
            and callable(returned[1])):
        raise TypeError(f"@tf.custom_gradient: {name} must return a pair (y, grad_fn) with "
                        f"grad_fn callable; it returned {type(returned).__name__}.")
    return returned[0], returned[1], watcher.watched_variables()


def _call(f, args, kwargs, pause_forward):
    name = getattr(f, "__name__", type(f).__name__)
    flat_args = nest.flatten(args)
    inputs = [_as_input(a, name, i) for i, a in enumerate(flat_args)]
    if pause_forward:
        with _record.paused():
            result, grad_fn, watched = _run_forward(f, args, kwargs, name)
    else:
        result, grad_fn, watched = _run_forward(f, args, kwargs, name)
    given = {id(a) for a in flat_args + nest.flatten(kwargs)}
    variables = [v for v in watched if id(v) not in given]
    if variables and not _accepts_variables(grad_fn):
        raise TypeError("@tf.custom_gradient grad_fn must accept keyword argument "
                        f"'variables', since function uses variables: {variables}")
    outs = [_as_output(y, name) for y in nest.flatten(result)]
    diff = [i for i, y in enumerate(outs) if y._value.dtype.kind in "fc"]
    record_inputs = inputs + variables
    if diff and record_inputs and _record._recording:
        _record_call(name, grad_fn, variables, inputs, record_inputs, outs, diff)
    return nest.pack_sequence_as(result, outs)


def _record_call(name, grad_fn, variables, inputs, record_inputs, outs, diff):
    """Replace the differentiable outputs by the outputs of a one-off op over the
    inputs and Variables. Several outputs are packed into one flat value (the op
    has one output, as every op), then sliced out with recorded ops."""
    shapes = [outs[i]._value.shape for i in diff]
    dtypes = [outs[i]._value.dtype for i in diff]
    if len(diff) == 1:
        packed_value = outs[diff[0]]._value
    else:
        common = np.result_type(*dtypes)
        packed_value = np.concatenate([outs[i]._value.astype(common, copy=False).reshape(-1)
                                       for i in diff])
    op = Op(lambda *arrays: packed_value, name, False, False, True)
    op.defvjp_joint(functools.partial(_vjp, grad_fn=grad_fn, variables=variables,
                                      inputs=inputs, outs=outs, diff=diff, shapes=shapes,
                                      dtypes=dtypes))
    packed = op(*record_inputs)
    for i, piece in zip(diff, _unpack(packed, shapes, dtypes, batch_ndim=0)):
        outs[i] = piece


def _unpack(packed, shapes, dtypes, batch_ndim):
    """The pieces of a packed value (or of its gradient), with recorded ops."""
    if len(shapes) == 1:
        return [packed]
    lead = packed._value.shape[:batch_ndim]
    pieces, offset = [], 0
    for shape, dtype in zip(shapes, dtypes):
        size = int(np.prod(shape, dtype=np.int64))
        piece = _shape_ops.getitem(packed, key=(slice(offset, offset + size),),
                                   batch_ndim=batch_ndim)
        piece = _shape_ops.reshape(piece, shape=lead + tuple(shape))
        if piece._value.dtype != dtype:
            piece = cast(piece, dtype=dtype)
        pieces.append(piece)
        offset += size
    return pieces


def _vjp(g, out, needed, *record_inputs, grad_fn, variables, inputs, outs, diff, shapes,
         dtypes):
    batch_ndim = g._value.ndim - out._value.ndim
    if batch_ndim == 0:
        return _user_gradients(g, grad_fn, variables, inputs, outs, diff, shapes, dtypes)
    # A batch of cotangents (tape.jacobian): grad_fn sees one at a time, as TF's pfor
    # would run it per row, then the rows are stacked back with recorded ops.
    lead = g._value.shape[:batch_ndim]
    n = int(np.prod(lead, dtype=np.int64))
    flat_g = _shape_ops.reshape(g, shape=(n,) + out._value.shape)
    rows = [_user_gradients(_shape_ops.getitem(flat_g, key=(r,)), grad_fn, variables, inputs,
                            outs, diff, shapes, dtypes) for r in range(n)]
    stacked = []
    for j, x in enumerate(record_inputs):
        column = [row[j] for row in rows]
        if all(c is None for c in column):
            stacked.append(None)
            continue
        column = [Tensor(np.zeros(x._value.shape, x._value.dtype)) if c is None else c
                  for c in column]
        parts = [_shape_ops.reshape(c, shape=(1,) + x._value.shape) for c in column]
        whole = parts[0] if n == 1 else _shape_ops.concat(*parts, axis=0)
        stacked.append(_shape_ops.reshape(whole, shape=lead + x._value.shape))
    return stacked


def _user_gradients(g, grad_fn, variables, inputs, outs, diff, shapes, dtypes):
    """Call grad_fn on one upstream gradient per output; check what it returns."""
    upstream = [Tensor(np.zeros(y._value.shape, y._value.dtype)) for y in outs]
    for i, piece in zip(diff, _unpack(g, shapes, dtypes, batch_ndim=0)):
        upstream[i] = piece
    if variables:
        returned = grad_fn(*upstream, variables=variables)
        if not (isinstance(returned, (tuple, list)) and len(returned) == 2):
            raise ValueError("@tf.custom_gradient: with variables, grad_fn must return a pair "
                             "(input_grads, variable_grads).")
        input_grads, variable_grads = returned
        variable_grads = list(variable_grads)
        if len(variable_grads) != len(variables):
            raise ValueError("Must return gradient for each variable from "
                             "@custom_gradient grad_fn.")
    else:
        input_grads, variable_grads = grad_fn(*upstream), []
    flat = nest.flatten(input_grads)
    if len(flat) != len(inputs):
        raise ValueError(f"custom_gradient function expected to return {len(inputs)} "
                         f"gradients, but returned {len(flat)} instead.")
    targets = inputs + variables
    return [_checked_gradient(gx, x, j, len(inputs)) for j, (gx, x) in
            enumerate(zip(flat + variable_grads, targets))]


def _checked_gradient(gx, x, j, n_inputs):
    if gx is None:
        return None
    what = f"input {j}" if j < n_inputs else f"variable {j - n_inputs}"
    if not isinstance(gx, Tensor):
        gx = convert_to_tensor(gx, dtype_hint=x._value.dtype)
    if gx._value.dtype != x._value.dtype:
        raise TypeError(f"@tf.custom_gradient: grad_fn returned a {gx.dtype.name} gradient for "
                        f"{what}, of dtype {x.dtype.name}.")
    if gx._value.shape != x._value.shape:
        raise ValueError(f"@tf.custom_gradient: grad_fn returned a gradient of shape "
                         f"{tuple(gx._value.shape)} for {what}, of shape "
                         f"{tuple(x._value.shape)}.")
    return gx
