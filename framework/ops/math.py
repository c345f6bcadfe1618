"""math.py: elementwise primitives and matmul, each forward beside its VJPs.
Most ops are one line, `name = _unary("name", forward, vjp)`: the forward is the
NumPy function itself, called with no wrapper, the VJP a lambda.
Broadcasting ops are flagged, and the engine sums their gradients back to each
input's shape. VJPs use tapeflow ops so that outer tapes record them.
Composite functions (softsign, selu, gelu, ...) live in framework/math/."""

import functools
import math as _pymath
import operator

import numpy as np

from ..core import record as _record
from ..core.tensor import Tensor, scalar
from ..runtime import kernel_start
from .registry import defop

__all__ = ["add", "subtract", "multiply", "divide", "pow", "negative", "square", "sqrt",
           "exp", "log", "abs", "maximum", "minimum", "tanh", "sigmoid", "relu", "matmul",
           "relu_grad", "cast", "identity", "stop_gradient", "sign", "mask_of", "const", "expm1",
           "log1p", "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "erf", "erfc",
           "softplus", "select", "floor", "ceil", "round", "floordiv", "floormod", "matmul_bias",
           "erf_values", "complex", "real", "imag", "conj"]


def mask_of(condition, like):
    """A constant 0/1 tensor of `like`'s dtype: the derivative of a piecewise op."""
    return Tensor(condition.astype(like._value.dtype))


def const(value, like):
    """A constant rank-0 (or array) tensor of `like`'s dtype (scalars are cached)."""
    if isinstance(value, (int, float)):
        return scalar(value, like._value.dtype)
    return Tensor(np.asarray(value, like._value.dtype))


def _op(name, forward, *vjps, **flags):
    """Register `forward` (the NumPy function itself, no wrapper frame) as op `name`
    with one VJP per input: one line per op, as HIPS autograd's `defvjp`."""
    op = defop(forward, name=name, **flags)
    if vjps:
        op.defvjp(*vjps)
    return op


_unary = _op
_binary = functools.partial(_op, broadcasting=True)   # the walk unbroadcasts their gradients
_constant = functools.partial(_op, differentiable=False)
_binary_constant = functools.partial(_op, broadcasting=True, differentiable=False)


def _pow_vjp_x(g, out, x, y):
    if not (_record._recording or _record.tracing):
        # No tape records this VJP (a first-order gradient), so `y - 1` need
        # not be an op, and x**2's derivative skips the pow: x**1 is x exactly.
        y_value = y._value
        if y_value.ndim == 0 and y_value == 2:
            return multiply(g, multiply(y, x))
        return multiply(g, multiply(y, pow(x, Tensor(y_value - y_value.dtype.type(1)))))
    return multiply(g, multiply(y, pow(x, subtract(y, const(1, y)))))


def _pow_vjp_y(g, out, x, y):
    # TF: d/dy x**y = x**y * log(x), taken as 0 where x <= 0 (log is fed 1 there),
    # picked by ops so that a traced backward replays the comparison.
    safe_x = select(_greater(x, const(0, x)), x, const(1, x))
    return multiply(g, multiply(out, log(safe_x)))


@defop
def conj(z):
    """The complex conjugate (TF's gradients of complex ops conjugate the partner)."""
    return np.conj(z)


conj.defvjp(lambda g, out, z: conj(g))


# Complex numbers: x + iy and its parts. The adjoints embed g as g + 0i and 0 + ig,
# TF's convention for the gradient of a real loss with respect to z = x + iy.
_COMPLEX_OF = {np.dtype(np.float32): np.dtype(np.complex64),
               np.dtype(np.float64): np.dtype(np.complex128)}


@defop(broadcasting=True)
def complex(x, y):  # shadows the builtin inside this module: TF's name
    """x + iy, broadcast (tf.complex: float32 gives complex64, float64 complex128)."""
    out = np.empty(np.broadcast_shapes(x.shape, y.shape), _COMPLEX_OF[x.dtype])
    out.real = x
    out.imag = y
    return out


