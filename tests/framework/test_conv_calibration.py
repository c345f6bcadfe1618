"""The 'conv' kernel decision (kernels/conv.py `direct`, measured by ops/conv.py
`_measure_conv`): direct kernels or im2col + GEMM per window class, measured
on first need, cached per machine key, forced without the environment; and
the values and gradients of Conv2D that do not depend on the path taken."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import tapeflow as tf
from tapeflow.ops import conv as conv_ops
from tapeflow.runtime import calibration
from test_kernels_conv import (
    conv2d_filter_grad_reference,
    conv2d_input_grad_reference,
    conv2d_reference,
)

_k = pytest.importorskip("tapeflow.kernels.conv")
PATHS = ("direct", "im2col")


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A private cache directory, a quiet machine and no decision made yet; the
    process's decisions are restored afterwards."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(calibration, "machine_busy", lambda: "")
    saved = dict(calibration._decided)
    calibration.forget()
    yield tmp_path
    calibration.forget()
    calibration._decided.update(saved)


# --- the decision ------------------------------------------------------------

def test_window_classes_split_by_values_per_window():
    assert _k.window_class(1, 1, 1) == _k.window_class(3, 3, 1) == "upto9"
    assert _k.window_class(2, 5, 1) == _k.window_class(2, 2, 4) == _k.window_class(4, 4, 1) \
        == "upto16"
    assert _k.window_class(3, 3, 2) == _k.window_class(5, 5, 1) == _k.window_class(3, 3, 3) \
        == "upto27"
    assert _k.window_class(1, 1, 28) == _k.window_class(3, 3, 9) == "upto81"
    assert _k.window_class(3, 3, 10) == _k.window_class(3, 3, 32) == "over81"
    for cls, (_, shape, _) in _k.WINDOW_CLASSES.items():
        assert _k.window_class(*shape) == cls  # each class is measured on one of its own


def test_the_defaults_are_the_old_constant():
    # Where a measurement cannot tell the paths apart, today's rule stands:
    # direct up to 16 values per window.
    with calibration.forced(conv={}):
        for kh, kw, c_in in [(1, 1, 1), (3, 3, 1), (4, 4, 1), (1, 1, 16), (1, 1, 17), (3, 3, 2),
                             (5, 5, 1), (3, 3, 32)]:
            assert _k.direct(kh, kw, c_in) == (kh * kw * c_in <= 16), (kh, kw, c_in)


def _fake_time_calls(direct_faster, ratio=0.5, calls=None):
    """time_calls stand-in: direct takes `ratio` ms in the classes of
    `direct_faster` and 2 ms elsewhere; im2col always 1 ms. The class is the
    measured filter's; `calls` lists the classes measured."""
    calls = [] if calls is None else calls

    def time_calls(candidates, repeats, before=None, budget=None, clock=None):
        assert set(candidates) == set(PATHS)
        w = candidates["direct"].__defaults__[1]  # the measured filter (x, w, b, g)
        cls = _k.window_class(*w.shape[:3])
        calls.append(cls)
        direct = ratio * 1e-3 if cls in direct_faster else 2e-3
        return {"direct": [direct] * 3, "im2col": [1e-3] * 3}
    return time_calls


@pytest.mark.parametrize("direct_faster", [set(), {"upto9"}, {"over81", "upto27"},
                                           set(_k.WINDOW_CLASSES)])
def test_the_measurement_routes_each_class_as_timed(direct_faster):
    calls = []
    decided, medians = conv_ops._measure_conv(time_calls=_fake_time_calls(direct_faster,
                                                                          calls=calls))
    assert decided == {cls: "direct" if cls in direct_faster else "im2col"
                       for cls in _k.WINDOW_CLASSES}
    # A class leaving its default path is measured twice, the others once.
    switched = [cls for cls in _k.WINDOW_CLASSES if decided[cls] != _k.WINDOW_CLASSES[cls][2]]
    assert calls == [c for cls in _k.WINDOW_CLASSES for c in [cls] * (2 if cls in switched else 1)]
    assert medians["upto9"] == ({"direct": [0.5e-3], "im2col": [1e-3]} if "upto9" in direct_faster
                                else {"direct": [2e-3, 2e-3], "im2col": [1e-3, 1e-3]})


