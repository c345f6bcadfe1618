"""Every Numba kernel entry point, driven through the op that calls it, on
operands of every memory layout an op can be handed: transposed views,
strided slices, Fortran-ordered copies, read-only arrays and size 0. The
layout must not change the result: each case is compared bit for bit with the
same op on C-contiguous copies, and that result with a plain NumPy reference.
A spy on the kernel checks that the kernel path was really taken (the ops
send small inputs to NumPy). Issue 16 item 9: Conv2DTranspose's filter
gradient once crashed in the GEMM kernel on a Fortran-ordered `cols.T`.

Inventory (kernel entry point <- calling op, path:line):

================================================  ===================================================
kernel entry point                                 calling op(s)
================================================  ===================================================
kernels/gemm.py matmul                             ops/math.py:327 matmul_2d (matmul, the im2col
                                                   products of ops/conv.py and ops/conv3d.py);
                                                   ops/recurrent.py _matmul_steps, _sum_steps
kernels/gemm.py add_product, pack_panels           kernels/recurrent.py _product (every step's h @ U)
kernels/elementwise.py relu_backward               ops/math.py:290 relu_grad
kernels/elementwise.py bias_activation             ops/conv.py:255 conv2d_bias_activation;
                                                   ops/math.py matmul_bias (the recurrent
                                                   layers' input projection)
kernels/elementwise.py relu_bias_backward_arrays   ops/conv.py:280 _masked_and_bias_grad (its VJP)
kernels/conv.py conv2d_forward                     ops/conv.py:62 _conv_fwd (conv2d, direct)
kernels/conv.py im2col                             ops/conv.py:64 _conv_fwd, :126 _conv_filt
kernels/conv.py col2im                             ops/conv.py:81 _conv_in (conv2d_input_grad)
kernels/conv.py conv2d_backward_filter, chunks_for ops/conv.py:101-104 _conv_filt_direct
                                                   (conv2d_filter_grad, the bias-activation VJP)
kernels/pool.py max_pool2d_forward                 ops/conv.py:340 _max_pool (max_pool2d, argmax)
kernels/pool.py max_pool2d_backward                ops/conv.py:381 max_pool2d_grad
kernels/pool.py avg_pool2d_forward                 ops/conv.py:411 avg_pool2d
kernels/pool.py avg_pool2d_backward                ops/conv.py:423 avg_pool2d_grad
kernels/softmax.py softmax_cross_entropy_forward   ops/nn.py:93 softmax_cross_entropy
kernels/softmax.py softmax_cross_entropy_backward  ops/nn.py:118 softmax_cross_entropy_grad
kernels/softmax.py sparse_softmax_cross_entropy_   ops/nn.py:160 sparse_softmax_cross_entropy
forward
kernels/softmax.py sparse_softmax_cross_entropy_   ops/nn.py:183 sparse_softmax_cross_entropy_grad
backward
kernels/ctc.py ctc_loss_forward                    ops/ctc.py:71 ctc_loss
kernels/ctc.py ctc_loss_gradient                   ops/ctc.py:83 ctc_loss_grad
kernels/gather.py embedding_scatter_add            ops/shape.py:230 scatter_add (gather's VJP)
kernels/recurrent.py lstm_forward, lstm_backward  ops/recurrent.py lstm_sequence, _lstm_backward
kernels/recurrent.py gru_forward, gru_backward    ops/recurrent.py gru_sequence, _gru_backward
kernels/recurrent.py simple_rnn_forward,          ops/recurrent.py simple_rnn_sequence,
simple_rnn_backward                                _simple_rnn_backward
kernels/optimizers.py run (KERNELS[name])          optimizers/_fused.py:86 FusedOptimizer
                                                   ._update_array (every fused optimizer)
================================================  ===================================================

Fixed at the op boundary (a read-only operand compiled a second specialisation
whose fastmath code rounded differently, by an ulp): ops/conv.py _folded (the
pools) and optimizers/_fused.py copy read-only operands to writable ones.
"""

