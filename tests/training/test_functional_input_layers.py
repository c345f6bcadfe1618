"""A functional model's `layers` lists an InputLayer per input, where Keras 3 (and
Keras 2) list theirs: the orders below are TF 2.21's (Keras 3.15), printed by
the same code with `import tensorflow as tf`."""

import numpy as np
import pytest

import tapeflow as tf

keras = tf.keras


def _names(model):
    return [layer.name for layer in model.layers]


def test_inputs_are_listed_where_keras_lists_them():
    a, b = keras.Input((4,), name="a"), keras.Input((3,), name="b")
    h = keras.layers.Dense(5, name="d1")(a)
    h2 = keras.layers.Concatenate(name="cat")([h, b])
    c = keras.Input((2,), name="c")
    h3 = keras.layers.Concatenate(name="cat2")([keras.layers.Dense(2, name="d2")(h2), c])
    model = keras.Model([a, b, c], keras.layers.Dense(1, name="out")(h3))
    assert _names(model) == ["a", "d1", "b", "cat", "d2", "c", "cat2", "out"]
    assert [type(layer).__name__ == "InputLayer" for layer in model.layers] == [
        True, False, True, False, False, True, False, False]
    assert len(model.weights) == 6  # the InputLayers hold none


@pytest.mark.parametrize("build, expected", [
    # an input no output uses: depth 0, first there
    (lambda x, u: keras.Model([x, u], keras.layers.Dense(3, name="d")(x)),
     ["x", "unused", "d"]),
    # an output that is an input
    (lambda x, u: keras.Model(x, [x, keras.layers.Dense(3, name="d")(x)]), ["x", "d"]),
    # an input used twice, at different depths
    (lambda x, u: keras.Model(x, keras.layers.Add(name="add")(
        [keras.layers.Dense(4, name="h")(x), x])), ["x", "h", "add"]),
])
def test_the_order_of_unused_returned_and_skipped_inputs_is_keras(build, expected):
    model = build(keras.Input((4,), name="x"), keras.Input((2,), name="unused"))
    assert _names(model) == expected


def test_a_listed_input_layer_is_a_layer_without_weights():
    x = keras.Input((4,), name="pixels")
    model = keras.Model(x, keras.layers.Dense(3, name="dense")(x))
    first = model.layers[0]
    assert isinstance(first, keras.layers.InputLayer)
    assert not isinstance(model.layers[1], keras.layers.InputLayer)
    assert model.get_layer(index=0) is first and model.get_layer("pixels") is first
    assert model.layers[0] is first  # the same object at every call: its flags stay
    model.layers.pop()  # a new list at every call, as Keras's
    assert [layer.name for layer in model.layers] == ["pixels", "dense"]
    assert first.output is x and first.input is x
    assert first.weights == [] and first.trainable_weights == [] and first.get_weights() == []
    assert first.count_params() == 0 and first.built
    assert first.get_config() == {"batch_shape": (None, 4), "dtype": "float32",
                                  "sparse": False, "ragged": False, "name": "pixels",
                                  "optional": False}
    first.trainable = False  # as in `for layer in model.layers[:k]: layer.trainable = False`
    assert len(model.trainable_weights) == 2
    first.set_weights([])
    with pytest.raises(ValueError, match="'pixels' has no weights; got 1"):
        first.set_weights([np.zeros(3)])
    # a model from a listed InputLayer's output builds on the same graph
    again = keras.Model(model.layers[0].output, model.layers[1].output)
    np.testing.assert_array_equal(again(np.ones((2, 4), np.float32)),
                                  model(np.ones((2, 4), np.float32)))


def test_sequential_models_list_no_input_layer_and_take_a_listed_one():
    assert [type(layer).__name__ for layer in keras.Sequential(
        [keras.Input((4,)), keras.layers.Dense(2)]).layers] == ["Dense"]
    assert [type(layer).__name__ for layer in keras.Sequential(
        [keras.layers.InputLayer((4,)), keras.layers.Dense(2)]).layers] == ["Dense"]
    x = keras.Input((4,), name="features")
    functional = keras.Model(x, keras.layers.Dense(2, name="last")(
        keras.layers.Dense(3, name="hidden")(x)))
    trimmed = keras.Sequential(functional.layers[:-1])  # drop the head, keep the input
    assert _names(trimmed) == ["hidden"]
    assert tuple(trimmed.output.shape) == (None, 3)


def test_a_nested_model_lists_the_outer_inputs_then_the_model():
    a, b = keras.Input((4,), name="a"), keras.Input((3,), name="b")
    inner = keras.Model([a, b], keras.layers.Concatenate()([a, b]))
    x, y = keras.Input((4,), name="x"), keras.Input((3,), name="y")
    outer = keras.Model([x, y], inner([x, y]))
    assert _names(outer) == ["x", "y", inner.name]


def test_summary_rows_follow_the_listed_order():
    a, b = keras.Input((4,), name="a"), keras.Input((3,), name="b")
    cat = keras.layers.Concatenate(name="cat")([keras.layers.Dense(5, name="d1")(a), b])
    model = keras.Model([a, b], cat)
    lines = []
    model.summary(print_fn=lines.append)
    rows = [line.split("│")[1].strip() for line in lines if line.startswith("│")]
    assert rows == ["a (InputLayer)", "d1 (Dense)", "b (InputLayer)", "cat (Concatenate)"]
