"""kernels/pool.py: max and average pooling, forward (values and argmax) and
backward, serial and parallel variants, against NumPy references over random
shapes, windows, strides and paddings."""

import numpy as np
import pytest

from tapeflow.kernels import pool as _k


def _windows(xp, kh, kw, sh, sw, ho, wo):
    """(N, ho, wo, kh, kw, C) windows of the padded input."""
    view = np.lib.stride_tricks.sliding_window_view(xp, (kh, kw), axis=(1, 2))
    return view[:, ::sh, ::sw][:, :ho, :wo].transpose(0, 1, 2, 4, 5, 3)


def max_pool_reference(x, ksize, strides, pads):
    """Window maxima with -inf padding, and the flat (ih * W + iw) * C + c argmax."""
    (kh, kw), (sh, sw), ((pt, pb), (pl, pr)) = ksize, strides, pads
    n, h, w, c = x.shape
    xp = np.pad(x, ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=-np.inf)
    ho, wo = (h + pt + pb - kh) // sh + 1, (w + pl + pr - kw) // sw + 1
    win = _windows(xp, kh, kw, sh, sw, ho, wo).reshape(n, ho, wo, kh * kw, c)
    k = np.argmax(win, axis=3)  # the first maximum, as the kernel
    i, j = k // kw, k % kw
    ih = np.arange(ho)[None, :, None, None] * sh - pt + i
    iw = np.arange(wo)[None, None, :, None] * sw - pl + j
    argmax = (ih * w + iw) * c + np.arange(c)
    return win.max(axis=3), argmax


def max_pool_grad_reference(g, argmax, x_shape):
    dx = np.zeros((g.shape[0], int(np.prod(x_shape[1:]))), g.dtype)
    for n in range(g.shape[0]):
        np.add.at(dx[n], argmax[n].ravel(), g[n].ravel())
    return dx.reshape(x_shape)


def avg_pool_reference(x, ksize, strides, pads):
    """Window sums over the real cells divided by their count (TF's SAME rule)."""
    (kh, kw), (sh, sw), ((pt, pb), (pl, pr)) = ksize, strides, pads
    n, h, w, c = x.shape
    pad = ((0, 0), (pt, pb), (pl, pr), (0, 0))
    ho, wo = (h + pt + pb - kh) // sh + 1, (w + pl + pr - kw) // sw + 1
    sums = _windows(np.pad(x, pad), kh, kw, sh, sw, ho, wo).sum(axis=(3, 4))
    counts = _windows(np.pad(np.ones((1, h, w, 1)), pad), kh, kw, sh, sw, ho, wo).sum(
        axis=(3, 4))
    return sums / counts


def random_pool(rng):
    """Windows never entirely in the padding (padding < window, as SAME gives)."""
    while True:
        n, h, w, c = (int(v) for v in rng.integers(1, 7, 4))
        kh, kw, sh, sw = (int(v) for v in rng.integers(1, 4, 4))
        pads = ((int(rng.integers(0, kh)), int(rng.integers(0, kh))),
                (int(rng.integers(0, kw)), int(rng.integers(0, kw))))
        if h + sum(pads[0]) >= kh and w + sum(pads[1]) >= kw:
            return (n, h, w, c), (kh, kw), (sh, sw), pads


