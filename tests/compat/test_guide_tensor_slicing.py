"""Introduction to tensor slicing.

Source: https://www.tensorflow.org/guide/tensor_slicing
(github.com/tensorflow/docs, site/en/guide/tensor_slicing.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf`; the values the text prints are asserted.
"""

import numpy as np

import tapeflow as tf


def _eq(tensor, expected):
    np.testing.assert_array_equal(np.asarray(tensor), np.asarray(expected))


def test_guide_tensor_slicing():
    t1 = tf.constant([0, 1, 2, 3, 4, 5, 6, 7])
    _eq(tf.slice(t1,
                 begin=[1],
                 size=[3]), [1, 2, 3])
    _eq(t1[1:4], [1, 2, 3])
    _eq(t1[-3:], [5, 6, 7])

    t2 = tf.constant([[0, 1, 2, 3, 4],
                      [5, 6, 7, 8, 9],
                      [10, 11, 12, 13, 14],
                      [15, 16, 17, 18, 19]])
    _eq(t2[:-1, 1:3], [[1, 2], [6, 7], [11, 12]])

    t3 = tf.constant([[[1, 3, 5, 7],
                       [9, 11, 13, 15]],
                      [[17, 19, 21, 23],
                       [25, 27, 29, 31]]
                      ])
    _eq(tf.slice(t3,
                 begin=[1, 1, 0],
                 size=[1, 1, 2]), [[[25, 27]]])
    _eq(tf.gather(t1,
                  indices=[0, 3, 6]), [0, 3, 6])
    _eq(t1[::3], [0, 3, 6])

    alphabet = tf.constant(list('abcdefghijklmnopqrstuvwxyz'))
    _eq(tf.gather(alphabet,
                  indices=[2, 0, 19, 18]), [b'c', b'a', b't', b's'])

    t4 = tf.constant([[0, 5],
                      [1, 6],
                      [2, 7],
                      [3, 8],
                      [4, 9]])
    _eq(tf.gather_nd(t4,
                     indices=[[2], [3], [0]]), [[2, 7], [3, 8], [0, 5]])

    t5 = np.reshape(np.arange(18), [2, 3, 3])
    _eq(tf.gather_nd(t5,
                     indices=[[0, 0, 0], [1, 2, 1]]), [0, 16])
    _eq(tf.gather_nd(t5,
                     indices=[[[0, 0], [0, 2]], [[1, 0], [1, 2]]]),
        [[[0, 1, 2], [6, 7, 8]], [[9, 10, 11], [15, 16, 17]]])
    _eq(tf.gather_nd(t5,
                     indices=[[0, 0], [0, 2], [1, 0], [1, 2]]),
        [[0, 1, 2], [6, 7, 8], [9, 10, 11], [15, 16, 17]])

    t6 = tf.constant([10])
    indices = tf.constant([[1], [3], [5], [7], [9]])
    data = tf.constant([2, 4, 6, 8, 10])
    _eq(tf.scatter_nd(indices=indices,
                      updates=data,
                      shape=t6), [0, 2, 0, 4, 0, 6, 0, 8, 0, 10])

    new_indices = tf.constant([[0, 2], [2, 1], [3, 3]])
    t7 = tf.gather_nd(t2, indices=new_indices)
    t8 = tf.scatter_nd(indices=new_indices, updates=t7, shape=tf.constant([4, 5]))
    _eq(t8, [[0, 0, 2, 0, 0], [0, 0, 0, 0, 0], [0, 11, 0, 0, 0], [0, 0, 0, 18, 0]])

    t9 = tf.SparseTensor(indices=[[0, 2], [2, 1], [3, 3]],
                         values=[2, 11, 18],
                         dense_shape=[4, 5])
    t10 = tf.sparse.to_dense(t9)
    _eq(t10, t8)

    t11 = tf.constant([[2, 7, 0],
                       [9, 0, 1],
                       [0, 3, 8]])
    t12 = tf.tensor_scatter_nd_add(t11,
                                   indices=[[0, 2], [1, 1], [2, 0]],
                                   updates=[6, 5, 4])
    _eq(t12, [[2, 7, 6], [9, 5, 1], [4, 3, 8]])
    t13 = tf.tensor_scatter_nd_sub(t11,
                                   indices=[[0, 0], [0, 1], [1, 0], [1, 1], [1, 2], [2, 1], [2, 2]],
                                   updates=[1, 7, 9, -1, 1, 3, 7])
    _eq(t13, [[1, 0, 0], [0, 1, 0], [0, 0, 1]])

    t14 = tf.constant([[-2, -7, 0],
                       [-9, 0, 1],
                       [0, -3, -8]])
    t15 = tf.tensor_scatter_nd_min(t14,
                                   indices=[[0, 2], [1, 1], [2, 0]],
                                   updates=[-6, -5, -4])
    _eq(t15, [[-2, -7, -6], [-9, -5, 1], [-4, -3, -8]])
    t16 = tf.tensor_scatter_nd_max(t14,
                                   indices=[[0, 2], [1, 1], [2, 0]],
                                   updates=[6, 5, 4])
    _eq(t16, [[-2, -7, 6], [-9, 5, 1], [4, -3, -8]])
