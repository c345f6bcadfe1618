"""tf.RaggedTensor and tf.ragged: values from TF's ragged tensor guide and API
pages, gradients through to_tensor, from_tensor, indexing, concat, operators and
map_flat_values by gradcheck (empty rows and empty tensors too), TF's errors."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.core.errors import InvalidArgumentError
from tapeflow.ragged import ragged_math
from tapeflow.testing.gradients import Case

_rng = np.random.default_rng(4)


def _r(*shape):
    return _rng.standard_normal(shape)


def _rt(values, lengths=(2, 0, 1)):
    return tf.RaggedTensor.from_row_lengths(values, list(lengths))


GRADCHECK_CASES = [
    Case("ragged_to_tensor", lambda v: _rt(v).to_tensor() ** 2, _r(3)),
    Case("ragged_to_tensor_default_shape", lambda v: _rt(v).to_tensor(
        default_value=0.5, shape=[2, 1]) * _rt(v).to_tensor()[:2, :1], _r(3)),
    Case("ragged_to_tensor_inner_dims", lambda v: tf.RaggedTensor.from_row_splits(
        _rt(v, (1, 2)), [0, 1, 2]).to_tensor() ** 2, _r(3, 2)),
    Case("ragged_to_tensor_empty", lambda v: _rt(v, (0, 0)).to_tensor() + 1.0, _r(0)),
    Case("ragged_from_tensor_padding", lambda x: tf.RaggedTensor.from_tensor(
        x * [[1.0, 0.0], [1.0, 1.0]], padding=0.0).values ** 2, _r(2, 2) + 3.0),
    Case("ragged_from_tensor_lengths", lambda x: tf.RaggedTensor.from_tensor(
        x, lengths=[1, 0, 2]).flat_values ** 2, _r(3, 2, 2)),
    Case("ragged_map_flat_values", lambda v, w: tf.ragged.map_flat_values(
        tf.multiply, _rt(v), _rt(w)).to_tensor(), _r(3), _r(3)),
    Case("ragged_getitem", lambda v: _rt(v, (2, 1, 3))[:, -1:].to_tensor() ** 2
         + _rt(v, (2, 1, 3))[2, 1], _r(6)),
    Case("ragged_concat_stack", lambda v, w: tf.concat([_rt(v), _rt(w, (1, 1, 0))], axis=1)
         .to_tensor() ** 2 + tf.reduce_sum(tf.stack([_rt(v), _rt(v)], axis=1).to_tensor() ** 2),
         _r(3),
         _r(2)),
    Case("ragged_operators", lambda v, d: (_rt(v) * d + 2.0 - _rt(v) / 3.0).to_tensor()
         ** 2, _r(3), _r(3, 1)),
    Case("ragged_reverse_tile", lambda v: tf.tile(tf.reverse(_rt(v, (2, 0, 1)), [0, 1]), [2, 3])
         .to_tensor() * tf.reverse(_rt(v, (3,)), [1]).to_tensor()[0, 0], _r(3)),
    Case("ragged_reductions", lambda v: ragged_math.reduce_sum(_rt(v, (2, 0, 1)), 1) ** 2
         + tf.reduce_sum(ragged_math.reduce_mean(_rt(v, (1, 2)), 0)
                         * ragged_math.reduce_max(_rt(v, (1, 2)), 1))
         + ragged_math.reduce_min(_rt(v, (3,)), None), _r(3)),
    Case("ragged_boolean_mask", lambda x, v: tf.ragged.boolean_mask(
        x, [[True, False], [False, False], [True, True]]).to_tensor() ** 2
        + tf.ragged.boolean_mask(_rt(v), tf.ragged.constant([[True, False], [], [True]]))
        .flat_values[-1], _r(3, 2), _r(3)),
    Case("ragged_gather", lambda v: tf.gather(_rt(v), [2, 0, 0]).to_tensor() ** 2, _r(3)),
    Case("ragged_elementwise_embedding", lambda v, p: ragged_math.embedding_lookup(
        p, tf.ragged.constant([[0, 2], [], [1]])).to_tensor() * ragged_math.elementwise(
        tf.multiply, 2.0, _rt(v)).to_tensor()[..., None], _r(3), _r(3, 2)),
    Case("ragged_to_sparse", lambda v: tf.sparse.to_dense(_rt(v, (1, 2)).to_sparse()) ** 2,
         _r(3)),
]


@pytest.mark.parametrize("case", GRADCHECK_CASES, ids=repr)
def test_gradcheck(case):
    case.check()


def test_constant_repr_shape_and_accessors():
    digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    assert repr(digits) == str(digits) == "<tf.RaggedTensor [[3, 1, 4, 1], [], [5, 9, 2], [6], []]>"
    assert digits.dtype == tf.int32 and digits.shape == (5, None) and digits.ragged_rank == 1
    assert digits.shape.as_list() == [5, None]
    np.testing.assert_array_equal(digits.values.numpy(), [3, 1, 4, 1, 5, 9, 2, 6])
    np.testing.assert_array_equal(digits.row_splits.numpy(), [0, 4, 4, 7, 8, 8])
    assert digits.row_splits.dtype == tf.int64
    np.testing.assert_array_equal(digits.row_lengths().numpy(), [4, 0, 3, 1, 0])
    assert int(digits.nrows()) == 5
    np.testing.assert_array_equal(digits.bounding_shape().numpy(), [5, 4])
    np.testing.assert_array_equal(digits.value_rowids().numpy(), [0, 0, 0, 0, 2, 2, 2, 3])
    assert digits.to_list() == [[3, 1, 4, 1], [], [5, 9, 2], [6], []]
    rows = digits.numpy()
    assert rows.dtype == object and rows[2].tolist() == [5, 9, 2]
    assert tf.ragged.constant([[1.5], []]).dtype == tf.float32
    three = tf.ragged.constant([[[1, 2], [3]], [[4, 5]]])
    assert three.shape == (2, None, None) and three.ragged_rank == 2
    uniform = tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1)
    assert uniform.shape == (2, None, 2) and uniform.flat_values.shape == (4, 2)


def test_factories_from_the_guide():
    want = [[3, 1, 4, 1], [], [5, 9], [2]]
    values = [3, 1, 4, 1, 5, 9, 2]
    assert tf.RaggedTensor.from_value_rowids(values, [0, 0, 0, 0, 2, 2, 3]).to_list() == want
    assert tf.RaggedTensor.from_row_lengths(values, [4, 0, 2, 1]).to_list() == want
    assert tf.RaggedTensor.from_row_splits(values, [0, 4, 4, 6, 7]).to_list() == want
    assert tf.RaggedTensor.from_row_starts(values, [0, 4, 4, 6]).to_list() == want
    assert tf.RaggedTensor.from_row_limits(values, [4, 4, 6, 7]).to_list() == want
    assert tf.RaggedTensor.from_value_rowids([1, 2], [0, 0], nrows=3).to_list() == [[1, 2], [],
                                                                                    []]
    nested = tf.RaggedTensor.from_nested_row_splits(
        flat_values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
        nested_row_splits=([0, 1, 1, 5], [0, 3, 3, 5, 9, 10]))
    assert nested.to_list() == [[[10, 11, 12]], [], [[], [13, 14], [15, 16, 17, 18], [19]]]
    assert nested.shape == (3, None, None) and len(nested.nested_row_splits) == 2
    uniform = tf.RaggedTensor.from_uniform_row_length(
        values=tf.RaggedTensor.from_row_splits(values=[10, 11, 12, 13, 14, 15, 16, 17, 18, 19],
                                               row_splits=[0, 3, 5, 9, 10]),
        uniform_row_length=2)
    assert uniform.to_list() == [[[10, 11, 12], [13, 14]], [[15, 16, 17, 18], [19]]]
    assert uniform.shape == (2, 2, None) and uniform.ragged_rank == 2
    padded = tf.RaggedTensor.from_tensor([[1, 3, -1, -1], [2, -1, -1, -1], [4, 5, 8, 9]],
                                         padding=-1)
    assert padded.to_list() == [[1, 3], [2], [4, 5, 8, 9]]
    cut = tf.RaggedTensor.from_tensor([[1, 2, 3], [4, 5, 6]], lengths=[1, 3])
    assert cut.to_list() == [[1], [4, 5, 6]]
    # With neither lengths nor padding TF's partitions are uniform: no None in the shape.
    assert tf.RaggedTensor.from_tensor([[1, 2], [3, 4]]).shape == (2, 2)
    full = tf.RaggedTensor.from_tensor(np.arange(8).reshape(2, 2, 2), ragged_rank=2)
    assert full.shape == (2, 2, 2) and full.to_list() == [[[0, 1], [2, 3]],
                                                                 [[4, 5], [6, 7]]]
    st = tf.SparseTensor(indices=[[0, 0], [2, 0], [2, 1]], values=[1, 2, 3], dense_shape=[3, 3])
    assert tf.RaggedTensor.from_sparse(st).to_list() == [[1], [], [2, 3]]


def test_indexing_from_the_guide():
    digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    np.testing.assert_array_equal(digits[0].numpy(), [3, 1, 4, 1])
    assert digits[:, :2].to_list() == [[3, 1], [], [5, 9], [6], []]
    assert digits[:, -2:].to_list() == [[4, 1], [], [9, 2], [6], []]
    assert digits[1:3].to_list() == [[], [5, 9, 2]]
    assert digits[::-2].to_list() == [[], [5, 9, 2], [3, 1, 4, 1]]
    rt = tf.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6]], [[7]], [[8, 9], [10]]])
    assert rt[1].to_list() == [[5], [], [6]]
    np.testing.assert_array_equal(rt[3, 0].numpy(), [8, 9])
    assert rt[:, 1:3].to_list() == [[[4]], [[], [6]], [], [[10]]]
    assert rt[:, -1:].to_list() == [[[4]], [[6]], [[7]], [[10]]]
    assert rt[:, :1].to_list() == [[[1, 2, 3]], [[5]], [[7]], [[8, 9]]]
    with pytest.raises(ValueError, match="Cannot index into an inner ragged dimension"):
        rt[:, 0]
    uniform = tf.RaggedTensor.from_uniform_row_length(tf.ragged.constant([[1], [2, 3], [4], [5]]),
                                                      2)
    assert uniform[:, 1].to_list() == [[2, 3], [5]]
    assert uniform[:, -2, :1].to_list() == [[1], [4]]
    inner = tf.ragged.constant([[[1, 2]], [[3, 4]]], ragged_rank=1)
    assert inner[:, :, 0].to_list() == [[1], [3]]
    np.testing.assert_array_equal(digits[-3].numpy(), [5, 9, 2])


def test_operators_and_broadcasting_from_the_guide():
    digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    assert (digits + 3).to_list() == [[6, 4, 7, 4], [], [8, 12, 5], [9], []]
    assert (3 * digits).to_list() == [[9, 3, 12, 3], [], [15, 27, 6], [18], []]
    other = tf.ragged.constant([[1, 2, 3, 4], [], [5, 6, 7], [8], []])
    assert (digits + other).to_list() == [[4, 3, 7, 5], [], [10, 15, 9], [14], []]
    assert tf.ragged.map_flat_values(lambda x: x * 2 + 1, digits).to_list() == [
        [7, 3, 9, 3], [], [11, 19, 5], [13], []]
    x = tf.ragged.constant([[10, 87, 12], [19, 53], [12, 32]])
    assert (x + [[1000], [2000], [3000]]).to_list() == [[1010, 1087, 1012], [2019, 2053],
                                                        [3012, 3032]]
    x = tf.ragged.constant([[[1, 2], [3, 4], [5, 6]], [[7, 8]]], ragged_rank=1)
    assert (x + tf.constant([[10]])).to_list() == [[[11, 12], [13, 14], [15, 16]], [[17, 18]]]
    x = tf.ragged.constant([[[[1], [2]], [], [[3]], [[4]]], [[[5], [6]], [[7]]]], ragged_rank=2)
    assert (x + tf.constant([10, 20, 30])).to_list() == [
        [[[11, 21, 31], [12, 22, 32]], [], [[13, 23, 33]], [[14, 24, 34]]],
        [[[15, 25, 35], [16, 26, 36]], [[17, 27, 37]]]]
    assert (-digits)[0].numpy().tolist() == [-3, -1, -4, -1]
    assert (digits > 3).to_list() == [[False, False, True, False], [], [True, True, False],
                                      [True], []]


@pytest.mark.parametrize("fn, match", [
    (lambda: tf.ragged.constant([[1, 2], [3, 4, 5, 6], [7]]) + tf.constant(
        [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]), "size 1 along the ragged dimensions"),
    (lambda: tf.ragged.constant([[1, 2, 3], [4], [5, 6]]) + tf.ragged.constant(
        [[10, 20], [30, 40], [50]]), "identical ragged splits"),
    (lambda: tf.ragged.constant([[1], [2, 3]])[-3], "slice index -3 of dimension 0 out of"),
    (lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2, 1, 3]), "never decrease"),
    (lambda: tf.RaggedTensor.from_row_splits([1, 2, 3], [0, 2]), "end at nvals = 3"),
    (lambda: tf.RaggedTensor.from_value_rowids([1, 2], [1, 0]), "must be sorted"),
    (lambda: tf.concat([tf.ragged.constant([[1]]), tf.ragged.constant([[1], [2]])], 1),
     "every input needs 1 rows"),
])
def test_bad_input(fn, match):
    with pytest.raises(InvalidArgumentError, match=match):
        fn()


def test_constant_errors():
    with pytest.raises(ValueError, match="same nesting depth"):
        tf.ragged.constant([1, [2, 3]])
    with pytest.raises(ValueError, match="must be uniform"):
        tf.ragged.constant([[[1, 2], [3]]], ragged_rank=1)
    with pytest.raises(ValueError, match="constructor is private"):
        tf.RaggedTensor([1], [0, 1])
    with pytest.raises(TypeError, match="may not be used as a boolean"):
        bool(tf.ragged.constant([[1]]))
    with pytest.raises(TypeError, match="ints or slices"):
        tf.ragged.constant([[1]])[..., 0]
    with pytest.raises(IndexError, match="Row key 2 out of bounds"):
        tf.ragged.constant([[1], [2, 3]])[2]
    with pytest.raises(TypeError, match=r"RaggedTensor of shape \(1, None\) cannot be "
                                        r"converted to a dense Tensor: use rt.to_tensor\(\)"):
        tf.constant(tf.ragged.constant([[1]]))


def test_conversions():
    x = tf.ragged.constant([[1, 2], [3], [4, 5, 6]])
    np.testing.assert_array_equal(x.to_tensor().numpy(), [[1, 2, 0], [3, 0, 0], [4, 5, 6]])
    np.testing.assert_array_equal(x.to_tensor(default_value=9, shape=[None, 2]).numpy(),
                                  [[1, 2], [3, 9], [4, 5]])
    np.testing.assert_array_equal(x.to_tensor(shape=[2, 4]).numpy(), [[1, 2, 0, 0], [3, 0, 0, 0]])
    sp = x.to_sparse()
    np.testing.assert_array_equal(sp.indices.numpy(), [[0, 0], [0, 1], [1, 0], [2, 0], [2, 1],
                                                       [2, 2]])
    np.testing.assert_array_equal(sp.dense_shape.numpy(), [3, 3])
    assert tf.concat([x, [[5, 3]]], axis=0).to_list() == [[1, 2], [3], [4, 5, 6], [5, 3]]
    assert tf.concat([x, x], axis=1).to_list() == [[1, 2, 1, 2], [3, 3], [4, 5, 6, 4, 5, 6]]
    assert tf.stack([x, x]).shape == (2, None, None)
    assert tf.stack([x, x], axis=1).to_list() == [[[1, 2], [1, 2]], [[3], [3]],
                                                  [[4, 5, 6], [4, 5, 6]]]
    digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    assert tf.tile(digits, [1, 2]).to_list() == [[3, 1, 4, 1, 3, 1, 4, 1], [], [5, 9, 2, 5, 9,
                                                                               2], [6, 6], []]
    assert tf.tile(x, [2, 1]).to_list() == x.to_list() * 2
    assert tf.concat([x, tf.reverse(x, [1])], 1).to_list() == [[1, 2, 2, 1], [3, 3],
                                                               [4, 5, 6, 6, 5, 4]]
    assert tf.reverse(x, [0]).to_list() == [[4, 5, 6], [3], [1, 2]]
    deep = tf.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6]]])
    assert tf.reverse(deep, [2]).to_list() == [[[3, 2, 1], [4]], [[5], [], [6]]]
    assert tf.tile(deep, [1, 1, 2]).to_list() == [[[1, 2, 3, 1, 2, 3], [4, 4]],
                                                  [[5, 5], [], [6, 6]]]
    assert tf.ragged.range([3, 5, 2]).to_list() == [[0, 1, 2], [0, 1, 2, 3, 4], [0, 1]]
    assert tf.ragged.range([0, 5], [4, 8], 2).to_list() == [[0, 2], [5, 7]]
    assert tf.ragged.range([1, 2], 5.0).dtype == tf.float32  # TF: the widest input dtype
    assert tf.ragged.range(tf.constant([1], tf.int64), 3).dtype == tf.int64
    np.testing.assert_array_equal(tf.ragged.row_splits_to_segment_ids([0, 2, 2, 3]).numpy(),
                                  [0, 0, 2])
    np.testing.assert_array_equal(tf.ragged.segment_ids_to_row_splits([0, 0, 2]).numpy(),
                                  [0, 2, 2, 3])


def test_reductions():
    # The ragged guide's first example: tf.reduce_mean(digits, axis=1), in float64.
    digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    mean = ragged_math.reduce_mean(digits, axis=1)
    assert mean.dtype == tf.float64
    np.testing.assert_allclose(mean.numpy(), [2.25, np.nan, 16 / 3, 6.0, np.nan])
    np.testing.assert_array_equal(ragged_math.reduce_sum(digits, axis=1).numpy(),
                                  [9, 0, 16, 6, 0])
    np.testing.assert_array_equal(ragged_math.reduce_sum(digits, axis=0).numpy(),
                                  [14, 10, 6, 1])
    assert int(ragged_math.reduce_sum(digits)) == 31
    low = np.iinfo(np.int32).min  # TF's unsorted_segment_max of an empty row
    np.testing.assert_array_equal(ragged_math.reduce_max(digits, axis=-1).numpy(),
                                  [4, low, 9, 6, low])
    x = tf.ragged.constant([[1.0, 2.0], [3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_array_equal(ragged_math.reduce_min(x, axis=1).numpy(), [1, 3, 4])
    deep = tf.ragged.constant([[[1, 2, 3], [4]], [[5], [], [6]]])
    assert ragged_math.reduce_sum(deep, axis=2).to_list() == [[6, 4], [5, 0, 6]]
    uniform = tf.ragged.constant([[[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0]]], ragged_rank=1)
    assert ragged_math.reduce_sum(uniform, axis=2).to_list() == [[3.0, 7.0], [11.0]]
    np.testing.assert_array_equal(ragged_math.reduce_max(uniform, 1).numpy(), [[3, 4], [5, 6]])
    with pytest.raises(NotImplementedError, match="innermost ragged axis"):
        ragged_math.reduce_sum(deep, axis=1)


def test_ragged_tensor_spec():
    spec = tf.RaggedTensorSpec(shape=[None, None], dtype=tf.int32)
    assert repr(spec) == "RaggedTensorSpec(TensorShape([None, None]), tf.int32, 1, tf.int64)"
    assert spec.is_compatible_with(tf.ragged.constant([[1], [2, 3]]))
    assert not spec.is_compatible_with(tf.ragged.constant([[1.0]]))
    assert not spec.is_compatible_with(tf.constant([[1]]))
    got = tf.RaggedTensorSpec.from_value(tf.ragged.constant([[[1, 2]], []], ragged_rank=1))
    assert got.shape == (2, None, 2) and got.ragged_rank == 1
    with pytest.raises(ValueError, match="ragged_rank must be in"):
        tf.RaggedTensorSpec([None, None], ragged_rank=2)


def test_string_values():
    try:
        tf.constant(["a"])
    except TypeError:
        pytest.skip("string tensors are not in this tree yet")
    words = tf.ragged.constant([["So", "long"], ["thanks", "for", "all", "the", "fish"]])
    assert words.dtype == tf.string and words.shape == (2, None)
    assert repr(words) == ("<tf.RaggedTensor [[b'So', b'long'], [b'thanks', b'for', b'all', "
                           "b'the', b'fish']]>")
    sentences = tf.ragged.constant([['Hi'], ['Welcome', 'to', 'the', 'fair'], ['Have', 'fun']])
    dense = sentences.to_tensor(default_value='', shape=[None, 5])
    assert dense.numpy().tolist() == [[b'Hi', b'', b'', b'', b''],
                                      [b'Welcome', b'to', b'the', b'fair', b''],
                                      [b'Have', b'fun', b'', b'', b'']]
    x = tf.ragged.constant([["John"], ["a", "big", "dog"], ["my", "cat"]])
    y = tf.ragged.constant([["fell", "asleep"], ["barked"], ["is", "fuzzy"]])
    assert tf.concat([x, y], axis=1).to_list() == [[b'John', b'fell', b'asleep'],
                                                   [b'a', b'big', b'dog', b'barked'],
                                                   [b'my', b'cat', b'is', b'fuzzy']]
    joined = tf.sparse.concat(sp_inputs=[x.to_sparse(), y.to_sparse()], axis=1)
    assert tf.sparse.to_dense(joined, '').numpy().tolist() == [
        [b'John', b'', b'', b'fell', b'asleep'], [b'a', b'big', b'dog', b'barked', b''],
        [b'my', b'cat', b'', b'is', b'fuzzy']]
    assert x[1, 2].numpy() == b'dog'


def test_dynamic_ragged_shape():
    # The ragged guide's "Dynamic shape" section.
    from tapeflow.ragged import DynamicRaggedShape, RowPartition
    x = tf.constant([[1, 2], [3, 4], [5, 6]])
    rt_shape = tf.shape(tf.ragged.constant([[1], [2, 3, 4], [], [5, 6]]))
    assert str(rt_shape) == "<DynamicRaggedShape lengths=[4, (1, 3, 0, 2)] num_row_partitions=1>"
    assert tf.reshape(x, rt_shape).to_list() == [[1], [2, 3, 4], [], [5, 6]]
    zeros = tf.zeros(rt_shape)
    assert zeros.dtype == tf.float32 and zeros.to_list() == [[0.0], [0.0] * 3, [], [0.0] * 2]
    assert tf.ones(rt_shape, tf.int32).to_list() == [[1], [1, 1, 1], [], [1, 1]]
    assert tf.fill(rt_shape, 9).to_list() == [[9], [9, 9, 9], [], [9, 9]]
    first = rt_shape[0]
    assert first.dtype == tf.int64 and int(first) == 4
    with pytest.raises(ValueError, match="Index 1 is not uniform"):
        rt_shape[1]
    assert str(rt_shape[:1]) == "<DynamicRaggedShape lengths=[4] num_row_partitions=0>"
    shape = DynamicRaggedShape(row_partitions=[RowPartition.from_row_lengths([5, 3, 2])],
                               inner_shape=[10, 8])
    assert str(shape) == "<DynamicRaggedShape lengths=[3, (5, 3, 2), 8] num_row_partitions=1>"
    shape = DynamicRaggedShape.from_lengths([4, (2, 1, 0, 8), 12])
    assert str(shape) == "<DynamicRaggedShape lengths=[4, (2, 1, 0, 8), 12] num_row_partitions=1>"
    assert int(shape[2]) == 12
    uniform = tf.shape(tf.RaggedTensor.from_uniform_row_length([1, 2, 3, 4], 2))
    assert uniform.static_lengths() == [2, 2] and int(uniform[1]) == 2
    with pytest.raises(ValueError, match="must start with"):
        DynamicRaggedShape([RowPartition.from_row_lengths([1, 2])], [4])
    # A dense tensor keeps its TF shape: an int32 vector.
    np.testing.assert_array_equal(tf.shape(x).numpy(), [3, 2])


def test_row_slices_match_python_slicing():
    rows = [list(range(n)) for n in np.random.default_rng(0).integers(0, 6, 40)]
    rt = tf.ragged.constant(rows)
    bounds = [None, -7, -3, -1, 0, 1, 2, 5, 9]
    for start in bounds:
        for stop in bounds:
            for step in (None, 2, -1):
                assert rt[:, start:stop:step].to_list() == [r[start:stop:step] for r in rows]


def test_boolean_mask():
    # tf.ragged.boolean_mask's API page.
    data = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
    mask = [[True, False, True], [False, False, False], [True, False, False]]
    assert tf.ragged.boolean_mask(data, mask).to_list() == [[1, 3], [], [7]]
    rows = tf.ragged.boolean_mask(data, [True, False, True])
    assert isinstance(rows, tf.Tensor) and rows.numpy().tolist() == [[1, 2, 3], [7, 8, 9]]
    rt = tf.ragged.constant([[1, 2, 3], [4], [5, 6]])
    ragged_mask = tf.ragged.constant([[False, False, True], [True], [True, False]])
    assert tf.ragged.boolean_mask(rt, ragged_mask).to_list() == [[3], [4], [5]]
    assert tf.ragged.boolean_mask(rt, [True, False, True]).to_list() == [[1, 2, 3], [5, 6]]
    with pytest.raises(ValueError, match="row partition"):
        tf.ragged.boolean_mask(rt, tf.ragged.constant([[True], [True], [True, False]]))


def test_gather_and_boolean_mask_dispatch():
    rt = tf.ragged.constant([[1, 2, 3], [4], [5, 6]])
    assert tf.gather(rt, [2, 0, 2]).to_list() == [[5, 6], [1, 2, 3], [5, 6]]
    np.testing.assert_array_equal(tf.gather(rt, 1).numpy(), [4])
    assert tf.boolean_mask(rt, [True, False, True]).to_list() == [[1, 2, 3], [5, 6]]
    mask = tf.ragged.constant([[False, False, True], [True], [True, False]])
    assert tf.boolean_mask(rt, mask).to_list() == [[3], [4], [5]]
    with pytest.raises(InvalidArgumentError, match=r"must be ints in \[0, 3\)"):
        tf.gather(rt, [3])
    with pytest.raises(NotImplementedError, match="axis=0"):
        tf.gather(rt, [0], axis=1)


def test_elementwise_and_embedding_lookup_for_tf_math_and_nn():
    # What tf.add(digits, 3), tf.math.square and tf.nn.embedding_lookup give in TF's ragged
    # guide; tf.math/tf.nn reach these through api/dispatch.py.
    from tapeflow.api import dispatch
    digits = tf.ragged.constant([[3, 1, 4, 1], [], [5, 9, 2], [6], []])
    add = dispatch.for_value("elementwise", digits)
    assert add(tf.add, digits, 3).to_list() == [[6, 4, 7, 4], [], [8, 12, 5], [9], []]
    assert add(tf.subtract, 10, digits).to_list() == [[7, 9, 6, 9], [], [5, 1, 8], [4], []]
    assert add(tf.math.square, digits).to_list() == [[9, 1, 16, 1], [], [25, 81, 4], [36], []]
    ids = tf.ragged.constant([[0, 2], [1]])
    table = tf.constant([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    looked_up = dispatch.for_value("embedding_lookup", ids)(table, ids)
    assert looked_up.to_list() == [[[1.0, 1.0], [3.0, 3.0]], [[2.0, 2.0]]]
    assert looked_up.shape == (2, None, 2)
    assert dispatch.for_value("reduce_mean", digits) is ragged_math.reduce_mean
    assert dispatch.for_value("reduce_mean", tf.constant([1.0])) is None
