"""A functional model whose inputs are intermediate tensors (a layer's output), as
Keras builds one (keras-io's FeatureSpace example: `keras.Model(inputs=
feature_space.get_encoded_features(), outputs=...)`): the graph starts there, the
layers before it are not part of the model."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras


def _chain():
    raw = keras.Input(shape=(3,), name="raw")
    first = keras.layers.Dense(4, name="first")
    middle = first(raw)
    second = keras.layers.Dense(2, name="second")
    out = second(middle)
    return raw, first, middle, second, out


def test_model_from_an_intermediate_tensor_runs_only_the_later_layers():
    raw, first, middle, second, out = _chain()
    tail = keras.Model(inputs=middle, outputs=out)
    # Keras lists an InputLayer for the intermediate input, named after the tensor:
    # ['keras_tensorCLONE', 'second'] there, whose tensors have names of their own
    assert [layer.name for layer in tail.layers] == ["firstCLONE", "second"]
    assert len(tail.trainable_weights) == 2  # second's kernel and bias only
    x = np.arange(8, dtype="float32").reshape(2, 4)
    kernel, bias = (w.numpy() for w in second.weights)
    np.testing.assert_allclose(tail.predict(x, verbose=0), x @ kernel + bias, rtol=1e-6)
    # The whole model from the Input still runs both layers.
    whole = keras.Model(raw, out)
    r = np.ones((1, 3), "float32")
    k1, b1 = (w.numpy() for w in first.weights)
    np.testing.assert_allclose(whole(r).numpy(), (r @ k1 + b1) @ kernel + bias, rtol=1e-6)


def test_model_from_an_intermediate_tensor_trains():
    _, first, middle, second, out = _chain()
    tail = keras.Model(inputs=middle, outputs=out)
    tail.compile(optimizer="sgd", loss="mse")
    before_first = first.weights[0].numpy().copy()
    before_second = second.weights[0].numpy().copy()
    history = tail.fit(np.ones((4, 4), "float32"), np.zeros((4, 2), "float32"),
                       epochs=2, verbose=0)
    assert history.history["loss"][1] < history.history["loss"][0]
    np.testing.assert_array_equal(first.weights[0].numpy(), before_first)
    assert not np.array_equal(second.weights[0].numpy(), before_second)


def test_disconnected_and_non_symbolic_inputs_are_errors():
    _, _, _, _, out = _chain()
    other = keras.Input(shape=(4,), name="other")
    with pytest.raises(ValueError, match="Graph disconnected.*'raw'"):
        keras.Model(inputs=other, outputs=out)
    with pytest.raises(ValueError, match="Model inputs must be symbolic tensors"):
        keras.Model(inputs=tf.ones((1, 4)), outputs=out)
