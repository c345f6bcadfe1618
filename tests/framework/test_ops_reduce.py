"""Reductions, scans, arg-reductions and norms: gradients over axis/keepdims variants
(first and second order), values against NumPy, and TF's rules for ties, zeros and
empty tensors."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.gradients import Case

X = np.random.default_rng(0).uniform(0.5, 2.0, (2, 3, 4)) * np.where(
    np.random.default_rng(1).uniform(size=(2, 3, 4)) > 0.5, 1, -1)
AXES = [None, 0, -1, (0, 2), [1]]

REDUCTIONS = {
    "reduce_sum": (tf.reduce_sum, np.sum),
    "reduce_mean": (tf.reduce_mean, np.mean),
    "reduce_max": (tf.reduce_max, np.max),
    "reduce_min": (tf.reduce_min, np.min),
    "reduce_prod": (tf.reduce_prod, np.prod),
    "reduce_logsumexp": (tf.reduce_logsumexp, lambda a, axis, keepdims: np.log(
        np.sum(np.exp(a), axis, keepdims=keepdims))),
    "reduce_variance": (tf.math.reduce_variance, np.var),
    "reduce_std": (tf.math.reduce_std, np.std),
    "reduce_euclidean_norm": (tf.math.reduce_euclidean_norm,
                              lambda a, axis, keepdims: np.sqrt(np.sum(a * a, axis,
                                                                       keepdims=keepdims))),
}


def _np_axis(axis):
    return tuple(axis) if isinstance(axis, list) else axis


GRADCHECK_CASES = []
for _name, (_fn, _) in REDUCTIONS.items():
    for _axis in AXES:
        for _keep in (False, True):
            GRADCHECK_CASES.append(Case(f"{_name}(axis={_axis}, keepdims={_keep})",
                                        lambda x, f=_fn, a=_axis, k=_keep: f(x, a, k), X))
    if _name != "reduce_std":  # the std of one value is 0, where its gradient is infinite
        GRADCHECK_CASES.append(Case(f"{_name}(scalar)", lambda x, f=_fn: f(x), np.array(1.3)))
for _axis in (0, 1, -1):
    for _exclusive in (False, True):
        for _reverse in (False, True):
            _kw = dict(axis=_axis, exclusive=_exclusive, reverse=_reverse)
            GRADCHECK_CASES.append(Case(f"cumsum{_kw}", lambda x, kw=_kw: tf.cumsum(x, **kw),
                                        X[0]))
            GRADCHECK_CASES.append(Case(f"cumprod{_kw}",
                                        lambda x, kw=_kw: tf.math.cumprod(x, **kw), X[0]))
_NORMS = [("euclidean", None), ("euclidean", 1), (1, -1), (2, 0), (np.inf, 1), (3, 1),
          (0.5, None), ("fro", (0, 1)), (1, (0, 1)), (np.inf, (1, 0)), ("euclidean", (1, 2))]
for _ord, _axis in _NORMS:
    for _keep in (False, True):
        _x = X if isinstance(_axis, tuple) and 2 in _axis else X[0]
        GRADCHECK_CASES.append(Case(f"norm(ord={_ord}, axis={_axis}, keepdims={_keep})",
                                    lambda x, o=_ord, a=_axis, k=_keep: tf.linalg.norm(
                                        x, ord=o, axis=a, keepdims=k), _x))
GRADCHECK_CASES.append(Case("logsumexp_large", lambda x: tf.reduce_logsumexp(x, 1),
                            np.array([[1000.0, 1001.0, 999.0], [-1000.0, -1002.0, -1001.0]])))


@pytest.mark.parametrize("case", GRADCHECK_CASES, ids=repr)
def test_gradcheck(case):
    case.check()


@pytest.mark.parametrize("name", sorted(REDUCTIONS))
@pytest.mark.parametrize("axis", AXES)
@pytest.mark.parametrize("keepdims", [False, True])
def test_reduction_values_match_numpy(name, axis, keepdims):
    fn, reference = REDUCTIONS[name]
    for dtype, tol in ((np.float64, 1e-12), (np.float32, 1e-5)):
        x = X.astype(dtype)
        out = fn(tf.constant(x), axis=axis, keepdims=keepdims)
        want = reference(x.astype(np.float64), axis=_np_axis(axis), keepdims=keepdims)
        assert out.dtype == dtype and out.shape == np.shape(want)
        np.testing.assert_allclose(out.numpy(), want, rtol=tol)


def test_integer_reductions_keep_the_dtype():
    x = tf.constant([[1, 2], [3, -8]])
    s = tf.reduce_sum(x, axis=0)
    assert s.dtype == tf.int32 and s.numpy().tolist() == [4, -6]
    m = tf.reduce_mean(x, axis=1)  # TF: integer mean truncates toward zero
    assert m.dtype == tf.int32 and m.numpy().tolist() == [1, -2]
    assert tf.reduce_prod(x).numpy() == -48 and tf.reduce_prod(x).dtype == tf.int32
    assert tf.reduce_max(x).numpy() == 3
    assert tf.reduce_sum([1.0, 2.0, 3.0]).numpy() == 6.0


def test_reduce_max_and_min_split_ties_evenly():
    x = tf.constant([[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        hi = tf.reduce_max(x, axis=1)
        lo = tf.reduce_min(x)
    np.testing.assert_allclose(tape.gradient(hi, x).numpy(), [[0, 0.5, 0.5], [1 / 3] * 3])
    np.testing.assert_allclose(tape.gradient(lo, x).numpy(), [[1, 0, 0], [0, 0, 0]])


def test_reduce_prod_gradient_with_zeros():
    x = tf.constant([[2.0, 0.0, 3.0], [0.0, 0.0, 5.0], [1.0, 2.0, 4.0]])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_prod(x, axis=1)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(),
                               [[0, 6, 0], [0, 0, 0], [8, 4, 2]])
    Case("reduce_prod_zeros", lambda v: tf.reduce_prod(v, 1), x.numpy(), order=1).check()


def test_reduce_logsumexp_is_stable_in_float32():
    x = tf.constant([[1e4, 1e4, -1e4], [-1e4, -1e4, -1e4]], dtype=tf.float32)
    with np.errstate(over="raise", invalid="raise"):
        out = tf.reduce_logsumexp(x, axis=1).numpy()
    np.testing.assert_allclose(out, [1e4 + np.log(2), -1e4 + np.log(3)], rtol=1e-6)
    with np.errstate(divide="ignore"):  # log(0) = -inf, as in TF
        inf = tf.reduce_logsumexp(tf.constant([-np.inf, -np.inf])).numpy()
    assert inf == -np.inf
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_logsumexp(x, axis=1)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [[0.5, 0.5, 0], [1 / 3] * 3],
                               rtol=1e-6)


def test_empty_reductions_return_the_identity():
    empty = tf.zeros((0, 3))
    assert tf.reduce_max(empty).numpy() == -np.inf
    assert tf.reduce_min(tf.zeros((0,), tf.int32)).numpy() == np.iinfo(np.int32).max
    assert tf.reduce_sum(empty, axis=0).numpy().tolist() == [0, 0, 0]
    assert tf.reduce_prod(empty).numpy() == 1.0
    assert bool(tf.reduce_all(tf.zeros((0,), tf.bool)).numpy()) is True
    assert tf.reduce_max(empty, axis=0).numpy().tolist() == [-np.inf] * 3


def test_reduce_all_any_and_count_nonzero():
    b = tf.constant([[True, False], [True, True]])
    assert tf.reduce_all(b, axis=1).numpy().tolist() == [False, True]
    assert tf.reduce_any(b, axis=0, keepdims=True).numpy().tolist() == [[True, True]]
    c = tf.math.count_nonzero(tf.constant([[0.0, 1.5], [2.0, 0.0]]), axis=1)
    assert c.dtype == tf.int64 and c.numpy().tolist() == [1, 1]
    assert tf.math.count_nonzero(tf.constant([1, 0, 3]), dtype=tf.int32).dtype == tf.int32


def test_argmax_argmin():
    x = tf.constant([[1.0, 5.0, 5.0], [7.0, 0.0, -1.0]])
    a = tf.argmax(x)
    assert a.dtype == tf.int64 and a.numpy().tolist() == [1, 0, 0]
    assert tf.argmax(x, axis=1).numpy().tolist() == [1, 0]  # first of the tied maxima
    assert tf.argmin(x, axis=-1, output_type=tf.int32).dtype == tf.int32
    assert tf.argmin(x, axis=-1).numpy().tolist() == [0, 2]
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.cast(tf.argmax(x, 1), tf.float32)
    assert tape.gradient(y, x) is None


def test_cumsum_and_cumprod_match_tf_examples():
    x = tf.constant([1.0, 2.0, 3.0])  # TF's documented examples
    assert tf.cumsum(x).numpy().tolist() == [1, 3, 6]
    assert tf.cumsum(x, exclusive=True).numpy().tolist() == [0, 1, 3]
    assert tf.cumsum(x, reverse=True).numpy().tolist() == [6, 5, 3]
    assert tf.cumsum(x, exclusive=True, reverse=True).numpy().tolist() == [5, 3, 0]
    assert tf.math.cumprod(x, exclusive=True).numpy().tolist() == [1, 1, 2]
    assert tf.math.cumprod(x, exclusive=True, reverse=True).numpy().tolist() == [6, 3, 1]
    ints = tf.cumsum(tf.constant([[1, 2], [3, 4]]), axis=1)
    assert ints.dtype == tf.int32 and ints.numpy().tolist() == [[1, 3], [3, 7]]


def test_norm_values():
    m = np.array([[1.0, -2.0, 3.0], [-4.0, 5.0, -6.0]])
    t = tf.constant(m)
    np.testing.assert_allclose(tf.linalg.norm(t).numpy(), np.linalg.norm(m))
    np.testing.assert_allclose(tf.linalg.norm(t, ord=1, axis=[0, 1]).numpy(), np.linalg.norm(m, 1))
    np.testing.assert_allclose(tf.linalg.norm(t, ord=np.inf, axis=(0, 1)).numpy(),
                               np.linalg.norm(m, np.inf))
    np.testing.assert_allclose(tf.linalg.norm(t, ord="fro", axis=(0, 1), keepdims=True).numpy(),
                               [[np.linalg.norm(m)]])
    np.testing.assert_allclose(tf.linalg.norm(t, ord=3, axis=1).numpy(),
                               np.linalg.norm(m, 3, axis=1))
    np.testing.assert_allclose(tf.linalg.norm(t, ord=np.inf, axis=0).numpy(), [4, 5, 6])
    assert tf.linalg.norm(t, axis=1, keepdims=True).shape == (2, 1)


def test_euclidean_norm_gradient_at_zero_is_nan_as_in_tf():
    x = tf.constant([0.0, 0.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.linalg.norm(x)
    assert y.numpy() == 0.0
    with np.errstate(divide="ignore", invalid="ignore"):
        grad = tape.gradient(y, x).numpy()
    assert np.all(np.isnan(grad))
