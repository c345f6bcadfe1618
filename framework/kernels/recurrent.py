"""recurrent.py: the elementwise part of one backward-through-time step of an
LSTM and of a GRU (reset_after=True), fused into one pass each, where NumPy
would make a dozen passes and temporaries per step. ops/recurrent.py runs the
time loop, one step's h @ U through kernels/gemm.py's register-tiled product
(chosen there, in `_step_product`, by measurement). A whole-loop Numba kernel
with a plain register loop for h @ U was slower on this project's 2-core Xeon
(an LSTM(64) forward over 200 steps of batch 32: 84 ms against 68 ms with
BLAS per step), and the forward's activations stay NumPy's: its SIMD exp and
tanh beat Numba's scalar ones (9 against 13 ms for the 200 steps' gates), so
only the transcendental-free backward steps are kernels here. One thread: a
step is 2k-8k values."""

from ..runtime.jit import FASTMATH, njit

__all__ = ["lstm_step_backward", "gru_step_backward"]


@njit(cache=True, fastmath=FASTMATH)
def lstm_step_backward(dh, dc, gates, g, tanh_c, c_prev, dz, dc_prev):
    """One LSTM step backward, gates in Keras's order i, f, c, o.

    dh, dc (B, U): gradients reaching the step's new h and c; gates (B, 4U):
    sigmoid of the pre-activations (the c block unused); g (B, U): tanh of the
    candidate; tanh_c (B, U): tanh of the new c; c_prev (B, U). Writes dz
    (B, 4U), the gradient of the pre-activations, and dc_prev (B, U).
    """
    batch, units = dh.shape
    for b in range(batch):
        for j in range(units):
            i = gates[b, j]
            f = gates[b, units + j]
            o = gates[b, 3 * units + j]
            gg = g[b, j]
            t = tanh_c[b, j]
            d_h = dh[b, j]
            d_c = dc[b, j] + d_h * o * (1 - t * t)
            dz[b, j] = d_c * gg * (i * (1 - i))
            dz[b, units + j] = d_c * c_prev[b, j] * (f * (1 - f))
            dz[b, 2 * units + j] = d_c * i * (1 - gg * gg)
            dz[b, 3 * units + j] = d_h * t * (o * (1 - o))
            dc_prev[b, j] = d_c * f


@njit(cache=True, fastmath=FASTMATH)
def gru_step_backward(dh, zr, hh, inner_h, h_prev, dx, dinner, dh_prev):
    """One GRU step backward with reset_after=True, gates in the order z, r, h.

    dh (B, U): gradient reaching the new h; zr (B, 2U): sigmoid of the z and r
    pre-activations; hh (B, U): the candidate tanh(x_h + r * inner_h); inner_h
    (B, U): the h block of h_in @ U + recurrent bias; h_prev (B, U). Writes dx
    (B, 3U), the gradient of the input projection, dinner (B, 3U), that of
    h_in @ U + recurrent bias, and dh_prev (B, U), the direct path z * dh.
    """
    batch, units = dh.shape
    for b in range(batch):
        for j in range(units):
            z = zr[b, j]
            r = zr[b, units + j]
            c = hh[b, j]
            d_h = dh[b, j]
            d_a = d_h * (1 - z) * (1 - c * c)
            d_z = d_h * (h_prev[b, j] - c) * (z * (1 - z))
            d_r = d_a * inner_h[b, j] * (r * (1 - r))
            dx[b, j] = d_z
            dx[b, units + j] = d_r
            dx[b, 2 * units + j] = d_a
            dinner[b, j] = d_z
            dinner[b, units + j] = d_r
            dinner[b, 2 * units + j] = d_a * r
            dh_prev[b, j] = d_h * z
