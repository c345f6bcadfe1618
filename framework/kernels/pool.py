"""pool.py: the hot loops of 2-D max and average pooling in NHWC, forward and
backward, one pass each. Plain ndarrays in and out; ops/conv.py calls them.
Geometry: window (kh, kw), strides (sh, sw), padding before (pt, pl); the
output array passed in fixes the output size. Padding cells never count:
max ignores them, average divides by the number of real cells (TF's rule)."""

import numpy as np

from ..runtime.jit import FASTMATH, kernel_threads, prange, serial_and_parallel  # noqa: I001
from ..runtime import calibration  # noqa: E402

__all__ = ["max_pool2d_forward", "max_pool2d_backward", "avg_pool2d_forward",
           "avg_pool2d_backward", "pick"]


def _max_pool2d_forward(x, out, argmax, kh, kw, sh, sw, pt, pl):
    """out = the window maxima; argmax = the flat index (ih * W + iw) * C + c of
    each maximum within its sample (the first one on a tie, -1 for a window of
    padding only, whose output is -inf)."""
    n_batch, h, wd, c_in = x.shape
    ho, wo = out.shape[1], out.shape[2]
    for n in prange(n_batch):
        for oh in range(ho):
            for ow in range(wo):
                # Row views and loops from 0 over channels, the choice a select
                # rather than a branch: the channel loop vectorises.
                best, where = out[n, oh, ow], argmax[n, oh, ow]
                first = True
                for i in range(kh):
                    ih = oh * sh - pt + i
                    if ih < 0 or ih >= h:
                        continue
                    for j in range(kw):
                        iw = ow * sw - pl + j
                        if iw < 0 or iw >= wd:
                            continue
                        base = (ih * wd + iw) * c_in
                        row = x[n, ih, iw]
                        if first:
                            first = False
                            for c in range(c_in):
                                best[c] = row[c]
                                where[c] = base + c
                        else:
                            for c in range(c_in):
                                v = row[c]
                                # `v != v` takes a NaN, which then stays: NaN propagates.
                                take = (v > best[c]) | (v != v)
                                best[c] = v if take else best[c]
                                where[c] = base + c if take else where[c]
                if first:  # a window of padding only
                    for c in range(c_in):
                        best[c] = -np.inf
                        where[c] = -1
    return out


def _max_pool2d_backward(g, argmax, dx):
    """dx[n].flat[argmax[n, ...]] += g[n, ...]: the scatter to the maxima."""
    n_batch = g.shape[0]
    ho, wo, c_in = g.shape[1], g.shape[2], g.shape[3]
    flat = dx.reshape(n_batch, -1)
    for n in prange(n_batch):  # each n writes only dx[n]: no race
        flat[n, :] = 0
        for oh in range(ho):
            for ow in range(wo):
                for c in range(c_in):
                    k = argmax[n, oh, ow, c]
                    if k >= 0:
                        flat[n, k] += g[n, oh, ow, c]
    return dx


def _avg_pool2d_forward(x, out, kh, kw, sh, sw, pt, pl):
    n_batch, h, wd, c_in = x.shape
    ho, wo = out.shape[1], out.shape[2]
    for n in prange(n_batch):
        acc = np.empty(c_in, out.dtype)
        for oh in range(ho):
            i0, i1 = max(oh * sh - pt, 0), min(oh * sh - pt + kh, h)
            for ow in range(wo):
                j0, j1 = max(ow * sw - pl, 0), min(ow * sw - pl + kw, wd)
                acc[:] = 0
                for ih in range(i0, i1):
                    for iw in range(j0, j1):
                        for c in range(c_in):
                            acc[c] += x[n, ih, iw, c]
                count = max((i1 - i0) * (j1 - j0), 1)
                for c in range(c_in):
                    out[n, oh, ow, c] = acc[c] / count
    return out


def _avg_pool2d_backward(g, dx, kh, kw, sh, sw, pt, pl):
    """The adjoint of the average: each g cell spread over its window's real cells."""
    n_batch, h, wd, c_in = dx.shape
    ho, wo = g.shape[1], g.shape[2]
    for n in prange(n_batch):
        dx[n] = 0
        for oh in range(ho):
            i0, i1 = max(oh * sh - pt, 0), min(oh * sh - pt + kh, h)
            for ow in range(wo):
                j0, j1 = max(ow * sw - pl, 0), min(ow * sw - pl + kw, wd)
                count = max((i1 - i0) * (j1 - j0), 1)
                for ih in range(i0, i1):
                    for iw in range(j0, j1):
                        for c in range(c_in):
                            dx[n, ih, iw, c] += g[n, oh, ow, c] / count
    return dx


_OPTIONS = {"fastmath": FASTMATH, "nogil": True}
max_pool2d_forward = serial_and_parallel(_max_pool2d_forward, **_OPTIONS)
max_pool2d_backward = serial_and_parallel(_max_pool2d_backward, **_OPTIONS)
avg_pool2d_forward = serial_and_parallel(_avg_pool2d_forward, **_OPTIONS)
avg_pool2d_backward = serial_and_parallel(_avg_pool2d_backward, **_OPTIONS)

# From which size (elements read and written) a pooling runs on all the kernel
# threads is the 'pools' decision, measured on the running machine
# (`_measure_pools`): the max pool forward on one thread against all, after a
# threaded BLAS product as in a step, at each of POOL_SIZES; all threads must win
# by _POOL_MARGIN there and at every larger size. The constant it replaces
# (1,000,000 elements, from a busy 2-core machine) kept W3's second pooling on
# one thread on an Intel Xeon where two win 2.2x at its 598,016 elements (and
# 1.7x at 92,160), and W3's fit ran 113.6 steps/s against 122.9 with every
# pooling on two threads.
POOL_SIZES = (1 << 16, 1 << 18, 1 << 20)
_POOL_MARGIN = 0.2


def _measure_pools(repeats=9, budget=0.02):
    """(the smallest of POOL_SIZES from which all threads win, or "one"; the
    median seconds per size and candidate)."""
    threads = kernel_threads()
    if threads < 2:
        return "one", {"threads": threads}
    serial, parallel = max_pool2d_forward
    product = np.ones((96, 96), np.float32)  # 96**3 multiply-adds: OpenBLAS threads it

    def timings_at(size):
        side = max(2, int(round((size / 1.25 / (16 * 32)) ** 0.5)))  # x and out: 1.25 x
        x = np.ones((16, side, side, 32), np.float32)
        out = np.empty((16, side // 2, side // 2, 32), np.float32)
        argmax = np.empty(out.shape, np.int64)
        return calibration.time_calls(
            {"one": lambda: serial(x, out, argmax, 2, 2, 2, 2, 0, 0),
             "many": lambda: parallel(x, out, argmax, 2, 2, 2, 2, 0, 0)},
            repeats=repeats, before=lambda: product @ product, budget=budget)

    start, details = calibration.smallest_parallel_size(POOL_SIZES, timings_at, _POOL_MARGIN)
    return start, {"threads": threads, **details}


calibration.register("pools", _measure_pools, version=1)


def pick(pair, size, batch):
    """The serial or parallel variant of a pair for a call touching `size` elements
    (read and written) over `batch` samples: parallel from the 'pools' decision's
    size. Calls below POOL_SIZES[0] never ask for it (toy programs measure
    nothing) unless it is forced (runtime.calibration.force)."""
    return pair[1] if batch > 1 and calibration.parallel_at("pools", size, POOL_SIZES[0]) \
        else pair[0]