@pytest.mark.parametrize("variant", [0, 1], ids=["serial", "parallel"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(8))
def test_max_pool_kernels_match_reference(seed, dtype, variant):
    rng = np.random.default_rng(seed)
    xs, ks, st, pads = random_pool(rng)
    x = rng.standard_normal(xs).astype(dtype)
    want, want_argmax = max_pool_reference(x, ks, st, pads)
    out = np.empty(want.shape, dtype)
    argmax = np.empty(want.shape, np.int64)
    _k.max_pool2d_forward[variant](x, out, argmax, *ks, *st, pads[0][0], pads[1][0])
    np.testing.assert_array_equal(out, want)
    np.testing.assert_array_equal(argmax, want_argmax)
    g = rng.standard_normal(out.shape).astype(dtype)
    dx = _k.max_pool2d_backward[variant](g, argmax, np.full(xs, np.nan, dtype))
    np.testing.assert_allclose(dx, max_pool_grad_reference(g, argmax, xs), rtol=1e-6)


def test_max_pool_takes_the_first_of_tied_maxima_and_propagates_nan():
    x = np.array([[1.0, 1.0], [np.nan, 0.0]]).reshape(1, 2, 2, 1)
    out, argmax = np.empty((1, 2, 1, 1)), np.empty((1, 2, 1, 1), np.int64)
    _k.max_pool2d_forward[0](x, out, argmax, 1, 2, 1, 1, 0, 0)  # 1x2 windows: the rows
    assert out[0, 0, 0, 0] == 1.0 and argmax[0, 0, 0, 0] == 0
    assert np.isnan(out[0, 1, 0, 0]) and argmax[0, 1, 0, 0] == 2


@pytest.mark.parametrize("variant", [0, 1], ids=["serial", "parallel"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("seed", range(8))
def test_avg_pool_kernels_match_reference_and_are_adjoint(seed, dtype, variant):
    rng = np.random.default_rng(50 + seed)
    xs, ks, st, pads = random_pool(rng)
    x = rng.standard_normal(xs).astype(dtype)
    want = avg_pool_reference(x, ks, st, pads)
    out = _k.avg_pool2d_forward[variant](x, np.empty(want.shape, dtype), *ks, *st,
                                         pads[0][0], pads[1][0])
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol)
    g = rng.standard_normal(out.shape).astype(dtype)
    dx = _k.avg_pool2d_backward[variant](g, np.full(xs, np.nan, dtype), *ks, *st,
                                         pads[0][0], pads[1][0])
    np.testing.assert_allclose(np.sum(dx * x), np.sum(g * out), rtol=tol * 10, atol=tol * 10)


# -- the 'pools' decision: from which size a pooling runs on all threads ---------------------

def test_the_pools_decision_times_the_max_pool_at_each_size(monkeypatch):
    """_measure_pools gives calibration.smallest_parallel_size (the rule 'updates'
    shares, tested there) POOL_SIZES and, at each, the max pool forward on one
    thread and on all, on an input and output of about that many elements."""
    from tapeflow.runtime import calibration
    monkeypatch.setattr(_k, "kernel_threads", lambda: 4)
    calls = []
    monkeypatch.setattr(_k, "max_pool2d_forward", tuple(
        (lambda x, out, *rest, which=which: calls.append((which, x.size + out.size)))
        for which in ("one", "many")))
    monkeypatch.setattr(calibration, "time_calls", lambda candidates, **options: {
        name: [call() or 1.0] for name, call in candidates.items()})

    def smallest(sizes, timings_at, margin):
        assert sizes == _k.POOL_SIZES and margin == _k._POOL_MARGIN
        for size in sizes:
            calls.clear()
            assert set(timings_at(size)) == {"one", "many"}
            assert [which for which, _ in calls] == ["one", "many"]
            assert 0.8 * size <= calls[0][1] == calls[1][1] <= 1.2 * size
        return 1 << 18, {"measured": True}

    monkeypatch.setattr(calibration, "smallest_parallel_size", smallest)
    assert _k._measure_pools() == (1 << 18, {"threads": 4, "measured": True})


def test_the_pools_decision_is_one_thread_on_one_core(monkeypatch):
    monkeypatch.setattr(_k, "kernel_threads", lambda: 1)
    assert _k._measure_pools() == ("one", {"threads": 1})


def test_pick_follows_the_pools_decision_and_small_calls_never_ask(monkeypatch):
    from tapeflow.runtime import calibration
    pair = ("serial", "parallel")

    def measured(name):
        raise AssertionError(f"{name} was asked for")

    monkeypatch.setattr(calibration, "choice", measured)
    assert _k.pick(pair, _k.POOL_SIZES[0] - 1, batch=64) == "serial"
    assert _k.pick(pair, 10**9, batch=1) == "serial"  # one sample: nothing to split
    monkeypatch.undo()
    with calibration.forced(pools=1 << 18):
        assert _k.pick(pair, 1 << 18, batch=2) == "parallel"
        assert _k.pick(pair, (1 << 18) - 1, batch=2) == "serial"
    with calibration.forced(pools="one"):
        assert _k.pick(pair, 10**9, batch=64) == "serial"
    with calibration.forced(pools=8):  # a forced decision counts at every size
        assert _k.pick(pair, 8, batch=2) == "parallel"
