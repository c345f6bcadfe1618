"""The mistakes users make with fit/evaluate/predict, each answered clearly (issue 19):
an exception naming the argument and the shapes, dtypes or keys involved, or, where
Keras 3 only warns, Keras's warning. Each test shows the behaviour that was silent,
deep or vague before, and the working call beside it where there is one."""

import warnings

import numpy as np
import pytest

import tapeflow as tf


def _dense_model(units=1, activation=None, n_in=4):
    model = tf.keras.Sequential([tf.keras.Input((n_in,)),
                                 tf.keras.layers.Dense(units, activation=activation)])
    model.compile("sgd", "mse")
    return model


def _xy(n=8, n_in=4):
    rng = np.random.default_rng(0)
    return rng.normal(size=(n, n_in)).astype(np.float32), np.ones((n, 1), np.float32)


class _CountBatches(tf.keras.callbacks.Callback):
    def __init__(self):
        super().__init__()
        self.batches = 0

    def on_train_batch_end(self, batch, logs=None):
        self.batches += 1


# -- was silent ----------------------------------------------------------------------
@pytest.mark.parametrize("method", ["fit", "evaluate", "predict"])
def test_zero_samples_raise_naming_the_shape(method):
    model = _dense_model()
    x, y = np.zeros((0, 4), np.float32), np.zeros((0, 1), np.float32)
    args = (x,) if method == "predict" else (x, y)
    with pytest.raises(ValueError, match=r"0 samples.*x \(0, 4\)"):
        getattr(model, method)(*args, verbose=0)


def test_generator_running_out_warns_with_the_step_counts_as_keras():
    # Keras 3 warns ("Your input ran out of data") and ends the epoch; so does tapeflow,
    # saying how many of the requested steps it got.
    model = _dense_model()
    x, y = _xy(2)

    def five_batches():
        for _ in range(5):
            yield x, y

    counter = _CountBatches()
    with pytest.warns(UserWarning, match=r"ran out of data.*gave 5 of the "
                                         r"steps_per_epoch=30 batches in epoch 1"):
        model.fit(five_batches(), steps_per_epoch=30, verbose=0, callbacks=[counter])
    assert counter.batches == 5


def test_a_generator_that_lasts_gives_no_warning():
    model = _dense_model()
    x, y = _xy(2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model.fit(((x, y) for _ in range(3)), steps_per_epoch=3, verbose=0)


@pytest.mark.parametrize("loss, activation, labels, fn_name, op_type", [
    (tf.keras.losses.CategoricalCrossentropy(from_logits=True), "softmax",
     np.eye(3, dtype=np.float32)[[0, 1, 2, 0]], "categorical_crossentropy", "Softmax"),
    (tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True), "softmax",
     np.array([0, 1, 2, 0]), "sparse_categorical_crossentropy", "Softmax"),
    (tf.keras.losses.BinaryCrossentropy(from_logits=True), "sigmoid",
     np.ones((4, 3), np.float32), "binary_crossentropy", "Sigmoid"),
])
def test_probabilities_given_as_logits_warn_as_keras(loss, activation, labels, fn_name,
                                                     op_type):
    # Keras 3 only warns here (backend nn's _get_logits); tapeflow warns with its text.
    model = tf.keras.Sequential([tf.keras.Input((4,)),
                                 tf.keras.layers.Dense(3, activation=activation, name="probs")])
    model.compile("sgd", loss)
    with pytest.warns(UserWarning, match=rf"`{fn_name}` received `from_logits=True`, but the "
                                         rf"`output` argument was produced by a {op_type} "
                                         r"activation.*layer 'probs'"):
        model.fit(np.ones((4, 4), np.float32), labels, verbose=0)


def test_softmax_layer_output_with_from_logits_warns_and_logits_do_not():
    inputs = tf.keras.Input((4,))
    probs = tf.keras.layers.Softmax(name="soft")(tf.keras.layers.Dense(3)(inputs))
    model = tf.keras.Model(inputs, probs)
    model.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    with pytest.warns(UserWarning, match="layer 'soft'"):
        model.fit(np.ones((4, 4), np.float32), np.array([0, 1, 2, 0]), verbose=0)
    logits_model = _dense_model(units=3)
    logits_model.compile("sgd", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        logits_model.fit(np.ones((4, 4), np.float32), np.array([0, 1, 2, 0]), verbose=0)


def _named_input_model():
    inputs = tf.keras.Input((4,), name="features")
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs))
    model.compile("sgd", "mse")
    return model


@pytest.mark.parametrize("method", ["fit", "evaluate", "predict"])
def test_misspelled_dict_key_raises_naming_expected_and_received_keys(method):
    model = _named_input_model()
    x, y = _xy()
    args = ({"featurs": x},) if method == "predict" else ({"featurs": x}, y)
    with pytest.raises(ValueError, match=r"expected the keys \['features'\], received "
                                         r"\['featurs'\].*Did you mean 'featurs' for "
                                         r"'features'"):
        getattr(model, method)(*args, verbose=0)
    assert model.predict({"features": x}, verbose=0).shape == (8, 1)


