"""tf.signal: values against TF 2.21 (numbers printed by TF itself, quoted below),
TF's docs examples and NumPy references; TF's errors; gradients of the
composites (frame, overlap_and_add, stft, dct) in float64 to second order."""

import numpy as np
import pytest
import tapeflow as tf
from tapeflow import signal
from tapeflow.core.errors import InvalidArgumentError
from tapeflow.testing.gradients import gradcheck

_rng = np.random.default_rng(7)


def _r(*shape):
    return _rng.standard_normal(shape)


# -- Fourier transforms ----------------------------------------------------------------

def test_fft_family_equals_numpy():
    z = (_r(2, 4, 6) + 1j * _r(2, 4, 6)).astype(np.complex64)
    np.testing.assert_allclose(signal.fft(z).numpy(), np.fft.fft(z), atol=1e-5)
    np.testing.assert_allclose(signal.ifft2d(z).numpy(), np.fft.ifft2(z), atol=1e-6)
    np.testing.assert_allclose(signal.fft3d(z).numpy(), np.fft.fftn(z, axes=(0, 1, 2)),
                               atol=1e-4)
    x = _r(3, 10)
    np.testing.assert_allclose(signal.rfft(x).numpy(), np.fft.rfft(x), atol=1e-12)
    np.testing.assert_allclose(signal.rfft(x, fft_length=[7]).numpy(), np.fft.rfft(x, 7),
                               atol=1e-12)
    y = np.fft.rfft(x)
    assert signal.irfft(y).shape == (3, 10)  # default fft_length 2 * (6 - 1)
    np.testing.assert_allclose(signal.irfft(y, [13]).numpy(), np.fft.irfft(y, 13), atol=1e-12)
    np.testing.assert_allclose(signal.rfft2d(x, [2, 6]).numpy(), np.fft.rfft2(x, (2, 6)),
                               atol=1e-12)
    np.testing.assert_allclose(signal.irfft2d(np.fft.rfft2(x), [3, 10]).numpy(), x, atol=1e-12)


def test_dtypes_follow_tf():
    assert signal.fft([1.0, 2.0]).dtype == tf.complex64        # Python values: complex64
    assert signal.fft(np.array([1.0, 2.0])).dtype == tf.complex64  # TF 2.21 too
    assert signal.rfft([1, 2]).dtype == tf.complex64
    assert signal.rfft(tf.constant([1.0, 2.0], tf.float64)).dtype == tf.complex128
    assert signal.irfft(tf.constant([1 + 0j, 2], tf.complex64)).dtype == tf.float32


def test_errors_are_tfs():
    with pytest.raises(InvalidArgumentError, match="attr 'Tcomplex' of float is not in the list "
                       r"of allowed values: complex64, complex128.*\[Op:FFT\]"):
        signal.fft(tf.constant([1.0, 2.0]))
    with pytest.raises(InvalidArgumentError, match=r"rank of at least 2 but got: \[1\]"):
        signal.fft2d(tf.constant([1 + 0j]))
    with pytest.raises(ValueError, match="RFFT requires tf.float32 or tf.float64 inputs"):
        signal.rfft(tf.constant([1, 2]))
    with pytest.raises(ValueError, match="IRFFT requires tf.complex64 or tf.complex128"):
        signal.irfft(tf.constant([1.0, 2.0]))
    with pytest.raises(InvalidArgumentError, match=r"fft_length\[0\] must >= 0, but got: -1"):
        signal.rfft(tf.constant([1.0, 2.0]), [-1])
    with pytest.raises(InvalidArgumentError, match=r"fft_length must have shape \[1\]"):
        signal.rfft(tf.constant([1.0, 2.0]), [2, 2])
    with pytest.raises(ValueError, match=r"fft_length\[-1\] must be > 0"):
        signal.irfft(tf.constant([1 + 0j]))  # TF 2.21 aborts the process here


def test_fftshift_examples_from_tf_docs():
    x = signal.fftshift([0., 1., 2., 3., 4., -5., -4., -3., -2., -1.])
    np.testing.assert_array_equal(x.numpy(), [-5., -4., -3., -2., -1., 0., 1., 2., 3., 4.])
    y = signal.ifftshift([[0., 1., 2.], [3., 4., -4.], [-3., -2., -1.]])
    np.testing.assert_array_equal(y.numpy(), [[4., -4., 3.], [-2., -1., -3.], [1., 2., 0.]])
    z = signal.fftshift(np.arange(6.).reshape(2, 3), axes=1)
    np.testing.assert_array_equal(z.numpy(), [[2., 0., 1.], [5., 3., 4.]])
    v = _r(5, 4)
    np.testing.assert_array_equal(signal.ifftshift(signal.fftshift(v)).numpy(), v)


