"""RaggedTensors and SparseTensors in tf.data (tapeflow.data): slicing, batch,
unbatch, ragged_batch / dense_to_ragged_batch and their specs. Expected values
were printed by TF 2.21 for the same pipelines."""

import pytest
import tapeflow as tf

D = tf.data.Dataset


def show(x):
    if isinstance(x, tf.RaggedTensor):
        return ("R", x.to_list())
    if isinstance(x, tf.SparseTensor):
        return ("S", x.indices.numpy().tolist(), x.values.numpy().tolist(),
                x.dense_shape.numpy().tolist())
    if isinstance(x, tuple):
        return tuple(show(v) for v in x)
    return ("T", x.numpy().tolist())


def shown(dataset):
    return [show(e) for e in dataset]


def test_ragged_slices_are_dense_rows_and_batch_ragged():
    ds = D.from_tensor_slices(tf.ragged.constant([[1, 2], [3], [4, 5, 6], []], dtype=tf.int64))
    assert ds.element_spec == tf.RaggedTensorSpec(tf.TensorShape([None]), tf.int64, 0, tf.int64)
    assert shown(ds) == [("T", [1, 2]), ("T", [3]), ("T", [4, 5, 6]), ("T", [])]
    assert shown(ds.batch(3)) == [("R", [[1, 2], [3], [4, 5, 6]]), ("R", [[]])]
    assert ds.batch(3).element_spec == tf.RaggedTensorSpec(tf.TensorShape([None, None]),
                                                           tf.int64, 1, tf.int64)
    assert ds.batch(2, drop_remainder=True).element_spec == tf.RaggedTensorSpec(
        tf.TensorShape([2, None]), tf.int64, 1, tf.int64)
    assert shown(ds.batch(3).unbatch()) == shown(ds)
    assert ds.batch(3).unbatch().element_spec == ds.element_spec
    assert ds.batch(3).unbatch().cardinality().numpy() == -2
    pairs = D.from_tensor_slices((tf.ragged.constant([[1, 2], [3], [4, 5, 6], []]),
                                  tf.constant([1, 2, 3, 4]))).batch(2)
    assert shown(pairs) == [(("R", [[1, 2], [3]]), ("T", [1, 2])),
                            (("R", [[4, 5, 6], []]), ("T", [3, 4]))]


def test_ragged_rank_two():
    ds = D.from_tensor_slices(tf.ragged.constant([[[1], [2, 3]], [[4]], []]))
    assert shown(ds) == [("R", [[1], [2, 3]]), ("R", [[4]]), ("R", [])]
    assert ds.element_spec == tf.RaggedTensorSpec(tf.TensorShape([None, None]), tf.int32, 1,
                                                  tf.int64)
    assert shown(ds.batch(2)) == [("R", [[[1], [2, 3]], [[4]]]), ("R", [[]])]
    assert ds.batch(2).element_spec == tf.RaggedTensorSpec(tf.TensorShape([None, None, None]),
                                                           tf.int32, 2, tf.int64)


def test_ragged_batch_of_dense_elements():
    lengths = D.from_tensor_slices([1, 5, 3, 2, 8]).map(lambda n: tf.range(n))
    batched = lengths.apply(tf.data.experimental.dense_to_ragged_batch(2))
    assert shown(batched) == [("R", [[0], [0, 1, 2, 3, 4]]), ("R", [[0, 1, 2], [0, 1]]),
                              ("R", [[0, 1, 2, 3, 4, 5, 6, 7]])]
    assert lengths.ragged_batch(2).element_spec == tf.RaggedTensorSpec(
        tf.TensorShape([None, None]), tf.int32, 1, tf.int64)
    # elements of a known shape batch as batch does
    assert shown(D.range(4).ragged_batch(3)) == [("T", [0, 1, 2]), ("T", [3])]
    assert D.range(4).ragged_batch(3).element_spec == tf.TensorSpec((None,), tf.int64)
    # ragged only up to the last unknown dimension
    blocks = D.range(1, 4).map(lambda x: tf.fill([x, 2], x)).ragged_batch(2)
    assert shown(blocks) == [("R", [[[1, 1]], [[2, 2], [2, 2]]]),
                             ("R", [[[3, 3], [3, 3], [3, 3]]])]
    assert blocks.element_spec == tf.RaggedTensorSpec(tf.TensorShape([None, None, 2]),
                                                      tf.int64, 1, tf.int64)


def test_map_returning_ragged_tensors():
    ds = D.range(3).map(lambda x: tf.ragged.range(tf.range(x)))
    assert shown(ds) == [("R", []), ("R", [[]]), ("R", [[], [0]])]
    assert ds.element_spec.shape.as_list() == [None, None]   # sizes differ between elements


def test_sparse_slices_batch_and_unbatch():
    st = tf.SparseTensor(indices=[[0, 0], [1, 2], [2, 3]], values=[1, 2, 3], dense_shape=[3, 4])
    ds = D.from_tensor_slices(st)
    assert ds.element_spec == tf.SparseTensorSpec(tf.TensorShape([4]), tf.int32)
    assert D.from_tensors(st).element_spec == tf.SparseTensorSpec(tf.TensorShape([3, 4]),
                                                                  tf.int32)
    assert D.from_tensors(st).element_spec.value_type is tf.sparse.SparseTensor
    rows = [("S", [[0]], [1], [4]), ("S", [[2]], [2], [4]), ("S", [[3]], [3], [4])]
    assert shown(ds) == rows
    assert shown(ds.batch(2)) == [("S", [[0, 0], [1, 2]], [1, 2], [2, 4]),
                                  ("S", [[0, 3]], [3], [1, 4])]
    assert ds.batch(2).element_spec == tf.SparseTensorSpec(tf.TensorShape([None, 4]), tf.int32)
    assert shown(ds.batch(2).unbatch()) == rows
    with pytest.raises(TypeError, match="padded_batch is only supported for datasets of dense"):
        ds.padded_batch(2)
