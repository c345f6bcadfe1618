"""recurrent.py: the fused time loops of the recurrent layers as primitives --
`lstm_sequence`, `gru_sequence` and `simple_rnn_sequence` -- each forward one
Numba kernel running every step (kernels/recurrent.py: h @ U, the gates and
the masks inside), each VJP one gradient op whose backward through time is one
kernel too: the LSTM's and the GRU's read what each step's recurrent product
made (the LSTM's gates, activations of xw + h @ U; the GRU's h @ U), which
their forward keeps when a backward will
follow (a tape recording in the calling thread, or a replayed graph with its
backward: `_KEPT`, as the convolution keeps its columns; W8's LSTM(64) on the
Zen 4: backward kernel 0.99 -> 0.73 ms, forward +0.02 ms, fit 1.02-1.08x
paired; a GRU(64)'s fit 1.09x), and compute them again otherwise (a weight
assigned in place since, see `_kept`), as the forward did, on each thread's
rows (for W8's LSTM(64) on the Zen 4, 2 x 300 us in parallel against a 344 us
product over all steps, its 1.6 MB sum with xw and the c states' shifted copy
in the op); the SimpleRNN's after its states are recomputed in one vectorised
NumPy pass (one product h_prev @ U over all steps). The input projection x @ W
of all steps stays a product before the op (layers/recurrent_cells.py); its
bias is the op's input, added at each step and its gradient summed in the
kernels; and the recurrent kernel's gradient is one matmul over all steps,
so dW, dU and dx are one product each.

Each op takes the projected inputs `xw` (batch, steps, gates * units) and
returns one array (batch, steps, (1 + states) * units): per step the output,
then each state (h, and c for the LSTM). With a mask, a masked step keeps the
states and outputs the previous output (or zeros), as Keras. tanh and sigmoid
activations only; the layers run other activations composed. The kernels run
in the inputs' dtype (float32 or float64): every operand is cast to xw's.

The VJPs are one gradient op each (`*_grad`, all input gradients flattened into
one array), computed on ndarrays and without a gradient of their own: the
fused ops are first order. Where a gradient of a gradient may be taken (a
nested or persistent tape) the layers run the composed steps instead
(layers/recurrent.py); a gradient op run under a recording tape is a cut on
it (GradientTape.explain names it).

Measured on the project's 2-core Xeon (Intel family 6 model 167, loaded by
other jobs: ranges of medians over runs), float32, batch 32, 50 steps, 64
units, against the per-step Python loop before (a GEMM call, NumPy
activations and a gate kernel per step): LSTM forward 1.3-1.7 ms against
2.1-2.6, GRU 0.9-1.1 against 1.8-2.1, SimpleRNN 0.4-0.65 against 0.75-0.8;
the backward ops 4.2 against 5.1 ms (LSTM), 3.4 against 4.3 (GRU) in the
quieter round, of which the kernel is ~1 ms: the rest is the recomputation
and the all-steps products, whose BLAS calls wait on the loaded machine."""

import weakref

import numpy as np

from . import shape as _s
from .beside import Beside, backward_follows
from .math import matmul_2d
from .registry import defop

__all__ = ["lstm_sequence", "gru_sequence", "simple_rnn_sequence", "lstm_sequence_grad",
           "gru_sequence_grad", "simple_rnn_sequence_grad"]


# Every array stays batch-major, (batch, steps, ...), as the layers hand it over:
# a step is the strided view [:, t], and no array is transposed (time-major
# copies cost 5 passes over 6.5 MB per W8 backward).

def _plain(a, dtype):
    """`a` as a C-contiguous writable array of `dtype`: the one layout the
    kernels are compiled for (a copy only when `a` is not one already)."""
    return np.require(a, dtype, ["C", "W"])


def _masks(mask, recurrent_mask, batch, steps, units, dtype):
    """The kernels' (batch, steps) booleans and (batch, units) recurrent mask:
    all True and all ones when absent, which give the same values."""
    keep = np.ones((batch, steps), bool) if mask is None else _plain(mask, bool)
    ones = np.ones((batch, units), dtype) if recurrent_mask is None else None
    return keep, ones if ones is not None else _plain(recurrent_mask, dtype)


def _previous(first, states):
    """(batch, steps, units): the state before each step."""
    if not states.shape[1]:
        return states
    return np.concatenate([first[:, None], states[:, :-1]], axis=1)


