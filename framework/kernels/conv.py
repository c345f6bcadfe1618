"""conv.py: the hot loops of 2-D convolution in NHWC with (kh, kw, in, out)
filters -- direct kernels (forward, filter gradient) and the im2col / col2im
pair that lets a BLAS matmul do the arithmetic (the input gradient always
goes through col2im, a batch's columns at a time here, a sample's in cache in
conv_tiled.py: a direct kernel measured 1.6-2.7x slower on every shape
tried, one input channel included). Plain ndarrays
in and out; ops/conv.py picks between them by size. Geometry arguments:
strides (sh, sw), dilations (dh, dw), padding before (pt, pl); the output
arrays passed in fix the output size (and so the padding after). With a unit
column stride the forward and filter kernels work a whole output row at a time.

Float32 convolutions with out channels a multiple of the GEMM's panel run
their direct forward and filter gradient on the GEMM's register tile instead
(conv_tiled.py; `conv2d_forward` and `conv2d_backward_filter` route them).

Which path a convolution takes (direct, or im2col + GEMM) is decided per class
of window by measurement on the running machine (the 'conv' decision of
runtime/calibration.py, measured by ops/conv.py on the ops' own code paths):
`direct` answers it."""

import numpy as np

from ..runtime import calibration
from ..runtime.jit import FASTMATH, kernel_threads, njit, prange, serial_and_parallel
from . import conv_tiled
from .windows import add_sample_windows, sample_windows

__all__ = [
    "WINDOW_CLASSES",
    "col2im",
    "conv2d_backward_filter",
    "conv2d_forward",
    "direct",
    "im2col",
    "pick",
    "routes",
    "window_class",
]


def _conv2d_forward_rows(x, w, out, sh, sw, dh, dw, pt, pl):
    n_batch, h, wd, c_in = x.shape
    kh, kw, _, c_out = w.shape
    ho, wo = out.shape[1], out.shape[2]
    # With unit column stride, tap (i, j, c) adds a shifted input row times
    # w[i, j, c, :] to a whole output row: one long contiguous multiply-add
    # over (ow, co) once the row is expanded (each value c_out times) and the
    # filter tiled (w[i, j, c, :] once per ow). Short loops over c_out alone
    # spend more time entering the loop than multiplying.
    span = wo * c_out
    tiles = _tiled_filter(w, wo)
    for n in prange(n_batch):
        acc = np.empty(span, out.dtype)
        rows, held = _row_ring(kh, dh, c_in, wd * c_out, out.dtype)
        for oh in range(ho):
            acc[:] = 0
            for i in range(kh):
                ih = oh * sh - pt + i * dh
                if ih < 0 or ih >= h:
                    continue
                slot = _expanded(x, n, ih, c_out, rows, held)
                for c in range(c_in):
                    xe = rows[slot, c]
                    for j in range(kw):
                        off = j * dw - pl
                        lo, hi = max(0, -off) * c_out, min(wo, wd - off) * c_out
                        # Views and loops from 0: indices the compiler sees are
                        # never negative, so the loop vectorises.
                        a, t = acc[lo:hi], tiles[i, j, c, lo:hi]
                        b = xe[lo + off * c_out:hi + off * c_out]
                        for k in range(hi - lo):
                            a[k] += b[k] * t[k]
            for ow in range(wo):
                for co in range(c_out):
                    out[n, oh, ow, co] = acc[ow * c_out + co]
    return out


@njit(cache=True, nogil=True)
def _tiled_filter(w, wo):
    """tiles[i, j, c, ow * c_out + co] = w[i, j, c, co] for every ow."""
    kh, kw, c_in, c_out = w.shape
    tiles = np.empty((kh, kw, c_in, wo * c_out), w.dtype)
    for i in range(kh):
        for j in range(kw):
            for c in range(c_in):
                for ow in range(wo):
                    for co in range(c_out):
                        tiles[i, j, c, ow * c_out + co] = w[i, j, c, co]
    return tiles


@njit(cache=True, nogil=True)
def _row_ring(kh, dh, c_in, size, dtype):
    """Room for the expanded input rows one output row reads ((kh - 1) * dh + 1
    consecutive rows), and which row each slot holds (-1: none)."""
    depth = (kh - 1) * dh + 1
    return np.empty((depth, c_in, size), dtype), np.full(depth, -1, np.int64)


