"""ReLU's gradient is TF's ReluGrad, `gradients * (features > 0)`: where the
ReLU's output is not positive the gradient is g * 0 -- -0.0 for a negative
upstream g, NaN for a NaN or infinite one -- not a +0 that hides a bad
gradient; where it is positive, g itself, bit for bit. The bias gradient sums
the masked gradient, so a NaN at a masked position makes it NaN, as TF's
reduce_sum would.

Every path that masks is driven: tf.nn.relu and Dense(activation="relu")
through ops/math.py relu_grad (NumPy's formula below _KERNEL_MIN_SIZE, the
relu_backward kernel above it, on two threads from 2**20 elements);
Conv2D(activation="relu") through kernels/elementwise.py
relu_bias_backward_arrays (the im2col path, or an input gradient wanted) and
through the direct filter kernels, which mask as they read g (kernels/conv.py
for one row at a time and strided, conv_tiled.py for float32 whole panels).
A spy checks which kernel ran. The sign of a masked zero is checked where an
API returns the masked gradient itself (tf.nn.relu, and the kernels); the
layers' gradients are sums and products of it, where NaN is what shows."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.kernels import conv as conv_kernels
from tapeflow.kernels import conv_tiled
from tapeflow.kernels import elementwise
from tapeflow.ops import math as math_ops
from tapeflow.runtime import calibration
from test_kernels_conv import conv2d_filter_grad_reference, conv2d_input_grad_reference

# NumPy's formula (relu_grad below _KERNEL_MIN_SIZE, and for operands the kernel does
# not take) warns of inf * 0, which these tests feed it on purpose; TF does not warn.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered in multiply")

RNG = np.random.default_rng(23)
FLOATS = [np.float32, np.float64]
TWO_THREADS = 1 << 20  # relu_grad's size for the two-thread kernel (ops/math.py)
# Element counts for relu_grad: NumPy's formula, the kernel on one thread (below and
# above PARALLEL_ELEMENTS, the bias kernels' threshold), the kernel on two threads.
SIZES = [math_ops._KERNEL_MIN_SIZE // 4, math_ops._KERNEL_MIN_SIZE + 904,
         elementwise.PARALLEL_ELEMENTS + 37, TWO_THREADS + 3]


def tf_relu_grad(g, y):
    """TF's ReluGrad in NumPy: g * (y > 0), NaN and the sign of zero included."""
    with np.errstate(invalid="ignore"):
        return g * (y > 0).astype(g.dtype)


def assert_same_values_and_signs(got, expected):
    """Equal values (NaN where NaN) and, where not NaN, the same sign bits: -0.0 is not +0."""
    np.testing.assert_array_equal(got, expected)
    numbers = ~np.isnan(expected)
    np.testing.assert_array_equal(np.signbit(got[numbers]), np.signbit(expected[numbers]),
                                  err_msg="the sign of a masked zero differs from TF's g * 0")


def upstream(shape, masked, dtype, rng=RNG):
    """A gradient of `shape`, random (half negative), with NaN, +inf and -inf at
    some masked positions and a NaN at an unmasked one (which passes through)."""
    g = rng.standard_normal(shape).astype(dtype)
    flat, where = g.reshape(-1), np.flatnonzero(masked)
    flat[where[::7]] = np.nan
    flat[where[3::11]] = np.inf
    flat[where[5::13]] = -np.inf
    kept = np.flatnonzero(~masked.reshape(-1))
    if kept.size:
        flat[kept[0]] = np.nan
    return g


def relu_gradient(x, g):
    x = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.relu(x)
    return tape.gradient(y, x, output_gradients=g).numpy()


# -- tf.nn.relu: the masked gradient itself ----------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("size", SIZES)
def test_relu_gradient_is_g_times_0_where_masked(spy, dtype, size):
    calls = spy(elementwise, "relu_backward")
    x = RNG.standard_normal(size).astype(dtype)
    x[::5] = 0  # ReLU's gradient at 0 is g * 0 too, as in TF
    masked = ~(x > 0)
    g = upstream(x.shape, masked, dtype)
    got = relu_gradient(x, g)
    assert got.dtype == dtype
    assert_same_values_and_signs(got, tf_relu_grad(g, np.maximum(x, 0)))
    # What TF gives, spelled out: g where x > 0, -0.0 for a negative g, NaN for NaN/inf g.
    np.testing.assert_array_equal(got[~masked], g[~masked])
    negative = masked & (g < 0) & np.isfinite(g)
    assert negative.any() and np.signbit(got[negative]).all() and (got[negative] == 0).all()
    bad = masked & ~np.isfinite(g)
    assert bad.any() and np.isnan(got[bad]).all()
    positive = masked & (g > 0) & np.isfinite(g)
    assert not np.signbit(got[positive]).any() and (got[positive] == 0).all()
    expected_calls = [] if size < math_ops._KERNEL_MIN_SIZE else [int(size >= TWO_THREADS)]
    assert calls == expected_calls, "not the relu_grad path this size names"