def _recurrent_input(h, recurrent_mask):
    """h times the recurrent dropout mask (batch, units), for all steps."""
    return h if recurrent_mask is None else h * recurrent_mask[:, None]


# What a forward computed for its backward (the LSTM's gates, the GRU's recurrent
# products), kept beside its output array (beside.py), as the convolution
# keeps its columns: when a tape records in the calling thread, or while a graph with
# its backward replays (record.replaying). Each entry holds (weak references to the
# forward's operand arrays (None for an absent mask), copies of its weights, what it
# kept).
_KEPT = Beside()


def _keep(out, operands, weights, kept):
    """Keep `kept` for the backward of the forward that made `out` from `operands`,
    with copies of `weights` (the recurrent kernel and bias: small), which may be
    Variables' arrays, assigned in place before the backward runs."""
    refs = tuple(None if a is None else weakref.ref(a) if isinstance(a, np.ndarray)
                 else (lambda a=a: a) for a in operands)  # (a mask given as a list)
    _KEPT.keep(out, (refs, [np.array(w, kept.dtype) for w in weights], kept))


def _kept(out, operands, weights, empty_shape):
    """What the forward that made `out` kept, if it ran on these very operand
    arrays and `weights` still hold its values; else an empty array of
    `empty_shape` in out's dtype, and the kernel computes the products again.
    A weight assigned in place since (an optimizer step under a persistent tape)
    so takes the recomputation, from its new values, as every other op's
    gradient here reads a Variable's array as it is then (README: where tapeflow
    differs); keeping changes no bits."""
    entry = _KEPT.get(out)
    if entry is not None and all(
            (a is None) if ref is None else (ref() is a) for ref, a in zip(entry[0], operands)) \
            and all(np.array_equal(copy, np.asarray(w, copy.dtype))
                    for copy, w in zip(entry[1], weights)):
        return entry[2]
    return np.empty(empty_shape, out.dtype)


def _gradient_op(name, backward, count):
    """The op computing a fused op's gradients of its first `count` inputs from
    (g, out, *inputs), all flattened into one array: `backward` on ndarrays
    writes each gradient into its view of that array (`into`; no copy after:
    an LSTM's dz is 6.5 MB in W8's IMDB model), once per cotangent when `g`
    carries leading batch axes (jacobian). An op, so tf.function traces it;
    with no gradient of its own (the fused ops are first order)."""
    def forward(g, out, *arrays, **attrs):
        extra = g.ndim - out.ndim
        cotangents = int(np.prod(g.shape[:extra]))
        shapes = [a.shape for a in arrays[:count]]
        sizes = [int(np.prod(shape)) for shape in shapes]
        flat = np.empty(cotangents * sum(sizes), out.dtype)  # the kernels' dtype
        # input i's block is its gradient for every cotangent, as _gradients cuts it
        starts = np.cumsum([0] + [cotangents * size for size in sizes])
        for c, gc in enumerate(g.reshape((cotangents,) + out.shape)):
            into = [flat[start + c * size:start + (c + 1) * size].reshape(shape)
                    for start, size, shape in zip(starts, sizes, shapes)]
            backward(gc, out, *arrays, into=into, **attrs)
        return flat.astype(g.dtype, copy=False)
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
def lstm_sequence(xw, recurrent_kernel, bias, h0, c0, mask=None, recurrent_mask=None,
                  zero_output_for_mask=False):
    """Keras's LSTM over all steps: xw (B, T, 4U) the input projection x @ W
    without the bias, recurrent_kernel (U, 4U), bias (4U,), h0, c0 (B, U) ->
    (B, T, 3U): output, h, c per step. The kernels add the bias at each step
    and sum its gradient there: as a pass of its own over all of xw and of
    dz, each took longer than the kernels' share (W8's LSTM(64) on the Xeon:
    79 and 138 us of a 4 ms step)."""
    from ..kernels import recurrent as kernels
    from ..kernels import recurrent_threads

    (batch, steps), u, dt = xw.shape[:2], recurrent_kernel.shape[0], xw.dtype
    out = np.empty((batch, steps, 3 * u), dt)
    kept = backward_follows()
    pre = np.empty((batch, steps if kept else 0, 4 * u), dt)
    recurrent_threads.run(kernels.lstm_forward, _plain(xw, dt), _plain(recurrent_kernel, dt),
                          _plain(bias, dt), _plain(h0, dt), _plain(c0, dt),
                          *_masks(mask, recurrent_mask, batch, steps, u, dt),
                          bool(zero_output_for_mask), out, pre)
    if kept:
        _keep(out, (xw, recurrent_kernel, bias, h0, c0, mask, recurrent_mask),
              [recurrent_kernel, bias], pre)
    return out


