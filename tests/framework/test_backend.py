"""`tf.keras.backend` as Keras 2 programs call it (`from keras import backend as K`):
settings, get_value/set_value (an optimizer's learning rate too) and the tensor
helpers with Keras 2's defaults. Expected values are NumPy's or Keras's docs'."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras import backend as K
from tapeflow.testing import gradcheck


def test_settings():
    assert K.floatx() == "float32" and K.image_data_format() == "channels_last"
    assert K.epsilon() == 1e-7 and K.learning_phase() == 0
    K.set_floatx("float32")
    K.set_image_data_format("channels_last")
    with pytest.raises(NotImplementedError, match="dtype='float64'"):
        K.set_floatx("float64")
    with pytest.raises(ValueError, match="floatx"):
        K.set_floatx("int8")
    with pytest.raises(NotImplementedError, match="channels_first"):
        K.set_image_data_format("channels_first")
    with pytest.raises(ValueError, match="channels_middle"):
        K.set_image_data_format("channels_middle")
    K.set_epsilon(1e-5)
    try:
        assert K.epsilon() == 1e-5
    finally:
        K.set_epsilon(1e-7)


def test_clear_session_restarts_layer_and_input_names():
    tf.keras.layers.Dense(1)
    tf.keras.Input((2,))
    K.clear_session()
    assert tf.keras.layers.Dense(1).name == "dense"
    assert tf.keras.Input((2,)).name == "input_layer"


def test_get_and_set_value_of_variables_and_learning_rates():
    v = tf.Variable([1.0, 2.0])
    K.set_value(v, [3, 4])
    np.testing.assert_array_equal(K.get_value(v), [3.0, 4.0])
    assert K.get_value(v).dtype == np.float32
    opt = tf.keras.optimizers.Adam(0.01)
    K.set_value(opt.learning_rate, 0.001)
    assert np.isclose(K.get_value(opt.learning_rate), 0.001)
    assert np.isclose(K.get_value(opt.lr), 0.001)
    with pytest.raises(ValueError, match=r"\(2,\)"):
        K.set_value(v, [1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="Variable"):
        K.set_value(tf.constant(1.0), 2.0)
    assert K.batch_get_value([v])[0].tolist() == [3.0, 4.0]


def test_shapes_and_constructors():
    assert K.int_shape(tf.keras.Input((3, 4))) == (None, 3, 4)
    assert K.int_shape(tf.zeros((2, 5))) == (2, 5) and K.ndim(tf.zeros((2, 5))) == 2
    assert K.shape(tf.zeros((2, 5))).numpy().tolist() == [2, 5]
    assert K.dtype(K.variable([1, 2])) == "float32" and K.count_params(tf.zeros((2, 5))) == 10
    assert isinstance(K.variable(1.0), tf.Variable) and K.constant(2).dtype == tf.float32
    assert K.is_keras_tensor(tf.keras.Input((1,))) and not K.is_keras_tensor(tf.zeros(1))
    r = K.random_normal((2000,), mean=1.0, stddev=2.0)
    assert r.dtype == tf.float32 and abs(float(np.mean(r.numpy())) - 1.0) < 0.2
    u = K.random_uniform((2000,), minval=-1.0, maxval=0.0).numpy()
    assert u.min() >= -1.0 and u.max() < 0.0


def test_helpers_with_keras2_defaults():
    x = np.arange(6.0, dtype=np.float32).reshape(2, 3)
    assert K.mean(x).numpy() == 2.5 and K.sum(x, axis=1).numpy().tolist() == [3.0, 12.0]
    assert K.argmax(x).numpy().tolist() == [2, 2]  # axis=-1
    assert K.concatenate([x, x]).shape == (2, 6)  # axis=-1
    assert K.expand_dims(x).shape == (2, 3, 1)  # axis=-1
    assert K.batch_flatten(np.zeros((2, 3, 4))).shape == (2, 12)
    np.testing.assert_allclose(K.sqrt(tf.constant([-4.0, 4.0])).numpy(), [0.0, 2.0])
    np.testing.assert_allclose(K.clip(x, 3.0, 1.0).numpy(), np.full((2, 3), 3.0))
    np.testing.assert_allclose(K.pow(x, 2).numpy(), x ** 2)
    np.testing.assert_allclose(K.repeat_elements(x, 2, axis=1).numpy(), np.repeat(x, 2, 1))
    np.testing.assert_allclose(K.l2_normalize(np.array([3.0, 4.0])).numpy(), [0.6, 0.8])
    np.testing.assert_allclose(K.switch(np.array([True, False]), np.array([1.0, 2.0]),
                                        np.array([3.0, 4.0])).numpy(), [1.0, 4.0])
    assert K.switch(tf.constant(False), lambda: 1, lambda: 2) == 2
    np.testing.assert_allclose(K.relu(tf.constant([-1.0, 2.0, 9.0]), alpha=0.1,
                                      max_value=6.0).numpy(), [-0.1, 2.0, 6.0])
    assert K.permute_dimensions(np.zeros((2, 3, 4)), (2, 0, 1)).shape == (4, 2, 3)


def test_dot_and_batch_dot_as_keras_docs():
    x, y = np.random.default_rng(0).random((2, 3)), np.random.default_rng(1).random((4, 3, 5))
    assert K.dot(x, y).shape == (2, 4, 5)  # K.dot's docstring example
    np.testing.assert_allclose(K.dot(x, y).numpy(), np.dot(x, y))
    a, b = np.random.default_rng(2).random((32, 20)), np.random.default_rng(3).random((32, 30, 20))
    out = K.batch_dot(a, b, axes=(1, 2))
    assert out.shape == (32, 30)  # K.batch_dot's docstring example
    np.testing.assert_allclose(out.numpy(), np.einsum("bi,bji->bj", a, b))
    m = np.random.default_rng(4).random((3, 2, 4))
    np.testing.assert_allclose(K.batch_dot(m, np.swapaxes(m, 1, 2)).numpy(),
                               m @ np.swapaxes(m, 1, 2))
    with pytest.raises(ValueError, match="batch axis"):
        K.batch_dot(a, b, axes=(0, 0))


def test_crossentropies_elementwise_as_keras():
    target, output = np.array([[1.0, 0.0]]), np.array([[0.9, 0.2]])
    np.testing.assert_allclose(K.binary_crossentropy(target, output).numpy(),
                               [[-np.log(0.9 + 1e-7), -np.log(0.8 + 1e-7)]], rtol=1e-6)
    logits = np.array([0.3, -1.2])
    np.testing.assert_allclose(K.binary_crossentropy(np.array([1.0, 0.0]), logits,
                                                     from_logits=True).numpy(),
                               [np.log1p(np.exp(-0.3)), np.log1p(np.exp(-1.2))], rtol=1e-6)
    np.testing.assert_allclose(K.categorical_crossentropy(np.array([[0.0, 1.0]]),
                                                          np.array([[0.25, 0.75]])).numpy(),
                               [-np.log(0.75)], rtol=1e-6)
    with pytest.raises(ValueError, match=r"target.shape=\(2,\), output.shape=\(3,\)"):
        K.binary_crossentropy(np.zeros(2), np.full(3, 0.5))


def test_stop_gradient_of_a_list():
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = K.stop_gradient([v * v])[0] + v
    assert tape.gradient(y, v).numpy() == 1.0


@pytest.mark.parametrize("fn, shapes", [
    (lambda x: K.sqrt(x * x + 1.0), [(2, 3)]),
    (lambda x, y: K.batch_dot(x, y, axes=(1, 2)), [(2, 3), (2, 4, 3)]),
    (lambda x: K.l2_normalize(x, axis=-1), [(2, 3)]),
    (lambda x: K.repeat_elements(x, 2, axis=0), [(2, 3)]),
    (lambda t, x: K.binary_crossentropy(K.sigmoid(t), x, from_logits=True), [(2, 3), (2, 3)]),
    (lambda x: K.batch_flatten(x), [(2, 0, 3)]),
])
def test_composites_are_differentiable_twice(fn, shapes):
    rng = np.random.default_rng(0)
    gradcheck(fn, *[rng.standard_normal(s) for s in shapes], order=2)
