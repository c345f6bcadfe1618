"""Import paths that users, pickles and saved files name keep working after the
move to the layered layout (ARCHITECTURE.md), and the pieces the move added:
the layer class registry behind `tf.keras.layers.serialize`/`deserialize`, and
pausing the recording stack."""

import importlib
import io
import pickle
import pickletools

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.core import record
from tapeflow.layers import serialization


@pytest.mark.parametrize("path, names", [
    ("tapeflow.losses", ["Loss", "MeanSquaredError", "mse", "get", "serialize"]),
    ("tapeflow.metrics", ["Metric", "Mean", "Accuracy", "AUC", "get"]),
    ("tapeflow.callbacks", ["Callback", "CallbackList", "History", "EarlyStopping",
                            "ModelCheckpoint", "ProgbarLogger"]),
    ("tapeflow.models", ["Model", "Sequential", "Input", "load_model"]),
    ("tapeflow.testing", ["gradcheck", "compute_gradient"]),
    ("tapeflow.layers", ["Layer", "Dense", "Input", "InputLayer", "serialize", "deserialize"]),
    ("tapeflow.optimizers", ["SGD", "Adam"]),
    ("tapeflow.initializers", ["GlorotUniform"]),
    ("tapeflow.activations", ["relu"]),
    ("tapeflow.math", ["reduce_sum", "exp"]),
    ("tapeflow.nn", ["relu", "conv2d"]),
    ("tapeflow.linalg", ["matmul"]),
    ("tapeflow.random", ["normal"]),
    ("tapeflow.data", ["Dataset"]),
    ("tapeflow.dtypes", ["float32", "as_dtype", "DType"]),
    ("tapeflow.errors", ["InvalidArgumentError"]),
    ("tapeflow.nest", ["flatten", "map_structure"]),
])
def test_public_module_paths_import(path, names):
    module = importlib.import_module(path)
    assert [n for n in names if not hasattr(module, n)] == []


def test_namespace_aliases_are_the_core_modules():
    # `import tapeflow.dtypes` and `tf.dtypes` are one module, with its private state.
    import tapeflow.dtypes
    import tapeflow.core.dtypes
    assert tapeflow.dtypes is tapeflow.core.dtypes is tf.dtypes
    assert importlib.import_module("tapeflow.nest") is tf.nest
    assert tf.keras.losses is importlib.import_module("tapeflow.losses")
    assert tf.keras.models.Sequential is tf.keras.Sequential


def test_pickles_written_before_the_move_still_load():
    # Before the move, a pickled tensor named tapeflow.tensor.constant and a variable
    # tapeflow.tensor._rebuild_variable. Protocol 0 spells globals as plain lines,
    # so today's pickles rewritten to the old module name are exactly the old ones.
    def as_before_the_move(value):
        data = pickle.dumps(value, protocol=0)
        assert b"ctapeflow.core.tensor\n" in data
        return data.replace(b"ctapeflow.core.tensor\n", b"ctapeflow.tensor\n")

    assert pickle.loads(as_before_the_move(tf.constant(7))).numpy() == 7
    v = pickle.loads(as_before_the_move(tf.Variable([1.0, 2.0], name="w")))
    assert v.name == "w:0" and list(v.numpy()) == [1.0, 2.0]


def test_new_pickles_round_trip():
    for value in (tf.constant([[1, 2]]), tf.Variable(3.0, name="x", trainable=False)):
        data = pickle.dumps(value)
        pickletools.dis(data, out=io.StringIO())  # well-formed
        back = pickle.loads(data)
        assert type(back) is type(value) and np.array_equal(back.numpy(), value.numpy())


def test_deserialize_finds_every_builtin_layer_without_imports():
    spec = tf.keras.layers.serialize(tf.keras.layers.Dense(3, activation="relu", name="d"))
    assert spec["class_name"] == "Dense" and spec["config"]["units"] == 3
    layer = tf.keras.layers.deserialize(spec)
    assert type(layer) is tf.keras.layers.Dense and layer.units == 3 and layer.name == "d"
    wrapped = tf.keras.layers.Bidirectional(tf.keras.layers.LSTM(4))
    clone = tf.keras.layers.Bidirectional.from_config(wrapped.get_config())
    assert type(clone.forward_layer) is tf.keras.layers.LSTM
    assert serialization.registered_class("Sequential") is tf.keras.Sequential
    assert serialization.registered_class("Functional") is tf.keras.Model


def test_user_classes_come_only_through_custom_objects():
    class Dense(tf.keras.layers.Layer):  # a user's class may reuse a built-in's name
        def __init__(self, units=1, **kwargs):
            super().__init__(**kwargs)
            self.units = units

        def get_config(self):
            return {**super().get_config(), "units": self.units}

    assert serialization.registered_class("Dense") is tf.keras.layers.Dense
    spec = {"class_name": "Dense", "config": {"units": 5}}
    assert type(tf.keras.layers.deserialize(spec)) is tf.keras.layers.Dense
    assert type(tf.keras.layers.deserialize(spec, custom_objects={"Dense": Dense})) is Dense
    with pytest.raises(ValueError, match=r"Unknown layer class 'Mystery'.*custom_objects"):
        tf.keras.layers.deserialize({"class_name": "Mystery", "config": {}})


def test_two_tapeflow_classes_with_one_name_are_refused():
    with pytest.raises(TypeError, match="Two tapeflow layer classes are named 'Dense'"):
        type("Dense", (tf.keras.layers.Layer,), {"__module__": "tapeflow.layers.elsewhere"})


def test_paused_hides_the_recording_stack_and_restores_it_in_order():
    x = tf.constant(2.0)
    with tf.GradientTape() as outer, tf.GradientTape() as inner:
        outer.watch(x)
        inner.watch(x)
        before = list(record._recording)
        with pytest.raises(RuntimeError):
            with record.paused():
                assert record._recording == []
                hidden = x * x  # recorded on no tape
                raise RuntimeError("restored on errors too")
        assert record._recording == before == [outer, inner]
        y = x * x
    assert inner.gradient(hidden, x) is None
    assert float(outer.gradient(y, x)) == 4.0
