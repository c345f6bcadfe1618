"""stateless.py holds TF 2's stateless random ops (`tf.random.stateless_*`,
`tf.random.split`, `tf.random.fold_in`): pure functions of a (2,) seed, with
the values TF gives for the same seed, shape and dtype on the CPU (TF's
Philox generator and sample transforms are ported in philox.py; float32
normals call glibc's logf/sinf/cosf near rounding ties, as TF does, so on
another C library a value may differ from TF's in its last bit).
`mean`/`stddev`/`minval`/`maxval` tensors get gradients, as in TF.
"""

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError, UnimplementedError
from ..core.tensor import Tensor, as_tensor, convert_to_tensor
from . import philox
from ._checks import param, scale_shift, shape as checked_shape
from ..ops import math as _m

__all__ = ["stateless_uniform", "stateless_normal", "stateless_truncated_normal",
           "stateless_categorical", "split", "fold_in"]

_ALGORITHMS = {"philox": 1, "threefry": 2, "auto_select": 3}
_UNIFORM_DTYPES = ("float16", "float32", "float64", "int32", "int64", "uint32", "uint64")


def _key_counter(seed, alg, op_name):
    """(key, counter) of a (2,) int32/int64 seed, as StatelessRandomGetKeyCounter."""
    name = alg.lower() if isinstance(alg, str) else {v: k for k, v in _ALGORITHMS.items()}.get(
        getattr(alg, "value", alg))
    if name not in _ALGORITHMS:
        raise ValueError(f"Unsupported algorithm id: {alg!r}; expected one of "
                         f"{sorted(_ALGORITHMS)}.")
    if name == "threefry":
        raise UnimplementedError(f"{op_name}: tapeflow implements the Philox algorithm "
                                 "('philox', 'auto_select'), not ThreeFry.")
    seed = as_tensor(seed)
    if seed.dtype not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(f"Value for attr 'Tseed' of {seed.dtype.name} is not in the "
                                   f"list of allowed values: int32, int64 [Op:{op_name}]")
    if tuple(seed.shape) != (2,):
        raise InvalidArgumentError(f"seed must have shape [2], not {list(seed.shape)} "
                                   f"[Op:{op_name}]")
    return philox.key_counter(*seed._value.tolist())


def _size(shape):
    return int(np.prod(shape, dtype=np.int64))


def check_uniform_dtype(dtype):
    d = dtypes.as_dtype(dtype)
    if d.name not in _UNIFORM_DTYPES:
        raise ValueError(f"Argument `dtype` got invalid value {d!r}. Accepted dtypes are "
                         "(tf.float16, tf.float32, tf.float64, tf.int32, tf.int64, tf.uint32, "
                         "tf.uint64).")
    return d


def uniform_from(key, counter, shape, minval, maxval, d):
    """The uniform draw of `stateless_uniform` from a (key, counter): shared with
    tf.random.Generator, whose state is a key and a counter."""
    size = _size(shape)
    if d.is_integer:
        if (minval is None) != (maxval is None):
            raise ValueError(f"For integer `dtype` argument {d!r}, argument `minval` and "
                             f"`maxval` must be both None or not None. Got `minval`={minval} "
                             f"and `maxval`={maxval}.")
        if minval is None:
            return Tensor(philox.full_int(key, counter, size, d._np).reshape(shape))
        lo, hi = (as_tensor(v)._value for v in (minval, maxval))
        if lo.ndim or hi.ndim:
            raise InvalidArgumentError(f"minval must be 0-D, got shape {list(lo.shape)}; maxval "
                                       f"must be 0-D, got shape {list(hi.shape)} "
                                       "[Op:StatelessRandomUniformIntV2]")
        lo, hi = int(lo), int(hi)
        if lo >= hi:
            raise InvalidArgumentError(f"Need minval < maxval, got {lo} >= {hi} "
                                       "[Op:StatelessRandomUniformIntV2]")
        return Tensor(philox.uniform_int(key, counter, size, d._np, lo, hi).reshape(shape))
    values = philox.uniform(key, counter, size, d._np).reshape(shape)
    maxval = 1 if maxval is None else maxval
    if not isinstance(minval, Tensor) and not isinstance(maxval, Tensor):
        lo, hi = np.asarray(minval, d._np), np.asarray(maxval, d._np)
        return Tensor((values * (hi - lo) + lo).astype(d._np, copy=False))
    lo, hi = param(minval, d._np), param(maxval, d._np)
    return _m.add(_m.multiply(Tensor(values), _m.subtract(hi, lo)), lo)