def test_dict_keys_of_a_two_input_model():
    a, b = tf.keras.Input((4,), name="a"), tf.keras.Input((2,), name="b")
    out = tf.keras.layers.Dense(1)(tf.keras.layers.Concatenate()([a, b]))
    model = tf.keras.Model([a, b], out)
    model.compile("sgd", "mse")
    x, y = _xy()
    with pytest.raises(ValueError, match=r"missing \['b'\]"):
        model.fit({"a": x, "c": x[:, :2]}, y, verbose=0)
    with pytest.raises(ValueError, match=r"dict `x`.*missing \['b'\]"):
        model.fit(x, y, validation_data=({"a": x}, y), verbose=0)
    model.fit({"a": x, "b": x[:, :2]}, y, verbose=0)


@pytest.mark.parametrize("batch_size, error, pattern", [
    (0, ValueError, r"batch_size must be a positive integer or None \(for 32\); got 0"),
    (-4, ValueError, r"batch_size .* got -4"),
    (2.5, TypeError, r"batch_size must be a positive integer or None; got 2.5 of type float"),
    (True, TypeError, r"batch_size .* got True of type bool"),
])
def test_bad_batch_size_raises(batch_size, error, pattern):
    # Keras 3 reads batch_size=0 as "the default"; tapeflow raises (data_adapter._batch_size).
    model = _dense_model()
    x, y = _xy()
    with pytest.raises(error, match=pattern):
        model.fit(x, y, batch_size=batch_size, verbose=0)


def test_batch_size_still_sets_the_steps():
    model = _dense_model()
    x, y = _xy(8)
    counter = _CountBatches()
    model.fit(x, y, batch_size=3, verbose=0, callbacks=[counter])
    assert counter.batches == 3
    counter = _CountBatches()
    model.fit(x, y, batch_size=None, verbose=0, callbacks=[counter])
    assert counter.batches == 1


def test_early_stopping_on_a_missing_metric_warns_as_keras_and_says_why():
    # Keras 3's EarlyStopping only warns (every epoch) and trains on; tapeflow matches,
    # and the warning names the cause.
    model = _dense_model()
    x, y = _xy()
    stop = tf.keras.callbacks.EarlyStopping(monitor="val_no_such_metric", mode="min")
    with pytest.warns(UserWarning, match=r"`val_no_such_metric` which is not available. "
                                         r"Available metrics are: loss. No `val_` metrics.*"
                                         r"validation_data") as record:
        history = model.fit(x, y, epochs=3, verbose=0, callbacks=[stop])
    assert len(history.epoch) == 3
    assert sum("val_no_such_metric" in str(w.message) for w in record) == 3
    with pytest.warns(UserWarning, match=r"Did you mean 'loss'"):
        model.fit(x, y, epochs=1, verbose=0,
                  callbacks=[tf.keras.callbacks.EarlyStopping(monitor="los", mode="min")])


# -- was a deep NumPy or Python error ------------------------------------------------
def test_string_features_raise_naming_x_and_the_dtype():
    model = _dense_model()
    x = np.array([["a", "b", "c", "d"]] * 4)
    with pytest.raises(TypeError, match=r"`x` holds strings \(dtype <U1, shape \(4, 4\), "
                                        r"e.g. 'a'\); features must be numbers"):
        model.fit(x, np.ones((4, 1), np.float32), verbose=0)


def test_string_features_in_a_dict_name_the_key():
    model = _named_input_model()
    with pytest.raises(TypeError, match=r"`x\['features'\]` holds strings"):
        model.predict({"features": np.array([["a"] * 4])}, verbose=0)


def test_string_labels_raise_naming_y_and_an_example():
    model = _dense_model(units=3)
    model.compile("sgd", "sparse_categorical_crossentropy")
    labels = np.array(["cat", "dog", "cat", "dog"])
    with pytest.raises(TypeError, match=r"`y` holds strings \(dtype <U3, shape \(4,\), "
                                        r"e.g. 'cat'\); labels must be numbers.*np.unique"):
        model.fit(np.ones((4, 4), np.float32), labels, verbose=0)
    with pytest.raises(TypeError, match=r"`y` holds strings"):
        model.fit(np.ones((4, 4), np.float32), labels, class_weight={0: 1.0}, verbose=0)


def test_none_in_an_object_array_raises_naming_the_index():
    model = _dense_model()
    x = np.ones((4, 4), object)
    x[1, 2] = None
    x[3, 0] = None
    with pytest.raises(TypeError, match=r"`x` contains None \(first at index \(1, 2\); 2 in "
                                        r"all\) in an array of dtype object, shape \(4, 4\)"):
        model.fit(x, np.ones((4, 1), np.float32), verbose=0)
    x = np.array([[1, "2", 3.0, 4]] * 4, dtype=object)
    with pytest.raises(TypeError, match=r"`x` has dtype object .* e.g. '2' of type str"):
        model.fit(x, np.ones((4, 1), np.float32), verbose=0)


