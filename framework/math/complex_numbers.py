"""complex_numbers.py: tf.complex and tf.math's real, imag, conj and angle, with
TF's dtype rules in front of the primitives of ops/math.py (which hold the
VJPs, in TF's convention for complex gradients)."""

import numpy as np

from ..core.tensor import Tensor, as_tensor
from ..ops import math as _c

__all__ = ["complex", "real", "imag", "conj", "angle"]

_PAIRS = {np.dtype(np.float32): "complex64", np.dtype(np.float64): "complex128"}


def complex(real, imag, name=None):  # noqa: A001 -- TF's name
    """`real + i * imag`, broadcast: float32 parts give complex64, float64 complex128.

    Raises:
        TypeError: if the parts are not both float32 or both float64 (TF's rule).
    """
    x, y = as_tensor(real), as_tensor(imag)
    if x._value.dtype != y._value.dtype or x._value.dtype not in _PAIRS:
        raise TypeError(f"tf.complex needs real and imag of the same dtype, float32 or float64; "
                        f"got {x.dtype.name} and {y.dtype.name}.")
    return _c.complex(x, y)


def real(input, name=None):  # noqa: A002
    """The real part of a complex tensor; a real tensor is returned as it is (TF)."""
    z = as_tensor(input)
    return _c.real(z) if z._value.dtype.kind == "c" else z


def imag(input, name=None):  # noqa: A002
    """The imaginary part of a complex tensor; zeros for a real tensor (TF)."""
    z = as_tensor(input)
    if z._value.dtype.kind == "c":
        return _c.imag(z)
    return Tensor(np.zeros_like(z._value))


def conj(x, name=None):
    """The complex conjugate; a real tensor is returned as it is (TF)."""
    z = as_tensor(x)
    return _c.conj(z) if z._value.dtype.kind == "c" else z


def angle(input, name=None):  # noqa: A002
    """The argument of each element, atan2(imag, real); for a real tensor pi where it
    is negative and 0 elsewhere, as TF. Not differentiable."""
    z = as_tensor(input)
    out_dtype = z._value.real.dtype if z._value.dtype.kind == "c" else z._value.dtype
    if z._value.dtype.kind not in "fc":
        raise TypeError(f"tf.math.angle needs a float or complex tensor, got {z.dtype.name}.")
    return Tensor(np.angle(z._value).astype(out_dtype, copy=False))
