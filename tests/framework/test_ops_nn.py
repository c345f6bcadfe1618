"""tf.nn's non-convolution ops: softmax, log_softmax, the cross-entropies
(NumPy and fused-kernel paths), l2_loss, dropout, bias_add, moments,
batch_normalization, embedding_lookup -- gradients of first and second
order, values against NumPy, and the errors bad input raises."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.core.errors import InvalidArgumentError
from tapeflow.testing.gradients import Case

_RNG = np.random.default_rng(0)


def _r(*shape, scale=1.0):
    return _RNG.standard_normal(shape) * scale


def _dist(*shape):
    p = _RNG.random(shape) + 0.1
    return p / p.sum(axis=-1, keepdims=True)


def _log_softmax(z, axis=-1):
    shifted = z - z.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def _seeded_dropout(x):
    tf.random.set_seed(3)  # the same mask on every call of the check
    return tf.nn.dropout(x, 0.4, seed=7)


_LABELS = np.array([0, 3, 1])
_BIG_LABELS = _RNG.integers(0, 70, 64)  # (64, 70) logits: past the kernels, NumPy

GRADCHECK_CASES = [
    *[Case(f"softmax{s}", lambda x: tf.nn.softmax(x), _r(*s)) for s in [(3,), (2, 3)]],
    Case("softmax_axis0", lambda x: tf.nn.softmax(x, axis=0), _r(3, 2)),
    *[Case(f"log_softmax{s}", lambda x: tf.nn.log_softmax(x), _r(*s)) for s in [(3,), (2, 3)]],
    Case("log_softmax_axis0", lambda x: tf.nn.log_softmax(x, axis=0), _r(3, 2)),
    Case("softmax_ce", tf.nn.softmax_cross_entropy_with_logits, _dist(3, 4), _r(3, 4)),
    Case("softmax_ce_axis0", lambda y, z: tf.nn.softmax_cross_entropy_with_logits(
        y, z, axis=0), _dist(3, 4).T, _r(4, 3)),
    Case("softmax_ce_numpy", tf.nn.softmax_cross_entropy_with_logits, _dist(64, 70),
         _r(64, 70)),
    Case("sparse_softmax_ce", lambda z: tf.nn.sparse_softmax_cross_entropy_with_logits(
        _LABELS, z), _r(3, 4)),
    Case("sparse_softmax_ce_numpy", lambda z: tf.nn.sparse_softmax_cross_entropy_with_logits(
        _BIG_LABELS, z), _r(64, 70)),
    Case("sigmoid_ce", lambda y, z: tf.nn.sigmoid_cross_entropy_with_logits(y, z),
         _RNG.random((2, 3)), _r(2, 3, scale=3)),
    Case("sigmoid_ce_at_zero", lambda z: tf.nn.sigmoid_cross_entropy_with_logits(
        np.array([0.2, 0.7]), z), np.zeros(2)),
    Case("l2_loss", tf.nn.l2_loss, _r(2, 3)),
    Case("dropout", _seeded_dropout, _r(4, 5)),
    Case("bias_add", tf.nn.bias_add, _r(2, 3), _r(3)),
    Case("bias_add_nchw", lambda x, b: tf.nn.bias_add(x, b, data_format="NCHW"),
         _r(2, 3, 2, 2), _r(3)),
    Case("moments_mean", lambda x: tf.nn.moments(x, axes=[0])[0], _r(4, 3)),
    Case("moments_variance", lambda x: tf.nn.moments(x, axes=[0, 1], keepdims=True)[1],
         _r(3, 2, 2)),
    Case("batch_normalization", lambda x, m, v, o, s: tf.nn.batch_normalization(
        x, m, v, o, s, 1e-3), _r(4, 3), _r(3), _RNG.random(3) + 0.5, _r(3), _r(3)),
    Case("embedding_lookup", lambda p: tf.nn.embedding_lookup(p, np.array([[0, 2], [2, 2]])),
         _r(3, 2)),
]


@pytest.mark.parametrize("case", GRADCHECK_CASES, ids=repr)
def test_gradcheck(case):
    case.check()


@pytest.mark.parametrize("shape,axis", [((5,), -1), ((2, 7), -1), ((3, 4, 2), 1)])
def test_softmax_and_log_softmax_values(shape, axis):
    z = _r(*shape, scale=30)
    want = _log_softmax(z, axis)
    np.testing.assert_allclose(tf.nn.log_softmax(z, axis=axis).numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(tf.nn.softmax(z, axis=axis).numpy(), np.exp(want), rtol=1e-12)
    big = tf.nn.softmax(tf.constant([1000.0, 0.0], tf.float32)).numpy()
    assert big.dtype == np.float32 and np.array_equal(big, [1.0, 0.0])


@pytest.mark.parametrize("shape", [(3, 4), (64, 60), (64, 70), (2, 40, 60)])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_cross_entropy_values_and_gradients(shape, dtype):
    z = _r(*shape, scale=4).astype(dtype)
    y = _dist(*shape).astype(dtype)
    labels = _RNG.integers(0, shape[-1], shape[:-1])
    tol = 1e-5 if dtype == np.float32 else 1e-12
    zt = tf.constant(z)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(zt)
        dense = tf.nn.softmax_cross_entropy_with_logits(y, zt)
        sparse = tf.nn.sparse_softmax_cross_entropy_with_logits(labels, zt)
    assert dense.dtype == sparse.dtype == tf.as_dtype(dtype)
    np.testing.assert_allclose(dense.numpy(), -(y * _log_softmax(z)).sum(-1), rtol=tol,
                               atol=tol)
    picked = np.take_along_axis(_log_softmax(z), labels[..., None], -1)[..., 0]
    np.testing.assert_allclose(sparse.numpy(), -picked, rtol=tol, atol=tol)
    p = np.exp(_log_softmax(z))
    np.testing.assert_allclose(tape.gradient(dense, zt).numpy(), p - y, rtol=tol, atol=tol)
    onehot = np.eye(shape[-1])[labels]
    np.testing.assert_allclose(tape.gradient(sparse, zt).numpy(), p - onehot, rtol=tol,
                               atol=tol)


def test_sparse_cross_entropy_rejects_bad_labels():
    z = tf.zeros([3, 4])
    with pytest.raises(InvalidArgumentError, match=r"label value of 4 .* range of \[0, 4\)"):
        tf.nn.sparse_softmax_cross_entropy_with_logits([0, 4, 1], z)
    with pytest.raises(InvalidArgumentError, match=r"label value of -1"):
        tf.nn.sparse_softmax_cross_entropy_with_logits([0, -1, 1], z)
    with pytest.raises(ValueError, match="Rank mismatch"):
        tf.nn.sparse_softmax_cross_entropy_with_logits([[0, 1, 1]], z)
    with pytest.raises(ValueError, match="Shape mismatch"):
        tf.nn.sparse_softmax_cross_entropy_with_logits([0, 1], z)
    with pytest.raises(InvalidArgumentError, match="int32 or int64"):
        tf.nn.sparse_softmax_cross_entropy_with_logits([0.0, 1.0, 2.0], z)


def test_dense_cross_entropy_checks_shapes_and_broadcasts_labels():
    with pytest.raises(InvalidArgumentError, match=r"logits_size=\[2, 3\] labels_size=\[2, 4\]"):
        tf.nn.softmax_cross_entropy_with_logits(tf.zeros([2, 4]), tf.zeros([2, 3]))
    loss = tf.nn.softmax_cross_entropy_with_logits(tf.constant([0.0, 1.0]), tf.zeros([3, 2]))
    np.testing.assert_allclose(loss.numpy(), [np.log(2.0)] * 3, rtol=1e-6)


def test_sigmoid_cross_entropy_values_and_errors():
    x = np.array([-800.0, -2.0, 0.0, 3.0, 800.0])
    z = np.array([0.0, 1.0, 0.5, 0.25, 1.0])
    out = tf.nn.sigmoid_cross_entropy_with_logits(labels=z, logits=x).numpy()
    want = np.maximum(x, 0) - x * z + np.log1p(np.exp(-np.abs(x)))
    np.testing.assert_allclose(out, want, rtol=1e-12)
    with pytest.raises(ValueError, match=r"same shape \(\(2,\) vs \(3,\)\)"):
        tf.nn.sigmoid_cross_entropy_with_logits(labels=np.zeros(3), logits=np.zeros(2))


def test_l2_loss_bias_add_and_their_errors():
    t = _r(3, 4)
    np.testing.assert_allclose(tf.nn.l2_loss(t).numpy(), np.sum(t ** 2) / 2)
    x, b = _r(2, 3, 4), _r(4)
    np.testing.assert_allclose(tf.nn.bias_add(x, b).numpy(), x + b)
    with pytest.raises(InvalidArgumentError, match=r"as many biases .*\[3\] vs. \[2, 4\]"):
        tf.nn.bias_add(np.zeros((2, 4)), np.zeros(3))
    with pytest.raises(InvalidArgumentError, match="Biases must be 1D"):
        tf.nn.bias_add(np.zeros((2, 4)), np.zeros((1, 4)))


def test_dropout_scales_kept_values_and_checks_rate():
    tf.random.set_seed(1)
    x = tf.ones([200, 50])
    y = tf.nn.dropout(x, rate=0.25).numpy()
    kept = y != 0
    assert y.dtype == np.float32
    np.testing.assert_allclose(y[kept], 1 / 0.75, rtol=1e-6)
    assert 0.7 < kept.mean() < 0.8
    assert tf.nn.dropout(x, 0.0) is x
    column = tf.nn.dropout(x, 0.5, noise_shape=[1, 50]).numpy()
    assert np.all(column == column[:1])  # one mask row, broadcast over the batch
    tf.random.set_seed(2)
    a = tf.nn.dropout(x, 0.5, seed=4).numpy()
    tf.random.set_seed(2)
    assert np.array_equal(a, tf.nn.dropout(x, 0.5, seed=4).numpy())
    for bad in (1.0, -0.1, 1.5):
        with pytest.raises(ValueError, match=r"range \[0, 1\)"):
            tf.nn.dropout(x, bad)
    with pytest.raises(ValueError, match="floating point"):
        tf.nn.dropout(tf.constant([1, 2]), 0.5)


def test_moments_and_batch_normalization_values():
    x = _r(4, 3, 2)
    mean, var = tf.nn.moments(x, axes=[0, 2])
    np.testing.assert_allclose(mean.numpy(), x.mean(axis=(0, 2)))
    np.testing.assert_allclose(var.numpy(), x.var(axis=(0, 2)))
    mean, var = tf.nn.moments(x, axes=[1], keepdims=True)
    assert mean.shape == (4, 1, 2) and var.shape == (4, 1, 2)
    m, v, o, s = _r(2), _RNG.random(2) + 0.5, _r(2), _r(2)
    got = tf.nn.batch_normalization(x, m, v, o, s, 1e-3).numpy()
    np.testing.assert_allclose(got, (x - m) * s / np.sqrt(v + 1e-3) + o, rtol=1e-10)
    bare = tf.nn.batch_normalization(x, m, v, None, None, 1e-3).numpy()
    np.testing.assert_allclose(bare, (x - m) / np.sqrt(v + 1e-3), rtol=1e-10)


def test_embedding_lookup_values_gradient_and_errors():
    params = tf.Variable(np.arange(12.0).reshape(4, 3))
    ids = np.array([[1, 1], [3, 0]])
    with tf.GradientTape() as tape:
        out = tf.nn.embedding_lookup(params, ids)
    np.testing.assert_array_equal(out.numpy(), params.numpy()[ids])
    grad = tape.gradient(out, params)
    np.testing.assert_array_equal(np.asarray(grad), [[1] * 3, [2] * 3, [0] * 3, [1] * 3])
    shards = [np.arange(6.0).reshape(2, 3), np.arange(6.0, 12.0).reshape(2, 3)]
    np.testing.assert_array_equal(tf.nn.embedding_lookup(shards, ids).numpy(),
                                  params.numpy()[ids])
    clipped = tf.nn.embedding_lookup(params, [3], max_norm=1.0).numpy()
    np.testing.assert_allclose(np.linalg.norm(clipped), 1.0)
    with pytest.raises(InvalidArgumentError, match=r"not in \[0, 4\)"):
        tf.nn.embedding_lookup(params, [4])
