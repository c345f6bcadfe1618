"""fit names where a NaN loss was born (issue 22): the batch is replayed with
numeric checks, and the op and layer are printed by TerminateOnNaN or logged."""

import logging

import numpy as np

import tapeflow as tf


def _model_with_a_nan_layer():
    # The Lambda takes sqrt of a negative number for rows whose first feature is -1.
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros",
                              name="dense_in"),
        tf.keras.layers.Lambda(lambda t: tf.math.sqrt(t + 1.5), name="bad_sqrt"),
        tf.keras.layers.Dense(1, name="head")])
    model.compile(tf.keras.optimizers.SGD(0.01), "mse")
    return model


def _data(nan_batch):
    x = np.full((32, 2), 0.25, np.float32)
    x[8 * nan_batch:8 * nan_batch + 8] = -1.0  # (-1 + -1) + 1.5 < 0 in that batch only
    return x, np.zeros((32, 1), np.float32)


def test_terminate_on_nan_prints_the_op_and_layer(capsys):
    x, y = _data(nan_batch=2)
    model = _model_with_a_nan_layer()
    model.fit(x, y, batch_size=8, shuffle=False, verbose=0,
              callbacks=[tf.keras.callbacks.TerminateOnNaN()])
    out = capsys.readouterr().out
    assert "Batch 2: Invalid loss, terminating training" in out
    assert "Batch 2: the loss is not finite" in out
    assert "'sqrt'" in out and "in layer 'bad_sqrt' (Lambda)" in out
    assert "this op made the first non-finite value" in out  # replayed before the update


def test_fit_without_the_callback_logs_it_once(caplog):
    x, y = _data(nan_batch=1)
    model = _model_with_a_nan_layer()
    with caplog.at_level(logging.WARNING, logger="tapeflow"):
        history = model.fit(x, y, batch_size=8, shuffle=False, verbose=0, epochs=2)
    assert np.isnan(history.history["loss"][-1])
    reports = [r.getMessage() for r in caplog.records if "loss is not finite" in r.getMessage()]
    assert len(reports) == 1
    assert reports[0].startswith("Batch 1:") and "bad_sqrt" in reports[0]


def test_a_finite_fit_makes_no_report(caplog):
    x = np.full((16, 2), 0.25, np.float32)
    model = _model_with_a_nan_layer()
    with caplog.at_level(logging.WARNING, logger="tapeflow"):
        model.fit(x, np.zeros((16, 1), np.float32), batch_size=8, verbose=0)
    assert not [r for r in caplog.records if "not finite" in r.getMessage()]
    assert model._non_finite_report is None


def test_a_custom_train_step_is_replayed_after_its_update(caplog):
    class Custom(tf.keras.Model):
        def __init__(self):
            super().__init__()
            self.inner = _model_with_a_nan_layer()

        def call(self, x, training=None):
            return self.inner(x, training=training)

        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(self(x, training=True) - y))
            grads = tape.gradient(loss, self.trainable_variables)
            self.optimizer.apply_gradients(zip(grads, self.trainable_variables))
            return {"loss": loss}

    x, y = _data(nan_batch=0)
    model = Custom()
    model.compile(tf.keras.optimizers.SGD(0.01), "mse")
    with caplog.at_level(logging.WARNING, logger="tapeflow"):
        model.fit(x, y, batch_size=8, shuffle=False, verbose=0)
    reports = [r.getMessage() for r in caplog.records if "loss is not finite" in r.getMessage()]
    assert len(reports) == 1 and "after the optimizer's update" in reports[0]
