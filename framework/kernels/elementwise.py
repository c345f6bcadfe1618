"""elementwise.py: fused elementwise loops where NumPy would make temporaries:
the ReLU backward pass `g * (y > 0)` in one pass instead of three, and the
bias (+ ReLU) epilogue of a fused convolution or product, in place, with its
backward pass.

Where y is not positive the ReLU backward gives g * 0, as TF's ReluGrad
`gradients * (features > 0)` does: -0.0 for a negative g, NaN for a NaN or
infinite g (a bad gradient stays visible), never a +0 select."""

import numpy as np

from ..runtime.jit import FASTMATH, njit, prange, serial_and_parallel

__all__ = ["PARALLEL_ELEMENTS", "relu_backward", "bias_activation", "bias_activation_in_place",
           "relu_bias_backward", "relu_bias_backward_arrays"]

# Elements above which the bias epilogues and their backward run on all threads.
PARALLEL_ELEMENTS = 1 << 18


@njit(cache=True, nogil=True, fastmath=False)
def _times_zero(v):
    """v * 0 in v's type (float32 stays float32), in IEEE arithmetic: -0.0 for
    a negative v, NaN for a NaN or infinite one. Compiled without fastmath, set
    explicitly so that the calling kernel's `nsz` (either sign of zero) is not
    inherited; inlined, it vectorises with the loop (relu_backward and
    relu_bias_backward within 2% of the select to +0 they replaced)."""
    return v * type(v)(0)


def _relu_backward(g, y, out):
    """out = g where y > 0, else g * 0 (TF's ReluGrad: -0.0 for a negative g,
    NaN for a NaN or infinite g, the sign of zero exact: _times_zero); flat
    contiguous arrays of one length."""
    for i in prange(g.size):
        out[i] = g[i] if y[i] > 0 else _times_zero(g[i])
    return out


def _bias_activation(z, b, relu):
    """In place on z (rows, channels): z += b, then max(z, 0) when `relu`.

    NaN stays NaN, as with np.maximum.
    """
    rows, channels = z.shape
    for r in prange(rows):
        for c in range(channels):
            v = z[r, c] + b[c]
            z[r, c] = 0 if relu and v < 0 else v
    return z


def _relu_bias_backward(g, y, gm, partial):
    """gm = g where y > 0, else g * 0 (as _relu_backward), and the column sums
    of gm (the bias gradient) in the same pass: partial[t] sums chunk t's rows
    in float64, the caller adds the chunks; a NaN or infinite g where y is not
    positive makes its column's sum NaN, as TF's reduce_sum of the masked
    gradient. g, y, gm are (rows, channels)."""
    rows, channels = g.shape
    chunks = partial.shape[0]
    per = (rows + chunks - 1) // chunks
    for t in prange(chunks):
        acc = np.zeros(channels, np.float64)  # local, so that the sums vectorise (see
        for r in range(t * per, min(rows, (t + 1) * per)):  # conv_tiled's filter gradient)
            for c in range(channels):
                v = g[r, c] if y[r, c] > 0 else _times_zero(g[r, c])
                gm[r, c] = v
                acc[c] += v
        partial[t] = acc
    return partial


relu_backward = serial_and_parallel(_relu_backward, fastmath=FASTMATH)
bias_activation = serial_and_parallel(_bias_activation, fastmath=FASTMATH)
relu_bias_backward = serial_and_parallel(_relu_bias_backward, fastmath=FASTMATH)


def bias_activation_in_place(out, b, relu):
    """out + b (then max(., 0) when `relu`), in place on a C-contiguous float32
    or float64 `out` (..., channels): one pass, no temporaries."""
    if out.size:
        parallel = out.size >= PARALLEL_ELEMENTS and out.shape[0] > 1
        bias_activation[1 if parallel else 0](out.reshape(-1, out.shape[-1]),
                                              b.astype(out.dtype, copy=False), relu)
    return out


def relu_bias_backward_arrays(g, y, parallel):
    """(g masked by y > 0, its sum over rows) for 2-D contiguous g and y."""
    gm = np.empty_like(g)
    chunks = 2 if parallel else 1
    partial = np.empty((chunks, g.shape[1]), np.float64)
    relu_bias_backward[1 if parallel else 0](g, y, gm, partial)
    return gm, partial.sum(axis=0).astype(g.dtype)
