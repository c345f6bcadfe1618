"""tf.py_function and tf.numpy_function, and tf.range's dtype inference."""

import numpy as np
import pytest

import tapeflow as tf


def test_py_function_calls_on_tensors_and_is_differentiable():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.py_function(lambda t: t * t, [x], tf.float32)
    assert float(y) == 9.0 and float(tape.gradient(y, x)) == 6.0


def test_py_function_several_outputs_and_dtypes():
    a, b = tf.py_function(lambda t: (t + 1, tf.strings.as_string(t)), [tf.constant(1)],
                          [tf.int32, tf.string])
    assert int(a) == 2 and b.numpy() == b"1"
    with pytest.raises(TypeError, match="float32 value where Tout says int32"):
        tf.py_function(lambda t: t * 1.5, [tf.constant(1.0)], tf.int32)
    with pytest.raises(ValueError, match="returned 1 values but Tout names 2"):
        tf.py_function(lambda t: t, [tf.constant(1.0)], [tf.float32, tf.float32])


def test_numpy_function_gets_arrays_and_is_not_differentiable():
    x = tf.constant([1.0, 4.0])
    seen = []

    def f(a):
        seen.append(type(a))
        return np.sqrt(a)

    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.numpy_function(f, [x], tf.float32)
    assert seen == [np.ndarray]
    np.testing.assert_array_equal(y.numpy(), [1.0, 2.0])
    assert tape.gradient(y, x) is None


def test_inside_dataset_map():
    ds = tf.data.Dataset.range(3).map(
        lambda i: tf.py_function(lambda t: t * 10, [i], tf.int64))
    assert list(ds.as_numpy_iterator()) == [0, 10, 20]


@pytest.mark.parametrize("args, kwargs, dtype", [
    ((5,), {}, tf.int32), ((2.5,), {}, tf.float32), ((np.int64(5),), {}, tf.int64),
    ((tf.constant(5, tf.int64),), {}, tf.int64), ((1, 3.0, 0.5), {}, tf.float32),
    ((tf.constant(3.0, tf.float64),), {}, tf.float64), ((5,), {"dtype": tf.int64}, tf.int64),
])
def test_range_infers_tfs_dtype(args, kwargs, dtype):
    assert tf.range(*args, **kwargs).dtype == dtype
