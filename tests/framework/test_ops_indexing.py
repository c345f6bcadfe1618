"""Indexing ops: tensor[...] slicing, tf.slice, strided_slice, gather, gather_nd,
boolean_mask, one_hot, unsorted_segment_sum, dynamic_partition, scatter_nd and
tensor_scatter_nd_*, sort/argsort, searchsorted, unique, sequence_mask. Values
against NumPy and TF's documented examples, gradients by gradcheck (repeated
indices must accumulate; size-0 shapes too), TF's errors."""

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
    # keys that only reverse or keep whole axes: their gradient is g indexed again, a view
    Case("getitem_reverse_axis", lambda x: x[:, ::-1] * x, _r(3, 4)),
    Case("getitem_reverse_ellipsis", lambda x: x[::-1, ...][..., ::-1] ** 2 * x, _r(2, 3, 2)),
    Case("getitem_reverse_empty", lambda x: x[::-1] ** 2, _r(0, 2)),
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
    Case("slice", lambda x: tf.slice(x, [1, 0], [-1, 2]) ** 2, _r(3, 3)),
    Case("slice_empty", lambda x: tf.slice(x, [1, 0], [0, 2]) ** 2, _r(3, 3)),
    Case("strided_slice", lambda x: tf.strided_slice(x, [2, 0, 1], [0, 0, 3], [-1, 1, 1],
                                                     end_mask=2, shrink_axis_mask=4) ** 2,
         _r(3, 2, 3)),
    Case("strided_slice_ellipsis_newaxis", lambda x: tf.strided_slice(
        x, [0, 0, 1], [0, 0, 2], ellipsis_mask=1, new_axis_mask=2) ** 2, _r(2, 3)),
    Case("scatter_nd", lambda u: tf.scatter_nd([[1], [3], [1]], u, [4, 2]) ** 2, _r(3, 2)),
    Case("scatter_nd_empty", lambda u: tf.scatter_nd(np.zeros((0, 1), int), u, [3]) + 1.0,
         _r(0)),
    Case("tensor_scatter_nd_sub", lambda x, u: tf.tensor_scatter_nd_sub(x, [[0, 1], [0, 1]], u)
         ** 2, _r(2, 2), _r(2)),
    Case("tensor_scatter_nd_max", lambda x, u: tf.tensor_scatter_nd_max(x, [[2], [0], [2]], u)
         ** 2, _r(3, 2), _r(3, 2)),
    Case("tensor_scatter_nd_min", lambda x, u: tf.tensor_scatter_nd_min(x, [[1, 0], [0, 1]], u)
         * x, _r(2, 2), _r(2)),
    Case("tensor_scatter_nd_min_empty", lambda x, u: tf.tensor_scatter_nd_min(
        x, np.zeros((0, 1), int), u) ** 2, _r(2, 0), _r(0, 0)),
    Case("dynamic_partition", lambda x: tf.dynamic_partition(x, [1, 0, 1], 3)[1] ** 2
         + tf.reduce_sum(tf.dynamic_partition(x, [1, 0, 1], 3)[2]), _r(3, 2)),
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


def test_getitem_reversal_gradient_is_a_view_of_the_upstream_gradient():
    """A key that only reverses or keeps whole axes has g[key] for its gradient,
    a view of the upstream gradient, not zeros scattered into; x[()] keeps a
    0-d array."""
    x, g = tf.Variable(_r(3, 4)), tf.constant(_r(3, 4))
    with tf.GradientTape() as tape:
        y = x[::-1, ..., ::-1]
    grad = tape.gradient(y, x, output_gradients=g)
    np.testing.assert_array_equal(grad.numpy(), g.numpy()[::-1, ::-1])
    assert np.shares_memory(grad._value, g._value)
    scalar = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = scalar[()] * 3.0
    assert type(tape.gradient(y, scalar)._value) is np.ndarray


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