def stateless_uniform(shape, seed, minval=0, maxval=None, dtype=dtypes.float32, name=None,
                      alg="auto_select"):
    """Uniform values in [minval, maxval), a function of `seed` only.

    Integer dtypes need both `minval` and `maxval` (values `minval + bits % range`,
    as TF), or neither: then the whole range of int32/int64/uint32/uint64.

    Raises:
        ValueError: an unsupported dtype, or only one bound for an integer dtype.
        InvalidArgumentError: minval >= maxval for integers; a bad seed.
    """
    d = check_uniform_dtype(dtype)
    shape = checked_shape(shape, "StatelessRandomUniformV2")
    key, counter = _key_counter(seed, alg, "StatelessRandomGetKeyCounter")
    return uniform_from(key, counter, shape, minval, maxval, d)


def check_float_dtype(dtype, mean, op_name):
    d = dtypes.as_dtype(dtype)
    if d.name not in ("float16", "float32", "float64"):
        raise TypeError(f"Cannot convert {float(np.asarray(mean, np.float64))!r} to EagerTensor "
                        f"of dtype {d.name} ({op_name} draws float16, float32 or float64).")
    return d


def scaled_from(draw, key, counter, shape, mean, stddev, d):
    """`mean + stddev * draw(...)`: shared with tf.random.Generator."""
    values = draw(key, counter, _size(shape), d._np).reshape(shape)
    return scale_shift(values, stddev, mean)


def _float_op(draw, op_name, shape, seed, mean, stddev, dtype, alg):
    d = check_float_dtype(dtype, mean, op_name)
    shape = checked_shape(shape, op_name)
    key, counter = _key_counter(seed, alg, "StatelessRandomGetKeyCounter")
    return scaled_from(draw, key, counter, shape, mean, stddev, d)


def stateless_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None,
                     alg="auto_select"):
    """Normal values, `mean + stddev * N(0, 1)`, a function of `seed` only (TF's values)."""
    return _float_op(philox.normal, "StatelessRandomNormalV2", shape, seed, mean, stddev, dtype,
                     alg)


def stateless_truncated_normal(shape, seed, mean=0.0, stddev=1.0, dtype=dtypes.float32,
                               name=None, alg="auto_select"):
    """Normal values redrawn beyond 2 standard deviations, a function of `seed` only."""
    return _float_op(philox.truncated_normal, "StatelessTruncatedNormalV2", shape, seed, mean,
                     stddev, dtype, alg)


def stateless_categorical(logits, num_samples, seed, dtype=dtypes.int64, name=None):
    """Class indices drawn from each row of `logits` ((batch, classes)), a function of
    `seed` only; TF's values for inputs small enough that TF uses one CPU thread.

    Raises:
        InvalidArgumentError: `logits` not a matrix, a bad seed, a bad dtype.
    """
    x = as_tensor(logits)._value
    if x.ndim != 2:
        raise InvalidArgumentError(f"logits should be a matrix, got shape {list(x.shape)} "
                                   "[Op:StatelessMultinomial]")
    d = dtypes.as_dtype(dtype)
    if d not in (dtypes.int32, dtypes.int64):
        raise InvalidArgumentError(f"Value for attr 'output_dtype' of {d.name} is not in the "
                                   "list of allowed values: int32, int64 "
                                   "[Op:StatelessMultinomial]")
    n = int(as_tensor(num_samples)._value)
    if n < 0:
        raise InvalidArgumentError(f"num_samples should be nonnegative, got {n} "
                                   "[Op:StatelessMultinomial]")
    key, counter = _key_counter(seed, "philox", "StatelessMultinomial")
    return Tensor(philox.multinomial(key, counter, x, n).astype(d._np))


def split(seed, num=2, alg="auto_select"):
    """`num` new seeds of shape (2,), stacked, from `seed` (tf.random.split)."""
    seed = as_tensor(seed)
    return stateless_uniform([int(num), 2], seed, minval=None, maxval=None, dtype=seed.dtype,
                             alg=alg)


def fold_in(seed, data, alg="auto_select"):
    """A new seed from `seed` and the integer `data` (tf.random.fold_in): `[bits, data]`."""
    data = convert_to_tensor(data)
    if not data.dtype.is_integer:
        raise ValueError(f"fold_in: `data` must be an integer, got dtype {data.dtype.name}.")
    seed1 = stateless_uniform([], seed, minval=None, maxval=None, dtype=data.dtype, alg=alg)
    return Tensor(np.stack([seed1._value, data._value]))
