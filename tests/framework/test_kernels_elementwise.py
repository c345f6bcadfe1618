"""Fused elementwise kernels against their NumPy references."""

import numpy as np
import pytest

from tapeflow.kernels import elementwise as k
from tapeflow.ops.math import relu_grad
from tapeflow.core.tensor import Tensor


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("size", [1, 7, 5000, 70_001])
def test_relu_backward_matches_numpy(dtype, size):
    rng = np.random.default_rng(size)
    g = rng.standard_normal(size).astype(dtype)
    y = np.maximum(rng.standard_normal(size), 0).astype(dtype)
    y[::7] = 0.0  # exact zeros: ReLU's gradient there is 0, as in TF
    expected = g * (y > 0)
    for variant in k.relu_backward:
        out = np.full_like(g, np.nan)
        np.testing.assert_array_equal(variant(g, y, out), expected)


def test_relu_grad_op_takes_the_kernel_and_numpy_paths_alike():
    rng = np.random.default_rng(1)
    for shape in [(3, 4), (64, 26, 26, 8)]:
        g = rng.standard_normal(shape).astype(np.float32)
        y = np.maximum(rng.standard_normal(shape), 0).astype(np.float32)
        np.testing.assert_array_equal(relu_grad(Tensor(g), Tensor(y))._value, g * (y > 0))
    batched = rng.standard_normal((5, 3, 4))  # a batch of cotangents (jacobian)
    y = np.maximum(rng.standard_normal((3, 4)), 0)
    np.testing.assert_array_equal(relu_grad(Tensor(batched), Tensor(y))._value,
                                  batched * (y > 0))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows,channels", [(1, 1), (7, 3), (5000, 32)])
@pytest.mark.parametrize("relu", [True, False])
def test_bias_activation_matches_numpy(dtype, rows, channels, relu):
    rng = np.random.default_rng(rows)
    z = rng.standard_normal((rows, channels)).astype(dtype)
    z[0, 0] = np.nan  # NaN stays NaN, as np.maximum leaves it
    b = rng.standard_normal(channels).astype(dtype)
    expected = np.maximum(z + b, 0) if relu else z + b
    for variant in k.bias_activation:
        out = variant(z.copy(), b, relu)
        assert out.dtype == dtype
        np.testing.assert_array_equal(out, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows,channels", [(1, 1), (7, 3), (5001, 32)])
@pytest.mark.parametrize("parallel", [False, True])
def test_relu_bias_backward_matches_numpy(dtype, rows, channels, parallel):
    rng = np.random.default_rng(rows)
    g = rng.standard_normal((rows, channels)).astype(dtype)
    y = np.maximum(rng.standard_normal((rows, channels)), 0).astype(dtype)
    y[::3] = 0.0
    gm, db = k.relu_bias_backward_arrays(g, y, parallel)
    expected = g * (y > 0)
    np.testing.assert_array_equal(gm, expected)
    assert db.dtype == dtype
    np.testing.assert_allclose(db, expected.astype(np.float64).sum(axis=0),
                               rtol=1e-6 if dtype == np.float32 else 1e-12, atol=1e-6)
