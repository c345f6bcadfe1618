"""Keras's HDF5 files: Keras 2's weights (`load_weights` by position, `by_name`,
`skip_mismatch`), and the legacy whole-model .h5 that `model.save("m.h5")` writes
in Keras 3 and tf.keras 2 (`model_config`, `training_config`, `model_weights`,
`optimizer_weights`). The hand-built files follow tf_keras's
src/saving/legacy/hdf5_format.py and keras/src/legacy/saving/legacy_h5_format.py;
tests/training/test_keras_formats.py checks files of real Keras."""

import json

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.models import saving

from test_keras_formats import data, h5py_or_skip, make_model  # the same model and data

layers = tf.keras.layers


def keras_weights():
    rng = np.random.default_rng(0)
    return [rng.normal(size=s).astype(np.float32) for s in [(4, 8), (8,), (8, 3), (3,)]]


def expected_prediction(x, w):
    return np.maximum(x @ w[0] + w[1], 0) @ w[2] + w[3]


def write_keras2_h5(path, layer_weights, h5py, whole_model=False):
    """tf.keras 2's layout: attribute layer_names; per layer attribute weight_names."""
    with h5py.File(path, "w") as f:
        root = f.create_group("model_weights") if whole_model else f
        root.attrs["layer_names"] = [name.encode() for name, _ in layer_weights]
        root.attrs["backend"] = b"tensorflow"
        root.attrs["keras_version"] = b"2.15.0"
        for name, weights in layer_weights:
            group = root.create_group(name)
            names = [f"{name}/{w}:0".encode() for w, _ in weights]
            group.attrs["weight_names"] = names
            for (w, value) in weights:
                group.create_dataset(f"{name}/{w}:0", data=value)


def keras2_layers():
    w = keras_weights()
    return [("input_1", []), ("dense", [("kernel", w[0]), ("bias", w[1])]),
            ("dropout", []), ("dense_1", [("kernel", w[2]), ("bias", w[3])])], w


def fresh(names=("first", "second"), widths=(8, 3)):
    return tf.keras.Sequential([tf.keras.Input(shape=(4,)),
                                layers.Dense(widths[0], "relu", name=names[0]),
                                layers.Dropout(0.5),
                                layers.Dense(widths[1], name=names[1])])


@pytest.mark.parametrize("whole_model", [False, True])
def test_keras_2_h5_loads_by_position(tmp_path, whole_model):
    h5py = h5py_or_skip()
    saved, w = keras2_layers()
    write_keras2_h5(tmp_path / "k2.h5", saved, h5py, whole_model)
    model = fresh()
    model.load_weights(tmp_path / "k2.h5")
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(model.predict(x, verbose=0), expected_prediction(x, w),
                               rtol=1e-5, atol=1e-6)


def test_keras_2_h5_by_name_and_skip_mismatch(tmp_path):
    h5py = h5py_or_skip()
    saved, w = keras2_layers()
    write_keras2_h5(tmp_path / "k2.h5", saved, h5py)
    model = fresh(names=("dense_1", "dense"), widths=(8, 3))  # names swapped: shapes differ
    with pytest.raises(ValueError, match=r"Shape mismatch in layer #0 \(named dense in the "
                                         r"current model.* for weight dense/kernel\. Weight "
                                         r"expects shape \(8, 3\)\..*with shape \(4, 8\)"):
        saving.load_weights(model, tmp_path / "k2.h5", by_name=True)
    renamed = fresh(names=("other", "dense_1"), widths=(8, 3))
    before = renamed.get_weights()
    saving.load_weights(renamed, tmp_path / "k2.h5", by_name=True)
    np.testing.assert_array_equal(renamed.get_weights()[0], before[0])  # no 'other' saved
    np.testing.assert_array_equal(renamed.get_weights()[2], w[2])
    renamed.save_weights(tmp_path / "k3.weights.h5")
    with pytest.raises(ValueError, match="`by_name` only supports loading legacy '.h5'"):
        saving.load_weights(renamed, tmp_path / "k3.weights.h5", by_name=True)
    wrong = fresh(names=("dense", "dense_1"), widths=(8, 5))
    kept = wrong.get_weights()
    saving.load_weights(wrong, tmp_path / "k2.h5", by_name=True, skip_mismatch=True)
    np.testing.assert_array_equal(wrong.get_weights()[0], w[0])
    np.testing.assert_array_equal(wrong.get_weights()[2], kept[2])


