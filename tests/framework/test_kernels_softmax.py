"""kernels/softmax.py: the fused softmax cross-entropy kernels (dense and
integer labels, loss and logits gradient) against NumPy references; large
logits stay finite."""

import numpy as np
import pytest

from tapeflow.kernels import softmax as _k


def _log_softmax(z):
    shifted = z - z.max(axis=-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=-1, keepdims=True))


def _tol(dtype):
    return {"rtol": 2e-5, "atol": 2e-5} if dtype == np.float32 else {"rtol": 1e-12,
                                                                       "atol": 1e-12}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (64, 10), (257, 33)])
def test_dense_kernels_match_reference(shape, dtype):
    rng = np.random.default_rng(shape[0])
    z = (rng.standard_normal(shape) * 5).astype(dtype)
    y = rng.random(shape).astype(dtype)
    y /= y.sum(axis=-1, keepdims=True)
    g = rng.standard_normal(shape[0]).astype(dtype)
    loss = _k.softmax_cross_entropy_forward(z, y, np.empty(shape[0], dtype))
    assert loss.dtype == dtype
    np.testing.assert_allclose(loss, -(y * _log_softmax(z)).sum(-1), **_tol(dtype))
    dz = _k.softmax_cross_entropy_backward(z, y, g, np.empty(shape, dtype))
    np.testing.assert_allclose(dz, g[:, None] * (np.exp(_log_softmax(z)) - y), **_tol(dtype))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1, 1), (3, 5), (64, 10), (257, 33)])
def test_sparse_kernels_match_reference(shape, dtype):
    rng = np.random.default_rng(7 + shape[0])
    z = (rng.standard_normal(shape) * 5).astype(dtype)
    labels = rng.integers(0, shape[1], shape[0]).astype(np.int64)
    g = rng.standard_normal(shape[0]).astype(dtype)
    rows = np.arange(shape[0])
    loss = np.empty(shape[0], dtype)
    assert _k.sparse_softmax_cross_entropy_forward(z, labels, loss) == -1  # labels in range
    np.testing.assert_allclose(loss, -_log_softmax(z)[rows, labels], **_tol(dtype))
    onehot = np.eye(shape[1], dtype=dtype)[labels]
    dz = _k.sparse_softmax_cross_entropy_backward(z, labels, g, np.empty(shape, dtype))
    np.testing.assert_allclose(dz, g[:, None] * (np.exp(_log_softmax(z)) - onehot),
                               **_tol(dtype))


def test_huge_logits_stay_finite():
    z = np.array([[1e4, 0.0, -1e4], [-1e4, -1e4, -1e4]], np.float32)
    loss = np.empty(2, np.float32)
    _k.sparse_softmax_cross_entropy_forward(z, np.array([1, 2]), loss)
    np.testing.assert_allclose(loss, [1e4, np.log(3.0)], rtol=1e-6)
    y = np.array([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]], np.float32)
    dense = _k.softmax_cross_entropy_forward(z, y, np.empty(2, np.float32))
    np.testing.assert_allclose(dense, loss, rtol=1e-6)


@pytest.mark.parametrize("bad", [-1, 3, 1 << 40])
def test_the_sparse_forward_returns_the_first_row_whose_label_is_out_of_range(bad):
    """It checks before it reads z[r, labels[r]] (no bounds checks in the kernels)."""
    z = np.zeros((4, 3), np.float32)
    loss = np.full(4, 7.0, np.float32)
    labels = np.array([0, 2, bad, -5], np.int64)
    assert _k.sparse_softmax_cross_entropy_forward(z, labels, loss) == 2
    assert (loss == 7.0).all()  # nothing written
