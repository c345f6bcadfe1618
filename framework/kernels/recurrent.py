"""recurrent.py: the whole time loops of the fused recurrent ops
(ops/recurrent.py), one kernel per op and pass: `*_forward` runs every step
of an LSTM, a GRU (reset_after True or False) or a tanh SimpleRNN, `*_backward`
every step back. Masks (a masked step keeps the states and outputs the
previous output or zeros) and the recurrent dropout mask are arrays the op
always passes (all True / all ones when absent: the same values). The
backward kernels recompute what they need of the forward from what the op
hands them (the LSTM's each step's pre-activations, with the forward's own
product, from its inputs and states; the GRU's and SimpleRNN's from their
gates, a few vectorised NumPy passes over all steps); the products over all
steps (the GRU's and SimpleRNN's h_prev @ U, every recurrent kernel's
gradient) stay one matmul each in the op. Each kernel runs on one thread;
recurrent_threads.py runs it on all of them, each on a slice of the batch (a
step, 2k-8k values, is too small to split).

Chosen by measurement on the project's 2-core Xeon (Intel family 6 model 167,
AVX-512, loaded by other jobs), a step of W8's LSTM (batch 32, 64 units):
- h @ U, (32, 64) @ (64, 256): gemm.py's register-tiled tile (`add_product`,
  U packed once per sequence) ~18 us, against 70-86 us for a plain row loop
  LLVM vectorises (`_add_product`, kept for float64 and the tests). The
  LSTM forward kernel over 50 steps: 0.9-1.2 ms with the tile, 2.2-2.4 ms
  with the row loop; the backward kernel 1.0-1.2 against 2.6-3.3 ms (1.6
  ms once it recomputes the gates itself, saving the op ~1-2 ms of NumPy).
- The gates' 8,192 sigmoids: libm's scalar expf 100 us, NumPy's SIMD exp
  (outside the loop, one call per step) 35 us, a branch-free polynomial
  expf LLVM vectorises 3.9 us. It needs error_model="numpy": Numba's
  default checks every division for a zero divisor, a branch that keeps the
  loop scalar. Numba compiles a callee with its caller's fastmath flags:
  the 1.5 * 2**23 rounding trick of a float32 reduction was reassociated
  away (exp(x) became 2**n); the reduction's steps are llvm.fmuladd calls, which
  reassociation leaves whole, and a test calls the activations from a
  fastmath kernel's context.
On the Zen 4 (AMD family 25 model 17), batch 16 a thread: 50 steps' gates
took 256 us with that reduction in float64 (half the lanes), 161 us in
float32; the step's stores 114 us as row slices, 37 us as element loops;
the LSTM forward kernel 620 -> 458 us a thread.
float64 keeps libm's exp and tanh (exact to the bits the gradchecks compare)."""

# runtime.jit first: it imports numba and registers the kernels' cache locator.
from ..runtime.jit import FASTMATH, njit  # noqa: I001

import numpy as np  # noqa: E402
from llvmlite import ir  # noqa: E402
from numba.core import cgutils, types  # noqa: E402
from numba.extending import intrinsic, overload  # noqa: E402

from . import gemm  # noqa: E402

__all__ = ["lstm_forward", "lstm_backward", "gru_forward", "gru_backward",
           "simple_rnn_forward", "simple_rnn_backward"]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _add_product(a, b, c):
    """c += a @ b for 2-D a (m, k), b (k, n), c (m, n)."""
    for i in range(a.shape[0]):
        for k in range(a.shape[1]):
            a_ik = a[i, k]
            for j in range(b.shape[1]):
                c[i, j] += a_ik * b[k, j]


def _packed(b):
    """What `_product` needs of b besides b: its packed panels for float32."""


def _product(a, b, packed, c):
    """c += a @ b: gemm.py's register-tiled product for float32, else `_add_product`."""


@overload(_packed)
def _packed_typed(b):
    if b.dtype == types.float32:
        return lambda b: gemm.pack_panels(b)
    return lambda b: np.empty((0, 0, 0), b.dtype)


