"""initializers.py is `tf.keras.initializers`: the objects that give a new weight
its first value (`initializer(shape, dtype)` -> Tensor), looked up by name with
`get`. Random ones draw from `tapeflow.random.generator(seed)`, so a seed (op
level or global) repeats the values. Layers call them; they know no layers."""

import math
import sys

import numpy as np

from .core import dtypes
from .random import generator
from .core.tensor import Tensor
from .core.tensor import constant as _tf_constant  # `constant` is Keras's alias below

__all__ = ["Initializer", "Zeros", "Ones", "Constant", "RandomNormal", "RandomUniform",
           "TruncatedNormal", "VarianceScaling", "GlorotUniform", "GlorotNormal", "HeUniform",
           "HeNormal", "LecunUniform", "LecunNormal", "Orthogonal", "Identity", "get",
           "serialize", "deserialize", "compute_fans", "ConstantInitializer",
           "zeros_initializer", "ones_initializer", "constant_initializer",
           "random_uniform_initializer", "random_normal_initializer",
           "glorot_uniform_initializer", "glorot_normal_initializer"]


def _np_dtype(dtype):
    return np.dtype(np.float32) if dtype is None else dtypes.as_dtype(dtype)._np


def _shape(shape):
    return tuple(int(d) for d in shape) if not isinstance(shape, (int, np.integer)) else (
        int(shape),)


def compute_fans(shape):
    """Keras's (fan_in, fan_out) of a weight shape.

    Conv kernels (rank > 2, shape (*kernel_size, in, out)) multiply by the
    receptive field size; a scalar has fans (1, 1) and a vector (n, n).
    """
    shape = _shape(shape)
    if len(shape) == 0:
        return 1, 1
    if len(shape) == 1:
        return shape[0], shape[0]
    if len(shape) == 2:
        return shape[0], shape[1]
    receptive = int(np.prod(shape[:-2]))
    return shape[-2] * receptive, shape[-1] * receptive


class Initializer:
    """Base class: `__call__(shape, dtype=None)` returns a Tensor of that shape."""

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement __call__.")

    def get_config(self):
        return {}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def clone(self):
        return type(self).from_config(self.get_config())

    def __repr__(self):
        return f"{type(self).__name__}({self.get_config()})"


class Zeros(Initializer):
    """All zeros."""

    def __call__(self, shape, dtype=None, **kwargs):
        return Tensor(np.zeros(_shape(shape), _np_dtype(dtype)))


class Ones(Initializer):
    """All ones."""

    def __call__(self, shape, dtype=None, **kwargs):
        return Tensor(np.ones(_shape(shape), _np_dtype(dtype)))


class Constant(Initializer):
    """Every entry `value` (a scalar, or an array broadcastable to the shape)."""

    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None, **kwargs):
        value = np.asarray(getattr(self.value, "_value", self.value), _np_dtype(dtype))
        return Tensor(np.array(np.broadcast_to(value, _shape(shape))))

    def get_config(self):
        value = self.value
        return {"value": value.tolist() if isinstance(value, np.ndarray) else value}


class _Random(Initializer):
    def __init__(self, seed=None):
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise ValueError(f"{type(self).__name__}: seed must be an int or None, got {seed!r}.")
        self.seed = seed

    def _rng(self):
        return generator(self.seed)

    def get_config(self):
        return {"seed": self.seed}


