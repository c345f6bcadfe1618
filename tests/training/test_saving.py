"""Weights files and whole-model files: round trips, resuming, bad and crafted files,
custom classes and safe mode (tapeflow's format, and Keras's where h5py is installed)."""

import json
import os
import sys
import zipfile

import numpy as np
import pytest

import tapeflow as tf

layers = tf.keras.layers


def make_model(seed=0):
    tf.random.set_seed(seed)
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), layers.Dense(8, activation="relu"),
                                 layers.Dense(3)])
    model.compile(tf.keras.optimizers.Adam(0.01),
                  tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    return model


def data():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(96, 4)).astype(np.float32)
    return x, (x[:, 0] + x[:, 1] > 0).astype(np.int32) + (x[:, 2] > 1)


def test_weights_round_trip(tmp_path):
    model, other = make_model(0), make_model(1)
    path = tmp_path / "model.weights.npz"
    model.save_weights(path)
    other.load_weights(path)
    for a, b in zip(model.get_weights(), other.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert not [p for p in os.listdir(tmp_path) if p.startswith(".tmp")]


def test_loading_a_mismatched_architecture_names_the_variable_and_leaves_the_model(tmp_path):
    model = make_model()
    path = tmp_path / "w.weights.npz"
    model.save_weights(path)
    tf.random.set_seed(5)
    wider = tf.keras.Sequential([tf.keras.Input(shape=(4,)), layers.Dense(9), layers.Dense(3)])
    before = [w.copy() for w in wider.get_weights()]
    with pytest.raises(ValueError, match=r"kernel.*\(4, 9\).*\(4, 8\)"):
        wider.load_weights(path)
    for a, b in zip(before, wider.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_corrupted_and_truncated_files_fail_clearly(tmp_path):
    model = make_model()
    path = tmp_path / "w.weights.npz"
    model.save_weights(path)
    raw = path.read_bytes()
    (tmp_path / "cut.npz").write_bytes(raw[: len(raw) // 2])
    with pytest.raises(ValueError, match="truncated, corrupted"):
        model.load_weights(tmp_path / "cut.npz")
    with pytest.raises(ValueError, match="File not found: filepath=.*missing.keras"):
        tf.keras.models.load_model(tmp_path / "missing.keras")
    (tmp_path / "junk.keras").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="truncated, corrupted"):
        tf.keras.models.load_model(tmp_path / "junk.keras")
    with pytest.raises(ValueError, match=r"must end in `\.weights\.h5`.*model\.h5"):
        model.save_weights(tmp_path / "model.h5")  # Keras 3 writes only .weights.h5


def test_resuming_from_a_saved_model_matches_a_straight_run_bit_for_bit(tmp_path):
    x, y = data()
    straight = make_model()
    straight.fit(x, y, batch_size=16, epochs=3, verbose=0)

    first = make_model()
    first.fit(x, y, batch_size=16, epochs=2, verbose=0)
    first.save(tmp_path / "ckpt.keras")
    resumed = tf.keras.models.load_model(tmp_path / "ckpt.keras")
    resumed.fit(x, y, batch_size=16, epochs=3, initial_epoch=2, verbose=0)
    for a, b in zip(straight.get_weights(), resumed.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert int(resumed.optimizer.iterations.numpy()) == int(
        straight.optimizer.iterations.numpy())


def test_functional_model_round_trips_through_save(tmp_path):
    tf.random.set_seed(0)
    a = tf.keras.Input(shape=(3,))
    b = tf.keras.Input(shape=(2,))
    h = layers.Concatenate()([layers.Dense(4)(a), b])
    model = tf.keras.Model([a, b], layers.Dense(1)(h))
    model.compile("sgd", "mse")
    model.save(tmp_path / "f.keras")
    loaded = tf.keras.models.load_model(tmp_path / "f.keras")
    xa, xb = np.ones((2, 3), np.float32), np.ones((2, 2), np.float32)
    np.testing.assert_array_equal(model.predict([xa, xb], verbose=0),
                                  loaded.predict([xa, xb], verbose=0))


def test_backup_and_restore_resumes_an_interrupted_fit_exactly(tmp_path):
    x, y = data()
    straight = make_model()
    straight.fit(x, y, batch_size=16, epochs=4, verbose=0)

    class Interrupt(tf.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            if epoch == 2:
                raise KeyboardInterrupt

    model = make_model()
    backup = tf.keras.callbacks.BackupAndRestore(backup_dir=str(tmp_path / "backup"))
    with pytest.raises(KeyboardInterrupt):
        model.fit(x, y, batch_size=16, epochs=4, verbose=0, callbacks=[backup, Interrupt()])
    seen = []
    history = model.fit(x, y, batch_size=16, epochs=4, verbose=0, callbacks=[
        tf.keras.callbacks.BackupAndRestore(backup_dir=str(tmp_path / "backup")),
        tf.keras.callbacks.LambdaCallback(on_epoch_begin=lambda e, logs: seen.append(e))])
    assert seen == [2, 3] and len(history.history["loss"]) == 2
    for a, b in zip(straight.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("optimizer", ["adam", "rmsprop", "sgd-momentum"])
def test_a_model_saved_before_its_first_fit_loads_and_trains_as_the_original(
        tmp_path, optimizer):
    x, y = data()

    def compiled():
        tf.random.set_seed(0)
        model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), layers.Dense(5), layers.Dense(3)])
        model.compile(tf.keras.optimizers.SGD(0.05, momentum=0.9)
                      if optimizer == "sgd-momentum" else optimizer,
                      tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
        return model

    original = compiled()
    original.save(tmp_path / "new.keras")
    loaded = tf.keras.models.load_model(tmp_path / "new.keras")
    assert type(loaded.optimizer) is type(original.optimizer)
    assert not loaded.optimizer.built and int(loaded.optimizer.iterations.numpy()) == 0
    for model in (original, loaded):
        model.fit(x, y, batch_size=16, epochs=2, shuffle=False, verbose=0)
    for a, b in zip(original.get_weights(), loaded.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert int(loaded.optimizer.iterations.numpy()) == 12


def test_a_model_saved_at_every_point_of_its_life_loads_back(tmp_path):
    x, y = data()
    path = tmp_path / "m.keras"

    def round_trip(model):
        model.save(path)
        loaded = tf.keras.models.load_model(path)
        assert [w.shape for w in loaded.get_weights()] == [w.shape for w in model.get_weights()]
        for a, b in zip(model.get_weights(), loaded.get_weights()):
            np.testing.assert_array_equal(a, b)
        return loaded

    deferred = tf.keras.Sequential([layers.Dense(3)])  # no input shape: no weights yet
    assert round_trip(deferred).get_weights() == []
    deferred.compile("adam", "mse")
    assert round_trip(deferred).optimizer is not None
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)), layers.Dense(3)])
    assert round_trip(model).optimizer is None  # built, not compiled
    model.compile("adam", "mse")
    model.fit(x, np.eye(3, dtype=np.float32)[y], epochs=1, verbose=0)
    assert round_trip(model).optimizer.built  # trained: slots saved and restored
    model.compile(tf.keras.optimizers.SGD(0.1, momentum=0.9), "mse")  # a fresh optimizer
    assert not round_trip(model).optimizer.built


def test_archive_members_outside_the_target_are_refused(tmp_path):
    for name in ("../escape.json", "/etc/passwd", "a/../../b"):
        path = tmp_path / "evil.keras"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr("config.json", "{}")
            archive.writestr(name, "x")
        with pytest.raises(ValueError, match="Not allowed.*crafted archive"):
            tf.keras.models.load_model(path)
    assert sorted(os.listdir(tmp_path)) == ["evil.keras"]


def test_a_zip_bomb_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "bomb.keras"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("config.json", "{}")
        with archive.open("model.weights.npz", "w") as member:
            block = bytes(1 << 20)
            for _ in range(80):  # 80 MiB of zeros, about 80 KiB stored
                member.write(block)
    assert path.stat().st_size < 1 << 20
    with pytest.raises(ValueError, match="decompression bomb"):
        tf.keras.models.load_model(path)
    with pytest.raises(ValueError, match="decompression bomb"):
        make_model().load_weights(path)


# -- custom objects and safe mode ----------------------------------------------------------
@tf.keras.utils.register_keras_serializable(package="FormatsTest")
class Scale(tf.keras.layers.Layer):
    def __init__(self, factor=2.0, **kwargs):
        super().__init__(**kwargs)
        self.factor = factor

    def call(self, inputs):
        return inputs * self.factor

    def get_config(self):
        return dict(super().get_config(), factor=self.factor)


class Unregistered(Scale):
    pass


def h5py_or_skip():
    return pytest.importorskip("h5py", reason="h5py (the optional extra tapeflow[h5]) is "
                                              "not installed")


@pytest.mark.parametrize("with_h5py", [True, False])
def test_registered_and_custom_classes_load(tmp_path, monkeypatch, with_h5py):
    if with_h5py:
        h5py_or_skip()
    else:
        monkeypatch.setitem(sys.modules, "h5py", None)
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), Scale(3.0), layers.Dense(1)])
    model.save(tmp_path / "s.keras")
    loaded = tf.keras.models.load_model(tmp_path / "s.keras")
    assert type(loaded.layers[0]) is Scale and loaded.layers[0].factor == 3.0
    x = np.array([[1.0, 2.0]], np.float32)
    np.testing.assert_array_equal(model.predict(x, verbose=0), loaded.predict(x, verbose=0))
    other = tf.keras.Sequential([tf.keras.Input(shape=(2,)), Unregistered(0.5)])
    other.save(tmp_path / "u.keras")
    with pytest.raises(ValueError, match="Unregistered.*custom_objects"):
        tf.keras.models.load_model(tmp_path / "u.keras")
    loaded = tf.keras.models.load_model(tmp_path / "u.keras",
                                        custom_objects={"Unregistered": Unregistered})
    np.testing.assert_array_equal(loaded.predict(x, verbose=0), [[0.5, 1.0]])
    with tf.keras.utils.custom_object_scope({"Unregistered": Unregistered}):
        assert type(tf.keras.models.load_model(tmp_path / "u.keras").layers[0]) is Unregistered


