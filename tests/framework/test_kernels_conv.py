"""kernels/conv.py: the direct conv2d kernels (forward, input and filter
gradients) and im2col / col2im, serial and parallel variants, against plain
NumPy references over random shapes, strides, paddings and dilations."""

import numpy as np
import pytest

from tapeflow.kernels import conv as _k
from tapeflow.kernels import conv_tiled


def conv2d_reference(x, w, strides, dilations, pads):
    """Cross-correlation by summing one strided slice per filter tap."""
    (sh, sw), (dh, dw) = strides, dilations
    (pt, pb), (pl, pr) = pads
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    kh, kw, _, c_out = w.shape
    ho = (xp.shape[1] - (kh - 1) * dh - 1) // sh + 1
    wo = (xp.shape[2] - (kw - 1) * dw - 1) // sw + 1
    out = np.zeros((x.shape[0], ho, wo, c_out), np.result_type(x, w))
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, i * dh:i * dh + sh * (ho - 1) + 1:sh,
                       j * dw:j * dw + sw * (wo - 1) + 1:sw, :]
            out += patch @ w[i, j]
    return out


def conv2d_input_grad_reference(g, w, input_hw, strides, dilations, pads):
    """The adjoint of conv2d_reference in x: each tap's slice receives g @ w.T."""
    (sh, sw), (dh, dw) = strides, dilations
    (pt, pb), (pl, pr) = pads
    kh, kw, c_in, _ = w.shape
    n, ho, wo, _ = g.shape
    dxp = np.zeros((n, input_hw[0] + pt + pb, input_hw[1] + pl + pr, c_in), g.dtype)
    for i in range(kh):
        for j in range(kw):
            dxp[:, i * dh:i * dh + sh * (ho - 1) + 1:sh,
                j * dw:j * dw + sw * (wo - 1) + 1:sw, :] += g @ w[i, j].T
    return dxp[:, pt:pt + input_hw[0], pl:pl + input_hw[1], :]


def conv2d_filter_grad_reference(x, g, filter_hw, strides, dilations, pads):
    (sh, sw), (dh, dw) = strides, dilations
    (pt, pb), (pl, pr) = pads
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)))
    n, ho, wo, c_out = g.shape
    kh, kw = filter_hw
    dw_ = np.zeros((kh, kw, x.shape[3], c_out), g.dtype)
    for i in range(kh):
        for j in range(kw):
            patch = xp[:, i * dh:i * dh + sh * (ho - 1) + 1:sh,
                       j * dw:j * dw + sw * (wo - 1) + 1:sw, :]
            dw_[i, j] = np.einsum("nhwc,nhwo->co", patch, g)
    return dw_


def random_geometry(rng):
    """A random small conv problem whose output is not empty."""
    while True:
        n, h, w = rng.integers(1, 4), rng.integers(1, 9), rng.integers(1, 9)
        kh, kw = rng.integers(1, 4), rng.integers(1, 4)
        strides = tuple(int(s) for s in rng.integers(1, 4, 2))
        dilations = tuple(int(d) for d in rng.integers(1, 3, 2))
        pads = tuple((int(a), int(b)) for a, b in rng.integers(0, 3, (2, 2)))
        span_h, span_w = (kh - 1) * dilations[0] + 1, (kw - 1) * dilations[1] + 1
        if h + sum(pads[0]) >= span_h and w + sum(pads[1]) >= span_w:
            c_in, c_out = rng.integers(1, 5), rng.integers(1, 6)
            return (int(n), int(h), int(w), int(c_in)), (int(kh), int(kw), int(c_in),
                                                         int(c_out)), strides, dilations, pads