complex.defvjp(lambda g, out, x, y: real(g), lambda g, out, x, y: imag(g))


@defop
def real(z):
    return np.real(z).copy()


@defop
def imag(z):
    return np.imag(z).copy()


# The adjoints embed g as g + 0i and 0 + ig.
real.defvjp(lambda g, out, z: complex(g, Tensor(np.zeros_like(g._value))))
imag.defvjp(lambda g, out, z: complex(Tensor(np.zeros_like(g._value)), g))


def _c(t):
    """`t` conjugated when complex: TF's gradient of a product is g * conj(partner)."""
    return conj(t) if t._value.dtype.kind == "c" else t


# operator.add is `x + y` itself (ndarray's operators), without a Python frame per call.
add = _binary("add", operator.add, lambda g, out, x, y: g, lambda g, out, x, y: g)
subtract = _binary("subtract", operator.sub,
                   lambda g, out, x, y: g,
                   lambda g, out, x, y: negative(g))
multiply = _binary("multiply", operator.mul,  # the dtype test inline: W6's hot VJP
                   lambda g, out, x, y: multiply(g, y if y._value.dtype.kind != "c" else conj(y)),
                   lambda g, out, x, y: multiply(g, x if x._value.dtype.kind != "c" else conj(x)))
divide = _binary("divide", operator.truediv,
                 lambda g, out, x, y: divide(g, _c(y)),
                 lambda g, out, x, y: negative(divide(multiply(g, _c(out)), _c(y))))
pow = _binary("pow", operator.pow, _pow_vjp_x, _pow_vjp_y)
# TF's gradient of FloorMod: (g, -g * floor(x / y)), the quotient held constant.
floormod = _binary("floormod", np.mod,
                   lambda g, out, x, y: g,
                   lambda g, out, x, y: multiply(g, negative(floordiv(x, y))))
# Comparisons as ops without a gradient, for the VJPs that pick by one: a mask made
# from the arrays in Python would be frozen into a traced backward pass.
def _numeric(np_fn):
    def forward(x, y):
        if x.dtype.kind == "O" or y.dtype.kind == "O":  # NumPy would order bytes
            raise TypeError(f"{np_fn.__name__} takes numbers, not strings")
        return np_fn(x, y)
    return forward


_greater = _binary_constant("greater", _numeric(np.greater))
_greater_equal = _binary_constant("greater_equal", _numeric(np.greater_equal))


def _picked(g, condition, like):
    """g times the 0/1 of `condition` (a bool tensor) in `like`'s dtype."""
    return multiply(g, cast(condition, dtype=like._value.dtype))


# On a tie TF gives the whole gradient to the first argument.
maximum = _binary("maximum", np.maximum,
                  lambda g, out, x, y: _picked(g, _greater_equal(x, y), x),
                  lambda g, out, x, y: _picked(g, _greater(y, x), y))
minimum = _binary("minimum", np.minimum,
                  lambda g, out, x, y: _picked(g, _greater_equal(y, x), x),
                  lambda g, out, x, y: _picked(g, _greater(x, y), y))
floordiv = _binary_constant("floordiv", np.floor_divide)


# -- erf: float64-accurate without SciPy ---------------------------------------
# Small |x|: erf(x) = 2/sqrt(pi) exp(-x^2) sum_n 2^n x^(2n+1) / (1*3*...*(2n+1)), a
# series of positive terms (no cancellation). Larger |x|: erfc(x) from its continued
# fraction exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), evaluated
# backwards at a fixed depth. erf switches at 3 (erfc(x) < 2e-5 beyond, so a short
# fraction suffices) and is exactly +-1 beyond 6; erfc switches at 1.5 and uses a
# deeper fraction, to keep its own relative accuracy. Both reach ~1e-15 relative
# (float32 inputs: 1e-9, from a shorter series and fraction).
_TWO_OVER_SQRT_PI = 2.0 / _pymath.sqrt(_pymath.pi)


