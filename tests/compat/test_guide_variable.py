"""Introduction to Variables.

Source: https://www.tensorflow.org/guide/variable
(github.com/tensorflow/docs, site/en/guide/variable.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf`; the values the text prints are asserted.
"""

import numpy as np
import pytest

import tapeflow as tf


def test_guide_variable():
    my_tensor = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    my_variable = tf.Variable(my_tensor)
    bool_variable = tf.Variable([False, False, False, True])
    complex_variable = tf.Variable([5 + 4j, 6 + 1j])
    assert bool_variable.dtype == tf.bool and complex_variable.dtype == tf.complex128

    assert my_variable.shape == (2, 2)
    assert my_variable.dtype == tf.float32
    np.testing.assert_array_equal(my_variable.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    print("A variable:", my_variable)
    np.testing.assert_array_equal(tf.convert_to_tensor(my_variable).numpy(), my_tensor.numpy())
    np.testing.assert_array_equal(tf.math.argmax(my_variable).numpy(), [1, 1])
    np.testing.assert_array_equal(tf.reshape(my_variable, [1,4]).numpy(), [[1, 2, 3, 4]])

    a = tf.Variable([2.0, 3.0])
    a.assign([1, 2])
    np.testing.assert_array_equal(a.numpy(), [1.0, 2.0])
    with pytest.raises(Exception) as error:  # the text: ValueError, shapes (2,) and (3,)
      a.assign([1.0, 2.0, 3.0])
    print(f"{type(error.value).__name__}: {error.value}")
    assert isinstance(error.value, ValueError)

    a = tf.Variable([2.0, 3.0])
    b = tf.Variable(a)
    a.assign([5, 6])
    np.testing.assert_array_equal(a.numpy(), [5.0, 6.0])
    np.testing.assert_array_equal(b.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(a.assign_add([2,3]).numpy(), [7.0, 9.0])
    np.testing.assert_array_equal(a.assign_sub([7,9]).numpy(), [0.0, 0.0])

    a = tf.Variable(my_tensor, name="Mark")
    b = tf.Variable(my_tensor + 1, name="Mark")
    np.testing.assert_array_equal((a == b).numpy(), [[False, False], [False, False]])

    step_counter = tf.Variable(1, trainable=False)
    assert not step_counter.trainable

    with tf.device('CPU:0'):
      a = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
      b = tf.constant([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
      c = tf.matmul(a, b)
    np.testing.assert_array_equal(c.numpy(), [[22.0, 28.0], [49.0, 64.0]])

    with tf.device('CPU:0'):
      a = tf.Variable([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
      b = tf.Variable([[1.0, 2.0, 3.0]])
    with tf.device('GPU:0'):  # no GPU: TF places the op on the CPU (soft placement)
      k = a * b
    np.testing.assert_array_equal(k.numpy(), [[1.0, 4.0, 9.0], [4.0, 10.0, 18.0]])
