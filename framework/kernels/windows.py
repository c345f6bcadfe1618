"""windows.py: one sample's convolution windows as a matrix, and back: the
per-sample steps of im2col and col2im (NHWC, (kh, kw, in, out) filters).
conv.py's im2col and col2im run them over a batch, conv_tiled.py's kernels on
one sample at a time, in cache. Geometry as in conv.py: strides (sh, sw),
dilations (dh, dw), padding before (pt, pl), the output size (ho, wo)."""

# runtime.jit first: it imports numba and registers the kernels' cache locator.
from ..runtime.jit import njit  # noqa: I001

__all__ = ["add_sample_windows", "sample_windows"]


@njit(cache=True, nogil=True, inline="always")
def sample_windows(x, n, rows, first, kh, kw, sh, sw, dh, dw, pt, pl, ho, wo):
    """rows[first + oh * wo + ow, (i, j, c)] = x[n, oh*sh - pt + i*dh, ow*sw - pl + j*dw,
    c], 0 outside: sample n's windows as the rows of a (pixels, taps) matrix, for a
    C-contiguous x. A window's filter row that falls inside with a unit column
    dilation is kw * in consecutive input values: one copy (3x3x3 windows on 32 x
    32 x 32 x 3, AMD Zen 4: 0.89 -> 0.61 ms in a tiled forward against a copy per
    tap). Columns of `rows` past the taps are left alone."""
    h, wd, c_in = x.shape[1], x.shape[2], x.shape[3]
    span = kw * c_in
    flat = x[n].reshape(h, wd * c_in)
    for oh in range(ho):
        for ow in range(wo):
            r = first + oh * wo + ow
            iw0 = ow * sw - pl
            inside = dw == 1 and iw0 >= 0 and iw0 + kw <= wd
            for i in range(kh):
                ih = oh * sh - pt + i * dh
                if inside and 0 <= ih < h:
                    dst, src = rows[r, i * span:(i + 1) * span], flat[ih, iw0 * c_in:]
                    for k in range(span):
                        dst[k] = src[k]
                    continue
                for j in range(kw):
                    iw = iw0 + j * dw
                    base = (i * kw + j) * c_in
                    if ih < 0 or ih >= h or iw < 0 or iw >= wd:
                        for c in range(c_in):
                            rows[r, base + c] = 0
                    else:
                        for c in range(c_in):
                            rows[r, base + c] = flat[ih, iw * c_in + c]


@njit(cache=True, nogil=True, inline="always")
def add_sample_windows(rows, first, dx, n, kh, kw, sh, sw, dh, dw, pt, pl, ho, wo):
    """The adjoint of sample_windows for sample n: dx[n, ih, iw, c] += each entry of
    rows[first:first + pixels] (pixels, taps) that copied it. Tap by tap (i, j), as NumPy's strided
    slice adds would: the columns whose input lies inside are found once per tap,
    so the inner loop runs without bounds checks (with one input channel a loop
    per element was 3x slower than NumPy's slice adds)."""
    h, wd, c_in = dx.shape[1], dx.shape[2], dx.shape[3]
    for i in range(kh):
        for j in range(kw):
            base = (i * kw + j) * c_in
            off = j * dw - pl  # iw = ow * sw + off
            ow_lo = max(0, (sw - 1 - off) // sw)
            ow_hi = min(wo, (wd - 1 - off) // sw + 1)
            for oh in range(ho):
                ih = oh * sh - pt + i * dh
                if ih < 0 or ih >= h:
                    continue
                r0 = first + oh * wo
                for ow in range(ow_lo, ow_hi):
                    iw = ow * sw + off
                    for c in range(c_in):
                        dx[n, ih, iw, c] += rows[r0 + ow, base + c]
