"""recurrent.py: the fused time loops of the recurrent layers as primitives --
`lstm_sequence`, `gru_sequence` and `simple_rnn_sequence` -- each forward one
loop over the steps (a register-tiled GEMM for h @ U, NumPy's SIMD
activations), each VJP the backward-through-time loop (a fused Numba kernel
per step for the gate derivatives, kernels/recurrent.py), with the recurrent
kernel's gradient one matmul over all steps. The input projection x @ W + b of all steps stays a
matmul before the op (layers/recurrent_cells.py), so dW and dx are one matmul
each too.

Each op takes the projected inputs `xw` (batch, steps, gates * units) and
returns one array (batch, steps, (1 + states) * units): per step the output,
then each state (h, and c for the LSTM). With a mask, a masked step keeps the
states and outputs the previous output (or zeros), as Keras. tanh and sigmoid
activations only; the layers run other activations composed.

The VJPs are one gradient op each (`*_grad`, all input gradients flattened into
one array), computed on ndarrays and without a gradient of their own: the
fused ops are first order. Where a gradient of a gradient may be taken (a
nested or persistent tape) the layers run the composed steps instead
(layers/recurrent.py); a gradient op run under a recording tape is a cut on
it (GradientTape.explain names it)."""

import numpy as np

from . import shape as _s
from .math import matmul_2d
from .registry import defop

__all__ = ["lstm_sequence", "gru_sequence", "simple_rnn_sequence", "lstm_sequence_grad",
           "gru_sequence_grad", "simple_rnn_sequence_grad"]


def _sigmoid(x):
    """1 / (1 + exp(-x)), four SIMD passes: math.py's overflow-safe sigmoid makes
    nine (125 against 25 us on a step's 32 x 256 gates); equal for x >= 0, within
    float32 rounding below. exp(-x) overflows to inf for x < -88, giving the
    right 0: callers run it under np.errstate(over="ignore")."""
    out = np.negative(x)
    np.exp(out, out=out)
    out += 1
    return np.reciprocal(out, out=out)


def _quiet(fn):
    """`fn` with exp's overflow to inf (a sigmoid's exact 0) not warned about."""
    def run(*args, **kwargs):
        with np.errstate(over="ignore"):
            return fn(*args, **kwargs)
    run.__name__, run.__doc__ = fn.__name__, fn.__doc__
    return run


# Every array stays batch-major, (batch, steps, ...), as the layers hand it over:
# a step is the strided view [:, t], and no array is transposed (time-major
# copies cost 5 passes over 6.5 MB per W8 backward).

def _keep(mask):
    """The (batch, steps) mask as (batch, steps, 1) booleans, or None."""
    return None if mask is None else np.asarray(mask, bool)[..., None]


def _previous(first, states):
    """(batch, steps, units): the state before each step."""
    if not states.shape[1]:
        return states
    return np.concatenate([first[:, None], states[:, :-1]], axis=1)


def _recurrent_input(h, recurrent_mask):
    """h times the recurrent dropout mask (batch, units), one step's or all steps'."""
    if recurrent_mask is None:
        return h
    return h * (recurrent_mask[:, None] if h.ndim == 3 else recurrent_mask)


def _store(out, t, keep, zero_output_for_mask, y, news, olds, new_out):
    """Write step t's output and states into `out`; return (output, states)."""
    if keep is not None:
        k = keep[:, t]
        new_out = np.where(k, new_out, 0 if zero_output_for_mask else y)
        news = [np.where(k, n, s) for n, s in zip(news, olds)]
    units = y.shape[1]
    out[:, t, :units] = new_out
    for i, s in enumerate(news):
        out[:, t, (i + 1) * units:(i + 2) * units] = s
    return new_out, news


def _run(xw, states, mask, zero_output_for_mask, step):
    """The forward time loop: `step(t, zx_t, states) -> new states`, the first
    being the step's output."""
    batch, steps = xw.shape[:2]
    units = states[0].shape[1]
    keep = _keep(mask)
    out = np.empty((batch, steps, (1 + len(states)) * units), xw.dtype)
    y = np.zeros((batch, units), xw.dtype)
    for t in range(steps):
        news = step(xw[:, t], states)
        y, states = _store(out, t, keep, zero_output_for_mask, y, news, states, news[0])
    return out


