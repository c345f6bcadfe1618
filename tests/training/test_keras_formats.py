"""Keras's own files: Keras 3's .keras and .weights.h5, Keras 2's .h5, custom
objects, safe mode, crafted files. The layouts are keras/src/saving/saving_lib.py's
(Keras 3) and tf_keras/src/saving/legacy/hdf5_format.py's (Keras 2); the hand-built
files below follow them, and `REAL_KERAS_CONFIG` is config.json as Keras 3.15.1
wrote it for `Sequential([Input((4,)), Dense(8, "relu"), Dense(3)])`. The round
trips with real Keras run when keras is importable, or when KERAS_PYTHON names an
interpreter that has it (skipped otherwise, as in CI)."""

import importlib.util
import itertools
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.models import saving

layers = tf.keras.layers
H5_REASON = "h5py (the optional extra tapeflow[h5]) is not installed"


def h5py_or_skip():
    return pytest.importorskip("h5py", reason=H5_REASON)


def make_model(seed=0):
    tf.random.set_seed(seed)
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), layers.Dense(8, activation="relu"),
                                 layers.BatchNormalization(), layers.Dense(3)])
    model.compile(tf.keras.optimizers.Adam(0.01), "mse")
    return model


def data():
    rng = np.random.default_rng(3)
    return rng.normal(size=(64, 4)).astype(np.float32), rng.normal(size=(64, 3)).astype(
        np.float32)


def h5_tree(path):
    h5py = h5py_or_skip()
    found = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda name, node: found.__setitem__(
            name, tuple(node.shape) if isinstance(node, h5py.Dataset) else dict(node.attrs)))
    return found


# -- Keras 3's layouts -----------------------------------------------------------------
def test_weights_h5_has_keras_3_layout(tmp_path):
    h5py_or_skip()
    model = make_model()
    model.fit(*data(), epochs=1, batch_size=32, verbose=0)
    model.save_weights(tmp_path / "w.weights.h5")
    tree = h5_tree(tmp_path / "w.weights.h5")
    # Layers by snake-cased class name, numbered per class; own variables as vars/i.
    assert tree["vars"] == {"name": model.name}
    assert tree["layers/dense/vars"] == {"name": "dense"} or "name" in tree["layers/dense/vars"]
    assert tree["layers/dense/vars/0"] == (4, 8) and tree["layers/dense/vars/1"] == (8,)
    assert [tree[f"layers/batch_normalization/vars/{i}"] for i in range(4)] == [(8,)] * 4
    assert tree["layers/dense_1/vars/0"] == (8, 3) and tree["layers/dense_1/vars/1"] == (3,)
    # Adam: iterations, learning rate, then (momentum, velocity) per trainable variable.
    assert tree["optimizer/vars/0"] == () and tree["optimizer/vars/1"] == ()
    slots = [tree[f"optimizer/vars/{i}"] for i in range(2, 14)]
    assert slots == [(4, 8), (4, 8), (8,), (8,), (8,), (8,), (8,), (8,), (8, 3), (8, 3), (3,),
                     (3,)]
    assert "optimizer/vars/14" not in tree


def _two_input_model():
    a, b = tf.keras.Input((4,), name="a"), tf.keras.Input((3,), name="b")
    out = layers.Dense(1)(layers.Concatenate()([layers.Dense(5)(a), b]))  # 'dense', then
    return tf.keras.Model([a, b], out)                                   # 'dense_1'


