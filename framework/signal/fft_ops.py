"""fft_ops.py: tf.signal's Fourier transforms (fft/ifft in 1-3 dimensions, the
real transforms with TF's `fft_length`, fftshift/ifftshift): TF's argument
checks and dtype rules in front of the primitives of ops/spectral.py."""

import numpy as np

from ..api.array_ops import roll
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor, convert_to_tensor
from ..io.files import tf_type_name
from ..ops import spectral as _spectral

__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d",
           "irfft2d", "rfft3d", "irfft3d", "fftshift", "ifftshift"]

def _complex_input(x, op_name, rank):
    """`x` as a complex Tensor; Python and NumPy values convert as TF's preferred
    complex64 does, a real Tensor is TF's attr error."""
    if not isinstance(x, Tensor):
        value = np.asarray(x)
        if value.dtype.kind in "biuf":  # TF converts with complex64 preferred
            value = value.astype(np.complex64)
        x = convert_to_tensor(value)
    if x._value.dtype.kind != "c":
        raise InvalidArgumentError(f"Value for attr 'Tcomplex' of {tf_type_name(x.dtype)} is "
                                   "not in the list of allowed values: complex64, complex128 "
                                   f"[Op:{op_name}]; use tf.cast(x, tf.complex64) first.")
    if x._value.ndim < rank:
        raise InvalidArgumentError(f"Input must have rank of at least {rank} but got: "
                                   f"{list(x._value.shape)} [Op:{op_name}]")
    return x


def _check_rank(x, rank):
    if x._value.ndim < rank:
        raise ValueError(f"Shape {tuple(x._value.shape)} must have rank at least {rank}.")


def _fft_length(fft_length, rank, default, op_name):
    if fft_length is None:
        return tuple(default)
    value = np.asarray(fft_length._value if isinstance(fft_length, Tensor) else fft_length)
    if value.shape != (rank,) or (value.size and value.dtype.kind not in "iu"):
        raise InvalidArgumentError(f"fft_length must have shape [{rank}] [Op:{op_name}]; got "
                                   f"{value.tolist()!r}: one integer per transformed axis.")
    for i, n in enumerate(value.tolist()):
        if n < 0:
            raise InvalidArgumentError(f"fft_length[{i}] must >= 0, but got: {n} [Op:{op_name}]")
    return tuple(int(n) for n in value.tolist())


def _make_fft(rank, inverse):
    op = _spectral.ifft if inverse else _spectral.fft
    tf_name = ("IFFT" if inverse else "FFT") + ("" if rank == 1 else f"{rank}D")

    def transform(input, name=None):
        return op(_complex_input(input, tf_name, rank), rank=rank)

    transform.__name__ = ("i" if inverse else "") + "fft" + ("" if rank == 1 else f"{rank}d")
    transform.__doc__ = (
        f"The {'inverse ' if inverse else ''}discrete Fourier transform over the last {rank} "
        f"axis(es), as tf.signal.{transform.__name__}.\n\n"
        f"    Args:\n        input: a complex64 or complex128 Tensor of rank >= {rank}.\n\n"
        f"    Returns:\n        A Tensor of the same shape and dtype"
        f"{' (scaled by 1/N, as TF and NumPy)' if inverse else ''}.\n\n"
        f"    Raises:\n        InvalidArgumentError: for a real or integer Tensor, as TF.\n")
    return transform


fft, ifft = _make_fft(1, False), _make_fft(1, True)
fft2d, ifft2d = _make_fft(2, False), _make_fft(2, True)
fft3d, ifft3d = _make_fft(3, False), _make_fft(3, True)