def _through_time(g, mask, zero_output_for_mask, n_states, units, step):
    """The backward time loop. `g` (batch, steps, (1 + n) * units) is the
    gradient of the op's output; `step(t, d_new) -> d_previous` takes the
    gradients reaching step t's new states and returns those of the states
    before it. Masked rows pass their gradients by to the previous step.
    Returns the gradients of the initial states."""
    keep = _keep(mask)
    batch = g.shape[0]
    carry = [np.zeros((batch, units), g.dtype) for _ in range(n_states)]
    dy = np.zeros((batch, units), g.dtype)
    for t in range(g.shape[1] - 1, -1, -1):
        d_y = g[:, t, :units] + dy
        d_s = [g[:, t, (i + 1) * units:(i + 2) * units] + carry[i] for i in range(n_states)]
        d_new = [d_y + d_s[0]] + d_s[1:]
        if keep is None:
            carry = step(t, d_new)
            continue
        k = keep[:, t]
        prev = step(t, [np.where(k, d, 0) for d in d_new])
        carry = [p + np.where(k, 0, d) for p, d in zip(prev, d_s)]
        if not zero_output_for_mask:
            dy = np.where(k, 0, d_y)
    return carry


def _gradient_op(name, backward):
    """The op computing a fused op's input gradients from (g, out, *inputs), all
    flattened into one array: `backward` on ndarrays, once per cotangent when
    `g` carries leading batch axes (jacobian). An op, so tf.function traces it;
    with no gradient of its own (the fused ops are first order)."""
    def forward(g, out, *arrays, **attrs):
        extra = g.ndim - out.ndim
        if not extra:
            grads = backward(g, out, *arrays, **attrs)
        else:
            count = int(np.prod(g.shape[:extra]))
            each = [backward(gi, out, *arrays, **attrs)
                    for gi in g.reshape((count,) + out.shape)]
            grads = [np.stack([e[i] for e in each]) if each
                     else np.zeros((0,) + a.shape, a.dtype) for i, a in enumerate(arrays)]
        return np.concatenate([np.ravel(d).astype(g.dtype, copy=False) for d in grads])
    forward.__name__ = name
    return defop(forward, name=name, differentiable=False)


def _gradients(gradient_op):
    """The joint VJP of a fused op: its gradient op, cut into the inputs' gradients."""
    def vjp(g, out, needed, *inputs, **attrs):
        flat = gradient_op(g, out, *inputs, **attrs)
        lead = tuple(g.shape[:len(g.shape) - len(out.shape)])
        result, start = [], 0
        for t, need in zip(inputs, needed):
            shape = lead + tuple(t.shape)
            size = int(np.prod(shape))
            if need:
                piece = _s.getitem(flat, key=(slice(start, start + size),))
                result.append(_s.reshape(piece, shape=shape))
            else:
                result.append(None)
            start += size
        return result
    return vjp


def _step_product(a, b):
    """One step's product, h @ U or dz @ U.T, the one place its kernel is chosen:
    for float32, the register-tiled Numba GEMM (kernels/gemm.py; one thread at
    these sizes), else NumPy's BLAS. Measured on W8's small LSTM fit on the
    2-core Xeon while other jobs shared it (medians of 4): 1.6-1.9 steps/s with
    BLAS per step (OpenBLAS threads a (32, 64) @ (64, 256) product and waits for
    a woken worker every step), 10-13 with the product split below OpenBLAS's
    threading threshold, 13.7 with the Numba GEMM; alone in a process the two
    tie (61-80 against 71-92 us per step's forward and backward products). A
    whole-loop Numba kernel with a plain register loop was slower still (see
    kernels/recurrent.py)."""
    if a.dtype == np.float32 and b.dtype == np.float32 and a.size and b.size:
        from ..kernels import gemm
        return gemm.matmul(a, b)
    return a @ b


def _matmul_steps(a, b):
    """(batch, steps, k) @ (k, n) as one product over all steps (matmul_2d: the
    GEMM kernel or BLAS, as the matmul op routes it)."""
    batch, steps, k = a.shape
    return matmul_2d(a.reshape(batch * steps, k), b).reshape(batch, steps, b.shape[1])


def _sum_steps(a, b):
    """sum over steps of a[t].T @ b[t], one product: the recurrent kernel's gradient."""
    rows = a.shape[0] * a.shape[1]
    return matmul_2d(a.reshape(rows, a.shape[-1]).T, b.reshape(rows, b.shape[-1]))


# --------------------------------------------------------------------- LSTM