def test_a_functional_models_input_layers_have_their_groups_as_in_keras(tmp_path):
    """Keras 3 (TF 2.21) writes an empty vars group per InputLayer, numbered in
    `model.layers` order as every class is; the keys and names below are its own
    file's for this model (the Dense layers swapped: 'dense_1' comes first there)."""
    h5py = h5py_or_skip()
    model = _two_input_model()
    model.save_weights(tmp_path / "w.weights.h5")
    tree = h5_tree(tmp_path / "w.weights.h5")
    groups = {key: value for key, value in tree.items() if key.endswith("vars")}
    assert groups == {"vars": {"name": model.name},
                      "layers/input_layer/vars": {"name": "a"},
                      "layers/input_layer_1/vars": {"name": "b"},
                      "layers/concatenate/vars": {"name": model.layers[3].name},
                      "layers/dense/vars": {"name": model.layers[1].name},
                      "layers/dense_1/vars": {"name": model.layers[4].name}}
    assert tree["layers/dense/vars/0"] == (4, 5) and tree["layers/dense_1/vars/0"] == (8, 1)
    model.save(tmp_path / "m.h5")  # Keras 2's layout lists them too, in the same order
    with h5py.File(tmp_path / "m.h5", "r") as f:
        names = [n.decode() for n in f["model_weights"].attrs["layer_names"]]
    assert names == [layer.name for layer in model.layers] and names[0:3:2] == ["a", "b"]
    # a file without the InputLayers' groups (tapeflow's before they were listed) loads
    with h5py.File(tmp_path / "w.weights.h5", "a") as f:
        del f["layers/input_layer"], f["layers/input_layer_1"]
    again = _two_input_model()
    again.load_weights(tmp_path / "w.weights.h5")
    x = [np.ones((2, 4), np.float32), np.ones((2, 3), np.float32)]
    np.testing.assert_array_equal(again.predict(x, verbose=0), model.predict(x, verbose=0))


@tf.keras.utils.register_keras_serializable(package="FormatsTest")
class Net(tf.keras.Model):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.encoder = layers.Dense(5, activation="relu")
        self.blocks = [layers.Dense(4), layers.Dense(4)]
        self.head = layers.Dense(2)

    def call(self, x):
        x = self.encoder(x)
        for block in self.blocks:
            x = block(x)
        return self.head(x)


def test_a_subclassed_models_layers_are_stored_by_attribute(tmp_path):
    """As Keras 3 walks them (real Keras 3.15 writes exactly these paths for Net)."""
    h5py_or_skip()
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    model = Net()
    model(x)
    model.save_weights(tmp_path / "net.weights.h5")
    tree = h5_tree(tmp_path / "net.weights.h5")
    assert sorted(k for k, v in tree.items() if isinstance(v, tuple)) == [
        "blocks/dense/vars/0", "blocks/dense/vars/1", "blocks/dense_1/vars/0",
        "blocks/dense_1/vars/1", "encoder/vars/0", "encoder/vars/1", "head/vars/0",
        "head/vars/1"]
    assert tree["blocks/dense_1/vars/0"] == (4, 4) and tree["encoder/vars/0"] == (3, 5)
    other = Net()
    other(x)
    other.load_weights(tmp_path / "net.weights.h5")
    np.testing.assert_array_equal(other(x).numpy(), model(x).numpy())
    model.save(tmp_path / "net.keras")  # rebuilt from its registered class and shape
    with zipfile.ZipFile(tmp_path / "net.keras") as archive:
        config = json.loads(archive.read("config.json"))
    assert config["registered_name"] == "FormatsTest>Net"
    assert config["build_config"] == {"input_shape": [4, 3]}
    np.testing.assert_array_equal(tf.keras.models.load_model(tmp_path / "net.keras")(x).numpy(),
                                  model(x).numpy())


def test_weights_h5_round_trip_resumes_training_bit_for_bit(tmp_path):
    h5py_or_skip()
    x, y = data()
    straight = make_model()
    straight.fit(x, y, epochs=2, batch_size=16, shuffle=False, verbose=0)
    first = make_model()
    first.fit(x, y, epochs=1, batch_size=16, shuffle=False, verbose=0)
    first.save_weights(tmp_path / "w.weights.h5")
    resumed = make_model(seed=7)
    resumed.load_weights(tmp_path / "w.weights.h5")
    assert int(resumed.optimizer.iterations.numpy()) == 4
    resumed.fit(x, y, epochs=1, batch_size=16, shuffle=False, verbose=0)
    for a, b in zip(straight.get_weights(), resumed.get_weights()):
        np.testing.assert_array_equal(a, b)


