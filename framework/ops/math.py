"""math.py: elementwise primitives and matmul, each forward beside its VJPs.
Broadcasting ops are flagged, and the engine sums their gradients back to
each input's shape. VJPs use tapeflow ops so that outer tapes record them.
Composite functions (softsign, selu, gelu, ...) live in framework/math.py."""

import math as _pymath

import numpy as np

from ..core import record as _record
from ..core.tensor import Tensor, scalar
from .registry import defop

__all__ = ["add", "subtract", "multiply", "divide", "pow", "negative", "square", "sqrt",
           "exp", "log", "abs", "maximum", "minimum", "tanh", "sigmoid", "relu", "matmul",
           "relu_grad", "cast", "identity", "stop_gradient", "sign", "mask_of", "const", "expm1", "log1p",
           "sin", "cos", "tan", "sinh", "cosh", "asin", "acos", "atan", "erf", "erfc",
           "softplus", "select", "floor", "ceil", "round", "floordiv", "floormod",
           "erf_values"]


def mask_of(condition, like):
    """A constant 0/1 tensor of `like`'s dtype: the derivative of a piecewise op."""
    return Tensor(condition.astype(like._value.dtype))


def const(value, like):
    """A constant rank-0 (or array) tensor of `like`'s dtype (scalars are cached)."""
    if isinstance(value, (int, float)):
        return scalar(value, like._value.dtype)
    return Tensor(np.asarray(value, like._value.dtype))


@defop(broadcasting=True)
def add(x, y):
    return x + y


add.defvjp(lambda g, out, x, y: g, lambda g, out, x, y: g)


@defop(broadcasting=True)
def subtract(x, y):
    return x - y


subtract.defvjp(lambda g, out, x, y: g, lambda g, out, x, y: negative(g))


@defop(broadcasting=True)
def multiply(x, y):
    return x * y


multiply.defvjp(lambda g, out, x, y: multiply(g, y), lambda g, out, x, y: multiply(g, x))


@defop(broadcasting=True)
def divide(x, y):
    return x / y


divide.defvjp(lambda g, out, x, y: divide(g, y),
              lambda g, out, x, y: negative(divide(multiply(g, out), y)))


@defop(broadcasting=True)
def pow(x, y):  # noqa: A001 -- TF's name
    return x ** y


def _pow_vjp_x(g, out, x, y):
    if not _record._recording:
        # No tape records this VJP (a first-order gradient), so `y - 1` need
        # not be an op, and x**2's derivative skips the pow: x**1 is x exactly.
        y_value = y._value
        if y_value.ndim == 0 and y_value == 2:
            return multiply(g, multiply(y, x))
        return multiply(g, multiply(y, pow(x, Tensor(y_value - y_value.dtype.type(1)))))
    return multiply(g, multiply(y, pow(x, subtract(y, const(1, y)))))


def _pow_vjp_y(g, out, x, y):
    # TF: d/dy x**y = x**y * log(x), taken as 0 where x <= 0 (log is fed 1 there).
    positive = x._value > 0
    safe_x = add(multiply(x, mask_of(positive, x)), mask_of(~positive, x))
    return multiply(g, multiply(out, log(safe_x)))


pow.defvjp(_pow_vjp_x, _pow_vjp_y)


@defop
def negative(x):
    return -x


@negative.defvjp
def negative_vjp(g, out, x):
    return negative(g)


@defop
def square(x):
    return np.square(x)


@square.defvjp
def square_vjp(g, out, x):
    return multiply(g, multiply(x, const(2, x)))


@defop
def sqrt(x):
    return np.sqrt(x)


@sqrt.defvjp
def sqrt_vjp(g, out, x):
    return divide(g, multiply(out, const(2, out)))


@defop
def exp(x):
    return np.exp(x)


@exp.defvjp
def exp_vjp(g, out, x):
    return multiply(g, out)


@defop
def expm1(x):
    return np.expm1(x)


@expm1.defvjp
def expm1_vjp(g, out, x):
    return multiply(g, exp(x))


@defop
def log(x):
    return np.log(x)


@log.defvjp
def log_vjp(g, out, x):
    return divide(g, x)


@defop
def log1p(x):
    return np.log1p(x)


@log1p.defvjp
def log1p_vjp(g, out, x):
    return divide(g, add(x, const(1, x)))


@defop
def sin(x):
    return np.sin(x)


@sin.defvjp
def sin_vjp(g, out, x):
    return multiply(g, cos(x))


@defop
def cos(x):
    return np.cos(x)


@cos.defvjp
def cos_vjp(g, out, x):
    return negative(multiply(g, sin(x)))


@defop
def tan(x):
    return np.tan(x)


@tan.defvjp
def tan_vjp(g, out, x):
    return multiply(g, add(const(1, out), square(out)))  # sec^2 = 1 + tan^2


@defop
def sinh(x):
    return np.sinh(x)


@sinh.defvjp
def sinh_vjp(g, out, x):
    return multiply(g, cosh(x))


@defop
def cosh(x):
    return np.cosh(x)


@cosh.defvjp
def cosh_vjp(g, out, x):
    return multiply(g, sinh(x))


@defop
def asin(x):
    return np.arcsin(x)


@asin.defvjp
def asin_vjp(g, out, x):
    return divide(g, sqrt(subtract(const(1, x), square(x))))


@defop
def acos(x):
    return np.arccos(x)


@acos.defvjp
def acos_vjp(g, out, x):
    return negative(divide(g, sqrt(subtract(const(1, x), square(x)))))


@defop
def atan(x):
    return np.arctan(x)


@atan.defvjp
def atan_vjp(g, out, x):
    return divide(g, add(const(1, x), square(x)))


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