@pytest.mark.parametrize("ratio", [1.03, 1.3])
def test_noise_keeps_the_default_path(ratio):
    # im2col 3% or 23% faster everywhere: within the margin, the small windows stay direct.
    decided, _ = conv_ops._measure_conv(time_calls=_fake_time_calls(set(_k.WINDOW_CLASSES),
                                                                    ratio=ratio))
    assert decided == {"upto9": "direct", "upto16": "direct", "upto27": "im2col",
                       "upto81": "im2col", "over81": "im2col"}


def test_a_switch_seen_in_one_measurement_only_keeps_the_default():
    fast, slow = {"direct": [1e-3], "im2col": [4e-3]}, {"direct": [1e-3], "im2col": [1e-3]}
    assert _k.routes({"over81": [fast, slow], "upto81": [fast, fast], "upto9": [slow]}) == {
        "over81": "im2col", "upto81": "direct", "upto9": "direct"}


def test_the_real_measurement_decides_every_class_within_its_budget():
    decided, medians = conv_ops._measure_conv(repeats=2)
    assert set(decided) == set(medians) == set(_k.WINDOW_CLASSES)
    assert set(decided.values()) <= set(PATHS)
    assert all(set(m) == set(PATHS) and all(t > 0 for v in m.values() for t in v)
               for m in medians.values())


@pytest.fixture
def spied(monkeypatch):
    """Counts of the kernel pairs run: the direct forward and filter kernels, im2col."""
    counts = {"conv2d_forward": 0, "conv2d_backward_filter": 0, "im2col": 0}

    def counting(name):
        def wrap(fn):
            def run(*args):
                counts[name] += 1
                return fn(*args)
            return run
        return tuple(wrap(fn) for fn in getattr(_k, name))
    for name in counts:
        monkeypatch.setattr(_k, name, counting(name))
    return counts


def _train_step(x, w):
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.conv2d(x, w, 1, "SAME")
    return tape.gradient(y, [x, w], output_gradients=tf.ones_like(y))


@pytest.mark.parametrize("forced, c_in, path", [
    ("direct", 32, "direct"), ("im2col", 1, "im2col"),
    ({"upto9": "im2col"}, 1, "im2col"), ({"upto9": "im2col"}, 2, "im2col"),  # 18: default
    ({"over81": "direct"}, 32, "direct"), ({"over81": "direct"}, 1, "direct"),  # 9: default
])
def test_a_forced_path_is_the_one_that_runs(spied, forced, c_in, path):
    x = tf.constant(np.ones((2, 5, 5, c_in), np.float32))
    w = tf.Variable(np.ones((3, 3, c_in, 4), np.float32))
    with calibration.forced(conv=forced):
        _train_step(x, w)
        assert calibration.choices()["decisions"]["conv"] == forced
    if path == "direct":
        assert spied == {"conv2d_forward": 1, "conv2d_backward_filter": 1, "im2col": 0}
    else:  # the filter gradient reuses the forward's columns
        assert spied == {"conv2d_forward": 0, "conv2d_backward_filter": 0, "im2col": 1}


@pytest.mark.parametrize("c_out, dtype, path", [
    (_k.conv_tiled.PANEL, np.float32, "direct"), (4, np.float32, "im2col"),
    (_k.conv_tiled.PANEL, np.float64, "im2col")])
def test_a_measured_direct_route_takes_wide_windows_onto_the_tiled_kernels_only(
        spied, spy, monkeypatch, c_out, dtype, path):
    # Measured, not forced: a class whose default is im2col (3x3x32 windows) goes
    # direct only where the tiled kernels take it (float32, whole panels of out
    # channels), its input gradient too; the row loops run 4-10x slower than GEMM there.
    monkeypatch.setitem(calibration._decided, "conv",
                        ({cls: "direct" for cls in _k.WINDOW_CLASSES}, {}))
    tiled_input = spy(_k.conv_tiled, "backward_input")
    x = tf.constant(np.ones((2, 5, 5, 32), dtype))
    w = tf.Variable(np.ones((3, 3, 32, c_out), dtype))
    dx, dw = _train_step(x, w)
    if path == "direct":
        assert spied == {"conv2d_forward": 1, "conv2d_backward_filter": 1, "im2col": 0}
        assert len(tiled_input) == 1
    else:
        assert spied == {"conv2d_forward": 0, "conv2d_backward_filter": 0, "im2col": 1}
        assert tiled_input == []
    # SAME padding, all-ones: each input cell's gradient counts its in-bounds taps.
    taps = np.array([2, 3, 3, 3, 2], dtype)
    np.testing.assert_allclose(dx.numpy()[0, :, :, 0], np.outer(taps, taps) * c_out)
    # The filter's taps: in-bounds positions per tap, times the batch of 2.
    np.testing.assert_allclose(dw.numpy()[:, :, 0, 0], np.outer([4, 5, 4], [4, 5, 4]) * 2)