import numpy as np
import pytest
import tapeflow as tf
from tapeflow.core.tensor import Tensor
from tapeflow.kernels import conv as conv_kernels
from tapeflow.kernels import ctc as ctc_kernels
from tapeflow.kernels import elementwise as elementwise_kernels
from tapeflow.kernels import gather as gather_kernels
from tapeflow.kernels import gemm as gemm_kernels
from tapeflow.kernels import optimizers as optimizer_kernels
from tapeflow.kernels import pool as pool_kernels
from tapeflow.kernels import recurrent as recurrent_kernels
# Imported before any spy patches a recurrent kernel: its SLICED table is keyed by the
# kernels as they are at its import, and a spy there would be run as the real kernel.
from tapeflow.kernels import recurrent_threads  # noqa: F401
from tapeflow.kernels import softmax as softmax_kernels
from tapeflow.ops import conv as conv_ops
from tapeflow.ops import conv3d as conv3d_ops
from tapeflow.ops import ctc as ctc_ops
from tapeflow.ops import math as math_ops
from tapeflow.ops import nn as nn_ops
from tapeflow.ops import recurrent as recurrent_ops
from tapeflow.ops import shape as shape_ops
from tapeflow.optimizers import _fused as fused
from tapeflow.runtime import calibration

RNG = np.random.default_rng(16)
LAYOUTS = ("transposed", "strided", "sliced", "fortran", "readonly")


def layout(a, how):
    """An array of `a`'s values (and dtype) laid out as `how` says."""
    a = np.asarray(a)
    if how == "transposed":  # a transposed view of a C-contiguous array
        return np.ascontiguousarray(a.transpose()).transpose()
    if how == "strided":  # every other element of the last axis
        wide = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        wide[..., ::2] = a
        return wide[..., ::2]
    if how == "sliced":  # x[:, 1:] of a wider array (x[1:] for 1-D)
        axis = min(1, a.ndim - 1)
        wide = np.zeros(a.shape[:axis] + (a.shape[axis] + 1,) + a.shape[axis + 1:], a.dtype)
        view = wide[(slice(None),) * axis + (slice(1, None),)]
        view[...] = a
        return view
    if how == "fortran":
        return np.asfortranarray(a)
    if how == "readonly":
        out = a.copy()
        out.setflags(write=False)
        return out
    raise ValueError(how)


def test_layouts_are_what_they_say():
    a = RNG.standard_normal((3, 4, 5))
    for how in LAYOUTS:
        v = layout(a, how)
        np.testing.assert_array_equal(v, a)
        assert v.dtype == a.dtype
        assert not v.flags.c_contiguous or how == "readonly"
    assert not layout(a, "readonly").flags.writeable


def values(result):
    if isinstance(result, (list, tuple)):
        return [values(r) for r in result]
    return result._value if isinstance(result, Tensor) else np.asarray(result)


def listed(result):
    return result if isinstance(result, list) else [result]


def check_layouts(run, arrays, calls=None, kernel_on_every_layout=True, which=None, exact=True):
    """run(*arrays as Tensors) on C-contiguous arrays, then with each array in
    `which` (default all) in every layout: the results must be bit-identical
    (to float32 rounding with `exact=False`, where NumPy's BLAS takes part: its
    order of summation depends on the layout). Returns the C-contiguous result."""
    which = range(len(arrays)) if which is None else which
    base = [np.ascontiguousarray(a) for a in arrays]
    expected = values(run(*[Tensor(a) for a in base]))
    if calls is not None:
        assert calls, "the kernel path was not taken"
    for how in LAYOUTS:
        for i in which:
            args = [Tensor(layout(a, how)) if j == i else Tensor(a) for j, a in enumerate(base)]
            before = len(calls) if calls is not None else 0
            got = values(run(*args))
            for e, g in zip(listed(expected), listed(got)):
                if exact:
                    np.testing.assert_array_equal(g, e, err_msg=f"operand {i} {how}")
                else:
                    np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5,
                                               err_msg=f"operand {i} {how}")
            if calls is not None and kernel_on_every_layout:
                assert len(calls) > before, f"operand {i} {how}: kernel not called"
    return expected


# -- GEMM -----------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def conv_paths_by_window():
    """The conv tests name their kernel by the window (1 input channel: direct);
    which path runs is measured per machine, so every class keeps its default."""
    with calibration.forced(conv={}):
        yield


@pytest.fixture
def gemm_on():
    with calibration.forced(gemm="tapeflow"):
        yield


# m: whole row tiles, and a padded tail tile; n: whole panels (the kernel only, bit
# for bit), and columns left over for NumPy's BLAS.
@pytest.mark.parametrize("m,n", [(64, 64), (61, 64), (61, 72)])
@pytest.mark.parametrize("transpose_a,transpose_b", [(False, False), (True, False),
                                                     (False, True), (True, True)])
