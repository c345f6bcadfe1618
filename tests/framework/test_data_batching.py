"""tf.data batching and windows (tapeflow.data): batch, padded_batch, unbatch,
rebatch, window. Expected values are the examples of TF's tf.data.Dataset API
page unless said otherwise."""

import numpy as np
import pytest
import tapeflow as tf

D = tf.data.Dataset


def values(dataset):
    return list(dataset.as_numpy_iterator())


def lists(dataset):
    return [np.asarray(v).tolist() for v in dataset.as_numpy_iterator()]


def test_batch():
    assert lists(D.range(8).batch(3)) == [[0, 1, 2], [3, 4, 5], [6, 7]]
    assert lists(D.range(8).batch(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert D.range(8).batch(3).element_spec == tf.TensorSpec((None,), tf.int64)
    assert D.range(8).batch(3, drop_remainder=True).element_spec == tf.TensorSpec((3,), tf.int64)
    assert D.range(8).batch(3).cardinality().numpy() == 3
    assert D.range(8).batch(3, True).cardinality().numpy() == 2
    assert D.range(8).repeat().batch(3).cardinality().numpy() == -1
    with pytest.raises(tf.errors.InvalidArgumentError, match="batch_size"):
        D.range(8).batch(0)


def test_batch_of_structures_and_of_mapped_elements():
    ds = D.from_tensor_slices({"a": [1, 2, 3], "b": ([4, 5, 6], [7.0, 8.0, 9.0])})
    first = next(ds.batch(2).as_numpy_iterator())
    assert first["a"].tolist() == [1, 2] and first["b"][1].tolist() == [7.0, 8.0]
    mapped = D.range(5).map(lambda x: (x, tf.fill([2], x))).batch(2)   # stacked element-wise
    got = values(mapped)
    assert got[2][0].tolist() == [4] and got[1][1].tolist() == [[2, 2], [3, 3]]


def test_batch_of_different_shapes_is_tf_error():
    ds = D.range(1, 4).map(lambda x: tf.fill([x], x))
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"Cannot batch tensors with different shapes in component 0. "
                             r"First element had shape \[1\] and element 1 had shape \[2\]"):
        values(ds.batch(2))


def test_padded_batch_examples_of_tf_docs():
    a = D.range(1, 5, output_type=tf.int32).map(lambda x: tf.fill([x], x))
    assert lists(a.padded_batch(2)) == [[[1, 0], [2, 2]], [[3, 3, 3, 0], [4, 4, 4, 4]]]
    assert lists(a.padded_batch(2, padded_shapes=5)) == \
        [[[1, 0, 0, 0, 0], [2, 2, 0, 0, 0]], [[3, 3, 3, 0, 0], [4, 4, 4, 4, 0]]]
    assert lists(a.padded_batch(2, padded_shapes=5, padding_values=-1)) == \
        [[[1, -1, -1, -1, -1], [2, 2, -1, -1, -1]], [[3, 3, 3, -1, -1], [4, 4, 4, 4, -1]]]
    both = values(D.zip((a, a)).padded_batch(2, padding_values=-1))
    assert [x.tolist() for x in both[0]] == [[[1, -1], [2, 2]]] * 2
    assert both[0][0].dtype == np.int32


def test_padded_batch_of_nested_components():
    elements = [([1, 2, 3], [10]), ([4, 5], [11, 12])]
    ds = D.from_generator(lambda: iter(elements), (tf.int32, tf.int32))
    ds = ds.padded_batch(2, padded_shapes=([4], [None]), padding_values=(-1, 100))
    (x, y), = values(ds)
    assert x.tolist() == [[1, 2, 3, -1], [4, 5, -1, -1]] and x.dtype == np.int32
    assert y.tolist() == [[10, 100], [11, 12]]
    assert ds.element_spec == (tf.TensorSpec((None, 4), tf.int32),
                               tf.TensorSpec((None, None), tf.int32))


def test_padded_batch_errors():
    unknown_rank = D.from_generator(lambda: iter([[1, 2], [3]]), tf.int32)
    with pytest.raises(ValueError, match="You must provide `padded_shapes` argument because "
                                         "component 0 has unknown rank"):
        unknown_rank.padded_batch(2)
    assert lists(unknown_rank.padded_batch(2, padded_shapes=[None])) == [[[1, 2], [3, 0]]]
    a = D.range(1, 5).map(lambda x: tf.fill([x], x))
    with pytest.raises(tf.errors.DataLossError,           # TF 2.21's error type, oddly
                       match="Attempted to pad to a smaller size than the input element"):
        values(a.padded_batch(2, padded_shapes=[2]))
    with pytest.raises(TypeError, match="values type tf.int32 does not match type tf.int64"):
        a.padded_batch(2, padding_values=tf.constant(0, tf.int32))   # an int64 dataset
    with pytest.raises(TypeError, match="values type tf.int32 does not match"):
        a.padded_batch(2, padding_values=-1)      # a Python int is int32, as in TF
    with pytest.raises(TypeError, match="padded_shapes"):
        D.zip((a, a)).padded_batch(2, padded_shapes=([4],))
    assert lists(a.padded_batch(2, drop_remainder=True, padded_shapes=[-1]).take(1)) == \
        [[[1, 0], [2, 2]]]


def test_unbatch():
    elements = [[1, 2, 3], [1, 2], [1, 2, 3, 4]]
    ds = D.from_generator(lambda: elements, tf.int64).unbatch()
    assert values(ds) == [1, 2, 3, 1, 2, 1, 2, 3, 4]
    pairs = D.from_tensor_slices((np.arange(6).reshape(3, 2), np.arange(3) * 10)).batch(2)
    assert values(pairs.unbatch())[1][0].tolist() == [2, 3]
    assert D.range(6).batch(2, drop_remainder=True).unbatch().cardinality().numpy() == 6
    assert D.range(6).batch(2).unbatch().cardinality().numpy() == -2
    with pytest.raises(ValueError, match="scalar components"):
        D.range(3).unbatch()
    with pytest.raises(ValueError, match="matching leading dimension. Encountered both 3 "
                                         "and 2"):
        D.from_tensors((np.zeros(3), np.zeros(2))).unbatch()          # known shapes: at once
    bad = D.from_generator(lambda: iter([(np.zeros(3), np.zeros(2))]), (tf.float64, tf.float64),
                           ([None], [None]))
    with pytest.raises(tf.errors.InvalidArgumentError, match="Component 0 had size 3 but "
                                                             "component 1 had size 2"):
        values(bad.unbatch())


def test_rebatch():
    ds = D.range(8).batch(4)
    assert lists(ds.rebatch(batch_size=2)) == [[0, 1], [2, 3], [4, 5], [6, 7]]
    assert lists(ds.rebatch(batch_size=[2, 1, 1])) == [[0, 1], [2], [3], [4, 5], [6], [7]]
    assert lists(D.range(7).batch(4).rebatch(3, drop_remainder=True)) == [[0, 1, 2],
                                                                          [3, 4, 5]]


def windows(dataset):
    return [values(w) for w in dataset]


def test_window_examples_of_tf_docs():
    assert windows(D.range(7).window(3)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert windows(D.range(7).window(3, drop_remainder=True)) == [[0, 1, 2], [3, 4, 5]]
    assert windows(D.range(7).window(3, shift=1, drop_remainder=True)) == \
        [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6]]
    assert windows(D.range(7).window(3, shift=1, stride=2, drop_remainder=True)) == \
        [[0, 2, 4], [1, 3, 5], [2, 4, 6]]
    assert windows(D.range(7).window(3, shift=1)) == \
        [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5], [4, 5, 6], [5, 6], [6]]
    assert windows(D.range(7).window(2, shift=3)) == [[0, 1], [3, 4], [6]]


