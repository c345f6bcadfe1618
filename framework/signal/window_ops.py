"""window_ops.py: tf.signal's window functions, computed in the requested dtype
with TF's formulas (tensorflow/python/ops/signal/window_ops.py), so float32
windows equal TF's to the last bit or so. They are constants: no gradient."""

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor

__all__ = ["hann_window", "hamming_window", "vorbis_window", "kaiser_window"]


def _check(window_length, dtype):
    dtype = dtypes.as_dtype(dtype)
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Found {dtype!r}")
    if isinstance(window_length, Tensor):
        if window_length._value.ndim != 0:
            raise ValueError(f"window_length must be a scalar, got shape "
                             f"{tuple(window_length._value.shape)}.")
        window_length = window_length._value
    if isinstance(window_length, (bool, np.bool_)) or not isinstance(window_length,
                                                                     (int, np.integer)):
        raise TypeError(f"window_length must be an integer, got {window_length!r}.")
    if window_length < 0:
        raise ValueError(f"window_length must be non-negative, got {int(window_length)}.")
    return int(window_length), dtype._np.type


def _raised_cosine(window_length, periodic, dtype, a, b):
    n_samples, t = _check(window_length, dtype)
    if n_samples == 1:
        return Tensor(np.ones(1, t))
    periodic = bool(periodic._value if isinstance(periodic, Tensor) else periodic)
    even = 1 - n_samples % 2
    # As TF: a periodic window of odd length is the symmetric one (periodic * even).
    n = t(n_samples + int(periodic) * even - 1)
    cos_arg = t(2 * np.pi) * np.arange(n_samples).astype(t) / n
    return Tensor((t(a) - t(b) * np.cos(cos_arg)).astype(t))


def hann_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """A Hann window 0.5 - 0.5 cos(2 pi n / N), as tf.signal.hann_window.

    `periodic=True` (TF's default) uses N = window_length for even lengths, the
    spectral-analysis window; otherwise (and for odd lengths, as in TF) N =
    window_length - 1, the symmetric one.

    >>> tf.signal.hann_window(4).numpy()
    array([0. , 0.5, 1. , 0.5], dtype=float32)

    Raises:
        ValueError: a non-floating dtype.
    """
    return _raised_cosine(window_length, periodic, dtype, 0.5, 0.5)


def hamming_window(window_length, periodic=True, dtype=dtypes.float32, name=None):
    """A Hamming window 0.54 - 0.46 cos(2 pi n / N), as tf.signal.hamming_window
    (N as in hann_window)."""
    return _raised_cosine(window_length, periodic, dtype, 0.54, 0.46)


def vorbis_window(window_length, dtype=dtypes.float32, name=None):
    """The Vorbis power-complementary window sin(pi/2 sin^2(pi (n + 0.5) / N)), as
    tf.signal.vorbis_window."""
    n_samples, t = _check(window_length, dtype)
    arg = np.arange(n_samples).astype(t)
    inner = np.sin(t(np.pi) / t(max(n_samples, 1)) * (arg + t(0.5)))
    return Tensor(np.sin(t(np.pi / 2.0) * inner ** t(2.0)).astype(t))


def kaiser_window(window_length, beta=12.0, dtype=dtypes.float32, name=None):
    """A Kaiser window I0(beta sqrt(1 - (2n/(N-1) - 1)^2)) / I0(beta), as
    tf.signal.kaiser_window (NumPy's np.kaiser)."""
    n_samples, t = _check(window_length, dtype)
    if n_samples == 1:
        return Tensor(np.ones(1, t))
    return Tensor(np.kaiser(n_samples, float(beta)).astype(t))