@pytest.mark.parametrize("bad, message", [
    ("fast", r"must be 'direct', 'im2col' or a dict \{window class: path\}, got 'fast'"),
    ({"upto9": "gemm"}, r"got \{'upto9': 'gemm'\}"),
    ({"tiny": "direct"}, r"unknown window classes \['tiny'\]; known: \['upto9'"),
])
def test_a_bad_forced_value_is_named(bad, message):
    x, w = np.ones((1, 4, 4, 1), np.float32), np.ones((3, 3, 1, 2), np.float32)
    with calibration.forced(conv=bad), pytest.raises(ValueError, match=message):
        tf.nn.conv2d(x, w, 1, "VALID")


def test_the_decision_is_cached_and_measured_anew_on_another_cpu(cache, monkeypatch):
    runs = []
    measured = _k.routes({cls: [{"direct": [1.0], "im2col": [2.0]}] for cls in _k.WINDOW_CLASSES})

    def measure():
        runs.append(1)
        return measured, {"run": len(runs)}
    monkeypatch.setitem(calibration._measurements, "conv",
                        (measure, calibration._measurements["conv"][1]))
    x, w = np.ones((1, 4, 4, 3), np.float32), np.ones((3, 3, 3, 2), np.float32)
    tf.nn.conv2d(x, w, 1, "VALID")  # the first convolution asks
    assert runs == [1] and calibration.choices()["decisions"]["conv"] == measured
    calibration.forget()  # as a new process: measured once more, which confirms it
    tf.nn.conv2d(x, w, 1, "VALID")
    assert runs == [1, 1]
    calibration.forget()  # then read from the file
    tf.nn.conv2d(x, w, 1, "VALID")
    assert runs == [1, 1]
    with open(calibration.cache_path()) as f:
        [entry] = json.load(f)["entries"].values()
    assert entry["conv"][:2] == [measured, {"run": 2}]
    monkeypatch.setattr(calibration, "cpu_model", lambda: "Imaginary CPU 9000")
    calibration.forget()
    tf.nn.conv2d(x, w, 1, "VALID")
    assert runs == [1, 1, 1]
    assert tf.config.experimental.get_kernel_choices()["details"]["conv"] == {"run": 3}


def test_the_first_convolution_measures_not_the_import(tmp_path):
    code = ("import numpy as np\nimport tapeflow as tf\nfrom tapeflow.runtime import calibration\n"
            "assert 'conv' not in calibration._decided\n"
            "tf.nn.conv2d(np.ones((1, 4, 4, 3), np.float32), np.ones((3, 3, 3, 2), np.float32),"
            " 1, 'VALID')\n"
            "assert set(calibration._decided['conv'][0]) == {'upto9', 'upto16', 'upto27',"
            " 'upto81', 'over81'}\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=600,
                   env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)})


# --- the values do not depend on the path --------------------------------------

def _layout(a, layout):
    """`a`'s values in a transposed or sliced view (kernels see its strides)."""
    if layout == "transposed":
        return np.ascontiguousarray(a.transpose(0, 2, 1, 3)).transpose(0, 2, 1, 3)
    if layout == "sliced":
        wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        wide[..., ::2] = a
        return wide[..., ::2]
    return a