def test_window_keeps_the_structure_and_has_tf_cardinality():
    ds = D.from_tensor_slices(([1, 2, 3, 4, 5], [6, 7, 8, 9, 10])).window(2)
    got = [(values(a), values(b)) for a, b in ds]
    assert got == [([1, 2], [6, 7]), ([3, 4], [8, 9]), ([5], [10])]
    spec = ds.element_spec
    assert isinstance(spec[0], tf.data.DatasetSpec)
    assert spec[0].element_spec == tf.TensorSpec((), tf.int32)
    assert D.range(7).window(3).cardinality().numpy() == 3
    assert D.range(7).window(3, 1, 1, True).cardinality().numpy() == 5
    assert D.range(7).window(3, 1, 2, True).cardinality().numpy() == 3
    assert D.range(2).window(3, drop_remainder=True).cardinality().numpy() == 0
    for n, size, shift, stride, drop in [(7, 3, 1, 2, False), (9, 2, 4, 3, True),
                                          (10, 4, 3, 1, False)]:
        ds = D.range(n).window(size, shift, stride, drop)
        assert ds.cardinality().numpy() == len(list(ds))
    with pytest.raises(tf.errors.InvalidArgumentError, match="size"):
        D.range(3).window(0)


def test_window_then_flat_map_batch_as_tutorials_do():
    series = D.range(6).window(3, shift=1, drop_remainder=True)
    rows = lists(series.flat_map(lambda w: w.batch(3)))
    assert rows == [[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 5]]
    pairs = D.from_tensor_slices((np.arange(4), np.arange(4) * 10)).window(2)
    zipped = pairs.flat_map(lambda x, y: D.zip((x.batch(2), y.batch(2))))
    assert [(a.tolist(), b.tolist()) for a, b in values(zipped)] == [([0, 1], [0, 10]),
                                                                      ([2, 3], [20, 30])]


