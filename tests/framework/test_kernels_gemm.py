"""kernels/gemm.py: the register-tiled float32 product against NumPy, every
tail and stride case, and the conv ops that route tall products to it."""

import numpy as np
import pytest

from tapeflow.kernels import gemm

ROWS, PANEL, K_BLOCK = gemm.ROWS, 2 * gemm.LANES, gemm._K_BLOCK


def _reference(a, b):
    return a.astype(np.float64) @ b.astype(np.float64)


def _check(a, b):
    c = gemm.matmul(a, b)
    assert c.shape == (a.shape[0], b.shape[1]) and c.dtype == np.float32
    assert c.flags.c_contiguous
    scale = np.abs(a).max(initial=0) * np.abs(b).max(initial=0) * max(a.shape[1], 1)
    np.testing.assert_allclose(c, _reference(a, b), rtol=0, atol=4e-7 * max(scale, 1))


@pytest.mark.parametrize("m, k, n", [
    (ROWS * 3, 7, PANEL * 2),           # whole tiles only
    (ROWS * 3 + 4, 7, PANEL),           # leftover rows
    (ROWS * 2, 5, PANEL + 7),           # leftover columns
    (ROWS * 5 + 1, 33, PANEL * 2 + 3),  # both
    (ROWS - 1, 9, PANEL * 2),           # fewer rows than a tile
    (ROWS * 4, 9, PANEL - 1),           # fewer columns than a panel
    (ROWS * 2, 1, PANEL),               # k = 1
    (ROWS * 2, 0, PANEL),               # k = 0: zeros
    (ROWS * 9 + 3, 2 * K_BLOCK + 5, PANEL * 3),  # blocks of k added up; row groups
    (ROWS * 17, K_BLOCK, PANEL),        # exactly one k block; three groups
    (7744, 288, 64),                    # W3's second convolution, forward
    (128, 784, 512),                    # W2's first Dense layer
])
def test_matches_numpy(m, k, n):
    rng = np.random.default_rng(m * 1000 + k * 10 + n)
    _check(rng.standard_normal((m, k)).astype(np.float32),
           rng.standard_normal((k, n)).astype(np.float32))


def test_any_strides():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((50, 40)).astype(np.float32)
    b = rng.standard_normal((64, 50)).astype(np.float32)
    _check(a.T, b.T)                    # transposed views
    _check(a[::2, 1::3], b[:13, ::2])   # sliced views, k = 13


def test_read_only_operands():
    # A read-only operand (a broadcast view, as Conv2DTranspose's kernel gradient
    # passes) once failed the compiled signature: "No matching definition ...
    # readonly array(float32, 2d, C)".
    rng = np.random.default_rng(2)
    a = rng.standard_normal((ROWS * 4 + 3, 40)).astype(np.float32)
    b = rng.standard_normal((40, PANEL * 2)).astype(np.float32)
    a.flags.writeable = False
    b.flags.writeable = False
    _check(a, b)
    _check(np.broadcast_to(a[:1], (ROWS * 3, 40)), b.T.copy().T)  # a stride-0 view
    assert not a.flags.writeable and not b.flags.writeable       # inputs left as given


