"""activations.py: the sigmoid and tanh the recurrent kernels (recurrent.py)
call inside their loops. float32 runs as arithmetic LLVM vectorises (libm's
scalar expf and tanhf are 10x slower per value, NumPy's SIMD ones cost a
call per step); float64 keeps libm's exp and tanh, exact to the bits the
float64 tests compare.

A step of W8's LSTM (batch 32, 64 units), 8,192 sigmoids: libm's scalar expf
100 us, NumPy's SIMD exp (outside the loop, one call per step) 35 us, a
branch-free polynomial expf LLVM vectorises 3.9 us (the project's Xeon). It
needs error_model="numpy": Numba's default checks every division for a zero
divisor, a branch that keeps the loop scalar. Numba compiles a callee with
its caller's fastmath flags: the 1.5 * 2**23 rounding trick of a float32
reduction was reassociated away (exp(x) became 2**n); the reduction's steps
are llvm.fmuladd calls, which reassociation leaves whole, and a test calls
the activations from a fastmath kernel's context. On the Zen 4 (AMD family
25 model 17), batch 16 a thread: 50 steps' gates took 256 us with the
reduction in float64 (half the lanes), 161 us in float32."""

# runtime.jit first: it imports numba and registers the kernels' cache locator.
from ..runtime.jit import njit  # noqa: I001

import numpy as np  # noqa: E402
from llvmlite import ir  # noqa: E402
from numba.core import cgutils, types  # noqa: E402
from numba.extending import intrinsic, overload  # noqa: E402

__all__ = ["exp32", "sigmoid", "tanh"]


@intrinsic
def _float32_from_bits(typingctx, bits):
    """The float32 whose bits are the low 32 bits of the integer `bits`."""
    if not isinstance(bits, types.Integer):
        return None

    def codegen(context, builder, sig, args):
        return builder.bitcast(builder.trunc(args[0], ir.IntType(32)), ir.FloatType())
    return types.float32(bits), codegen


@intrinsic
def _fma32(typingctx, a, b, c):
    """a * b + c for float32: an llvm.fmuladd call, one fused instruction where
    the CPU has FMA, else a product and a sum (Cody and Waite's products are
    exact anyway). Fastmath's reassociation leaves the call whole, where it
    would regroup a plain product and sum."""
    if not (a == b == c == types.float32):
        return None

    def codegen(context, builder, sig, args):
        f32 = ir.FloatType()
        fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(f32, [f32] * 3),
                                             "llvm.fmuladd.f32")
        return builder.call(fma, args)
    return types.float32(types.float32, types.float32, types.float32), codegen


@njit(cache=True, error_model="numpy")
def _exp32_parts(x):
    """(p, n) with e**x = p * 2**n, p in [0.7, 1.42], for a float32 x in
    [-104, 89]: x = n ln 2 + r (Cody and Waite's two-part ln 2, |r| <= ln 2 /
    2) and e**r Cephes's expf polynomial, both in _fma32 calls: the caller's
    fastmath may reassociate plain arithmetic, losing the reduction's rounding
    (a float32 reduction in float64 lanes runs half as many at once)."""
    n = np.floor(x * np.float32(1.44269504) + np.float32(0.5))
    r = _fma32(-n, np.float32(0.693359375), x)
    r = _fma32(-n, np.float32(-2.12194440e-4), r)
    p = np.float32(1.9875691500e-4)
    p = _fma32(p, r, np.float32(1.3981999507e-3))
    p = _fma32(p, r, np.float32(8.3334519073e-3))
    p = _fma32(p, r, np.float32(4.1665795894e-2))
    p = _fma32(p, r, np.float32(1.6666665459e-1))
    p = _fma32(p, r, np.float32(5.0000001201e-1))
    return _fma32(p * r, r, r) + np.float32(1.0), np.int32(n)


@njit(cache=True, error_model="numpy")
def _power_of_two32(n):
    """2**n as a float32 for an integer n in [-126, 127]: n put in the exponent bits."""
    return _float32_from_bits(np.int32((n + 127) << 23))


@njit(cache=True, error_model="numpy")
def exp32(x):
    """e**x for a float32 x, without branches, in float32 lanes, within 1.4 ulp;
    overflows to inf and underflows through subnormals to 0 as expf does; NaN
    stays NaN. A sigmoid costs 0.5 ns, against 0.8 with the reduction in
    float64 lanes (Zen 4)."""
    clamped = x if x > np.float32(-104.0) else np.float32(-104.0)  # noqa: FURB136 -- selects
    clamped = clamped if clamped < np.float32(89.0) else np.float32(89.0)  # noqa: FURB136
    p, n = _exp32_parts(clamped)
    # 2**128 has no float32: e**x up to FLT_MAX is 2p * 2**127 (a select, which
    # reassociation cannot fold into the scale, as it would a product by 2)
    p = p + p if n > 127 else p
    high = n if n < 127 else np.int32(127)  # noqa: FURB136
    high = high if high > -126 else np.int32(-126)  # noqa: FURB136
    low = n - high if n < -126 else np.int32(0)  # subnormal results: a second normal factor
    result = p * _power_of_two32(high) * _power_of_two32(low)
    return result if x == x else x


@njit(cache=True, error_model="numpy")
def _tanh32(x):
    """Cephes's tanhf without branches: a polynomial below |x| 0.625, else
    1 - 2 / (e**2|x| + 1), e**2|x| taken at 2|x| <= 88, where it is finite and
    the result already rounds to 1 (exp32's range handling left out: with it
    LLVM no longer inlined tanh into the kernels' loops, which then ran scalar)."""
    ax = x if x >= 0 else -x
    p, n = _exp32_parts(min(np.float32(2.0) * ax, np.float32(88.0)))
    far = np.float32(1.0) - np.float32(2.0) / (p * _power_of_two32(n) + np.float32(1.0))
    far = far if x >= 0 else -far
    far = far if x == x else x  # NaN stays NaN
    z = x * x
    p = np.float32(-5.70498872745e-3)
    p = p * z + np.float32(2.06390887954e-2)
    p = p * z - np.float32(5.37397155531e-2)
    p = p * z + np.float32(1.33314422036e-1)
    p = p * z - np.float32(3.33332819422e-1)
    near = p * z * x + x
    return near if ax < np.float32(0.625) else far


def sigmoid(x):
    """1 / (1 + exp(-x)) in the kernels (typed below); exp's overflow to inf
    gives the exact 0 of a very negative x, not NaN."""
    return 1.0 / (1.0 + np.exp(-x))


def tanh(x):
    return np.tanh(x)


@overload(sigmoid, jit_options={"error_model": "numpy"}, inline="always")
def _sigmoid_typed(x):
    if x == types.float32:
        return lambda x: np.float32(1.0) / (np.float32(1.0) + exp32(-x))
    return lambda x: 1.0 / (1.0 + np.exp(-x))


@overload(tanh, jit_options={"error_model": "numpy"}, inline="always")
def _tanh_typed(x):
    if x == types.float32:
        return lambda x: _tanh32(x)
    return lambda x: np.tanh(x)