def test_group_by_window_example_of_tf_docs():
    ds = D.range(10).group_by_window(key_func=lambda x: x % 2,
                                     reduce_func=lambda key, d: d.batch(5), window_size=5)
    assert lists(ds) == [[0, 2, 4, 6, 8], [1, 3, 5, 7, 9]]
    # groups left at the end come out in increasing key order
    rest = D.from_tensor_slices(np.array([5, 3, 8, 1], np.int64)).group_by_window(
        lambda x: 2 - x % 3, lambda key, d: d.batch(9), window_size=9)
    assert lists(rest) == [[5, 8], [1], [3]]   # keys 0 (x%3==2), 1, 2
    sized = D.range(6).group_by_window(lambda x: x % 2, lambda key, d: d.batch(3),
                                       window_size_func=lambda key: key + 2)
    assert lists(sized) == [[0, 2], [1, 3, 5], [4]]
    with pytest.raises(ValueError, match="Either the `window_size`"):
        D.range(3).group_by_window(lambda x: x, lambda k, d: d)


def test_bucket_by_sequence_length_example_of_tf_docs():
    elements = [[0], [1, 2, 3, 4], [5, 6, 7], [7, 8, 9, 10, 11], [13, 14, 15, 16, 19, 20],
                [21, 22]]
    ds = D.from_generator(lambda: elements, tf.int64, output_shapes=[None])
    buckets = ds.bucket_by_sequence_length(element_length_func=lambda elem: tf.shape(elem)[0],
                                           bucket_boundaries=[3, 5],
                                           bucket_batch_sizes=[2, 2, 2])
    assert lists(buckets) == [[[1, 2, 3, 4], [5, 6, 7, 0]],
                              [[7, 8, 9, 10, 11, 0], [13, 14, 15, 16, 19, 20]],
                              [[0, 0], [21, 22]]]


def test_bucket_by_sequence_length_pads_to_the_boundary():
    elements = [[1], [2, 2, 2], [3, 3], [4, 4, 4, 4]]
    ds = D.from_generator(lambda: elements, tf.int64, output_shapes=[None])
    buckets = ds.bucket_by_sequence_length(lambda e: tf.shape(e)[0], [3, 5], [2, 2, 2],
                                           pad_to_bucket_boundary=True,
                                           padding_values=np.int64(-1))
    # lengths 1 and 2 share bucket 0 (< 3), padded to 3 - 1; 3 and 4 bucket 1, to 5 - 1
    assert lists(buckets) == [[[1, -1], [3, 3]], [[2, 2, 2, -1], [4, 4, 4, 4]]]
    too_long = D.from_generator(lambda: [[1] * 6], tf.int64, output_shapes=[None])
    with pytest.raises(tf.errors.InvalidArgumentError, match="pad_to_bucket_boundary"):
        lists(too_long.bucket_by_sequence_length(lambda e: tf.shape(e)[0], [3, 5], [2, 2, 2],
                                                 pad_to_bucket_boundary=True))
    with pytest.raises(ValueError, match=r"len\(bucket_boundaries\) \+ 1"):
        ds.bucket_by_sequence_length(lambda e: tf.shape(e)[0], [3, 5], [2, 2])
    same = D.from_generator(lambda: [[1], [2, 2], [3]], tf.int64, output_shapes=[None])
    plain = same.bucket_by_sequence_length(lambda e: tf.shape(e)[0], [2], [2, 9],
                                           no_padding=True)
    assert lists(plain) == [[[1], [3]], [[2, 2]]]


def test_unique_and_random():
    assert values(D.from_tensor_slices([1, 37, 2, 37, 2, 1]).unique()) == [1, 37, 2]
    assert values(D.from_tensor_slices(["b", "a", "b"]).unique()) == [b"b", b"a"]
    with pytest.raises(TypeError, match="does not support type tf.float32 -- only `tf.int32`"):
        D.from_tensor_slices([1.0, 2.0]).unique()
    first = values(D.random(seed=4).take(5))
    assert first == values(D.random(seed=4).take(5)) and len(set(first)) == 5
    assert D.random(seed=4).cardinality().numpy() == tf.data.INFINITE_CARDINALITY
    assert D.random(seed=4).element_spec == tf.TensorSpec((), tf.int64)
    again = D.random(seed=4, rerandomize_each_iteration=True)
    assert values(again.take(5)) != values(again.take(5))