def _erf_series(x, tol):
    y = x * x
    # Coefficients 2^n / (1*3*...*(2n+1)) until the largest |x|'s terms are negligible;
    # then Horner's rule in x^2 (a running product of powers would go subnormal, slowly).
    y_max = float(y.max())
    coeffs, total = [1.0], 1.0
    while coeffs[-1] * y_max ** (len(coeffs) - 1) > tol * total:
        coeffs.append(coeffs[-1] * 2.0 / (2 * len(coeffs) + 1))
        total += coeffs[-1] * y_max ** (len(coeffs) - 1)
    p = np.full_like(y, coeffs[-1])
    for c in reversed(coeffs[:-1]):
        p *= y
        p += c
    return _TWO_OVER_SQRT_PI * x * np.exp(-y) * p


def _erfc_tail(x, depth):
    """erfc(x) for x >= 1.5, from `depth` levels of the continued fraction."""
    frac = np.zeros_like(x)
    for k in range(depth, 0, -1):
        frac += x
        np.divide(0.5 * k, frac, out=frac)
    return np.exp(-x * x) / (_pymath.sqrt(_pymath.pi) * (x + frac))


def erf_values(x, complement=False):
    """erf(x) (or erfc(x) when `complement`) of an ndarray, in x's dtype."""
    a = np.asarray(x, np.float64)
    ax = np.abs(a)
    split, depth, tol = (1.5, 80, 1e-17) if complement else (3.0, 25, 1e-17)
    if x.dtype.itemsize < 8:  # float32/16 need ~1e-9 only: a shorter series and fraction
        split, depth, tol = 1.5, 40, 1e-9
    small = ax < split
    result = np.ones_like(a)  # erf beyond 6 (erfc < 2e-17) and at +-inf
    if np.any(small):
        s = _erf_series(ax[small], tol)
        result[small] = 1.0 - s if complement else s
    tail = ~small if complement else (~small & (ax < 6.0))
    tail &= ~np.isnan(a)
    if np.any(tail):
        t = _erfc_tail(ax[tail], depth)
        result[tail] = t if complement else 1.0 - t
    elif complement:
        result[~small] = 0.0
    if complement:
        result[np.isinf(a)] = 0.0
    result[np.isnan(a)] = np.nan
    negative_x = a < 0
    if complement:
        result[negative_x] = 2.0 - result[negative_x]  # erfc(-x) = 2 - erfc(x)
    else:
        result[negative_x] = -result[negative_x]
    return result.astype(np.result_type(x.dtype, np.float16), copy=False).reshape(np.shape(x))


def _erf_derivative(g, out, x):
    return multiply(g, multiply(const(_TWO_OVER_SQRT_PI, x), exp(negative(square(x)))))


def _sigmoid(x):
    # exp of a negative argument only, so large |x| neither overflows nor warns.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


def _softplus(x):
    return np.logaddexp(np.zeros((), x.dtype), x)  # log(1 + e^x) without overflow


def _copy(x):
    return np.array(x, copy=True)


negative = _unary("negative", operator.neg, lambda g, out, x: negative(g))
square = _unary("square", np.square, lambda g, out, x: multiply(g, multiply(x, const(2, x))))
sqrt = _unary("sqrt", np.sqrt, lambda g, out, x: divide(g, multiply(out, const(2, out))))
exp = _unary("exp", np.exp, lambda g, out, x: multiply(g, out))
expm1 = _unary("expm1", np.expm1, lambda g, out, x: multiply(g, exp(x)))
log = _unary("log", np.log, lambda g, out, x: divide(g, x))
log1p = _unary("log1p", np.log1p, lambda g, out, x: divide(g, add(x, const(1, x))))
sin = _unary("sin", np.sin, lambda g, out, x: multiply(g, cos(x)))
cos = _unary("cos", np.cos, lambda g, out, x: negative(multiply(g, sin(x))))
# sec^2 = 1 + tan^2
tan = _unary("tan", np.tan, lambda g, out, x: multiply(g, add(const(1, out), square(out))))
sinh = _unary("sinh", np.sinh, lambda g, out, x: multiply(g, cosh(x)))
cosh = _unary("cosh", np.cosh, lambda g, out, x: multiply(g, sinh(x)))
asin = _unary("asin", np.arcsin,
              lambda g, out, x: divide(g, sqrt(subtract(const(1, x), square(x)))))