def test_matmul_gemm(spy, gemm_on, m, n, transpose_a, transpose_b):
    calls = spy(gemm_kernels, "matmul")
    a = RNG.standard_normal((48, m) if transpose_a else (m, 48)).astype(np.float32)
    b = RNG.standard_normal((n, 48) if transpose_b else (48, n)).astype(np.float32)

    def run(x, y):
        return math_ops.matmul(x, y, transpose_a=transpose_a, transpose_b=transpose_b)
    out = check_layouts(run, [a, b], calls, exact=n % (2 * gemm_kernels.LANES) == 0)
    ref = (a.T if transpose_a else a).astype(np.float64) @ (b.T if transpose_b else b)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_matmul_gemm_size_0(gemm_on):
    a = np.zeros((0, 48), np.float32)
    b = layout(RNG.standard_normal((48, 64)).astype(np.float32), "fortran")
    out = math_ops.matmul(Tensor(a), Tensor(b))._value
    assert out.shape == (0, 64) and out.dtype == np.float32


# -- elementwise ----------------------------------------------------------------------
def test_relu_grad(spy):
    calls = spy(elementwise_kernels, "relu_backward")
    g = RNG.standard_normal((80, 64)).astype(np.float32)  # above _KERNEL_MIN_SIZE
    y = np.maximum(RNG.standard_normal((80, 64)), 0).astype(np.float32)
    # Non-contiguous operands take NumPy's path by design; the result must agree.
    out = check_layouts(math_ops.relu_grad, [g, y], calls, kernel_on_every_layout=False)
    np.testing.assert_array_equal(out, np.where(y > 0, g, 0))


def conv_args(strides=(1, 1)):
    return {"strides": strides, "dilations": (1, 1), "pads": ((1, 1), (1, 1))}


def test_conv2d_bias_activation_forward(spy):
    calls = spy(elementwise_kernels, "bias_activation")
    x = RNG.standard_normal((2, 9, 9, 3)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 3, 8)).astype(np.float32)
    b = RNG.standard_normal(8).astype(np.float32)

    def run(x, w, b):
        return conv_ops.conv2d_bias_activation(x, w, b, activation="relu", **conv_args())
    out = check_layouts(run, [x, w, b], calls)
    plain = conv_ops.conv2d(Tensor(x), Tensor(w), **conv_args())._value
    np.testing.assert_allclose(out, np.maximum(plain + b, 0), rtol=1e-5, atol=1e-5)


