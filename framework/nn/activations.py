"""activations.py: tf.nn's softmax and log_softmax over one axis. The other
tf.nn activations are tf.math's (math/activations.py), re-exported by
tapeflow.nn; the fused kernels and VJPs are ops/nn.py's."""

from ..ops import nn as _n
from ._checks import float_tensor, last_axis

__all__ = ["softmax", "log_softmax"]


def softmax(logits, axis=None, name=None):
    """exp(logits) / sum(exp(logits)) along `axis` (default last), computed stably.

    Raises:
        InvalidArgumentError: for a scalar, an integer tensor or a bad axis.
    """
    x = float_tensor(logits, "Softmax")
    return _n.softmax(x, axis=last_axis(x, axis, "Softmax"))


def log_softmax(logits, axis=None, name=None):
    """logits - log(sum(exp(logits))) along `axis` (default last), computed stably."""
    x = float_tensor(logits, "LogSoftmax")
    return _n.log_softmax(x, axis=last_axis(x, axis, "LogSoftmax"))
