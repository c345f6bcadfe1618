"""tf.nn convolution and pooling: conv1d/conv2d (direct and im2col paths),
conv2d_transpose, depthwise_conv2d, max/avg pooling in 1-D and 2-D --
gradients of first and second order, values against NumPy references
(and PyTorch when installed), and the errors bad shapes raise."""

import numpy as np
import pytest
from test_kernels_conv import (conv2d_filter_grad_reference, conv2d_input_grad_reference,
                               conv2d_reference)
from test_kernels_pool import avg_pool_reference, max_pool_reference

import tapeflow as tf
from tapeflow.core.errors import InvalidArgumentError
from tapeflow.runtime import calibration
from tapeflow.testing.gradients import Case

_RNG = np.random.default_rng(0)


def _r(*shape):
    return _RNG.standard_normal(shape)


def _path(c_in):
    """The conv path a test with `c_in` input channels names: which one runs is
    measured per machine (the 'conv' decision), so the test forces it."""
    return calibration.forced(conv="direct" if c_in == 1 else "im2col")


def _depthwise_reference(x, w, strides, pads):
    kh, kw, c_in, mult = w.shape
    out = [conv2d_reference(x[..., c:c + 1], w[:, :, c:c + 1, :], strides, (1, 1), pads)
           for c in range(c_in)]
    return np.concatenate(out, axis=-1)