# -- frame and overlap_and_add ----------------------------------------------------------

def test_frame_shapes_from_tf_docs():
    audio = np.zeros((3, 9152), np.float32)
    assert signal.frame(audio, 512, 180).shape == (3, 49, 512)
    assert signal.frame(audio, 512, 180, pad_end=True).shape == (3, 51, 512)
    assert signal.frame(np.zeros(3), 5, 2).shape == (0, 5)  # TF: no frame fits


def test_frame_values_padding_and_axis():
    f = signal.frame(np.arange(10.), 4, 3, pad_end=True, pad_value=-1.0)
    np.testing.assert_array_equal(f.numpy(), [[0, 1, 2, 3], [3, 4, 5, 6], [6, 7, 8, 9],
                                              [9, -1, -1, -1]])
    x = _r(2, 5, 3)
    g = signal.frame(x, 3, 2, axis=1).numpy()
    assert g.shape == (2, 2, 3, 3)
    np.testing.assert_array_equal(g[:, 1], x[:, 2:5])


def test_overlap_and_add_inverts_frame_counts():
    np.testing.assert_array_equal(signal.overlap_and_add(np.ones((3, 4)), 2).numpy(),
                                  [1, 1, 2, 2, 2, 2, 1, 1])
    x = _r(2, 3, 5)
    expected = np.zeros((2, 11))
    for i in range(3):
        expected[:, 3 * i:3 * i + 5] += x[:, i]
    np.testing.assert_allclose(signal.overlap_and_add(x, 3).numpy(), expected)
    assert signal.overlap_and_add(np.zeros((0, 4)), 2).shape == (2,)  # as TF


def test_frame_errors():
    with pytest.raises(ValueError, match=r"Shape \(\) must have rank at least 1"):
        signal.frame(tf.constant(1.0), 2, 1)
    with pytest.raises(ValueError, match="frame_step must be positive"):
        signal.frame(np.zeros(4), 2, 0)
    with pytest.raises(ValueError, match=r"Shape \(1,\) must have rank at least 2"):
        signal.overlap_and_add(tf.constant([1.0]), 1)


# -- windows ---------------------------------------------------------------------------

def test_windows_equal_tfs():
    np.testing.assert_array_equal(signal.hann_window(4).numpy(), [0., 0.5, 1., 0.5])
    np.testing.assert_array_equal(signal.hann_window(5, periodic=False).numpy(),
                                  [0., 0.5, 1., 0.5, 0.])
    # TF 2.21's tf.signal.hamming_window(9): an odd periodic window is the symmetric one.
    np.testing.assert_allclose(signal.hamming_window(9).numpy(),
                               [0.08000001, 0.21473092, 0.54, 0.8652691, 1., 0.8652691, 0.54,
                                0.21473077, 0.08000001], rtol=0, atol=1.2e-7)
    np.testing.assert_allclose(signal.vorbis_window(5).numpy(),
                               [0.14943586, 0.8563191, 1., 0.8563191, 0.14943568], atol=2e-7)
    np.testing.assert_allclose(signal.kaiser_window(5, 3.0).numpy(),
                               [0.20488471, 0.7269254, 1., 0.7269254, 0.20488471], atol=1e-6)
    assert signal.hann_window(1).numpy().tolist() == [1.0]
    assert signal.hann_window(8, dtype=tf.float64).dtype == tf.float64
    np.testing.assert_allclose(signal.hann_window(8, dtype=tf.float64).numpy(),
                               0.5 - 0.5 * np.cos(2 * np.pi * np.arange(8) / 8), atol=1e-15)
    with pytest.raises(ValueError, match="dtype must be a floating point type"):
        signal.hann_window(4, dtype=tf.int32)


# -- STFT ------------------------------------------------------------------------------

def _numpy_stft(x, frame_length, frame_step, fft_length):
    n = 1 + (x.shape[-1] - frame_length) // frame_step
    frames = np.stack([x[..., i * frame_step:i * frame_step + frame_length] for i in range(n)],
                      axis=-2)
    window = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(frame_length) / frame_length)
    return np.fft.rfft(frames * window, fft_length)


