"""kernels/recurrent.py's fused backward steps against plain NumPy, on
contiguous, transposed and sliced inputs, float32 and float64."""

import numpy as np
import pytest

from tapeflow.kernels.recurrent import gru_step_backward, lstm_step_backward

RNG = np.random.default_rng(11)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lstm_reference(dh, dc, gates, g, tanh_c, c_prev):
    u = dh.shape[1]
    i, f, o = gates[:, :u], gates[:, u:2 * u], gates[:, 3 * u:]
    d_c = dc + dh * o * (1 - tanh_c ** 2)
    dz = np.concatenate([d_c * g * i * (1 - i), d_c * c_prev * f * (1 - f),
                         d_c * i * (1 - g ** 2), dh * tanh_c * o * (1 - o)], axis=1)
    return dz, d_c * f


def gru_reference(dh, zr, hh, inner_h, h_prev):
    u = dh.shape[1]
    z, r = zr[:, :u], zr[:, u:]
    d_a = dh * (1 - z) * (1 - hh ** 2)
    d_z = dh * (h_prev - hh) * z * (1 - z)
    d_r = d_a * inner_h * r * (1 - r)
    return (np.concatenate([d_z, d_r, d_a], axis=1),
            np.concatenate([d_z, d_r, d_a * r], axis=1), dh * z)


def _layout(a, how):
    """`a` as a contiguous, transposed (Fortran-ordered) or sliced array of equal values."""
    if how == "transposed":
        return np.asfortranarray(a)
    if how == "sliced":
        wide = np.zeros((a.shape[0] * 2, a.shape[1] * 3), a.dtype)
        wide[::2, 1::3] = a
        return wide[::2, 1::3]
    return a


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("how", ["contiguous", "transposed", "sliced"])
def test_lstm_step_backward(dtype, how):
    b, u = 5, 3
    inputs = [RNG.standard_normal((b, u)), RNG.standard_normal((b, u)),
              sigmoid(RNG.standard_normal((b, 4 * u))), np.tanh(RNG.standard_normal((b, u))),
              np.tanh(RNG.standard_normal((b, u))), RNG.standard_normal((b, u))]
    inputs = [a.astype(dtype) for a in inputs]
    dz, dc_prev = np.empty((b, 4 * u), dtype), np.empty((b, u), dtype)
    lstm_step_backward(*[_layout(a, how) for a in inputs], dz, dc_prev)
    expected_dz, expected_dc = lstm_reference(*inputs)
    tol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(dz, expected_dz, rtol=tol, atol=tol)
    np.testing.assert_allclose(dc_prev, expected_dc, rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("how", ["contiguous", "transposed", "sliced"])
def test_gru_step_backward(dtype, how):
    b, u = 4, 5
    inputs = [RNG.standard_normal((b, u)), sigmoid(RNG.standard_normal((b, 2 * u))),
              np.tanh(RNG.standard_normal((b, u))), RNG.standard_normal((b, u)),
              RNG.standard_normal((b, u))]
    inputs = [a.astype(dtype) for a in inputs]
    dx, dinner, dh_prev = (np.empty((b, 3 * u), dtype), np.empty((b, 3 * u), dtype),
                           np.empty((b, u), dtype))
    outs = [_layout(a, how).copy(order="A") if how != "sliced" else _layout(a, how)
            for a in (dx, dinner, dh_prev)]
    gru_step_backward(*[_layout(a, how) for a in inputs], *outs)
    tol = 1e-6 if dtype == np.float32 else 1e-13
    for got, expected in zip(outs, gru_reference(*inputs)):
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def test_empty_batch():
    dz, dc = np.empty((0, 8)), np.empty((0, 2))
    lstm_step_backward(np.empty((0, 2)), np.empty((0, 2)), np.empty((0, 8)),
                       np.empty((0, 2)), np.empty((0, 2)), np.empty((0, 2)), dz, dc)
    assert dz.shape == (0, 8) and dc.shape == (0, 2)