REAL_KERAS_CONFIG = {
    "module": "keras", "class_name": "Sequential", "registered_name": None,
    "config": {"name": "sequential", "trainable": True, "dtype": {
        "module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
        "registered_name": None}, "layers": [
        {"module": "keras.layers", "class_name": "InputLayer", "registered_name": None,
         "config": {"batch_shape": [None, 4], "dtype": "float32", "sparse": False,
                    "ragged": False, "name": "input_layer", "optional": False}},
        {"module": "keras.layers", "class_name": "Dense", "registered_name": None,
         "build_config": {"input_shape": [None, 4]},
         "config": {"name": "dense", "trainable": True, "dtype": {
             "module": "keras", "class_name": "DTypePolicy", "config": {"name": "float32"},
             "registered_name": None}, "units": 8, "activation": "relu", "use_bias": True,
             "kernel_initializer": {"module": "keras.initializers", "class_name": "GlorotUniform",
                                    "config": {"seed": None, "input_axes": None,
                                               "output_axes": None}, "registered_name": None},
             "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros",
                                  "config": {}, "registered_name": None},
             "kernel_regularizer": None, "bias_regularizer": None, "kernel_constraint": None,
             "bias_constraint": None, "quantization_config": None}},
        {"module": "keras.layers", "class_name": "Dense", "registered_name": None,
         "build_config": {"input_shape": [None, 8]},
         "config": {"name": "dense_1", "trainable": True, "dtype": "float32", "units": 3,
                    "activation": "linear", "use_bias": True, "kernel_initializer": {
                        "module": "keras.initializers", "class_name": "GlorotUniform",
                        "config": {"seed": None}, "registered_name": None},
                    "bias_initializer": {"module": "keras.initializers", "class_name": "Zeros",
                                         "config": {}, "registered_name": None},
                    "kernel_regularizer": None, "bias_regularizer": None,
                    "kernel_constraint": None, "bias_constraint": None,
                    "quantization_config": None}}],
        "build_input_shape": [None, 4]},
    "build_config": {"input_shape": [None, 4]},
    "compile_config": {"optimizer": {
        "module": "keras.optimizers", "class_name": "SGD", "registered_name": None,
        "config": {"name": "SGD", "learning_rate": 0.5, "weight_decay": None, "clipnorm": None,
                   "global_clipnorm": None, "clipvalue": None, "use_ema": False,
                   "ema_momentum": 0.99, "ema_overwrite_frequency": None,
                   "loss_scale_factor": None, "gradient_accumulation_steps": None,
                   "momentum": 0.0, "nesterov": False}},
        "loss": "mse", "loss_weights": None, "metrics": ["mae"], "weighted_metrics": None,
        "run_eagerly": False, "steps_per_execution": 1, "jit_compile": True}}


def keras_weights():
    rng = np.random.default_rng(0)
    return [rng.normal(size=s).astype(np.float32) for s in [(4, 8), (8,), (8, 3), (3,)]]


def write_keras_archive(path, config, weights, h5py):
    """A .keras file as Keras 3 writes one: stored members, the HDF5 layout by class."""
    import io
    buffer = io.BytesIO()
    with h5py.File(buffer, "w") as f:
        f.create_group("vars").attrs["name"] = "sequential"
        for group, pair in (("dense", weights[:2]), ("dense_1", weights[2:])):
            vars_group = f.create_group(f"layers/{group}/vars")
            vars_group.attrs["name"] = group
            for i, value in enumerate(pair):
                vars_group.create_dataset(str(i), data=value)
        opt = f.create_group("optimizer/vars")
        opt.attrs["name"] = "SGD"
        opt.create_dataset("0", data=np.int32(5))  # Keras on JAX counts in int32
        opt.create_dataset("1", data=np.float32(0.5))
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("metadata.json", json.dumps({"keras_version": "3.15.1"}))
        archive.writestr("config.json", json.dumps(config))
        archive.writestr("model.weights.h5", buffer.getvalue())


def expected_prediction(x, w):
    return np.maximum(x @ w[0] + w[1], 0) @ w[2] + w[3]