def test_stft_equals_numpy_reference():
    x = _r(2, 50)
    out = signal.stft(x, 12, 5)
    assert out.dtype == tf.complex128 and out.shape == (2, 8, 9)  # fft_length 16
    np.testing.assert_allclose(out.numpy(), _numpy_stft(x, 12, 5, 16), atol=1e-12)
    # The audio tutorial: stft(waveform, frame_length=255, frame_step=128), then abs.
    wave = _r(16000).astype(np.float32)
    spectrogram = tf.abs(signal.stft(wave, frame_length=255, frame_step=128))
    assert spectrogram.shape == (124, 129) and spectrogram.dtype == tf.float32


def test_inverse_stft_values_from_tf():
    stfts = signal.stft(tf.constant([[1., 2., 3., 4., 5., 6., 7., 8.]]), 4, 2)
    np.testing.assert_allclose(signal.inverse_stft(stfts, 4, 2).numpy(),
                               [[0., 0.5, 3., 2., 5., 3., 7., 2.]], atol=1e-6)


def test_inverse_stft_with_its_window_reconstructs():
    x = _r(3, 64)
    stfts = signal.stft(x, 16, 4)
    back = signal.inverse_stft(stfts, 16, 4, window_fn=signal.inverse_stft_window_fn(4))
    np.testing.assert_allclose(back.numpy()[:, 16:-16], x[:, 16:back.shape[1] - 16], atol=1e-12)


# -- mel, DCT, MFCC --------------------------------------------------------------------

# TF 2.21: tf.signal.linear_to_mel_weight_matrix(4, 9, 8000, 125.0, 3800.0)
_TF_MEL_4_9 = [[0., 0., 0., 0.], [0.89565384, 0.10434615, 0., 0.],
               [0., 0.8690782, 0.13092178, 0.], [0., 0.1091703, 0.8908297, 0.],
               [0., 0., 0.505573, 0.49442706], [0., 0., 0.004824332, 0.99517566],
               [0., 0., 0., 0.5769244], [0., 0., 0., 0.20334473], [0., 0., 0., 0.]]


def test_mel_matrix_equals_tfs():
    m = signal.linear_to_mel_weight_matrix(4, 9, 8000, 125.0, 3800.0)
    assert m.dtype == tf.float32 and m.shape == (9, 4)
    # TF's float32 log differs from NumPy's by an ulp in places, and the slopes divide
    # differences of mel values of ~2800: float32 agreement is ~1e-5 absolute.
    np.testing.assert_allclose(m.numpy(), _TF_MEL_4_9, atol=1e-5)
    default = signal.linear_to_mel_weight_matrix()
    assert default.shape == (129, 20)
    # TF 2.21's default matrix: each mel band's peak row and its total weight.
    np.testing.assert_array_equal(default.numpy().argmax(0), [6, 9, 11, 14, 17, 20, 24, 28, 32,
                                                              37, 42, 47, 53, 59, 66, 74, 82, 91,
                                                              100, 110])
    np.testing.assert_allclose(default.numpy().sum(0)[[0, 9, 19]],
                               [2.2854714, 4.7897706, 10.728545], atol=1e-4)
    with pytest.raises(ValueError, match=r"must not be larger than the Nyquist frequency "
                       r"\(sample_rate / 2\). Got 5000.0 for sample_rate: 8000"):
        signal.linear_to_mel_weight_matrix(upper_edge_hertz=5000.0)
    with pytest.raises(ValueError, match="num_mel_bins must be positive"):
        signal.linear_to_mel_weight_matrix(num_mel_bins=0)


def test_mel_matrix_float64_is_the_exact_formula():
    m = signal.linear_to_mel_weight_matrix(4, 9, 8000, 125.0, 3800.0, dtype=tf.float64).numpy()
    mel = lambda f: 1127.0 * np.log(1.0 + f / 700.0)
    edges = np.linspace(mel(125.0), mel(3800.0), 6)
    bins = mel(np.linspace(0, 4000, 9))[1:, None]
    lower = (bins - edges[None, :-2]) / (edges[1:-1] - edges[:-2])
    upper = (edges[None, 2:] - bins) / (edges[2:] - edges[1:-1])
    np.testing.assert_allclose(m[1:], np.maximum(0, np.minimum(lower, upper)), atol=1e-12)
    np.testing.assert_array_equal(m[0], 0)
    np.testing.assert_allclose(m, _TF_MEL_4_9, atol=1e-5)


_X6 = np.array([[0.5, -1.0, 2.0, 0.25, -0.75, 1.5]], np.float32)