def _make_rfft(rank):
    tf_name = "RFFT" + ("" if rank == 1 else f"{rank}D")

    def transform(input_tensor, fft_length=None, name=None):
        x = input_tensor
        if not isinstance(x, Tensor):
            value = np.asarray(x)
            x = convert_to_tensor(value.astype(np.float32) if value.dtype.kind in "biu" or (
                value.dtype.kind == "f" and not isinstance(x, np.ndarray)) else value)
        if x._value.dtype not in (np.float32, np.float64):
            raise ValueError(f"RFFT requires tf.float32 or tf.float64 inputs, got: {x!r}")
        _check_rank(x, rank)
        n = _fft_length(fft_length, rank, x._value.shape[x._value.ndim - rank:], tf_name)
        return _spectral.rfft(x, fft_length=n)

    transform.__name__ = "rfft" + ("" if rank == 1 else f"{rank}d")
    transform.__doc__ = (
        f"The DFT of a real signal over its last {rank} axis(es), as "
        f"tf.signal.{transform.__name__}.\n\n"
        f"    Each transformed axis is cropped or zero-padded to `fft_length` (default: its\n"
        f"    size); the last keeps its fft_length // 2 + 1 unique bins.\n\n"
        f"    Returns:\n        complex64 for float32 input, complex128 for float64.\n\n"
        f"    Raises:\n        ValueError: for other dtypes or a negative fft_length, as TF.\n")
    return transform


def _make_irfft(rank):
    tf_name = "IRFFT" + ("" if rank == 1 else f"{rank}D")

    def transform(input_tensor, fft_length=None, name=None):
        y = input_tensor
        if not isinstance(y, Tensor):
            value = np.asarray(y)
            y = convert_to_tensor(value.astype(np.complex64) if value.dtype.kind in "biuf"
                                  else value)
        _check_rank(y, rank)
        if y._value.dtype.kind != "c":
            raise ValueError(f"IRFFT requires tf.complex64 or tf.complex128 inputs, got: {y!r}")
        shape = list(y._value.shape[y._value.ndim - rank:])
        shape[-1] = max(0, 2 * (shape[-1] - 1))
        n = _fft_length(fft_length, rank, shape, tf_name)
        if y._value.size and n[-1] <= 0:
            raise ValueError(f"fft_length[-1] must be > 0, got {n[-1]}")
        return _spectral.irfft(y, fft_length=n)

    transform.__name__ = "irfft" + ("" if rank == 1 else f"{rank}d")
    transform.__doc__ = (
        f"The inverse of rfft over the last {rank} axis(es), as "
        f"tf.signal.{transform.__name__}.\n\n"
        f"    `fft_length` defaults to the input's sizes, the last one 2 * (m - 1); the\n"
        f"    input is cropped or zero-padded to fft_length (the last axis to\n"
        f"    fft_length[-1] // 2 + 1).\n\n"
        f"    Returns:\n        float32 for complex64 input, float64 for complex128.\n\n"
        f"    Raises:\n        ValueError: for a real input or fft_length[-1] <= 0, as TF.\n")
    return transform


rfft, irfft = _make_rfft(1), _make_irfft(1)
rfft2d, irfft2d = _make_rfft(2), _make_irfft(2)
rfft3d, irfft3d = _make_rfft(3), _make_irfft(3)


def _shift(x, axes, sign):
    x = as_tensor(x)
    shape = x._value.shape
    if axes is None:
        axes = tuple(range(len(shape)))
    elif isinstance(axes, (int, np.integer)):
        axes = (int(axes),)
    axes = tuple(int(a) for a in axes)
    shifts = [sign * (shape[a] // 2) for a in axes]
    return roll(x, shifts, list(axes)) if axes else x


def fftshift(x, axes=None, name=None):
    """Move the zero-frequency bin to the centre, as tf.signal.fftshift (NumPy's fftshift).

    >>> tf.signal.fftshift([0., 1., 2., 3., 4., -5., -4., -3., -2., -1.]).numpy()
    array([-5., -4., -3., -2., -1.,  0.,  1.,  2.,  3.,  4.], dtype=float32)
    """
    return _shift(x, axes, 1)


def ifftshift(x, axes=None, name=None):
    """The inverse of fftshift (they differ by one sample for odd lengths)."""
    return _shift(x, axes, -1)
