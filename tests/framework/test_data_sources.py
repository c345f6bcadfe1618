"""tf.data sources (tapeflow.data): from_tensor_slices, from_tensors, from_generator,
range, zip, list_files, sample/choose_from_datasets, element_spec, cardinality
and the ways to read a dataset. Expected values are the examples of TF's
tf.data.Dataset API page unless said otherwise."""

import collections

import numpy as np
import pytest
import tapeflow as tf

D = tf.data.Dataset


def values(dataset):
    return list(dataset.as_numpy_iterator())


def test_from_tensor_slices_of_python_lists_converts_as_tf():
    ds = D.from_tensor_slices([1, 2, 3])
    assert ds.element_spec == tf.TensorSpec((), tf.int32)
    assert values(ds) == [1, 2, 3]
    assert all(type(v) is np.int32 for v in values(ds))
    rows = values(D.from_tensor_slices([[1, 2], [3, 4]]))
    assert [r.tolist() for r in rows] == [[1, 2], [3, 4]] and rows[0].dtype == np.int32
    assert D.from_tensor_slices([0.5, 1.5]).element_spec.dtype == tf.float32
    assert D.from_tensor_slices(np.zeros((2, 3))).element_spec == tf.TensorSpec((3,), tf.float64)


def test_from_tensor_slices_keeps_tuples_dicts_and_namedtuples():
    assert values(D.from_tensor_slices(([1, 2], [3, 4], [5, 6]))) == [(1, 3, 5), (2, 4, 6)]
    assert values(D.from_tensor_slices({"a": [1, 2], "b": [3, 4]})) == \
        [{"a": 1, "b": 3}, {"a": 2, "b": 4}]
    nested = values(D.from_tensor_slices({"a": ([1, 2], [3, 4]), "b": [5, 6]}))
    assert nested == [{"a": (1, 3), "b": 5}, {"a": (2, 4), "b": 6}]
    assert type(nested[0]["a"]) is tuple
    Point = collections.namedtuple("Point", ["x", "y"])
    first = next(iter(D.from_tensor_slices(Point([1, 2], [3.0, 4.0]))))
    assert type(first) is Point and first.x.numpy() == 1 and first.y.dtype == tf.float32


def test_from_tensor_slices_of_a_list_of_pairs_is_one_tensor():
    # A Python list is one component (TF converts it to a tensor): rows of 2.
    ds = D.from_tensor_slices([(7, 8), (9, 10)])
    assert ds.element_spec == tf.TensorSpec((2,), tf.int32)
    assert [v.tolist() for v in values(ds)] == [[7, 8], [9, 10]]


def test_from_tensor_slices_mismatched_first_dimensions_name_the_shapes():
    with pytest.raises(ValueError, match=r"Dimensions 3 and 2 are not compatible.*\(3,\), "
                                         r"\(2, 4\)"):
        D.from_tensor_slices((np.zeros(3), np.zeros((2, 4))))
    with pytest.raises(ValueError, match="rank >= 1"):
        D.from_tensor_slices((np.zeros(3), 1.0))
    with pytest.raises(ValueError, match="should not be empty"):
        D.from_tensor_slices(())


def test_from_tensors_is_one_element():
    ds = D.from_tensors([1, 2, 3])
    assert ds.cardinality().numpy() == 1
    assert [v.tolist() for v in values(ds)] == [[1, 2, 3]]
    assert ds.element_spec == tf.TensorSpec((3,), tf.int32)


def test_iterating_gives_tensors_and_an_iterator_with_get_next():
    ds = D.from_tensor_slices(([1, 2], [3.0, 4.0]))
    it = iter(ds)
    x, y = next(it)
    assert isinstance(x, tf.Tensor) and x.dtype == tf.int32 and y.numpy() == 3.0
    x, y = it.get_next()
    assert x.numpy() == 2 and y.numpy() == 4.0
    with pytest.raises(StopIteration):
        next(it)
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        it.get_next()                                # TF's error for get_next at the end
    assert it.element_spec == ds.element_spec