def _erf_derivative(g, x):
    return multiply(g, multiply(const(_TWO_OVER_SQRT_PI, x), exp(negative(square(x)))))


@defop
def erf(x):
    return erf_values(x)


@erf.defvjp
def erf_vjp(g, out, x):
    return _erf_derivative(g, x)


@defop
def erfc(x):
    # A primitive of its own: 1 - erf(x) would lose the tail for large x.
    return erf_values(x, complement=True)


@erfc.defvjp
def erfc_vjp(g, out, x):
    return negative(_erf_derivative(g, x))


@defop
def sign(x):
    return np.sign(x)


@sign.defvjp
def sign_vjp(g, out, x):
    return Tensor(np.zeros(g._value.shape, g._value.dtype))  # TF: zeros_like, not None


@defop(differentiable=False)
def floor(x):
    return np.floor(x)


@defop(differentiable=False)
def ceil(x):
    return np.ceil(x)


@defop(differentiable=False)
def round(x):  # noqa: A001 -- TF's name; rounds half to even, as TF
    return np.round(x)


@defop(broadcasting=True, differentiable=False)
def floordiv(x, y):
    return np.floor_divide(x, y)


@defop(broadcasting=True)
def floormod(x, y):
    return np.mod(x, y)


# TF's gradient of FloorMod: (g, -g * floor(x / y)), the quotient held constant.
floormod.defvjp(lambda g, out, x, y: g,
                lambda g, out, x, y: multiply(g, Tensor(-np.floor_divide(x._value,
                                                                         y._value))))


@defop
def abs(x):  # noqa: A001 -- TF's name
    return np.abs(x)


@abs.defvjp
def abs_vjp(g, out, x):
    return multiply(g, Tensor(np.sign(x._value)))  # TF: the gradient at 0 is 0


@defop(broadcasting=True)
def maximum(x, y):
    return np.maximum(x, y)


# On a tie TF gives the whole gradient to the first argument.
maximum.defvjp(lambda g, out, x, y: multiply(g, mask_of(x._value >= y._value, x)),
               lambda g, out, x, y: multiply(g, mask_of(x._value < y._value, y)))


@defop(broadcasting=True)
def minimum(x, y):
    return np.minimum(x, y)


minimum.defvjp(lambda g, out, x, y: multiply(g, mask_of(x._value <= y._value, x)),
               lambda g, out, x, y: multiply(g, mask_of(x._value > y._value, y)))


@defop(broadcasting=True)
def select(condition, x, y):
    """`x` where `condition` else `y` (tf.where with three arguments), broadcast."""
    return np.where(condition, x, y)


select.defvjp(lambda g, out, c, x, y: None,
              lambda g, out, c, x, y: multiply(g, mask_of(c._value, x)),
              lambda g, out, c, x, y: multiply(g, mask_of(~c._value, y)))


@defop
def tanh(x):
    return np.tanh(x)


@tanh.defvjp
def tanh_vjp(g, out, x):
    return multiply(g, subtract(const(1, out), multiply(out, out)))


@defop
def sigmoid(x):
    # exp of a negative argument only, so large |x| neither overflows nor warns.
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e)).astype(x.dtype, copy=False)


@sigmoid.defvjp
def sigmoid_vjp(g, out, x):
    return multiply(g, multiply(out, subtract(const(1, out), out)))


@defop
def softplus(x):
    return np.logaddexp(np.zeros((), x.dtype), x)  # log(1 + e^x) without overflow


@softplus.defvjp
def softplus_vjp(g, out, x):
    return multiply(g, sigmoid(x))


@defop
def relu(x):
    return np.maximum(x, 0)


@relu.defvjp
def relu_vjp(g, out, x):
    return relu_grad(g, out)  # TF: the gradient at 0 is 0


_KERNEL_MIN_SIZE = 4096  # below this NumPy's three passes cost less than a kernel call


@defop
def relu_grad(g, y):
    """g where y > 0, else 0: ReLU's backward pass (y is the ReLU output)."""
    if g.size < _KERNEL_MIN_SIZE or g.shape != y.shape or g.dtype != y.dtype or \
            not (g.flags.c_contiguous and y.flags.c_contiguous):
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
    if x.ndim == 2 and y.ndim > 2:
        return _matrix_times_stack(x, y)
    if y.ndim == 2 and x.ndim > 2:
        # A stack times one matrix is one GEMM on the stack's rows.
        return matmul_2d(x.reshape(-1, x.shape[-1]), y).reshape(x.shape[:-1] + y.shape[-1:])
    if x.ndim == 2 and y.ndim == 2:
        return matmul_2d(x, y)
    return np.matmul(x, y)


def matmul_2d(a, b):
    """a @ b for 2-D arrays: float32 products on tapeflow's own GEMM kernel where
    it beats the BLAS (kernels/gemm.py says when), the rest on NumPy's BLAS."""
    if a.dtype == np.float32 and b.dtype == np.float32:
        from ..kernels import gemm
        if gemm.wins(a.shape[0], a.shape[1], b.shape[1], a.dtype):
            return gemm.matmul(a, b)
    return np.matmul(a, b)


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


@defop
def cast(x, dtype):
    return x.astype(dtype, copy=False)


@cast.defvjp
def cast_vjp(g, out, x, dtype):
    if x._value.dtype.kind not in "fc":
        return None
    return cast(g, dtype=x._value.dtype)


@defop
def identity(x):
    return np.array(x, copy=True)


@identity.defvjp
def identity_vjp(g, out, x):
    return g


@defop(differentiable=False)
def stop_gradient(x):
    return np.array(x, copy=True)