def _lstm_backward(g, out, xw, recurrent_kernel, bias, h0, c0, mask=None, recurrent_mask=None,
                   zero_output_for_mask=False, *, into):
    from ..kernels import recurrent as kernels
    from ..kernels import recurrent_threads

    (batch, steps), u, dt = xw.shape[:2], recurrent_kernel.shape[0], xw.dtype
    dz, d_kernel, d_bias, dh0, dc0 = into
    operands = (xw, recurrent_kernel, bias, h0, c0, mask, recurrent_mask)
    pre = _kept(out, operands, [recurrent_kernel, bias], (batch, 0, 4 * u))
    db_rows = np.zeros((batch, 4 * u), dt)  # each row's sum over the steps
    recurrent_threads.run(kernels.lstm_backward, _plain(g, dt), _plain(xw, dt), pre,
                          _plain(out, dt),
                          _plain(h0, dt), _plain(c0, dt), _plain(recurrent_kernel, dt),
                          _plain(recurrent_kernel.T, dt), _plain(bias, dt),
                          *_masks(mask, recurrent_mask, batch, steps, u, dt),
                          bool(zero_output_for_mask), dz, db_rows, dh0, dc0)
    d_bias[...] = db_rows.sum(axis=0, dtype=np.float64)
    h_in = _recurrent_input(_previous(h0, out[..., u:2 * u]), recurrent_mask)
    d_kernel[...] = _sum_steps(h_in, dz)


# ---------------------------------------------------------------------- GRU

@defop(name="gru_sequence")
def gru_sequence(xw, recurrent_kernel, bias, recurrent_bias, h0, mask=None, recurrent_mask=None,
                 zero_output_for_mask=False, reset_after=True):
    """Keras's GRU over all steps: xw (B, T, 3U) the input projection x @ W
    without the bias, recurrent_kernel (U, 3U), bias (3U,) the input bias
    (added and its gradient summed in the kernels, as the LSTM's),
    recurrent_bias (3U,) (used with reset_after only), h0 (B, U) -> (B, T, 2U):
    output, h per step."""
    from ..kernels import recurrent as kernels
    from ..kernels import recurrent_threads

    (batch, steps), u, dt = xw.shape[:2], recurrent_kernel.shape[0], xw.dtype
    out = np.empty((batch, steps, 2 * u), dt)
    kept = backward_follows()
    pre = np.empty((batch, steps if kept else 0, 3 * u), dt)
    recurrent_threads.run(kernels.gru_forward, _plain(xw, dt), _plain(recurrent_kernel, dt),
                          _plain(bias, dt), _plain(recurrent_bias, dt), _plain(h0, dt),
                          *_masks(mask, recurrent_mask, batch, steps, u, dt),
                          bool(zero_output_for_mask), bool(reset_after), out, pre)
    if kept:
        _keep(out, (xw, recurrent_kernel, bias, recurrent_bias, h0, mask, recurrent_mask),
              [recurrent_kernel, bias, recurrent_bias], pre)
    return out