@pytest.mark.parametrize("variant", [0, 1])
def test_serial_and_parallel_variants_agree(variant):
    rng = np.random.default_rng(1)
    a = rng.standard_normal((ROWS * 10, 20)).astype(np.float32)
    b = rng.standard_normal((20, PANEL * 2)).astype(np.float32)
    c = np.full((a.shape[0], b.shape[1]), np.nan, np.float32)
    a_tail = np.zeros((ROWS, 20), np.float32)
    a_tail[:3] = a[:3]
    c_tail = np.full((ROWS, b.shape[1]), np.nan, np.float32)
    packed = np.empty((2, 20, PANEL), np.float32)
    gemm._tiles_pair[variant](a, b, packed, c, a_tail, c_tail, 10, 11)
    np.testing.assert_allclose(c, _reference(a, b), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(c_tail, _reference(a_tail, b), rtol=1e-5, atol=1e-5)


def test_nan_propagates():
    a = np.ones((ROWS, 3), np.float32)
    b = np.ones((3, PANEL), np.float32)
    a[2, 1] = np.nan
    c = gemm.matmul(a, b)
    assert np.isnan(c[2]).all() and not np.isnan(np.delete(c, 2, axis=0)).any()
    # in a later block of k, where the tile adds to what c holds
    a = np.ones((ROWS, K_BLOCK + 3), np.float32)
    a[5, K_BLOCK + 1] = np.nan
    c = gemm.matmul(a, np.ones((K_BLOCK + 3, PANEL), np.float32))
    assert np.isnan(c[5]).all() and (np.delete(c, 5, axis=0) == K_BLOCK + 3).all()


def test_rejects_other_dtypes_and_shapes_by_name():
    with pytest.raises(ValueError, match=r"float32.*float64\(4, 3\)"):
        gemm.matmul(np.ones((4, 3)), np.ones((3, 2), np.float32))
    with pytest.raises(ValueError, match=r"\(4, 3\) and float32\(2, 2\)"):
        gemm.matmul(np.ones((4, 3), np.float32), np.ones((2, 2), np.float32))


def test_wins_only_for_float32_products_with_a_panel_of_columns():
    # Which shape classes win is measured (tests/framework/test_calibration.py);
    # forced to this kernel everywhere, the structural limits remain.
    from tapeflow.runtime import calibration
    with calibration.forced(gemm="tapeflow"):
        assert gemm.wins(7744, 288, 64, np.float32)
        assert gemm.wins(128, 784, 512, np.float32)  # W2's first Dense layer
        assert not gemm.wins(7744, 288, 64, np.float64)
        assert not gemm.wins(128, 256, 10, np.float32)  # fewer columns than a panel
        assert not gemm.wins(0, 256, 64, np.float32)
    with calibration.forced(gemm="blas"):
        assert not gemm.wins(7744, 288, 64, np.float32)


def test_matmul_op_routes_2d_float32_products(monkeypatch):
    import tapeflow as tf
    calls = []
    monkeypatch.setattr(gemm, "wins", lambda m, k, n, dtype: True)
    monkeypatch.setattr(gemm, "matmul", lambda a, b: calls.append(a.shape) or _kernel(a, b))
    rng = np.random.default_rng(3)
    x = tf.Variable(rng.standard_normal((40, 50)).astype(np.float32))
    w = tf.Variable(rng.standard_normal((50, PANEL)).astype(np.float32))
    with tf.GradientTape() as tape:
        y = tf.matmul(x, w)
    dx, dw = tape.gradient(y, [x, w])
    np.testing.assert_allclose(y.numpy(), x.numpy() @ w.numpy(), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(dx.numpy(), np.ones((40, PANEL)) @ w.numpy().T, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(dw.numpy(), x.numpy().T @ np.ones((40, PANEL)), rtol=1e-5, atol=1e-4)
    assert calls == [(40, 50), (40, PANEL), (50, 40)]  # forward, then both products of the VJP


def test_conv_ops_route_tall_products_and_match_float64(monkeypatch):
    import tapeflow as tf
    calls = []
    monkeypatch.setattr(gemm, "matmul", lambda a, b: calls.append(a.shape) or _kernel(a, b))
    rng = np.random.default_rng(2)
    x = rng.standard_normal((64, 13, 13, 32)).astype(np.float32)
    w = (rng.standard_normal((3, 3, 32, 64)) * 0.1).astype(np.float32)
    xv, wv = tf.Variable(x), tf.Variable(w)
    from tapeflow.runtime import calibration
    with calibration.forced(conv="im2col"):  # W3's second layer takes im2col (not measured here)
        with tf.GradientTape() as tape:
            y = tf.nn.conv2d(xv, wv, 1, "VALID")
            loss = tf.reduce_sum(y * y)
        dx, dw = tape.gradient(loss, [xv, wv])
        with tf.GradientTape() as tape:
            x64, w64 = tf.Variable(x.astype(np.float64)), tf.Variable(w.astype(np.float64))
            y64 = tf.nn.conv2d(x64, w64, 1, "VALID")
            loss64 = tf.reduce_sum(y64 * y64)
        dx64, dw64 = tape.gradient(loss64, [x64, w64])
    for got, want in [(y, y64), (dx, dx64), (dw, dw64)]:
        want = want.numpy()
        np.testing.assert_allclose(got.numpy(), want, rtol=0, atol=2e-5 * np.abs(want).max())
    # forward, input gradient (in chunks of samples, ops/conv.py) and filter gradient,
    # where the kernel wins here
    from tapeflow.ops import conv as conv_ops
    per = max(calibration.usable_cpus(), conv_ops._l2_cache_bytes() // (121 * 288 * 4))
    chunks = [((min(per, 64 - start) * 121, 64), 288) for start in range(0, 64, per)]
    expected = [shape for shape, n in [((7744, 288), 64)] + chunks + [((288, 7744), 64)]
                if gemm.wins(*shape, n, np.float32)]
    assert calls == expected


_kernel = gemm.matmul


def test_one_compile_serves_every_layout():
    # Each layout combination would otherwise be a compile of its own (~0.6 s cold).
    a = np.ones((ROWS * 2, 40), np.float32)
    b = np.ones((40, PANEL), np.float32)
    for x, y in [(a, b), (a.T.copy().T, b), (a, b.T.copy().T), (a[:, ::2], b[::2])]:
        np.testing.assert_allclose(gemm.matmul(x, y), _reference(x, y), rtol=1e-5)
    assert len(gemm._tiles_pair[0].kernel.dispatcher.signatures) == 1
