"""_checks.py holds the argument checks tf.random's stateful and stateless ops share:
shapes, float dtypes, and `values * scale + shift` with TF's gradients."""

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ..ops import math as _m


def shape(shape, op_name):
    if isinstance(shape, Tensor):
        shape = shape._value.tolist()
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        shape = tuple(int(d) for d in shape)
    except (TypeError, ValueError):
        raise TypeError(f"{op_name}: shape must be a list of ints, got {shape!r}.") from None
    if any(d < 0 for d in shape):
        raise InvalidArgumentError(f"{op_name}: shape {list(shape)} has a negative dimension.")
    return shape


def float_dtype(dtype, op_name):
    d = dtypes.as_dtype(dtype)
    if not d.is_floating:
        raise InvalidArgumentError(f"Value for attr 'dtype' of {d.name} is not in the list of "
                                   f"allowed values: half, bfloat16, float, double "
                                   f"[Op:{op_name}]")
    return d._np


def scale_shift(values, scale, shift):
    """`values * scale + shift`; tensor arguments get gradients, as in TF."""
    out = Tensor(values)
    dtype = values.dtype
    if isinstance(scale, Tensor) or isinstance(shift, Tensor):
        scale, shift = (param(v, dtype) for v in (scale, shift))
        return _m.add(_m.multiply(out, scale), shift)
    return Tensor((values * np.asarray(scale, dtype) + np.asarray(shift, dtype)).astype(dtype))


def param(value, dtype):
    """A distribution parameter as a Tensor of `dtype`; a Variable is used as it is,
    so that a tape watching it sees the op."""
    if not isinstance(value, Tensor):
        return Tensor(np.asarray(value, dtype))
    if value._value.dtype != dtype:
        raise InvalidArgumentError(f"A distribution parameter of dtype {value.dtype.name} "
                                   f"does not match the requested dtype {np.dtype(dtype)}.")
    return value