def _gru_backward(g, out, xw, recurrent_kernel, bias, recurrent_bias, h0, mask=None,
                  recurrent_mask=None, zero_output_for_mask=False, reset_after=True, *, into):
    from ..kernels import recurrent as kernels
    from ..kernels import recurrent_threads

    (batch, steps), u, dt = xw.shape[:2], recurrent_kernel.shape[0], xw.dtype
    dx, d_kernel, d_bias, d_recurrent_bias, dh0 = into
    # the gradient of the recurrent products (with reset_after; without, it is dx's)
    d_inner = np.empty(xw.shape if reset_after else (0, 0, 0), dt)
    rh = np.empty((0, 0, 0) if reset_after else (batch, steps, u), dt)  # r * h_in per step
    db_rows = np.zeros((batch, 3 * u), dt)  # each row's input-bias gradient over the steps
    operands = (xw, recurrent_kernel, bias, recurrent_bias, h0, mask, recurrent_mask)
    pre = _kept(out, operands, [recurrent_kernel, bias, recurrent_bias], (batch, 0, 3 * u))
    recurrent_threads.run(kernels.gru_backward, _plain(g, dt), _plain(xw, dt), pre,
                          _plain(out, dt),
                          _plain(h0, dt), _plain(recurrent_kernel, dt),
                          _plain(recurrent_kernel.T, dt), _plain(bias, dt),
                          _plain(recurrent_bias, dt),
                          *_masks(mask, recurrent_mask, batch, steps, u, dt),
                          bool(zero_output_for_mask), bool(reset_after), dx, d_inner, rh,
                          db_rows, dh0)
    d_bias[...] = db_rows.sum(axis=0, dtype=np.float64)
    h_in = _recurrent_input(_previous(h0, out[..., u:]), recurrent_mask)
    if reset_after:
        d_recurrent_bias[...] = d_inner.sum(axis=(0, 1))
        d_kernel[...] = _sum_steps(h_in, d_inner)
    else:
        d_recurrent_bias[...] = 0
        d_kernel[:, :2 * u] = _sum_steps(h_in, dx[..., :2 * u])
        d_kernel[:, 2 * u:] = _sum_steps(rh, dx[..., 2 * u:])


# ---------------------------------------------------------------- SimpleRNN

@defop(name="simple_rnn_sequence")
def simple_rnn_sequence(xw, recurrent_kernel, bias, h0, mask=None, recurrent_mask=None,
                        zero_output_for_mask=False):
    """Keras's SimpleRNN (tanh) over all steps: xw (B, T, U) the input projection
    x @ W without the bias, recurrent_kernel (U, U), bias (U,) (added and its
    gradient summed in the kernels, as the LSTM's), h0 (B, U) -> (B, T, 2U):
    output, h per step."""
    from ..kernels import recurrent as kernels
    from ..kernels import recurrent_threads

    (batch, steps), u, dt = xw.shape[:2], recurrent_kernel.shape[0], xw.dtype
    out = np.empty((batch, steps, 2 * u), dt)
    recurrent_threads.run(kernels.simple_rnn_forward, _plain(xw, dt),
                          _plain(recurrent_kernel, dt), _plain(bias, dt), _plain(h0, dt),
                          *_masks(mask, recurrent_mask, batch, steps, u, dt),
                          bool(zero_output_for_mask), out)
    return out


def _simple_rnn_backward(g, out, xw, recurrent_kernel, bias, h0, mask=None, recurrent_mask=None,
                         zero_output_for_mask=False, *, into):
    from ..kernels import recurrent as kernels
    from ..kernels import recurrent_threads

    (batch, steps), u, dt = xw.shape[:2], recurrent_kernel.shape[0], xw.dtype
    dx, d_kernel, d_bias, dh0 = into
    h_in = _recurrent_input(_previous(h0, out[..., u:]), recurrent_mask)
    h_new = np.tanh((xw + bias.astype(dt, copy=False)) + _matmul_steps(h_in, recurrent_kernel))
    db_rows = np.zeros((batch, u), dt)  # each row's bias gradient over the steps
    recurrent_threads.run(kernels.simple_rnn_backward, _plain(g, dt), _plain(h_new, dt),
                          _plain(recurrent_kernel.T, dt),
                          *_masks(mask, recurrent_mask, batch, steps, u, dt),
                          bool(zero_output_for_mask), dx, db_rows, dh0)
    d_bias[...] = db_rows.sum(axis=0, dtype=np.float64)
    d_kernel[...] = _sum_steps(h_in, dx)


# the gradients of xw, the recurrent kernel (and bias) and the initial states
lstm_sequence_grad = _gradient_op("lstm_sequence_grad", _lstm_backward, 5)
gru_sequence_grad = _gradient_op("gru_sequence_grad", _gru_backward, 5)
simple_rnn_sequence_grad = _gradient_op("simple_rnn_sequence_grad", _simple_rnn_backward,
                                        4)
lstm_sequence.defvjp_joint(_gradients(lstm_sequence_grad))
gru_sequence.defvjp_joint(_gradients(gru_sequence_grad))
simple_rnn_sequence.defvjp_joint(_gradients(simple_rnn_sequence_grad))