def test_matmul_bias(spy):
    calls = spy(elementwise_kernels, "bias_activation")
    x = RNG.standard_normal((6, 5)).astype(np.float32)
    w = RNG.standard_normal((5, 7)).astype(np.float32)
    b = RNG.standard_normal(7).astype(np.float32)
    out = check_layouts(math_ops.matmul_bias, [x, w, b], calls, exact=False)
    np.testing.assert_allclose(out, x.astype(np.float64) @ w + b, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("c_in", [1, 3])  # direct filter kernel, and im2col + GEMM
def test_conv2d_bias_activation_backward(spy, c_in):
    masked = spy(elementwise_kernels, "relu_bias_backward_arrays")
    direct = spy(conv_kernels, "conv2d_backward_filter")
    x = RNG.standard_normal((2, 9, 9, c_in)).astype(np.float32)
    w = RNG.standard_normal((3, 3, c_in, 8)).astype(np.float32)
    b = RNG.standard_normal(8).astype(np.float32)
    g = RNG.standard_normal((2, 9, 9, 8)).astype(np.float32)

    def run(x, w, b, g, with_x):
        with tf.GradientTape() as tape:
            tape.watch([x, w, b] if with_x else [w, b])
            out = conv_ops.conv2d_bias_activation(x, w, b, activation="relu", **conv_args())
        return tape.gradient(out, [x, w, b] if with_x else [w, b], output_gradients=g)
    for with_x in (True, False):
        out = check_layouts(lambda *a, with_x=with_x: run(*a, with_x), [x, w, b, g])
        y = np.maximum(conv_ops.conv2d(Tensor(x), Tensor(w), **conv_args())._value + b, 0)
        np.testing.assert_allclose(out[-1], np.where(y > 0, g, 0).sum(axis=(0, 1, 2)),
                                   rtol=1e-4, atol=1e-4)
    assert masked and (direct if c_in == 1 else True)


# -- convolution ----------------------------------------------------------------------
def conv_case(c_in, strides):
    x = RNG.standard_normal((3, 10, 11, c_in))
    w = RNG.standard_normal((3, 3, c_in, 5))
    out_hw = [conv_ops.conv_output_size(s, 3, st, 1, 1, 1) for s, st in zip((10, 11), strides)]
    g = RNG.standard_normal((3, *out_hw, 5))
    return x, w, g


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("c_in,kernel", [(1, "conv2d_forward"), (4, "im2col")])
@pytest.mark.parametrize("strides", [(1, 1), (2, 2)])
def test_conv2d_forward(spy, dtype, c_in, kernel, strides):
    calls = spy(conv_kernels, kernel)
    x, w, _ = (a.astype(dtype) for a in conv_case(c_in, strides))
    out = check_layouts(lambda x, w: conv_ops.conv2d(x, w, **conv_args(strides)), [x, w], calls)
    ref = tf.nn.conv2d(x.astype(np.float64), w.astype(np.float64), strides=strides,
                       padding=[[0, 0], [1, 1], [1, 1], [0, 0]]).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("c_in", [1, 4])
@pytest.mark.parametrize("strides", [(1, 1), (2, 2)])
def test_conv2d_input_grad(spy, c_in, strides):
    calls = spy(conv_kernels, "col2im")
    x, w, g = conv_case(c_in, strides)

    def run(g, w):
        return conv_ops.conv2d_input_grad(g, w, input_hw=(10, 11), **conv_args(strides))
    out = check_layouts(run, [g, w], calls)
    xt = tf.Variable(x)
    with tf.GradientTape() as tape:
        y = tf.nn.conv2d(xt, w, strides=strides, padding=[[0, 0], [1, 1], [1, 1], [0, 0]])
    np.testing.assert_allclose(out, tape.gradient(y, xt, output_gradients=g).numpy(),
                               rtol=1e-10)


@pytest.mark.parametrize("c_in,kernel", [(1, "conv2d_backward_filter"), (4, "im2col")])
@pytest.mark.parametrize("strides", [(1, 1), (2, 2)])
def test_conv2d_filter_grad(spy, c_in, kernel, strides):
    calls = spy(conv_kernels, kernel)
    x, w, g = conv_case(c_in, strides)

    def run(x, g):
        return conv_ops.conv2d_filter_grad(x, g, filter_hw=(3, 3), **conv_args(strides))
    out = check_layouts(run, [x, g], calls)
    # <g, conv(x, w)> is linear in w: its gradient is the filter gradient.
    ref = np.zeros_like(w)
    for idx in np.ndindex(w.shape):
        e = np.zeros_like(w)
        e[idx] = 1
        ref[idx] = np.sum(g * conv_ops.conv2d(Tensor(x), Tensor(e), **conv_args(strides))._value)
    np.testing.assert_allclose(out, ref, rtol=1e-9, atol=1e-9)


def test_conv2d_transpose_filter_gradient_32_channels(gemm_on):
    """Issue 16's GAN: Conv2DTranspose 32 -> 32 channels, batch 8; its filter
    gradient multiplies a Fortran-ordered `cols.T` in the GEMM kernel."""
    x = tf.constant(RNG.standard_normal((8, 7, 7, 32)).astype(np.float32))
    w = tf.Variable(RNG.standard_normal((3, 3, 32, 32)).astype(np.float32))
    with tf.GradientTape() as tape:
        y = tf.nn.conv2d_transpose(x, w, output_shape=(8, 14, 14, 32), strides=2,
                                   padding="SAME")
        loss = tf.reduce_sum(y * y)
    grad = tape.gradient(loss, w).numpy()
    x64, w64 = x.numpy().astype(np.float64), tf.Variable(w.numpy().astype(np.float64))
    with tf.GradientTape() as tape:
        y = tf.nn.conv2d_transpose(x64, w64, output_shape=(8, 14, 14, 32), strides=2,
                                   padding="SAME")
        loss = tf.reduce_sum(y * y)
    np.testing.assert_allclose(grad, tape.gradient(loss, w64).numpy(), rtol=2e-3, atol=2e-2)


@pytest.mark.parametrize("c_in,kernel", [(1, "conv2d_forward"), (16, "im2col")])
def test_conv2d_parallel_variants(spy, c_in, kernel):
    """Inputs large enough for the all-threads variants (kernels/conv.pick), whose
    filter gradient sums one accumulator per thread."""
    calls = spy(conv_kernels, kernel)
    filt = spy(conv_kernels, "conv2d_backward_filter")
    x = RNG.standard_normal((4, 24, 24, c_in))
    w = RNG.standard_normal((3, 3, c_in, 16))
    g = RNG.standard_normal((4, 24, 24, 16))
    out = check_layouts(lambda x, w: conv_ops.conv2d(x, w, **conv_args()), [x, w], calls)
    assert 1 in calls
    ref = tf.nn.conv2d(x, w, strides=1, padding=[[0, 0], [1, 1], [1, 1], [0, 0]]).numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-10)

    def run(x, g):
        return conv_ops.conv2d_filter_grad(x, g, filter_hw=(3, 3), **conv_args())
    check_layouts(run, [x, g], calls if c_in > 1 else filt)
    assert c_in > 1 or 1 in filt


