"""recurrent_steps.py: the pieces every recurrent kernel's step is made of
(recurrent.py): the step's product h @ U, its input and state copies, the
masked store of its output and states, the gate blocks of a row.

Chosen by measurement on the project's 2-core Xeon (Intel family 6 model 167,
AVX-512, loaded by other jobs), a step of W8's LSTM (batch 32, 64 units):
h @ U, (32, 64) @ (64, 256), on gemm.py's register-tiled tile (`add_product`,
U packed once per sequence) ~18 us, against 70-86 us for a plain row loop
LLVM vectorises (`add_product_rows`, kept for float64). The
LSTM forward kernel over 50 steps: 0.9-1.2 ms with the tile, 2.2-2.4 ms with
the row loop. On the Zen 4 (AMD family 25 model 17), batch 16 a thread, 50
steps: a step's stores 114 us as row slices, 37 us as element loops (a row
slice's copy is slow; so were the GRU's bias rows).
"""

# runtime.jit first: it imports numba and registers the kernels' cache locator.
from ..runtime.jit import FASTMATH, njit  # noqa: I001

import numpy as np  # noqa: E402
from numba.core import types  # noqa: E402
from numba.extending import overload  # noqa: E402

from . import gemm  # noqa: E402

__all__ = ["add_product_rows", "panels", "step_product", "masked_input", "state_before",
           "read_step", "read_step_bias", "write_step", "add_step", "store_step", "gate_blocks"]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def add_product_rows(a, b, c):
    """c += a @ b for 2-D a (m, k), b (k, n), c (m, n)."""
    for i in range(a.shape[0]):
        for k in range(a.shape[1]):
            a_ik = a[i, k]
            for j in range(b.shape[1]):
                c[i, j] += a_ik * b[k, j]


def panels(b):
    """What `step_product` needs of b besides b: its packed panels for float32."""


def step_product(a, b, packed, c):
    """c += a @ b: gemm.py's register-tiled product for float32, else `add_product_rows`."""


@overload(panels)
def _panels_typed(b):
    if b.dtype == types.float32:
        return lambda b: gemm.pack_panels(b)
    return lambda b: np.empty((0, 0, 0), b.dtype)


@overload(step_product)
def _step_product_typed(a, b, packed, c):
    if a.dtype == types.float32:
        return lambda a, b, packed, c: gemm.add_product(a, b, packed, c)
    return lambda a, b, packed, c: add_product_rows(a, b, c)


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def masked_input(h, recurrent_mask, h_in):
    """h_in = h * recurrent_mask (all ones without recurrent dropout)."""
    for b in range(h.shape[0]):
        for j in range(h.shape[1]):
            h_in[b, j] = h[b, j] * recurrent_mask[b, j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def state_before(out, first, t, block, state):
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
def read_step(xw, t, z):
    """z = xw[:, t]: step t of a (B, T, k) array as a contiguous (B, k) one (the
    step's input projection, the product then added; or what the forward kept)."""
    for b in range(z.shape[0]):
        for j in range(z.shape[1]):
            z[b, j] = xw[b, t, j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def read_step_bias(xw, t, bias, z):
    """z = xw[:, t] + bias: read_step with the input bias added (the LSTM's,
    added here instead of in a pass over all of xw before the kernel)."""
    for b in range(z.shape[0]):
        for j in range(z.shape[1]):
            z[b, j] = xw[b, t, j] + bias[j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def add_step(step, sums):
    """sums += step: a backward's (B, k) step gradient added into each row's sums
    over the steps (its input bias's gradient, summed while the step is in cache)."""
    for b in range(step.shape[0]):
        row, total = step[b], sums[b]
        for j in range(step.shape[1]):
            total[j] += row[j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def write_step(z, t, pre):
    """pre[:, t] = z: a contiguous (B, k) step written into step t of a (B, T, k)
    array (what a forward keeps for its backward; a backward's dz, dx, d_inner)."""
    for b in range(z.shape[0]):
        for j in range(z.shape[1]):
            pre[b, t, j] = z[b, j]


@njit(cache=True, fastmath=FASTMATH, error_model="numpy")
def store_step(out, t, keep, zero_output, y, states, news):
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
def gate_blocks(row, units):
    """The four gate blocks (i, f, c, o) of a row of 4U values, as views: loops
    over a view's j vectorise; indexing the row at `units + j` did not (Numba
    wraps a negative index, and LLVM cannot tell units + j is not one)."""
    return row[:units], row[units:2 * units], row[2 * units:3 * units], row[3 * units:]
