"""Metrics: the values of the Keras documentation examples, state handling
(variables, reset, accumulation over batches), no tape recording, lookup by
name and the 'accuracy' resolution used by compile."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import losses, metrics


def _value(metric, *args, **kwargs):
    metric.update_state(*args, **kwargs)
    result = metric.result()
    assert isinstance(result, tf.Tensor)
    return result.numpy()


# (metric factory, update args, documented result, sample_weight, documented weighted result)
DOC_EXAMPLES = [
    ("Mean", metrics.Mean, ([1, 3, 5, 7],), 4.0, [1, 1, 0, 0], 2.0),
    ("Sum", metrics.Sum, ([1, 3, 5, 7],), 16.0, [1, 1, 0, 0], 4.0),
    ("Accuracy", metrics.Accuracy, ([[1], [2], [3], [4]], [[0], [2], [3], [4]]), 0.75,
     [1, 1, 0, 0], 0.5),
    ("BinaryAccuracy", metrics.BinaryAccuracy,
     ([[1], [1], [0], [0]], [[0.98], [1], [0], [0.6]]), 0.75, [1, 0, 0, 1], 0.5),
    ("CategoricalAccuracy", metrics.CategoricalAccuracy,
     ([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]), 0.5, [0.7, 0.3], 0.3),
    ("SparseCategoricalAccuracy", metrics.SparseCategoricalAccuracy,
     ([[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]]), 0.5, [0.7, 0.3], 0.3),
    ("TopKCategoricalAccuracy", lambda: metrics.TopKCategoricalAccuracy(k=1),
     ([[0, 0, 1], [0, 1, 0]], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]), 0.5, [0.7, 0.3], 0.3),
    ("SparseTopKCategoricalAccuracy", lambda: metrics.SparseTopKCategoricalAccuracy(k=1),
     ([2, 1], [[0.1, 0.9, 0.8], [0.05, 0.95, 0]]), 0.5, [0.7, 0.3], 0.3),
    ("Precision", metrics.Precision, ([0, 1, 1, 1], [1, 0, 1, 1]), 2 / 3, [0, 0, 1, 0], 1.0),
    ("Recall", metrics.Recall, ([0, 1, 1, 1], [1, 0, 1, 1]), 2 / 3, [0, 0, 1, 0], 1.0),
    ("AUC", lambda: metrics.AUC(num_thresholds=3), ([0, 0, 1, 1], [0, 0.5, 0.3, 0.9]), 0.75,
     [1, 0, 0, 1], 1.0),
    ("MeanSquaredError", metrics.MeanSquaredError, ([[0, 1], [0, 0]], [[1, 1], [0, 0]]), 0.25,
     [1, 0], 0.5),
    ("RootMeanSquaredError", metrics.RootMeanSquaredError,
     ([[0, 1], [0, 0]], [[1, 1], [0, 0]]), 0.5, [1, 0], 0.70710677),
    ("MeanAbsoluteError", metrics.MeanAbsoluteError, ([[0, 1], [0, 0]], [[1, 1], [0, 0]]),
     0.25, [1, 0], 0.5),
]


@pytest.mark.parametrize("name, factory, args, expected, weight, weighted", DOC_EXAMPLES,
                         ids=[e[0] for e in DOC_EXAMPLES])
def test_documented_values(name, factory, args, expected, weight, weighted):
    metric = factory()
    np.testing.assert_allclose(_value(metric, *args), expected, rtol=1e-6)
    assert all(isinstance(v, tf.Variable) and not v.trainable for v in metric.variables)
    assert metric.trainable_variables == []
    metric.reset_state()
    assert all(not np.any(v.numpy()) for v in metric.variables)
    np.testing.assert_allclose(_value(metric, *args, sample_weight=weight), weighted,
                               rtol=1e-6)


def test_sparse_categorical_accuracy_doc_example():
    # keras.io: [[2], [1]] against [[0.1, 0.6, 0.3], [0.05, 0.95, 0]] gives 0.5
    m = metrics.SparseCategoricalAccuracy()
    assert _value(m, [[2], [1]], [[0.1, 0.6, 0.3], [0.05, 0.95, 0]]) == 0.5


def test_state_accumulates_over_batches():
    m = metrics.Mean()
    m.update_state([1, 2])
    m.update_state([3, 4, 5, 6])
    assert m.result().numpy() == 3.5
    assert [v.name for v in m.variables] == ["total:0", "count:0"]
    acc = metrics.SparseCategoricalAccuracy()
    acc.update_state(np.array([0, 1]), np.array([[0.9, 0.1], [0.8, 0.2]]))
    acc.update_state(np.array([1, 1]), tf.constant([[0.1, 0.9], [0.3, 0.7]]))
    assert acc.result().numpy() == 0.75
    assert metrics.Mean().result().numpy() == 0.0  # no updates: 0, not NaN
    assert float(metrics.Mean()([2.0, 4.0])) == 3.0  # __call__ updates, then returns


@pytest.mark.parametrize("value, weight", [
    (0.1, None), (np.float64(0.1), 128), (tf.constant(2.7), tf.constant(3.0)),
    (np.float32(-1.25), np.int64(7)), (0.3, 0.0), (np.nan, 2)])
def test_a_scalar_mean_update_equals_the_samplewise_path(value, weight):
    # fit's loss tracker takes the scalar fast path; the result must be the one an
    # array of one value (the general path, through _samplewise) gives, bit for bit.
    fast, general = metrics.Mean(), metrics.Mean()
    for _ in range(3):
        fast.update_state(value, sample_weight=weight)
        value_1 = np.asarray(value._value if isinstance(value, tf.Tensor) else value)[None]
        weight_1 = None if weight is None else np.asarray(
            weight._value if isinstance(weight, tf.Tensor) else weight)[None]
        general.update_state(value_1, sample_weight=weight_1)
    for a, b in zip(fast.variables, general.variables):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
        assert a.numpy().dtype == np.float32
    np.testing.assert_array_equal(fast.result().numpy(), general.result().numpy())


def test_precision_recall_options():
    assert _value(metrics.Precision(top_k=2), [0, 0, 1, 1], [1, 1, 1, 1]) == 0.0
    assert _value(metrics.Precision(top_k=4), [0, 0, 1, 1], [1, 1, 1, 1]) == 0.5
    both = _value(metrics.Precision(thresholds=[0.3, 0.8]), [0, 1, 1, 0], [0.5, 0.9, 0.4, 0.2])
    np.testing.assert_allclose(both, [2 / 3, 1.0])
    assert _value(metrics.Precision(thresholds=[0.3]), [1], [0.5]).shape == ()
    y_true = [[0, 1], [1, 0], [0, 1]]
    y_pred = [[0.2, 0.7], [0.6, 0.3], [0.8, 0.4]]
    assert _value(metrics.Recall(class_id=1), y_true, y_pred) == 0.5
    with pytest.raises(ValueError, match=r"Threshold values must be in \[0, 1\]"):
        metrics.Precision(thresholds=1.5)


def test_auc_matches_exact_roc_and_pr_interpolation():
    rng = np.random.default_rng(0)
    labels = rng.integers(0, 2, 500)
    scores = np.clip(labels * 0.3 + rng.uniform(0, 0.7, 500), 0, 1)
    pos, neg = scores[labels == 1], scores[labels == 0]
    exact = np.mean((pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :]))
    auc = metrics.AUC(num_thresholds=1000)
    auc.update_state(labels[:250], scores[:250])
    auc.update_state(labels[250:], scores[250:])
    np.testing.assert_allclose(auc.result().numpy(), exact, atol=2e-3)
    # PR with interpolation, by hand for the documented example:
    # tp = [2, 1, 0], p = tp + fp = [4, 1, 0], slopes [1/3, 1], intercepts [2/3, 0]
    pr = metrics.AUC(num_thresholds=3, curve="PR")
    expected = (1 / 3) * (1 + (2 / 3) * np.log(4)) / 2 + 1 * 1 / 2
    np.testing.assert_allclose(_value(pr, [0, 0, 1, 1], [0, 0.5, 0.3, 0.9]), expected,
                               rtol=1e-6)
    minoring = metrics.AUC(num_thresholds=3, summation_method="minoring")
    assert _value(minoring, [0, 0, 1, 1], [0, 0.5, 0.3, 0.9]) == 0.5
    logits = metrics.AUC(num_thresholds=3, from_logits=True)
    np.testing.assert_allclose(_value(logits, [0, 0, 1, 1], [-9., -0.01, -0.8, 2.2]), 0.75)
    with pytest.raises(ValueError, match="num_thresholds"):
        metrics.AUC(num_thresholds=1)
    with pytest.raises(ValueError, match="curve"):
        metrics.AUC(curve="XY")


def test_top_k_ties_count_as_in_top_k():
    # TF's in_top_k: classes tied at the k-th place are all in the top k
    m = metrics.SparseTopKCategoricalAccuracy(k=1)
    assert _value(m, [1], [[0.5, 0.5, 0.0]]) == 1.0
    assert _value(metrics.TopKCategoricalAccuracy(), [[0, 0, 0, 0, 0, 1]],
                  [[6, 5, 4, 3, 2, 1.]]) == 0.0


def test_metric_updates_are_not_recorded_on_tapes():
    x = tf.Variable([[0.2, 0.8], [0.6, 0.4]])
    m = metrics.MeanSquaredError()
    with tf.GradientTape(persistent=True) as tape:
        y = x * 2.0
        m.update_state([[0., 1.], [1., 0.]], y)
        auc = metrics.AUC()
        auc.update_state([1, 0], y[:, 0])
    assert len(tape._records) == 2  # x * 2.0 and the slice; nothing from the metrics
    np.testing.assert_allclose(m.result().numpy(), np.mean((np.array(
        [[0.4, 1.6], [1.2, 0.8]]) - [[0., 1.], [1., 0.]]) ** 2), rtol=1e-6)


def test_config_and_names():
    m = metrics.BinaryAccuracy(threshold=0.7, name="bin")
    config = m.get_config()
    assert config["threshold"] == 0.7 and config["name"] == "bin"
    assert metrics.BinaryAccuracy.from_config(config).threshold == 0.7
    assert metrics.AUC.from_config(metrics.AUC(curve="PR").get_config()).curve == "PR"
    assert metrics.Precision.from_config(metrics.Precision(top_k=3).get_config()).top_k == 3
    assert metrics.AUC().name == "auc" and metrics.Precision().name == "precision"
    assert metrics.RootMeanSquaredError().name == "root_mean_squared_error"
    assert metrics.SparseTopKCategoricalAccuracy().k == 5
    assert metrics.Accuracy()._direction == "up" and metrics.MeanSquaredError()._direction \
        == "down"


def test_get_and_resolve():
    assert metrics.get("mse") is losses.mean_squared_error
    assert metrics.get("binary_accuracy") is metrics.binary_accuracy
    assert isinstance(metrics.get("AUC"), metrics.AUC)
    assert isinstance(metrics.get("auc"), metrics.AUC)
    with pytest.raises(ValueError, match=r"Unknown metric: 'acuracy'.*'accuracy'"):
        metrics.get("acuracy")
    mae = metrics.resolve("mae")
    assert isinstance(mae, metrics.MeanMetricWrapper) and mae.name == "mae"
    assert mae._direction == "down"
    assert _value(mae, [[0, 1], [0, 0]], [[1, 1], [0, 0]]) == 0.25
    custom = metrics.resolve(lambda t, p: tf.abs(t - p))
    assert custom.name == "<lambda>"
    prec = metrics.Precision()
    assert metrics.resolve(prec) is prec


@pytest.mark.parametrize("loss, y_true_shape, y_pred_shape, expected", [
    ("binary_crossentropy", (32, 1), (32, 1), metrics.BinaryAccuracy),
    (losses.BinaryCrossentropy(from_logits=True), (32, 5), (32, 5), metrics.BinaryAccuracy),
    ("sparse_categorical_crossentropy", (32,), (32, 10), metrics.SparseCategoricalAccuracy),
    (losses.SparseCategoricalCrossentropy, (32, 1), (32, 10),
     metrics.SparseCategoricalAccuracy),
    (losses.CategoricalCrossentropy(), (32, 10), (32, 10), metrics.CategoricalAccuracy),
    ("mse", (32, 1), (32, 1), metrics.BinaryAccuracy),
    ("mse", (32,), (32, 4), metrics.SparseCategoricalAccuracy),
    ("mse", (32, 1), (32, 4), metrics.SparseCategoricalAccuracy),
    ("mse", (32, 4), (32, 4), metrics.CategoricalAccuracy),
    (None, (32,), (32,), metrics.BinaryAccuracy),
])
def test_resolve_accuracy(loss, y_true_shape, y_pred_shape, expected):
    for name in ("accuracy", "acc"):
        metric = metrics.resolve(name, loss=loss, y_true_shape=y_true_shape,
                                 y_pred_shape=y_pred_shape)
        assert type(metric) is expected and metric.name == name


def test_bad_sample_weight_shape():
    with pytest.raises(ValueError, match=r"sample_weight of shape \(3,\)"):
        metrics.Mean().update_state([1., 2.], sample_weight=[1., 1., 1.])
