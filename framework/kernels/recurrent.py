"""recurrent.py: the whole time loops of the fused recurrent ops
(ops/recurrent.py), one kernel per op and pass: `*_forward` runs every step
of an LSTM, a GRU (reset_after True or False) or a tanh SimpleRNN, `*_backward`
every step back, from the pieces in recurrent_steps.py (the step's product,
its copies and masked store). Masks (a masked step keeps the states and
outputs the previous output or zeros) and the recurrent dropout mask are
arrays the op always passes (all True / all ones when absent: the same
values). The backward kernels recompute what they need of the forward from
their inputs and the states in the forward's out: each step's gates, with
the forward's own product and activations on the thread's rows, unless the
forward kept them (`pre`, when a backward will follow: the LSTM's gates, the
GRU's recurrent products); the SimpleRNN's from its new states, a vectorised NumPy pass over all
steps. The products over all steps (the SimpleRNN's h_prev @ U, every
recurrent kernel's gradient) stay one matmul each in the op. Each kernel runs
on one thread; recurrent_threads.py runs it on all of them, each on a slice of
the batch (a step, 2k-8k values, is too small to split).

Measured on the Zen 4 (AMD family 25 model 17), batch 16 a thread: over 50
steps the LSTM forward kernel 620 -> 458 us with its stores as element loops;
the GRU's gradient op 1.37-1.45x faster (paired) with its gates computed again
in the kernel instead of NumPy passes over all steps. The loops index row
views (`gate_blocks`), not a row at `units + j`, where that vectorises them:
Numba wraps negative indices, and nothing tells LLVM units + j is not one.
A backward's step writes its results into contiguous step buffers, copied
into the (B, T, k) arrays after the products, and its states' gradients in a
loop of their own (one loop writing many arrays needs more runtime alias
checks than LLVM makes, and stays scalar). Over 200 steps, 16 rows, 64 units,
one thread (medians, interleaved in one process on shared arrays): the LSTM
backward 4.00 -> 3.52 ms, and 3.45 -> 2.91 ms once its forward kept the gates,
not the pre-activations (the forward +1%); the GRU's 4.35 -> 3.58 with reset_after, 5.35 ->
4.36 without. The forwards and the SimpleRNN's kernels measured no faster so
(the SimpleRNN's dx contiguous was 9-16% slower).
"""

# runtime.jit first: it imports numba and registers the kernels' cache locator.
from ..runtime.jit import FASTMATH, njit  # noqa: I001

import numpy as np  # noqa: E402

from .activations import sigmoid as _sigmoid  # noqa: E402
from .activations import tanh as _tanh  # noqa: E402
from .recurrent_steps import (add_step, gate_blocks, write_step, masked_input,  # noqa: E402
                              panels, state_before, step_product, read_step, read_step_bias,
                              store_step)

