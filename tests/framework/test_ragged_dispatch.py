"""tf.math's elementwise functions and reductions and tf.nn.embedding_lookup take
RaggedTensors, as the ragged guide uses them (api/dispatch.composite_aware)."""

import numpy as np
import pytest

import tapeflow as tf


def test_elementwise_functions_act_on_the_flat_values():
    digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    assert tf.add(digits, 3).to_list() == [[6, 4, 7, 4], [], [8, 12, 5], [9], []]
    assert tf.math.maximum(digits, 4).to_list() == [[4, 4, 4, 4], [], [5, 9, 4], [6], []]
    floats = tf.cast(digits.flat_values, tf.float32)
    rt = digits.with_flat_values(floats)
    np.testing.assert_allclose(tf.math.sqrt(rt).flat_values.numpy(), np.sqrt(floats.numpy()))


def test_reductions_by_row_as_the_ragged_guide_prints():
    digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    # The guide: tf.reduce_mean(digits, axis=1) -> [2.25, nan, 5.33333, 6., nan]
    as_float = digits.with_flat_values(tf.cast(digits.flat_values, tf.float64))
    means = tf.reduce_mean(as_float, axis=1).numpy()
    np.testing.assert_allclose(means, [2.25, np.nan, 16 / 3, 6.0, np.nan])
    assert tf.reduce_sum(digits, axis=1).numpy().tolist() == [9, 0, 16, 6, 0]
    assert tf.reduce_max(digits, axis=1).numpy()[[0, 2, 3]].tolist() == [4, 9, 6]


def test_embedding_lookup_of_ragged_ids():
    params = tf.constant(np.arange(12, dtype=np.float32).reshape(6, 2))
    ids = tf.ragged.constant([[0, 5], [2]])
    rows = tf.nn.embedding_lookup(params, ids)
    assert rows.to_list() == [[[0.0, 1.0], [10.0, 11.0]], [[4.0, 5.0]]]


def test_tensors_are_unchanged_and_other_type_errors_still_raise():
    assert float(tf.add(tf.constant(1.0), 2.0)) == 3.0
    assert float(tf.constant(4.0) / 2) == 2.0
    with pytest.raises(TypeError):
        tf.add(tf.constant(1.0), object())


def test_strings_join_of_ragged_inputs_and_tf_experimental():
    a = tf.ragged.constant([["a", "b"], ["c"]])
    b = tf.ragged.constant([["x", "y"], ["z"]])
    assert tf.strings.join([a, b], separator="+").to_list() == [[b"a+x", b"b+y"], [b"c+z"]]
    with pytest.raises(tf.errors.InvalidArgumentError, match="same row partition"):
        tf.strings.join([a, tf.ragged.constant([["x"], ["y", "z"]])])
    assert tf.experimental.DynamicRaggedShape is tf.ragged.DynamicRaggedShape
    assert tf.experimental.RowPartition is tf.ragged.RowPartition
