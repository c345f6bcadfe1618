"""tf.signal: Fourier transforms (fft_ops), framing (shape_ops), windows
(window_ops), the STFT (spectral_ops), the mel filterbank, DCT and MFCCs
(mel_ops). Re-exports only."""

from .fft_ops import (fft, fft2d, fft3d, fftshift, ifft, ifft2d, ifft3d, ifftshift, irfft,
                      irfft2d, irfft3d, rfft, rfft2d, rfft3d)
from .mel_ops import dct, idct, linear_to_mel_weight_matrix, mfccs_from_log_mel_spectrograms
from .shape_ops import frame, overlap_and_add
from .spectral_ops import inverse_stft, inverse_stft_window_fn, stft
from .window_ops import hamming_window, hann_window, kaiser_window, vorbis_window

__all__ = ["fft", "ifft", "fft2d", "ifft2d", "fft3d", "ifft3d", "rfft", "irfft", "rfft2d",
           "irfft2d", "rfft3d", "irfft3d", "fftshift", "ifftshift", "frame", "overlap_and_add",
           "hann_window", "hamming_window", "kaiser_window", "vorbis_window", "stft",
           "inverse_stft", "inverse_stft_window_fn", "linear_to_mel_weight_matrix",
           "mfccs_from_log_mel_spectrograms", "dct", "idct"]
