"""gradients.py checks gradients numerically: `gradcheck` compares the tape's
VJPs (and Jacobians) with central finite differences in float64, first and
second order; `compute_gradient` is TF's `tf.test.compute_gradient`."""

import numpy as np

from ..autodiff.tape import GradientTape
from ..core.tensor import Tensor
from ..ops.reduce import reduce_sum

__all__ = ["gradcheck", "compute_gradient", "Case", "UNARY_SHAPES", "BINARY_SHAPES",
           "EMPTY_UNARY_SHAPES", "EMPTY_BINARY_SHAPES", "ops_used"]

_JACOBIAN_LIMIT = 400  # input size x output size up to which the full Jacobian is checked


def _as_float64(value):
    if isinstance(value, Tensor):
        value = value._value
    return np.array(value, dtype=np.float64)


def _call(fn, arrays):
    out = fn(*[Tensor(a) for a in arrays])
    if not isinstance(out, Tensor):
        raise TypeError(f"gradcheck: fn must return a Tensor, got {type(out).__name__}.")
    return out


def _tape_vjp(fn, arrays, cotangent):
    tensors = [Tensor(a) for a in arrays]
    with GradientTape() as tape:
        tape.watch(tensors)
        out = fn(*tensors)
    grads = tape.gradient(out, tensors, output_gradients=Tensor(cotangent),
                          unconnected_gradients="zero")
    return [g._value for g in grads]


def _numeric_directional(fn, arrays, index, direction, cotangent, eps):
    plus = [a.copy() for a in arrays]
    minus = [a.copy() for a in arrays]
    plus[index] += eps * direction
    minus[index] -= eps * direction
    f_plus = np.sum(cotangent * _call(fn, plus)._value)
    f_minus = np.sum(cotangent * _call(fn, minus)._value)
    return (f_plus - f_minus) / (2 * eps)


def _numeric_jacobian(fn, arrays, index, eps):
    x = arrays[index]
    out_size = _call(fn, arrays)._value.size
    jac = np.zeros((out_size, x.size))
    for k in range(x.size):
        step = np.zeros(x.size)
        step[k] = eps
        plus = [a.copy() for a in arrays]
        minus = [a.copy() for a in arrays]
        plus[index] = plus[index] + step.reshape(x.shape)
        minus[index] = minus[index] - step.reshape(x.shape)
        jac[:, k] = (np.ravel(_call(fn, plus)._value) - np.ravel(_call(fn, minus)._value)) / (
            2 * eps)
    return jac


def _close(actual, expected, rtol, atol, what):
    actual, expected = np.asarray(actual, np.float64), np.asarray(expected, np.float64)
    if actual.shape != expected.shape or not np.allclose(actual, expected, rtol=rtol, atol=atol):
        raise AssertionError(f"gradcheck: {what} differs.\n tape:    {actual!r}\n numeric: "
                             f"{expected!r}")


def gradcheck(fn, *inputs, order=2, eps=1e-6, rtol=1e-5, atol=1e-6, seed=0, directions=3):
    """Check `fn`'s gradients against central finite differences, in float64.

    The inputs are cast to float64. For a random cotangent, each input's
    VJP from the tape is compared with the finite-difference derivative along
    random directions (every coordinate when the input is small), and, when
    input and output are small, the full `tape.jacobian` with the numerical
    Jacobian (which checks the batched VJPs too). With `order=2` the same
    check is repeated on the gradient itself, differentiated by an outer tape.

    Args:
        fn: a function of Tensors returning one Tensor.
        *inputs: arrays, numbers or Tensors, the point to check at.
        order: 1 or 2 (or higher): how many times to differentiate.

    Raises:
        AssertionError: naming the input and the order that failed.
    """
    arrays = [_as_float64(x) for x in inputs]
    rng = np.random.default_rng(seed)
    out = _call(fn, arrays)
    if out._value.dtype != np.float64:
        raise AssertionError(f"gradcheck: fn returned {out.dtype!r} for float64 inputs.")
    cotangent = rng.standard_normal(out._value.shape)
    tape_grads = _tape_vjp(fn, arrays, cotangent)
    for i, (x, g) in enumerate(zip(arrays, tape_grads)):
        if g.shape != x.shape:
            raise AssertionError(f"gradcheck: the gradient of input {i} has shape {g.shape}, "
                                 f"the input {x.shape}.")
        if x.size <= 16:
            basis = np.eye(x.size).reshape((x.size,) + x.shape)
        else:
            basis = rng.standard_normal((directions,) + x.shape)
        for direction in basis:
            numeric = _numeric_directional(fn, arrays, i, direction, cotangent, eps)
            _close(np.sum(g * direction), numeric, rtol, atol,
                   f"order-{order} VJP of input {i} (shape {x.shape})")
        if x.size * out._value.size <= _JACOBIAN_LIMIT:
            _check_jacobian(fn, arrays, i, eps, rtol, atol)
    if order >= 2:
        weights = [rng.standard_normal(x.shape) for x in arrays]

        def weighted_gradient(*tensors):
            with GradientTape() as tape:
                tape.watch(list(tensors))
                y = fn(*tensors)
            grads = tape.gradient(y, list(tensors), output_gradients=Tensor(cotangent),
                                  unconnected_gradients="zero")
            total = None
            for g, w in zip(grads, weights):
                term = _reduce_sum(g * Tensor(w))
                total = term if total is None else total + term
            return total

        gradcheck(weighted_gradient, *arrays, order=order - 1, eps=eps, rtol=rtol, atol=atol,
                  seed=seed + 1, directions=directions)