@pytest.mark.parametrize("how", ["transposed", "sliced"])
def test_relu_gradient_of_non_contiguous_operands(how):
    """relu_grad hands NumPy's formula what the kernel does not take (operands
    not C-contiguous): the same TF semantics there."""
    base = RNG.standard_normal((96, 80))
    x = base.T if how == "transposed" else base[:, 1:65]
    masked = ~(x > 0)
    g_base = upstream(base.shape, ~(base > 0), np.float64)
    g = g_base.T if how == "transposed" else g_base[:, 1:65]
    assert not (x.flags.c_contiguous or g.flags.c_contiguous)
    got = relu_gradient(x, g)
    assert_same_values_and_signs(got, tf_relu_grad(g, np.maximum(x, 0)))
    assert np.isnan(got[masked & ~np.isfinite(g)]).all()


# -- Dense(activation="relu") ------------------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("batch,units", [(4, 250), (64, 128), (2048, TWO_THREADS // 2048)])
def test_dense_relu_gradients_propagate_masked_nan(spy, dtype, batch, units):
    """(4, 250): NumPy's formula; (64, 128): the kernel on one thread; 2**20: two."""
    calls = spy(elementwise, "relu_backward")
    layer = tf.keras.layers.Dense(units, activation="relu", dtype=np.dtype(dtype).name)
    x = tf.Variable(RNG.standard_normal((batch, 3)).astype(dtype))
    with tf.GradientTape() as tape:
        out = layer(x)
    y = out.numpy()
    masked = ~(y > 0)
    g = upstream(y.shape, masked, dtype)
    dx, dw, db = tape.gradient(out, [x, layer.kernel, layer.bias], output_gradients=g)
    gm = tf_relu_grad(g.astype(np.float64), y)
    tol = {"rtol": 1e-4, "atol": 1e-4} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-10}
    with np.errstate(invalid="ignore"):
        references = {"bias": gm.sum(axis=0), "kernel": x.numpy().astype(np.float64).T @ gm,
                      "input": gm @ layer.kernel.numpy().astype(np.float64).T}
    for name, got, ref in (("bias", db, references["bias"]), ("kernel", dw, references["kernel"]),
                           ("input", dx, references["input"])):
        assert got.dtype == dtype
        np.testing.assert_allclose(got.numpy(), ref, err_msg=name, **tol)  # NaN where NaN
    nan_columns = (masked & ~np.isfinite(g)).any(axis=0)
    assert nan_columns.any() and np.isnan(db.numpy()[nan_columns]).all()
    size = batch * units
    expected = [] if size < math_ops._KERNEL_MIN_SIZE else [int(size >= TWO_THREADS)]
    assert calls == expected, "not the relu_grad path this size names"


# -- Conv2D(activation="relu") -----------------------------------------------------
PANEL = conv_tiled.PANEL
# (conv path, dtype, filters, strides, input gradient, input shape): the kernel each
# case reaches is named in its id.
CONV_CASES = {
    "direct_rows_f64": ("direct", np.float64, 3, 1, False, (2, 7, 8, 2)),
    "direct_strided_f64": ("direct", np.float64, 3, 2, False, (2, 9, 8, 2)),
    "direct_rows_f32": ("direct", np.float32, 3, 1, False, (2, 7, 8, 2)),
    "direct_strided_f32": ("direct", np.float32, 3, 2, False, (2, 9, 8, 2)),
    "direct_rows_parallel_f32": ("direct", np.float32, 3, 1, False, (8, 34, 34, 2)),
    "direct_strided_parallel_f64": ("direct", np.float64, 3, 2, False, (8, 67, 67, 2)),
    "direct_tiled_f32": ("direct", np.float32, PANEL, 1, False, (2, 7, 8, 2)),
    "direct_tiled_with_tiled_input_grad_f32": ("direct", np.float32, PANEL, 1, True,
                                               (2, 7, 8, 4)),
    "direct_with_input_grad_bias_kernel_f64": ("direct", np.float64, 3, 1, True, (2, 7, 8, 2)),
    "im2col_bias_kernel_f32": ("im2col", np.float32, 3, 1, False, (2, 7, 8, 2)),
    "im2col_bias_kernel_f64": ("im2col", np.float64, 3, 2, True, (2, 9, 8, 2)),
    "im2col_bias_kernel_parallel_f32": ("im2col", np.float32, 9, 1, False, (8, 66, 66, 2)),
    "im2col_bias_kernel_parallel_f64": ("im2col", np.float64, 9, 1, True, (8, 66, 66, 2)),
}


