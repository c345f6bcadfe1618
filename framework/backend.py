"""backend.py is the small `tf.keras.backend` namespace tapeflow supports."""

from .layers.base import reset_name_counters

__all__ = ["clear_session", "floatx", "epsilon"]


def clear_session():
    """Reset layer-name counters, as Keras does ('dense', 'dense_1' start over)."""
    reset_name_counters()


def floatx():
    return "float32"


def epsilon():
    return 1e-7
