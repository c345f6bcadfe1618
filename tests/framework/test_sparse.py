"""tf.SparseTensor and tf.sparse: values from TF's sparse tensor guide and API
pages, gradients w.r.t. the values and the dense operands by gradcheck (empty
SparseTensors too), TF's checks of indices and shapes."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.core.errors import InvalidArgumentError
from tapeflow.testing.gradients import Case

_rng = np.random.default_rng(3)


def _r(*shape):
    return _rng.standard_normal(shape)


def _sp(values, indices=((0, 1), (1, 0), (2, 1)), shape=(3, 2)):
    return tf.SparseTensor(np.asarray(indices, np.int64).reshape(-1, len(shape)), values, shape)


GRADCHECK_CASES = [
    Case("sparse_to_dense", lambda v: tf.sparse.to_dense(_sp(v)) ** 2, _r(3)),
    Case("sparse_to_dense_default", lambda v: tf.sparse.to_dense(_sp(v), default_value=2.0)
         * tf.sparse.to_dense(_sp(v)), _r(3)),
    Case("sparse_to_dense_empty", lambda v: tf.sparse.to_dense(_sp(v, (), (2, 3))) + 1.0, _r(0)),
    Case("sparse_from_dense", lambda x: tf.sparse.from_dense(x * [[1.0, 0.0], [0.0, 1.0]])
         .values ** 2, _r(2, 2)),
    Case("sparse_dense_matmul", lambda v, b: tf.sparse.sparse_dense_matmul(_sp(v), b) ** 2,
         _r(3), _r(2, 4)),
    Case("sparse_dense_matmul_adjoint", lambda v, b: tf.sparse.sparse_dense_matmul(
        _sp(v), b, adjoint_a=True, adjoint_b=True), _r(3), _r(2, 3)),
    Case("dense_sparse_matmul", lambda a, v: tf.sparse.sparse_dense_matmul(a, _sp(v)) * a[:, :2],
         _r(2, 3), _r(3)),
    Case("sparse_dense_matmul_empty", lambda v, b: tf.sparse.sparse_dense_matmul(
        _sp(v, (), (3, 2)), b) + 1.0, _r(0), _r(2, 0)),
    Case("sparse_add", lambda u, v: tf.sparse.to_dense(tf.sparse.add(
        _sp(u), _sp(v, ((0, 1), (0, 0)), (3, 2)))) ** 2, _r(3), _r(2)),
    Case("sparse_add_dense", lambda v, d: tf.sparse.add(d, _sp(v)) ** 2, _r(3), _r(3, 2)),
    Case("sparse_reduce_sum", lambda v: tf.sparse.reduce_sum(_sp(v), axis=1) ** 2, _r(3)),
    Case("sparse_concat_slice_reorder", lambda u, v: tf.sparse.to_dense(tf.sparse.slice(
        tf.sparse.concat(1, [_sp(u), tf.sparse.reorder(_sp(v, ((1, 1), (0, 0)), (3, 2)))]),
        [0, 1], [3, 2])) ** 2, _r(3), _r(2)),
    Case("sparse_times_dense", lambda v, d: (_sp(v) * d).values ** 2 + (_sp(v) / 2.0).values,
         _r(3), _r(2)),
    Case("sparse_map_values_transpose_reshape", lambda v: tf.sparse.to_dense(tf.sparse.reshape(
        tf.sparse.transpose(tf.sparse.map_values(tf.math.square, _sp(v))), [-1])), _r(3)),
]


@pytest.mark.parametrize("case", GRADCHECK_CASES, ids=repr)
def test_gradcheck(case):
    case.check()


def test_sparse_tensor_attributes_and_repr():
    st = tf.SparseTensor(indices=[[0, 3], [2, 4]], values=[10, 20], dense_shape=[3, 10])
    assert tf.sparse.SparseTensor is tf.SparseTensor
    assert st.indices.dtype == tf.int64 and st.dense_shape.dtype == tf.int64
    assert st.dtype == tf.int32 and st.shape == (3, 10) and st.shape.as_list() == [3, 10]
    assert repr(st) == ("SparseTensor(indices=tf.Tensor(\n[[0 3]\n [2 4]], shape=(2, 2), "
                        "dtype=int64), values=tf.Tensor([10 20], shape=(2,), dtype=int32), "
                        "dense_shape=tf.Tensor([ 3 10], shape=(2,), dtype=int64))")
    np.testing.assert_array_equal(tf.sparse.to_dense(st).numpy()[[0, 2], [3, 4]], [10, 20])


def test_guide_values():
    # TF's "Working with sparse tensors" guide, its printed outputs.
    st2 = tf.sparse.from_dense([[1, 0, 0, 8], [0, 0, 0, 0], [0, 0, 3, 0]])
    np.testing.assert_array_equal(st2.indices.numpy(), [[0, 0], [0, 3], [2, 2]])
    np.testing.assert_array_equal(st2.values.numpy(), [1, 8, 3])
    st_a = tf.SparseTensor(indices=[[0, 2], [3, 4]], values=[31, 2], dense_shape=[4, 10])
    st_b = tf.SparseTensor(indices=[[0, 2], [3, 0]], values=[56, 38], dense_shape=[4, 10])
    st_sum = tf.sparse.add(st_a, st_b)
    np.testing.assert_array_equal(st_sum.indices.numpy(), [[0, 2], [3, 0], [3, 4]])
    np.testing.assert_array_equal(st_sum.values.numpy(), [87, 38, 2])
    st_c = tf.SparseTensor(indices=([0, 1], [1, 0], [1, 1]), values=[13, 15, 17],
                           dense_shape=(2, 2))
    np.testing.assert_array_equal(
        tf.sparse.sparse_dense_matmul(st_c, tf.constant([[4], [6]])).numpy(), [[78], [162]])
    a = tf.SparseTensor(indices=[[0, 3], [2, 4]], values=[15, 25], dense_shape=[3, 10])
    b = tf.sparse.to_dense(tf.sparse.transpose(a))
    np.testing.assert_array_equal(tf.sparse.sparse_dense_matmul(a, b).numpy(),
                                  [[225, 0, 0], [0, 0, 0], [0, 0, 625]])
    assert int(tf.sparse.reduce_max(tf.sparse.from_dense([-5, 0, -3]))) == -3
    plus5 = tf.sparse.map_values(tf.add, st2, 5)
    np.testing.assert_array_equal(tf.sparse.to_dense(plus5).numpy(),
                                  [[6, 0, 0, 13], [0, 0, 0, 0], [0, 0, 8, 0]])
    pa = tf.SparseTensor([[2, 4], [3, 3]], [1, 1], [8, 5])
    pc = tf.SparseTensor([[3, 0], [4, 0]], [1, 1], [8, 6])
    both = tf.sparse.concat(axis=1, sp_inputs=[pa, pc])
    assert both.shape == (8, 11)
    np.testing.assert_array_equal(both.indices.numpy(), [[2, 4], [3, 3], [3, 5], [4, 5]])
    assert tf.sparse.slice(pc, start=[0, 10], size=[8, 6]).shape == (8, 0)
    part = tf.sparse.slice(pa, start=[3, 3], size=[8, 8])
    assert part.shape == (5, 2)
    np.testing.assert_array_equal(part.indices.numpy(), [[0, 0]])


def test_api_page_values():
    # tf.sparse.reduce_sum's page: x = [[1, ?, 1], [?, 1, ?]]
    x = tf.SparseTensor([[0, 0], [0, 2], [1, 1]], [1, 1, 1], [2, 3])
    assert int(tf.sparse.reduce_sum(x)) == 3
    np.testing.assert_array_equal(tf.sparse.reduce_sum(x, 0).numpy(), [1, 1, 1])
    np.testing.assert_array_equal(tf.sparse.reduce_sum(x, 1).numpy(), [2, 1])
    np.testing.assert_array_equal(tf.sparse.reduce_sum(x, 1, keepdims=True).numpy(), [[2], [1]])
    s = tf.sparse.reduce_sum(x, 1, output_is_sparse=True)
    np.testing.assert_array_equal(s.indices.numpy(), [[0], [1]])
    # tf.sparse.reduce_max's page: x = [[-7, ?], [4, 3], [?, ?]]
    x = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], [-7, 4, 3], [3, 2])
    np.testing.assert_array_equal(tf.sparse.reduce_max(x, 1).numpy(), [-7, 4, 0])
    # tf.sparse.reshape / retain / to_indicator / expand_dims.
    r = tf.sparse.reshape(tf.SparseTensor([[0, 1], [1, 2]], [5, 6], [2, 3]), [3, -1])
    assert r.shape == (3, 2)
    np.testing.assert_array_equal(r.indices.numpy(), [[0, 1], [2, 1]])
    kept = tf.sparse.retain(tf.SparseTensor([[0, 0], [1, 2]], [5, 6], [2, 3]), [False, True])
    np.testing.assert_array_equal(kept.values.numpy(), [6])
    ind = tf.sparse.to_indicator(tf.SparseTensor([[0, 0], [0, 1], [1, 0]], [0, 3, 2], [2, 2]), 4)
    np.testing.assert_array_equal(ind.numpy(), [[1, 0, 0, 1], [0, 0, 1, 0]])
    e = tf.sparse.expand_dims(tf.SparseTensor([[1]], [5], [3]), 0)
    assert e.shape == (1, 3) and e.indices.numpy().tolist() == [[0, 1]]
    dense = tf.sparse.to_dense(tf.SparseTensor([[1]], [5.0], [3]), default_value=-1.0)
    np.testing.assert_array_equal(dense.numpy(), [-1, 5, -1])
    np.testing.assert_array_equal(tf.sparse.add(tf.SparseTensor([[0]], [1.0], [2]),
                                                tf.SparseTensor([[0]], [-0.5], [2]),
                                                threshold=0.6).values.numpy(), [])


def test_sparse_dense_matmul_matches_numpy():
    dense_a = np.where(_rng.random((5, 4)) < 0.4, _r(5, 4), 0.0)
    b = _r(5, 3)
    sp = tf.sparse.from_dense(dense_a)
    for adj_a, adj_b, rhs in [(False, False, b[:4]), (True, False, b), (False, True, b.T[:, :4]),
                              (True, True, b.T)]:
        got = tf.sparse.sparse_dense_matmul(sp, rhs, adjoint_a=adj_a, adjoint_b=adj_b).numpy()
        want = (dense_a.T if adj_a else dense_a) @ (rhs.T if adj_b else rhs)
        np.testing.assert_allclose(got, want, rtol=1e-12)
    got = tf.sparse.sparse_dense_matmul(b.T, sp).numpy()
    np.testing.assert_allclose(got, b.T @ dense_a, rtol=1e-12)


@pytest.mark.parametrize("fn, error, match", [
    (lambda: tf.sparse.to_dense(tf.SparseTensor([[1], [0]], [1, 2], [3])), InvalidArgumentError,
     r"indices\[1\] = \[0\] is out of order"),
    (lambda: tf.sparse.to_dense(tf.SparseTensor([[1], [1]], [1, 2], [3])), InvalidArgumentError,
     r"indices\[1\] = \[1\] is repeated"),
    (lambda: tf.sparse.to_dense(tf.SparseTensor([[3]], [1], [3])), InvalidArgumentError,
     "out of bounds"),
    (lambda: tf.SparseTensor([[0, 1]], [1, 2], [3, 3]), ValueError, r"values \[2\]"),
    (lambda: tf.SparseTensor([[0.5]], [1], [3]), TypeError, "indices must be integers"),
    (lambda: tf.sparse.sparse_dense_matmul(_sp([1.0, 2.0, 3.0]), np.ones((3, 1), np.float32)),
     InvalidArgumentError, "inner dimension does not match: 2 vs. 3"),
    (lambda: tf.sparse.add(_sp([1, 2, 3]), tf.SparseTensor([[0, 0]], [1], [3, 3])),
     InvalidArgumentError, "shapes do not match"),
    (lambda: tf.sparse.concat(1, [_sp([1, 2, 3]), tf.SparseTensor([[0, 0]], [1], [2, 3])]),
     InvalidArgumentError, "expected 3 for dimension 0 but got 2"),
    (lambda: tf.sparse.reshape(_sp([1, 2, 3]), [4, -1]), InvalidArgumentError, "does not fit"),
    (lambda: tf.sparse.to_dense(np.ones(3)), TypeError, "expects a SparseTensor"),
    (lambda: _sp([1, 2, 3]) * _sp([1, 2, 3]), TypeError, "not defined"),
    (lambda: _sp([1, 2, 3]) * np.ones((3, 3), np.int32), InvalidArgumentError,
     "only supports broadcasting dense to sparse"),
    (lambda: tf.matmul(_sp([1.0, 2.0, 3.0]), np.ones((2, 2), np.float32)), TypeError,
     r"SparseTensor of shape \[3, 2\] cannot be converted to a dense Tensor implicitly"),
])
def test_bad_input(fn, error, match):
    with pytest.raises(error, match=match):
        fn()
