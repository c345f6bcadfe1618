"""The FFT primitives of ops/spectral.py: values against numpy.fft (which TF
matches), dtypes as TF, and gradients to second order in float64.

tapeflow's gradcheck takes and returns real float64 tensors, so complex ops are
checked through real compositions: inputs enter as complex(x, y) and leave as a
real combination of real(z) and imag(z). That covers TF's gradient convention
(dL/dx + i dL/dy) for complex, real, imag, conj, fft/ifft (1-3D), rfft/irfft
(1-2D, fft_length cropping and padding)."""

import numpy as np
import pytest
import tapeflow as tf
from tapeflow.ops import spectral as sp
from tapeflow.testing.gradients import Case, gradcheck

_rng = np.random.default_rng(3)


def _r(*shape):
    return _rng.standard_normal(shape)


def _to_real(z):
    """A real, non-symmetric function of a complex tensor (exercises real and imag)."""
    return sp.real(z) * 2.0 + sp.imag(z) * sp.real(z)


def _through_fft(rank, inverse=False):
    op = sp.ifft if inverse else sp.fft
    return lambda x, y: _to_real(op(sp.complex(x, y), rank=rank))


def _through_rfft(n):
    return lambda x: _to_real(sp.rfft(x, fft_length=n))


def _through_irfft(n):
    return lambda x, y: sp.irfft(sp.complex(x, y), fft_length=n) ** 2


GRADCHECK_CASES = [
    Case("complex/real/imag broadcast", lambda x, y: _to_real(sp.complex(x, y)), _r(2, 3), _r(3)),
    Case("complex outer broadcast", lambda x, y: _to_real(sp.complex(x, y)), _r(2, 1), _r(1, 3)),
    Case("complex scalar", lambda x, y: _to_real(sp.complex(x, y)), _r(2, 3), _r()),
    Case("complex size-0", lambda x, y: _to_real(sp.complex(x, y)), _r(0, 3), _r(3)),
    Case("conj", lambda x, y: _to_real(sp.conj(sp.complex(x, y))), _r(2, 3), _r(2, 3)),
    Case("conj size-0", lambda x, y: _to_real(sp.conj(sp.complex(x, y))), _r(0, 3), _r(0, 3)),
    Case("fft", _through_fft(1), _r(2, 5), _r(2, 5)),
    Case("ifft", _through_fft(1, inverse=True), _r(3, 4), _r(3, 4)),
    Case("fft2d", _through_fft(2), _r(2, 3, 4), _r(2, 3, 4)),
    Case("ifft2d", _through_fft(2, inverse=True), _r(3, 4), _r(3, 4)),
    Case("fft3d", _through_fft(3), _r(2, 2, 3), _r(2, 2, 3)),
    Case("fft size-0", _through_fft(1), _r(0, 4), _r(0, 4)),
    Case("rfft even", _through_rfft((6,)), _r(2, 6)),
    Case("rfft odd", _through_rfft((5,)), _r(5)),
    Case("rfft cropped", _through_rfft((4,)), _r(2, 7)),
    Case("rfft padded", _through_rfft((9,)), _r(2, 6)),
    Case("rfft2d", _through_rfft((3, 4)), _r(2, 3, 4)),
    Case("rfft2d crop and pad", _through_rfft((2, 6)), _r(3, 5)),
    Case("rfft size-0 batch", _through_rfft((4,)), _r(0, 4)),
    Case("irfft even", _through_irfft((6,)), _r(2, 4), _r(2, 4)),
    Case("irfft odd", _through_irfft((5,)), _r(3), _r(3)),
    Case("irfft input cropped", _through_irfft((4,)), _r(2, 6), _r(2, 6)),
    Case("irfft input padded", _through_irfft((10,)), _r(2, 3), _r(2, 3)),
    Case("irfft2d", _through_irfft((3, 4)), _r(3, 3), _r(3, 3)),
    Case("irfft2d crop and pad", _through_irfft((4, 5)), _r(2, 3, 4), _r(2, 3, 4)),
    Case("irfft size-0 batch", _through_irfft((6,)), _r(0, 4), _r(0, 4)),
    Case("ifft2d size-0", _through_fft(2, inverse=True), _r(2, 0, 3), _r(2, 0, 3)),
]


@pytest.mark.parametrize("case", GRADCHECK_CASES, ids=repr)
def test_gradients_to_second_order(case):
    case.check()


@pytest.mark.parametrize("rank", [1, 2, 3])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_fft_and_ifft_equal_numpy(rank, dtype):
    z = (_r(2, 3, 4, 5) + 1j * _r(2, 3, 4, 5)).astype(dtype)
    axes = tuple(range(-rank, 0))
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    out = sp.fft(tf.constant(z), rank=rank)
    assert out.dtype == dtype
    np.testing.assert_allclose(out.numpy(), np.fft.fftn(z, axes=axes), rtol=tol, atol=tol * 10)
    back = sp.ifft(out, rank=rank)
    np.testing.assert_allclose(back.numpy(), z, rtol=tol, atol=tol * 10)


@pytest.mark.parametrize("n", [(8,), (5,), (3,), (12,), (2, 4), (3, 7)])
def test_rfft_and_irfft_equal_numpy(n):
    x = _r(2, 4, 8)
    axes = tuple(range(-len(n), 0))
    y = sp.rfft(tf.constant(x), fft_length=n)
    np.testing.assert_allclose(y.numpy(), np.fft.rfftn(x, s=n, axes=axes), atol=1e-12)
    assert sp.rfft(tf.constant(x.astype(np.float32)), fft_length=n).dtype == tf.complex64
    back = sp.irfft(y, fft_length=n)
    np.testing.assert_allclose(back.numpy(), np.fft.irfftn(y.numpy(), s=n, axes=axes),
                               atol=1e-12)
    assert sp.irfft(tf.cast(y, tf.complex64), fft_length=n).dtype == tf.float32


def test_empty_inputs_give_empty_results():
    assert sp.fft(tf.constant(np.zeros((2, 0), np.complex64))).shape == (2, 0)
    assert sp.rfft(tf.constant(np.zeros((0, 6))), fft_length=(6,)).shape == (0, 4)
    assert sp.irfft(tf.constant(np.zeros((0, 4), np.complex128)), fft_length=(6,)).shape == (0, 6)


def test_gradient_of_fft_power_is_twice_n_times_x():
    # Parseval: sum |fft(z)|^2 = N sum |z|^2, whose gradient (TF's convention) is 2 N z.
    z = tf.constant(_r(3, 6) + 1j * _r(3, 6))
    with tf.GradientTape() as tape:
        tape.watch(z)
        f = sp.fft(z)
        power = tf.reduce_sum(sp.real(f) ** 2 + sp.imag(f) ** 2)
    np.testing.assert_allclose(tape.gradient(power, z).numpy(), 2 * 6 * z.numpy(), atol=1e-10)


def test_gradient_through_real_spectral_filter_matches_finite_differences():
    # real(ifft(fft(x) * w)) with a real filter w: a real linear map of x.
    w = tf.constant(np.abs(_r(8)) + 0j)
    gradcheck(lambda x: sp.real(sp.ifft(sp.fft(sp.complex(x, x * 0.0)) * w)), _r(2, 8))


def test_gradient_through_complex_filter():
    w = sp.complex(tf.constant(_r(8)), tf.constant(_r(8)))
    gradcheck(lambda x: sp.real(sp.ifft(sp.fft(sp.complex(x, x * 0.0)) * w)), _r(2, 8), order=1)
