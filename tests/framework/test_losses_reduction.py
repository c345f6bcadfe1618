"""tf.keras.losses.Reduction (Keras 2's enum) and tf.keras.optimizers.legacy."""

import numpy as np
import pytest

import tapeflow as tf


def test_reduction_members_are_keras2_strings():
    R = tf.keras.losses.Reduction
    assert (R.AUTO, R.NONE, R.SUM, R.SUM_OVER_BATCH_SIZE) == (
        "auto", "none", "sum", "sum_over_batch_size")
    assert R.all() == ("auto", "none", "sum", "sum_over_batch_size")
    R.validate("sum")
    with pytest.raises(ValueError, match="Invalid Reduction Key: mean_of_nothing"):
        R.validate("mean_of_nothing")


@pytest.mark.parametrize("reduction, expected", [
    ("none", [2.5, 1.0]), ("sum", 3.5), ("sum_over_batch_size", 1.75), ("auto", 1.75)])
def test_losses_accept_reduction_members(reduction, expected):
    loss = tf.keras.losses.MeanSquaredError(reduction=reduction)
    value = loss([[0.0, 0.0], [0.0, 0.0]], [[1.0, 2.0], [1.0, 1.0]])
    np.testing.assert_allclose(value.numpy(), expected)


def test_legacy_optimizers_are_the_same_classes():
    legacy = tf.keras.optimizers.legacy
    for name in ("SGD", "Adam", "Adagrad", "RMSprop", "Adadelta", "Adamax", "Nadam", "Ftrl",
                 "Optimizer"):
        assert getattr(legacy, name) is getattr(tf.keras.optimizers, name)
    from tapeflow.keras.optimizers.legacy import SGD
    v = tf.Variable([1.0])
    SGD(learning_rate=0.5).apply_gradients([(tf.constant([2.0]), v)])
    np.testing.assert_allclose(v.numpy(), [0.0])