def _pool_gradient(pool):
    """x -> the pool's gradient at x for the upstream y**2: reaches the gradient op
    with an input that depends on x, so its own VJP is checked too."""
    def fn(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = pool(x)
        return tape.gradient(y, x, output_gradients=y * y)
    return fn


GRADCHECK_CASES = [
    Case("conv2d_direct_valid", lambda x, w: tf.nn.conv2d(x, w, 1, "VALID"),
         _r(2, 4, 4, 1), _r(3, 3, 1, 2)),
    Case("conv2d_direct_same_stride2", lambda x, w: tf.nn.conv2d(x, w, 2, "SAME"),
         _r(1, 5, 4, 1), _r(3, 2, 1, 3)),
    Case("conv2d_im2col_same", lambda x, w: tf.nn.conv2d(x, w, [1, 2, 1, 1], "SAME"),
         _r(2, 4, 3, 5), _r(2, 2, 5, 2)),
    Case("conv2d_explicit_dilated", lambda x, w: tf.nn.conv2d(
        x, w, 1, [[0, 0], [1, 0], [2, 1], [0, 0]], dilations=2), _r(1, 5, 4, 2), _r(2, 2, 2, 2)),
    Case("conv1d", lambda x, w: tf.nn.conv1d(x, w, 2, "SAME"), _r(2, 7, 2), _r(3, 2, 3)),
    Case("conv2d_transpose", lambda x, w: tf.nn.conv2d_transpose(
        x, w, [2, 5, 4, 2], 2, "SAME"), _r(2, 3, 2, 3), _r(3, 2, 2, 3)),
    Case("depthwise_conv2d", lambda x, w: tf.nn.depthwise_conv2d(x, w, [1, 1, 1, 1], "SAME"),
         _r(1, 3, 4, 2), _r(2, 2, 2, 2)),
    Case("conv2d_bias_relu_direct", lambda x, w, b: tf.nn.conv2d_bias_activation(
        x, w, b, 1, "VALID", activation="relu"), _r(2, 5, 5, 1), _r(3, 3, 1, 3), _r(3)),
    Case("conv2d_bias_relu_im2col_same", lambda x, w, b: tf.nn.conv2d_bias_activation(
        x, w, b, 2, "SAME", activation="relu"), _r(2, 5, 4, 5), _r(2, 2, 5, 2), _r(2)),
    Case("conv2d_bias_linear_dilated", lambda x, w, b: tf.nn.conv2d_bias_activation(
        x, w, b, 1, "SAME", dilations=2), _r(1, 5, 4, 2), _r(2, 2, 2, 2), _r(2)),
    Case("max_pool2d_overlapping", lambda x: tf.nn.max_pool2d(x, 3, 1, "VALID"), _r(2, 4, 5, 2)),
    Case("max_pool2d_same", lambda x: tf.nn.max_pool2d(x, 2, 2, "SAME"), _r(1, 5, 3, 2)),
    Case("max_pool2d_explicit", lambda x: tf.nn.max_pool2d(
        x, [2, 3], [1, 2], [[0, 0], [1, 1], [0, 2], [0, 0]]), _r(1, 3, 4, 1)),
    Case("avg_pool2d_same", lambda x: tf.nn.avg_pool2d(x, [3, 2], [2, 1], "SAME"),
         _r(2, 5, 3, 2)),
    Case("max_pool2d_grad", _pool_gradient(lambda x: tf.nn.max_pool2d(x, 2, 1, "SAME")),
         _r(1, 3, 3, 2)),
    Case("avg_pool2d_grad", _pool_gradient(lambda x: tf.nn.avg_pool2d(x, 2, 1, "SAME")),
         _r(1, 3, 3, 2)),
    Case("max_pool1d", lambda x: tf.nn.max_pool1d(x, 2, 1, "VALID"), _r(2, 5, 2)),
    Case("avg_pool1d", lambda x: tf.nn.avg_pool1d(x, 3, 2, "SAME"), _r(2, 6, 2)),
]


@pytest.mark.parametrize("case", GRADCHECK_CASES, ids=repr)
def test_gradcheck(case):
    path = "direct" if "direct" in case.name else "im2col" if "im2col" in case.name else None
    with calibration.forced(conv=path):  # a case named for a path runs it on every machine
        case.check()


@pytest.mark.parametrize("c_in", [1, 8])  # the direct and the im2col path
@pytest.mark.parametrize("padding", ["SAME", "VALID"])
@pytest.mark.parametrize("strides,dilations", [(1, 1), (2, 1), (1, 2), ([1, 3, 2, 1], 1)])
def test_conv2d_values_keep_float32(c_in, padding, strides, dilations):
    x = _r(3, 9, 8, c_in).astype(np.float32)
    w = _r(3, 3, c_in, 4).astype(np.float32)
    with _path(c_in):
        out = tf.nn.conv2d(x, w, strides, padding, dilations=dilations)
    st = (strides, strides) if isinstance(strides, int) else tuple(strides[1:3])
    di = (dilations, dilations)
    if padding == "VALID":
        pads = ((0, 0), (0, 0))
    else:
        pads = []
        for size, s, d in zip((9, 8), st, di):
            total = max((-(-size // s) - 1) * s + 2 * d + 1 - size, 0)
            pads.append((total // 2, total - total // 2))
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), conv2d_reference(x, w, st, di, pads), rtol=1e-4,
                               atol=1e-4)


def test_conv2d_matches_torch_when_installed():
    torch = pytest.importorskip("torch")
    x, w = _r(2, 7, 6, 3), _r(3, 3, 3, 4)
    out = tf.nn.conv2d(x, w, 2, [[0, 0], [1, 1], [1, 1], [0, 0]], dilations=1).numpy()
    want = torch.nn.functional.conv2d(torch.tensor(x).permute(0, 3, 1, 2),
                                      torch.tensor(w).permute(3, 2, 0, 1), stride=2, padding=1)
    np.testing.assert_allclose(out, want.permute(0, 2, 3, 1).numpy(), rtol=1e-10, atol=1e-10)
    xt, wt = _r(2, 3, 3, 4), _r(3, 3, 2, 4)  # transpose filters: (kh, kw, out, in)
    got = tf.nn.conv2d_transpose(xt, wt, [2, 7, 7, 2], 2, "VALID").numpy()
    want = torch.nn.functional.conv_transpose2d(torch.tensor(xt).permute(0, 3, 1, 2),
                                                torch.tensor(wt).permute(3, 2, 0, 1), stride=2)
    np.testing.assert_allclose(got, want.permute(0, 2, 3, 1).numpy(), rtol=1e-10, atol=1e-10)


def test_conv1d_transpose_and_depthwise_values():
    x, w = _r(2, 9, 3), _r(3, 3, 4)
    got = tf.nn.conv1d(x, w, 2, "VALID").numpy()
    want = conv2d_reference(x[:, None], w[None], (1, 2), (1, 1), ((0, 0), (0, 0)))[:, 0]
    np.testing.assert_allclose(got, want, rtol=1e-10)
    g, wt = _r(2, 3, 4, 3), _r(3, 3, 5, 3)
    got = tf.nn.conv2d_transpose(g, wt, [2, 6, 8, 5], 2, "SAME").numpy()
    want = conv2d_input_grad_reference(g, wt.transpose(0, 1, 2, 3), (6, 8), (2, 2), (1, 1),
                                       ((0, 1), (0, 1)))
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-10)
    xd, wd = _r(2, 5, 5, 3), _r(3, 3, 3, 2)
    got = tf.nn.depthwise_conv2d(xd, wd, [1, 1, 1, 1], "VALID").numpy()
    np.testing.assert_allclose(got, _depthwise_reference(xd, wd, (1, 1), ((0, 0), (0, 0))),
                               rtol=1e-10)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pool_values(dtype):
    x = _r(2, 7, 6, 3).astype(dtype)
    out = tf.nn.max_pool2d(x, 3, 2, "SAME").numpy()
    assert out.dtype == dtype
    np.testing.assert_array_equal(out, max_pool_reference(x, (3, 3), (2, 2),
                                                          ((1, 1), (0, 1)))[0])
    # TF's SAME average divides by the real cells: corners of ones stay exactly 1.
    np.testing.assert_array_equal(tf.nn.avg_pool2d(np.ones((1, 3, 3, 1), dtype), 2, 2,
                                                   "SAME").numpy(), np.ones((1, 2, 2, 1)))
    got = tf.nn.avg_pool2d(x, [2, 3], [1, 2], "SAME").numpy()
    np.testing.assert_allclose(got, avg_pool_reference(x, (2, 3), (1, 2), ((0, 1), (0, 1))),
                               rtol=1e-5)
    got1 = tf.nn.max_pool1d(x[:, 0], 2, 2, "VALID").numpy()
    np.testing.assert_array_equal(got1, np.maximum(x[:, 0, 0:6:2], x[:, 0, 1:6:2]))


def test_max_pool_gradient_goes_to_the_maxima_and_accumulates():
    x = tf.constant(np.array([[1.0, 5.0, 2.0], [0.0, 3.0, 4.0]]).reshape(1, 2, 3, 1))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool2d(x, 2, 1, "VALID")  # both windows pick the 5
    np.testing.assert_array_equal(tape.gradient(y, x).numpy().reshape(2, 3),
                                  [[0, 2, 0], [0, 0, 0]])


def test_batched_jacobian_through_conv_and_pool():
    x, w = tf.constant(_r(2, 4, 4, 2)), tf.constant(_r(2, 2, 2, 3))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, w])
        y = tf.nn.max_pool2d(tf.nn.conv2d(x, w, 1, "SAME"), 2, 2, "VALID")
    jac = tape.jacobian(y, w).numpy()
    assert jac.shape == (2, 2, 2, 3, 2, 2, 2, 3)
    row = tape.gradient(y, w, output_gradients=np.eye(24)[5].reshape(2, 2, 2, 3)).numpy()
    np.testing.assert_allclose(jac.reshape(24, -1)[5], row.ravel(), rtol=1e-12)


def test_conv_and_pool_errors_name_op_and_shapes():
    x = np.zeros((1, 5, 5, 3), np.float32)
    with pytest.raises(InvalidArgumentError, match=r"Conv2D: input depth 3 .* in-channels 2: "
                                                   r"input shape \(1, 5, 5, 3\), filter shape "
                                                   r"\(3, 3, 2, 4\)"):
        tf.nn.conv2d(x, np.zeros((3, 3, 2, 4), np.float32), 1, "SAME")
    with pytest.raises(InvalidArgumentError, match=r"Conv2D: input must be rank 4 .*\(5, 5, 3\)"):
        tf.nn.conv2d(x[0], np.zeros((3, 3, 3, 4), np.float32), 1, "SAME")
    with pytest.raises(ValueError, match="Conv2D: padding must be 'SAME', 'VALID'"):
        tf.nn.conv2d(x, np.zeros((3, 3, 3, 4), np.float32), 1, "FULL")
    with pytest.raises(InvalidArgumentError, match="output size would be negative"):
        tf.nn.conv2d(x, np.zeros((7, 3, 3, 4), np.float32), 1, "VALID")
    with pytest.raises(InvalidArgumentError, match="float64 tensor"):
        tf.nn.conv2d(x, np.zeros((3, 3, 3, 4)), 1, "SAME")
    with pytest.raises(ValueError, match="data_format 'NHWC' only"):
        tf.nn.conv2d(x, np.zeros((3, 3, 3, 4), np.float32), 1, "SAME", data_format="NCHW")
    with pytest.raises(InvalidArgumentError, match="strides in the batch and depth"):
        tf.nn.conv2d(x, np.zeros((3, 3, 3, 4), np.float32), [2, 1, 1, 1], "SAME")
    with pytest.raises(InvalidArgumentError, match=r"does not match the size \(3, 3\)"):
        tf.nn.conv2d_transpose(np.zeros((1, 2, 2, 4)), np.zeros((3, 3, 3, 4)), [1, 5, 5, 3], 2,
                               "SAME")
    with pytest.raises(InvalidArgumentError, match="MaxPool: input must be rank 4"):
        tf.nn.max_pool2d(x[0], 2, 2, "VALID")
    with pytest.raises(ValueError, match="AvgPool: padding must be 'SAME' or 'VALID'"):
        tf.nn.avg_pool2d(x, 2, 2, [[0, 0], [1, 1], [1, 1], [0, 0]])


def test_conv2d_filter_gradient_reuses_the_forward_im2col_and_forgets_it():
    from tapeflow.ops import conv as conv_ops
    from test_kernels_conv import conv2d_filter_grad_reference
    x = tf.constant(_r(2, 6, 5, 3))
    w = tf.Variable(_r(3, 3, 3, 4))
    g = _r(2, 3, 5, 4)
    before = len(conv_ops._COLS)
    with _path(3), tf.GradientTape() as tape:  # the im2col path
        y = tf.nn.conv2d(x, w, [1, 2, 1, 1], [[0, 0], [1, 0], [1, 1], [0, 0]])
    assert len(conv_ops._COLS) == before + 1  # kept beside the recorded output
    with _path(3):
        dw = tape.gradient(y, w, output_gradients=tf.constant(g)).numpy()
    want = conv2d_filter_grad_reference(x.numpy(), g, (3, 3), (2, 1), (1, 1),
                                        ((1, 0), (1, 1)))
    np.testing.assert_allclose(dw, want, rtol=1e-10, atol=1e-10)
    assert not conv_ops._OFFERED
    del tape, y
    assert len(conv_ops._COLS) == before  # dropped with the output array
    # Outside a tape nothing is kept.
    tf.nn.conv2d(x, w, 1, "VALID")
    assert len(conv_ops._COLS) == before


@pytest.mark.parametrize("c_in", [1, 8])  # the direct and the im2col path
@pytest.mark.parametrize("activation", ["relu", None])
def test_conv2d_bias_activation_equals_the_three_ops(c_in, activation):
    rng = np.random.default_rng(c_in)
    x = tf.constant(rng.standard_normal((4, 9, 8, c_in)).astype(np.float32))
    w = tf.Variable(rng.standard_normal((3, 3, c_in, 5)).astype(np.float32))
    b = tf.Variable(rng.standard_normal(5).astype(np.float32))
    upstream = rng.standard_normal((4, 9, 8, 5)).astype(np.float32)

    def composed():
        z = tf.nn.bias_add(tf.nn.conv2d(x, w, 1, "SAME"), b)
        return tf.nn.relu(z) if activation else z

    results = []
    for fn in (composed, lambda: tf.nn.conv2d_bias_activation(x, w, b, 1, "SAME",
                                                              activation=activation)):
        with _path(c_in), tf.GradientTape() as tape:
            tape.watch(x)
            y = fn()
        with _path(c_in):
            results.append([y] + tape.gradient(y, [x, w, b], output_gradients=upstream))
    for got, want in zip(results[1], results[0]):
        assert got.dtype == tf.float32
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("activation", ["relu", None])
@pytest.mark.parametrize("strides", [1, [1, 1, 2, 1]])  # the row and the strided kernel
def test_conv2d_bias_activation_first_layer_gradients(activation, strides):
    # No gradient wanted for the input (a first layer): the filter kernel masks
    # the upstream gradient and sums the bias gradient itself.
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 7, 6, 1)).astype(np.float32)  # a constant: no dx
    w = tf.Variable(rng.standard_normal((3, 3, 1, 4)).astype(np.float32))
    b = tf.Variable(rng.standard_normal(4).astype(np.float32))
    with _path(1):
        with tf.GradientTape() as tape:
            y = tf.nn.conv2d_bias_activation(x, w, b, strides, "VALID", activation=activation)
            upstream = rng.standard_normal(y.shape).astype(np.float32)
            loss = tf.reduce_sum(y * upstream)
        dw, db = tape.gradient(loss, [w, b])
    st = (1, 1) if strides == 1 else (1, 2)
    z = conv2d_reference(x, w.numpy(), st, (1, 1), ((0, 0), (0, 0))) + b.numpy()
    g = upstream * (z > 0) if activation == "relu" else upstream
    np.testing.assert_allclose(db.numpy(), g.sum(axis=(0, 1, 2)), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(dw.numpy(), conv2d_filter_grad_reference(
        x, g, (3, 3), st, (1, 1), ((0, 0), (0, 0))), rtol=1e-4, atol=1e-4)


def test_conv2d_bias_activation_rejects_bad_bias_and_activation():
    x, w = np.zeros((1, 4, 4, 2), np.float32), np.zeros((3, 3, 2, 3), np.float32)
    with pytest.raises(InvalidArgumentError, match=r"bias shape \[2\] must be \[3\]"):
        tf.nn.conv2d_bias_activation(x, w, np.zeros(2, np.float32), 1, "VALID")
    with pytest.raises(InvalidArgumentError, match="bias dtype float64 does not match input "
                                                   "dtype float32"):
        tf.nn.conv2d_bias_activation(x, w, np.zeros(3), 1, "VALID")
    with pytest.raises(ValueError, match="activation must be None or 'relu', got 'tanh'"):
        tf.nn.conv2d_bias_activation(x, w, np.zeros(3, np.float32), 1, "VALID",
                                     activation="tanh")
    with pytest.raises(InvalidArgumentError, match="input depth 2 does not match"):
        tf.nn.conv2d_bias_activation(x, np.zeros((3, 3, 1, 3), np.float32),
                                     np.zeros(3, np.float32), 1, "VALID")