def conv_relu_gradients(path, dtype, filters, strides, with_x, x, make_g, layer=None):
    """Conv2D(filters, 3, VALID, relu)'s gradients for the upstream make_g(y): all
    taps inside, so that every path (direct kernels skip padding, im2col multiplies
    it) gives NaN to the same filter entries."""
    if layer is None:
        layer = tf.keras.layers.Conv2D(filters, 3, strides=strides, activation="relu",
                                       dtype=np.dtype(dtype).name)
    x = tf.Variable(x) if with_x else tf.constant(x)
    with calibration.forced(conv=path), tf.GradientTape() as tape:
        out = layer(x)
        y = out.numpy()
        g = make_g(y)
        sources = ([x] if with_x else []) + [layer.kernel, layer.bias]
        grads = tape.gradient(out, sources, output_gradients=g)
    return layer, y, g, ({"input": grads[0]} if with_x else {}) | {
        "kernel": grads[-2], "bias": grads[-1]}


def masked_channel_gradient(y, dtype, rng):
    """Upstream g: NaN at a masked position of channel 0, +inf at one of channel
    1, the other masked values finite (half negative); channel 2 stays finite."""
    masked = ~(y > 0)
    g = rng.standard_normal(y.shape).astype(dtype)
    for channel, bad in ((0, np.nan), (1, np.inf)):
        where = np.argwhere(masked[..., channel])
        g[tuple(where[len(where) // 2]) + (channel,)] = bad
    return g


@pytest.mark.parametrize("case", CONV_CASES, ids=str)
def test_conv2d_relu_gradients_propagate_masked_nan(spy, case):
    path, dtype, filters, strides, with_x, shape = CONV_CASES[case]
    bias_kernel = spy(elementwise, "relu_bias_backward_arrays")
    filter_kernel = spy(conv_kernels, "conv2d_backward_filter")
    input_kernel = spy(conv_tiled, "backward_input")
    rng = np.random.default_rng(len(case))
    x = rng.standard_normal(shape).astype(dtype)
    layer, y, g, grads = conv_relu_gradients(path, dtype, filters, strides, with_x, x,
                                             lambda y: masked_channel_gradient(y, dtype, rng))
    gm = tf_relu_grad(g.astype(np.float64), y)
    geometry = {"strides": (strides, strides), "dilations": (1, 1), "pads": ((0, 0), (0, 0))}
    with np.errstate(invalid="ignore"):
        references = {"bias": gm.sum(axis=(0, 1, 2)),
                      "kernel": conv2d_filter_grad_reference(x.astype(np.float64), gm, (3, 3),
                                                             **geometry)}
        if with_x:
            w = layer.kernel.numpy().astype(np.float64)
            references["input"] = conv2d_input_grad_reference(gm, w, shape[1:3], **geometry)
    tol = {"rtol": 1e-4, "atol": 1e-3} if dtype == np.float32 else {"rtol": 1e-10, "atol": 1e-10}
    for name, got in grads.items():
        assert got.dtype == dtype
        np.testing.assert_allclose(got.numpy(), references[name], err_msg=name, **tol)
    db, dw = grads["bias"].numpy(), grads["kernel"].numpy()
    np.testing.assert_array_equal(np.isnan(db), [True, True] + [False] * (filters - 2))
    assert np.isnan(dw[..., :2]).all() and not np.isnan(dw[..., 2:]).any()
    # The kernel the case names ran, on the variant its size picks.
    assert bool(input_kernel) == (path == "direct" and with_x
                                  and conv_tiled.takes_input(9 * shape[3], dtype))
    if path == "direct" and not with_x:
        assert not bias_kernel
        work = g.size * 9 * shape[3]  # multiply-adds: kernels/conv.py pick
        assert filter_kernel == [int(work >= conv_kernels._PARALLEL_WORK)]
        tiled = conv_tiled.fits_filter(x, g, np.empty((1, 1), x.dtype))
        assert tiled == (dtype == np.float32 and filters % PANEL == 0)
    else:
        assert len(bias_kernel) == 1
        gv, yv, parallel = bias_kernel[0]
        assert parallel == (g.size >= elementwise.PARALLEL_ELEMENTS)
        assert gv.flags.c_contiguous and yv.flags.c_contiguous


@pytest.mark.parametrize("how", ["transposed", "sliced"])
def test_conv2d_relu_bias_kernel_gets_contiguous_copies(spy, how):
    """relu_bias_backward_arrays takes 2-D C-contiguous arrays only: the op layer
    copies a non-contiguous upstream gradient first, with the same result."""
    calls = spy(elementwise, "relu_bias_backward_arrays")
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 7, 8, 2))
    runs, layer = {}, None
    for layout in ("contiguous", how):
        def make_g(y, layout=layout):
            g = masked_channel_gradient(y, np.float64, np.random.default_rng(6))
            if layout == "transposed":
                return np.ascontiguousarray(g.transpose()).transpose()
            if layout == "sliced":
                wide = np.zeros(g.shape[:-1] + (g.shape[-1] + 1,))
                wide[..., 1:] = g
                return wide[..., 1:]
            return g
        layer, y, g, grads = conv_relu_gradients("im2col", np.float64, 3, 1, False, x, make_g,
                                                 layer)  # the same filters both times
        assert g.flags.c_contiguous == (layout == "contiguous")
        runs[layout] = {k: v.numpy() for k, v in grads.items()}
    assert len(calls) == 2 and all(a.flags.c_contiguous and b.flags.c_contiguous
                                   for a, b, _ in calls)
    for name in runs["contiguous"]:
        np.testing.assert_array_equal(runs[how][name], runs["contiguous"][name])
    assert np.isnan(runs[how]["bias"][:2]).all()


# -- the kernels against NumPy's g * (y > 0) ------------------------------------------
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("size", [1, 7, 33, 5000, elementwise.PARALLEL_ELEMENTS + 5])
def test_relu_backward_kernel(dtype, size):
    """Flat C-contiguous arrays of one length (its contract: relu_grad sends it
    nothing else), both variants; the remainders past the vector loop too."""
    rng = np.random.default_rng(size)
    y = np.maximum(rng.standard_normal(size), 0).astype(dtype)
    y[::3] = 0
    g = upstream(y.shape, ~(y > 0), dtype, rng)
    g[~(y > 0) & (np.arange(size) % 2 == 0) & np.isfinite(g)] = -1.5  # masked negatives
    for variant in elementwise.relu_backward:
        out = np.full_like(g, 7)
        assert_same_values_and_signs(variant(g, y, out), tf_relu_grad(g, y))


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("rows,channels", [(1, 1), (7, 3), (5001, 32),
                                           (elementwise.PARALLEL_ELEMENTS // 16 + 3, 16)])
@pytest.mark.parametrize("parallel", [False, True])
def test_relu_bias_backward_arrays_kernel(dtype, rows, channels, parallel):
    rng = np.random.default_rng(rows)
    y = np.maximum(rng.standard_normal((rows, channels)), 0).astype(dtype)
    y[::3] = 0
    masked = ~(y > 0)
    g = rng.standard_normal((rows, channels)).astype(dtype)
    g[0] = -2.0  # row 0 all masked: -0.0 in every column
    # NaN or inf in some masked places of the first half of the columns
    bad = np.argwhere(masked[1:, :max(1, channels // 2)])[::5] + (1, 0)
    g[tuple(bad.T)] = np.where(np.arange(len(bad)) % 2, np.inf, np.nan)
    gm, db = elementwise.relu_bias_backward_arrays(g, y, parallel)
    expected = tf_relu_grad(g, y)
    assert_same_values_and_signs(gm, expected)
    assert db.dtype == dtype
    with np.errstate(invalid="ignore"):
        reference = expected.astype(np.float64).sum(axis=0)
    np.testing.assert_allclose(db, reference, rtol=1e-6 if dtype == np.float32 else 1e-12,
                               atol=1e-6)  # NaN exactly where a masked NaN or inf was
    assert np.isnan(db).any() == (len(bad) > 0)
    assert not np.isnan(db[max(1, channels // 2):]).any()
