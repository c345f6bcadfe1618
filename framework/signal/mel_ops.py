"""mel_ops.py: the mel filterbank, the DCT and MFCCs of tf.signal. The filterbank
is TF's formula (tensorflow/python/ops/signal/mel_ops.py: HTK mel scale, DC bin
zeroed, triangles linear in mel) evaluated step by step in the requested dtype,
so it equals TF's float32 matrix; the DCT is a matmul with scipy.fftpack's
cosine matrix (TF's definition), so it is differentiable through matmul."""

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor, as_tensor
from ..ops.math import matmul, multiply
from ..ops.shape import getitem, reshape, scatter_into

__all__ = ["linear_to_mel_weight_matrix", "mfccs_from_log_mel_spectrograms", "dct", "idct"]

_MEL_BREAK_FREQUENCY_HERTZ = 700.0
_MEL_HIGH_FREQUENCY_Q = 1127.0


def _hertz_to_mel(hertz, t):
    return t(_MEL_HIGH_FREQUENCY_Q) * np.log(t(1.0) + hertz / t(_MEL_BREAK_FREQUENCY_HERTZ))


def _tf_linspace(start, stop, num, t):
    """TF's linspace in dtype `t`: start + i * delta inside, `stop` exactly last."""
    if num <= 1:
        return np.full(num, start, t)
    delta = (stop - start) / t(num - 1)
    values = start + np.arange(num).astype(t) * delta
    values[-1] = stop
    return values.astype(t)


def _plain_number(value, what):
    if isinstance(value, Tensor):
        if value._value.ndim != 0:
            raise ValueError(f"`{what}` must be a Python number or a scalar Tensor.")
        value = value._value.item()
    return value


def linear_to_mel_weight_matrix(num_mel_bins=20, num_spectrogram_bins=129, sample_rate=8000,
                                lower_edge_hertz=125.0, upper_edge_hertz=3800.0,
                                dtype=dtypes.float32, name=None):
    """A `[num_spectrogram_bins, num_mel_bins]` matrix mapping linear-frequency
    spectrogram bins (0 to sample_rate / 2) to mel bands, as
    tf.signal.linear_to_mel_weight_matrix: `tf.matmul(S, A)` is the mel spectrogram.

    Raises:
        ValueError: num_mel_bins or sample_rate not positive, lower_edge_hertz
            negative or not below upper_edge_hertz, upper_edge_hertz above the
            Nyquist frequency, or a non-floating dtype (TF's checks and messages).
    """
    sample_rate = _plain_number(sample_rate, "sample_rate")
    num_spectrogram_bins = int(_plain_number(num_spectrogram_bins, "num_spectrogram_bins"))
    lower_edge_hertz = _plain_number(lower_edge_hertz, "lower_edge_hertz")
    upper_edge_hertz = _plain_number(upper_edge_hertz, "upper_edge_hertz")
    dtype = dtypes.as_dtype(dtype)
    if num_mel_bins <= 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {num_mel_bins}")
    if sample_rate <= 0.0:
        raise ValueError(f"sample_rate must be positive. Got: {sample_rate}")
    if lower_edge_hertz < 0.0:
        raise ValueError(f"lower_edge_hertz must be non-negative. Got: {lower_edge_hertz}")
    if lower_edge_hertz >= upper_edge_hertz:
        raise ValueError(f"lower_edge_hertz {lower_edge_hertz:.1f} >= upper_edge_hertz "
                         f"{upper_edge_hertz:.1f}")
    if upper_edge_hertz > sample_rate / 2:
        raise ValueError(f"upper_edge_hertz must not be larger than the Nyquist frequency "
                         f"(sample_rate / 2). Got {upper_edge_hertz} for sample_rate: "
                         f"{sample_rate}")
    if not dtype.is_floating:
        raise ValueError(f"dtype must be a floating point type. Got: {dtype!r}")
    if num_spectrogram_bins < 0:
        raise ValueError(f"num_spectrogram_bins must be non-negative. Got: "
                         f"{num_spectrogram_bins}")
    t = dtype._np.type
    nyquist = t(sample_rate) / t(2.0)
    # HTK excludes the spectrogram's DC bin (row 0 stays zero).
    linear = _tf_linspace(t(0.0), nyquist, num_spectrogram_bins, t)[1:]
    bins_mel = _hertz_to_mel(linear, t)[:, None]
    edges = _tf_linspace(_hertz_to_mel(t(lower_edge_hertz), t),
                         _hertz_to_mel(t(upper_edge_hertz), t), num_mel_bins + 2, t)
    lower, center, upper = edges[None, :-2], edges[None, 1:-1], edges[None, 2:]
    lower_slopes = (bins_mel - lower) / (center - lower)
    upper_slopes = (upper - bins_mel) / (upper - center)
    weights = np.maximum(t(0.0), np.minimum(lower_slopes, upper_slopes))
    matrix = np.zeros((max(num_spectrogram_bins, 1), num_mel_bins), t)
    matrix[1:] = weights
    return Tensor(matrix[:num_spectrogram_bins])