@overload(_product)
def _product_typed(a, b, packed, c):
    if a.dtype == types.float32:
        return lambda a, b, packed, c: gemm.add_product(a, b, packed, c)
    return lambda a, b, packed, c: _add_product(a, b, c)


# float32 activations as arithmetic LLVM vectorises (libm's scalar expf and
# tanhf are 10x slower per value, NumPy's SIMD ones cost a call per step);
# float64 keeps libm's, exact to the last bits the float64 tests compare.

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
def _exp32(x):
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
    the result already rounds to 1 (_exp32's range handling left out: with it
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


def _sigmoid(x):
    """1 / (1 + exp(-x)) in the kernels (typed below); exp's overflow to inf
    gives the exact 0 of a very negative x, not NaN."""
    return 1.0 / (1.0 + np.exp(-x))


def _tanh(x):
    return np.tanh(x)


@overload(_sigmoid, jit_options={"error_model": "numpy"}, inline="always")
def _sigmoid_typed(x):
    if x == types.float32:
        return lambda x: np.float32(1.0) / (np.float32(1.0) + _exp32(-x))
    return lambda x: 1.0 / (1.0 + np.exp(-x))


@overload(_tanh, jit_options={"error_model": "numpy"}, inline="always")
def _tanh_typed(x):
    if x == types.float32:
        return lambda x: _tanh32(x)
    return lambda x: np.tanh(x)


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _masked_input(h, recurrent_mask, h_in):
    """h_in = h * recurrent_mask (all ones without recurrent dropout)."""
    for b in range(h.shape[0]):
        for j in range(h.shape[1]):
            h_in[b, j] = h[b, j] * recurrent_mask[b, j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _start(xw, t, z):
    """z = xw[:, t]: the step's input projection, the product then added."""
    for b in range(z.shape[0]):
        for j in range(z.shape[1]):
            z[b, j] = xw[b, t, j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _store(out, t, keep, zero_output, y, states, news):
    """Write step t's output and states, masked as Keras: a kept row takes the
    new states and outputs the new h; a masked one keeps its states and
    outputs the previous output (or 0). Element loops, not row slices: the
    slices' copies took 2.3 us a step of 16 rows, a sixth of the LSTM's step."""
    units = y.shape[1]
    for b in range(y.shape[0]):
        if keep[b, t]:
            for i in range(len(states)):
                state, new = states[i], news[i]
                for j in range(units):
                    state[b, j] = new[b, j]
            for j in range(units):
                y[b, j] = news[0][b, j]
        elif zero_output:
            for j in range(units):
                y[b, j] = 0.0
        for j in range(units):
            out[b, t, j] = y[b, j]
        for i in range(len(states)):
            state = states[i]
            for j in range(units):
                out[b, t, (i + 1) * units + j] = state[b, j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def lstm_forward(xw, kernel, h0, c0, keep, recurrent_mask, zero_output, out):
    """Keras's LSTM (gates i, f, c, o) over all steps: xw (B, T, 4U), kernel
    (U, 4U), h0, c0, recurrent_mask (B, U), keep (B, T) booleans; writes out
    (B, T, 3U): output, h, c per step."""
    batch, steps, units = xw.shape[0], xw.shape[1], kernel.shape[0]
    h, c = h0.copy(), c0.copy()
    y = np.zeros_like(h)
    h_in, h_new, c_new = np.empty_like(h), np.empty_like(h), np.empty_like(h)
    z = np.empty((batch, 4 * units), xw.dtype)
    packed = _packed(kernel)
    for t in range(steps):
        _masked_input(h, recurrent_mask, h_in)
        _start(xw, t, z)
        _product(h_in, kernel, packed, z)
        for b in range(batch):  # branch-free, so that it vectorises
            for j in range(units):
                cell = (_sigmoid(z[b, units + j]) * c[b, j]
                        + _sigmoid(z[b, j]) * _tanh(z[b, 2 * units + j]))
                c_new[b, j] = cell
                h_new[b, j] = _sigmoid(z[b, 3 * units + j]) * _tanh(cell)
        _store(out, t, keep, zero_output, y, (h, c), (h_new, c_new))


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _lstm_step_inputs(out, h0, c0, t, recurrent_mask, h_in, c_prev):
    """The states before step t (h0, c0 at the first step, else step t - 1's,
    from the forward's out): h_in = h * recurrent_mask, c_prev = c."""
    units = h_in.shape[1]
    if t == 0:
        for b in range(h_in.shape[0]):
            for j in range(units):
                h_in[b, j] = h0[b, j] * recurrent_mask[b, j]
                c_prev[b, j] = c0[b, j]
    else:
        for b in range(h_in.shape[0]):
            for j in range(units):
                h_in[b, j] = out[b, t - 1, units + j] * recurrent_mask[b, j]
                c_prev[b, j] = out[b, t - 1, 2 * units + j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _lstm_activations(z, c_prev, gates, cand, tanh_c):
    """A step's sigmoid of every gate (B, 4U; the c block unused), tanh of the
    candidate and of the new c (B, U), from the pre-activations z (B, 4U).
    One loop per array written: LLVM vectorised none of them when one loop
    wrote all five (too many runtime alias checks), nor a loop skipping the c
    block (3.3x slower than the sigmoids it saves)."""
    units = c_prev.shape[1]
    for b in range(z.shape[0]):
        for j in range(4 * units):
            gates[b, j] = _sigmoid(z[b, j])
    for b in range(z.shape[0]):
        for j in range(units):
            cand[b, j] = _tanh(z[b, 2 * units + j])
    for b in range(z.shape[0]):
        for j in range(units):
            tanh_c[b, j] = _tanh(gates[b, units + j] * c_prev[b, j] + gates[b, j] * cand[b, j])


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def lstm_backward(g, xw, out, h0, c0, kernel, kernel_t, keep, recurrent_mask, zero_output,
                  dz, dh0, dc0):
    """The LSTM's backward through time. g (B, T, 3U): the gradient of the
    forward's out (B, T, 3U), whose states are read back; xw (B, T, 4U),
    kernel (U, 4U), h0, c0: the forward's operands, from which each step's
    pre-activations are computed again as the forward did (the same product,
    the same bits) and its gates from them; kernel_t (4U, U) the kernel
    transposed. Writes dz (B, T, 4U), the pre-activations' gradient, and dh0,
    dc0 (B, U), the initial states'."""
    batch, steps, units = g.shape[0], g.shape[1], kernel.shape[0]
    dh, dc = np.zeros_like(dh0), np.zeros_like(dc0)  # gradients of the states before step t
    dy = np.zeros_like(dh0)
    d_prev = np.zeros_like(dh0)
    packed, packed_t = _packed(kernel), _packed(kernel_t)
    z = np.empty((batch, 4 * units), xw.dtype)
    gates = np.empty((batch, 4 * units), xw.dtype)
    h_in, c_prev = np.empty_like(dh0), np.empty_like(dh0)
    cand, tanh_c = np.empty_like(dh0), np.empty_like(dh0)
    for t in range(steps - 1, -1, -1):
        _lstm_step_inputs(out, h0, c0, t, recurrent_mask, h_in, c_prev)
        _start(xw, t, z)
        _product(h_in, kernel, packed, z)
        _lstm_activations(z, c_prev, gates, cand, tanh_c)
        for b in range(batch):
            kept = keep[b, t]
            for j in range(units):
                d_y = g[b, t, j] + dy[b, j]
                d_hs = g[b, t, units + j] + dh[b, j]
                d_cs = g[b, t, 2 * units + j] + dc[b, j]
                dy[b, j] = 0.0 if kept or zero_output else d_y  # a masked step's output
                i, f, o = gates[b, j], gates[b, units + j], gates[b, 3 * units + j]
                gg, tc = cand[b, j], tanh_c[b, j]
                d_h = d_y + d_hs if kept else 0.0
                d_c = (d_cs if kept else 0.0) + d_h * o * (1 - tc * tc)
                dz[b, t, j] = d_c * gg * (i * (1 - i))
                dz[b, t, units + j] = d_c * c_prev[b, j] * (f * (1 - f))
                dz[b, t, 2 * units + j] = d_c * i * (1 - gg * gg)
                dz[b, t, 3 * units + j] = d_h * tc * (o * (1 - o))
                dh[b, j] = 0.0 if kept else d_hs
                dc[b, j] = d_c * f if kept else d_cs
        d_prev[:] = 0.0
        _product(dz[:, t], kernel_t, packed_t, d_prev)
        for b in range(batch):
            for j in range(units):
                dh[b, j] += d_prev[b, j] * recurrent_mask[b, j]
    dh0[:] = dh
    dc0[:] = dc


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def gru_forward(xw, kernel, bias, h0, keep, recurrent_mask, zero_output, reset_after, out):
    """Keras's GRU (gates z, r, h) over all steps: xw (B, T, 3U) with the input
    bias, kernel (U, 3U), bias (3U,) the recurrent bias (reset_after only),
    h0, recurrent_mask (B, U), keep (B, T); writes out (B, T, 2U): output, h."""
    batch, steps, units = xw.shape[0], xw.shape[1], kernel.shape[0]
    h = h0.copy()
    y = np.zeros_like(h)
    h_in = np.empty_like(h)
    inner = np.empty((batch, 3 * units), xw.dtype)
    rh, h_new = np.empty_like(h), np.empty_like(h)
    kernel_zr, kernel_h = kernel[:, :2 * units], kernel[:, 2 * units:]
    packed, packed_zr, packed_h = _packed(kernel), _packed(kernel_zr), _packed(kernel_h)
    for t in range(steps):
        _masked_input(h, recurrent_mask, h_in)
        if reset_after:
            for b in range(batch):
                inner[b] = bias
            _product(h_in, kernel, packed, inner)
        else:
            inner[:] = 0.0
            _product(h_in, kernel_zr, packed_zr, inner[:, :2 * units])
            for b in range(batch):
                for j in range(units):
                    rh[b, j] = _sigmoid(xw[b, t, units + j] + inner[b, units + j]) * h_in[b, j]
            _product(rh, kernel_h, packed_h, inner[:, 2 * units:])
        for b in range(batch):
            for j in range(units):
                z = _sigmoid(xw[b, t, j] + inner[b, j])
                if reset_after:
                    r = _sigmoid(xw[b, t, units + j] + inner[b, units + j])
                    hh = _tanh(xw[b, t, 2 * units + j] + r * inner[b, 2 * units + j])
                else:
                    hh = _tanh(xw[b, t, 2 * units + j] + inner[b, 2 * units + j])
                h_new[b, j] = hh + z * (h[b, j] - hh)
        _store(out, t, keep, zero_output, y, (h,), (h_new,))


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def gru_backward(g, zr, hh, inner, h_prev, h_in, kernel_t, keep, recurrent_mask,
                 zero_output, reset_after, dx, d_inner, dh0):
    """The GRU's backward through time. g (B, T, 2U); zr (B, T, 2U): sigmoid of
    the z and r pre-activations; hh (B, T, U): the candidate; inner (B, T, 3U):
    h_in @ U + recurrent bias (read with reset_after only); h_prev, h_in (B, T,
    U): h before each step, and times the recurrent mask; kernel_t (3U, U).
    Writes dx (B, T, 3U), the input projection's gradient; d_inner (B, T,
    3U), that of h_in @ U (+ bias) with reset_after, else of h_in @ U_zr and
    (r * h_in) @ U_h; dh0 (B, U)."""
    batch, steps, units = g.shape[0], g.shape[1], kernel_t.shape[1]
    dh = np.zeros_like(dh0)
    dy = np.zeros_like(dh0)
    d_prev = np.zeros_like(dh0)
    d_rh = np.zeros_like(dh0)
    kernel_zr_t, kernel_h_t = kernel_t[:2 * units], kernel_t[2 * units:]
    packed, packed_zr, packed_h = _packed(kernel_t), _packed(kernel_zr_t), _packed(kernel_h_t)
    for t in range(steps - 1, -1, -1):
        for b in range(batch):
            kept = keep[b, t]
            for j in range(units):
                d_y = g[b, t, j] + dy[b, j]
                d_hs = g[b, t, units + j] + dh[b, j]
                dy[b, j] = 0.0 if kept or zero_output else d_y  # what a masked step's output passes back
                d = d_y + d_hs if kept else 0.0
                z = zr[b, t, j]
                c = hh[b, t, j]
                d_a = d * (1 - z) * (1 - c * c)
                dx[b, t, j] = d * (h_prev[b, t, j] - c) * (z * (1 - z))
                dx[b, t, 2 * units + j] = d_a
                d_inner[b, t, j] = dx[b, t, j]
                d_inner[b, t, 2 * units + j] = d_a * zr[b, t, units + j] if reset_after else d_a
                dh[b, j] = d * z if kept else d_hs
        if not reset_after:  # r's gradient needs (d_a @ U_h.T) first
            d_rh[:] = 0.0
            _product(dx[:, t, 2 * units:], kernel_h_t, packed_h, d_rh)
        for b in range(batch):
            for j in range(units):
                r = zr[b, t, units + j]
                if reset_after:
                    d_r = dx[b, t, 2 * units + j] * inner[b, t, 2 * units + j] * (r * (1 - r))
                else:
                    d_r = d_rh[b, j] * h_in[b, t, j] * (r * (1 - r))
                dx[b, t, units + j] = d_r
                d_inner[b, t, units + j] = d_r
        d_prev[:] = 0.0
        if reset_after:
            _product(d_inner[:, t], kernel_t, packed, d_prev)
        else:
            _product(dx[:, t, :2 * units], kernel_zr_t, packed_zr, d_prev)
            for b in range(batch):
                for j in range(units):
                    d_prev[b, j] += d_rh[b, j] * zr[b, t, units + j]
        for b in range(batch):
            for j in range(units):
                dh[b, j] += d_prev[b, j] * recurrent_mask[b, j]
    dh0[:] = dh


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def simple_rnn_forward(xw, kernel, h0, keep, recurrent_mask, zero_output, out):
    """A tanh SimpleRNN over all steps: xw (B, T, U), kernel (U, U), h0,
    recurrent_mask (B, U), keep (B, T); writes out (B, T, 2U): output, h."""
    batch, steps, units = xw.shape[0], xw.shape[1], kernel.shape[0]
    h = h0.copy()
    y = np.zeros_like(h)
    h_in = np.empty_like(h)
    z = np.empty_like(h)
    packed = _packed(kernel)
    for t in range(steps):
        _masked_input(h, recurrent_mask, h_in)
        _start(xw, t, z)
        _product(h_in, kernel, packed, z)
        for b in range(batch):
            for j in range(units):
                z[b, j] = _tanh(z[b, j])
        _store(out, t, keep, zero_output, y, (h,), (z,))


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def simple_rnn_backward(g, h_new, kernel_t, keep, recurrent_mask, zero_output, dx, dh0):
    """The SimpleRNN's backward through time. g (B, T, 2U); h_new (B, T, U):
    the unmasked new h of each step; kernel_t (U, U). Writes dx (B, T, U), the
    pre-activation's gradient, and dh0 (B, U)."""
    batch, steps, units = g.shape[0], g.shape[1], kernel_t.shape[1]
    dh = np.zeros_like(dh0)
    dy = np.zeros_like(dh0)
    d_prev = np.zeros_like(dh0)
    packed = _packed(kernel_t)
    for t in range(steps - 1, -1, -1):
        for b in range(batch):
            kept = keep[b, t]
            for j in range(units):
                d_y = g[b, t, j] + dy[b, j]
                d_hs = g[b, t, units + j] + dh[b, j]
                dy[b, j] = 0.0 if kept or zero_output else d_y  # what a masked step's output passes back
                hn = h_new[b, t, j]
                dx[b, t, j] = (d_y + d_hs) * (1 - hn * hn) if kept else 0.0
                dh[b, j] = 0.0 if kept else d_hs
        d_prev[:] = 0.0
        _product(dx[:, t], kernel_t, packed, d_prev)
        for b in range(batch):
            for j in range(units):
                dh[b, j] += d_prev[b, j] * recurrent_mask[b, j]
    dh0[:] = dh
