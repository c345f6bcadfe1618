"""base.py owns the `Callback` base class (every hook of
`tf.keras.callbacks.Callback`, doing nothing), the list of hook names and the
log helpers the standard callbacks share. The callbacks themselves live in
steering.py, progbar.py and file_writers.py."""

import numbers
import sys

import numpy as np

from ..core.tensor import Tensor

__all__ = ["Callback"]


_HOOKS = (
    "on_train_begin", "on_train_end", "on_epoch_begin", "on_epoch_end",
    "on_train_batch_begin", "on_train_batch_end", "on_test_begin", "on_test_end",
    "on_test_batch_begin", "on_test_batch_end", "on_predict_begin", "on_predict_end",
    "on_predict_batch_begin", "on_predict_batch_end",
)


def _scalar(value):
    """A log value as a Python float (Tensors and 0-d arrays included); else None."""
    if isinstance(value, Tensor):
        value = value._value
    if isinstance(value, np.ndarray):
        if value.size != 1:
            return None
        value = value.reshape(())[()]
    if isinstance(value, numbers.Number):
        return float(value)
    return None


def _message(text):
    """What verbose callbacks report, on stdout as Keras's print_msg (not a debug print)."""
    sys.stdout.write(text + "\n")
    sys.stdout.flush()


class Callback:
    """Base class of callbacks: every hook of `tf.keras.callbacks.Callback`, doing nothing.

    `model` and `params` ({'verbose', 'epochs', 'steps'}) are set by the
    CallbackList before training. `on_batch_begin`/`on_batch_end` are the
    legacy names that the default train-batch hooks call.
    """

    def __init__(self):
        self.params = {}
        self._model = None

    def set_params(self, params):
        self.params = params

    def set_model(self, model):
        self._model = model

    @property
    def model(self):
        return self._model

    def on_batch_begin(self, batch, logs=None):
        """Legacy alias of on_train_batch_begin."""

    def on_batch_end(self, batch, logs=None):
        """Legacy alias of on_train_batch_end."""

    def on_epoch_begin(self, epoch, logs=None):
        """At the start of each epoch of `fit`."""

    def on_epoch_end(self, epoch, logs=None):
        """At the end of each epoch: logs hold the epoch's metrics and val_ metrics."""

    def on_train_batch_begin(self, batch, logs=None):
        self.on_batch_begin(batch, logs=logs)

    def on_train_batch_end(self, batch, logs=None):
        self.on_batch_end(batch, logs=logs)

    def on_test_batch_begin(self, batch, logs=None):
        """Before each batch of `evaluate` (and validation in `fit`)."""

    def on_test_batch_end(self, batch, logs=None):
        """After each batch of `evaluate`; logs hold the running metrics."""

    def on_predict_batch_begin(self, batch, logs=None):
        """Before each batch of `predict`."""

    def on_predict_batch_end(self, batch, logs=None):
        """After each batch of `predict`."""

    def on_train_begin(self, logs=None):
        """At the start of `fit`."""

    def on_train_end(self, logs=None):
        """At the end of `fit`."""

    def on_test_begin(self, logs=None):
        """At the start of `evaluate` (and of validation in `fit`)."""

    def on_test_end(self, logs=None):
        """At the end of `evaluate`."""

    def on_predict_begin(self, logs=None):
        """At the start of `predict`."""

    def on_predict_end(self, logs=None):
        """At the end of `predict`."""