def test_range():
    assert values(D.range(5)) == [0, 1, 2, 3, 4]
    assert values(D.range(2, 5)) == [2, 3, 4]
    assert values(D.range(1, 5, 2)) == [1, 3]
    assert values(D.range(1, 5, -2)) == []
    assert values(D.range(5, 1, -2)) == [5, 3]
    assert D.range(5).element_spec == tf.TensorSpec((), tf.int64)
    ds = D.range(1, 5, 2, output_type=tf.float32)
    assert ds.element_spec.dtype == tf.float32 and values(ds) == [1.0, 3.0]
    assert D.range(1, 5, 2).cardinality().numpy() == 2
    with pytest.raises(tf.errors.InvalidArgumentError, match="step"):
        D.range(1, 5, 0)


def test_from_generator_with_output_signature():
    def gen():
        yield 1, [1]
        yield 2, [1, 1]

    ds = D.from_generator(gen, output_signature=(tf.TensorSpec((), tf.int64),
                                                 tf.TensorSpec((None,), tf.int64)))
    assert ds.element_spec == (tf.TensorSpec((), tf.int64), tf.TensorSpec((None,), tf.int64))
    got = values(ds)
    assert [(a, b.tolist()) for a, b in got] == [(1, [1]), (2, [1, 1])]
    assert got[0][0].dtype == np.int64 and got[1][1].dtype == np.int64
    assert ds.cardinality().numpy() == tf.data.UNKNOWN_CARDINALITY
    assert len(values(ds)) == 2  # the generator is called afresh on each pass


def test_from_generator_legacy_types_and_shapes_and_args():
    import itertools

    def gen():
        for i in itertools.count(1):
            yield (i, [1] * i)

    ds = D.from_generator(gen, (tf.int64, tf.int64), (tf.TensorShape([]), tf.TensorShape([None])))
    assert [(a, b.tolist()) for a, b in values(ds.take(3))] == [(1, [1]), (2, [1, 1]),
                                                                 (3, [1, 1, 1])]
    lines = D.from_generator(lambda name, n: iter([name, name * int(n)]), tf.string,
                             args=("ab", tf.constant(2)))
    assert values(lines) == [b"ab", b"abab"]          # a string argument arrives as bytes
    squares = D.from_generator(lambda n: (i * i for i in range(n)), tf.int32, args=(4,))
    assert values(squares) == [0, 1, 4, 9]
    assert squares.element_spec.shape.rank is None  # no output_shapes: unknown rank


def test_from_generator_checks_what_it_yields():
    spec = tf.TensorSpec((2,), tf.float32)
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"yielded an element of shape \(3,\) where an element of shape "
                             r"\(2,\) was expected"):
        values(D.from_generator(lambda: iter([[1.0, 2.0, 3.0]]), output_signature=spec))
    with pytest.raises(tf.errors.InvalidArgumentError, match="did not match the expected "
                                                             "structure"):
        values(D.from_generator(lambda: iter([1.0]), output_signature=(spec, spec)))
    with pytest.raises(tf.errors.InvalidArgumentError, match="could not be converted to the "
                                                             "expected type. The expected type "
                                                             "was float32"):
        values(D.from_generator(lambda: iter([["a", "b"]]), output_signature=spec))
    ok = values(D.from_generator(lambda: iter([np.array([1.0, 2.0])]), output_signature=spec))
    assert ok[0].dtype == np.float32  # converted to the signature's dtype, as TF


def test_from_generator_signature_errors():
    with pytest.raises(TypeError, match="either the `output_signature` argument or the "
                                        "`output_types`"):
        D.from_generator(lambda: iter([]))
    with pytest.raises(TypeError, match="can not be used together"):
        D.from_generator(lambda: iter([]), tf.int32, output_signature=tf.TensorSpec(()))
    with pytest.raises(TypeError, match="must be a Python callable"):
        D.from_generator([1, 2], tf.int32)
    with pytest.raises(TypeError, match="subclass of `tf.TypeSpec` but found"):
        D.from_generator(lambda: iter([]), output_signature=(tf.int32,))