class RandomNormal(_Random):
    """Normal draws of mean `mean` and standard deviation `stddev` (0.05)."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=None, **kwargs):
        np_dtype = _np_dtype(dtype)
        if np_dtype.kind != "f":
            raise ValueError(f"{type(self).__name__}: argument `dtype` is expected to be "
                             f"floating point. Received: {dtypes.as_dtype(dtype).name}.")
        values = self._rng().normal(self.mean, self.stddev, _shape(shape))
        return Tensor(values.astype(np_dtype))

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class RandomUniform(_Random):
    """Uniform draws in [minval, maxval) ((-0.05, 0.05) by default)."""

    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        super().__init__(seed)
        self.minval, self.maxval = minval, maxval

    def __call__(self, shape, dtype=None, **kwargs):
        np_dtype = _np_dtype(dtype)
        if np_dtype.kind in "iu":
            values = self._rng().integers(self.minval, self.maxval, _shape(shape))
        else:
            values = self._rng().uniform(self.minval, self.maxval, _shape(shape))
        return Tensor(values.astype(np_dtype))

    def get_config(self):
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


def _truncated_normal(rng, shape, stddev):
    """Standard normal draws beyond two standard deviations are redrawn, as in TF."""
    values = rng.standard_normal(shape)
    bad = np.abs(values) > 2.0
    while bad.any():
        values[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(values) > 2.0
    return values * stddev


class TruncatedNormal(_Random):
    """Normal draws, redrawn beyond two standard deviations from the mean."""

    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        super().__init__(seed)
        self.mean, self.stddev = mean, stddev

    def __call__(self, shape, dtype=None, **kwargs):
        values = self.mean + _truncated_normal(self._rng(), _shape(shape), self.stddev)
        return Tensor(values.astype(_np_dtype(dtype)))

    def get_config(self):
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class VarianceScaling(_Random):
    """Draws scaled to the weight's fans, the rule behind Glorot, He and LeCun.

    With n = fan_in, fan_out or their mean (`mode`): 'truncated_normal' has
    stddev sqrt(scale / n) / 0.8796 (the truncation's correction),
    'untruncated_normal' sqrt(scale / n), 'uniform' limit sqrt(3 scale / n).

    Raises:
        ValueError: for a non-positive scale or an unknown mode or distribution.
    """

    _MODES = ("fan_in", "fan_out", "fan_avg")
    _DISTRIBUTIONS = ("truncated_normal", "untruncated_normal", "uniform", "normal")

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        super().__init__(seed)
        if scale <= 0.0:
            raise ValueError(f"VarianceScaling: scale must be positive, got {scale}.")
        if mode not in self._MODES:
            raise ValueError(f"VarianceScaling: invalid mode {mode!r}; expected one of "
                             f"{self._MODES}.")
        distribution = distribution.lower()
        if distribution not in self._DISTRIBUTIONS:
            raise ValueError(f"VarianceScaling: invalid distribution {distribution!r}; expected "
                             f"one of {self._DISTRIBUTIONS}.")
        if distribution == "normal":
            distribution = "truncated_normal"
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def __call__(self, shape, dtype=None, **kwargs):
        shape = _shape(shape)
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[
            self.mode]
        scale = self.scale / max(1.0, n)
        rng = self._rng()
        if self.distribution == "truncated_normal":
            values = _truncated_normal(rng, shape, math.sqrt(scale) / 0.87962566103423978)
        elif self.distribution == "untruncated_normal":
            values = rng.standard_normal(shape) * math.sqrt(scale)
        else:
            limit = math.sqrt(3.0 * scale)
            values = rng.uniform(-limit, limit, shape)
        return Tensor(values.astype(_np_dtype(dtype)))

    def get_config(self):
        return {"scale": self.scale, "mode": self.mode, "distribution": self.distribution,
                "seed": self.seed}


def _fixed(name, scale, mode, distribution, doc):
    def __init__(self, seed=None):
        VarianceScaling.__init__(self, scale, mode, distribution, seed)

    def get_config(self):
        return {"seed": self.seed}

    return type(name, (VarianceScaling,), {"__init__": __init__, "get_config": get_config,
                                           "__doc__": doc, "__module__": __name__})


GlorotUniform = _fixed("GlorotUniform", 1.0, "fan_avg", "uniform",
                       "Uniform in +-sqrt(6 / (fan_in + fan_out)) (Xavier uniform).")
GlorotNormal = _fixed("GlorotNormal", 1.0, "fan_avg", "truncated_normal",
                      "Truncated normal, stddev sqrt(2 / (fan_in + fan_out)).")
HeUniform = _fixed("HeUniform", 2.0, "fan_in", "uniform", "Uniform in +-sqrt(6 / fan_in).")
HeNormal = _fixed("HeNormal", 2.0, "fan_in", "truncated_normal",
                  "Truncated normal, stddev sqrt(2 / fan_in).")
LecunUniform = _fixed("LecunUniform", 1.0, "fan_in", "uniform",
                      "Uniform in +-sqrt(3 / fan_in).")
LecunNormal = _fixed("LecunNormal", 1.0, "fan_in", "truncated_normal",
                     "Truncated normal, stddev sqrt(1 / fan_in).")


class Orthogonal(_Random):
    """A (semi-)orthogonal matrix times `gain`, from the QR of a normal draw.

    Shapes of rank > 2 are treated as (prod(shape[:-1]), shape[-1]).

    Raises:
        ValueError: for a shape of rank below 2.
    """

    def __init__(self, gain=1.0, seed=None):
        super().__init__(seed)
        self.gain = gain

    def __call__(self, shape, dtype=None, **kwargs):
        shape = _shape(shape)
        if len(shape) < 2:
            raise ValueError(f"Orthogonal initializer needs a shape of rank >= 2, got {shape}.")
        rows, cols = int(np.prod(shape[:-1])), shape[-1]
        a = self._rng().standard_normal((max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return Tensor((self.gain * q).reshape(shape).astype(_np_dtype(dtype)))

    def get_config(self):
        return {"gain": self.gain, "seed": self.seed}


class Identity(Initializer):
    """`gain` times the identity matrix (2-D shapes only).

    Raises:
        ValueError: for a shape that is not 2-D.
    """

    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None, **kwargs):
        shape = _shape(shape)
        if len(shape) != 2:
            raise ValueError(f"Identity initializer needs a 2-D shape, got {shape}.")
        return Tensor((self.gain * np.eye(*shape)).astype(_np_dtype(dtype)))

    def get_config(self):
        return {"gain": self.gain}


class ConstantInitializer(Constant):
    """`tf.constant_initializer(value=0)`: TF 2's init_ops_v2.Constant.

    Unlike Keras's Constant, it builds its value as `tf.constant(value, dtype,
    shape)` does: a scalar broadcasts, a list or array with as many elements as
    the shape is reshaped to it, and with `dtype=None` the result keeps the
    value's own dtype (int32 for the default 0).

    Raises:
        TypeError: for a value that is not a scalar, list, tuple or ndarray, and
            when called, for a value whose size fits neither way.
    """

    def __init__(self, value=0):
        if not (np.isscalar(value) or isinstance(value, (list, tuple, np.ndarray))):
            raise TypeError(f"Invalid type for initial value: {type(value).__name__}. Expected "
                            "Python scalar, list or tuple of values, or numpy.ndarray.")
        super().__init__(value)

    def __call__(self, shape, dtype=None, **kwargs):
        return _tf_constant(self.value, dtype=dtype, shape=_shape(shape))


_BY_NAME = {
    "zeros": Zeros, "zero": Zeros, "ones": Ones, "one": Ones, "constant": Constant,
    "random_normal": RandomNormal, "normal": RandomNormal,
    "random_uniform": RandomUniform, "uniform": RandomUniform,
    "truncated_normal": TruncatedNormal, "variance_scaling": VarianceScaling,
    "glorot_uniform": GlorotUniform, "glorot_normal": GlorotNormal,
    "he_uniform": HeUniform, "he_normal": HeNormal, "lecun_uniform": LecunUniform,
    "lecun_normal": LecunNormal, "orthogonal": Orthogonal, "identity": Identity,
}
_BY_CLASS = {cls.__name__: cls for cls in set(_BY_NAME.values()) | {ConstantInitializer}}


def serialize(initializer):
    """{'class_name': ..., 'config': ...} for `deserialize`. A plain function given as
    an initializer (`kernel_initializer=tf.random.normal`) is stored as Keras 3 stores
    a function: its name and module, {'class_name': 'function', ...}."""
    if not isinstance(initializer, Initializer) and callable(initializer):
        return {"module": getattr(initializer, "__module__", None), "class_name": "function",
                "config": getattr(initializer, "__name__", repr(initializer)),
                "registered_name": "function"}
    return {"class_name": type(initializer).__name__, "config": initializer.get_config()}


def deserialize(config):
    """An initializer from `serialize`'s dict. A stored function is found again only if
    tapeflow defines it (a file names modules; loading never imports others)."""
    name = config.get("class_name")
    if name == "function":
        function = tapeflow_function(config.get("module"), config.get("config"))
        if function is None:
            raise ValueError(f"Unknown initializer function {config.get('module')}."
                             f"{config.get('config')}: a saved function is found again only "
                             "among tapeflow's own; pass it in custom_objects or register it "
                             "with register_keras_serializable.")
        return function
    cls = _BY_CLASS.get(name) or _BY_NAME.get(name)
    if cls is None:
        raise ValueError(f"Unknown initializer class {name!r}.")
    return cls.from_config(config.get("config", {}))


def get(identifier):
    """An initializer from a name ('glorot_uniform'), a dict, an instance or a callable.

    Raises:
        ValueError: for an unknown name (the message lists the valid ones).
    """
    if identifier is None or isinstance(identifier, Initializer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier) or _BY_NAME.get(identifier.lower()) or _BY_CLASS.get(
            identifier)
        if cls is None:
            raise ValueError(f"Unknown initializer: {identifier!r}. Valid names are "
                             f"{sorted(_BY_NAME)} and the class names {sorted(_BY_CLASS)}.")
        return cls()
    if isinstance(identifier, type) and issubclass(identifier, Initializer):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret initializer identifier: {identifier!r}.")


# Keras's lowercase aliases (`tf.keras.initializers.glorot_uniform()`).
zeros, ones, constant = Zeros, Ones, Constant
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
variance_scaling, orthogonal, identity = VarianceScaling, Orthogonal, Identity
glorot_uniform, glorot_normal, he_uniform, he_normal = (GlorotUniform, GlorotNormal, HeUniform,
                                                        HeNormal)
lecun_uniform, lecun_normal = LecunUniform, LecunNormal

# TF 2's root names (tf.zeros_initializer, ...): the classes of TF's init_ops_v2.py,
# whose defaults are those of the Keras classes above, except Constant's (see
# ConstantInitializer). The glorot names are TF 1's (tf.compat.v1 in TF 2), kept at
# the root because TF-1-style programs call them.
zeros_initializer, ones_initializer, constant_initializer = Zeros, Ones, ConstantInitializer
random_uniform_initializer, random_normal_initializer = RandomUniform, RandomNormal
glorot_uniform_initializer, glorot_normal_initializer = GlorotUniform, GlorotNormal



def tapeflow_function(module, name):
    """The function `module.name` if the module is tapeflow's and already imported,
    else None: a saved file names a function, and loading never imports a module."""
    if not isinstance(module, str) or not (module == "tapeflow" or
                                           module.startswith("tapeflow.")):
        return None
    function = getattr(sys.modules.get(module), str(name), None)
    return function if callable(function) else None
