"""Losses: the values of the Keras/TF documentation examples for every reduction,
float64 gradient checks against y_pred, config round trips, lookup by name and
bad input."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import losses
from tapeflow.core.errors import InvalidArgumentError
from tapeflow.testing import gradcheck

A = [[0., 1.], [0., 0.]]
P = [[0.6, 0.4], [0.4, 0.6]]

# (loss class, kwargs, y_true, y_pred, sample_weight,
#  documented values for: default, with sample_weight, 'sum', 'none')
DOC_EXAMPLES = [
    (losses.MeanSquaredError, {}, A, [[1., 1.], [1., 0.]], [0.7, 0.3], 0.5, 0.25, 1.0,
     [0.5, 0.5]),
    (losses.MeanAbsoluteError, {}, A, [[1., 1.], [1., 0.]], [0.7, 0.3], 0.5, 0.25, 1.0,
     [0.5, 0.5]),
    (losses.MeanAbsolutePercentageError, {}, [[2., 1.], [2., 3.]], [[1., 1.], [1., 0.]],
     [0.7, 0.3], 50., 20., 100., [25., 75.]),
    (losses.MeanSquaredLogarithmicError, {}, A, [[1., 1.], [1., 0.]], [0.7, 0.3], 0.240,
     0.120, 0.480, [0.240, 0.240]),
    (losses.Huber, {}, [[0, 1], [0, 0]], P, [1, 0], 0.155, 0.09, 0.31, [0.18, 0.13]),
    (losses.LogCosh, {}, A, [[1., 1.], [0., 0.]], [0.8, 0.2], 0.108, 0.087, 0.217,
     [0.217, 0.]),
    (losses.BinaryCrossentropy, {"from_logits": True}, np.array([[0, 1], [0, 0]]),
     np.array([[-18.6, 0.51], [2.94, -12.8]]), [0.8, 0.2], 0.865, 0.243, 1.730,
     [0.235, 1.496]),
    (losses.CategoricalCrossentropy, {}, np.array([[0, 1, 0], [0, 0, 1]]),
     np.array([[0.05, 0.95, 0], [0.1, 0.8, 0.1]]), np.array([0.3, 0.7]), 1.177, 0.814, 2.354,
     [0.0513, 2.303]),
    (losses.SparseCategoricalCrossentropy, {}, np.array([1, 2]),
     np.array([[0.05, 0.95, 0], [0.1, 0.8, 0.1]]), np.array([0.3, 0.7]), 1.177, 0.814, 2.354,
     [0.0513, 2.303]),
    (losses.KLDivergence, {}, A, P, [0.8, 0.2], 0.458, 0.366, 0.916, [0.916, -3.08e-06]),
    (losses.Poisson, {}, A, [[1., 1.], [0., 0.]], [0.8, 0.2], 0.5, 0.4, 0.999, [0.999, 0.]),
    (losses.CosineSimilarity, {"axis": 1}, [[0., 1.], [1., 1.]], [[1., 0.], [1., 1.]],
     [0.8, 0.2], -0.5, -0.0999, -0.999, [-0., -0.999]),
    (losses.Hinge, {}, A, P, [1, 0], 1.3, 0.55, 2.6, [1.1, 1.5]),
    (losses.SquaredHinge, {}, A, P, [1, 0], 1.86, 0.73, 3.72, [1.46, 2.26]),
    (losses.CategoricalHinge, {}, [[0, 1], [0, 0]], P, [1, 0], 1.4, 0.6, 2.8, [1.2, 1.6]),
]


@pytest.mark.parametrize("cls, kwargs, y_true, y_pred, weight, mean, weighted, total, none",
                         DOC_EXAMPLES, ids=[e[0].__name__ for e in DOC_EXAMPLES])
def test_documented_values(cls, kwargs, y_true, y_pred, weight, mean, weighted, total, none):
    loss = cls(**kwargs)
    np.testing.assert_allclose(loss(y_true, y_pred).numpy(), mean, rtol=2e-3, atol=1e-3)
    np.testing.assert_allclose(loss(y_true, y_pred, sample_weight=weight).numpy(), weighted,
                               rtol=2e-3, atol=1e-3)
    summed = cls(reduction="sum", **kwargs)(y_true, y_pred)
    np.testing.assert_allclose(summed.numpy(), total, rtol=2e-3, atol=1e-3)
    per_sample = cls(reduction=None, **kwargs)(y_true, y_pred)
    assert per_sample.shape == (2,)
    np.testing.assert_allclose(per_sample.numpy(), none, rtol=2e-3, atol=1e-3)
    np.testing.assert_allclose(cls(reduction="none", **kwargs)(y_true, y_pred).numpy(), none,
                               rtol=2e-3, atol=1e-3)
    assert cls(reduction="auto", **kwargs).reduction == "sum_over_batch_size"


def test_function_examples():
    np.testing.assert_allclose(losses.binary_crossentropy(A, P).numpy(), [0.916, 0.714],
                               atol=1e-3)
    np.testing.assert_allclose(
        losses.BinaryCrossentropy(from_logits=True)(np.array([0, 1, 0, 0]),
                                                    np.array([-18.6, 0.51, 2.94, -12.8])),
        0.8654, atol=1e-4)
    np.testing.assert_allclose(
        losses.cosine_similarity([[0., 1.], [1., 1.], [1., 1.]],
                                 [[1., 0.], [1., 1.], [-1., -1.]]).numpy(),
        [0., -1., 1.], atol=1e-6)
    np.testing.assert_allclose(losses.huber([[0, 1], [0, 0]], P).numpy(), [0.18, 0.13])
    np.testing.assert_allclose(losses.mse([[1., 2.]], [[2., 4.]]).numpy(), [2.5])
    assert tf.keras.losses.mean_squared_error is losses.mean_squared_error


def test_dtype_follows_y_pred():
    assert losses.MeanSquaredError()([1., 2.], [1., 3.]).dtype == tf.float32
    out = losses.MeanSquaredError()(np.array([1., 2.]), np.array([1., 3.]))
    assert out.dtype == tf.float64 and out.numpy() == 0.5
    assert losses.MeanSquaredError(dtype="float32")(np.array([1.]), np.array([2.])).dtype \
        == tf.float32


def test_label_smoothing():
    y_true, logits = np.array([[0., 1., 0.]]), np.array([[1., 2., 0.5]])
    s = 0.1
    smoothed = y_true * (1 - s) + s / 3
    log_p = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    expected = -(smoothed * log_p).sum()
    got = losses.CategoricalCrossentropy(from_logits=True, label_smoothing=s)(y_true, logits)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10)
    b_true, b_logits = np.array([[1., 0.]]), np.array([[0.3, -1.2]])
    t = b_true * (1 - s) + 0.5 * s
    p = 1 / (1 + np.exp(-b_logits))
    expected = np.mean(-(t * np.log(p) + (1 - t) * np.log(1 - p)))
    got = losses.BinaryCrossentropy(from_logits=True, label_smoothing=s)(b_true, b_logits)
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-10)


def test_logits_and_probabilities_agree():
    rng = np.random.default_rng(0)
    logits = rng.standard_normal((4, 5))
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    labels = np.array([0, 4, 2, 1])
    one_hot = np.eye(5)[labels]
    a = losses.SparseCategoricalCrossentropy(from_logits=True)(labels, logits).numpy()
    b = losses.SparseCategoricalCrossentropy()(labels, probs).numpy()
    c = losses.CategoricalCrossentropy(from_logits=True)(one_hot, logits).numpy()
    d = losses.CategoricalCrossentropy()(one_hot, probs).numpy()
    expected = -np.mean(np.log(probs[np.arange(4), labels]))
    np.testing.assert_allclose([a, b, c, d], expected, rtol=1e-6)
    # a (batch, 1) label column is accepted, and the class axis may be elsewhere
    np.testing.assert_allclose(
        losses.SparseCategoricalCrossentropy(from_logits=True)(labels[:, None], logits), a)
    np.testing.assert_allclose(
        losses.SparseCategoricalCrossentropy(from_logits=True, axis=0)(labels, logits.T), a)
    np.testing.assert_allclose(
        losses.CategoricalCrossentropy(from_logits=True, axis=0)(one_hot.T, logits.T), c)
    bce_l = losses.BinaryCrossentropy(from_logits=True)(one_hot, logits).numpy()
    bce_p = losses.BinaryCrossentropy()(one_hot, 1 / (1 + np.exp(-logits))).numpy()
    np.testing.assert_allclose(bce_l, bce_p, rtol=1e-5)


def test_from_logits_is_stable_for_large_logits():
    logits = np.array([[1000., -1000., 0.]])
    loss = losses.SparseCategoricalCrossentropy(from_logits=True)(np.array([1]), logits)
    np.testing.assert_allclose(loss.numpy(), 2000.0)
    bce = losses.BinaryCrossentropy(from_logits=True)(np.array([[0., 1.]]),
                                                      np.array([[800., -800.]]))
    np.testing.assert_allclose(bce.numpy(), 800.0)
    # probabilities of exactly 0 or 1 are clipped, so the loss stays finite (Keras: ~15.9)
    clipped = losses.BinaryCrossentropy()(np.array([[1.]]), np.array([[0.]]))
    assert np.isfinite(clipped.numpy()) and 15 < clipped.numpy() < 17


def test_ignore_class():
    logits = np.array([[2., 1., 0.1], [0.5, 2.5, 0.3], [1., 1., 3.]])
    labels = np.array([0, -1, 2])
    loss = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1)
    per = losses.SparseCategoricalCrossentropy(from_logits=True, reduction=None)(
        np.array([0, 2]), logits[[0, 2]]).numpy()
    np.testing.assert_allclose(loss(labels, logits).numpy(), per.mean(), rtol=1e-6)
    none = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=-1,
                                                reduction=None)(labels, logits).numpy()
    np.testing.assert_allclose(none, [per[0], 0.0, per[1]])


def test_sample_weight_broadcasts_over_time_axis():
    y_true = np.array([[0, 1, 2], [1, 1, 0]])  # (batch, time)
    logits = np.random.default_rng(1).standard_normal((2, 3, 4))
    loss = losses.SparseCategoricalCrossentropy(from_logits=True, reduction=None)
    per = loss(y_true, logits).numpy()
    assert per.shape == (2, 3)
    weighted = losses.SparseCategoricalCrossentropy(from_logits=True)(
        y_true, logits, sample_weight=np.array([1., 0.]))
    np.testing.assert_allclose(weighted.numpy(), per[0].sum() / 6)


def test_mean_with_sample_weight_reduction():
    loss = losses.MeanSquaredError(reduction="mean_with_sample_weight")
    out = loss(A, [[1., 1.], [1., 0.]], sample_weight=[0.7, 0.3])
    np.testing.assert_allclose(out.numpy(), 0.5)


def test_sparse_labels_out_of_range():
    with pytest.raises(InvalidArgumentError, match=r"label value of 3.*\[0, 3\)"):
        losses.SparseCategoricalCrossentropy(from_logits=True)(
            np.array([0, 3]), np.zeros((2, 3)))
    with pytest.raises(InvalidArgumentError, match=r"label value of -1"):
        losses.sparse_categorical_crossentropy(np.array([-1, 0]), np.full((2, 3), 1 / 3))


def test_shape_errors():
    with pytest.raises(ValueError, match="same shape"):
        losses.categorical_crossentropy(np.zeros((2, 3)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="y_true.shape"):
        losses.sparse_categorical_crossentropy(np.zeros((2, 2)), np.zeros((3, 4)))
    with pytest.raises(InvalidArgumentError, match=r"\[2, 3\] vs. \[2, 4\]"):
        losses.mean_squared_error(np.zeros((2, 3)), np.zeros((2, 4)))
    with pytest.raises(ValueError, match="reduction"):
        losses.MeanSquaredError(reduction="average")


def test_get_by_name():
    assert losses.get("mse") is losses.mean_squared_error
    assert losses.get("mae") is losses.mean_absolute_error
    assert losses.get("mape") is losses.mean_absolute_percentage_error
    assert losses.get("msle") is losses.mean_squared_logarithmic_error
    assert losses.get("kld") is losses.kl_divergence
    assert losses.get("huber") is losses.huber
    assert losses.get("sparse_categorical_crossentropy") is \
        losses.sparse_categorical_crossentropy
    assert isinstance(losses.get("BinaryCrossentropy"), losses.BinaryCrossentropy)
    instance = losses.Huber()
    assert losses.get(instance) is instance and losses.get(None) is None
    assert isinstance(losses.get(losses.Hinge), losses.Hinge)
    with pytest.raises(ValueError, match=r"Unknown loss: 'msq'.*'mse'"):
        losses.get("msq")
    wrapped = losses.LossFunctionWrapper(losses.get("mse"), name="mse")
    assert wrapped.name == "mse"
    np.testing.assert_allclose(wrapped(A, [[1., 1.], [1., 0.]]).numpy(), 0.5)


def test_config_round_trip():
    loss = losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.2,
                                          reduction="sum", name="cce")
    config = loss.get_config()
    assert config["from_logits"] is True and config["label_smoothing"] == 0.2
    assert config["reduction"] == "sum" and config["name"] == "cce"
    clone = losses.CategoricalCrossentropy.from_config(config)
    assert clone.from_logits and clone.label_smoothing == 0.2 and clone.name == "cce"
    assert losses.Huber(2.0).delta == 2.0 and losses.Huber().name == "huber_loss"
    assert losses.MeanSquaredError().name == "mean_squared_error"
    assert losses.MeanSquaredError("sum").reduction == "sum"  # Keras's positional order
    again = losses.deserialize(losses.serialize(losses.SparseCategoricalCrossentropy(
        from_logits=True, ignore_class=0)))
    assert again.from_logits and again.ignore_class == 0
    with pytest.raises(TypeError, match="unexpected keyword"):
        losses.MeanSquaredError(delta=1.0)


# -- gradients ----------------------------------------------------------------------------

_RNG = np.random.default_rng(42)
_PROBS = _RNG.uniform(0.1, 0.9, (3, 4))
_ONE_HOT = np.eye(4)[[1, 3, 0]]
_TARGET = _RNG.standard_normal((3, 4))
_LOGITS = _RNG.standard_normal((3, 4))

GRAD_CASES = [
    ("mse", losses.MeanSquaredError(), _TARGET, _LOGITS),
    ("mae", losses.MeanAbsoluteError(), _TARGET, _LOGITS),
    ("mape", losses.MeanAbsolutePercentageError(), _TARGET, _LOGITS),
    ("msle", losses.MeanSquaredLogarithmicError(), _PROBS[::-1].copy(), _PROBS),
    ("huber", losses.Huber(delta=0.5), _TARGET, _LOGITS),
    ("logcosh", losses.LogCosh(), _TARGET, _LOGITS),
    ("bce", losses.BinaryCrossentropy(), _ONE_HOT, _PROBS),
    ("bce_logits", losses.BinaryCrossentropy(from_logits=True, label_smoothing=0.1),
     _ONE_HOT, _LOGITS),
    ("cce", losses.CategoricalCrossentropy(), _ONE_HOT, _PROBS),
    ("cce_logits", losses.CategoricalCrossentropy(from_logits=True, label_smoothing=0.1),
     _ONE_HOT, _LOGITS),
    ("scce", losses.SparseCategoricalCrossentropy(), np.array([1, 3, 0]), _PROBS),
    ("scce_logits", losses.SparseCategoricalCrossentropy(from_logits=True),
     np.array([1, 3, 0]), _LOGITS),
    ("kld", losses.KLDivergence(), _PROBS[::-1].copy(), _PROBS),
    ("poisson", losses.Poisson(), _PROBS[::-1].copy(), _PROBS),
    ("cosine", losses.CosineSimilarity(), _TARGET, _LOGITS),
    ("hinge", losses.Hinge(), np.sign(_TARGET), _LOGITS),
    ("squared_hinge", losses.SquaredHinge(), np.sign(_TARGET), _LOGITS),
    ("categorical_hinge", losses.CategoricalHinge(), _ONE_HOT, _LOGITS),
    ("weighted_none", losses.MeanSquaredError(reduction=None), _TARGET, _LOGITS),
]


@pytest.mark.parametrize("name, loss, y_true, y_pred", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_gradcheck_wrt_y_pred(name, loss, y_true, y_pred):
    weight = np.array([0.5, 1.0, 2.0])
    gradcheck(lambda p: loss(y_true, p, sample_weight=weight), y_pred, order=1)


def test_logcosh_and_bce_gradients_at_zero_error():
    x = tf.Variable(np.zeros((1, 2)))
    with tf.GradientTape() as tape:
        value = losses.LogCosh()(np.zeros((1, 2)), x)
    np.testing.assert_allclose(tape.gradient(value, x).numpy(), 0.0)
    with tf.GradientTape() as tape:
        value = losses.BinaryCrossentropy(from_logits=True, reduction="sum")(
            np.array([[1., 0.]]), x)
    # (sigmoid(0) - label) / 2: the loss averages over the last axis
    np.testing.assert_allclose(tape.gradient(value, x).numpy(), [[-0.25, 0.25]])


def test_custom_loss_subclass():
    class Scaled(losses.Loss):
        def call(self, y_true, y_pred):
            return tf.reduce_mean(tf.abs(y_true - y_pred), axis=-1) * 2.0

    loss = Scaled(reduction="sum")
    assert loss.name == "scaled"
    np.testing.assert_allclose(loss([[0., 1.]], [[1., 1.]]).numpy(), 1.0)
    np.testing.assert_allclose(Scaled()([[0., 1.], [0., 0.]], [[1., 1.], [1., 0.]],
                                        sample_weight=[1., 0.]).numpy(), 0.5)