@njit(cache=True, nogil=True)
def _expanded(x, n, ih, times, rows, held):
    """The ring slot holding input row ih of sample n expanded: rows[slot, c,
    iw * times + k] = x[n, ih, iw, c] for k < times. Each row is expanded once
    while it stays in the ring, not once per filter row that reads it."""
    slot = ih % rows.shape[0]
    if held[slot] != ih:
        held[slot] = ih
        for c in range(x.shape[3]):
            xe = rows[slot, c]
            for iw in range(x.shape[2]):
                v = x[n, ih, iw, c]
                for k in range(times):
                    xe[iw * times + k] = v
    return slot


def _conv2d_forward_strided(x, w, out, sh, sw, dh, dw, pt, pl):
    n_batch, h, wd, c_in = x.shape
    kh, kw, _, c_out = w.shape
    ho, wo = out.shape[1], out.shape[2]
    for n in prange(n_batch):
        acc = np.empty(c_out, out.dtype)
        for oh in range(ho):
            for ow in range(wo):
                acc[:] = 0
                for i in range(kh):
                    ih = oh * sh - pt + i * dh
                    if ih < 0 or ih >= h:
                        continue
                    for j in range(kw):
                        iw = ow * sw - pl + j * dw
                        if iw < 0 or iw >= wd:
                            continue
                        for c in range(c_in):
                            xv = x[n, ih, iw, c]
                            for co in range(c_out):
                                acc[co] += xv * w[i, j, c, co]
                for co in range(c_out):
                    out[n, oh, ow, co] = acc[co]
    return out


def _conv2d_backward_filter_rows(x, g, partial, sh, sw, dh, dw, pt, pl, y, relu, bias_partial):
    """`partial` is (chunks, kh, kw, in, out): one accumulator per batch chunk,
    so that parallel chunks never write the same cell; the caller sums them.

    With `relu`, g is first masked where the layer's output y is not positive
    (ReLU's backward pass, fused); bias_partial (chunks, out) gets the sums of
    the (masked) g, the bias gradient, in float64."""
    n_batch, h, wd, c_in = x.shape
    chunks, kh, kw, _, c_out = partial.shape
    ho, wo = g.shape[1], g.shape[2]
    # As in the forward kernel: per tap, one contiguous multiply-add over a whole
    # (ow, co) row into acc[i, j, c]; the sum over ow comes once at the end.
    span = wo * c_out
    step = (n_batch + chunks - 1) // chunks
    for t in prange(chunks):
        acc = np.zeros((kh, kw, c_in, span), partial.dtype)
        rows, held = _row_ring(kh, dh, c_in, wd * c_out, partial.dtype)
        grow = np.empty(span, partial.dtype)
        bias = np.zeros(c_out, np.float64)  # local, so that the sums vectorise (conv_tiled.py)
        for n in range(t * step, min(n_batch, (t + 1) * step)):
            held[:] = -1  # the ring holds rows of the previous sample
            for oh in range(ho):
                for ow in range(wo):
                    for co in range(c_out):
                        v = g[n, oh, ow, co]
                        if relu and not y[n, oh, ow, co] > 0:
                            v = v * 0  # TF's g * 0: NaN for NaN/inf g (zeros enter sums only)
                        grow[ow * c_out + co] = v
                        bias[co] += v
                for i in range(kh):
                    ih = oh * sh - pt + i * dh
                    if ih < 0 or ih >= h:
                        continue
                    slot = _expanded(x, n, ih, c_out, rows, held)
                    for c in range(c_in):
                        xe = rows[slot, c]
                        for j in range(kw):
                            off = j * dw - pl
                            lo, hi = max(0, -off) * c_out, min(wo, wd - off) * c_out
                            a, b = acc[i, j, c, lo:hi], xe[lo + off * c_out:hi + off * c_out]
                            gr = grow[lo:hi]
                            for k in range(hi - lo):
                                a[k] += b[k] * gr[k]
        for i in range(kh):
            for j in range(kw):
                for c in range(c_in):
                    for co in range(c_out):
                        s = acc[i, j, c, co] * 0
                        for ow in range(wo):
                            s += acc[i, j, c, ow * c_out + co]
                        partial[t, i, j, c, co] = s
        bias_partial[t] = bias
    return partial