def test_conv2d_over_leading_axes(spy):
    """A batch of cotangents (jacobian) gives conv2d extra leading axes, folded
    into the kernel's batch by ops/conv.py _over_leading."""
    calls = spy(conv_kernels, "conv2d_forward")
    x = RNG.standard_normal((2, 3, 8, 9, 1))
    w = RNG.standard_normal((3, 3, 1, 4))
    out = check_layouts(lambda x, w: conv_ops.conv2d(x, w, **conv_args()), [x, w], calls)
    for i in range(2):
        np.testing.assert_array_equal(
            out[i], conv_ops.conv2d(Tensor(x[i]), Tensor(w), **conv_args())._value)


@pytest.mark.parametrize("op", ["conv3d", "conv3d_input_grad", "conv3d_filter_grad"])
def test_conv3d_gemm(spy, gemm_on, op):
    """conv3d's three ops reach the GEMM kernel through matmul_2d."""
    calls = spy(gemm_kernels, "matmul")
    geometry = {"strides": (1, 1, 1), "dilations": (1, 1, 1), "pads": ((1, 1),) * 3}
    x = RNG.standard_normal((2, 5, 6, 7, 8)).astype(np.float32)
    w = RNG.standard_normal((3, 3, 3, 8, 32)).astype(np.float32)
    g = RNG.standard_normal((2, 5, 6, 7, 32)).astype(np.float32)
    if op == "conv3d":
        arrays, run = [x, w], lambda x, w: conv3d_ops.conv3d(x, w, **geometry)
    elif op == "conv3d_input_grad":
        arrays = [g, w]

        def run(g, w):
            return conv3d_ops.conv3d_input_grad(g, w, input_dhw=(5, 6, 7), **geometry)
    else:
        arrays = [x, g]

        def run(x, g):
            return conv3d_ops.conv3d_filter_grad(x, g, filter_dhw=(3, 3, 3), **geometry)
    out = check_layouts(run, arrays, calls)
    with calibration.forced(gemm="blas"):  # the same op on NumPy's BLAS only
        ref = values(run(*[Tensor(a.astype(np.float64)) for a in arrays]))
    np.testing.assert_allclose(out, ref, rtol=1e-3, atol=1e-3)


def test_conv2d_size_0():
    for how in LAYOUTS:
        x = layout(np.zeros((0, 6, 6, 2)), how)
        out = conv_ops.conv2d(Tensor(x), Tensor(np.ones((3, 3, 2, 4))), **conv_args())._value
        assert out.shape == (0, 6, 6, 4)
        g = layout(np.zeros((0, 6, 6, 4)), how)
        dx = conv_ops.conv2d_input_grad(Tensor(g), Tensor(np.ones((3, 3, 2, 4))),
                                        input_hw=(6, 6), **conv_args())._value
        assert dx.shape == (0, 6, 6, 2)
        for c_in in (1, 3):  # direct and im2col filter gradients: zeros
            dw = conv_ops.conv2d_filter_grad(Tensor(layout(np.zeros((0, 6, 6, c_in)), how)),
                                             Tensor(g), filter_hw=(3, 3), **conv_args())._value
            np.testing.assert_array_equal(dw, np.zeros((3, 3, c_in, 4)))


@pytest.mark.parametrize("how", LAYOUTS)
def test_relu_grad_size_0(how):
    g = layout(np.zeros((0, 5), np.float32), how)
    assert math_ops.relu_grad(Tensor(g), Tensor(g))._value.shape == (0, 5)


