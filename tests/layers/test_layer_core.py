"""Dense, Activation, Lambda, Identity and the reshaping layers: values against
NumPy, gradients (check_layer) and bad input."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.layers import check_layer

L = tf.keras.layers
RNG = np.random.default_rng(0)


@pytest.mark.parametrize("shape", [(4, 5), (2, 3, 5), (2, 2, 3, 5)])
@pytest.mark.parametrize("use_bias", [True, False])
def test_dense_values_and_gradients(shape, use_bias):
    dense = L.Dense(3, activation="tanh", use_bias=use_bias, bias_initializer="random_normal")
    x = RNG.standard_normal(shape).astype(np.float32)
    out = check_layer(dense, input_data=x, expected_output_shape=shape[:-1] + (3,),
                      expected_num_trainable_weights=2 if use_bias else 1,
                      expected_num_non_trainable_weights=0)
    w = dense.get_weights()
    expected = x @ w[0] + (w[1] if use_bias else 0)
    np.testing.assert_allclose(out.numpy(), np.tanh(expected), rtol=1e-5, atol=1e-6)
    assert dense.kernel.shape == (5, 3)


def test_dense_second_order_gradients():
    check_layer(L.Dense(2, activation="sigmoid"), (3, 4), order=2, run_training_step=False,
                check_config=False)


def test_dense_kernel_initializer_and_constraint_config():
    dense = L.Dense(4, kernel_initializer=tf.keras.initializers.Constant(0.5),
                    kernel_constraint=tf.keras.constraints.NonNeg())
    out = dense(np.ones((1, 2), np.float32))
    np.testing.assert_allclose(out.numpy(), np.ones((1, 4)))
    assert isinstance(dense.kernel.constraint, tf.keras.constraints.NonNeg)
    clone = L.Dense.from_config(dense.get_config())
    assert clone.get_config()["kernel_constraint"] == {"class_name": "NonNeg", "config": {}}


def test_dense_bad_input():
    with pytest.raises(ValueError, match="positive integer"):
        L.Dense(0)
    with pytest.raises(ValueError, match="Unknown activation function: 'rleu'.*relu"):
        L.Dense(2, activation="rleu")
    dense = L.Dense(2, name="head")
    dense(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r'"head".*value 3.*\(2, 4\).*built for input shape \(2, 3\)'):
        dense(np.ones((2, 4), np.float32))


@pytest.mark.parametrize("name,reference", [
    ("relu", lambda x: np.maximum(x, 0)), ("tanh", np.tanh),
    ("sigmoid", lambda x: 1 / (1 + np.exp(-x))), ("linear", lambda x: x),
    ("softplus", lambda x: np.log1p(np.exp(x))), ("elu", lambda x: np.where(x > 0, x,
                                                                           np.expm1(x))),
])
def test_activation_layer(name, reference):
    x = RNG.standard_normal((3, 4)).astype(np.float32)
    out = check_layer(L.Activation(name), input_data=x, expected_output_shape=(3, 4))
    np.testing.assert_allclose(out.numpy(), reference(x), rtol=1e-5, atol=1e-6)


def test_activation_callable():
    layer = L.Activation(tf.math.square)
    np.testing.assert_allclose(layer(np.array([[2.0]], np.float32)).numpy(), [[4.0]])


def test_identity():
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    np.testing.assert_array_equal(check_layer(L.Identity(), input_data=x).numpy(), x)


def test_lambda_values_gradients_and_arguments():
    layer = L.Lambda(lambda x, power: x ** power, arguments={"power": 3.0})
    x = RNG.standard_normal((2, 3)).astype(np.float32)
    out = check_layer(layer, input_data=x, expected_output_shape=(2, 3))
    np.testing.assert_allclose(out.numpy(), x ** 3, rtol=1e-5)
    assert layer.compute_output_shape((None, 3)) == (None, 3)


def test_lambda_training_and_mask_and_output_shape():
    seen = {}

    def fn(x, training=None, mask=None):
        seen["training"], seen["mask"] = training, mask
        return tf.concat([x, x], axis=-1)

    layer = L.Lambda(fn, output_shape=(6,))
    layer(np.ones((2, 3), np.float32), training=True)
    assert seen == {"training": True, "mask": None}
    assert layer.compute_output_shape((None, 3)) == (None, 6)
    with pytest.raises(ValueError, match="callable"):
        L.Lambda(3)


def test_flatten():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    out = check_layer(L.Flatten(), input_data=x, expected_output_shape=(2, 12))
    np.testing.assert_array_equal(out.numpy(), x.reshape(2, 12))
    first = L.Flatten(data_format="channels_first")(x).numpy()
    np.testing.assert_array_equal(first, x.transpose(0, 2, 1).reshape(2, 12))
    assert L.Flatten().compute_output_shape((None, 3, None)) == (None, None)
    np.testing.assert_array_equal(L.Flatten()(np.ones(3, np.float32)).numpy(), np.ones((3, 1)))


def test_reshape():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    out = check_layer(L.Reshape((4, -1)), input_data=x, expected_output_shape=(2, 4, 3))
    np.testing.assert_array_equal(out.numpy(), x.reshape(2, 4, 3))
    assert L.Reshape((-1, 2)).compute_output_shape((None, 3, 4)) == (None, 6, 2)
    with pytest.raises(ValueError, match=r"'rs'.*\(2, 3, 4\).*12 values.*\(5, -1\)"):
        L.Reshape((5, -1), name="rs")(x)
    with pytest.raises(ValueError, match="at most one -1"):
        L.Reshape((-1, -1))


def test_permute():
    x = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    out = check_layer(L.Permute((3, 1, 2)), input_data=x, expected_output_shape=(2, 5, 3, 4))
    np.testing.assert_array_equal(out.numpy(), x.transpose(0, 3, 1, 2))
    with pytest.raises(ValueError, match="permutation"):
        L.Permute((0, 1))
    with pytest.raises(ValueError, match="expected ndim=3, found ndim=4"):
        L.Permute((2, 1))(x)


def test_repeat_vector():
    x = RNG.standard_normal((2, 4)).astype(np.float32)
    out = check_layer(L.RepeatVector(3), input_data=x, expected_output_shape=(2, 3, 4))
    np.testing.assert_array_equal(out.numpy(), np.repeat(x[:, None, :], 3, axis=1))
    with pytest.raises(ValueError, match="expected ndim=2"):
        L.RepeatVector(3)(np.ones((2, 3, 4), np.float32))


def test_dense_takes_numpy_integer_units():
    """`Dense(np.prod(shape))` as the autoencoder tutorial writes it (Keras accepts it)."""
    layer = tf.keras.layers.Dense(np.int32(784))
    assert layer.units == 784 and type(layer.units) is int
    assert layer.get_config()["units"] == 784
    for bad in (True, 2.5, np.float32(3), 0, -1):
        with pytest.raises(ValueError, match="positive integer"):
            tf.keras.layers.Dense(bad)
