"""activations.py is `tf.keras.activations`: activation functions by Keras name
('relu', 'softmax', 'gelu', ...) and `get`, which turns a name or a callable
into the function. Each is `tf.nn`'s op or a composition of ops (so it needs no
VJP of its own, and a traced function replays it: the piecewise ones pick their
branch with comparisons and `select`, never from the array in Python); layers
call these."""

from . import math as _math
from . import nn as _nn
from .api.array_ops import cast as _cast
from .core.tensor import as_tensor
from .math.comparisons import greater, greater_equal, less, logical_and, logical_not
from .ops.math import const as _scalar
from .ops.math import select as _select
from .utils.registry import get_registered_object as _get_registered_object

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "sigmoid", "hard_sigmoid",
           "tanh", "softmax", "log_softmax", "softplus", "softsign", "swish", "silu",
           "hard_silu", "hard_swish", "mish", "exponential", "linear", "get", "serialize",
           "deserialize"]


def _mask(condition, like):
    """The bool tensor `condition` as 0/1 of `like`'s dtype (the derivative of a
    piecewise function; a cast, so that a trace replays it)."""
    return _cast(condition, like.dtype)


def linear(x):
    """The identity."""
    return as_tensor(x)


def exponential(x):
    return _math.exp(x)


def sigmoid(x):
    return _math.sigmoid(x)


def tanh(x):
    return _math.tanh(x)


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Keras's relu: `max(x, 0)`, or with a `threshold`, a `max_value` cap and a
    `negative_slope` below the threshold. The gradient at the kink is 0, as in TF."""
    x = as_tensor(x)
    if negative_slope == 0.0 and max_value is None and threshold == 0.0:
        return _nn.relu(x)
    if negative_slope != 0.0 and max_value is None and threshold == 0.0:
        return leaky_relu(x, negative_slope)
    above = greater(x, _scalar(threshold, x))
    if max_value is None:
        out = _math.multiply(x, _mask(above, x))
    else:
        cap = _scalar(max_value, x)
        inside = logical_and(logical_and(above, greater(x, _scalar(0, x))), less(x, cap))
        out = _math.add(_math.multiply(x, _mask(inside, x)),
                        _mask(logical_and(greater_equal(x, cap), above), x) * float(max_value))
    if negative_slope != 0.0:
        below = _math.multiply(_math.subtract(x, _scalar(threshold, x)),
                               _mask(logical_not(above), x))
        out = _math.add(out, _math.multiply(below, _scalar(negative_slope, x)))
    return out


def relu6(x):
    """min(max(x, 0), 6); the gradient is 1 strictly inside (0, 6), as in TF."""
    return _nn.relu6(x)


def leaky_relu(x, negative_slope=0.2):
    """x for x > 0, else negative_slope * x (Keras's activation default is 0.2)."""
    return _nn.leaky_relu(x, alpha=negative_slope)


def elu(x, alpha=1.0):
    """x for x >= 0, else alpha * (exp(x) - 1)."""
    if alpha == 1.0:
        return _nn.elu(x)
    x = as_tensor(x)
    zero = _scalar(0, x)
    # min(x, 0) as a select: minimum's VJP reads values in Python, which a trace cannot replay.
    negative_part = _math.subtract(_math.exp(_select(greater(x, zero), zero, x)), _scalar(1, x))
    return _select(greater_equal(x, zero), x,
                   _math.multiply(negative_part, _scalar(alpha, x)))


def selu(x):
    """scale * elu(x, alpha) with the self-normalizing constants."""
    return _nn.selu(x)


def softplus(x):
    """log(1 + exp(x)), computed without overflow."""
    return _nn.softplus(x)


def softsign(x):
    """x / (1 + |x|)."""
    return _nn.softsign(x)


def swish(x):
    """x * sigmoid(x) (also called silu)."""
    return _nn.silu(x)


silu = swish


def hard_sigmoid(x):
    """Keras 3's piecewise-linear sigmoid: relu6(x + 3) / 6."""
    x = as_tensor(x)
    return _math.divide(relu6(_math.add(x, _scalar(3, x))), _scalar(6, x))


def hard_silu(x):
    """x * hard_sigmoid(x)."""
    x = as_tensor(x)
    return _math.multiply(x, hard_sigmoid(x))


hard_swish = hard_silu


def mish(x):
    """x * tanh(softplus(x))."""
    x = as_tensor(x)
    return _math.multiply(x, _math.tanh(softplus(x)))


def gelu(x, approximate=False):
    """x * Phi(x), Phi the standard normal CDF (Keras 3's default, exact);
    with `approximate=True` the tanh approximation."""
    return _nn.gelu(x, approximate=approximate)


def softmax(x, axis=-1):
    """exp(x) / sum(exp(x)) along `axis` (stable: the maximum is subtracted first)."""
    return _nn.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    """x - logsumexp(x) along `axis`."""
    return _nn.log_softmax(x, axis=axis)


_BY_NAME = {
    "relu": relu, "relu6": relu6, "leaky_relu": leaky_relu, "elu": elu, "selu": selu,
    "gelu": gelu, "sigmoid": sigmoid, "hard_sigmoid": hard_sigmoid, "tanh": tanh,
    "softmax": softmax, "log_softmax": log_softmax, "softplus": softplus,
    "softsign": softsign, "swish": swish, "silu": silu, "hard_silu": hard_silu,
    "hard_swish": hard_swish, "mish": mish, "exponential": exponential, "linear": linear,
}


def serialize(activation):
    """The Keras name of an activation function (or its __name__)."""
    for name, fn in _BY_NAME.items():
        if fn is activation:
            return name
    return getattr(activation, "__name__", str(activation))


def deserialize(name):
    return get(name)


def get(identifier):
    """The activation function for a name, None ('linear') or a callable.

    Raises:
        ValueError: for an unknown name; the message lists the valid names.
    """
    if identifier is None:
        return linear
    if isinstance(identifier, dict):
        identifier = identifier.get("config", identifier.get("class_name"))
    if isinstance(identifier, str):
        # A user's activation by name: custom_object_scope, register_keras_serializable.
        fn = _BY_NAME.get(identifier) or _get_registered_object(identifier)
        if fn is None:
            raise ValueError(f"Unknown activation function: {identifier!r}. Valid names are "
                             f"{sorted(_BY_NAME)}.")
        return fn
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret activation function identifier: {identifier!r}.")