# -- pooling --------------------------------------------------------------------------
POOL = {"ksize": (2, 3), "strides": (2, 2), "pads": ((0, 1), (1, 1))}


def pool_reference(x, reduce):
    """Each window's max or mean over its real cells, by explicit loops."""
    (pt, pb), (pl, pr) = POOL["pads"]
    n, h, w, c = x.shape
    ho = conv_ops.conv_output_size(h, 2, 2, 1, pt, pb)
    wo = conv_ops.conv_output_size(w, 3, 2, 1, pl, pr)
    out = np.empty((n, ho, wo, c))
    for i in range(ho):
        for j in range(wo):
            r0, c0 = i * 2 - pt, j * 2 - pl
            window = x[:, max(r0, 0):r0 + 2, max(c0, 0):c0 + 3]
            out[:, i, j] = reduce(window, axis=(1, 2))
    return out


def test_max_pool2d(spy):
    calls = spy(pool_kernels, "max_pool2d_forward")
    x = RNG.standard_normal((3, 9, 10, 4))
    out = check_layouts(lambda x: conv_ops.max_pool2d(x, **POOL), [x], calls)
    np.testing.assert_array_equal(out, pool_reference(x, np.max))


def test_max_pool2d_grad(spy):
    calls = spy(pool_kernels, "max_pool2d_backward")
    x = RNG.standard_normal((3, 9, 10, 4))
    argmax = conv_ops._max_pool(x, **POOL)[1]
    g = RNG.standard_normal(argmax.shape)

    def run(g, argmax):
        return conv_ops.max_pool2d_grad(g, argmax, input_shape=x.shape[1:])
    out = check_layouts(run, [g, argmax], calls)
    ref = np.zeros_like(x)
    flat = ref.reshape(3, -1)
    for n in range(3):
        np.add.at(flat[n], argmax[n].ravel(), g[n].ravel())
    np.testing.assert_array_equal(out, ref)


def test_avg_pool2d(spy):
    calls = spy(pool_kernels, "avg_pool2d_forward")
    x = RNG.standard_normal((3, 9, 10, 4))
    out = check_layouts(lambda x: conv_ops.avg_pool2d(x, **POOL), [x], calls)
    np.testing.assert_allclose(out, pool_reference(x, np.mean), rtol=1e-12)


def test_avg_pool2d_grad(spy):
    calls = spy(pool_kernels, "avg_pool2d_backward")
    x = RNG.standard_normal((3, 9, 10, 4))
    g = RNG.standard_normal(pool_reference(x, np.mean).shape)

    def run(g):
        return conv_ops.avg_pool2d_grad(g, input_shape=x.shape[1:], **POOL)
    out = check_layouts(run, [g], calls)
    # The adjoint: <avg_pool(x), g> == <x, avg_pool_grad(g)> for any x.
    np.testing.assert_allclose(np.sum(pool_reference(x, np.mean) * g), np.sum(x * out),
                               rtol=1e-10)


@pytest.mark.parametrize("how", LAYOUTS)
def test_pools_size_0(how):
    x = layout(np.zeros((0, 4, 4, 2)), how)
    assert conv_ops.max_pool2d(Tensor(x), **POOL)._value.shape == (0, 2, 2, 2)
    assert conv_ops.avg_pool2d(Tensor(x), **POOL)._value.shape == (0, 2, 2, 2)
    g = layout(np.zeros((0, 2, 2, 2)), how)
    dx = conv_ops.avg_pool2d_grad(Tensor(g), input_shape=(4, 4, 2), **POOL)._value
    assert dx.shape == (0, 4, 4, 2)
    argmax = layout(np.zeros((0, 2, 2, 2), np.int64), how)
    assert conv_ops.max_pool2d_grad(Tensor(g), Tensor(argmax),
                                    input_shape=(4, 4, 2))._value.shape == (0, 4, 4, 2)


