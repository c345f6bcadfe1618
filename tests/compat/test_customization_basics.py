"""Customization basics: tensors and operations.

Source: https://www.tensorflow.org/tutorials/customization/basics
(github.com/tensorflow/docs, site/en/tutorials/customization/basics.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf`; the matmul timing loop runs on 200x200 instead of
1000x1000; the values the text prints are asserted.
"""

import tempfile

import numpy as np

import tapeflow as tf


def test_customization_basics():
    assert tf.math.add(1, 2).numpy() == 3
    np.testing.assert_array_equal(tf.math.add([1, 2], [3, 4]).numpy(), [4, 6])
    assert tf.math.square(5).numpy() == 25
    assert tf.math.reduce_sum([1, 2, 3]).numpy() == 6
    assert (tf.math.square(2) + tf.math.square(3)).numpy() == 13

    x = tf.linalg.matmul([[1]], [[2, 3]])
    np.testing.assert_array_equal(x.numpy(), [[2, 3]])
    assert x.shape == (1, 2) and x.dtype == tf.int32

    ndarray = np.ones([3, 3])
    tensor = tf.math.multiply(ndarray, 42)
    np.testing.assert_array_equal(tensor.numpy(), np.full((3, 3), 42.0))
    np.testing.assert_array_equal(np.add(tensor, 1), np.full((3, 3), 43.0))

    x = tf.random.uniform([3, 3])
    assert tf.config.list_physical_devices("GPU") == []
    assert not x.device.endswith('GPU:0')

    import time

    def time_matmul(x):
      start = time.time()
      for loop in range(10):
        tf.linalg.matmul(x, x)
      result = time.time()-start
      print("10 loops: {:0.2f}ms".format(1000*result))

    with tf.device("CPU:0"):
      x = tf.random.uniform([200, 200])
      assert x.device.endswith("CPU:0")
      time_matmul(x)

    ds_tensors = tf.data.Dataset.from_tensor_slices([1, 2, 3, 4, 5, 6])
    _, filename = tempfile.mkstemp()
    with open(filename, 'w') as f:
      f.write("""Line 1
Line 2
Line 3
  """)
    ds_file = tf.data.TextLineDataset(filename)
    ds_tensors = ds_tensors.map(tf.math.square).shuffle(2).batch(2)
    ds_file = ds_file.batch(2)

    batches = [x.numpy().tolist() for x in ds_tensors]
    assert [len(b) for b in batches] == [2, 2, 2]
    assert sorted(sum(batches, [])) == [1, 4, 9, 16, 25, 36]
    lines = [x.numpy().tolist() for x in ds_file]
    assert lines == [[b'Line 1', b'Line 2'], [b'Line 3', b'  ']]