acos = _unary("acos", np.arccos,
              lambda g, out, x: negative(divide(g, sqrt(subtract(const(1, x), square(x))))))
atan = _unary("atan", np.arctan, lambda g, out, x: divide(g, add(const(1, x), square(x))))
tanh = _unary("tanh", np.tanh,
              lambda g, out, x: multiply(g, subtract(const(1, out), multiply(out, out))))
sigmoid = _unary("sigmoid", _sigmoid,
                 lambda g, out, x: multiply(g, multiply(out, subtract(const(1, out), out))))
softplus = _unary("softplus", _softplus, lambda g, out, x: multiply(g, sigmoid(x)))
# TF: relu's and abs's gradients at 0 are 0; sign's is zeros_like, not None.
relu = _unary("relu", lambda x: np.maximum(x, 0), lambda g, out, x: relu_grad(g, out))
abs = _unary("abs", np.abs, lambda g, out, x: multiply(g, sign(x)))  # sign: an op, traced
sign = _unary("sign", np.sign, lambda g, out, x: Tensor(np.zeros(g._value.shape, g._value.dtype)))
erf = _unary("erf", erf_values, _erf_derivative)
# A primitive of its own: 1 - erf(x) would lose the tail for large x.
erfc = _unary("erfc", functools.partial(erf_values, complement=True),
              lambda g, out, x: negative(_erf_derivative(g, out, x)))
identity = _unary("identity", _copy, lambda g, out, x: g)
floor = _constant("floor", np.floor)
ceil = _constant("ceil", np.ceil)
round = _constant("round", np.round)  # halves to even, as TF does
stop_gradient = _constant("stop_gradient", _copy)


@defop(broadcasting=True)
def select(condition, x, y):
    """`x` where `condition` else `y` (tf.where with three arguments), broadcast."""
    return np.where(condition, x, y)


# g where the condition picked the input, else 0: written with select itself (not a
# mask made from the condition's array), so that a traced backward replays it.
select.defvjp(lambda g, out, c, x, y: None,
              lambda g, out, c, x, y: select(c, g, const(0, g)),
              lambda g, out, c, x, y: select(c, const(0, g), g))


_KERNEL_MIN_SIZE = 4096  # below this NumPy's three passes cost less than a kernel call


@defop
def relu_grad(g, y):
    """g where y > 0, else g * 0 (TF's ReluGrad: -0.0 for a negative g, NaN for a
    NaN one): ReLU's backward pass (y is the ReLU output)."""
    if g.size < _KERNEL_MIN_SIZE or g.shape != y.shape or g.dtype != y.dtype or \
            not (g.flags.c_contiguous and y.flags.c_contiguous) or \
            not kernel_start.use_kernel(g.size):
        return g * (y > 0).astype(g.dtype)
    from ..kernels import elementwise as _k
    out = np.empty_like(g)
    one_thread, two_threads = _k.relu_backward
    (two_threads if g.size >= 1 << 20 else one_thread)(g.reshape(-1), y.reshape(-1),
                                                        out.reshape(-1))
    return out


# The mask is locally constant: the gradient flows to g only (again masked).
relu_grad.defvjp(lambda gg, out, g, y: relu_grad(gg, y), lambda gg, out, g, y: None)