@defop(name="lstm_sequence")
@_quiet
def lstm_sequence(xw, recurrent_kernel, h0, c0, mask=None, recurrent_mask=None,
                  zero_output_for_mask=False):
    """Keras's LSTM over all steps: xw (B, T, 4U), recurrent_kernel (U, 4U),
    h0, c0 (B, U) -> (B, T, 3U): output, h, c per step."""
    u = recurrent_kernel.shape[0]

    def step(zx, states):
        h, c = states
        z = _step_product(_recurrent_input(h, recurrent_mask), recurrent_kernel)
        z += zx
        s = _sigmoid(z)
        c_new = s[:, u:2 * u] * c + s[:, :u] * np.tanh(z[:, 2 * u:3 * u])
        return [s[:, 3 * u:] * np.tanh(c_new), c_new]
    return _run(xw, [h0, c0], mask, zero_output_for_mask, step)


def _lstm_backward(g, out, xw, recurrent_kernel, h0, c0, mask=None, recurrent_mask=None,
                   zero_output_for_mask=False):
    from ..kernels import recurrent as kernels

    u = recurrent_kernel.shape[0]
    h_prev, c_prev = _previous(h0, out[..., u:2 * u]), _previous(c0, out[..., 2 * u:])
    h_in = _recurrent_input(h_prev, recurrent_mask)
    z = _matmul_steps(h_in, recurrent_kernel)
    z += xw
    gates = _sigmoid(z)
    cand = np.tanh(z[..., 2 * u:3 * u])
    tanh_c = np.tanh(gates[..., u:2 * u] * c_prev + gates[..., :u] * cand)
    dz = np.empty_like(z)
    dc_prev = np.empty_like(c0)
    kernel_t = np.ascontiguousarray(recurrent_kernel.T)

    def step(t, d_new):
        kernels.lstm_step_backward(d_new[0], d_new[1], gates[:, t], cand[:, t], tanh_c[:, t],
                                   c_prev[:, t], dz[:, t], dc_prev)
        dh = _recurrent_input(_step_product(dz[:, t], kernel_t), recurrent_mask)
        return [dh, dc_prev.copy()]
    dh0, dc0 = _through_time(g, mask, zero_output_for_mask, 2, u, step)
    return dz, _sum_steps(h_in, dz), dh0, dc0


# ---------------------------------------------------------------------- GRU

@defop(name="gru_sequence")
@_quiet
def gru_sequence(xw, recurrent_kernel, recurrent_bias, h0, mask=None, recurrent_mask=None,
                 zero_output_for_mask=False, reset_after=True):
    """Keras's GRU over all steps: xw (B, T, 3U) (input bias included),
    recurrent_kernel (U, 3U), recurrent_bias (3U,) (used with reset_after only),
    h0 (B, U) -> (B, T, 2U): output, h per step."""
    u = recurrent_kernel.shape[0]

    def step(zx, states):
        h = states[0]
        h_in = _recurrent_input(h, recurrent_mask)
        if reset_after:
            inner = _step_product(h_in, recurrent_kernel)
            inner += recurrent_bias
            zr = _sigmoid(zx[:, :2 * u] + inner[:, :2 * u])
            hh = np.tanh(zx[:, 2 * u:] + zr[:, u:] * inner[:, 2 * u:])
        else:
            zr = _sigmoid(zx[:, :2 * u] + _step_product(h_in, recurrent_kernel[:, :2 * u]))
            hh = np.tanh(zx[:, 2 * u:]
                         + _step_product(zr[:, u:] * h_in, recurrent_kernel[:, 2 * u:]))
        return [hh + zr[:, :u] * (h - hh)]
    return _run(xw, [h0], mask, zero_output_for_mask, step)