__all__ = ["lstm_forward", "lstm_backward", "gru_forward", "gru_backward",
           "simple_rnn_forward", "simple_rnn_backward"]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def lstm_forward(xw, kernel, bias, h0, c0, keep, recurrent_mask, zero_output, out, pre):
    """Keras's LSTM (gates i, f, c, o) over all steps: xw (B, T, 4U) (the input
    projection x @ W, without the bias), kernel (U, 4U), bias (4U,), h0, c0,
    recurrent_mask (B, U), keep (B, T) booleans; writes out
    (B, T, 3U): output, h, c per step, and, unless `pre` is (B, 0, 4U), each
    step's gates (sigmoid of i, f, o, tanh of the candidate) into pre
    (B, T, 4U), which the backward then reads instead of computing them again
    (its product and activations, ~40% of its time)."""
    batch, steps, units = xw.shape[0], xw.shape[1], kernel.shape[0]
    h, c = h0.copy(), c0.copy()
    y = np.zeros_like(h)
    h_in, h_new, c_new = np.empty_like(h), np.empty_like(h), np.empty_like(h)
    z = np.empty((batch, 4 * units), xw.dtype)
    gates = np.empty_like(z)
    packed = panels(kernel)
    for t in range(steps):
        masked_input(h, recurrent_mask, h_in)
        read_step_bias(xw, t, bias, z)
        step_product(h_in, kernel, packed, z)
        _gate_activations(z, gates)
        if pre.shape[1]:
            write_step(gates, t, pre)
        for b in range(batch):
            i, f, g, o = gate_blocks(gates[b], units)
            c_row, c_new_row, h_new_row = c[b], c_new[b], h_new[b]
            for j in range(units):  # branch-free, so that it vectorises
                cell = f[j] * c_row[j] + i[j] * g[j]
                c_new_row[j] = cell
                h_new_row[j] = o[j] * _tanh(cell)
        store_step(out, t, keep, zero_output, y, (h, c), (h_new, c_new))


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _gate_activations(z, gates):
    """A step's gates (B, 4U) from its pre-activations z: the sigmoid of i, f
    and o, tanh of the candidate; one loop per block, each vectorised."""
    units = z.shape[1] // 4
    for b in range(z.shape[0]):
        z_i, z_f, z_c, z_o = gate_blocks(z[b], units)
        i, f, g, o = gate_blocks(gates[b], units)
        for j in range(units):
            i[j] = _sigmoid(z_i[j])
        for j in range(units):
            f[j] = _sigmoid(z_f[j])
        for j in range(units):
            g[j] = _tanh(z_c[j])
        for j in range(units):
            o[j] = _sigmoid(z_o[j])


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _cell_tanh(gates, c_prev, tanh_c):
    """tanh of a step's new c, unmasked (B, U), from its gates and c_prev."""
    units = c_prev.shape[1]
    for b in range(gates.shape[0]):
        i, f, g, _ = gate_blocks(gates[b], units)
        c_row, tanh_row = c_prev[b], tanh_c[b]
        for j in range(units):
            tanh_row[j] = _tanh(f[j] * c_row[j] + i[j] * g[j])


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def lstm_backward(g, xw, pre, out, h0, c0, kernel, kernel_t, bias, keep, recurrent_mask,
                  zero_output, dz, db, dh0, dc0):
    """The LSTM's backward through time. g (B, T, 3U): the gradient of the
    forward's out (B, T, 3U), whose states are read back; pre (B, T, 4U): the
    gates the forward kept, or (B, 0, 4U): then each step's are computed again
    from the forward's operands xw (B, T, 4U), kernel (U, 4U), bias, h0, c0 as
    the forward did (the same product and activations, the same bits);
    kernel_t (4U, U) the kernel transposed. Writes dz (B, T, 4U), the
    pre-activations' gradient, and dh0, dc0 (B, U), the initial states'; adds
    each row's dz over the steps into db (B, 4U), whose sum over the rows is
    the bias gradient (summed here, where each step's dz is in cache: a pass
    over the whole dz after the op took 138 us of W8's 4 ms LSTM(64) step on
    the Xeon; in the kernel's dtype, as the product with a ones vector it
    replaced summed in float32)."""
    batch, steps, units = g.shape[0], g.shape[1], kernel.shape[0]
    # typed constants: a bare 0.0 or 1 would make the float32 loops below float64
    zero, one = np.zeros(1, dh0.dtype)[0], np.ones(1, dh0.dtype)[0]
    dh, dc = np.zeros_like(dh0), np.zeros_like(dc0)  # gradients of the states before step t
    dy = np.zeros_like(dh0)
    d_prev = np.zeros_like(dh0)
    packed, packed_t = panels(kernel), panels(kernel_t)
    z = np.empty((batch, 4 * units), xw.dtype)
    gates = np.empty((batch, 4 * units), xw.dtype)
    h_prev, h_in, c_prev = np.empty_like(dh0), np.empty_like(dh0), np.empty_like(dh0)
    tanh_c = np.empty_like(dh0)
    d_h, d_c = np.empty_like(dh0), np.empty_like(dh0)  # the step's, before the gates
    # the step's dz, contiguous: written there and copied into dz after the product
    # (W8's 200 steps, 16 rows, one thread: 4.04 -> 3.64 ms against writing into dz[:, t])
    dz_step = np.empty((batch, 4 * units), xw.dtype)
    for t in range(steps - 1, -1, -1):
        state_before(out, c0, t, 2, c_prev)
        if pre.shape[1]:
            read_step(pre, t, gates)
        else:
            state_before(out, h0, t, 1, h_prev)
            masked_input(h_prev, recurrent_mask, h_in)
            read_step_bias(xw, t, bias, z)
            step_product(h_in, kernel, packed, z)
            _gate_activations(z, gates)
        _cell_tanh(gates, c_prev, tanh_c)
        for b in range(batch):  # the states' gradients: four arrays written, not five
            kept = keep[b, t]
            g_y, g_h, g_c = g[b, t, :units], g[b, t, units:2 * units], g[b, t, 2 * units:]
            dy_row, dh_row, dc_row, d_h_row, d_c_row = dy[b], dh[b], dc[b], d_h[b], d_c[b]
            _, f, _, o = gate_blocks(gates[b], units)
            tanh_row = tanh_c[b]
            for j in range(units):
                d_y = g_y[j] + dy_row[j]
                d_hs = g_h[j] + dh_row[j]
                d_cs = g_c[j] + dc_row[j]
                dy_row[j] = zero if kept or zero_output else d_y  # a masked step's output
                tc = tanh_row[j]
                dh_step = d_y + d_hs if kept else zero
                dc_step = (d_cs if kept else zero) + dh_step * o[j] * (one - tc * tc)
                d_h_row[j] = dh_step
                d_c_row[j] = dc_step
                dh_row[j] = zero if kept else d_hs
                dc_row[j] = dc_step * f[j] if kept else d_cs
        for b in range(batch):  # the pre-activations' gradients, one array written
            i, f, cand_row, o = gate_blocks(gates[b], units)
            dz_i, dz_f, dz_c, dz_o = gate_blocks(dz_step[b], units)
            d_h_row, d_c_row = d_h[b], d_c[b]
            tanh_row, c_row = tanh_c[b], c_prev[b]
            for j in range(units):
                dc_step, gg = d_c_row[j], cand_row[j]
                dz_i[j] = dc_step * gg * (i[j] * (one - i[j]))
                dz_f[j] = dc_step * c_row[j] * (f[j] * (one - f[j]))
                dz_c[j] = dc_step * i[j] * (one - gg * gg)
                dz_o[j] = d_h_row[j] * tanh_row[j] * (o[j] * (one - o[j]))
        d_prev[:] = 0.0
        step_product(dz_step, kernel_t, packed_t, d_prev)
        write_step(dz_step, t, dz)
        add_step(dz_step, db)
        for b in range(batch):
            for j in range(units):
                dh[b, j] += d_prev[b, j] * recurrent_mask[b, j]
    dh0[:] = dh
    dc0[:] = dc


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _gru_inner(xw, x_bias, t, h_in, kernel, bias, reset_after, packs, inner, rh):
    """Step t's recurrent products: inner = h_in @ U + bias with reset_after;
    else h_in @ U_zr, then rh = r * h_in and (r * h_in) @ U_h. `packs`: the
    packed U, U_zr and U_h."""
    batch, units = h_in.shape
    packed, packed_zr, packed_h = packs
    if reset_after:
        for b in range(batch):  # element loops: a row slice's copy is several times slower
            for j in range(3 * units):
                inner[b, j] = bias[j]
        step_product(h_in, kernel, packed, inner)
    else:
        inner[:] = 0.0
        step_product(h_in, kernel[:, :2 * units], packed_zr, inner[:, :2 * units])
        _reset_input(xw, x_bias, t, h_in, inner, rh)
        step_product(rh, kernel[:, 2 * units:], packed_h, inner[:, 2 * units:])


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _reset_input(xw, x_bias, t, h_in, inner, rh):
    """rh = r * h_in, r from xw + x_bias and h_in @ U_zr (in inner), without
    reset_after."""
    units = h_in.shape[1]
    xb_r = x_bias[units:2 * units]
    for b in range(h_in.shape[0]):  # row views (`gate_blocks`): the GRU's backward 5-8% faster
        x_r, inner_r = xw[b, t, units:2 * units], inner[b, units:2 * units]
        h_row, rh_row = h_in[b], rh[b]
        for j in range(units):
            rh_row[j] = _sigmoid((x_r[j] + xb_r[j]) + inner_r[j]) * h_row[j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _gru_kept_inner(xw, x_bias, t, h_in, reset_after, pre, inner, rh):
    """Step t's recurrent products as the forward kept them in pre (B, T, 3U),
    and without reset_after rh = r * h_in from them, as _gru_inner computes it."""
    read_step(pre, t, inner)
    if not reset_after:
        _reset_input(xw, x_bias, t, h_in, inner, rh)


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def _gru_gates(xw, x_bias, t, h_in, kernel, bias, reset_after, packs, inner, zr, hh, rh, pre):
    """Step t's gates as gru_forward computes them: _gru_inner's products (read
    from `pre` when the forward kept them there), zr the sigmoid of z and r,
    hh the candidate."""
    batch, units = h_in.shape
    if pre.shape[1]:
        _gru_kept_inner(xw, x_bias, t, h_in, reset_after, pre, inner, rh)
    else:
        _gru_inner(xw, x_bias, t, h_in, kernel, bias, reset_after, packs, inner, rh)
    for b in range(batch):
        for j in range(2 * units):
            zr[b, j] = _sigmoid((xw[b, t, j] + x_bias[j]) + inner[b, j])
    if reset_after:
        for b in range(batch):
            for j in range(units):
                hh[b, j] = _tanh((xw[b, t, 2 * units + j] + x_bias[2 * units + j])
                                 + zr[b, units + j] * inner[b, 2 * units + j])
    else:
        for b in range(batch):
            for j in range(units):
                hh[b, j] = _tanh((xw[b, t, 2 * units + j] + x_bias[2 * units + j])
                                 + inner[b, 2 * units + j])


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def gru_forward(xw, kernel, x_bias, bias, h0, keep, recurrent_mask, zero_output, reset_after,
                out, pre):
    """Keras's GRU (gates z, r, h) over all steps: xw (B, T, 3U) the input
    projection x @ W, x_bias (3U,) the input bias (added here, as the LSTM's),
    kernel (U, 3U), bias (3U,) the recurrent bias (reset_after only),
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
    packed, packed_zr, packed_h = panels(kernel), panels(kernel_zr), panels(kernel_h)
    for t in range(steps):
        masked_input(h, recurrent_mask, h_in)
        # _gru_inner's products, written out here: called, they cost the forward
        # without reset_after 20% (the backward's gates pay it back many times)
        if reset_after:
            for b in range(batch):  # element loops: a row slice's copy is several times slower
                for j in range(3 * units):
                    inner[b, j] = bias[j]
            step_product(h_in, kernel, packed, inner)
        else:
            inner[:] = 0.0
            step_product(h_in, kernel_zr, packed_zr, inner[:, :2 * units])
            for b in range(batch):
                for j in range(units):
                    rh[b, j] = _sigmoid((xw[b, t, units + j] + x_bias[units + j])
                                        + inner[b, units + j]) * h_in[b, j]
            step_product(rh, kernel_h, packed_h, inner[:, 2 * units:])
        if pre.shape[1]:
            write_step(inner, t, pre)
        for b in range(batch):
            for j in range(units):
                z = _sigmoid((xw[b, t, j] + x_bias[j]) + inner[b, j])
                if reset_after:
                    r = _sigmoid((xw[b, t, units + j] + x_bias[units + j]) + inner[b, units + j])
                    hh = _tanh((xw[b, t, 2 * units + j] + x_bias[2 * units + j])
                               + r * inner[b, 2 * units + j])
                else:
                    hh = _tanh((xw[b, t, 2 * units + j] + x_bias[2 * units + j])
                               + inner[b, 2 * units + j])
                h_new[b, j] = hh + z * (h[b, j] - hh)
        store_step(out, t, keep, zero_output, y, (h,), (h_new,))


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def gru_backward(g, xw, pre, out, h0, kernel, kernel_t, x_bias, bias, keep, recurrent_mask,
                 zero_output, reset_after, dx, d_inner, rh_steps, dx_bias, dh0):
    """The GRU's backward through time. g (B, T, 2U): the gradient of the
    forward's out (B, T, 2U), whose states are read back; xw (B, T, 3U),
    kernel (U, 3U), bias (3U,), h0: the forward's operands, from which each
    step's gates are computed again as the forward did, from the recurrent
    products it kept in pre (B, T, 3U) unless pre is (B, 0, 3U); kernel_t (3U, U).
    Writes dx (B, T, 3U), the input projection's gradient; d_inner (B, T, 3U),
    that of h_in @ U + bias, with reset_after (without it, the gradient of
    h_in @ U_zr and (r * h_in) @ U_h is dx itself, and d_inner is not touched);
    rh_steps (B, T, U), r * h_in per step, without reset_after (the op's
    gradient of U_h; not touched with it); dh0 (B, U); adds each row's dx over
    the steps into dx_bias (B, 3U), whose sum over the rows is the input bias's
    gradient (as lstm_backward's db)."""
    batch, steps, units = g.shape[0], g.shape[1], kernel.shape[0]
    # typed constants: a bare 0.0 or 1 would make the float32 loops below float64
    zero, one = np.zeros(1, dh0.dtype)[0], np.ones(1, dh0.dtype)[0]
    dh = np.zeros_like(dh0)
    dy = np.zeros_like(dh0)
    d_prev = np.zeros_like(dh0)
    d_rh = np.zeros_like(dh0)
    kernel_zr_t, kernel_h_t = kernel_t[:2 * units], kernel_t[2 * units:]
    packed_t, packed_zr_t, packed_h_t = (panels(kernel_t), panels(kernel_zr_t),
                                         panels(kernel_h_t))
    packs = (panels(kernel), panels(kernel[:, :2 * units]), panels(kernel[:, 2 * units:]))
    inner = np.empty((batch, 3 * units), xw.dtype)
    zr = np.empty((batch, 2 * units), xw.dtype)
    h_prev, h_in, hh, rh = (np.empty_like(dh0), np.empty_like(dh0), np.empty_like(dh0),
                            np.empty_like(dh0))
    d_new = np.empty_like(dh0)  # the gradient of the step's new h, 0 where masked
    # the step's dx and d_inner, contiguous: written there, copied after the products
    # (4-6% faster, 13-17% with reset_after, than writing into dx[:, t], d_inner[:, t])
    dx_step, di_step = np.empty_like(inner), np.empty_like(inner)
    for t in range(steps - 1, -1, -1):
        state_before(out, h0, t, 1, h_prev)
        masked_input(h_prev, recurrent_mask, h_in)
        _gru_gates(xw, x_bias, t, h_in, kernel, bias, reset_after, packs, inner, zr, hh, rh,
                   pre)
        if not reset_after:
            write_step(rh, t, rh_steps)
        # the states' gradients, then z's and the candidate's: one loop writing them all
        # ran 9-12% slower (more arrays written a loop, more alias checks: lstm_backward)
        for b in range(batch):
            kept = keep[b, t]
            for j in range(units):
                d_y = g[b, t, j] + dy[b, j]
                d_hs = g[b, t, units + j] + dh[b, j]
                dy[b, j] = zero if kept or zero_output else d_y  # a masked step's output
                d = d_y + d_hs if kept else zero
                d_new[b, j] = d
                dh[b, j] = d * zr[b, j] if kept else d_hs
        for b in range(batch):
            for j in range(units):
                d, z, c = d_new[b, j], zr[b, j], hh[b, j]
                dx_step[b, j] = d * (h_prev[b, j] - c) * (z * (one - z))
                dx_step[b, 2 * units + j] = d * (one - z) * (one - c * c)  # d_a
        d_prev[:] = 0.0
        if reset_after:
            for b in range(batch):  # r's gradient
                for j in range(units):
                    r = zr[b, units + j]
                    dx_step[b, units + j] = (dx_step[b, 2 * units + j] * inner[b, 2 * units + j]
                                             * (r * (one - r)))
            for b in range(batch):  # d_inner: dx, its h block times r
                for j in range(2 * units):
                    di_step[b, j] = dx_step[b, j]
                for j in range(units):
                    di_step[b, 2 * units + j] = dx_step[b, 2 * units + j] * zr[b, units + j]
            step_product(di_step, kernel_t, packed_t, d_prev)
            write_step(di_step, t, d_inner)
        else:  # r's gradient needs (d_a @ U_h.T) first; d_inner is dx
            d_rh[:] = 0.0
            step_product(dx_step[:, 2 * units:], kernel_h_t, packed_h_t, d_rh)
            for b in range(batch):
                for j in range(units):
                    r = zr[b, units + j]
                    dx_step[b, units + j] = d_rh[b, j] * h_in[b, j] * (r * (one - r))
            step_product(dx_step[:, :2 * units], kernel_zr_t, packed_zr_t, d_prev)
            for b in range(batch):
                for j in range(units):
                    d_prev[b, j] += d_rh[b, j] * zr[b, units + j]
        write_step(dx_step, t, dx)
        add_step(dx_step, dx_bias)
        for b in range(batch):
            for j in range(units):
                dh[b, j] += d_prev[b, j] * recurrent_mask[b, j]
    dh0[:] = dh


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def simple_rnn_forward(xw, kernel, bias, h0, keep, recurrent_mask, zero_output, out):
    """A tanh SimpleRNN over all steps: xw (B, T, U) the input projection x @ W,
    kernel (U, U), bias (U,) (added here, as the LSTM's), h0, recurrent_mask
    (B, U), keep (B, T); writes out (B, T, 2U): output, h."""
    batch, steps, units = xw.shape[0], xw.shape[1], kernel.shape[0]
    h = h0.copy()
    y = np.zeros_like(h)
    h_in = np.empty_like(h)
    z = np.empty_like(h)
    packed = panels(kernel)
    for t in range(steps):
        masked_input(h, recurrent_mask, h_in)
        read_step_bias(xw, t, bias, z)
        step_product(h_in, kernel, packed, z)
        for b in range(batch):
            for j in range(units):
                z[b, j] = _tanh(z[b, j])
        store_step(out, t, keep, zero_output, y, (h,), (z,))


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def simple_rnn_backward(g, h_new, kernel_t, keep, recurrent_mask, zero_output, dx, db, dh0):
    """The SimpleRNN's backward through time. g (B, T, 2U); h_new (B, T, U):
    the unmasked new h of each step; kernel_t (U, U). Writes dx (B, T, U), the
    pre-activation's gradient, and dh0 (B, U); adds each row's dx over the steps
    into db (B, U), whose sum over the rows is the bias gradient."""
    batch, steps, units = g.shape[0], g.shape[1], kernel_t.shape[1]
    # typed constants: a bare 0.0 or 1 would make the float32 loops below float64
    zero, one = np.zeros(1, dh0.dtype)[0], np.ones(1, dh0.dtype)[0]
    dh = np.zeros_like(dh0)
    dy = np.zeros_like(dh0)
    d_prev = np.zeros_like(dh0)
    packed = panels(kernel_t)
    for t in range(steps - 1, -1, -1):
        for b in range(batch):
            kept = keep[b, t]
            for j in range(units):
                d_y = g[b, t, j] + dy[b, j]
                d_hs = g[b, t, units + j] + dh[b, j]
                dy[b, j] = zero if kept or zero_output else d_y  # a masked step's output
                hn = h_new[b, t, j]
                dx[b, t, j] = (d_y + d_hs) * (one - hn * hn) if kept else zero
                dh[b, j] = zero if kept else d_hs
        d_prev[:] = 0.0
        step_product(dx[:, t], kernel_t, packed, d_prev)
        add_step(dx[:, t], db)
        for b in range(batch):
            for j in range(units):
                dh[b, j] += d_prev[b, j] * recurrent_mask[b, j]
    dh0[:] = dh
