"""constraints.py is `tf.keras.constraints`: projections an optimizer applies to
a weight after each update (`variable.assign(constraint(variable))`). Each is
a callable `constraint(w) -> Tensor` with a config; `get` looks them up by name."""

from .core.lookup import Lookup
from . import math as _math
from .api.array_ops import cast as _cast

__all__ = ["Constraint", "MaxNorm", "NonNeg", "UnitNorm", "MinMaxNorm", "get", "serialize",
           "deserialize"]

_EPSILON = 1e-7  # Keras's backend epsilon


def _norms(w, axis):
    return _math.sqrt(_math.reduce_sum(_math.square(w), axis=axis, keepdims=True))


class Constraint:
    """Base class: `__call__(w)` returns the projected weight."""

    def __call__(self, w):
        return w

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"{type(self).__name__}({self.get_config()})"


class MaxNorm(Constraint):
    """Scale slices along `axis` whose L2 norm exceeds `max_value` (2) down to it."""

    def __init__(self, max_value=2, axis=0):
        self.max_value, self.axis = max_value, axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        desired = _math.minimum(_math.maximum(norms, 0.0), float(self.max_value))
        return _math.multiply(w, _math.divide(desired, _math.add(norms, _EPSILON)))

    def get_config(self):
        return {"max_value": self.max_value, "axis": self.axis}


class NonNeg(Constraint):
    """Set negative entries to zero."""

    def __call__(self, w):
        return _math.multiply(w, _cast(_math.greater_equal(w, 0.0), w.dtype))


class UnitNorm(Constraint):
    """Scale slices along `axis` to unit L2 norm."""

    def __init__(self, axis=0):
        self.axis = axis

    def __call__(self, w):
        return _math.divide(w, _math.add(_norms(w, self.axis), _EPSILON))

    def get_config(self):
        return {"axis": self.axis}


class MinMaxNorm(Constraint):
    """Move slice norms into [min_value, max_value] at `rate` (1 = all the way)."""

    def __init__(self, min_value=0.0, max_value=1.0, rate=1.0, axis=0):
        self.min_value, self.max_value, self.rate, self.axis = min_value, max_value, rate, axis

    def __call__(self, w):
        norms = _norms(w, self.axis)
        clipped = _math.minimum(_math.maximum(norms, float(self.min_value)),
                                float(self.max_value))
        desired = _math.add(_math.multiply(clipped, float(self.rate)),
                            _math.multiply(norms, 1.0 - float(self.rate)))
        return _math.multiply(w, _math.divide(desired, _math.add(norms, _EPSILON)))

    def get_config(self):
        return {"min_value": self.min_value, "max_value": self.max_value, "rate": self.rate,
                "axis": self.axis}


max_norm, non_neg, unit_norm, min_max_norm = MaxNorm, NonNeg, UnitNorm, MinMaxNorm

_BY_NAME = {"max_norm": MaxNorm, "non_neg": NonNeg, "unit_norm": UnitNorm,
            "min_max_norm": MinMaxNorm, "MaxNorm": MaxNorm, "NonNeg": NonNeg,
            "UnitNorm": UnitNorm, "MinMaxNorm": MinMaxNorm}


_LOOKUP = Lookup("constraint", Constraint, _BY_NAME)
serialize = _LOOKUP.serialize
deserialize = _LOOKUP.deserialize
get = _LOOKUP.get
