"""recurrent.py: the whole time loops of the fused recurrent ops
(ops/recurrent.py), one kernel per op and pass: `*_forward` runs every step
of an LSTM, a GRU (reset_after True or False) or a tanh SimpleRNN, `*_backward`
every step back. Masks (a masked step keeps the states and outputs the
previous output or zeros) and the recurrent dropout mask are arrays the op
always passes (all True / all ones when absent: the same values). The
backward kernels recompute what they need of the forward from their inputs
and the states in the forward's out: each step's pre-activations (the LSTM)
or gates (the GRU), with the forward's own product on the thread's rows
unless the forward kept its products (`pre`, when a backward will follow);
the SimpleRNN's from its new states, a vectorised NumPy pass over all steps.
The products over all steps (the SimpleRNN's h_prev @ U, every recurrent
kernel's gradient) stay one matmul each in the op. Each kernel runs on one thread;
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
- The gates' activations: kernels/activations.py.
On the Zen 4 (AMD family 25 model 17), batch 16 a thread, 50 steps: a step's
stores 114 us as row slices, 37 us as element loops (a row slice's copy is
slow; so were the GRU's bias rows); the LSTM forward kernel 620 -> 458 us;
the GRU's gradient op 1.37-1.45x faster (paired) with its gates computed again
in the kernel instead of NumPy passes over all steps. The LSTM's loops index
row views (`_blocks`), not a row at `units + j`: LLVM vectorised none of the
backward's element loops before (Numba wraps negative indices, and nothing
told LLVM units + j is not one); its backward over W8's 200 steps, 16 rows,
4.75 -> 3.90 ms, its step's dz written contiguous and then copied.
"""

# runtime.jit first: it imports numba and registers the kernels' cache locator.
from ..runtime.jit import FASTMATH, njit  # noqa: I001

import numpy as np  # noqa: E402
from numba.core import types  # noqa: E402
from numba.extending import overload  # noqa: E402