def _reduce_sum(t):
    return reduce_sum(t, axis=None, keepdims=False)


def _check_jacobian(fn, arrays, index, eps, rtol, atol):
    tensors = [Tensor(a) for a in arrays]
    with GradientTape() as tape:
        tape.watch(tensors)
        out = fn(*tensors)
    jac = tape.jacobian(out, tensors[index], unconnected_gradients="zero")
    jac = np.reshape(jac._value, (out._value.size, arrays[index].size))
    _close(jac, _numeric_jacobian(fn, arrays, index, eps), rtol, atol,
           f"jacobian of input {index} (shape {arrays[index].shape})")


def compute_gradient(f, x, delta=None):
    """TF's `tf.test.compute_gradient`: theoretical and numerical Jacobians.

    Returns:
        A pair of lists with one 2-d array per input, of shape
        (output size, input size): the tape's Jacobians and the numerical ones.
    """
    arrays = [np.array(getattr(v, "_value", v)) for v in x]
    delta = 1e-3 if delta is None else delta
    tensors = [Tensor(a) for a in arrays]
    with GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        out = f(*tensors)
    theoretical, numerical = [], []
    for i, t in enumerate(tensors):
        jac = tape.jacobian(out, t, unconnected_gradients="zero")
        theoretical.append(np.reshape(jac._value, (out._value.size, t._value.size)))
        numerical.append(_numeric_jacobian(f, arrays, i, delta).astype(arrays[i].dtype))
    return theoretical, numerical



# Shapes every elementwise op is checked over (docs/STYLE.md): one-input shapes and
# broadcasting pairs.
UNARY_SHAPES = [(), (3,), (2, 3)]
BINARY_SHAPES = [((), ()), ((3,), (3,)), ((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)),
                 ((2, 3), ())]
# Shapes with a 0 dimension, size-0 broadcast partners included: (0, 3) with (3,),
# (2, 0) with (2, 1), (0,) with () and each the other way round.
EMPTY_UNARY_SHAPES = [(0,), (2, 0), (0, 3)]
EMPTY_BINARY_SHAPES = [((0,), (0,)), ((0, 3), (3,)), ((3,), (0, 3)), ((2, 0), (2, 1)),
                       ((2, 1), (2, 0)), ((0,), ()), ((), (0,)), ((0, 1), (1, 3)),
                       ((2, 0), (0,)), ((0,), (2, 0)), ((2, 0), ()), ((2, 0), (2, 0))]


class Case:
    """One gradient-check case: `fn(*inputs)` checked to `order`.

    Test modules of ops list their cases in `GRADCHECK_CASES`; the registry
    test runs each case's function once and fails if some registered op is
    reached by no case.
    """

    __slots__ = ("name", "fn", "inputs", "order")

    def __init__(self, name, fn, *inputs, order=2):
        self.name = name
        self.fn = fn
        self.inputs = inputs
        self.order = order

    def check(self, **tolerances):
        gradcheck(self.fn, *self.inputs, order=self.order, **tolerances)

    def __repr__(self):
        return f"Case({self.name})"


def ops_used(fn, *inputs):
    """The names of the ops recorded while running `fn(*inputs)` on float64 inputs."""
    tensors = [Tensor(_as_float64(x)) for x in inputs]
    with GradientTape(persistent=True) as tape:
        tape.watch(tensors)
        out = fn(*tensors)
        tape.gradient(out, tensors)  # second-order ops (VJPs of VJPs) are reached too
    return {rec.op.name for rec in tape._records}
