"""conv_tiled.py: 2-D convolution (NHWC, (kh, kw, in, out) filters) on the
GEMM's register tile (gemm.tile): each sample's windows are built as a
(pixels, taps) matrix, in cache, as im2col writes them (a (taps, pixels) one
for a single input channel), and multiplied with the filters (forward) or the
output gradient's channels (filter gradient) by the tile, whose ROWS x PANEL
accumulators stay in registers over a whole sample. kernels/conv.py routes
float32 convolutions with out channels a multiple of PANEL here, both where
its 'conv' decision says direct; the row loops there load and store an
accumulator per multiply-add. Measured alone on an AMD Zen 4 (2 threads,
paired calls, busy host): 3x3x1 -> 32 (W3's first layer) forward 1.82x and
filter gradient 1.36-1.57x faster, 3x3x32 -> 64 2.3-2.6x.

Against im2col + GEMM, which writes the whole batch's windows (W3's second layer:
8.9 MB) and reads them back, twice under a tape (the filter gradient reuses
them), a sample's windows here never leave the cache. On W3's second layer (64 x
13 x 13 x 32 -> 64, AMD Zen 4, 2 threads) the forward took 1.7-1.9 ms against
2.1-2.3 for im2col and the GEMM, the filter gradient 1.6 ms against 2.1-2.6 for
the GEMM alone; the 'conv' decision measures which wins on the running machine.

Geometry as in conv.py: strides (sh, sw), dilations (dh, dw), padding before
(pt, pl); the output (forward) or gradient (filter) array fixes the output size."""

import numpy as np

from ..runtime.jit import FASTMATH, njit, prange, serial_and_parallel
from .gemm import PANEL, ROWS, tile
from .windows import add_sample_windows, sample_windows

__all__ = ["PANEL", "backward_filter", "backward_input", "fits_filter", "fits_forward",
           "forward", "takes", "takes_input"]