def _conv2d_backward_filter_strided(x, g, partial, sh, sw, dh, dw, pt, pl, y, relu,
                                    bias_partial):
    n_batch, h, wd, c_in = x.shape
    chunks, kh, kw, _, c_out = partial.shape
    ho, wo = g.shape[1], g.shape[2]
    step = (n_batch + chunks - 1) // chunks
    for t in prange(chunks):
        dw_t = np.zeros(partial.shape[1:], partial.dtype)  # local accumulators, as above
        bias = np.zeros(c_out, np.float64)
        gm = np.empty(c_out, partial.dtype)
        for n in range(t * step, min(n_batch, (t + 1) * step)):
            for oh in range(ho):
                for ow in range(wo):
                    for co in range(c_out):
                        v = g[n, oh, ow, co]
                        if relu and not y[n, oh, ow, co] > 0:
                            v = v * 0  # TF's g * 0: NaN for NaN/inf g (zeros enter sums only)
                        gm[co] = v
                        bias[co] += v
                    for i in range(kh):
                        ih = oh * sh - pt + i * dh
                        if ih < 0 or ih >= h:
                            continue
                        for j in range(kw):
                            iw = ow * sw - pl + j * dw
                            if iw < 0 or iw >= wd:
                                continue
                            for c in range(c_in):
                                xv = x[n, ih, iw, c]
                                for co in range(c_out):
                                    dw_t[i, j, c, co] += xv * gm[co]
        partial[t] = dw_t
        bias_partial[t] = bias
    return partial


def _im2col(x, cols, kh, kw, sh, sw, dh, dw, pt, pl, ho, wo):
    """cols[(n, oh, ow), (i, j, c)] = x[n, oh*sh - pt + i*dh, ow*sw - pl + j*dw, c], 0
    outside: each sample's windows (windows.sample_windows), for a C-contiguous x."""
    pixels = ho * wo
    for n in prange(x.shape[0]):
        sample_windows(x, n, cols, n * pixels, kh, kw, sh, sw, dh, dw, pt, pl, ho, wo)
    return cols


def _col2im(cols, dx, kh, kw, sh, sw, dh, dw, pt, pl, ho, wo):
    """The adjoint of im2col: dx[n, ih, iw, c] = sum of the cols entries that copied it
    (windows.add_sample_windows, a sample a thread)."""
    pixels = ho * wo
    for n in prange(dx.shape[0]):
        dx[n] = 0
        add_sample_windows(cols, n * pixels, dx, n, kh, kw, sh, sw, dh, dw, pt, pl, ho, wo)
    return dx


_OPTIONS = {"fastmath": FASTMATH, "nogil": True}


def _by_column_stride(rows, strided):
    """A (one thread, two threads) pair that runs `rows` for a unit column
    stride (args[4] is sw) and `strided` otherwise."""
    def variant(index):
        def kernel(*args):
            return (rows if args[4] == 1 else strided)[index](*args)
        kernel.__name__ = rows[index].__name__
        return kernel
    return variant(0), variant(1)


_forward_by_stride = _by_column_stride(serial_and_parallel(_conv2d_forward_rows, **_OPTIONS),
                                       serial_and_parallel(_conv2d_forward_strided, **_OPTIONS))
_filter_by_stride = _by_column_stride(
    serial_and_parallel(_conv2d_backward_filter_rows, **_OPTIONS),
    serial_and_parallel(_conv2d_backward_filter_strided, **_OPTIONS))


def _tiled_or_not(tiled, by_stride, fits):
    """A (one thread, all threads) pair running `tiled` where `fits` takes the
    first three arrays, else `by_stride`."""
    def variant(index):
        def kernel(a, b, c, *rest):
            return (tiled if fits(a, b, c) else by_stride)[index](a, b, c, *rest)
        kernel.__name__ = by_stride[index].__name__
        return kernel
    return variant(0), variant(1)


conv2d_forward = _tiled_or_not(conv_tiled.forward, _forward_by_stride, conv_tiled.fits_forward)
conv2d_backward_filter = _tiled_or_not(conv_tiled.backward_filter, _filter_by_stride,
                                       conv_tiled.fits_filter)
im2col = serial_and_parallel(_im2col, **_OPTIONS)
col2im = serial_and_parallel(_col2im, **_OPTIONS)

# Work (multiply-adds) above which the parallel variant pays for its thread start.
_PARALLEL_WORK = 200_000


def pick(pair, work, batch):
    """The serial or parallel variant of a `serial_and_parallel` pair for this call."""
    return pair[1] if work >= _PARALLEL_WORK and batch > 1 else pair[0]