def _gru_backward(g, out, xw, recurrent_kernel, recurrent_bias, h0, mask=None,
                  recurrent_mask=None, zero_output_for_mask=False, reset_after=True):
    u = recurrent_kernel.shape[0]
    zx = xw
    h_prev = _previous(h0, out[..., u:])
    h_in = _recurrent_input(h_prev, recurrent_mask)
    dx = np.empty_like(zx)
    if reset_after:
        return _gru_after_backward(g, zx, recurrent_kernel, recurrent_bias, h0, h_prev, h_in,
                                   dx, mask, recurrent_mask, zero_output_for_mask)
    kernel_zr, kernel_h = recurrent_kernel[:, :2 * u], recurrent_kernel[:, 2 * u:]
    zr = _sigmoid(zx[..., :2 * u] + _matmul_steps(h_in, kernel_zr))
    rh = zr[..., u:] * h_in
    hh = np.tanh(zx[..., 2 * u:] + _matmul_steps(rh, kernel_h))
    zr_t, h_t = np.ascontiguousarray(kernel_zr.T), np.ascontiguousarray(kernel_h.T)

    def step(t, d_new):
        d = d_new[0]
        z, r, c = zr[:, t, :u], zr[:, t, u:], hh[:, t]
        d_a = d * (1 - z) * (1 - c * c)
        d_rh = _step_product(d_a, h_t)
        dx[:, t, :u] = d * (h_prev[:, t] - c) * (z * (1 - z))
        dx[:, t, u:2 * u] = d_rh * h_in[:, t] * (r * (1 - r))
        dx[:, t, 2 * u:] = d_a
        d_in = d_rh * r + _step_product(dx[:, t, :2 * u], zr_t)
        return [_recurrent_input(d_in, recurrent_mask) + d * z]
    dh0, = _through_time(g, mask, zero_output_for_mask, 1, u, step)
    d_kernel = np.concatenate([_sum_steps(h_in, dx[..., :2 * u]),
                               _sum_steps(rh, dx[..., 2 * u:])], axis=1)
    return dx, d_kernel, np.zeros_like(recurrent_bias), dh0


def _gru_after_backward(g, zx, recurrent_kernel, recurrent_bias, h0, h_prev, h_in, dx, mask,
                        recurrent_mask, zero_output_for_mask):
    from ..kernels import recurrent as kernels

    u = recurrent_kernel.shape[0]
    inner = _matmul_steps(h_in, recurrent_kernel) + recurrent_bias
    zr = _sigmoid(zx[..., :2 * u] + inner[..., :2 * u])
    hh = np.tanh(zx[..., 2 * u:] + zr[..., u:] * inner[..., 2 * u:])
    d_inner = np.empty_like(inner)
    d_direct = np.empty_like(h0)
    kernel_t = np.ascontiguousarray(recurrent_kernel.T)

    def step(t, d_new):
        kernels.gru_step_backward(d_new[0], zr[:, t], hh[:, t], inner[:, t, 2 * u:],
                                  h_prev[:, t], dx[:, t], d_inner[:, t], d_direct)
        return [_recurrent_input(_step_product(d_inner[:, t], kernel_t), recurrent_mask)
                + d_direct]
    dh0, = _through_time(g, mask, zero_output_for_mask, 1, u, step)
    d_bias = d_inner.sum(axis=(0, 1)).astype(recurrent_bias.dtype)
    return dx, _sum_steps(h_in, d_inner), d_bias, dh0


# ---------------------------------------------------------------- SimpleRNN

@defop(name="simple_rnn_sequence")
def simple_rnn_sequence(xw, recurrent_kernel, h0, mask=None, recurrent_mask=None,
                        zero_output_for_mask=False):
    """Keras's SimpleRNN (tanh) over all steps: xw (B, T, U), recurrent_kernel
    (U, U), h0 (B, U) -> (B, T, 2U): output, h per step."""
    def step(zx, states):
        return [np.tanh(zx + _step_product(_recurrent_input(states[0], recurrent_mask),
                                          recurrent_kernel))]
    return _run(xw, [h0], mask, zero_output_for_mask, step)


def _simple_rnn_backward(g, out, xw, recurrent_kernel, h0, mask=None, recurrent_mask=None,
                         zero_output_for_mask=False):
    u = recurrent_kernel.shape[0]
    h_in = _recurrent_input(_previous(h0, out[..., u:]), recurrent_mask)
    h_new = np.tanh(xw + _matmul_steps(h_in, recurrent_kernel))
    dx = np.empty_like(h_new)
    kernel_t = np.ascontiguousarray(recurrent_kernel.T)

    def step(t, d_new):
        dx[:, t] = d_new[0] * (1 - h_new[:, t] * h_new[:, t])
        return [_recurrent_input(_step_product(dx[:, t], kernel_t), recurrent_mask)]
    dh0, = _through_time(g, mask, zero_output_for_mask, 1, u, step)
    return dx, _sum_steps(h_in, dx), dh0


lstm_sequence_grad = _gradient_op("lstm_sequence_grad", _quiet(_lstm_backward))
gru_sequence_grad = _gradient_op("gru_sequence_grad", _quiet(_gru_backward))
simple_rnn_sequence_grad = _gradient_op("simple_rnn_sequence_grad", _simple_rnn_backward)
lstm_sequence.defvjp_joint(_gradients(lstm_sequence_grad))
gru_sequence.defvjp_joint(_gradients(gru_sequence_grad))
simple_rnn_sequence.defvjp_joint(_gradients(simple_rnn_sequence_grad))