def test_load_model_reads_a_keras_3_archive(tmp_path):
    h5py = h5py_or_skip()
    weights = keras_weights()
    write_keras_archive(tmp_path / "k.keras", REAL_KERAS_CONFIG, weights, h5py)
    model = tf.keras.models.load_model(tmp_path / "k.keras")
    assert [layer.name for layer in model.layers] == ["dense", "dense_1"]
    assert type(model.optimizer).__name__ == "SGD"
    assert np.isclose(float(model.optimizer.learning_rate.numpy()), 0.5)
    assert int(model.optimizer.iterations.numpy()) == 5
    x = np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(model.predict(x, verbose=0), expected_prediction(x, weights),
                               rtol=1e-5, atol=1e-6)
    # The same file's weights alone, into a model built in code.
    other = tf.keras.Sequential([tf.keras.Input(shape=(4,)), layers.Dense(8, "relu"),
                                 layers.Dense(3)])
    other.load_weights(tmp_path / "k.keras")
    np.testing.assert_allclose(other.predict(x, verbose=0), expected_prediction(x, weights),
                               rtol=1e-5, atol=1e-6)


def test_a_keras_config_option_tapeflow_lacks_is_named(tmp_path):
    h5py = h5py_or_skip()
    config = json.loads(json.dumps(REAL_KERAS_CONFIG))
    config["config"]["layers"][1]["config"]["lora_rank"] = 4
    write_keras_archive(tmp_path / "k.keras", config, keras_weights(), h5py)
    with pytest.raises(ValueError, match=r"layer 'dense' \(Dense\).*lora_rank.*4"):
        tf.keras.models.load_model(tmp_path / "k.keras")


@tf.keras.utils.register_keras_serializable(package="FormatsTest")
def doubled_tanh(x):
    return 2.0 * tf.math.tanh(x)


def test_a_registered_activation_is_stored_as_keras_stores_it(tmp_path):
    h5py_or_skip()
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)),
                                 layers.Dense(2, activation=doubled_tanh)])
    model.save(tmp_path / "a.keras")
    with zipfile.ZipFile(tmp_path / "a.keras") as archive:
        config = json.loads(archive.read("config.json"))
    dense = config["config"]["layers"][1]
    assert dense["config"]["activation"]["class_name"] == "function"
    assert dense["config"]["activation"]["registered_name"] == "FormatsTest>doubled_tanh"
    x = np.array([[0.5, -1.0, 2.0]], np.float32)
    loaded = tf.keras.models.load_model(tmp_path / "a.keras")
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), model.predict(x, verbose=0))
    # Keras 3.15 itself writes the registered name as "config" (registered_name "function").
    dense["config"]["activation"] = {"module": "builtins", "class_name": "function",
                                     "config": "FormatsTest>doubled_tanh",
                                     "registered_name": "function"}
    from tapeflow.models import keras_reader
    rebuilt = keras_reader.model_from_keras(config)
    assert rebuilt.layers[0].activation is doubled_tanh


def test_saved_keras_archive_has_keras_members_and_config(tmp_path):
    h5py_or_skip()
    model = make_model()
    model.save(tmp_path / "m.keras")
    with zipfile.ZipFile(tmp_path / "m.keras") as archive:
        assert sorted(archive.namelist()) == ["config.json", "metadata.json",
                                              "model.weights.h5"]
        config = json.loads(archive.read("config.json"))
    assert {"module", "class_name", "config", "registered_name", "build_config",
            "compile_config"} <= set(config)
    assert config["class_name"] == "Sequential" and config["module"] == "keras"
    first, dense = config["config"]["layers"][:2]
    assert first["class_name"] == "InputLayer" and first["config"]["batch_shape"] == [None, 4]
    assert dense["module"] == "keras.layers" and dense["config"]["units"] == 8
    assert dense["config"]["kernel_initializer"]["module"] == "keras.initializers"
    assert dense["build_config"] == {"input_shape": [None, 4]}
    assert config["compile_config"]["optimizer"]["class_name"] == "Adam"


