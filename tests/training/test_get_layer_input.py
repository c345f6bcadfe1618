"""Model.get_layer(name) finds a functional model's Input as Keras finds its
InputLayer, so a sub-model can be cut from it (keras-io's captcha OCR)."""

import numpy as np
import pytest

import tapeflow as tf


def test_get_layer_of_an_input_gives_its_tensor_as_input_and_output():
    image = tf.keras.Input((4,), name="image")
    hidden = tf.keras.layers.Dense(3, name="hidden")(image)
    model = tf.keras.Model(image, tf.keras.layers.Dense(2, name="out")(hidden))
    layer = model.get_layer(name="image")
    assert layer.name == "image" and layer.input is image and layer.output is image
    assert layer.batch_shape == (None, 4)
    cut = tf.keras.Model(model.get_layer(name="image").input, model.get_layer("hidden").output)
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(cut.predict(x, verbose=0), model.get_layer("hidden")(x).numpy(),
                               rtol=1e-6)


def test_an_unknown_name_lists_the_layers():
    inputs = tf.keras.Input((2,), name="x")
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1, name="d")(inputs))
    with pytest.raises(ValueError, match=r"No such layer: 'y'. Existing layers are: \['x', 'd'\]"):
        model.get_layer("y")
