"""Model inputs are cast to their Input's dtype, as Keras casts them: uint8
images into a float32 model train and predict (the MatMul dtype error of
issue 16), float64 arrays run in float32, and text given to a numeric Input
is a TypeError naming the Input."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.layers.input_layer import conform_to_input


def test_uint8_images_into_a_float32_model():
    images = np.arange(2 * 4 * 4, dtype=np.uint8).reshape(2, 4, 4)
    model = tf.keras.Sequential([tf.keras.Input((4, 4)), tf.keras.layers.Flatten(),
                                 tf.keras.layers.Dense(3, kernel_initializer="ones")])
    out = model(images)
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), images.reshape(2, -1).sum(1, keepdims=True)
                               .astype(np.float32) * np.ones((1, 3)))
    model.compile("sgd", "mse")
    history = model.fit(images, np.zeros((2, 3)), epochs=1, verbose=0)
    assert np.isfinite(history.history["loss"][0])
    assert model.predict(images.astype(np.float64), verbose=0).dtype == np.float32


def test_each_input_of_a_functional_model_takes_its_own_dtype():
    ids = tf.keras.Input((2,), dtype="int32", name="ids")
    values = tf.keras.Input((2,), name="values")
    out = tf.keras.layers.Lambda(lambda t: tf.cast(t[0], "float32") + t[1])([ids, values])
    model = tf.keras.Model([ids, values], out)
    result = model({"values": np.array([[0.5, 0.25]]), "ids": np.array([[1.9, 2.0]])})
    np.testing.assert_allclose(result.numpy(), [[1.5, 2.25]])  # 1.9 -> 1 as tf.cast truncates


def test_values_already_in_the_dtype_pass_through_and_text_is_refused():
    symbolic = tf.keras.Input((2,), name="pixels")
    array = np.zeros((1, 2), np.float32)
    assert conform_to_input(symbolic, array) is array
    tensor = tf.zeros((1, 2))
    assert conform_to_input(symbolic, tensor) is tensor
    assert conform_to_input(symbolic, [[1, 2]]).dtype == tf.float32
    with pytest.raises(TypeError, match="'pixels' expects float32.*string"):
        conform_to_input(symbolic, np.array([["a", "b"]]))


def test_the_cast_is_differentiable():
    x = tf.Variable(np.ones((1, 2)), dtype="float64")
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    with tf.GradientTape() as tape:
        y = model(x)
    grad = tape.gradient(y, x)
    assert grad is not None and grad.dtype == tf.float64 and grad.shape == (1, 2)


def test_a_trailing_axis_of_one_is_added_or_removed_as_keras_does():
    symbolic = tf.keras.Input((1,))
    assert conform_to_input(symbolic, np.arange(3.0)).shape == (3, 1)
    assert conform_to_input(tf.keras.Input(()), np.zeros((3, 1))).shape == (3,)
    assert conform_to_input(tf.keras.Input((2,)), np.zeros(3)).shape == (3,)  # left to the layers
    model = tf.keras.Sequential([tf.keras.Input((1,)),
                                 tf.keras.layers.Dense(1, kernel_initializer="ones")])
    np.testing.assert_allclose(model.predict(np.array([1.0, 2.0]), verbose=0), [[1.0], [2.0]])
    functional = tf.keras.Model(model.inputs, model.outputs)
    np.testing.assert_allclose(functional(np.array([3.0])).numpy(), [[3.0]])


def test_sequential_with_an_input_casts_like_a_functional_model():
    model = tf.keras.Sequential([tf.keras.Input((2,), dtype="int32"),
                                 tf.keras.layers.Lambda(lambda x: x * 2)])
    out = model(np.array([[1.7, 2.2]]))
    assert out.dtype == tf.int32 and out.numpy().tolist() == [[2, 4]]


def test_text_arrays_become_string_tensors_for_a_string_input():
    symbolic = tf.keras.Input((1,), dtype="string")
    out = conform_to_input(symbolic, np.array([["a b"]]))
    assert out.dtype == tf.string and out.numpy().tolist() == [[b"a b"]]