def _out_hw(x_shape, w_shape, strides, dilations, pads):
    return tuple((x_shape[1 + a] + sum(pads[a]) - (w_shape[a] - 1) * dilations[a] - 1)
                 // strides[a] + 1 for a in range(2))


def _tol(dtype):
    return {"rtol": 1e-4, "atol": 1e-4} if dtype == np.float32 else {"rtol": 1e-10,
                                                                       "atol": 1e-10}


def _check_filter_kernel(variant, x, g, ws, st, di, pads, tol):
    """The filter kernel plain and with its fused ReLU mask: the filter gradient
    of g (or of g masked by y > 0) and the bias gradient, the sum of that g."""
    geometry = (*st, *di, pads[0][0], pads[1][0])
    y = np.maximum(np.random.default_rng(7).standard_normal(g.shape), 0).astype(g.dtype)
    for relu, g_seen in ((False, g), (True, g * (y > 0))):
        partial = np.full((2,) + ws, np.nan, g.dtype)
        bias_partial = np.full((2, ws[3]), np.nan)
        _k.conv2d_backward_filter[variant](x, g, partial, *geometry, y if relu else g, relu,
                                           bias_partial)
        np.testing.assert_allclose(partial.sum(axis=0), conv2d_filter_grad_reference(
            x, g_seen, ws[:2], st, di, pads), **tol)
        np.testing.assert_allclose(bias_partial.sum(axis=0), g_seen.sum(axis=(0, 1, 2)), **tol)


@pytest.mark.parametrize("variant", [0, 1], ids=["serial", "parallel"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(8))
def test_direct_kernels_match_reference(seed, dtype, variant):
    rng = np.random.default_rng(seed)
    xs, ws, st, di, pads = random_geometry(rng)
    x, w = rng.standard_normal(xs).astype(dtype), rng.standard_normal(ws).astype(dtype)
    ho, wo = _out_hw(xs, ws, st, di, pads)
    geometry = (*st, *di, pads[0][0], pads[1][0])
    out = _k.conv2d_forward[variant](x, w, np.empty((xs[0], ho, wo, ws[3]), dtype), *geometry)
    assert out.dtype == dtype
    np.testing.assert_allclose(out, conv2d_reference(x, w, st, di, pads), **_tol(dtype))
    g = rng.standard_normal(out.shape).astype(dtype)
    # The input gradient: g times the filters' transpose, scattered back by col2im.
    cols = g.reshape(-1, ws[3]) @ w.reshape(-1, ws[3]).T
    dx = _k.col2im[variant](cols, np.full(xs, np.nan, dtype), ws[0], ws[1], *geometry, ho, wo)
    np.testing.assert_allclose(dx, conv2d_input_grad_reference(g, w, xs[1:3], st, di, pads),
                               **_tol(dtype))
    _check_filter_kernel(variant, x, g, ws, st, di, pads, _tol(dtype))


@pytest.mark.parametrize("variant", [0, 1], ids=["serial", "parallel"])
@pytest.mark.parametrize("seed", range(8))
def test_row_kernels_of_unit_column_stride_match_reference(seed, variant):
    # A column stride of 1 takes the row-at-a-time forward and filter kernels;
    # random_geometry draws it only sometimes, so force it here (any row stride,
    # dilation and padding).
    rng = np.random.default_rng(200 + seed)
    xs, ws, st, di, pads = random_geometry(rng)
    st = (st[0], 1)
    x, w = rng.standard_normal(xs).astype(np.float32), rng.standard_normal(ws).astype(np.float32)
    ho, wo = _out_hw(xs, ws, st, di, pads)
    geometry = (*st, *di, pads[0][0], pads[1][0])
    out = _k.conv2d_forward[variant](x, w, np.full((xs[0], ho, wo, ws[3]), np.nan, np.float32),
                                     *geometry)
    np.testing.assert_allclose(out, conv2d_reference(x, w, st, di, pads), rtol=1e-4, atol=1e-4)
    g = rng.standard_normal(out.shape).astype(np.float32)
    _check_filter_kernel(variant, x, g, ws, st, di, pads, _tol(np.float32))


@pytest.mark.parametrize("variant", [0, 1], ids=["serial", "parallel"])
@pytest.mark.parametrize("seed", range(8))
def test_tiled_kernels_match_reference(seed, variant):
    # float32 with out channels a multiple of the GEMM's panel takes the tiled
    # filter and forward kernels (any strides, dilations, paddings); the windows
    # past a whole tile of taps, and x given as a sliced view, included.
    rng = np.random.default_rng(300 + seed)
    xs, ws, st, di, pads = random_geometry(rng)
    ws = ws[:3] + (conv_tiled.PANEL * int(rng.integers(1, 3)),)
    x = rng.standard_normal((xs[0], xs[1], xs[2] + 3, xs[3] * 2)).astype(np.float32)
    x = x[:, :, 3:, ::2] if seed % 2 else np.ascontiguousarray(x[:, :, 3:, ::2])
    ho, wo = _out_hw(xs, ws, st, di, pads)
    g = rng.standard_normal((xs[0], ho, wo, ws[3])).astype(np.float32)
    assert conv_tiled.fits_filter(x, g, np.empty((1,) + ws, np.float32))
    _check_filter_kernel(variant, x, g, ws, st, di, pads, _tol(np.float32))
    # The forward on the tile too: windows past a tile of pixels, padding, strides.
    w = rng.standard_normal(ws).astype(np.float32)
    out = np.full((xs[0], ho, wo, ws[3]), np.nan, np.float32)
    assert conv_tiled.fits_forward(x, w, out)
    out = _k.conv2d_forward[variant](x, w, out, *st, *di, pads[0][0], pads[1][0])
    np.testing.assert_allclose(out, conv2d_reference(x, w, st, di, pads), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("variant", [0, 1], ids=["serial", "parallel"])
@pytest.mark.parametrize("seed", range(8))
def test_tiled_input_gradient_matches_reference(seed, variant):
    # The tile along whole panels of taps, a plain loop past them (in channels drawn
    # so that the taps are a panel or more, and a whole number of panels or not), any
    # strides, dilations and paddings; g given as a sliced view half the time.
    rng = np.random.default_rng(400 + seed)
    xs, ws, st, di, pads = random_geometry(rng)
    c_in = -(-conv_tiled.PANEL // (ws[0] * ws[1])) + int(rng.integers(0, 3))
    if seed == 0:  # taps exactly one panel
        ws, c_in = (1, 1) + ws[2:], conv_tiled.PANEL
    xs, ws = xs[:3] + (c_in,), ws[:2] + (c_in, ws[3])
    ho, wo = _out_hw(xs, ws, st, di, pads)
    assert conv_tiled.takes_input(ws[0] * ws[1] * c_in, np.float32)
    w = rng.standard_normal(ws).astype(np.float32)
    g = rng.standard_normal((xs[0], ho, wo + 2, ws[3])).astype(np.float32)
    g = g[:, :, 2:] if seed % 2 else np.ascontiguousarray(g[:, :, 2:])
    wt = np.ascontiguousarray(w.reshape(-1, ws[3]).T)
    dx = conv_tiled.backward_input[variant](g, wt, np.full(xs, np.nan, np.float32), ws[0], ws[1],
                                            *st, *di, pads[0][0], pads[1][0])
    np.testing.assert_allclose(dx, conv2d_input_grad_reference(g.astype(np.float64), w, xs[1:3],
                                                               st, di, pads),
                               rtol=1e-4, atol=1e-4)


def test_tiled_input_gradient_takes_float32_windows_of_a_panel_or_more():
    assert conv_tiled.takes_input(conv_tiled.PANEL, np.float32)
    assert not conv_tiled.takes_input(conv_tiled.PANEL - 1, np.float32)
    assert not conv_tiled.takes_input(conv_tiled.PANEL, np.float64)


def test_tiled_kernels_take_float32_whole_panels_only():
    x = np.ones((1, 4, 4, 2), np.float32)
    for c_out, dtype, fits in ((conv_tiled.PANEL, np.float32, True), (2 * conv_tiled.PANEL, np.float32, True),
                               (conv_tiled.PANEL + 1, np.float32, False), (conv_tiled.PANEL, np.float64, False),
                               (0, np.float32, False)):
        g = np.ones((1, 2, 2, c_out), dtype)
        assert conv_tiled.fits_filter(x.astype(dtype), g, np.empty((1, 3, 3, 2, c_out), dtype)) is fits
        w = np.ones((3, 3, 2, c_out), dtype)
        assert conv_tiled.fits_forward(x.astype(dtype), w, g) is fits
    # The forward views the filters and its output as matrices: C-contiguous only.
    w, out = np.ones((3, 3, 2, 2 * conv_tiled.PANEL), np.float32), np.ones((1, 2, 2, conv_tiled.PANEL), np.float32)
    assert not conv_tiled.fits_forward(x, w[..., ::2], out)


@pytest.mark.parametrize("variant", [0, 1], ids=["serial", "parallel"])
@pytest.mark.parametrize("seed", range(8))
def test_im2col_matmul_matches_reference_and_col2im_is_its_adjoint(seed, variant):
    rng = np.random.default_rng(100 + seed)
    xs, ws, st, di, pads = random_geometry(rng)
    x, w = rng.standard_normal(xs), rng.standard_normal(ws)
    ho, wo = _out_hw(xs, ws, st, di, pads)
    geometry = (*st, *di, pads[0][0], pads[1][0])
    cols = _k.im2col[variant](x, np.full((xs[0] * ho * wo, ws[0] * ws[1] * ws[2]), np.nan),
                              ws[0], ws[1], *geometry, ho, wo)
    out = (cols @ w.reshape(-1, ws[3])).reshape(xs[0], ho, wo, ws[3])
    np.testing.assert_allclose(out, conv2d_reference(x, w, st, di, pads), rtol=1e-10,
                               atol=1e-10)
    # <col2im(c), x> == <c, im2col(x)> for every c: col2im is im2col's adjoint.
    c = rng.standard_normal(cols.shape)
    back = _k.col2im[variant](c, np.full(xs, np.nan), ws[0], ws[1], *geometry, ho, wo)
    np.testing.assert_allclose(np.sum(back * x), np.sum(c * cols), rtol=1e-10)


def test_pick_uses_the_parallel_variant_only_for_large_batched_work():
    assert _k.pick(_k.conv2d_forward, 10, 64) is _k.conv2d_forward[0]
    assert _k.pick(_k.conv2d_forward, 10**8, 64) is _k.conv2d_forward[1]
    assert _k.pick(_k.conv2d_forward, 10**8, 1) is _k.conv2d_forward[0]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("per_chunk", [1, 2, 3, 5])
@pytest.mark.parametrize("seed", range(4))
def test_the_input_gradient_in_chunks_of_samples_matches_reference(seed, per_chunk, dtype,
                                                                   monkeypatch):
    """ops/conv.py makes the input gradient's columns and adds them into dx a chunk
    of samples at a time (COLUMN_CHUNK_BYTES, at least a sample a core); 5 samples
    in chunks of 1 (or the cores), 2, 3 (the last one shorter) and whole."""
    from tapeflow.ops import conv as conv_ops
    from tapeflow.runtime import calibration
    rng = np.random.default_rng(200 + seed)
    xs, ws, st, di, pads = random_geometry(rng)
    xs = (5,) + xs[1:]
    ho, wo = _out_hw(xs, ws, st, di, pads)
    g = rng.standard_normal((5, ho, wo, ws[3])).astype(dtype)
    w = rng.standard_normal(ws).astype(dtype)
    sample_bytes = ho * wo * ws[0] * ws[1] * ws[2] * np.dtype(dtype).itemsize
    monkeypatch.setattr(conv_ops, "COLUMN_CHUNK_BYTES", per_chunk * sample_bytes)
    per_chunk = max(per_chunk, calibration.usable_cpus())
    products = []
    real_matmul = conv_ops._matmul
    monkeypatch.setattr(conv_ops, "_matmul", lambda a, b: products.append(a.shape[0]) or
                        real_matmul(a, b))
    dx = conv_ops._conv_in(g, w, xs[1:3], st, di, pads)
    assert dx.dtype == dtype
    np.testing.assert_allclose(dx, conv2d_input_grad_reference(g, w, xs[1:3], st, di, pads),
                               **_tol(dtype))
    sizes = [min(per_chunk, 5 - s) for s in range(0, 5, per_chunk)]
    assert products == [size * ho * wo for size in sizes]
