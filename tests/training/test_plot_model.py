"""tf.keras.utils.plot_model / model_to_dot: the boxes and edges Keras 3 draws
(keras/src/utils/model_visualization.py), the image written, and the errors
without pydot or Graphviz."""

import shutil
import sys

import pytest

import tapeflow as tf
from tapeflow.utils.plot_model import graph_of  # the module; utils.plot_model is the function

layers = tf.keras.layers


def functional():
    a = tf.keras.Input(shape=(3,), name="a")
    b = tf.keras.Input(shape=(2,), name="b")
    h = layers.Concatenate(name="cat")([layers.Dense(4, activation="relu", name="d1")(a), b])
    return tf.keras.Model([a, b], layers.Dense(1, name="out")(h))


def test_boxes_and_edges_of_a_functional_and_a_sequential_model():
    boxes, edges = graph_of(functional())
    names = {key: box["name"] for key, box in boxes.items()}
    assert sorted(names.values()) == ["a", "b", "cat", "d1", "out"]
    assert sorted((names[s], names[d]) for s, d in edges) == [
        ("a", "d1"), ("b", "cat"), ("cat", "out"), ("d1", "cat")]
    by_name = {box["name"]: box for box in boxes.values()}
    assert by_name["cat"]["input_shape"] == [(None, 4), (None, 2)]
    assert by_name["cat"]["output_shape"] == [(None, 6)]
    assert by_name["a"]["class_name"] == "InputLayer"

    seq = tf.keras.Sequential([tf.keras.Input(shape=(4,)), layers.Dense(3, name="s1"),
                               layers.Dense(2, name="s2")])
    boxes, edges = graph_of(seq)  # no input box for a Sequential, as Keras
    assert [box["name"] for box in boxes.values()] == ["s1", "s2"]
    assert [(boxes[s]["name"], boxes[d]["name"]) for s, d in edges] == [("s1", "s2")]


def test_model_to_dot_labels(monkeypatch):
    pytest.importorskip("pydot", reason="pydot is an optional dependency of plot_model")
    dot = tf.keras.utils.model_to_dot(functional(), show_shapes=True, show_dtype=True,
                                      show_layer_names=True, show_layer_activations=True,
                                      show_trainable=True, rankdir="LR", dpi=72)
    text = dot.to_string()
    assert "rankdir=LR" in text and "dpi=72" in text
    assert "<b>cat</b> (Concatenate)" in text
    assert "Input shape: <b>[(None, 4), (None, 2)]</b>" in text
    assert "Output shape: <b>(None, 6)</b>" in text
    assert "Activation: <b>relu</b>" in text and "Output dtype: <b>float32</b>" in text
    assert len(dot.get_edges()) == 4
    plain = tf.keras.utils.model_to_dot(functional(), show_layer_names=False).to_string()
    assert "<b>Concatenate</b>" in plain and "Input shape" not in plain


def test_plot_model_writes_the_image(tmp_path):
    pytest.importorskip("pydot", reason="pydot is an optional dependency of plot_model")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot program is not installed")
    path = tmp_path / "model.png"
    tf.keras.utils.plot_model(functional(), to_file=str(path), show_shapes=True)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    tf.keras.utils.plot_model(functional(), to_file=tmp_path / "model.svg", rankdir="LR")
    assert b"<svg" in (tmp_path / "model.svg").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.png", "model.svg"]


def test_errors_name_pydot_and_graphviz(monkeypatch, tmp_path):
    model = functional()
    for name in ("pydot", "pydot_ng", "pydotplus"):
        monkeypatch.setitem(sys.modules, name, None)
    with pytest.raises(ImportError, match=r"pip install pydot.*graphviz"):
        tf.keras.utils.plot_model(model, to_file=str(tmp_path / "m.png"))
    monkeypatch.undo()
    pydot = pytest.importorskip("pydot", reason="pydot is an optional dependency")

    def no_dot(*args, **kwargs):
        raise FileNotFoundError('"dot" not found in path.')
    monkeypatch.setattr(pydot.Dot, "create", no_dot)
    with pytest.raises(ImportError, match=r"graphviz.*`dot` did not run"):
        tf.keras.utils.plot_model(model, to_file=str(tmp_path / "m.png"))
    assert list(tmp_path.iterdir()) == []


def test_bad_arguments():
    with pytest.raises(ValueError, match="has not yet been built"):
        tf.keras.utils.plot_model(tf.keras.Sequential([layers.Dense(2)]))
    pytest.importorskip("pydot", reason="pydot is an optional dependency of plot_model")
    if shutil.which("dot") is None:
        pytest.skip("Graphviz's dot program is not installed")
    with pytest.raises(ValueError, match="Unrecognized keyword arguments.*colour"):
        tf.keras.utils.plot_model(functional(), colour="red")
    with pytest.raises(ValueError, match="rankdir.*'XY'"):
        tf.keras.utils.plot_model(functional(), rankdir="XY")


def test_expand_nested_draws_a_cluster_entered_and_left_at_its_ends():
    pytest.importorskip("pydot", reason="pydot is an optional dependency of plot_model")
    inner = tf.keras.Sequential([tf.keras.Input(shape=(4,)), layers.Dense(5, name="i1"),
                                 layers.Dense(3, name="i2")], name="inner")
    x = tf.keras.Input(shape=(4,), name="x")
    model = tf.keras.Model(x, layers.Dense(2, name="head")(inner(x)))
    ids = {str(id(layer)): layer.name for layer in [inner.layers[0], inner.layers[1],
                                                    model.layers[-1], inner]}
    ids.update({str(id(t)): t.name for t in tf.nest.flatten(model.inputs)})

    def edges(dot):
        found = list(dot.get_edges())
        for sub in dot.get_subgraphs():
            found += sub.get_edges()
        return sorted((ids[e.get_source()], ids[e.get_destination()]) for e in found)
    flat = tf.keras.utils.model_to_dot(model)
    assert edges(flat) == [("inner", "head"), ("x", "inner")]
    nested = tf.keras.utils.model_to_dot(model, expand_nested=True)
    assert [sub.get_name() for sub in nested.get_subgraphs()] == ["cluster_inner"]
    assert edges(nested) == [("i1", "i2"), ("i2", "head"), ("x", "i1")]