def test_slice_and_strided_slice_values():
    # The tensor slicing guide and TF's API pages (tf.slice, tf.strided_slice).
    t1 = tf.constant([0, 1, 2, 3, 4, 5, 6, 7])
    np.testing.assert_array_equal(tf.slice(t1, begin=[1], size=[3]).numpy(), [1, 2, 3])
    t = tf.constant([[[1, 1, 1], [2, 2, 2]], [[3, 3, 3], [4, 4, 4]], [[5, 5, 5], [6, 6, 6]]])
    np.testing.assert_array_equal(tf.slice(t, [1, 0, 0], [1, 1, 3]).numpy(), [[[3, 3, 3]]])
    np.testing.assert_array_equal(tf.slice(t, [1, 0, 0], [1, 2, 3]).numpy(),
                                  [[[3, 3, 3], [4, 4, 4]]])
    np.testing.assert_array_equal(tf.slice(t, [1, 0, 0], [2, 1, 3]).numpy(),
                                  [[[3, 3, 3]], [[5, 5, 5]]])
    np.testing.assert_array_equal(tf.strided_slice(t, [1, 0, 0], [2, 1, 3], [1, 1, 1]).numpy(),
                                  [[[3, 3, 3]]])
    np.testing.assert_array_equal(tf.strided_slice(t, [1, -1, 0], [2, -3, 3], [1, -1, 1])
                                  .numpy(), [[[4, 4, 4], [3, 3, 3]]])
    a = np.arange(24).reshape(2, 3, 4)
    got = tf.strided_slice(a, [1, 0, 3], [0, 0, 0], [1, 1, -2], begin_mask=2, end_mask=6,
                           shrink_axis_mask=1)
    np.testing.assert_array_equal(got.numpy(), a[1, :, 3::-2])
    got = tf.strided_slice(a, [0, 1], [0, 2], new_axis_mask=1, ellipsis_mask=0,
                           begin_mask=1, end_mask=1)
    np.testing.assert_array_equal(got.numpy(), a[None, 1:2])


def test_scatter_nd_values():
    # The tensor slicing guide's examples.
    got = tf.scatter_nd(indices=tf.constant([[1], [3], [5], [7], [9]]),
                        updates=tf.constant([2, 4, 6, 8, 10]), shape=tf.constant([10]))
    np.testing.assert_array_equal(got.numpy(), [0, 2, 0, 4, 0, 6, 0, 8, 0, 10])
    assert got.dtype == tf.int32
    t11 = tf.constant([[2, 7, 0], [9, 0, 1], [0, 3, 8]])
    got = tf.tensor_scatter_nd_sub(t11, indices=[[0, 0], [0, 1], [1, 0], [1, 1], [1, 2],
                                                 [2, 1], [2, 2]], updates=[1, 7, 9, -1, 1, 3, 7])
    np.testing.assert_array_equal(got.numpy(), np.eye(3))
    t14 = tf.constant([[-2, -7, 0], [-9, 0, 1], [0, -3, -8]])
    got = tf.tensor_scatter_nd_min(t14, indices=[[0, 2], [1, 1], [2, 0]], updates=[-6, -5, -4])
    np.testing.assert_array_equal(got.numpy(), [[-2, -7, -6], [-9, -5, 1], [-4, -3, -8]])
    got = tf.tensor_scatter_nd_max(t14, indices=[[0, 2], [1, 1], [2, 0]], updates=[6, 5, 4])
    np.testing.assert_array_equal(got.numpy(), [[-2, -7, 6], [-9, 5, 1], [4, -3, -8]])
    # Repeated indices: scatter_nd sums, max takes the largest of all.
    np.testing.assert_array_equal(tf.scatter_nd([[0], [0]], [1.0, 2.0], [2]).numpy(), [3, 0])
    np.testing.assert_array_equal(tf.tensor_scatter_nd_max([0, 0], [[1], [1]], [3, 5]).numpy(),
                                  [0, 5])


def test_scatter_max_gradient_splits_ties():
    x = tf.constant([1.0, 2.0])
    u = tf.constant([2.0, 0.5])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, u])
        y = tf.reduce_sum(tf.tensor_scatter_nd_max(x, [[1], [0]], u) * [10.0, 100.0])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [10.0, 50.0])
    np.testing.assert_array_equal(tape.gradient(y, u).numpy(), [50.0, 0.0])