@pytest.mark.parametrize("kwargs, expected", [  # TF 2.21's tf.signal.dct of _X6
    (dict(type=1), [3., -0.32294893, -2.722136, -3.677051, 6.222136, 3.]),
    (dict(type=3, norm="ortho"), [0.75614613, -0.48554593, -0.4273572, -1.5974072, 1.7598199,
                                  1.2190893]),
    (dict(type=4), [2.4390333, -1.5963917, -2.0318575, 0.62410355, 9.080283, -1.4258919]),
])
def test_dct_values_from_tf(kwargs, expected):
    np.testing.assert_allclose(signal.dct(_X6, **kwargs).numpy(), [expected], atol=2e-6)


@pytest.mark.parametrize("dct_type", [1, 2, 3, 4])
@pytest.mark.parametrize("norm", [None, "ortho"])
def test_dct_equals_scipy_fftpack(dct_type, norm):
    fftpack = pytest.importorskip("scipy.fftpack")
    if dct_type == 1 and norm:
        pytest.skip("TF: no normalization for type I")
    x = _r(3, 7)
    np.testing.assert_allclose(signal.dct(x, type=dct_type, norm=norm).numpy(),
                               fftpack.dct(x, type=dct_type, norm=norm), atol=1e-12)
    expected_idct = fftpack.idct(x, type=dct_type, norm=norm)
    np.testing.assert_allclose(signal.idct(x, type=dct_type, norm=norm).numpy(), expected_idct,
                               atol=1e-12)


def test_dct_n_and_errors():
    x = _r(2, 6)
    np.testing.assert_allclose(signal.dct(x, n=4).numpy(), signal.dct(x[:, :4]).numpy())
    padded = np.concatenate([x, np.zeros((2, 3))], axis=1)
    np.testing.assert_allclose(signal.dct(x, n=9).numpy(), signal.dct(padded).numpy())
    with pytest.raises(NotImplementedError, match="axis must be -1. Got: 0"):
        signal.dct(x, axis=0)
    with pytest.raises(ValueError, match="Types I, II, III and IV"):
        signal.dct(x, type=5)
    with pytest.raises(ValueError, match="Normalization is not supported for the Type-I"):
        signal.dct(x, type=1, norm="ortho")


def test_mfccs_from_tf():
    np.testing.assert_allclose(signal.mfccs_from_log_mel_spectrograms(_X6).numpy(),
                               [[1.4433756, -0.39823833, -0.12500009, -1.0206206, 2.2372322,
                                 0.92856836]], atol=2e-6)
    with pytest.raises(ValueError, match="num_mel_bins must be positive"):
        signal.mfccs_from_log_mel_spectrograms(np.zeros((2, 0), np.float32))


# -- gradients of the composites -------------------------------------------------------

@pytest.mark.parametrize("fn, shape", [
    (lambda x: signal.frame(x, 3, 2), (2, 8)),
    (lambda x: signal.frame(x, 3, 2, pad_end=True, axis=0), (7, 2)),
    (lambda x: signal.frame(x, 4, 2), (0, 6)),
    (lambda x: signal.overlap_and_add(x, 2), (2, 3, 4)),
    (lambda x: _power(signal.stft(x, 6, 3)), (2, 20)),
    (lambda x: _power(signal.stft(x, 5, 2, fft_length=8, pad_end=True)), (13,)),
    (lambda x: signal.inverse_stft(signal.stft(x, 8, 4), 8, 4), (24,)),
    (lambda x: signal.dct(x, type=2, norm="ortho"), (2, 5)),
    (lambda x: signal.dct(x, type=1, n=4), (3,)),
    (lambda x: signal.mfccs_from_log_mel_spectrograms(x), (2, 3, 4)),
    (lambda x: signal.fftshift(x), (3, 4)),
])
def test_composite_gradients(fn, shape):
    gradcheck(fn, _r(*shape))


def _power(z):
    from tapeflow.ops.spectral import imag, real
    return real(z) ** 2 + imag(z) ** 2


def test_gradient_of_spectral_power_matches_parseval():
    # The audio tutorials' loss shape: a sum of |rfft(x)|^2, against central differences.
    x = tf.constant(_r(2, 8))
    with tf.GradientTape() as tape:
        tape.watch(x)
        power = tf.reduce_sum(_power(signal.rfft(x)))
    grad = tape.gradient(power, x).numpy()
    # numeric derivative of the same function, central differences in float64
    f = lambda v: np.sum(np.abs(np.fft.rfft(v)) ** 2)
    eps, numeric = 1e-6, np.zeros_like(x.numpy())
    for idx in np.ndindex(*x.shape):
        d = np.zeros(x.shape)
        d[idx] = eps
        numeric[idx] = (f(x.numpy() + d) - f(x.numpy() - d)) / (2 * eps)
    np.testing.assert_allclose(grad, numeric, atol=1e-6)
