"""Model, Sequential and the functional API: building, compile/fit/evaluate/predict."""

import io

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.core.errors import InvalidArgumentError

layers = tf.keras.layers


def blobs(n=256, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    centers = np.array([[2.0, 0.0], [-2.0, 0.0], [0.0, 2.5]], np.float32)
    x = centers[y] + rng.normal(0, 0.5, (n, 2)).astype(np.float32)
    return x, y.astype(np.int32)


def mlp(seed=0):
    tf.random.set_seed(seed)
    return tf.keras.Sequential([tf.keras.Input(shape=(2,)),
                                layers.Dense(16, activation="relu"),
                                layers.Dense(3)])


def test_sequential_fit_learns_and_reports_history():
    x, y = blobs()
    model = mlp()
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    history = model.fit(x, y, batch_size=32, epochs=5, verbose=0, validation_split=0.25)
    assert set(history.history) == {"loss", "accuracy", "val_loss", "val_accuracy"}
    assert len(history.history["loss"]) == 5
    assert history.history["loss"][-1] < history.history["loss"][0]
    assert history.history["accuracy"][-1] > 0.9
    loss, acc = model.evaluate(x, y, verbose=0)
    assert acc > 0.9 and loss < 0.5
    assert model.evaluate(x, y, verbose=0, return_dict=True)["accuracy"] == acc
    probs = model.predict(x[:5], verbose=0)
    assert probs.shape == (5, 3) and probs.dtype == np.float32


def test_summary_table_counts_parameters():
    model = mlp()
    out = io.StringIO()
    model.summary(print_fn=lambda line: out.write(line + "\n"))
    text = out.getvalue()
    assert "(None, 16)" in text and "(None, 3)" in text
    assert "Total params: 99 (396.00 B)" in text
    assert "Trainable params: 99" in text and "Non-trainable params: 0 (0.00 B)" in text
    assert model.get_layer(model.layers[0].name) is model.layers[0]
    with pytest.raises(ValueError, match="No such layer"):
        model.get_layer("nope")


def test_functional_model_with_two_inputs_and_two_outputs():
    tf.random.set_seed(1)
    a = tf.keras.Input(shape=(2,), name="a")
    b = tf.keras.Input(shape=(3,), name="b")
    shared = layers.Dense(4, activation="tanh", name="shared")
    merged = layers.Concatenate()([shared(a), layers.Dense(4)(b)])
    cls = layers.Dense(2, name="cls")(merged)
    reg = layers.Dense(1, name="reg")(merged)
    model = tf.keras.Model(inputs=[a, b], outputs=[cls, reg])
    assert [layer.name for layer in model.layers][-2:] == ["cls", "reg"]
    model.compile("adam", loss={"cls": tf.keras.losses.SparseCategoricalCrossentropy(
        from_logits=True), "reg": "mse"}, loss_weights={"cls": 1.0, "reg": 0.5})
    rng = np.random.default_rng(0)
    xa, xb = rng.normal(size=(64, 2)).astype(np.float32), rng.normal(size=(64, 3)).astype(
        np.float32)
    yc, yr = (xa[:, 0] > 0).astype(np.int32), xb.sum(axis=1, keepdims=True)
    history = model.fit([xa, xb], [yc, yr], epochs=3, batch_size=16, verbose=0)
    assert {"loss", "cls_loss", "reg_loss"} <= set(history.history)
    out_c, out_r = model.predict([xa, xb], verbose=0)
    assert out_c.shape == (64, 2) and out_r.shape == (64, 1)


def test_dict_inputs_are_matched_to_the_inputs_by_name():
    # Issue 16: {'user': u, 'item': i} for Model([user, item], ...) used to run as
    # [i, u] (sorted keys), swapped without an error whenever the dtypes agreed.
    user, item = tf.keras.Input((1,), name="user"), tf.keras.Input((1,), name="item")
    model = tf.keras.Model([user, item], layers.Subtract()([user, item]))
    x = {"user": np.array([[5.0], [7.0]], np.float32),
         "item": np.array([[1.0], [2.0]], np.float32)}
    np.testing.assert_array_equal(model(x).numpy(), [[4.0], [5.0]])
    model.compile("sgd", "mse")
    np.testing.assert_array_equal(model.predict(x, verbose=0), [[4.0], [5.0]])
    assert model.evaluate(x, np.array([[4.0], [5.0]], np.float32), verbose=0) == 0.0
    x["unused"] = np.zeros((2, 1), np.float32)  # keys no Input has are ignored, as in Keras
    np.testing.assert_array_equal(model(x).numpy(), [[4.0], [5.0]])
    with pytest.raises(ValueError, match=r"named \['user', 'item'\].*missing: \['user'\]"):
        model({"usr": x["user"], "item": x["item"]})


def test_subclassed_model_tracks_layers_in_lists_and_dicts_once():
    class Net(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.blocks = [layers.Dense(4), layers.Dense(4)]
            self.heads = {"out": layers.Dense(1)}
            self.alias = self.blocks[0]

        def call(self, x, training=False):
            for block in self.blocks:
                x = block(x)
            return self.heads["out"](x)

    net = Net()
    net(np.zeros((1, 3), np.float32))
    names = [v.path for v in net.trainable_variables]
    assert len(names) == 6 and len(set(id(v) for v in net.trainable_variables)) == 6
    b0, b1, head = net.blocks[0].name, net.blocks[1].name, net.heads["out"].name
    assert names == [f"{b0}/kernel", f"{b0}/bias", f"{b1}/kernel", f"{b1}/bias",
                     f"{head}/kernel", f"{head}/bias"]
    net.compile("sgd", "mse")
    net.fit(np.ones((8, 3), np.float32), np.ones((8, 1), np.float32), epochs=1, verbose=0)


def test_custom_train_step_as_in_the_keras_guide():
    class CustomModel(tf.keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compute_loss(y=y, y_pred=y_pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            for metric in self.metrics:
                if metric.name == "loss":
                    metric.update_state(loss)
                else:
                    metric.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    tf.random.set_seed(0)
    inputs = tf.keras.Input(shape=(1,))
    model = CustomModel(inputs, layers.Dense(1)(inputs))
    model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", metrics=["mae"])
    x = np.linspace(-1, 1, 64, dtype=np.float32)[:, None]
    history = model.fit(x, 3 * x + 1, epochs=30, verbose=0)
    assert history.history["loss"][-1] < 1e-3 and "mae" in history.history
    kernel, bias = model.get_weights()
    assert abs(kernel[0, 0] - 3) < 0.05 and abs(bias[0] - 1) < 0.05


def test_fit_is_reproducible_bit_for_bit_with_a_seed():
    x, y = blobs()

    def run():
        model = mlp(seed=42)
        model.compile(tf.keras.optimizers.Adam(0.01), tf.keras.losses.
                      SparseCategoricalCrossentropy(from_logits=True))
        model.fit(x, y, batch_size=16, epochs=2, verbose=0)
        return model.get_weights()

    for a, b in zip(run(), run()):
        np.testing.assert_array_equal(a, b)


def test_fit_accepts_datasets_and_generators():
    x, y = blobs(128)
    model = mlp()
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    ds = tf.data.Dataset.from_tensor_slices((x, y)).shuffle(128).batch(32)
    history = model.fit(ds, epochs=2, verbose=0, validation_data=ds)
    assert len(history.history["val_loss"]) == 2

    def gen():
        while True:
            for i in range(0, 128, 32):
                yield x[i:i + 32], y[i:i + 32]

    history = model.fit(gen(), steps_per_epoch=4, epochs=2, verbose=0)
    assert len(history.history["loss"]) == 2
    with pytest.raises(ValueError, match="validation_split"):
        model.fit(gen(), steps_per_epoch=2, validation_split=0.2, verbose=0)


def test_callbacks_stop_training():
    x, y = blobs(64)
    model = mlp()
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    seen = []
    stopper = tf.keras.callbacks.LambdaCallback(
        on_epoch_end=lambda epoch, logs: (seen.append(epoch),
                                          setattr(model, "stop_training", epoch == 1)))
    history = model.fit(x, y, epochs=10, verbose=0, callbacks=[stopper])
    assert seen == [0, 1] and len(history.history["loss"]) == 2


def test_bad_input_fails_clearly():
    x, y = blobs(32)
    model = mlp()
    with pytest.raises(RuntimeError, match="compile"):
        model.fit(x, y, verbose=0)
    with pytest.raises(ValueError, match="loss"):
        model.compile("adam", loss="no_such_loss")
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    with pytest.raises(ValueError, match="Data cardinality is ambiguous"):
        model.fit(x, y[:-1], verbose=0)
    bad = x.copy()
    bad[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        model.fit(bad, y, verbose=0)
    with pytest.raises(InvalidArgumentError, match="7"):
        model.fit(x, np.full(32, 7, np.int32), verbose=0)


def test_verbose_two_prints_one_line_per_epoch(capsys):
    x, y = blobs(64)
    model = mlp()
    model.compile("adam", tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, y, epochs=3, verbose=2)
    captured = capsys.readouterr()
    lines = [line for line in (captured.out + captured.err).splitlines() if "loss" in line]
    assert len(lines) == 3


def test_fit_takes_numpy_text_for_a_model_that_takes_text():
    """NumPy string arrays reach a TextVectorization first layer or a string Input,
    as Keras passes them; a numeric model still gets the error naming the strings."""
    texts = np.array(["the cat sat", "a dog ran", "the cat ran", "a dog sat"] * 4)
    labels = np.array([1, 0, 1, 0] * 4)
    vectorize = tf.keras.layers.TextVectorization(max_tokens=20, output_sequence_length=4)
    vectorize.adapt(texts)
    model = tf.keras.Sequential([vectorize, tf.keras.layers.Embedding(20, 4),
                                 tf.keras.layers.GlobalAveragePooling1D(),
                                 tf.keras.layers.Dense(1, activation="sigmoid")])
    model.compile(tf.keras.optimizers.Adam(0.05), "binary_crossentropy", metrics=["accuracy"])
    history = model.fit(texts, labels, epochs=20, verbose=0)
    assert history.history["accuracy"][-1] == 1.0  # 'cat' and 'dog' decide the label
    assert model.predict(np.array(["a dog"]), verbose=0).shape == (1, 1)
    text_input = tf.keras.Input(shape=(1,), dtype="string")
    functional = tf.keras.Model(text_input, tf.keras.layers.Dense(1)(
        tf.keras.layers.Embedding(20, 4)(vectorize(text_input))[:, 0, :]))
    functional.compile("sgd", "mse")
    functional.fit(texts[:, None], labels.astype("float32"), epochs=1, verbose=0)
    numeric = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    numeric.compile("sgd", "mse")
    with pytest.raises(TypeError, match="features must be numbers"):
        numeric.fit(texts, labels, verbose=0)


def test_sparse_inputs_through_fit_and_predict():
    """Input(sparse=True) and Dense on a SparseTensor, as TF's sparse-tensor guide: the
    output is the dense product, and fit/predict batch the SparseTensor's rows."""
    inputs = tf.keras.Input(shape=(4,), sparse=True)
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(3)(inputs))
    sparse = tf.SparseTensor([[0, 1], [2, 0], [2, 3], [5, 2]], [1.0, 2.0, 3.0, 4.0], [6, 4])
    dense = tf.sparse.to_dense(sparse).numpy()
    layer = model.layers[-1]
    expected = dense @ layer.kernel.numpy() + layer.bias.numpy()
    np.testing.assert_allclose(model(sparse).numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(model.predict(sparse, batch_size=4, verbose=0), expected,
                               rtol=1e-6)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse")
    history = model.fit(sparse, np.ones((6, 3), np.float32), batch_size=2, epochs=3,
                        verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0]


def test_pandas_dataframes_and_series_as_keras_takes_them():
    """A DataFrame is one array of its columns, or its columns by name for a model whose
    Inputs are named by them; a Series is its values (optional: needs pandas)."""
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"a": np.arange(8, dtype=np.float32), "b": np.ones(8, np.float32)})
    target = pd.Series(np.arange(8, dtype=np.float32) * 2.0)
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1)])
    model.compile(tf.keras.optimizers.SGD(0.01), "mse")
    model.fit(frame, target, epochs=1, verbose=0)
    assert model.predict(frame, verbose=0).shape == (8, 1)
    a, b = tf.keras.Input((1,), name="a"), tf.keras.Input((1,), name="b")
    named = tf.keras.Model([a, b], tf.keras.layers.Dense(1)(
        tf.keras.layers.Concatenate()([b, a])))
    named.compile(tf.keras.optimizers.SGD(0.01), "mse")
    swapped = frame[["b", "a"]]  # column order differs: matched by name, not position
    np.testing.assert_allclose(named.predict(swapped, verbose=0),
                               named.predict({"a": frame["a"].to_numpy(),
                                              "b": frame["b"].to_numpy()}, verbose=0))
    named.fit(swapped, target, epochs=1, verbose=0)
