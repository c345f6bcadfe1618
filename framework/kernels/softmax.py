"""softmax.py: fused softmax cross-entropy kernels over the rows of a 2-D
logits array -- the loss (log-sum-exp minus the label terms, never forming
log(softmax)) and its logits gradient g * (softmax - labels), one kernel pass
over the rows each, dense or integer labels. Plain ndarrays; ops/nn.py calls
them for small inputs (up to 4,096 logits), where they beat NumPy's several
passes; for larger ones NumPy's SIMD exp wins over the kernels' scalar exp.
So they are plain one-thread compiles: a parallel compile took 3x as long
(1.05 against 0.32 s, the cold start of a first fit) and ran no faster."""

import numpy as np

from ..runtime.jit import FASTMATH, njit

__all__ = ["softmax_cross_entropy_forward", "softmax_cross_entropy_backward",
           "sparse_softmax_cross_entropy_forward", "sparse_softmax_cross_entropy_backward"]


# The row steps the kernels share, inlined into each kernel by numba (its IR, before LLVM).
_inline = njit(inline="always")


@_inline
def _row_max(z, r, cols):
    m = z[r, 0]
    for k in range(1, cols):
        m = max(m, z[r, k])
    return m


@_inline
def _exp_row(z, r, cols, dz):
    """dz[r] = exp(z[r] - max(z[r])), unnormalised softmax; returns the row's sum."""
    # The max loop again: calling _row_max here made the backward kernels 4-6% slower
    # at 10 classes (LLVM laid the nested inlined loops out worse).
    m = z[r, 0]
    for k in range(1, cols):
        m = max(m, z[r, k])
    s = z[r, 0] * 0
    for k in range(cols):
        e = np.exp(z[r, k] - m)
        dz[r, k] = e
        s += e
    return s


def _softmax_cross_entropy_forward(z, y, loss):
    """loss[r] = sum_k y[r, k] * (lse(z[r]) - z[r, k]), from logits shifted by the row max."""
    rows, cols = z.shape
    for r in range(rows):
        m = _row_max(z, r, cols)
        s = z[r, 0] * 0
        ys = s
        yz = s
        for k in range(cols):
            shifted = z[r, k] - m
            s += np.exp(shifted)
            ys += y[r, k]
            yz += y[r, k] * shifted
        loss[r] = np.log(s) * ys - yz
    return loss


def _softmax_cross_entropy_backward(z, y, g, dz):
    """dz[r] = g[r] * (softmax(z[r]) - y[r])."""
    rows, cols = z.shape
    for r in range(rows):
        scale = g[r] / _exp_row(z, r, cols, dz)
        for k in range(cols):
            dz[r, k] = dz[r, k] * scale - g[r] * y[r, k]
    return dz


def _sparse_softmax_cross_entropy_forward(z, labels, loss):
    """loss[r] = lse(z[r]) - z[r, labels[r]]; returns the first row whose label is
    outside [0, cols), its loss and the later ones unwritten, else -1 (checked
    here: three NumPy passes over the labels cost 25 us a step inside W2's fit,
    the Intel Xeon of 2026-12-07)."""
    rows, cols = z.shape
    for r in range(rows):
        if labels[r] < 0 or labels[r] >= cols:
            return r
    for r in range(rows):
        m = _row_max(z, r, cols)
        s = z[r, 0] * 0
        for k in range(cols):
            s += np.exp(z[r, k] - m)
        loss[r] = np.log(s) - (z[r, labels[r]] - m)
    return -1


def _sparse_softmax_cross_entropy_backward(z, labels, g, dz):
    """dz[r] = g[r] * (softmax(z[r]) - onehot(labels[r]))."""
    rows, cols = z.shape
    for r in range(rows):
        scale = g[r] / _exp_row(z, r, cols, dz)
        for k in range(cols):
            dz[r, k] *= scale
        dz[r, labels[r]] -= g[r]
    return dz


_compile = njit(cache=True, fastmath=FASTMATH, nogil=True)
softmax_cross_entropy_forward = _compile(_softmax_cross_entropy_forward)
softmax_cross_entropy_backward = _compile(_softmax_cross_entropy_backward)
sparse_softmax_cross_entropy_forward = _compile(_sparse_softmax_cross_entropy_forward)
sparse_softmax_cross_entropy_backward = _compile(_sparse_softmax_cross_entropy_backward)