from . import gemm  # noqa: E402
from .activations import sigmoid as _sigmoid  # noqa: E402
from .activations import tanh as _tanh  # noqa: E402

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


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _masked_input(h, recurrent_mask, h_in):
    """h_in = h * recurrent_mask (all ones without recurrent dropout)."""
    for b in range(h.shape[0]):
        for j in range(h.shape[1]):
            h_in[b, j] = h[b, j] * recurrent_mask[b, j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _state_before(out, first, t, block, state):
    """state = a state before step t, as the backward kernels read it back:
    `first` (h0, c0) at the first step, else block `block` of the forward's
    out at step t - 1 (1: h, 2: c)."""
    units = state.shape[1]
    for b in range(state.shape[0]):
        source = first[b] if t == 0 else out[b, t - 1, block * units:(block + 1) * units]
        row = state[b]
        for j in range(units):
            row[j] = source[j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _start(xw, t, z):
    """z = xw[:, t]: the step's input projection, the product then added."""
    for b in range(z.shape[0]):
        for j in range(z.shape[1]):
            z[b, j] = xw[b, t, j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _keep_step(z, t, pre):
    """pre[:, t] = z: a step's products (the LSTM's pre-activations, the GRU's
    recurrent products), kept for the backward."""
    for b in range(z.shape[0]):
        for j in range(z.shape[1]):
            pre[b, t, j] = z[b, j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _store(out, t, keep, zero_output, y, states, news):
    """Write step t's output and states, masked as Keras: a kept row takes the
    new states and outputs the new h; a masked one keeps its states and
    outputs the previous output (or 0). Element loops, not row slices: the
    slices' copies took 2.3 us a step of 16 rows, a sixth of the LSTM's step."""
    units = y.shape[1]
    for b in range(y.shape[0]):
        y_row = y[b]
        if keep[b, t]:
            for i in range(len(states)):
                state, new = states[i][b], news[i][b]
                for j in range(units):
                    state[j] = new[j]
            new_h = news[0][b]
            for j in range(units):
                y_row[j] = new_h[j]
        elif zero_output:
            for j in range(units):
                y_row[j] = 0.0
        into = out[b, t, :units]
        for j in range(units):
            into[j] = y_row[j]
        for i in range(len(states)):
            state, into = states[i][b], out[b, t, (i + 1) * units:(i + 2) * units]
            for j in range(units):
                into[j] = state[j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _blocks(row, units):
    """The four gate blocks (i, f, c, o) of a row of 4U values, as views: loops
    over a view's j vectorise; indexing the row at `units + j` did not (Numba
    wraps a negative index, and LLVM cannot tell units + j is not one)."""
    return row[:units], row[units:2 * units], row[2 * units:3 * units], row[3 * units:]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def lstm_forward(xw, kernel, h0, c0, keep, recurrent_mask, zero_output, out, pre):
    """Keras's LSTM (gates i, f, c, o) over all steps: xw (B, T, 4U), kernel
    (U, 4U), h0, c0, recurrent_mask (B, U), keep (B, T) booleans; writes out
    (B, T, 3U): output, h, c per step, and, unless `pre` is (B, 0, 4U), each
    step's pre-activations into pre (B, T, 4U), which the backward then reads
    instead of computing them again (its product, ~1/3 of its time)."""
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
        if pre.shape[1]:
            _keep_step(z, t, pre)
        for b in range(batch):  # branch-free, so that it vectorises
            z_i, z_f, z_c, z_o = _blocks(z[b], units)
            c_row, c_new_row, h_new_row = c[b], c_new[b], h_new[b]
            for j in range(units):
                cell = _sigmoid(z_f[j]) * c_row[j] + _sigmoid(z_i[j]) * _tanh(z_c[j])
                c_new_row[j] = cell
                h_new_row[j] = _sigmoid(z_o[j]) * _tanh(cell)
        _store(out, t, keep, zero_output, y, (h, c), (h_new, c_new))


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _lstm_activations(z, c_prev, gates, cand, tanh_c):
    """A step's sigmoid of every gate (B, 4U; the c block unused), tanh of the
    candidate and of the new c (B, U), from the pre-activations z (B, 4U).
    One loop per array written: LLVM vectorised none of them when one loop
    wrote all five (too many runtime alias checks), nor a loop skipping the c
    block (3.3x slower than the sigmoids it saves)."""
    units = c_prev.shape[1]
    for b in range(z.shape[0]):
        z_row, gate_row = z[b], gates[b]
        for j in range(4 * units):
            gate_row[j] = _sigmoid(z_row[j])
    for b in range(z.shape[0]):
        z_c, cand_row = z[b, 2 * units:3 * units], cand[b]
        for j in range(units):
            cand_row[j] = _tanh(z_c[j])
    for b in range(z.shape[0]):
        i, f, _, _ = _blocks(gates[b], units)
        c_row, cand_row, tanh_row = c_prev[b], cand[b], tanh_c[b]
        for j in range(units):
            tanh_row[j] = _tanh(f[j] * c_row[j] + i[j] * cand_row[j])


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def lstm_backward(g, xw, pre, out, h0, c0, kernel, kernel_t, keep, recurrent_mask, zero_output,
                  dz, dh0, dc0):
    """The LSTM's backward through time. g (B, T, 3U): the gradient of the
    forward's out (B, T, 3U), whose states are read back; pre (B, T, 4U): the
    pre-activations the forward kept, or (B, 0, 4U): then each step's are
    computed again from the forward's operands xw (B, T, 4U), kernel (U, 4U),
    h0, c0 as the forward did (the same product, the same bits); the gates
    from them; kernel_t (4U, U) the kernel transposed. Writes dz (B, T, 4U),
    the pre-activations' gradient, and dh0, dc0 (B, U), the initial states'."""
    batch, steps, units = g.shape[0], g.shape[1], kernel.shape[0]
    dh, dc = np.zeros_like(dh0), np.zeros_like(dc0)  # gradients of the states before step t
    dy = np.zeros_like(dh0)
    d_prev = np.zeros_like(dh0)
    packed, packed_t = _packed(kernel), _packed(kernel_t)
    z = np.empty((batch, 4 * units), xw.dtype)
    gates = np.empty((batch, 4 * units), xw.dtype)
    h_prev, h_in, c_prev = np.empty_like(dh0), np.empty_like(dh0), np.empty_like(dh0)
    cand, tanh_c = np.empty_like(dh0), np.empty_like(dh0)
    d_h, d_c = np.empty_like(dh0), np.empty_like(dh0)  # the step's, before the gates
    # the step's dz, contiguous: written there and copied into dz after the product
    # (W8's 200 steps, 16 rows: 4.2 -> 3.9 ms against writing into dz[:, t])
    dz_step = np.empty((batch, 4 * units), xw.dtype)
    for t in range(steps - 1, -1, -1):
        _state_before(out, c0, t, 2, c_prev)
        if pre.shape[1]:  # kept by the forward
            _start(pre, t, z)
        else:
            _state_before(out, h0, t, 1, h_prev)
            _masked_input(h_prev, recurrent_mask, h_in)
            _start(xw, t, z)
            _product(h_in, kernel, packed, z)
        _lstm_activations(z, c_prev, gates, cand, tanh_c)
        for b in range(batch):  # the states' gradients: four arrays written, not five
            kept = keep[b, t]
            g_y, g_h, g_c = g[b, t, :units], g[b, t, units:2 * units], g[b, t, 2 * units:]
            dy_row, dh_row, dc_row, d_h_row, d_c_row = dy[b], dh[b], dc[b], d_h[b], d_c[b]
            _, f, _, o = _blocks(gates[b], units)
            tanh_row = tanh_c[b]
            for j in range(units):
                d_y = g_y[j] + dy_row[j]
                d_hs = g_h[j] + dh_row[j]
                d_cs = g_c[j] + dc_row[j]
                dy_row[j] = 0.0 if kept or zero_output else d_y  # a masked step's output
                tc = tanh_row[j]
                dh_step = d_y + d_hs if kept else 0.0
                dc_step = (d_cs if kept else 0.0) + dh_step * o[j] * (1 - tc * tc)
                d_h_row[j] = dh_step
                d_c_row[j] = dc_step
                dh_row[j] = 0.0 if kept else d_hs
                dc_row[j] = dc_step * f[j] if kept else d_cs
        for b in range(batch):  # the pre-activations' gradients, one array written
            i, f, _, o = _blocks(gates[b], units)
            dz_i, dz_f, dz_c, dz_o = _blocks(dz_step[b], units)
            d_h_row, d_c_row = d_h[b], d_c[b]
            cand_row, tanh_row, c_row = cand[b], tanh_c[b], c_prev[b]
            for j in range(units):
                dc_step, gg = d_c_row[j], cand_row[j]
                dz_i[j] = dc_step * gg * (i[j] * (1 - i[j]))
                dz_f[j] = dc_step * c_row[j] * (f[j] * (1 - f[j]))
                dz_c[j] = dc_step * i[j] * (1 - gg * gg)
                dz_o[j] = d_h_row[j] * tanh_row[j] * (o[j] * (1 - o[j]))
        d_prev[:] = 0.0
        _product(dz_step, kernel_t, packed_t, d_prev)
        _keep_step(dz_step, t, dz)
        for b in range(batch):
            for j in range(units):
                dh[b, j] += d_prev[b, j] * recurrent_mask[b, j]
    dh0[:] = dh
    dc0[:] = dc


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _gru_inner(xw, t, h_in, kernel, bias, reset_after, packs, inner, rh):
    """Step t's recurrent products: inner = h_in @ U + bias with reset_after;
    else h_in @ U_zr, then rh = r * h_in and (r * h_in) @ U_h. `packs`: the
    packed U, U_zr and U_h."""
    batch, units = h_in.shape
    packed, packed_zr, packed_h = packs
    if reset_after:
        for b in range(batch):  # element loops: a row slice's copy is several times slower
            for j in range(3 * units):
                inner[b, j] = bias[j]
        _product(h_in, kernel, packed, inner)
    else:
        inner[:] = 0.0
        _product(h_in, kernel[:, :2 * units], packed_zr, inner[:, :2 * units])
        _reset_input(xw, t, h_in, inner, rh)
        _product(rh, kernel[:, 2 * units:], packed_h, inner[:, 2 * units:])


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _reset_input(xw, t, h_in, inner, rh):
    """rh = r * h_in, r from xw and h_in @ U_zr (in inner), without reset_after."""
    units = h_in.shape[1]
    for b in range(h_in.shape[0]):
        for j in range(units):
            rh[b, j] = _sigmoid(xw[b, t, units + j] + inner[b, units + j]) * h_in[b, j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _gru_kept_inner(xw, t, h_in, reset_after, pre, inner, rh):
    """Step t's recurrent products as the forward kept them in pre (B, T, 3U),
    and without reset_after rh = r * h_in from them, as _gru_inner computes it."""
    _start(pre, t, inner)
    if not reset_after:
        _reset_input(xw, t, h_in, inner, rh)


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _gru_gates(xw, t, h_in, kernel, bias, reset_after, packs, inner, zr, hh, rh, pre):
    """Step t's gates as gru_forward computes them: _gru_inner's products (read
    from `pre` when the forward kept them there), zr the sigmoid of z and r,
    hh the candidate."""
    batch, units = h_in.shape
    if pre.shape[1]:
        _gru_kept_inner(xw, t, h_in, reset_after, pre, inner, rh)
    else:
        _gru_inner(xw, t, h_in, kernel, bias, reset_after, packs, inner, rh)
    for b in range(batch):
        for j in range(2 * units):
            zr[b, j] = _sigmoid(xw[b, t, j] + inner[b, j])
    if reset_after:
        for b in range(batch):
            for j in range(units):
                hh[b, j] = _tanh(xw[b, t, 2 * units + j] + zr[b, units + j] * inner[b, 2 * units + j])
    else:
        for b in range(batch):
            for j in range(units):
                hh[b, j] = _tanh(xw[b, t, 2 * units + j] + inner[b, 2 * units + j])


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def gru_forward(xw, kernel, bias, h0, keep, recurrent_mask, zero_output, reset_after, out, pre):
    """Keras's GRU (gates z, r, h) over all steps: xw (B, T, 3U) with the input
    bias, kernel (U, 3U), bias (3U,) the recurrent bias (reset_after only),
    h0, recurrent_mask (B, U), keep (B, T); writes out (B, T, 2U): output, h,
    and, unless `pre` is (B, 0, 3U), each step's recurrent products (h_in @ U
    + bias, or h_in @ U_zr and (r * h_in) @ U_h) into pre (B, T, 3U), which
    the backward then reads instead of computing them again."""
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
        # _gru_inner's products, written out here: called, they cost the forward
        # without reset_after 20% (the backward's gates pay it back many times)
        if reset_after:
            for b in range(batch):  # element loops: a row slice's copy is several times slower
                for j in range(3 * units):
                    inner[b, j] = bias[j]
            _product(h_in, kernel, packed, inner)
        else:
            inner[:] = 0.0
            _product(h_in, kernel_zr, packed_zr, inner[:, :2 * units])
            for b in range(batch):
                for j in range(units):
                    rh[b, j] = _sigmoid(xw[b, t, units + j] + inner[b, units + j]) * h_in[b, j]
            _product(rh, kernel_h, packed_h, inner[:, 2 * units:])
        if pre.shape[1]:
            _keep_step(inner, t, pre)
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
def gru_backward(g, xw, pre, out, h0, kernel, kernel_t, bias, keep, recurrent_mask, zero_output,
                 reset_after, dx, d_inner, rh_steps, dh0):
    """The GRU's backward through time. g (B, T, 2U): the gradient of the
    forward's out (B, T, 2U), whose states are read back; xw (B, T, 3U),
    kernel (U, 3U), bias (3U,), h0: the forward's operands, from which each
    step's gates are computed again as the forward did, from the recurrent
    products it kept in pre (B, T, 3U) unless pre is (B, 0, 3U); kernel_t (3U, U).
    Writes dx (B, T, 3U), the input projection's gradient; d_inner (B, T, 3U),
    that of h_in @ U (+ bias) with reset_after, else of h_in @ U_zr and
    (r * h_in) @ U_h; rh_steps (B, T, U), r * h_in per step, without
    reset_after (the op's gradient of U_h; not touched with it); dh0 (B, U)."""
    batch, steps, units = g.shape[0], g.shape[1], kernel.shape[0]
    dh = np.zeros_like(dh0)
    dy = np.zeros_like(dh0)
    d_prev = np.zeros_like(dh0)
    d_rh = np.zeros_like(dh0)
    kernel_zr_t, kernel_h_t = kernel_t[:2 * units], kernel_t[2 * units:]
    packed_t, packed_zr_t, packed_h_t = (_packed(kernel_t), _packed(kernel_zr_t),
                                         _packed(kernel_h_t))
    packs = (_packed(kernel), _packed(kernel[:, :2 * units]), _packed(kernel[:, 2 * units:]))
    inner = np.empty((batch, 3 * units), xw.dtype)
    zr = np.empty((batch, 2 * units), xw.dtype)
    h_prev, h_in, hh, rh = (np.empty_like(dh0), np.empty_like(dh0), np.empty_like(dh0),
                            np.empty_like(dh0))
    for t in range(steps - 1, -1, -1):
        _state_before(out, h0, t, 1, h_prev)
        _masked_input(h_prev, recurrent_mask, h_in)
        _gru_gates(xw, t, h_in, kernel, bias, reset_after, packs, inner, zr, hh, rh, pre)
        if not reset_after:
            for b in range(batch):
                for j in range(units):
                    rh_steps[b, t, j] = rh[b, j]
        for b in range(batch):
            kept = keep[b, t]
            for j in range(units):
                d_y = g[b, t, j] + dy[b, j]
                d_hs = g[b, t, units + j] + dh[b, j]
                dy[b, j] = 0.0 if kept or zero_output else d_y  # what a masked step's output passes back
                d = d_y + d_hs if kept else 0.0
                z = zr[b, j]
                c = hh[b, j]
                d_a = d * (1 - z) * (1 - c * c)
                dx[b, t, j] = d * (h_prev[b, j] - c) * (z * (1 - z))
                dx[b, t, 2 * units + j] = d_a
                d_inner[b, t, j] = dx[b, t, j]
                d_inner[b, t, 2 * units + j] = d_a * zr[b, units + j] if reset_after else d_a
                dh[b, j] = d * z if kept else d_hs
        if not reset_after:  # r's gradient needs (d_a @ U_h.T) first
            d_rh[:] = 0.0
            _product(dx[:, t, 2 * units:], kernel_h_t, packed_h_t, d_rh)
        for b in range(batch):
            for j in range(units):
                r = zr[b, units + j]
                if reset_after:
                    d_r = dx[b, t, 2 * units + j] * inner[b, 2 * units + j] * (r * (1 - r))
                else:
                    d_r = d_rh[b, j] * h_in[b, j] * (r * (1 - r))
                dx[b, t, units + j] = d_r
                d_inner[b, t, units + j] = d_r
        d_prev[:] = 0.0
        if reset_after:
            _product(d_inner[:, t], kernel_t, packed_t, d_prev)
        else:
            _product(dx[:, t, :2 * units], kernel_zr_t, packed_zr_t, d_prev)
            for b in range(batch):
                for j in range(units):
                    d_prev[b, j] += d_rh[b, j] * zr[b, units + j]
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