def test_functional_model_with_a_shared_layer_round_trips(tmp_path):
    h5py_or_skip()
    tf.random.set_seed(0)
    a, b = tf.keras.Input(shape=(3,), name="a"), tf.keras.Input(shape=(3,), name="b")
    shared = layers.Dense(2, name="shared")
    out = layers.Dense(1, name="head")(layers.Concatenate()([shared(a), shared(b)]))
    model = tf.keras.Model([a, b], out)
    model.save(tmp_path / "f.keras")
    with zipfile.ZipFile(tmp_path / "f.keras") as archive:
        config = json.loads(archive.read("config.json"))["config"]
    nodes = {spec["name"]: spec["inbound_nodes"] for spec in config["layers"]}
    assert len(nodes["shared"]) == 2
    concat = [n for n in nodes if n.startswith("concatenate")][0]
    histories = [t["config"]["keras_history"] for t in nodes[concat][0]["args"][0]]
    assert histories == [["shared", 0, 0], ["shared", 1, 0]]
    assert config["input_layers"] == [["a", 0, 0], ["b", 0, 0]]
    loaded = tf.keras.models.load_model(tmp_path / "f.keras")
    xa, xb = np.ones((2, 3), np.float32), np.arange(6, dtype=np.float32).reshape(2, 3)
    np.testing.assert_array_equal(model.predict([xa, xb], verbose=0),
                                  loaded.predict([xa, xb], verbose=0))


def test_keras_3_file_of_another_architecture_names_layer_and_weight(tmp_path):
    h5py_or_skip()
    make_model().save_weights(tmp_path / "w.weights.h5")
    tf.random.set_seed(1)
    wider = tf.keras.Sequential([tf.keras.Input(shape=(4,)), layers.Dense(9),
                                 layers.BatchNormalization(), layers.Dense(3)])
    before = wider.get_weights()
    with pytest.raises(ValueError, match=r"layer 'dense_\d+' at weight '.*kernel'.*\(4, 9\)"
                                         r".*\(4, 8\).*layers/dense/vars/0"):
        wider.load_weights(tmp_path / "w.weights.h5")
    for a, b in zip(before, wider.get_weights()):
        np.testing.assert_array_equal(a, b)
    shorter = tf.keras.Sequential([tf.keras.Input(shape=(4,)), layers.Dense(8)])
    with pytest.raises(ValueError, match="different architecture.*batch_normalization"):
        shorter.load_weights(tmp_path / "w.weights.h5")


# -- crafted files -------------------------------------------------------------------------
def test_hdf5_shape_bombs_links_and_strange_dtypes_are_refused(tmp_path):
    h5py = h5py_or_skip()
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), layers.Dense(8)])
    before = model.get_weights()
    cases = {
        "bomb": lambda g: g.create_dataset("0", shape=(1 << 20, 1 << 20), dtype="f8",
                                           chunks=(64, 64), compression="gzip"),
        "text": lambda g: g.create_dataset("0", data=np.array([b"rm -rf"])),
        "complex": lambda g: g.create_dataset("0", data=np.zeros((4, 8), np.complex64)),
        "link": lambda g: g.__setitem__("0", h5py.SoftLink("/elsewhere")),
        "external": lambda g: g.__setitem__("0", h5py.ExternalLink("/etc/passwd", "/x")),
    }
    messages = {"bomb": "shape bomb", "text": "dtype", "complex": "dtype",
                "link": "SoftLink", "external": "ExternalLink"}
    for case, make in cases.items():
        path = tmp_path / f"{case}.weights.h5"
        with h5py.File(path, "w") as f:
            group = f.create_group("layers/dense/vars")
            make(group)
            group.create_dataset("1", data=np.zeros(8, np.float32))
        with pytest.raises(ValueError, match=messages[case]):
            model.load_weights(path)
        for a, b in zip(before, model.get_weights()):
            np.testing.assert_array_equal(a, b)


# -- without h5py ---------------------------------------------------------------------------
def test_without_h5py_keras_files_name_the_extra_and_tapeflow_files_work(tmp_path, monkeypatch,
                                                                        caplog):
    monkeypatch.setitem(sys.modules, "h5py", None)  # `import h5py` raises ImportError
    monkeypatch.setattr(saving, "_warned", [])
    model = make_model()
    with pytest.raises(ImportError, match=r"pip install 'tapeflow\[h5\]'"):
        model.save_weights(tmp_path / "w.weights.h5")
    (tmp_path / "k.h5").write_bytes(b"\x89HDF\r\n\x1a\n" + bytes(64))
    with pytest.raises(ImportError, match=r"tapeflow\[h5\]"):
        model.load_weights(tmp_path / "k.h5")
    with zipfile.ZipFile(tmp_path / "k.keras", "w") as archive:
        archive.writestr("config.json", json.dumps(REAL_KERAS_CONFIG))
        archive.writestr("model.weights.h5", b"\x89HDF\r\n\x1a\n")
    with pytest.raises(ImportError, match=r"tapeflow\[h5\]"):
        tf.keras.models.load_model(tmp_path / "k.keras")
    model.save(tmp_path / "own.keras")  # tapeflow's zip, with a warning naming the extra
    assert "tapeflow[h5]" in caplog.text
    loaded = tf.keras.models.load_model(tmp_path / "own.keras")
    for a, b in zip(model.get_weights(), loaded.get_weights()):
        np.testing.assert_array_equal(a, b)
    model.save_weights(tmp_path / "w.weights.npz")
    loaded.load_weights(tmp_path / "w.weights.npz")