# -- softmax cross-entropy ------------------------------------------------------------
def log_softmax(z):
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def test_softmax_cross_entropy(spy):
    forward = spy(softmax_kernels, "softmax_cross_entropy_forward")
    backward = spy(softmax_kernels, "softmax_cross_entropy_backward")
    z = RNG.standard_normal((40, 10)).astype(np.float32)
    y = RNG.dirichlet(np.ones(10), 40).astype(np.float32)
    g = RNG.standard_normal(40).astype(np.float32)
    loss = check_layouts(lambda y, z: nn_ops.softmax_cross_entropy(y, z), [y, z], forward)
    np.testing.assert_allclose(loss, -(y * log_softmax(z.astype(np.float64))).sum(-1),
                               rtol=1e-5)
    grad = check_layouts(nn_ops.softmax_cross_entropy_grad, [g, y, z], backward)
    p = np.exp(log_softmax(z.astype(np.float64)))
    np.testing.assert_allclose(grad, g[:, None] * (p - y), rtol=1e-4, atol=1e-6)


def test_sparse_softmax_cross_entropy(spy):
    forward = spy(softmax_kernels, "sparse_softmax_cross_entropy_forward")
    backward = spy(softmax_kernels, "sparse_softmax_cross_entropy_backward")
    z = RNG.standard_normal((40, 10))
    labels = RNG.integers(0, 10, 40)
    g = RNG.standard_normal(40)
    loss = check_layouts(nn_ops.sparse_softmax_cross_entropy, [labels, z], forward)
    np.testing.assert_allclose(loss, -log_softmax(z)[np.arange(40), labels], rtol=1e-12)
    grad = check_layouts(nn_ops.sparse_softmax_cross_entropy_grad, [g, labels, z], backward)
    onehot = np.eye(10)[labels]
    np.testing.assert_allclose(grad, g[:, None] * (np.exp(log_softmax(z)) - onehot),
                               rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize("how", LAYOUTS)
def test_softmax_cross_entropy_size_0(how):
    z = layout(np.zeros((0, 5), np.float32), how)
    out = nn_ops.softmax_cross_entropy(Tensor(z), Tensor(z))._value
    assert out.shape == (0,)
    labels = layout(np.zeros(0, np.int64), how)
    assert nn_ops.sparse_softmax_cross_entropy(Tensor(labels), Tensor(z))._value.shape == (0,)
    g = np.zeros(0, np.float32)
    assert nn_ops.softmax_cross_entropy_grad(Tensor(g), Tensor(z), Tensor(z))._value.shape \
        == (0, 5)
    assert nn_ops.sparse_softmax_cross_entropy_grad(
        Tensor(g), Tensor(labels), Tensor(z))._value.shape == (0, 5)


# -- CTC ------------------------------------------------------------------------------
def test_ctc_loss_and_gradient(spy):
    forward = spy(ctc_kernels, "ctc_loss_forward")
    backward = spy(ctc_kernels, "ctc_loss_gradient")
    logits = RNG.standard_normal((4, 12, 6))
    labels = RNG.integers(1, 6, (4, 5))
    label_length = np.array([5, 3, 1, 4])
    logit_length = np.array([12, 10, 7, 12])

    def run(op):
        return lambda *a: op(*a, blank=0, strict=False)
    arrays = [logits, labels, label_length, logit_length]
    loss = check_layouts(run(ctc_ops.ctc_loss), arrays, forward)
    check_layouts(run(ctc_ops.ctc_loss_grad), arrays, backward)
    # One label, one step, one class besides the blank: p = softmax(logits)[label].
    one = np.array([[[0.3, 1.2]]])
    single = ctc_ops.ctc_loss(Tensor(layout(one, "fortran")), Tensor(np.array([[1]])),
                              Tensor(np.array([1])), Tensor(np.array([1])), blank=0,
                              strict=False)._value
    np.testing.assert_allclose(single, -log_softmax(one)[0, 0, 1:], rtol=1e-12)
    assert np.all(np.isfinite(loss))


# -- gather's gradient ----------------------------------------------------------------
def test_scatter_add(spy):
    calls = spy(gather_kernels, "embedding_scatter_add")
    g = RNG.standard_normal((30, 7))
    ids = RNG.integers(0, 9, 30)

    def run(g, ids):
        return shape_ops.scatter_add(g, ids, axis=0, size=9)
    out = check_layouts(run, [g, ids], calls)
    ref = np.zeros((9, 7))
    np.add.at(ref, ids, g)
    np.testing.assert_allclose(out, ref, rtol=1e-12)
    empty = shape_ops.scatter_add(Tensor(layout(np.zeros((0, 7)), "fortran")),
                                  Tensor(np.zeros(0, np.int64)), axis=0, size=9)._value
    np.testing.assert_array_equal(empty, np.zeros((9, 7)))


# -- recurrent ------------------------------------------------------------------------
def sequence_gradients(op, arrays, g):
    """The gradients of <op(*arrays), g> w.r.t. every array."""
    with tf.GradientTape() as tape:
        tape.watch(arrays)
        out = op(*arrays)
    return tape.gradient(out, arrays, output_gradients=g)


def test_lstm_backward(spy, gemm_on):
    calls = spy(recurrent_kernels, "lstm_backward")
    b, t, u = 4, 5, 8
    xw = RNG.standard_normal((b, t, 4 * u)).astype(np.float32)
    kernel = RNG.standard_normal((u, 4 * u)).astype(np.float32) * 0.3
    bias = RNG.standard_normal(4 * u).astype(np.float32)
    h0, c0 = (RNG.standard_normal((b, u)).astype(np.float32) for _ in range(2))
    g = RNG.standard_normal((b, t, 3 * u)).astype(np.float32)

    def run(xw, kernel, bias, h0, c0, g):
        return sequence_gradients(recurrent_ops.lstm_sequence, [xw, kernel, bias, h0, c0], g)
    grads = check_layouts(run, [xw, kernel, bias, h0, c0, g], calls)
    ref = run(*[Tensor(a.astype(np.float64)) for a in (xw, kernel, bias, h0, c0, g)])
    for got, want in zip(grads, ref):
        np.testing.assert_allclose(got, want._value, rtol=1e-3, atol=1e-4)


def test_gru_backward(spy, gemm_on):
    calls = spy(recurrent_kernels, "gru_backward")
    b, t, u = 4, 5, 8
    xw = RNG.standard_normal((b, t, 3 * u)).astype(np.float32)
    kernel = RNG.standard_normal((u, 3 * u)).astype(np.float32) * 0.3
    x_bias, bias = (RNG.standard_normal(3 * u).astype(np.float32) for _ in range(2))
    h0 = RNG.standard_normal((b, u)).astype(np.float32)
    out_width = recurrent_ops.gru_sequence(Tensor(xw), Tensor(kernel), Tensor(x_bias),
                                           Tensor(bias), Tensor(h0))._value.shape[-1]
    g = RNG.standard_normal((b, t, out_width)).astype(np.float32)

    def run(xw, kernel, x_bias, bias, h0, g):
        return sequence_gradients(recurrent_ops.gru_sequence, [xw, kernel, x_bias, bias, h0], g)
    grads = check_layouts(run, [xw, kernel, x_bias, bias, h0, g], calls)
    ref = run(*[Tensor(a.astype(np.float64)) for a in (xw, kernel, x_bias, bias, h0, g)])
    for got, want in zip(grads, ref):
        np.testing.assert_allclose(got, want._value, rtol=1e-3, atol=1e-4)


# -- optimizer updates ----------------------------------------------------------------
OPTIMIZERS = [
    ("SGD", {}), ("SGD", {"momentum": 0.9}), ("SGD", {"momentum": 0.9, "nesterov": True}),
    ("Adam", {}), ("Adam", {"amsgrad": True}), ("AdamW", {"weight_decay": 0.01}),
    ("Adamax", {}), ("Nadam", {}), ("RMSprop", {}),
    ("RMSprop", {"momentum": 0.5, "centered": True}), ("Adagrad", {}), ("Adadelta", {}),
    ("Lion", {}), ("Ftrl", {})]


@pytest.mark.parametrize("name,kwargs", OPTIMIZERS)
def test_optimizer_update_on_gradient_layouts(spy, monkeypatch, name, kwargs):
    calls = spy(optimizer_kernels, "run")
    start = RNG.standard_normal((12, 10)).astype(np.float32)  # above NUMPY_MAX_SIZE
    grads = [RNG.standard_normal((12, 10)).astype(np.float32) for _ in range(3)]

    def run(*gs):
        var = tf.Variable(start)
        opt = getattr(tf.keras.optimizers, name)(learning_rate=0.01, **kwargs)
        for g in gs:
            opt.apply_gradients([(g, var)])
        return Tensor(var.numpy().copy())
    out = check_layouts(run, grads, calls)
    assert not np.array_equal(out, start)
    # The same steps on the optimizer's plain NumPy update.
    monkeypatch.setattr(fused, "NUMPY_MAX_SIZE", start.size)
    calls.clear()
    np.testing.assert_allclose(out, run(*[layout(g, "fortran") for g in grads])._value,
                               rtol=1e-5, atol=1e-6)
    assert not calls
