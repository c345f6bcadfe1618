"""tf.map_fn, tf.group, tf.no_op, tf.identity_n (api/functional_ops.py).

Expected values and messages are those of TF 2.21 (run once, pasted here)."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.gradients import gradcheck


def test_map_fn_squares_as_tf_docs():
    np.testing.assert_array_equal(tf.map_fn(lambda t: t * t, tf.constant([2, 3, 4])).numpy(),
                                  [4, 9, 16])


def test_map_fn_nested_elems_and_outputs():
    out = tf.map_fn(lambda x: x[0] * x[1], (tf.constant([1, 2]), tf.constant([3, 4])),
                    fn_output_signature=tf.int32)
    np.testing.assert_array_equal(out.numpy(), [3, 8])
    pair = tf.map_fn(lambda x: (x, x * 2), tf.constant([1, 2]),
                     fn_output_signature=(tf.int32, tf.int32))
    assert isinstance(pair, tuple)
    np.testing.assert_array_equal(pair[1].numpy(), [2, 4])
    d = tf.map_fn(lambda x: {"a": x["a"] + 1.0, "b": x["b"] * 2.0},
                  {"a": tf.constant([1.0, 2.0]), "b": tf.constant([3.0, 4.0])})
    np.testing.assert_array_equal(d["a"].numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(d["b"].numpy(), [6.0, 8.0])


def test_map_fn_signature_changes_dtype_and_rank():
    out = tf.map_fn(lambda row: tf.reduce_sum(row), tf.constant([[1.0, 2.0], [3.0, 4.0]]),
                    fn_output_signature=tf.TensorSpec([], tf.float32))
    np.testing.assert_array_equal(out.numpy(), [3.0, 7.0])
    out = tf.map_fn(lambda x: tf.cast(x, tf.float64), tf.constant([1, 2]), dtype=tf.float64)
    assert out.dtype == tf.float64


def test_map_fn_ragged_signature_as_tf_docs():
    out = tf.map_fn(lambda x: tf.range(x), tf.constant([1, 2, 3]),
                    fn_output_signature=tf.RaggedTensorSpec(shape=[None], dtype=tf.int32))
    assert out.to_list() == [[0], [0, 1], [0, 1, 2]]


def test_map_fn_empty_elems_shapes_as_tf():
    assert tf.map_fn(lambda x: x, tf.zeros((0, 3))).shape == (0,)  # TF 2.21 gives (0,)
    out = tf.map_fn(lambda x: x, tf.zeros((0, 3)),
                    fn_output_signature=tf.TensorSpec([3], tf.float32))
    assert out.shape == (0, 3)


def test_map_fn_errors_as_tf():
    with pytest.raises(ValueError, match="same nested structure"):
        tf.map_fn(lambda x: x[0] * x[1], (tf.constant([1, 2]), tf.constant([3, 4])))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="TensorArray dtype is int32 but Op is trying to write dtype float32"):
        tf.map_fn(lambda x: tf.cast(x, tf.float32), tf.constant([1, 2]))
    with pytest.raises(ValueError, match=r"Incompatible shape for value \(\(2,\)\), expected "
                                         r"\(\(1,\)\)"):
        tf.map_fn(lambda x: tf.range(x), tf.constant([1, 2]))
    with pytest.raises(ValueError, match=r"Incompatible shape for value \(\(1,\)\), expected "
                                         r"\(\(3,\)\)"):
        tf.map_fn(lambda x: x[:1], tf.zeros((2, 3)),
                  fn_output_signature=tf.TensorSpec([3], tf.float32))
    with pytest.raises(ValueError, match="Dimensions 2 and 3 are not compatible"):
        tf.map_fn(lambda x: x, (tf.zeros(2), tf.zeros(3)))
    with pytest.raises(ValueError, match="1\\+ dimensional"):
        tf.map_fn(lambda x: x, tf.constant(1.0))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Shapes of all inputs must match"):
        tf.map_fn(lambda x: tf.range(x), tf.constant([1, 2]), infer_shape=False)


def test_map_fn_back_prop_false_stops_gradient():
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.map_fn(lambda v: v * v, x, back_prop=False))
    assert tape.gradient(y, x) is None


@pytest.mark.parametrize("shape", [(3, 2), (0, 2), (1, 4)])
def test_map_fn_gradcheck(shape):
    rng = np.random.default_rng(0)
    w = rng.standard_normal(shape[1:])
    gradcheck(lambda x, w: tf.map_fn(lambda r: tf.sin(r[0]) * r[1] ** 2, (x, x * w),
                                     fn_output_signature=tf.float64),
              rng.standard_normal(shape), np.broadcast_to(w, shape).copy(), order=2)


def test_group_no_op_identity_n_as_tf_eager():
    assert tf.group(tf.constant(1)) is None
    assert tf.no_op() is None
    a, b = tf.identity_n([tf.constant(1), tf.constant(2.0)])
    assert (a.numpy(), b.numpy(), b.dtype) == (1, 2.0, tf.float32)
    gradcheck(lambda x: tf.identity_n([x * x])[0], np.array([0.5, -1.5]), order=2)


def test_map_fn_over_a_ragged_tensor_as_the_ragged_guide():
    digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    assert tf.map_fn(tf.math.square, digits).to_list() == [
        [9, 1, 16, 1], [], [25, 81, 4], [36], []]  # the guide's printed result
    sums = tf.map_fn(tf.reduce_sum, digits, fn_output_signature=tf.int32)
    np.testing.assert_array_equal(sums.numpy(), [9, 0, 16, 6, 0])