def chunks_for(kernel, pair, batch):
    """How many batch chunks (one accumulator each) the filter gradient splits into:
    one per thread the parallel variant runs on, at most one per example."""
    return max(1, min(kernel_threads(), batch)) if kernel is pair[1] else 1


# -- direct or im2col: the 'conv' decision -------------------------------------------
# The direct row loops win while a window holds few values: on W3's shapes (Zen 5
# and a Xeon) 3x3x1 forward and filter gradient were 1.4-1.6x faster direct,
# 3x3x32 4-9x faster through im2col + GEMM. The tiled kernels (conv_tiled.py)
# since ran 3x3x32 -> 64 1.3-1.9x faster than im2col + GEMM on an AMD Zen 4; a
# class whose default is im2col goes direct only where they take the
# convolution (`direct` below). The crossover depends on the CPU and
# its GEMM, so it is measured per class of window (kh * kw * in values), each on
# its filter shape below; the defaults (direct up to 16 values, the constant
# used before) stand wherever the other path does not win clearly (`routes`),
# so noise keeps them.
WINDOW_CLASSES = {  # class -> (most values in its windows, filter (kh, kw, in) measured, default)
    "upto9": (9, (3, 3, 1), "direct"), "upto16": (16, (4, 4, 1), "direct"),
    "upto27": (27, (3, 3, 3), "im2col"), "upto81": (81, (3, 3, 8), "im2col"),
    "over81": (None, (3, 3, 32), "im2col")}
_PATHS = ("direct", "im2col")


def window_class(kh, kw, c_in):
    """The WINDOW_CLASSES key of (kh, kw, in) filters."""
    window = kh * kw * c_in
    for name, (most, _, _) in WINDOW_CLASSES.items():
        if most is None or window <= most:
            return name


# A change of path must win by this much, in each of two measurements: a
# passing stall (BLAS workers fighting a busy machine's other processes) hits
# one path, and a wrong switch costs more than a missed one (the direct kernels
# run 4-10x slower than GEMM on large windows; im2col on small ones at most ~1.5x).
SWITCH_MARGIN = 0.25


def routes(runs, margin=SWITCH_MARGIN):
    """{class: 'direct' or 'im2col'} from {class: [{'direct': [s, ...], 'im2col':
    [s, ...]}, ...]} (one or more measurements per class): the class's default
    unless every measurement shows the other path faster by `margin`."""
    decided = {}
    for cls, measured in runs.items():
        default = WINDOW_CLASSES[cls][2]
        picks = {calibration.faster(t, default=default, margin=margin) for t in measured}
        decided[cls] = picks.pop() if len(picks) == 1 else default
    return decided


def direct(kh, kw, c_in, c_out=None, dtype=None):
    """Whether a convolution with (kh, kw, in, out) filters of `dtype` runs the
    direct kernels (forward, filter and input gradients) rather than im2col +
    GEMM: the 'conv' decision, measured on first use and cached; forced to
    'direct' or 'im2col' everywhere, or per class ({class: path}, classes left
    out keep their default), with runtime.calibration.force/forced. A measured
    decision sends a class whose default is im2col (wide windows) direct only
    where the tiled kernels take the convolution (`c_out`, `dtype`; None: they
    do): the row loops run 4-10x slower than GEMM there. A forced path is taken."""
    decided = calibration.choice("conv")
    cls = window_class(kh, kw, c_in)
    if type(decided) is str:
        path = decided
    else:
        path = decided.get(cls, WINDOW_CLASSES[cls][2]) if isinstance(decided, dict) else decided
        if isinstance(decided, dict) and not decided.keys() <= WINDOW_CLASSES.keys():
            raise ValueError(f"the 'conv' kernel decision names unknown window classes "
                             f"{sorted(set(decided) - set(WINDOW_CLASSES))}; known: "
                             f"{list(WINDOW_CLASSES)}")
    if path not in _PATHS:
        raise ValueError(f"the 'conv' kernel decision must be 'direct', 'im2col' or a dict "
                         f"{{window class: path}}, got {decided!r}")
    if path != "direct" or WINDOW_CLASSES[cls][2] == "direct" or c_out is None:
        return path == "direct"
    return (calibration.forced_choice("conv") is not None
            or conv_tiled.takes(c_out, dtype))
