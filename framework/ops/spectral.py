"""spectral.py: the Fourier-transform primitives of tf.signal (complex FFT and
its inverse over the last 1-3 axes, the real FFT and its inverse with an
`fft_length`), each forward beside its VJPs; the complex plumbing they need
(`complex`, `real`, `imag`, `conj`) is ops/math.py's. Argument checks and TF's names live in
framework/signal/.

Gradients follow TF's convention for complex values: the gradient of a real
loss L with respect to z = x + iy is dL/dx + i dL/dy, so the VJP of a
C-linear map A is A^H (the FFT's is N times the inverse FFT, as TF's _FFTGrad).
"""

import numpy as np

from ..core.tensor import Tensor
from .math import _COMPLEX_OF, complex, conj, const, imag, multiply, real  # noqa: A004
from .registry import defop
from .shape import getitem, scatter_into

__all__ = ["fft", "ifft", "rfft", "irfft", "complex", "real", "imag", "conj"]

_REAL_OF = {c: r for r, c in _COMPLEX_OF.items()}


def _axes(rank):
    return tuple(range(-rank, 0))


def _fit_last_axes(t, shape):
    """`t` cropped or zero-padded on its last len(shape) axes to `shape` (ops, so
    the result stays differentiable); leading (batch) axes are kept."""
    have = t._value.shape[-len(shape):]
    if have == tuple(shape):
        return t
    keep = tuple(min(a, b) for a, b in zip(have, shape))
    key = (Ellipsis,) + tuple(slice(0, k) for k in keep)
    if keep != have:
        t = getitem(t, key=key)
    if keep != tuple(shape):
        t = scatter_into(t, key=key, shape=t._value.shape[:-len(shape)] + tuple(shape))
    return t


@defop
def fft(x, rank=1):
    """The complex DFT over the last `rank` axes (TF's FFT, FFT2D, FFT3D)."""
    if x.size == 0:  # NumPy refuses a transform of length 0; TF returns the empty result
        return np.zeros(x.shape, x.dtype)
    return np.fft.fftn(x, axes=_axes(rank)).astype(x.dtype, copy=False)


@defop
def ifft(x, rank=1):
    """The inverse complex DFT over the last `rank` axes, scaled by 1/N as TF's IFFT."""
    if x.size == 0:
        return np.zeros(x.shape, x.dtype)
    return np.fft.ifftn(x, axes=_axes(rank)).astype(x.dtype, copy=False)


def _size(x, rank):
    return int(np.prod(x._value.shape[-rank:], dtype=np.int64)) if rank else 1


fft.defvjp(lambda g, out, x, rank=1: multiply(ifft(g, rank=rank), const(_size(x, rank), g)))
ifft.defvjp(lambda g, out, x, rank=1: multiply(fft(g, rank=rank),
                                               const(1.0 / max(_size(x, rank), 1), g)))


@defop
def rfft(x, fft_length):
    """The DFT of real `x` over its last len(fft_length) axes, each cropped or
    zero-padded to `fft_length`; the last axis keeps fft_length[-1] // 2 + 1 bins."""
    rank = len(fft_length)
    if x.size == 0 or 0 in fft_length:  # zeros, as TF (NumPy refuses length 0)
        last = fft_length[-1] // 2 + 1 if fft_length[-1] else 0  # TF: (2, 0) -> (2, 0)
        shape = x.shape[:-rank] + tuple(fft_length[:-1]) + (last,)
        return np.zeros(shape, _COMPLEX_OF[x.dtype])
    out = np.fft.rfftn(x, s=fft_length, axes=_axes(rank))
    return out.astype(_COMPLEX_OF[x.dtype], copy=False)


@rfft.defvjp
def _rfft_vjp(g, out, x, fft_length):
    # rfft is P F C x (C: crop/pad to fft_length, F: the full DFT, P: keep the first
    # n // 2 + 1 bins of the last axis); its adjoint is Re(C^T F^H P^T g), F^H = N ifft.
    n = tuple(fft_length)
    full = _fit_last_axes(g, n)
    spectrum = multiply(ifft(full, rank=len(n)), const(float(np.prod(n)), full))
    return _fit_last_axes(real(spectrum), x._value.shape[-len(n):])


@defop
def irfft(y, fft_length):
    """The real inverse DFT of the half spectrum `y` over its last len(fft_length)
    axes, `y` cropped or zero-padded to fft_length (fft_length[-1] // 2 + 1 last)."""
    rank = len(fft_length)
    if y.size == 0 or 0 in fft_length:
        return np.zeros(y.shape[:-rank] + tuple(fft_length), _REAL_OF[y.dtype])
    out = np.fft.irfftn(y, s=fft_length, axes=_axes(rank))
    return out.astype(_REAL_OF[y.dtype], copy=False)


@irfft.defvjp
def _irfft_vjp(g, out, y, fft_length):
    # As TF's _IRFFTGradHelper: rfft(g) / N, bins other than 0 and n/2 doubled
    # (each stands for itself and its conjugate mirror).
    n = tuple(fft_length)
    bins = n[-1] // 2 + 1
    weights = np.full(bins, 2.0)
    weights[0] = 1.0
    if n[-1] % 2 == 0:
        weights[-1] = 1.0
    spectrum = rfft(g, fft_length=n)
    scale = Tensor((weights / max(int(np.prod(n)), 1)).astype(spectrum._value.dtype))
    return _fit_last_axes(multiply(spectrum, scale), y._value.shape[-len(n):])