def test_keras_2_h5_of_another_architecture_names_it_and_changes_nothing(tmp_path):
    h5py = h5py_or_skip()
    saved, _ = keras2_layers()
    write_keras2_h5(tmp_path / "k2.h5", saved, h5py)
    model = fresh(widths=(8, 5))
    before = model.get_weights()
    with pytest.raises(ValueError, match=r"layer #1 \(named second.*dense_1.*kernel.*"
                                         r"\(8, 5\).*\(8, 3\)"):
        model.load_weights(tmp_path / "k2.h5")
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)
    deeper = tf.keras.Sequential([tf.keras.Input(shape=(4,)), layers.Dense(8), layers.Dense(8),
                                  layers.Dense(3)])
    with pytest.raises(ValueError, match="Model expected 3 layers, found 2 saved layers"):
        deeper.load_weights(tmp_path / "k2.h5")


def test_model_save_h5_writes_keras_legacy_model_file(tmp_path):
    h5py = h5py_or_skip()
    x, y = data()
    model = make_model()
    model.fit(x, y, epochs=1, batch_size=16, verbose=0)
    model.save(tmp_path / "m.h5")
    assert (tmp_path / "m.h5").read_bytes()[:8] == b"\x89HDF\r\n\x1a\n"
    with h5py.File(tmp_path / "m.h5", "r") as f:
        assert json.loads(f.attrs["model_config"])["class_name"] == "Sequential"
        assert json.loads(f.attrs["training_config"])["optimizer_config"]["class_name"] == "Adam"
        assert [n.decode() for n in f["model_weights"].attrs["layer_names"]] == [
            layer.name for layer in model.layers]
        assert len(f["optimizer_weights"].attrs["weight_names"]) == 2 + 2 * 6
    loaded = tf.keras.models.load_model(tmp_path / "m.h5")
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    assert int(loaded.optimizer.iterations.numpy()) == 4
    for a, b in zip(model.optimizer.variables, loaded.optimizer.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_a_tf_keras_2_model_file_loads(tmp_path):
    """model_config as tf.keras 2.15 writes it: inbound nodes as lists, batch_input_shape."""
    h5py = h5py_or_skip()
    saved, w = keras2_layers()
    dense = {"units": 8, "activation": "relu", "use_bias": True, "dtype": "float32",
             "kernel_initializer": {"class_name": "GlorotUniform", "config": {"seed": None}},
             "bias_initializer": {"class_name": "Zeros", "config": {}}, "trainable": True,
             "kernel_regularizer": None, "bias_regularizer": None,
             "activity_regularizer": None, "kernel_constraint": None, "bias_constraint": None}
    config = {"class_name": "Functional", "config": {"name": "model", "layers": [
        {"class_name": "InputLayer", "name": "input_1", "inbound_nodes": [], "config": {
            "batch_input_shape": [None, 4], "dtype": "float32", "sparse": False,
            "ragged": False, "name": "input_1"}},
        {"class_name": "Dense", "name": "dense", "config": dict(dense, name="dense"),
         "inbound_nodes": [[["input_1", 0, 0, {}]]]},
        {"class_name": "Dropout", "name": "dropout", "inbound_nodes": [[["dense", 0, 0, {}]]],
         "config": {"name": "dropout", "rate": 0.5, "noise_shape": None, "seed": None}},
        {"class_name": "Dense", "name": "dense_1", "inbound_nodes": [[["dropout", 0, 0, {}]]],
         "config": dict(dense, name="dense_1", units=3, activation="linear")}],
        "input_layers": [["input_1", 0, 0]], "output_layers": [["dense_1", 0, 0]]}}
    write_keras2_h5(tmp_path / "k2.h5", saved, h5py, whole_model=True)
    with h5py.File(tmp_path / "k2.h5", "a") as f:
        f.attrs["model_config"] = json.dumps(config).encode()
        f.attrs["training_config"] = json.dumps({
            "loss": "mse", "metrics": None, "weighted_metrics": None, "loss_weights": None,
            "optimizer_config": {"class_name": "Adam", "config": {
                "name": "Adam", "learning_rate": 0.001, "beta_1": 0.9, "beta_2": 0.999,
                "epsilon": 1e-07, "amsgrad": False, "is_legacy_optimizer": False,
                "jit_compile": True}}}).encode()
    model = tf.keras.models.load_model(tmp_path / "k2.h5")
    assert [layer.name for layer in model.layers] == ["input_1", "dense", "dropout", "dense_1"]
    assert type(model.optimizer).__name__ == "Adam" and not model.optimizer.built
    x = np.linspace(-1, 1, 8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(model.predict(x, verbose=0), expected_prediction(x, w),
                               rtol=1e-5, atol=1e-6)
    with h5py.File(tmp_path / "k2.h5", "a") as f:
        del f.attrs["model_config"]
    with pytest.raises(ValueError, match="No model config found in the file at"):
        tf.keras.models.load_model(tmp_path / "k2.h5")