def _pads(size, k, stride, dilation, padding):
    if padding == "VALID":
        return (0, 0)
    total = max((-(-size // stride) - 1) * stride + (k - 1) * dilation + 1 - size, 0)
    return (total // 2, total - total // 2)


GEOMETRIES = [  # x shape, filter shape, strides, dilations, padding
    ((2, 7, 6, 1), (3, 3, 1, 4), (1, 1), (1, 1), "SAME"),
    ((3, 9, 8, 1), (3, 2, 1, 5), (2, 1), (1, 1), "VALID"),
    ((2, 8, 7, 3), (3, 3, 3, 4), (1, 2), (1, 1), "SAME"),
    ((2, 9, 9, 2), (2, 3, 2, 3), (1, 1), (2, 2), "SAME"),
    ((1, 10, 9, 12), (3, 3, 12, 6), (2, 2), (1, 1), "VALID"),
    ((2, 6, 10, 1), (5, 5, 1, 2), (1, 1), (1, 2), "VALID"),
]


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("geometry", GEOMETRIES, ids=lambda g: f"{g[1]}-{g[2]}-{g[3]}-{g[4]}")
def test_both_paths_give_the_reference_values_and_gradients(geometry, dtype, layout):
    xs, ws, st, di, padding = geometry
    rng = np.random.default_rng(sum(xs) + sum(ws))
    x = _layout(rng.standard_normal(xs).astype(dtype), layout)
    w = rng.standard_normal(ws).astype(dtype)
    upstream_rng = np.random.default_rng(1)
    pads = tuple(_pads(xs[1 + a], ws[a], st[a], di[a], padding) for a in range(2))
    want = conv2d_reference(x, w, st, di, pads)
    g = upstream_rng.standard_normal(want.shape).astype(dtype)
    wants = (want, conv2d_input_grad_reference(g, w, xs[1:3], st, di, pads),
             conv2d_filter_grad_reference(x, g, ws[:2], st, di, pads))
    tol = {"rtol": 1e-12, "atol": 1e-12} if dtype == np.float64 else {"rtol": 1e-4, "atol": 1e-4}
    results = {}
    for path in PATHS:
        with calibration.forced(conv=path):
            xt, wt = tf.constant(x), tf.Variable(w)
            with tf.GradientTape() as tape:
                tape.watch(xt)
                y = tf.nn.conv2d(xt, wt, [1, *st, 1], padding, dilations=[1, *di, 1])
            dx, dw = tape.gradient(y, [xt, wt], output_gradients=tf.constant(g))
        results[path] = [t.numpy() for t in (y, dx, dw)]
        for got, expected in zip(results[path], wants):
            assert got.dtype == dtype
            np.testing.assert_allclose(got, expected, **tol)
    for direct, im2col in zip(results["direct"], results["im2col"]):
        np.testing.assert_allclose(direct, im2col, **tol)


@pytest.mark.parametrize("c_in", [1, 8])
def test_a_conv2d_layer_trains_alike_on_both_paths(c_in):
    rng = np.random.default_rng(c_in)
    x = rng.standard_normal((4, 8, 8, c_in))
    upstream = rng.standard_normal((4, 4, 4, 6))
    results = []
    for path in PATHS:
        layer = tf.keras.layers.Conv2D(6, 3, strides=2, padding="same", activation="relu",
                                       dtype="float64")
        layer(x)  # built by a call: see the report on layer.build
        layer.set_weights([rng.standard_normal((3, 3, c_in, 6)) if not results else
                           results[0][0], np.full(6, 0.1)])
        with calibration.forced(conv=path):
            with tf.GradientTape() as tape:
                y = layer(tf.constant(x))
            grads = tape.gradient(y, layer.trainable_variables, output_gradients=upstream)
        results.append([layer.kernel.numpy(), y.numpy()] + [g.numpy() for g in grads])
    kernel = results[0][0]
    z = conv2d_reference(x, kernel, (2, 2), (1, 1), ((0, 1), (0, 1))) + 0.1
    masked = upstream * (z > 0)
    np.testing.assert_allclose(results[0][1], np.maximum(z, 0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(results[0][2], conv2d_filter_grad_reference(
        x, masked, (3, 3), (2, 2), (1, 1), ((0, 1), (0, 1))), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(results[0][3], masked.sum(axis=(0, 1, 2)), rtol=1e-12)
    for direct, im2col in zip(results[0][1:], results[1][1:]):
        np.testing.assert_allclose(direct, im2col, rtol=1e-12, atol=1e-12)
