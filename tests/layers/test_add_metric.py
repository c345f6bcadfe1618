"""Layer.add_metric (Keras 2's; Keras 3 removed it) and Layer.metrics /
Model.metrics: a value added in `call` is logged by fit and evaluate under its
name as the mean over the epoch's batches, reset each epoch; sublayers'
metrics reach the model's; Metric objects held in public attributes are
listed as Keras 3 tracks them; bad arguments name what is wrong."""

import numpy as np
import pytest

import tapeflow as tf

L = tf.keras.layers


class MeanActivation(L.Layer):
    """Passes its input through and logs the mean of it."""

    def call(self, inputs):
        self.add_metric(tf.reduce_mean(inputs), name="mean_activation")
        return inputs


class Block(L.Layer):
    """A layer whose sublayer adds a metric, and which adds one itself."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.inner = MeanActivation()

    def call(self, inputs):
        out = self.inner(inputs)
        self.add_metric(tf.reduce_max(out), name="max_activation", aggregation=None)
        return out


def test_add_metric_eager_and_layer_metrics():
    block = Block()
    assert block.metrics == []
    block(np.array([[1., 2.], [3., 4.]], np.float32))
    block(np.array([[5., 5.]], np.float32))
    names = [m.name for m in block.metrics]
    assert names == ["max_activation", "mean_activation"]
    values = {m.name: float(m.result()) for m in block.metrics}
    # The mean over calls of each call's value: (2.5 + 5) / 2 and (4 + 5) / 2.
    assert values == {"mean_activation": 3.75, "max_activation": 4.5}
    assert [m.name for m in block.inner.metrics] == ["mean_activation"]


def test_add_metric_logged_by_fit_and_evaluate_as_the_mean_over_batches():
    x = np.arange(12, dtype=np.float32).reshape(6, 2)
    y = np.zeros((6, 1), np.float32)
    model = tf.keras.Sequential([tf.keras.Input((2,)), MeanActivation(),
                                 L.Dense(1, kernel_initializer="zeros")])
    model.compile(tf.keras.optimizers.SGD(0.0), "mse")
    assert "mean_activation" in model.metrics_names
    # Batches of 2 rows: means 1.5, 5.5, 9.5 -> 5.5 per epoch, every epoch (reset).
    history = model.fit(x, y, batch_size=2, epochs=2, shuffle=False, verbose=0)
    assert history.history["mean_activation"] == pytest.approx([5.5, 5.5])
    logs = model.evaluate(x[:4], y[:4], batch_size=2, return_dict=True, verbose=0)
    assert logs["mean_activation"] == pytest.approx((1.5 + 5.5) / 2)
    assert logs["loss"] == pytest.approx(0.0)


def test_add_metric_in_a_functional_model_and_custom_train_step_keras2_style():
    inp = tf.keras.Input((2,))
    out = L.Dense(1, kernel_initializer="ones")(MeanActivation()(inp))

    class Custom(tf.keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = self.compiled_loss(y, y_pred)
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.compiled_metrics.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    model = Custom(inp, out)
    model.compile(tf.keras.optimizers.SGD(0.0), "mse")
    x = np.ones((4, 2), np.float32)
    logs = model.fit(x, np.zeros((4, 1)), batch_size=2, verbose=0).history
    assert logs["mean_activation"] == pytest.approx([1.0])
    assert logs["loss"] == pytest.approx([4.0])


def test_attribute_metrics_are_the_models_as_keras3_tracks_them():
    class Tracked(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.dense = L.Dense(1)
            self.mae_tracker = tf.keras.metrics.Mean(name="mae")

        def call(self, x):
            return self.dense(x)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)
                loss = tf.reduce_mean(tf.square(y - y_pred))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            self.mae_tracker.update_state(tf.reduce_mean(tf.abs(y - y_pred)))
            return {"mae": self.mae_tracker.result()}

    model = Tracked()
    model.compile("sgd")
    assert model.metrics[-1] is model.mae_tracker
    ones = np.ones((4, 1), np.float32)
    model.fit(ones, ones, batch_size=4, epochs=1, verbose=0)
    before = model(ones).numpy()
    model.fit(ones, ones + 10, batch_size=4, epochs=1, verbose=0)
    # Reset at the epoch's start: only the second fit's batch is in the mean.
    np.testing.assert_allclose(float(model.mae_tracker.result()),
                               np.mean(np.abs(11 - before)), rtol=1e-5)


def test_add_metric_bad_arguments():
    layer = MeanActivation()
    with pytest.raises(ValueError, match="provide a name"):
        layer.add_metric(tf.constant(1.0))
    with pytest.raises(ValueError, match="aggregation='sum'"):
        layer.add_metric(tf.constant(1.0), name="x", aggregation="sum")
    inp = tf.keras.Input((2,))
    with pytest.raises(NotImplementedError, match="works on a functional Model"):
        layer.add_metric(inp, name="x")


def test_functional_model_add_loss_and_add_metric_of_symbolic_tensors():
    """The TF 2 guide's `model.add_loss(tf.reduce_sum(x1) * 0.1)` and
    `model.add_metric(..., name=..., aggregation="mean")` on a functional model."""
    inputs = tf.keras.Input(shape=(4,))
    x1 = L.Dense(3, activation="relu", kernel_initializer="ones")(inputs)
    outputs = L.Dense(2, kernel_initializer="zeros")(x1)
    model = tf.keras.Model(inputs=inputs, outputs=outputs)
    model.add_loss(tf.reduce_sum(x1) * 0.1)
    model.add_metric(tf.reduce_mean(x1), name="mean_of_activation", aggregation="mean")
    assert model.metrics_names == ["mean_of_activation"]
    assert [type(l).__name__ for l in model.layers] == ["InputLayer", "Dense", "Dense"]  # no ops
    # x1 is 4 everywhere for inputs of ones: the loss is 0.1 * 2 rows * 3 units * 4.
    model(np.ones((2, 4), np.float32))
    assert [float(v) for v in model.losses] == pytest.approx([2.4])
    model.compile(tf.keras.optimizers.SGD(0.0), "mse")
    history = model.fit(np.ones((4, 4), np.float32), np.zeros((4, 2), np.float32),
                        batch_size=2, verbose=0).history
    assert history["loss"] == pytest.approx([2.4])
    assert history["mean_of_activation"] == pytest.approx([4.0])
    other = tf.keras.Input(shape=(4,))
    with pytest.raises(ValueError, match="Graph disconnected"):
        model.add_metric(tf.reduce_mean(other), name="elsewhere")
    with pytest.raises(ValueError, match="needs a functional model"):
        tf.keras.Sequential().add_loss(tf.reduce_sum(x1))