def test_zip():
    a, b = D.range(1, 4), D.range(4, 7)
    assert values(D.zip((a, b))) == [(1, 4), (2, 5), (3, 6)]
    assert values(D.zip(a, b)) == [(1, 4), (2, 5), (3, 6)]
    c = D.range(7, 13).batch(2)
    assert [(x, y, z.tolist()) for x, y, z in values(D.zip((a, b, c)))] == \
        [(1, 4, [7, 8]), (2, 5, [9, 10]), (3, 6, [11, 12])]
    d = D.range(13, 15)
    zipped = D.zip((a, d))
    assert values(zipped) == [(1, 13), (2, 14)] and zipped.cardinality().numpy() == 2
    assert values(D.zip({"x": a, "y": b}))[0] == {"x": 1, "y": 4}
    assert D.zip((a, a.repeat())).cardinality().numpy() == 3
    assert D.zip((a, a.filter(lambda x: True))).cardinality().numpy() == -2
    with pytest.raises(TypeError, match="use `tuple` instead"):
        D.zip([a, b])


def test_zip_of_slices_stays_vectorised_and_equal():
    x, y = np.arange(10.0), np.arange(10) * 2
    zipped = D.zip((D.from_tensor_slices(x), D.from_tensor_slices(y))).batch(4)
    assert zipped._batch == (4, False)  # cut from the arrays, not stacked
    got = values(zipped)
    assert [a.tolist() for a, _ in got] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    assert [b.tolist() for _, b in got] == [[0, 2, 4, 6], [8, 10, 12, 14], [16, 18]]


def test_cardinality_len_and_constants():
    ds = D.range(42)
    card = ds.cardinality()
    assert card.dtype == tf.int64 and card.shape == () and card.numpy() == 42
    assert tf.data.experimental.cardinality(ds).numpy() == 42
    assert (ds.repeat().cardinality() == tf.data.INFINITE_CARDINALITY).numpy()
    assert (ds.filter(lambda x: True).cardinality() == tf.data.UNKNOWN_CARDINALITY).numpy()
    assert tf.data.experimental.INFINITE_CARDINALITY == -1
    assert tf.data.experimental.UNKNOWN_CARDINALITY == -2
    assert tf.data.AUTOTUNE == tf.data.experimental.AUTOTUNE == -1
    assert len(ds) == 42
    with pytest.raises(TypeError, match="infinite"):
        len(ds.repeat())
    with pytest.raises(TypeError, match="unknown"):
        len(ds.filter(lambda x: True))


def test_as_numpy_iterator_refuses_nested_datasets():
    with pytest.raises(TypeError, match="DatasetSpec"):
        values(D.range(4).window(2))


def test_get_single_element():
    assert tf.data.Dataset.from_tensors([1, 2]).get_single_element().numpy().tolist() == [1, 2]
    assert tf.data.experimental.get_single_element(D.range(1)).numpy() == 0
    with pytest.raises(tf.errors.InvalidArgumentError, match="more than one"):
        D.range(2).get_single_element()
    with pytest.raises(tf.errors.InvalidArgumentError, match="empty"):
        D.range(0).get_single_element()


def test_repr_names_the_element_spec():
    assert repr(D.from_tensor_slices([1, 2, 3])) == \
        "<_TensorSliceDataset element_spec=TensorSpec(shape=(), dtype=tf.int32, name=None)>"


def test_choose_from_datasets():
    datasets = [D.from_tensors(np.int64(10)).repeat(), D.from_tensors(np.int64(20)).repeat(),
                D.from_tensors(np.int64(30)).repeat()]
    chosen = D.choose_from_datasets(datasets, D.range(3).repeat(3))
    assert values(chosen) == [10, 20, 30] * 3
    with pytest.raises(tf.errors.InvalidArgumentError, match="out of range"):
        values(D.choose_from_datasets(datasets, D.range(4, 5)))