# -- real Keras (optional) ------------------------------------------------------------------
def keras_python():
    if importlib.util.find_spec("keras") is not None:
        return sys.executable
    return os.environ.get("KERAS_PYTHON") or pytest.skip(
        "keras is not installed (set KERAS_PYTHON to an interpreter that has it)")


KERAS_SCRIPT = """
import os, sys
os.environ.setdefault("KERAS_BACKEND", "jax")
import numpy as np, keras
d = sys.argv[1]
x = np.load(os.path.join(d, "x.npy"))
m = keras.models.load_model(os.path.join(d, "tapeflow.keras"))
np.save(os.path.join(d, "keras_reads_tapeflow.npy"), m.predict(x, verbose=0))
m.load_weights(os.path.join(d, "tapeflow.weights.h5"))
np.save(os.path.join(d, "keras_reads_weights.npy"), m.predict(x, verbose=0))
keras.utils.set_random_seed(4)
k = keras.Sequential([keras.Input((4,)), keras.layers.Dense(6, activation="tanh"),
                      keras.layers.BatchNormalization(), keras.layers.Dense(2)])
k.compile(keras.optimizers.Adam(0.01), "mse")
k.fit(np.random.rand(32, 4), np.random.rand(32, 2), verbose=0, epochs=2)
k.save(os.path.join(d, "keras.keras")); k.save_weights(os.path.join(d, "keras.weights.h5"))
np.save(os.path.join(d, "keras_prediction.npy"), k.predict(x, verbose=0))
"""


def test_round_trip_with_real_keras(tmp_path):
    python = keras_python()
    h5py_or_skip()
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    np.save(tmp_path / "x.npy", x)
    model = make_model()
    model.fit(*data(), epochs=1, batch_size=16, verbose=0)
    model.save(tmp_path / "tapeflow.keras")
    model.save_weights(tmp_path / "tapeflow.weights.h5")
    subprocess.run([python, "-c", KERAS_SCRIPT, str(tmp_path)], check=True, timeout=600,
                   capture_output=True)
    ours = model.predict(x, verbose=0)
    for name in ("keras_reads_tapeflow.npy", "keras_reads_weights.npy"):
        np.testing.assert_allclose(np.load(tmp_path / name), ours, rtol=1e-5, atol=1e-6)
    theirs = np.load(tmp_path / "keras_prediction.npy")
    loaded = tf.keras.models.load_model(tmp_path / "keras.keras")
    np.testing.assert_allclose(loaded.predict(x, verbose=0), theirs, rtol=1e-5, atol=1e-6)
    assert int(loaded.optimizer.iterations.numpy()) == 2  # 2 epochs of one 32-row batch
    built = tf.keras.Sequential([tf.keras.Input(shape=(4,)), layers.Dense(6, "tanh"),
                                 layers.BatchNormalization(), layers.Dense(2)])
    built.load_weights(tmp_path / "keras.weights.h5")
    np.testing.assert_allclose(built.predict(x, verbose=0), theirs, rtol=1e-5, atol=1e-6)