@defop(broadcasting=True)
def matmul(x, y, transpose_a=False, transpose_b=False):
    if transpose_a:
        x = np.swapaxes(x, -1, -2)
    if transpose_b:
        y = np.swapaxes(y, -1, -2)
    if x.ndim == 2 and y.ndim == 2:
        return matmul_2d(x, y)
    try:
        if x.ndim == 2 and y.ndim > 2:
            return _matrix_times_stack(x, y)
        if y.ndim == 2 and x.ndim > 2:
            # A stack times one matrix is one GEMM on the stack's rows.
            return matmul_2d(x.reshape(-1, x.shape[-1]), y).reshape(x.shape[:-1] + y.shape[-1:])
    except ValueError:
        # A size-0 operand: reshape(-1, 0) cannot infer its -1. np.matmul handles
        # empty stacks and k = 0 (zeros, as TF); a shape mismatch raises again there.
        pass
    return np.matmul(x, y)


def matmul_2d(a, b):
    """a @ b for 2-D arrays: float32 products on tapeflow's own GEMM kernel where
    it beats the BLAS (kernels/gemm.py says when, once the kernels have started:
    runtime/kernel_start.py), the rest on NumPy's BLAS."""
    if a.dtype == np.float32 and b.dtype == np.float32 and kernel_start.use_kernel(0):
        from ..kernels import gemm
        return gemm.product(a, b)
    return np.matmul(a, b)


_KERNEL_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))  # the kernels' compiled dtypes


@defop(broadcasting=True)
def matmul_bias(x, w, b):
    """x @ w + b for 2-D x and w and a bias b (n,), the bias added in place on
    a float32 or float64 product of b's dtype (kernels/elementwise.py: one pass, on all
    threads where large, no second array): the recurrent layers' input
    projection of all steps, whose 6.5 MB add in W8's IMDB model took 0.93 ms
    as an op of its own (Zen 4)."""
    out = matmul_2d(x, w)
    if b.dtype != out.dtype or out.dtype not in _KERNEL_FLOATS or b.shape != out.shape[-1:] or \
            not out.flags.c_contiguous or not out.flags.writeable:
        return out + b  # NumPy's promotion and broadcasting; float16 (no Numba type)
    if not kernel_start.use_kernel(out.size):
        out += b  # the kernel's bits: one add per element, in place
        return out
    from ..kernels import elementwise
    return elementwise.bias_activation_in_place(out, b, False)


def _matrix_times_stack(x, y):
    """x @ y[b] for every b, as one GEMM: NumPy would loop over the stack (and call
    a matrix-vector product per entry when y's matrices have one column, as the
    batched cotangents of `jacobian` do)."""
    k, n = y.shape[-2:]
    lead = y.shape[:-2]
    columns = np.moveaxis(y.reshape((-1, k, n)), 1, 0).reshape(k, -1)  # (k, B*n)
    out = matmul_2d(x, columns).reshape((x.shape[0], -1, n))            # (m, B, n)
    return np.moveaxis(out, 0, 1).reshape(lead + (x.shape[0], n))


def _matmul_vjp_x(g, out, x, y, transpose_a=False, transpose_b=False):
    if transpose_a:
        return matmul(y, g, transpose_a=transpose_b, transpose_b=True)
    return matmul(g, y, transpose_b=not transpose_b)


def _matmul_vjp_y(g, out, x, y, transpose_a=False, transpose_b=False):
    if transpose_b:
        return matmul(g, x, transpose_a=True, transpose_b=transpose_a)
    return matmul(x, g, transpose_a=not transpose_a)


matmul.defvjp(_matmul_vjp_x, _matmul_vjp_y)
matmul_bias.defvjp(lambda g, out, x, w, b: _matmul_vjp_x(g, out, x, w),
                   lambda g, out, x, w, b: _matmul_vjp_y(g, out, x, w),
                   lambda g, out, x, w, b: g)  # summed to b's shape (broadcasting)


@defop
def cast(x, dtype):
    return x.astype(dtype, copy=False)


cast.defvjp(lambda g, out, x, dtype:
            cast(g, dtype=x._value.dtype) if x._value.dtype.kind in "fc" else None)