@pytest.mark.parametrize("class_weight, pattern", [
    ([1.0, 2.0, 3.0], r"`class_weight` must be a dict .* got \[1.0, 2.0, 3.0\] of type list"),
    ({"cat": 2.0}, r"`class_weight` keys must be non-negative integer class indices; got the "
                   r"key 'cat' of type str"),
    ({0: "heavy"}, r"`class_weight\[0\]` must be a number; got 'heavy'"),
])
def test_bad_class_weight_raises(class_weight, pattern):
    model = _dense_model(units=3)
    model.compile("sgd", "sparse_categorical_crossentropy")
    with pytest.raises(ValueError, match=pattern):
        model.fit(np.ones((4, 4), np.float32), np.array([0, 1, 2, 0]),
                  class_weight=class_weight, verbose=0)


def test_class_weight_dict_still_weights_the_loss():
    model = _dense_model(units=3)
    model.compile("sgd", "sparse_categorical_crossentropy")
    x, labels = np.ones((4, 4), np.float32), np.array([0, 1, 2, 0])
    plain = model.evaluate(x, labels, verbose=0)
    from tapeflow.training.data_adapter import make_data
    weights = next(make_data(x, labels, class_weight={0: 3.0}).epoch(0))[2]
    np.testing.assert_array_equal(weights, [3.0, 1.0, 1.0, 3.0])
    assert np.isfinite(plain)


@pytest.mark.parametrize("value, pattern", [
    ([[1, 2, 3], [4, 5]], r"value\[0\] has 3 elements but value\[1\] has 2 elements"),
    ([[[1, 2], [3]], [[1, 2], [3, 4]]], r"value\[0\]\[0\] has 2 elements but value\[0\]\[1\] "
                                        r"has 1 element "),
    ([1, [2, 3]], r"value\[0\] is a scalar but value\[1\] has 2 elements"),
])
def test_constant_of_a_ragged_list_names_the_rows(value, pattern):
    with pytest.raises(ValueError, match=r"Can't convert non-rectangular Python sequence to "
                                         r"Tensor: " + pattern):
        tf.constant(value)
    with pytest.raises(ValueError, match=pattern):
        tf.convert_to_tensor(value)


# -- was vague -----------------------------------------------------------------------
def test_python_list_of_samples_of_different_lengths_names_the_lengths():
    model = _dense_model()
    x = [list(range(3 if i % 2 else 4)) for i in range(64)]
    with pytest.raises(ValueError, match=r"`x` is a Python list of 64 samples of different "
                                         r"lengths \(row lengths 3, 4\)"):
        model.fit(x, np.ones((64, 1), np.float32), verbose=0)


def test_python_list_of_samples_of_one_length_is_one_array():
    model = _dense_model()
    x = [[float(i), 1.0, 2.0, 3.0] for i in range(6)]
    counter = _CountBatches()
    model.fit(x, [[1.0]] * 6, batch_size=2, verbose=0, callbacks=[counter])
    assert counter.batches == 3
    assert model.predict(x, verbose=0).shape == (6, 1)


def test_list_of_arrays_read_as_inputs_hints_at_samples():
    model = _dense_model()
    x = [np.ones(3 if i % 2 else 4, np.float32) for i in range(64)]
    with pytest.raises(ValueError, match=r"x sizes: 3, 4, y sizes: 64.*x is a Python list of "
                                         r"64 items, read as 64 separate inputs"):
        model.fit(x, np.ones((64, 1), np.float32), verbose=0)


# -- differed from TF ----------------------------------------------------------------
def test_int64_features_are_cast_to_the_dense_layers_float32_as_keras():
    x = np.arange(32, dtype=np.int64).reshape(8, 4) % 5
    y = np.ones((8, 1), np.float32)
    tf.keras.utils.set_random_seed(1)
    ints = _dense_model()
    int_loss = ints.fit(x, y, epochs=2, shuffle=False, verbose=0).history["loss"]
    tf.keras.utils.set_random_seed(1)
    floats = _dense_model()
    float_loss = floats.fit(x.astype(np.float32), y, epochs=2, shuffle=False,
                            verbose=0).history["loss"]
    assert int_loss == float_loss
    out = tf.keras.layers.Dense(2)(np.ones((2, 4), np.int64))
    assert out.dtype == tf.float32


@pytest.mark.parametrize("layer, shape", [
    (tf.keras.layers.Conv1D(2, 1), (1, 3, 2)),
    (tf.keras.layers.LayerNormalization(), (2, 3)),
    (tf.keras.layers.SimpleRNN(2), (1, 3, 2)),
])
def test_float_math_layers_cast_integer_and_boolean_inputs(layer, shape):
    assert layer(np.ones(shape, np.int32)).dtype == tf.float32
    assert layer(np.ones(shape, bool)).dtype == tf.float32


def test_layers_that_take_integers_keep_them():
    assert tf.keras.layers.Embedding(5, 2)(np.array([[1, 4]])).shape == (1, 2, 2)
    assert tf.keras.layers.Flatten()(np.ones((2, 2, 2), np.int64)).dtype == tf.int64

    class Passthrough(tf.keras.layers.Layer):
        def call(self, inputs):
            return inputs

    assert Passthrough()(np.ones((2, 2), np.int32)).dtype == tf.int32