# -- the DCT -------------------------------------------------------------------------


def _dct_matrix(n, dct_type, norm, t):
    """M with dct(x) = x @ M for length-n x: scipy.fftpack's definitions, which TF's
    dct matches (its docstring says so)."""
    i = np.arange(n, dtype=np.float64)[:, None]   # input index
    k = np.arange(n, dtype=np.float64)[None, :]   # output index
    if dct_type == 1:
        m = 2.0 * np.cos(np.pi * i * k / (n - 1))
        m[0] /= 2.0
        m[-1] /= 2.0
    elif dct_type == 2:
        m = 2.0 * np.cos(np.pi * k * (2 * i + 1) / (2 * n))
        if norm == "ortho":
            m[:, 0] *= np.sqrt(1.0 / (4 * n))
            m[:, 1:] *= np.sqrt(1.0 / (2 * n))
    elif dct_type == 3:
        m = 2.0 * np.cos(np.pi * i * (2 * k + 1) / (2 * n))
        m[0] = 1.0
        if norm == "ortho":
            m[0] /= np.sqrt(n)
            m[1:] /= np.sqrt(2.0 * n)
    else:
        m = 2.0 * np.cos(np.pi * (2 * i + 1) * (2 * k + 1) / (4 * n))
        if norm == "ortho":
            m *= np.sqrt(1.0 / (2 * n))
    return Tensor(m.astype(t))


def _check_dct(x, dct_type, n, axis, norm):
    if axis != -1:
        raise NotImplementedError(f"axis must be -1. Got: {axis}")
    if n is not None and (not isinstance(n, (int, np.integer)) or n < 1):
        raise ValueError(f"n should be a positive integer or None, got {n!r}")
    if dct_type not in (1, 2, 3, 4):
        raise ValueError(f"Types I, II, III and IV (I)DCT are supported, got type={dct_type!r}.")
    if norm not in (None, "ortho"):
        raise ValueError(f"Unknown normalization. Expected None or 'ortho', got: {norm}")
    if x._value.dtype not in (np.float32, np.float64):
        raise ValueError(f"dct requires a float32 or float64 input, got {x.dtype!r}.")
    if x._value.ndim < 1:
        raise ValueError(f"Shape {tuple(x._value.shape)} must have rank at least 1.")
    if dct_type == 1:
        if norm == "ortho":
            raise ValueError("Normalization is not supported for the Type-I DCT.")
        if (n if n is not None else x._value.shape[-1]) < 2:
            raise ValueError("Type-I DCT requires the dimension to be greater than one.")


def dct(input, type=2, n=None, axis=-1, norm=None, name=None):
    """The DCT of types I-IV over the last axis, as tf.signal.dct (scipy.fftpack.dct).

    Args:
        input: a `[..., samples]` float32/float64 Tensor.
        n: crop or zero-pad the last axis to n samples first.
        norm: None or "ortho" (not for type I).

    Raises:
        ValueError / NotImplementedError: TF's argument checks (axis must be -1).
    """
    x = as_tensor(input)
    _check_dct(x, type, n, axis, norm)
    length = x._value.shape[-1]
    if n is not None and n != length:
        key = (Ellipsis, slice(0, min(n, length)))
        x = getitem(x, key=key)
        if n > length:
            x = scatter_into(x, key=key, shape=x._value.shape[:-1] + (n,))
    n = x._value.shape[-1]
    matrix = _dct_matrix(n, type, norm, x._value.dtype.type)
    rows = reshape(x, shape=(-1, n)) if n else reshape(x, shape=(int(np.prod(x._value.shape[
        :-1], dtype=np.int64)), 0))
    return reshape(matmul(rows, matrix), shape=x._value.shape)


def idct(input, type=2, n=None, axis=-1, norm=None, name=None):
    """The inverse DCT, as tf.signal.idct: dct of the inverse type (II <-> III).
    Without norm="ortho" it is scaled: signal == idct(dct(signal)) * 0.5 / N."""
    _check_dct(as_tensor(input), type, n, axis, norm)
    return dct(input, type={1: 1, 2: 3, 3: 2, 4: 4}[type], n=n, axis=axis, norm=norm)


def mfccs_from_log_mel_spectrograms(log_mel_spectrograms, name=None):
    """MFCCs of `[..., num_mel_bins]` log-magnitude mel spectrograms, as
    tf.signal.mfccs_from_log_mel_spectrograms: dct type II / sqrt(2 num_mel_bins).

    Raises:
        ValueError: when the last axis (num_mel_bins) is empty.
    """
    x = as_tensor(log_mel_spectrograms)
    if x._value.ndim < 1 or x._value.shape[-1] == 0:
        raise ValueError(f"num_mel_bins must be positive. Got: {x!r}")
    dct2 = dct(x, type=2)
    scale = dct2._value.dtype.type(1.0 / np.sqrt(x._value.shape[-1] * 2.0))
    return multiply(dct2, Tensor(scale))
