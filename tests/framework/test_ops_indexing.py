"""Indexing ops: tensor[...] slicing, gather, gather_nd, boolean_mask, one_hot,
unsorted_segment_sum, tensor_scatter_nd_*, sort/argsort. Values against NumPy,
gradients by gradcheck (repeated indices must accumulate), TF's errors."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.core.errors import InvalidArgumentError
from tapeflow.testing.gradients import Case

_rng = np.random.default_rng(1)


def _r(*shape):
    return _rng.standard_normal(shape)


_I = np.array  # index arrays are plain int arrays, not gradcheck inputs

GRADCHECK_CASES = [
    Case("getitem_basic", lambda x: x[1:, ::2] ** 2, _r(3, 4)),
    Case("getitem_negative_step", lambda x: x[::-2, -1:0:-1] * x[0, 0], _r(5, 4)),
    Case("getitem_ellipsis_newaxis", lambda x: x[..., None, 1] ** 2, _r(2, 3, 2)),
    Case("getitem_int_tensor", lambda x: x[tf.constant([0, 2, 0])] ** 2, _r(3, 2)),
    Case("getitem_separated_arrays", lambda x: x[_I([0, 2]), :, _I([1, 0])] ** 2, _r(3, 2, 2)),
    Case("getitem_int_and_array", lambda x: x[1, :, [0, 0]] ** 2, _r(2, 2, 2)),
    Case("getitem_bool_mask", lambda x: x[_I([True, False, True])] ** 2, _r(3, 2)),
    Case("gather_axis0", lambda x: tf.gather(x, [[0, 2], [2, 2]]) ** 2, _r(3, 2)),
    Case("gather_axis1", lambda x: tf.gather(x, [1, 1, 0], axis=1) ** 2, _r(2, 3)),
    Case("gather_batch_dims", lambda x: tf.gather(x, [[0, 0], [1, 2]], axis=2, batch_dims=1)
         ** 2, _r(2, 2, 3)),
    Case("gather_nd", lambda x: tf.gather_nd(x, [[0, 1], [2, 0], [0, 1]]) ** 2, _r(3, 2, 2)),
    Case("gather_nd_batch", lambda x: tf.gather_nd(x, [[[1], [1]], [[0], [2]]], batch_dims=1)
         ** 2, _r(2, 3, 2)),
    Case("boolean_mask", lambda x: tf.boolean_mask(x, [[True, False], [True, True]], axis=1)
         ** 2, _r(2, 2, 2)),
    Case("unsorted_segment_sum", lambda x: tf.unsorted_segment_sum(x, [0, 2, 0, -1], 3) ** 2,
         _r(4, 2)),
    Case("tensor_scatter_nd_add", lambda x, u: tf.tensor_scatter_nd_add(x, [[1], [1]], u) ** 2,
         _r(3, 2), _r(2, 2)),
    Case("tensor_scatter_nd_update", lambda x, u: tf.tensor_scatter_nd_update(
        x, [[0, 1], [2, 0]], u) ** 2, _r(3, 2), _r(2)),
    Case("sort", lambda x: tf.sort(x, direction="DESCENDING") * x, _r(2, 4)),
]


@pytest.mark.parametrize("case", GRADCHECK_CASES, ids=repr)
def test_gradcheck(case):
    case.check()


def test_getitem_values():
    a = np.arange(60.0).reshape(3, 4, 5)
    x = tf.constant(a)
    for key in [(1,), (-1,), (slice(None, None, -1),), (slice(3, 0, -2), 2),
                (Ellipsis, 1), (None, 1, Ellipsis, None), (slice(None), -2, slice(1, None, 2)),
                ([0, 2, 2],), (np.array([[0, 1], [2, 2]]), slice(1, 3))]:
        np.testing.assert_array_equal(x[key].numpy(), a[key])
    np.testing.assert_array_equal(x[tf.constant(2), 1:].numpy(), a[2, 1:])
    np.testing.assert_array_equal(x[tf.constant([2, 0])].numpy(), a[[2, 0]])
    np.testing.assert_array_equal(x[a[..., 0] > 20].numpy(), a[a[..., 0] > 20])
    np.testing.assert_array_equal(x[tf.constant(1):tf.constant(3)].numpy(), a[1:3])


def test_getitem_negative_stride_gradient():
    x = tf.constant(np.arange(6.0))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x[::-2] * np.array([1.0, 2.0, 3.0]))  # x5, x3, x1
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [0, 3, 0, 2, 0, 1])


def test_getitem_repeated_indices_accumulate():
    x = tf.constant(np.ones((3, 2)))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(x[[0, 0, 2, 0]])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[3, 3], [0, 0], [1, 1]])


def test_gather_values_match_numpy():
    a = np.arange(24.0).reshape(2, 3, 4)
    idx = np.array([[2, 0], [1, 1]])
    for axis in (0, 1, 2, -1):
        i = idx % a.shape[axis]
        np.testing.assert_array_equal(tf.gather(a, i, axis=axis).numpy(),
                                      np.take(a, i, axis=axis))
    # batch_dims (TF's doc: result[b, ..] = gather(params[b], indices[b]))
    bidx = np.array([[0, 3, 3], [1, 2, 0]])
    got = tf.gather(a, bidx, axis=2, batch_dims=1).numpy()
    want = np.stack([np.take(a[b], bidx[b], axis=1) for b in range(2)])
    np.testing.assert_array_equal(got, want)
    bidx = np.array([[2, 0], [1, 1]])
    got = tf.gather(a, bidx, axis=1, batch_dims=-1).numpy()
    want = np.stack([np.take(a[b], bidx[b], axis=0) for b in range(2)])
    np.testing.assert_array_equal(got, want)


def test_gather_gradient_repeated_rows():
    x = tf.Variable(np.arange(15.0).reshape(5, 3))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(x, [0, 0, 2]))
    grad = tape.gradient(y, x).numpy()
    np.testing.assert_array_equal(grad[:, 0], [2, 0, 1, 0, 0])


def test_embedding_gather_gradient_matches_add_at():
    vocab, dim = 50, 8
    params = tf.Variable(_rng.standard_normal((vocab, dim)).astype(np.float32))
    ids = _rng.integers(0, vocab, size=(4, 30)).astype(np.int32)
    upstream = _rng.standard_normal((4, 30, dim)).astype(np.float32)
    with tf.GradientTape() as tape:
        y = tf.gather(params, ids)
    grad = tape.gradient(y, params, output_gradients=tf.constant(upstream))
    want = np.zeros((vocab, dim), np.float32)
    np.add.at(want, ids.ravel(), upstream.reshape(-1, dim))
    assert grad.dtype == tf.float32
    np.testing.assert_allclose(grad.numpy(), want, rtol=1e-5, atol=1e-5)


def test_gather_nd_values():
    a = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(tf.gather_nd(a, [[1, 2], [0, 0]]).numpy(), a[[1, 0], [2, 0]])
    np.testing.assert_array_equal(tf.gather_nd(a, [[1, 2, 3]]).numpy(), [a[1, 2, 3]])
    np.testing.assert_array_equal(tf.gather_nd(a, [[[1]], [[0]]]).numpy(), a[[[1], [0]]])
    got = tf.gather_nd(a, [[[2], [0]], [[1], [1]]], batch_dims=1).numpy()
    np.testing.assert_array_equal(got, np.stack([a[0, [2, 0]], a[1, [1, 1]]]))


def test_boolean_mask_values():
    a = np.arange(12.0).reshape(3, 4)
    m = np.array([True, False, True])
    np.testing.assert_array_equal(tf.boolean_mask(a, m).numpy(), a[m])
    m2 = np.array([False, True, True, False])
    np.testing.assert_array_equal(tf.boolean_mask(a, m2, axis=1).numpy(), a[:, m2])
    full = a > 4
    np.testing.assert_array_equal(tf.boolean_mask(a, full).numpy(), a[full])


def test_one_hot():
    out = tf.one_hot([0, 2, -1, 5], 3)
    assert out.dtype == tf.float32
    np.testing.assert_array_equal(out.numpy(), [[1, 0, 0], [0, 0, 1], [0, 0, 0], [0, 0, 0]])
    out = tf.one_hot([[1, 0]], 2, on_value=5, off_value=-1, axis=0, dtype=tf.int32)
    assert out.shape == (2, 1, 2) and out.dtype == tf.int32
    np.testing.assert_array_equal(out.numpy()[:, 0], [[-1, 5], [5, -1]])
    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.one_hot([1], 2) * x)
    assert tape.gradient(y, x).numpy() == 1.0  # one_hot is a constant


def test_unsorted_segment_sum_values():
    data = np.arange(12.0).reshape(4, 3)
    out = tf.unsorted_segment_sum(data, [1, 1, -1, 0], 3).numpy()
    np.testing.assert_array_equal(out, [data[3], data[0] + data[1], np.zeros(3)])
    ints = tf.unsorted_segment_sum(tf.constant([[1, 2], [3, 4]]), [[0, 1], [1, 1]], 2)
    assert ints.dtype == tf.int32
    np.testing.assert_array_equal(ints.numpy(), [1, 9])


def test_tensor_scatter_nd_values():
    base = np.zeros((3, 2))
    got = tf.tensor_scatter_nd_add(base, [[0], [0], [2]], np.ones((3, 2))).numpy()
    np.testing.assert_array_equal(got, [[2, 2], [0, 0], [1, 1]])
    got = tf.tensor_scatter_nd_update(np.ones((2, 2)), [[0, 1], [1, 0]], [5.0, 6.0]).numpy()
    np.testing.assert_array_equal(got, [[1, 5], [6, 1]])


def test_sort_argsort():
    a = np.array([[3.0, 1.0, 2.0], [0.0, -1.0, 5.0]])
    np.testing.assert_array_equal(tf.sort(a).numpy(), np.sort(a))
    np.testing.assert_array_equal(tf.sort(a, axis=0, direction="DESCENDING").numpy(),
                                  -np.sort(-a, axis=0))
    order = tf.argsort(a)
    assert order.dtype == tf.int32
    np.testing.assert_array_equal(order.numpy(), np.argsort(a, kind="stable"))


@pytest.mark.parametrize("fn, match", [
    (lambda: tf.gather(np.zeros(5), [0, 7]), r"indices\[1\] = 7 is not in \[0, 5\)"),
    (lambda: tf.gather(np.zeros((5, 2)), [[0, 1], [-1, 0]]), r"indices\[1,0\] = -1 is not in"),
    (lambda: tf.gather(np.zeros(5), [0.0]), "attr 'Tindices' of float32 is not in the list"),
    (lambda: tf.gather(np.zeros((2, 3)), [0], axis=2), "axis 2 is out of range"),
    (lambda: tf.gather(np.zeros((2, 3)), [[0]], axis=0, batch_dims=1), r"batch_dims \(1\)"),
    (lambda: tf.gather_nd(np.zeros((2, 2)), [[0, 1], [2, 0]]),
     r"indices\[1\] = \[2, 0\] does not index into param shape \[2, 2\]"),
    (lambda: tf.boolean_mask(np.zeros((3, 2)), [True, False]), r"Shapes \[3\] and \[2\]"),
    (lambda: tf.boolean_mask(np.zeros(3), [1, 0, 1]), "must be a boolean"),
    (lambda: tf.one_hot([1.0, 2.0], 3), "attr 'TI' of float32 is not in the list"),
    (lambda: tf.one_hot([1], -2), "depth must be non-negative"),
    (lambda: tf.unsorted_segment_sum(np.zeros(3), [0, 5, 1], 3),
     r"segment_ids\[1\] = 5 is out of range \[0, 3\)"),
    (lambda: tf.unsorted_segment_sum(np.zeros(3), [0, 1], 3), "does not start with"),
    (lambda: tf.constant([1.0, 2.0])[5], r"out of range for a tensor of shape \[2\]: index 5"),
    (lambda: tf.constant([1.0, 2.0])[[0, 3]], "out of bounds"),
    (lambda: tf.tensor_scatter_nd_add(np.zeros(3), [[3]], [1.0]), "does not index into"),
])
def test_bad_input(fn, match):
    with pytest.raises(InvalidArgumentError, match=match):
        fn()


def test_getitem_bad_index_type():
    with pytest.raises(TypeError, match="are valid indices, got 1.5"):
        tf.constant([1.0, 2.0])[1.5]
