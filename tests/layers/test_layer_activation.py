"""ReLU, LeakyReLU, PReLU, ELU and Softmax layers against NumPy, with gradients."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.layers import check_layer

L = tf.keras.layers
X = np.random.default_rng(3).standard_normal((3, 4)).astype(np.float32) * 3


@pytest.mark.parametrize("kwargs,reference", [
    ({}, lambda x: np.maximum(x, 0)),
    ({"max_value": 2.0}, lambda x: np.clip(x, 0, 2)),
    ({"negative_slope": 0.1}, lambda x: np.where(x > 0, x, 0.1 * x)),
    ({"threshold": 1.0}, lambda x: np.where(x > 1, x, 0)),
    ({"negative_slope": 0.2, "threshold": 0.5, "max_value": 3.0},
     lambda x: np.where(x > 0.5, np.minimum(x, 3.0), 0.2 * (x - 0.5))),
])
def test_relu(kwargs, reference):
    out = check_layer(L.ReLU(**kwargs), input_data=X)
    np.testing.assert_allclose(out.numpy(), reference(X), rtol=1e-6)


def test_relu_bad_arguments():
    with pytest.raises(ValueError, match="max_value.*negative"):
        L.ReLU(max_value=-1)
    with pytest.raises(ValueError, match="negative_slope.*negative"):
        L.ReLU(negative_slope=-0.1)


def test_leaky_relu_default_slope_and_alpha_alias():
    layer = L.LeakyReLU()
    assert layer.negative_slope == 0.3
    out = check_layer(layer, input_data=X)
    np.testing.assert_allclose(out.numpy(), np.where(X > 0, X, 0.3 * X), rtol=1e-6)
    assert L.LeakyReLU(alpha=0.1).negative_slope == pytest.approx(0.1)


def test_prelu_full_and_shared_alpha():
    layer = L.PReLU(alpha_initializer=tf.keras.initializers.Constant(0.25))
    out = check_layer(layer, input_data=X, expected_num_trainable_weights=1)
    assert layer.alpha.shape == (4,)
    np.testing.assert_allclose(out.numpy(), np.where(X > 0, X, 0.25 * X), rtol=1e-6)
    images = np.random.default_rng(0).standard_normal((2, 3, 3, 5)).astype(np.float32)
    shared = L.PReLU(shared_axes=[1, 2], alpha_initializer="random_normal")
    out = check_layer(shared, input_data=images)
    assert shared.alpha.shape == (1, 1, 5)
    alpha = shared.alpha.numpy()
    np.testing.assert_allclose(out.numpy(), np.where(images > 0, images, alpha * images),
                               rtol=1e-5, atol=1e-6)
    assert np.all(L.PReLU()(X).numpy() == np.maximum(X, 0))  # alpha starts at zeros


def test_elu():
    out = check_layer(L.ELU(alpha=0.5), input_data=X)
    np.testing.assert_allclose(out.numpy(), np.where(X >= 0, X, 0.5 * np.expm1(X)),
                               rtol=1e-5, atol=1e-6)


def _softmax(x, axis):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


@pytest.mark.parametrize("axis", [-1, 0, (0, 1)])
def test_softmax(axis):
    out = check_layer(L.Softmax(axis=axis), input_data=X)
    np.testing.assert_allclose(out.numpy(), _softmax(X.astype(np.float64), axis), rtol=1e-5)


def test_softmax_mask():
    mask = np.array([[True, True, False, False], [False, False, False, False],
                     [True, True, True, True]])
    out = L.Softmax()(X, mask=tf.constant(mask)).numpy()
    expected = _softmax(np.where(mask, X, -1e9), -1) * mask
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-7)
    assert np.all(out[1] == 0)
