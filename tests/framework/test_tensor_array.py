"""tf.TensorArray with eager TF's semantics (api/tensor_array.py).

Messages and values are TF 2.21's (run once, pasted here)."""

import numpy as np
import pytest

from tapeflow.api.tensor_array import TensorArray
import tapeflow as tf
from tapeflow.testing.gradients import gradcheck


def test_write_read_stack_as_tf_docs():
    ta = TensorArray(tf.float32, size=0, dynamic_size=True, clear_after_read=False)
    ta = ta.write(0, 10)
    ta = ta.write(1, 20)
    ta = ta.write(2, 30)
    assert [ta.read(i).numpy() for i in range(3)] == [10.0, 20.0, 30.0]
    np.testing.assert_array_equal(ta.stack().numpy(), [10.0, 20.0, 30.0])
    assert ta.size().numpy() == 3 and ta.size().dtype == tf.int32
    assert ta.write(0, 1.0) is ta


def test_write_twice_replaces_as_eager_tf():
    ta = TensorArray(tf.float32, size=2).write(0, 1.0).write(0, 2.0)
    assert ta.read(0).numpy() == 2.0


def test_unwritten_reads_zeros_of_a_known_element_shape():
    ta = TensorArray(tf.float32, size=2, element_shape=[3])
    np.testing.assert_array_equal(ta.read(1).numpy(), [0.0, 0.0, 0.0])
    assert ta.stack().shape == (2, 3)
    with pytest.raises(ValueError, match="Cannot convert a partially known TensorShape"):
        TensorArray(tf.float32, size=2).read(1)


def test_unstack_gather_concat_scatter_split():
    ta = TensorArray(tf.float32, size=3).unstack([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    assert ta.element_shape.as_list() == [2]
    np.testing.assert_array_equal(ta.gather([2, 0]).numpy(), [[5.0, 6.0], [1.0, 2.0]])
    np.testing.assert_array_equal(ta.concat().numpy(), [1, 2, 3, 4, 5, 6])
    ta = TensorArray(tf.int32, size=3, element_shape=[]).scatter([2, 0], tf.constant([7, 8]))
    np.testing.assert_array_equal(ta.stack().numpy(), [8, 0, 7])
    ta = TensorArray(tf.float32, size=2).split([1.0, 2.0, 3.0], [1, 2])
    np.testing.assert_array_equal(ta.read(1).numpy(), [2.0, 3.0])
    ta.close()
    assert ta.size().numpy() == 0


def test_empty_stack_shapes_as_tf():
    assert TensorArray(tf.float32, size=0).stack().shape == (0,)
    assert TensorArray(tf.float32, size=0, element_shape=(2,)).stack().shape == (0, 2)
    assert str(TensorArray(tf.float32, size=0).element_shape) == "<unknown>"


def test_errors_as_tf():
    ta = TensorArray(tf.float32, size=3).unstack([1.0, 2.0, 3.0])
    ta.read(1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="Could not read index 1 twice"):
        ta.read(1)
    with pytest.raises(tf.errors.OutOfRangeError,
                       match="Tried to read from index 5 but array size is: 3"):
        ta.read(5)
    with pytest.raises(tf.errors.OutOfRangeError, match="Reading from negative indices"):
        ta.read(-1)
    ints = TensorArray(tf.int32, 2)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match="TensorArray dtype is int32 but Op is trying to write dtype float32"):
        ints.write(0, tf.constant(1.5))
    with pytest.raises(tf.errors.OutOfRangeError, match="not resizeable and size is: 2"):
        ints.write(2, 1)
    with pytest.raises(ValueError, match=r"Inconsistent shapes: saw \(2,\) but expected \(3,\)"):
        TensorArray(tf.float32, 2, element_shape=[3]).write(0, [1.0, 2.0])
    with pytest.raises(ValueError, match="Cannot unstack 3 tensors into a TensorArray of static "
                                         "size 2"):
        TensorArray(tf.float32, 2).unstack([1.0, 2.0, 3.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="sum of lengths is 2"):
        TensorArray(tf.float32, 1).split([1.0, 2.0, 3.0], [2])
    with pytest.raises(ValueError, match="Size must be declared"):
        TensorArray(tf.float32)
    with pytest.raises(ValueError, match="handles are not supported"):
        TensorArray(tf.float32, 1, handle=object())


def _through_array(x, y):
    ta = TensorArray(tf.float64, size=0, dynamic_size=True)
    for i in range(x.shape[0]):
        ta = ta.write(i, x[i] * y[i])
    return ta.stack() if x.shape[0] else tf.zeros((0,) + tuple(x.shape[1:]), tf.float64)


@pytest.mark.parametrize("shape", [(3, 2), (1, 3), (0, 2)])
def test_gradients_through_write_and_stack(shape):
    rng = np.random.default_rng(1)
    gradcheck(_through_array, rng.standard_normal(shape), rng.standard_normal(shape), order=2)


def test_gradients_through_unstack_read_and_gather():
    def fn(x):
        ta = TensorArray(tf.float64, size=x.shape[0], clear_after_read=False).unstack(x)
        return ta.read(0) * ta.gather([1, 0]) ** 2
    gradcheck(fn, np.array([[0.5, -1.0], [2.0, 0.3]]), order=2)


def test_tf_root_name():
    assert tf.TensorArray is TensorArray