@njit(cache=True, nogil=True)
def _sample_columns(x, n, cols, kh, kw, sh, sw, dh, dw, pt, pl, ho, wo):
    """cols[(i, j, c), oh * wo + ow] = x[n, oh*sh - pt + i*dh, ow*sw - pl + j*dw, c],
    0 outside: sample n's windows as the columns of a (taps, pixels) matrix, each
    row written in contiguous runs (the bounds found once per filter row). For one
    input channel, whose windows' rows are too short to copy whole
    (windows.sample_windows)."""
    h, wd, c_in = x.shape[1], x.shape[2], x.shape[3]
    for i in range(kh):
        for j in range(kw):
            off = j * dw - pl  # iw = ow * sw + off
            lo = min(wo, max(0, (sw - 1 - off) // sw))
            hi = max(lo, min(wo, (wd - 1 - off) // sw + 1))
            for c in range(c_in):
                row = cols[(i * kw + j) * c_in + c]
                for oh in range(ho):
                    ih = oh * sh - pt + i * dh
                    out = row[oh * wo:(oh + 1) * wo]
                    if ih < 0 or ih >= h:
                        out[:] = 0
                        continue
                    out[:lo] = 0
                    out[hi:] = 0
                    xr = x[n, ih]
                    for ow in range(lo, hi):
                        out[ow] = xr[ow * sw + off, c]


def _conv2d_forward_tiled(x, w, out, sh, sw, dh, dw, pt, pl):
    """float32 with out channels a multiple of gemm.PANEL, any geometry: per
    sample, its windows as the rows of a (pixels, taps) matrix times the
    filters by the GEMM's register tile (ROWS pixels by PANEL channels held in
    registers over all taps); a sample's windows stay in cache."""
    n_batch, c_in = x.shape[0], x.shape[3]
    kh, kw, _, c_out = w.shape
    ho, wo = out.shape[1], out.shape[2]
    taps, pixels = kh * kw * c_in, ho * wo
    tiles = (pixels + ROWS - 1) // ROWS
    filters = w.reshape(taps, c_out)
    x = np.ascontiguousarray(x)  # a copy only of a strided x, which sample_windows reshapes
    for n in prange(n_batch):
        result = out[n].reshape(pixels, c_out)
        # Rows (columns) past `pixels` stay 0.
        if c_in == 1:
            columns = np.zeros((taps, tiles * ROWS), np.float32)
            _sample_columns(x, n, columns, kh, kw, sh, sw, dh, dw, pt, pl, ho, wo)
            _forward_product(columns.T, filters, result)
        else:
            windows = np.zeros((tiles * ROWS, taps), np.float32)
            sample_windows(x, n, windows, 0, kh, kw, sh, sw, dh, dw, pt, pl, ho, wo)
            _forward_product(windows, filters, result)
    return out


@njit(cache=True, nogil=True)
def _forward_product(cols, filters, result):
    """result (pixels, out) = cols[:pixels] @ filters by the tile; cols (pixels padded
    to whole tiles, taps), of either layout."""
    taps, c_out = filters.shape
    pixels = result.shape[0]
    tiles, whole = cols.shape[0] // ROWS, pixels // ROWS
    tail = np.empty((ROWS, c_out), np.float32)
    for panel in range(c_out // PANEL):
        for r in range(whole):
            tile(cols, filters[:, panel * PANEL:], result[:, panel * PANEL:], r * ROWS, 0,
                 taps, 0)
        if whole < tiles:
            tile(cols[whole * ROWS:], filters[:, panel * PANEL:], tail[:, panel * PANEL:],
                 0, 0, taps, 0)
    for r in range(pixels - whole * ROWS):
        for co in range(c_out):
            result[whole * ROWS + r, co] = tail[r, co]


def _conv2d_backward_filter_tiled(x, g, partial, sh, sw, dh, dw, pt, pl, y, relu,
                                  bias_partial):
    """float32 with out channels a multiple of gemm.PANEL, any geometry: per
    sample, the windows as the rows of a (taps, pixels) matrix and the (masked)
    gradient's channels as the panels, multiplied by the GEMM's register tile,
    whose accumulators (ROWS taps by PANEL channels) stay in registers over all
    of a sample's pixels. The loops of the other two kernels load and store an
    accumulator per multiply-add: on W3's first layer (3x3x1 -> 32, batch 64,
    AMD Zen 4, 2 threads) 1.2-1.4 ms against ~0.4 ms here."""
    n_batch, c_in = x.shape[0], x.shape[3]
    chunks, kh, kw, _, c_out = partial.shape
    ho, wo = g.shape[1], g.shape[2]
    taps, pixels = kh * kw * c_in, ho * wo
    tiles = (taps + ROWS - 1) // ROWS
    step = (n_batch + chunks - 1) // chunks
    x = np.ascontiguousarray(x)  # a copy only of a strided x, which sample_windows reshapes
    for t in prange(chunks):
        # One of the two layouts, the other empty; columns (rows) past `taps` stay 0.
        windows = np.zeros((pixels if c_in > 1 else 0, tiles * ROWS), np.float32)
        columns = np.zeros((tiles * ROWS if c_in == 1 else 0, pixels), np.float32)
        acc = np.zeros((tiles * ROWS, c_out), np.float32)
        gm = np.empty((pixels, c_out), np.float32)
        # A local accumulator: LLVM vectorises the sums into it, not into a view of
        # bias_partial, which might alias g (W3's first layer, AMD Zen 4: the bias
        # sums 0.40 -> 0.13 ms of the kernel's ~1 ms, the same bits).
        bias = np.zeros(c_out, np.float64)
        for n in range(t * step, min(n_batch, (t + 1) * step)):
            for oh in range(ho):
                for ow in range(wo):
                    # Row views, the mask a select: the channel loops vectorise.
                    gr, yr, gp = g[n, oh, ow], y[n, oh, ow], gm[oh * wo + ow]
                    if relu:
                        for co in range(c_out):
                            gp[co] = gr[co] if yr[co] > 0 else gr[co] * 0
                    else:
                        gp[:] = gr
                    for co in range(c_out):
                        bias[co] += gp[co]
            if c_in == 1:
                _sample_columns(x, n, columns, kh, kw, sh, sw, dh, dw, pt, pl, ho, wo)
                _filter_product(columns, gm, acc)
            else:
                sample_windows(x, n, windows, 0, kh, kw, sh, sw, dh, dw, pt, pl, ho, wo)
                _filter_product(windows.T, gm, acc)
        for i in range(kh):
            for j in range(kw):
                for c in range(c_in):
                    for co in range(c_out):
                        partial[t, i, j, c, co] = acc[(i * kw + j) * c_in + c, co]
        bias_partial[t] = bias
    return partial


@njit(cache=True, nogil=True)
def _filter_product(cols, gm, acc):
    """acc += cols @ gm by the tile; cols (taps padded to whole tiles, pixels), of
    either layout."""
    for panel in range(gm.shape[1] // PANEL):
        for r in range(cols.shape[0] // ROWS):
            tile(cols, gm[:, panel * PANEL:], acc[:, panel * PANEL:], r * ROWS, 0,
                 cols.shape[1], 1)


def _conv2d_backward_input_tiled(g, wt, dx, kh, kw, sh, sw, dh, dw, pt, pl):
    """dx = the adjoint of conv2d in its input, float32, for wt the filters as an
    (out, taps) C-contiguous matrix: per sample, g's (pixels, out) rows times wt
    by the tile (whole panels of taps; the taps past them by a plain loop) into
    the sample's (pixels, taps) windows, in cache, then added into dx[n]. The
    other path multiplies a chunk of samples on BLAS and adds the chunk's columns
    by col2im: W3's second layer (64 x 13 x 13 x 32 -> 64, AMD Zen 4, 2 threads)
    2.5 ms there, 2.1 ms here."""
    n_batch, ho, wo, c_out = g.shape
    taps = wt.shape[1]
    pixels = ho * wo
    tiles, whole = (pixels + ROWS - 1) // ROWS, taps // PANEL * PANEL
    g = np.ascontiguousarray(g)
    for n in prange(n_batch):
        a = np.zeros((tiles * ROWS, c_out), np.float32)  # rows past `pixels` stay 0
        a[:pixels] = g[n].reshape(pixels, c_out)
        rows = np.empty((tiles * ROWS, taps), np.float32)
        for panel in range(whole // PANEL):
            for r in range(tiles):
                tile(a, wt[:, panel * PANEL:], rows[:, panel * PANEL:], r * ROWS, 0, c_out, 0)
        for r in range(pixels):
            for t in range(whole, taps):
                s = np.float32(0)
                for k in range(c_out):
                    s += a[r, k] * wt[k, t]
                rows[r, t] = s
        dx[n] = 0
        add_sample_windows(rows, 0, dx, n, kh, kw, sh, sw, dh, dw, pt, pl, ho, wo)
    return dx


def takes_input(taps, dtype):
    """Whether `backward_input` takes windows of `taps` values of `dtype`: float32,
    at least a whole panel of taps (the tile runs along them)."""
    return dtype == np.float32 and taps >= PANEL


def takes(c_out, dtype):
    """Whether these kernels take a convolution with `c_out` out channels of `dtype`."""
    return dtype == np.float32 and c_out > 0 and c_out % PANEL == 0


def fits_filter(x, g, partial):
    """Whether `backward_filter` takes these arrays: float32, whole panels."""
    return x.dtype == g.dtype == partial.dtype and takes(g.shape[3], g.dtype)


def fits_forward(x, w, out):
    """Whether `forward` takes these arrays: float32, whole panels,
    the filters and the output C-contiguous (it views them as matrices)."""
    return (fits_filter(x, out, w) and w.flags.c_contiguous and out.flags.c_contiguous)


_OPTIONS = {"fastmath": FASTMATH, "nogil": True}
forward = serial_and_parallel(_conv2d_forward_tiled, **_OPTIONS)
backward_filter = serial_and_parallel(_conv2d_backward_filter_tiled, **_OPTIONS)
backward_input = serial_and_parallel(_conv2d_backward_input_tiled, **_OPTIONS)
