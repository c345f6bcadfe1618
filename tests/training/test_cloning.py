"""clone_model, to_json/model_from_json, save_model, keras.config and load_weights'
Keras arguments: the tf.keras.models names the guides use."""

import numpy as np
import pytest

import tapeflow as tf


def _functional():
    inputs = tf.keras.Input((4,), name="x")
    shared = tf.keras.layers.Dense(3, name="shared")
    merged = tf.keras.layers.Add(name="add")([shared(inputs), shared(inputs * 2.0)])
    return tf.keras.Model(inputs, tf.keras.layers.Dense(2, name="out")(merged), name="net")


def test_clone_model_has_the_architecture_and_new_weights():
    tf.random.set_seed(0)
    model = _functional()
    clone = tf.keras.models.clone_model(model)
    assert [layer.name for layer in clone.layers] == [layer.name for layer in model.layers]
    assert clone.count_params() == model.count_params()
    assert not np.allclose(clone.get_layer("shared").kernel.numpy(),
                           model.get_layer("shared").kernel.numpy())  # re-initialised
    clone.set_weights(model.get_weights())
    x = np.random.default_rng(0).random((3, 4), dtype=np.float32)
    np.testing.assert_allclose(clone(x).numpy(), model(x).numpy(), rtol=1e-6)
    # a shared layer stays shared in the clone: one set of weights
    assert len(clone.get_layer("shared").weights) == 2 and len(clone.weights) == 4


def test_clone_sequential_and_clone_function():
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2, name="d"),
                                 tf.keras.layers.Dropout(0.5, name="drop")])
    seen = []

    def clone_function(layer):
        seen.append(layer.name)
        config = layer.get_config()
        if isinstance(layer, tf.keras.layers.Dropout):
            config["rate"] = 0.1
        return type(layer).from_config(config)

    clone = tf.keras.models.clone_model(model, clone_function=clone_function)
    assert seen == ["d", "drop"] and clone.layers[1].rate == 0.1
    assert clone(np.ones((1, 3), np.float32)).shape == (1, 2)


def test_to_json_and_model_from_json_round_trip():
    inputs = tf.keras.Input((4,), name="x")
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(2, name="out")(
        tf.keras.layers.Dense(3, name="hidden")(inputs)))
    text = model.to_json()
    assert '"class_name": "Functional"' in text
    again = tf.keras.models.model_from_json(text)
    assert [layer.name for layer in again.layers] == [layer.name for layer in model.layers]
    again.set_weights(model.get_weights())
    x = np.ones((2, 4), np.float32)
    np.testing.assert_allclose(again(x).numpy(), model(x).numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="not valid JSON"):
        tf.keras.models.model_from_json("{broken")


def test_save_model_and_load_weights_arguments(tmp_path):
    model = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(2)])
    model.compile("sgd", "mse")
    tf.keras.models.save_model(model, tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    np.testing.assert_array_equal(loaded.get_weights()[0], model.get_weights()[0])
    model.save_weights(tmp_path / "w.weights.npz")
    model.load_weights(tmp_path / "w.weights.npz", skip_mismatch=False)


def test_keras_config():
    assert tf.keras.config.backend() == "tensorflow"
    assert tf.keras.config.floatx() == "float32"
    assert tf.keras.config.image_data_format() == "channels_last"
    assert tf.keras.config.epsilon() == pytest.approx(1e-7)
    assert callable(tf.keras.config.enable_unsafe_deserialization)
