"""Keras's probabilistic and regression mean-of-loss metrics (metrics/probabilistic.py).

Expected values are the examples of Keras's API pages (keras.io/api/metrics)."""

import numpy as np
import pytest

import tapeflow as tf

M = tf.keras.metrics
YT2, YP_PROB, YP_01 = [[0, 1], [0, 0]], [[0.6, 0.4], [0.4, 0.6]], [[1, 1], [0, 0]]


@pytest.mark.parametrize("make, y_true, y_pred, weights, expected, weighted", [
    (M.BinaryCrossentropy, YT2, YP_PROB, [1, 0], 0.81492424, 0.9162905),
    (M.CategoricalCrossentropy, [[0, 1, 0], [0, 0, 1]], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]],
     [0.3, 0.7], 1.1769392, 1.6271976),
    (M.SparseCategoricalCrossentropy, [1, 2], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]], [0.3, 0.7],
     1.1769392, 1.6271976),
    (M.KLDivergence, YT2, YP_PROB, [1, 0], 0.45814306, 0.9162892),
    (M.Poisson, YT2, YP_01, [1, 0], 0.49999997, 0.99999994),
    (M.LogCoshError, YT2, YP_01, [1, 0], 0.10844523, 0.21689045),
    (M.MeanAbsolutePercentageError, YT2, YP_01, [1, 0], 250000000.0, 500000000.0),
    (M.MeanSquaredLogarithmicError, YT2, YP_01, [1, 0], 0.12011322, 0.24022643),
    (lambda: M.CosineSimilarity(axis=1), [[0.0, 1.0], [1.0, 1.0]], [[1.0, 0.0], [1.0, 1.0]],
     [0.3, 0.7], 0.49999997, 0.6999999),
    (M.Hinge, YT2, YP_PROB, [1, 0], 1.3, 1.1),
    (M.SquaredHinge, YT2, YP_PROB, [1, 0], 1.86, 1.46),
    (M.CategoricalHinge, YT2, YP_PROB, [1, 0], 1.4000001, 1.2),
])
def test_keras_doc_examples(make, y_true, y_pred, weights, expected, weighted):
    m = make()
    m.update_state(y_true, y_pred)
    np.testing.assert_allclose(m.result().numpy(), expected, rtol=1e-5)
    m.reset_state()
    m.update_state(y_true, y_pred, sample_weight=weights)
    np.testing.assert_allclose(m.result().numpy(), weighted, rtol=1e-5)


def test_constructor_arguments_and_names_as_keras():
    m = M.BinaryCrossentropy(from_logits=True, label_smoothing=0.1)
    assert (m.name, m.from_logits, m.label_smoothing) == ("binary_crossentropy", True, 0.1)
    config = m.get_config()
    assert config["from_logits"] is True and config["label_smoothing"] == 0.1
    assert M.BinaryCrossentropy.from_config(config).get_config() == config
    assert M.CategoricalCrossentropy().axis == -1
    assert M.LogCoshError().name == "logcosh"
    assert M.KLDivergence().name == "kl_divergence"
    with pytest.raises(TypeError, match="unexpected keyword"):
        M.Poisson(from_logits=True)


def test_from_logits_matches_probabilities():
    logits = np.array([[2.0, -1.0, 0.5]], np.float32)
    probs = np.exp(logits) / np.exp(logits).sum()
    a, b = M.CategoricalCrossentropy(from_logits=True), M.CategoricalCrossentropy()
    a.update_state([[0, 0, 1]], logits)
    b.update_state([[0, 0, 1]], probs)
    np.testing.assert_allclose(a.result().numpy(), b.result().numpy(), rtol=1e-5)
    np.testing.assert_allclose(a.result().numpy(), -np.log(probs[0, 2]), rtol=1e-5)


def test_get_and_compile_find_them():
    assert isinstance(M.get("BinaryCrossentropy"), M.BinaryCrossentropy)
    model = tf.keras.Sequential([tf.keras.Input((2,)), tf.keras.layers.Dense(1, "sigmoid")])
    model.compile("sgd", "binary_crossentropy", metrics=[M.BinaryCrossentropy()])
    logs = model.evaluate(np.zeros((4, 2), np.float32), np.ones((4, 1), np.float32),
                          verbose=0, return_dict=True)
    np.testing.assert_allclose(logs["binary_crossentropy"], logs["loss"], rtol=1e-5)


@pytest.mark.parametrize("make, y_true, y_pred", [
    (M.TruePositives, [0, 1, 1, 1], [1, 0, 1, 1]),
    (M.FalsePositives, [0, 1, 0, 0], [0, 0, 1, 1]),
    (M.TrueNegatives, [0, 1, 0, 0], [1, 1, 0, 0]),
    (M.FalseNegatives, [0, 1, 1, 1], [0, 1, 0, 0]),
])
def test_confusion_counts_keras_doc_examples(make, y_true, y_pred):
    m = make()
    m.update_state(y_true, y_pred)
    assert m.result().numpy() == 2.0  # Keras's documented results
    m.reset_state()
    m.update_state(y_true, y_pred, sample_weight=[0, 0, 1, 0])
    assert m.result().numpy() == 1.0
    several = make(thresholds=[0.3, 0.7])
    several.update_state(y_true, y_pred)
    np.testing.assert_array_equal(several.result().numpy(), [2.0, 2.0])
    assert make.__name__ in type(M.get(make.__name__)).__name__
    with pytest.raises(ValueError, match=r"Threshold values must be in \[0, 1\]"):
        make(thresholds=1.5)