def test_dynamic_partition_searchsorted_unique_sequence_mask():
    parts = tf.dynamic_partition([10, 20, 30, 40, 50], [0, 0, 1, 1, 0], 2)
    np.testing.assert_array_equal(parts[0].numpy(), [10, 20, 50])
    np.testing.assert_array_equal(parts[1].numpy(), [30, 40])
    got = tf.searchsorted([[0, 3, 9, 9, 10], [1, 2, 3, 4, 5]], [[2, 4, 9], [0, 2, 6]])
    np.testing.assert_array_equal(got.numpy(), [[1, 2, 2], [0, 1, 5]])
    got = tf.searchsorted([[0, 3, 9, 9, 10], [1, 2, 3, 4, 5]], [[2, 4, 9], [0, 2, 6]],
                          side="right", out_type=tf.int64)
    assert got.dtype == tf.int64
    np.testing.assert_array_equal(got.numpy(), [[1, 2, 4], [0, 2, 5]])
    y, idx = tf.unique([1, 1, 2, 4, 4, 4, 7, 8, 8])
    np.testing.assert_array_equal(y.numpy(), [1, 2, 4, 7, 8])
    np.testing.assert_array_equal(idx.numpy(), [0, 0, 1, 2, 2, 2, 3, 4, 4])
    out = tf.unique_with_counts([5, 3, 5, 1])
    np.testing.assert_array_equal(out.y.numpy(), [5, 3, 1])
    np.testing.assert_array_equal(out.idx.numpy(), [0, 1, 0, 2])
    np.testing.assert_array_equal(out.count.numpy(), [2, 1, 1])
    mask = tf.sequence_mask([1, 3, 2], 5)
    assert mask.dtype == tf.bool
    np.testing.assert_array_equal(mask.numpy(), [[1, 0, 0, 0, 0], [1, 1, 1, 0, 0],
                                                 [1, 1, 0, 0, 0]])
    np.testing.assert_array_equal(tf.sequence_mask([[1, 3], [2, 0]]).numpy(),
                                  [[[1, 0, 0], [1, 1, 1]], [[1, 1, 0], [0, 0, 0]]])


def test_scatter_min_max_of_bool_has_no_kernel():
    with pytest.raises(tf.errors.NotFoundError, match="no kernel for bool"):
        tf.tensor_scatter_nd_max(tf.constant([True, False]), [[0]], [False])


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
    (lambda: tf.scatter_nd([[0]], [1.0, 2.0], [3]), r"updates shape \[2\] must be"),
    (lambda: tf.tensor_scatter_nd_max(np.zeros(3), [[0]], np.ones(1, np.int32)),
     "updates of dtype int32 do not match the tensor's dtype float64"),
    (lambda: tf.slice(np.zeros((2, 3)), [0, 2], [1, 2]), r"Expected size\[1\] in \[0, 1\]"),
    (lambda: tf.slice(np.zeros((2, 3)), [3, 0], [1, 2]), r"Expected begin\[0\] in \[0, 2\]"),
    (lambda: tf.slice(np.zeros((2, 3)), [0], [1]), "size 2"),
    (lambda: tf.strided_slice(np.zeros(3), [0], [2], [0]), "must be non-zero"),
    (lambda: tf.strided_slice(np.zeros(3), [0], [2, 3]), "equal size"),
    (lambda: tf.strided_slice(np.zeros(3), [5], [6], shrink_axis_mask=1), "out of range"),
    (lambda: tf.dynamic_partition(np.zeros(3), [0, 2, 1], 2), r"indices\[1\] = 2 is not in"),
    (lambda: tf.searchsorted([[1, 2]], [1, 2]), "Leading dim_size"),
    (lambda: tf.searchsorted([1, 2], 1), "Leading dim_size"),
    (lambda: tf.unique(np.zeros((2, 2))), "1D vector"),
])
def test_bad_input(fn, match):
    with pytest.raises(InvalidArgumentError, match=match):
        fn()


def test_getitem_bad_index_type():
    with pytest.raises(TypeError, match="are valid indices, got 1.5"):
        tf.constant([1.0, 2.0])[1.5]
