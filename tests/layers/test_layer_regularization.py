"""Dropout, SpatialDropout, GaussianNoise, GaussianDropout, ActivityRegularization:
training-only behaviour, seeds, scaling and gradients (the mask)."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.layers import check_layer

L = tf.keras.layers


def test_dropout_inference_is_identity_and_check_layer():
    x = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
    out = check_layer(L.Dropout(0.3), input_data=x, expected_num_trainable_weights=0)
    np.testing.assert_array_equal(out.numpy(), x)


def test_dropout_training_scales_and_gradient_is_the_mask():
    layer = L.Dropout(0.25, seed=3)
    x = tf.constant(np.ones((200, 50), np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = layer(x, training=True)
    values = out.numpy()
    assert set(np.unique(values)) == {0.0, np.float32(1 / 0.75)}
    assert abs((values == 0).mean() - 0.25) < 0.02
    np.testing.assert_allclose(tape.gradient(out, x).numpy(), values)


def test_dropout_seed_repeats_the_sequence_and_draws_anew_each_call():
    x = np.ones((10, 10), np.float32)
    a, b = L.Dropout(0.5, seed=7), L.Dropout(0.5, seed=7)
    first_a, first_b = a(x, training=True).numpy(), b(x, training=True).numpy()
    np.testing.assert_array_equal(first_a, first_b)
    assert not np.array_equal(first_a, a(x, training=True).numpy())


def test_dropout_global_seed():
    x = np.ones((10, 10), np.float32)
    tf.random.set_seed(5)
    first = L.Dropout(0.5)(x, training=True).numpy()
    tf.random.set_seed(5)
    np.testing.assert_array_equal(first, L.Dropout(0.5)(x, training=True).numpy())
    tf.random.set_seed(None)


def test_dropout_noise_shape_and_rates():
    x = np.ones((4, 6, 8), np.float32)
    out = L.Dropout(0.5, noise_shape=(None, 1, 8), seed=1)(x, training=True).numpy()
    assert np.all(out == out[:, :1, :])
    np.testing.assert_array_equal(L.Dropout(1.0)(x, training=True).numpy(), 0 * x)
    np.testing.assert_array_equal(L.Dropout(0.0)(x, training=True).numpy(), x)
    with pytest.raises(ValueError, match="between 0 and 1"):
        L.Dropout(1.5)


def test_spatial_dropout_drops_whole_channels():
    x = np.ones((3, 5, 8), np.float32)
    out = check_layer(L.SpatialDropout1D(0.5, seed=2), input_data=x)
    np.testing.assert_array_equal(out.numpy(), x)
    out = L.SpatialDropout1D(0.5, seed=2)(x, training=True).numpy()
    assert np.all(out == out[:, :1, :]) and (out == 0).any()
    images = np.ones((2, 4, 4, 6), np.float32)
    out = L.SpatialDropout2D(0.5, seed=2)(images, training=True).numpy()
    assert np.all(out == out[:, :1, :1, :]) and (out == 0).any()
    first = L.SpatialDropout2D(0.5, data_format="channels_first", seed=2)(
        images, training=True).numpy()
    assert np.all(first == first[:, :, :1, :1])
    with pytest.raises(ValueError, match="expected ndim=4"):
        L.SpatialDropout2D(0.5)(x)


def test_gaussian_noise():
    x = np.zeros((100, 100), np.float32)
    layer = L.GaussianNoise(0.5, seed=1)
    np.testing.assert_array_equal(check_layer(layer, input_data=x).numpy(), x)
    noisy = layer(x, training=True).numpy()
    assert abs(noisy.std() - 0.5) < 0.02 and abs(noisy.mean()) < 0.02
    xt = tf.constant(x)
    with tf.GradientTape() as tape:
        tape.watch(xt)
        out = tf.reduce_sum(layer(xt, training=True))
    np.testing.assert_array_equal(tape.gradient(out, xt).numpy(), np.ones_like(x))


def test_gaussian_dropout():
    x = np.ones((200, 100), np.float32)
    out = L.GaussianDropout(0.2, seed=1)(x, training=True).numpy()
    assert abs(out.mean() - 1) < 0.02 and abs(out.std() - np.sqrt(0.25)) < 0.02
    np.testing.assert_array_equal(L.GaussianDropout(0.2)(x).numpy(), x)


def test_activity_regularization():
    layer = L.ActivityRegularization(l1=0.1, l2=0.2)
    x = np.array([[1.0, -2.0]], np.float32)
    out = check_layer(layer, input_data=x)
    np.testing.assert_array_equal(out.numpy(), x)
    assert float(layer.losses[0]) == pytest.approx(0.1 * 3 + 0.2 * 5)
    layer(np.concatenate([x, 2 * x]))  # divided by the batch size, as in Keras
    assert float(layer.losses[0]) == pytest.approx((0.1 * 9 + 0.2 * 25) / 2)
