"""Working with sparse tensors.

Source: https://www.tensorflow.org/guide/sparse_tensor
(github.com/tensorflow/docs, site/en/guide/sparse_tensor.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf`; one test per section (the later sections repeat the
`st2`, `pprint_sparse_tensor` and `sparse_data` definitions they use); what the page
prints is asserted, with the values TF 2.21 prints for it. No other change.
"""

import numpy as np

import tapeflow as tf


def pprint_sparse_tensor(st):
  s = "<SparseTensor shape=%s \n values={" % (st.dense_shape.numpy().tolist(),)
  for (index, value) in zip(st.indices, st.values):
    s += f"\n  %s: %s" % (index.numpy().tolist(), value.numpy().tolist())
  return s + "}>"


def _sparse_data():
  return tf.sparse.SparseTensor(
      indices = [(0,0),(0,1),(0,2),
                 (4,3),(5,0),(5,1)],
      values = [1,1,1,1,1,1],
      dense_shape = (6,4)
  )


def test_creating_a_sparse_tensor():
  st1 = tf.sparse.SparseTensor(indices=[[0, 3], [2, 4]],
                        values=[10, 20],
                        dense_shape=[3, 10])
  print(st1)
  assert str(st1) == (
      "SparseTensor(indices=tf.Tensor(\n[[0 3]\n [2 4]], shape=(2, 2), dtype=int64), "
      "values=tf.Tensor([10 20], shape=(2,), dtype=int32), "
      "dense_shape=tf.Tensor([ 3 10], shape=(2,), dtype=int64))")

  print(pprint_sparse_tensor(st1))
  assert pprint_sparse_tensor(st1) == (
      "<SparseTensor shape=[3, 10] \n values={\n  [0, 3]: 10\n  [2, 4]: 20}>")

  st2 = tf.sparse.from_dense([[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]])
  print(pprint_sparse_tensor(st2))
  assert pprint_sparse_tensor(st2) == (
      "<SparseTensor shape=[3, 4] \n values={\n  [0, 0]: 1\n  [0, 3]: 8\n  [2, 2]: 3}>")

  st3 = tf.sparse.to_dense(st2)
  print(st3)
  assert str(st3) == ("tf.Tensor(\n[[1 0 0 8]\n [0 0 0 0]\n [0 0 3 0]], shape=(3, 4), "
                      "dtype=int32)")