def test_safe_mode_refuses_a_lambdas_bytecode(tmp_path):
    h5py_or_skip()
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), layers.Lambda(lambda t: t * 3.0 + 1.0)])
    model.save(tmp_path / "l.keras")
    with zipfile.ZipFile(tmp_path / "l.keras") as archive:
        function = json.loads(archive.read("config.json"))["config"]["layers"][1]["config"][
            "function"]
    assert function["class_name"] == "__lambda__" and function["config"]["code"]
    with pytest.raises(ValueError, match="`Lambda` layer whose `function` is a Python lambda.*"
                                         "safe_mode=False"):
        tf.keras.models.load_model(tmp_path / "l.keras")
    loaded = tf.keras.models.load_model(tmp_path / "l.keras", safe_mode=False)
    np.testing.assert_array_equal(loaded.predict(np.array([[1.0, 2.0]], np.float32), verbose=0),
                                  [[4.0, 7.0]])


def test_enable_unsafe_deserialization_lets_default_loads_take_the_bytecode(tmp_path,
                                                                            monkeypatch):
    h5py_or_skip()
    from tapeflow.models import keras_reader
    monkeypatch.setattr(keras_reader, "_unsafe_deserialization", [False])  # restored after
    model = tf.keras.Sequential([tf.keras.Input(shape=(2,)), layers.Lambda(lambda t: t - 1.0)])
    model.save(tmp_path / "l.keras")
    with pytest.raises(ValueError, match="safe_mode=False"):
        tf.keras.models.load_model(tmp_path / "l.keras")
    tf.keras.config.enable_unsafe_deserialization()
    loaded = tf.keras.models.load_model(tmp_path / "l.keras")
    np.testing.assert_array_equal(loaded.predict(np.array([[1.0, 2.0]], np.float32), verbose=0),
                                  [[0.0, 1.0]])
