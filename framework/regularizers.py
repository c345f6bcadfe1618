"""regularizers.py is `tf.keras.regularizers`: penalties on a weight (or a
layer's output) that layers add to `layer.losses`. Each is a callable
`regularizer(x) -> scalar Tensor` with a config; `get` looks them up by name."""

from .core.lookup import Lookup
from . import math as _math

__all__ = ["Regularizer", "L1", "L2", "L1L2", "l1", "l2", "l1_l2", "get", "serialize",
           "deserialize"]


def _check(value, what):
    value = float(value)
    if value < 0:
        raise ValueError(f"Regularization factor {what} must be non-negative, got {value}.")
    return value


class Regularizer:
    """Base class: `__call__(x)` returns a scalar penalty."""

    def __call__(self, x):
        return 0.0

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"{type(self).__name__}({self.get_config()})"


class L1(Regularizer):
    """`l1 * reduce_sum(abs(x))`, l1 = 0.01 by default."""

    def __init__(self, l1=0.01):
        self.l1 = _check(l1, "l1")

    def __call__(self, x):
        return _math.multiply(_math.reduce_sum(_math.abs(x)), self.l1)

    def get_config(self):
        return {"l1": self.l1}


class L2(Regularizer):
    """`l2 * reduce_sum(square(x))`, l2 = 0.01 by default."""

    def __init__(self, l2=0.01):
        self.l2 = _check(l2, "l2")

    def __call__(self, x):
        return _math.multiply(_math.reduce_sum(_math.square(x)), self.l2)

    def get_config(self):
        return {"l2": self.l2}


class L1L2(Regularizer):
    """`l1 * sum(abs(x)) + l2 * sum(square(x))`; both 0 by default, as in Keras 3."""

    def __init__(self, l1=0.0, l2=0.0):
        self.l1 = _check(l1, "l1")
        self.l2 = _check(l2, "l2")

    def __call__(self, x):
        total = _math.multiply(_math.reduce_sum(_math.abs(x)), self.l1)
        return _math.add(total, _math.multiply(_math.reduce_sum(_math.square(x)), self.l2))

    def get_config(self):
        return {"l1": self.l1, "l2": self.l2}


# Keras 3 exports the classes under the lowercase names too.
l1, l2, l1_l2 = L1, L2, L1L2

_BY_NAME = {"l1": L1, "l2": L2, "l1_l2": L1L2, "L1": L1, "L2": L2, "L1L2": L1L2}


_LOOKUP = Lookup("regularizer", Regularizer, _BY_NAME)
serialize = _LOOKUP.serialize
deserialize = _LOOKUP.deserialize
get = _LOOKUP.get