def test_manipulating_sparse_tensors():
  st_a = tf.sparse.SparseTensor(indices=[[0, 2], [3, 4]],
                         values=[31, 2], 
                         dense_shape=[4, 10])

  st_b = tf.sparse.SparseTensor(indices=[[0, 2], [3, 0]],
                         values=[56, 38],
                         dense_shape=[4, 10])

  st_sum = tf.sparse.add(st_a, st_b)

  print(pprint_sparse_tensor(st_sum))
  assert pprint_sparse_tensor(st_sum) == (
      "<SparseTensor shape=[4, 10] \n values={\n  [0, 2]: 87\n  [3, 0]: 38\n  [3, 4]: 2}>")

  st_c = tf.sparse.SparseTensor(indices=([0, 1], [1, 0], [1, 1]),
                         values=[13, 15, 17],
                         dense_shape=(2,2))

  mb = tf.constant([[4], [6]])
  product = tf.sparse.sparse_dense_matmul(st_c, mb)

  print(product)
  assert str(product) == "tf.Tensor(\n[[ 78]\n [162]], shape=(2, 1), dtype=int32)"

  sparse_pattern_A = tf.sparse.SparseTensor(indices = [[2,4], [3,3], [3,4], [4,3], [4,4], [5,4]],
                           values = [1,1,1,1,1,1],
                           dense_shape = [8,5])
  sparse_pattern_B = tf.sparse.SparseTensor(indices = [[0,2], [1,1], [1,3], [2,0], [2,4], [2,5], [3,5], 
                                                [4,5], [5,0], [5,4], [5,5], [6,1], [6,3], [7,2]],
                           values = [1,1,1,1,1,1,1,1,1,1,1,1,1,1],
                           dense_shape = [8,6])
  sparse_pattern_C = tf.sparse.SparseTensor(indices = [[3,0], [4,0]],
                           values = [1,1],
                           dense_shape = [8,6])

  sparse_patterns_list = [sparse_pattern_A, sparse_pattern_B, sparse_pattern_C]
  sparse_pattern = tf.sparse.concat(axis=1, sp_inputs=sparse_patterns_list)
  print(tf.sparse.to_dense(sparse_pattern))
  # The page's picture: a heart.
  heart = np.array([
      [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0],
      [0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
      [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0]])
  dense_pattern = tf.sparse.to_dense(sparse_pattern)
  assert dense_pattern.dtype == tf.int32
  np.testing.assert_array_equal(dense_pattern.numpy(), heart)

  sparse_slice_A = tf.sparse.slice(sparse_pattern_A, start = [0,0], size = [8,5])
  sparse_slice_B = tf.sparse.slice(sparse_pattern_B, start = [0,5], size = [8,6])
  sparse_slice_C = tf.sparse.slice(sparse_pattern_C, start = [0,10], size = [8,6])
  print(tf.sparse.to_dense(sparse_slice_A))
  print(tf.sparse.to_dense(sparse_slice_B))
  print(tf.sparse.to_dense(sparse_slice_C))
  np.testing.assert_array_equal(tf.sparse.to_dense(sparse_slice_A).numpy(), heart[:, 0:5])
  np.testing.assert_array_equal(tf.sparse.to_dense(sparse_slice_B).numpy(),
                                [[0], [0], [1], [1], [1], [1], [0], [0]])
  slice_C = tf.sparse.to_dense(sparse_slice_C)
  assert slice_C.shape == (8, 0) and slice_C.dtype == tf.int32

  st2 = tf.sparse.from_dense([[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]])
  st2_plus_5 = tf.sparse.map_values(tf.add, st2, 5)
  print(tf.sparse.to_dense(st2_plus_5))
  expected = [[6, 0, 0, 13], [0, 0, 0, 0], [0, 0, 8, 0]]
  np.testing.assert_array_equal(tf.sparse.to_dense(st2_plus_5).numpy(), expected)

  st2_plus_5 = tf.sparse.SparseTensor(
      st2.indices,
      st2.values + 5,
      st2.dense_shape)
  print(tf.sparse.to_dense(st2_plus_5))
  np.testing.assert_array_equal(tf.sparse.to_dense(st2_plus_5).numpy(), expected)


def test_keras():
  x = tf.keras.Input(shape=(4,), sparse=True)
  y = tf.keras.layers.Dense(4)(x)
  model = tf.keras.Model(x, y)

  sparse_data = _sparse_data()

  out = model(sparse_data)

  predicted = model.predict(sparse_data)
  # "If you use sparse tensors in tf.keras.layers.Dense layers ... they will output
  # dense tensors": the dense rows times the kernel (the bias starts at zero).
  kernel = model.layers[-1].kernel.numpy()
  dense = tf.sparse.to_dense(sparse_data).numpy().astype(np.float32)
  assert predicted.shape == (6, 4)
  np.testing.assert_allclose(predicted, dense @ kernel, rtol=1e-6, atol=1e-7)
  np.testing.assert_allclose(np.asarray(out), dense @ kernel, rtol=1e-6, atol=1e-7)
  np.testing.assert_array_equal(predicted[1:4], np.zeros((3, 4)))


def test_tf_data():
  sparse_data = _sparse_data()
  dataset = tf.data.Dataset.from_tensor_slices(sparse_data)
  printed = []
  for element in dataset: 
    print(pprint_sparse_tensor(element))
    printed.append(pprint_sparse_tensor(element))
  rows = [
      "<SparseTensor shape=[4] \n values={\n  [0]: 1\n  [1]: 1\n  [2]: 1}>",
      "<SparseTensor shape=[4] \n values={}>",
      "<SparseTensor shape=[4] \n values={}>",
      "<SparseTensor shape=[4] \n values={}>",
      "<SparseTensor shape=[4] \n values={\n  [3]: 1}>",
      "<SparseTensor shape=[4] \n values={\n  [0]: 1\n  [1]: 1}>"]
  assert printed == rows

  batched_dataset = dataset.batch(2)
  printed = []
  for element in batched_dataset:
    print (pprint_sparse_tensor(element))
    printed.append(pprint_sparse_tensor(element))
  assert printed == [
      "<SparseTensor shape=[2, 4] \n values={\n  [0, 0]: 1\n  [0, 1]: 1\n  [0, 2]: 1}>",
      "<SparseTensor shape=[2, 4] \n values={}>",
      "<SparseTensor shape=[2, 4] \n values={\n  [0, 3]: 1\n  [1, 0]: 1\n  [1, 1]: 1}>"]

  unbatched_dataset = batched_dataset.unbatch()
  printed = []
  for element in unbatched_dataset:
    print (pprint_sparse_tensor(element))
    printed.append(pprint_sparse_tensor(element))
  assert printed == rows

  transform_dataset = dataset.map(lambda x: x*2)
  printed = []
  for i in transform_dataset:
    print(pprint_sparse_tensor(i))
    printed.append(pprint_sparse_tensor(i))
  assert printed == [row.replace(": 1", ": 2") for row in rows]


def test_tf_function():
  @tf.function
  def f(x,y):
    return tf.sparse.sparse_dense_matmul(x,y)

  a = tf.sparse.SparseTensor(indices=[[0, 3], [2, 4]],
                      values=[15, 25],
                      dense_shape=[3, 10])

  b = tf.sparse.to_dense(tf.sparse.transpose(a))

  c = f(a,b)

  print(c)
  assert str(c) == ("tf.Tensor(\n[[225   0   0]\n [  0   0   0]\n [  0   0 625]], "
                    "shape=(3, 3), dtype=int32)")


def test_distinguishing_missing_values_from_zero_values():
  print(tf.sparse.reduce_max(tf.sparse.from_dense([-5, 0, -3])))
  assert str(tf.sparse.reduce_max(tf.sparse.from_dense([-5, 0, -3]))) == (
      "tf.Tensor(-3, shape=(), dtype=int32)")

  print(tf.math.reduce_max([-5, 0, -3]))
  assert str(tf.math.reduce_max([-5, 0, -3])) == "tf.Tensor(0, shape=(), dtype=int32)"
