"""spectral_ops.py: tf.signal's short-time Fourier transform and its inverse,
composed of frame, a window and rfft (so they are differentiable through
those), with TF's defaults (tensorflow/python/ops/signal/spectral_ops.py)."""

import numpy as np

from ..api.array_ops import pad
from ..core.tensor import Tensor, as_tensor
from ..ops.math import multiply
from ..ops.shape import getitem
from .fft_ops import irfft, rfft
from .shape_ops import _positive_int, frame, overlap_and_add
from .window_ops import hann_window

__all__ = ["stft", "inverse_stft", "inverse_stft_window_fn"]


def _enclosing_power_of_two(value):
    """The smallest power of two >= value, TF's default fft_length for a frame."""
    return int(2 ** np.ceil(np.log2(value))) if value > 0 else 1


def stft(signals, frame_length, frame_step, fft_length=None, window_fn=hann_window,
         pad_end=False, name=None):
    """The short-time Fourier transform of real signals, as tf.signal.stft.

    Args:
        signals: a `[..., samples]` float32/float64 Tensor.
        frame_length, frame_step: window length and hop, in samples.
        fft_length: the FFT size (default: the smallest power of 2 >= frame_length).
        window_fn: `window_fn(frame_length, dtype=...)`, or None for no window.
        pad_end: pad the end of `signals` with zeros so every sample is framed.

    Returns:
        A `[..., frames, fft_length // 2 + 1]` complex64/complex128 Tensor.
    """
    signals = as_tensor(signals)
    frame_length = _positive_int(frame_length, "frame_length")
    frame_step = _positive_int(frame_step, "frame_step")
    if fft_length is None:
        fft_length = _enclosing_power_of_two(frame_length)
    framed = frame(signals, frame_length, frame_step, pad_end=pad_end)
    if window_fn is not None:
        window = window_fn(frame_length, dtype=framed.dtype)
        framed = multiply(framed, as_tensor(window))
    return rfft(framed, [int(fft_length)])


def inverse_stft(stfts, frame_length, frame_step, fft_length=None, window_fn=hann_window,
                 name=None):
    """Signals from their STFTs by overlap-add, as tf.signal.inverse_stft.

    For perfect reconstruction pass
    `window_fn=tf.signal.inverse_stft_window_fn(frame_step)` (with the forward
    window); the default Hann window is TF's default, not an inverse.

    Returns:
        A `[..., samples]` float32/float64 Tensor.
    """
    stfts = as_tensor(stfts)
    if stfts._value.ndim < 2:
        raise ValueError(f"Shape {tuple(stfts._value.shape)} must have rank at least 2 "
                         "(tf.signal.inverse_stft's stfts: [..., frames, fft_unique_bins]).")
    frame_length = _positive_int(frame_length, "frame_length")
    frame_step = _positive_int(frame_step, "frame_step")
    if fft_length is None:
        fft_length = _enclosing_power_of_two(frame_length)
    real_frames = irfft(stfts, [int(fft_length)])
    n = real_frames._value.shape[-1]
    if n > frame_length:
        real_frames = getitem(real_frames, key=(Ellipsis, slice(0, frame_length)))
    elif n < frame_length:
        paddings = [[0, 0]] * (real_frames._value.ndim - 1) + [[0, frame_length - n]]
        real_frames = pad(real_frames, paddings)
    if window_fn is not None:
        window = window_fn(frame_length, dtype=real_frames.dtype)
        real_frames = multiply(real_frames, as_tensor(window))
    return overlap_and_add(real_frames, frame_step)


def inverse_stft_window_fn(frame_step, forward_window_fn=hann_window, name=None):
    """The window_fn for inverse_stft that undoes stft with `forward_window_fn`:
    the forward window divided by the overlapping sum of its squares, as TF."""
    frame_step = _positive_int(frame_step, "frame_step")

    def inverse_stft_window_fn_inner(frame_length, dtype):
        forward = as_tensor(forward_window_fn(frame_length, dtype=dtype))._value
        overlaps = -(-frame_length // frame_step)
        denom = np.zeros(overlaps * frame_step, forward.dtype)
        denom[:frame_length] = np.square(forward)
        denom = np.tile(denom.reshape(overlaps, frame_step).sum(0, keepdims=True),
                        (overlaps, 1)).reshape(-1)
        return Tensor(forward / denom[:frame_length])

    return inverse_stft_window_fn_inner