def test_sample_from_datasets():
    one, two = D.range(0, 3), D.range(100, 103)
    assert values(D.sample_from_datasets([one, two], weights=[1.0, 0.0])) == [0, 1, 2]
    mixed = values(D.sample_from_datasets([one, two], weights=[0.5, 0.5], seed=3))
    assert sorted(mixed) == [0, 1, 2, 100, 101, 102]
    assert [v for v in mixed if v < 100] == [0, 1, 2]  # each input keeps its order
    assert values(D.sample_from_datasets([one, two], seed=3)) == \
        values(D.sample_from_datasets([one, two], seed=3))


def test_counter_and_options():
    assert values(tf.data.experimental.Counter(start=2, step=3).take(3)) == [2, 5, 8]
    options = tf.data.Options()
    options.experimental_distribute.auto_shard_policy = \
        tf.data.experimental.AutoShardPolicy.DATA
    options.deterministic = True
    ds = D.range(3).with_options(options)
    assert values(ds) == [0, 1, 2]
    assert ds.options().deterministic is True
    assert ds.map(lambda x: x).options().experimental_distribute.auto_shard_policy == \
        tf.data.experimental.AutoShardPolicy.DATA
    with pytest.raises(AttributeError, match="Cannot set the property"):
        options.no_such_option = 1


def test_checkpoint_saves_and_restores_an_iterators_position(tmp_path):
    iterator = iter(D.range(20).map(lambda x: x * 2))
    ckpt = tf.train.Checkpoint(step=tf.Variable(0), iterator=iterator)
    first = [int(next(iterator)) for _ in range(5)]
    path = ckpt.save(str(tmp_path / "ckpt"))
    second = [int(next(iterator)) for _ in range(5)]
    ckpt.restore(path)
    assert first == [0, 2, 4, 6, 8] and second == [10, 12, 14, 16, 18]
    assert [int(next(iterator)) for _ in range(5)] == second      # back where it was saved
    fresh = iter(D.range(20).map(lambda x: x * 2))
    tf.train.Checkpoint(step=tf.Variable(0), iterator=fresh).restore(path)
    assert int(next(fresh)) == 10                                  # another run resumes too


def test_counter_and_sample_with_a_dataset_of_weights():
    assert values(D.counter(3, 2).take(3)) == [3, 5, 7]
    assert D.counter().cardinality().numpy() == tf.data.INFINITE_CARDINALITY
    first_then_second = D.from_tensors([1.0, 0.0]).repeat(2).concatenate(
        D.from_tensors([0.0, 1.0]).repeat())
    mixed = D.sample_from_datasets([D.range(3), D.range(100, 103)], weights=first_then_second)
    assert values(mixed) == [0, 1, 100, 101, 102]   # one weight row per draw, as TF


def test_array_likes_keep_their_dtype_as_pandas_columns_do():
    class Column:   # what dict(pandas.DataFrame) holds: objects with __array__
        def __init__(self, array):
            self.array = array

        def __array__(self, dtype=None, copy=None):
            return self.array

    ds = D.from_tensor_slices({"n": Column(np.array([1, 2], np.int64)),
                               "s": Column(np.array(["a", "b"], object))})
    assert ds.element_spec == {"n": tf.TensorSpec((), tf.int64), "s": tf.TensorSpec((), tf.string)}
    assert values(ds) == [{"n": 1, "s": b"a"}, {"n": 2, "s": b"b"}]


def test_save_and_load(tmp_path):
    ds = D.from_tensor_slices(({"x": [1.0, 2.0, 3.0]}, ["a", "b", "c"])).batch(2)
    ds.save(str(tmp_path / "plain"))
    ds.save(str(tmp_path / "zipped"), compression="GZIP")
    for name in ("plain", "zipped"):
        loaded = D.load(str(tmp_path / name))
        assert loaded.element_spec == ds.element_spec and loaded.cardinality().numpy() == 2
        got = values(loaded)
        assert got[0][0]["x"].tolist() == [1.0, 2.0] and got[1][1].tolist() == [b"c"]
    again = tf.data.experimental.load(str(tmp_path / "plain"))
    assert len(values(again)) == 2
    with pytest.raises(tf.errors.NotFoundError, match="Dataset.save"):
        D.load(str(tmp_path / "nothing"))
