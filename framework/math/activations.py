"""activations.py: the activations of tf.nn that are built here (most are
tf.math names too): relu and its variants, elu/selu, gelu, silu/swish,
softsign, log_sigmoid. sigmoid, tanh and softplus are elementwise.py's;
softmax and log_softmax are tf.nn's own (nn/activations.py). The piecewise ones
pick their branch with `select` on a comparison (comparisons.py), not on a mask
computed from the array, so a traced function replays them."""

import numpy as np

from ..core.tensor import as_tensor
from ..ops import math as _m
from ._checks import float_input
from .comparisons import greater, greater_equal, less

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "silu", "swish", "softsign",
           "log_sigmoid"]


def relu(features, name=None):
    """max(features, 0); the gradient at 0 is 0, as in TF."""
    return _m.relu(as_tensor(features))


def relu6(features, name=None):
    """min(max(features, 0), 6); the gradient is 1 strictly inside (0, 6), as TF."""
    x = as_tensor(features)
    six = _m.const(6, x)
    return _m.select(less(x, six), _m.relu(x), six)


def leaky_relu(features, alpha=0.2, name=None):
    """features where positive, else alpha * features (gradient alpha at 0, as TF)."""
    x = as_tensor(features)
    if x._value.dtype.kind in "iu":
        x = _m.cast(x, dtype=np.dtype(np.float32))  # TF casts integer features too
    return _m.select(greater(x, _m.const(0, x)), x, _m.multiply(x, _m.const(alpha, x)))


def _negative_part(x):
    """expm1(min(x, 0)): ELU's negative branch, never overflowing for large x. The
    min is a select (NaN stays NaN), as minimum's VJP reads values in Python."""
    zero = _m.const(0, x)
    return _m.expm1(_m.select(greater(x, zero), zero, x))


def elu(features, name=None):
    """features where positive, else exp(features) - 1."""
    x = float_input(features, "Elu")
    # TF's Elu/EluGrad take the linear branch at 0 (`features < 0` picks exp).
    return _m.select(greater_equal(x, _m.const(0, x)), x, _negative_part(x))


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(features, name=None):
    """scale * (features if positive else alpha * (exp(features) - 1)), TF's constants."""
    x = float_input(features, "Selu")
    negative_part = _m.multiply(_m.const(_SELU_ALPHA, x), _negative_part(x))
    # TF's SeluGrad takes the linear branch at 0: the gradient there is scale, not
    # scale * alpha.
    return _m.multiply(_m.const(_SELU_SCALE, x),
                       _m.select(greater_equal(x, _m.const(0, x)), x, negative_part))


def gelu(features, approximate=False, name=None):
    """Gaussian error linear unit, as tf.nn.gelu.

    Args:
        approximate: False (TF's default) for x * Phi(x) with the exact erf;
            True for the tanh approximation
            0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))).
    """
    x = float_input(features, "Gelu")
    half, one = _m.const(0.5, x), _m.const(1, x)
    if approximate:
        cubic = _m.multiply(_m.const(0.044715, x), _m.multiply(x, _m.square(x)))
        inner = _m.multiply(_m.const(0.7978845608028654, x), _m.add(x, cubic))
        return _m.multiply(_m.multiply(half, x), _m.add(one, _m.tanh(inner)))
    phi = _m.add(one, _m.erf(_m.multiply(x, _m.const(0.7071067811865476, x))))
    return _m.multiply(_m.multiply(half, x), phi)


def silu(features, beta=1.0, name=None):
    """features * sigmoid(beta * features) (tf.nn.silu, also tf.nn.swish)."""
    x = float_input(features, "Silu")
    scaled = x if beta == 1.0 else _m.multiply(x, _m.const(beta, x))
    return _m.multiply(x, _m.sigmoid(scaled))


swish = silu


def softsign(features, name=None):
    """features / (1 + |features|)."""
    x = float_input(features, "Softsign")
    return _m.divide(x, _m.add(_m.const(1, x), _m.abs(x)))


def log_sigmoid(x, name=None):
    """log(sigmoid(x)) = -softplus(-x), stable for large |x|."""
    x = float_input(x, "LogSigmoid")
    return _m.negative(_m.softplus(_m.negative(x)))