ZOO = """
import numpy as np


def zoo(keras):
    L = keras.layers

    @keras.saving.register_keras_serializable(package="Zoo")
    class Net(keras.Model):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.encoder = L.Dense(5, activation="relu")
            self.blocks = [L.Dense(4), L.BatchNormalization()]

        def call(self, x):
            x = self.encoder(x)
            for block in self.blocks:
                x = block(x)
            return x
    net = Net()
    net(np.zeros((1, 6), "float32"))
    q = keras.Input((4, 8))
    return {
        "subclassed": net,
        "conv": keras.Sequential([keras.Input((8, 8, 3)), L.Conv2D(4, 3, padding="same"),
                                  L.BatchNormalization(), L.ReLU(), L.MaxPooling2D(),
                                  L.DepthwiseConv2D(3), L.Flatten(), L.Dense(3)]),
        "rnn": keras.Sequential([keras.Input((5,)), L.Embedding(10, 4),
                                 L.LSTM(3, return_sequences=True), L.Bidirectional(L.GRU(2))]),
        "attention": keras.Model(q, L.Dense(2)(L.LayerNormalization()(
            L.Add()([q, L.MultiHeadAttention(2, 4)(q, q)])))),
    }
"""
ZOO_SCRIPT = ZOO + """
import os, sys
os.environ.setdefault("KERAS_BACKEND", "jax")
import numpy as np, keras
d = sys.argv[1]
for name, model in zoo(keras).items():
    x = np.load(os.path.join(d, name + "_x.npy"))
    for ext in (".keras",) if name == "subclassed" else (".keras", ".h5"):
        theirs = keras.models.load_model(os.path.join(d, "tf_" + name + ext))
        np.save(os.path.join(d, "keras_reads_" + name + ext + ".npy"),
                theirs.predict(x, verbose=0))
        model.save(os.path.join(d, "k_" + name + ext))
    np.save(os.path.join(d, "k_" + name + ".npy"), model.predict(x, verbose=0))
"""


def test_layer_zoo_moves_both_ways_with_real_keras(tmp_path):
    """A registered subclassed model, convolutions, batch norm, recurrent layers, a
    wrapper and attention (whose weights Keras keeps in sublayers), built by the same
    code in both libraries, cross as .keras and (but the subclassed one) as the legacy
    .h5 model file."""
    python = keras_python()
    h5py_or_skip()
    scope = {}
    exec(ZOO, scope)
    rng = np.random.default_rng(0)
    inputs = {"subclassed": rng.random((3, 6), dtype=np.float32),
              "conv": rng.random((2, 8, 8, 3), dtype=np.float32),
              "rnn": rng.integers(0, 10, (2, 5)).astype(np.int32),
              "attention": rng.random((2, 4, 8), dtype=np.float32)}
    ours = {}
    for name, model in scope["zoo"](tf.keras).items():
        np.save(tmp_path / f"{name}_x.npy", inputs[name])
        model.save(tmp_path / f"tf_{name}.keras")
        if name != "subclassed":
            model.save(tmp_path / f"tf_{name}.h5")  # Keras's legacy HDF5 model file
        ours[name] = model.predict(inputs[name], verbose=0)
    subprocess.run([python, "-c", ZOO_SCRIPT, str(tmp_path)], check=True, timeout=600,
                   capture_output=True)
    for (name, x), ext in itertools.product(inputs.items(), (".keras", ".h5")):
        if name == "subclassed" and ext == ".h5":
            continue
        np.testing.assert_allclose(np.load(tmp_path / f"keras_reads_{name}{ext}.npy"),
                                   ours[name], rtol=1e-4, atol=1e-5)
        loaded = tf.keras.models.load_model(tmp_path / f"k_{name}{ext}")
        np.testing.assert_allclose(loaded.predict(x, verbose=0),
                                   np.load(tmp_path / f"k_{name}.npy"), rtol=1e-4, atol=1e-5)


def test_recurrent_layer_options_survive_a_keras_file(tmp_path):
    """LSTM(use_bias=False) (the ragged guide's model): the cell's options that the layer
    passes on must not be dropped as unknown when the file is read."""
    pytest.importorskip("h5py")
    model = tf.keras.Sequential([tf.keras.Input((5, 3)), tf.keras.layers.LSTM(4, use_bias=False),
                                 tf.keras.layers.Dense(1)])
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    assert [w.name for w in loaded.weights] == [w.name for w in model.weights]
    x = np.random.default_rng(0).random((2, 5, 3), dtype=np.float32)
    np.testing.assert_allclose(loaded(x).numpy(), model(x).numpy(), rtol=1e-6)
