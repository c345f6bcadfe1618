"""next() and get_next() of a tf.data iterator inside a traced function: one
made outside the trace (an argument, a global) advances at every call, as TF's
iterator resource (the tf.function guide's "Value: 1, 2, 3"); one the traced
Python makes, and a `for` over a dataset, are read while tracing only."""

import warnings

import pytest
import tapeflow as tf


def test_an_iterator_passed_in_advances_at_every_call(capsys):
    @tf.function
    def consume(iterator):
        tf.print("Value:", next(iterator))
        return next(iterator) * 10

    iterator = iter(tf.data.Dataset.from_tensor_slices([1, 2, 3, 4, 5, 6]))
    assert [int(consume(iterator)) for _ in range(3)] == [20, 40, 60]
    assert capsys.readouterr().err.splitlines() == ["Value: 1", "Value: 3", "Value: 5"]
    assert consume.experimental_get_tracing_count() == 1


def test_a_global_iterator_and_get_next_advance_and_end_with_tf_error():
    iterator = iter(tf.data.Dataset.from_tensor_slices({"a": [1.0, 2.0], "b": [3, 4]}))

    @tf.function
    def step():
        element = iterator.get_next()
        return element["a"] + tf.cast(element["b"], tf.float32)

    assert float(step()) == 4.0
    assert float(step()) == 6.0
    with pytest.raises(tf.errors.OutOfRangeError, match="End of sequence"):
        step()


def test_an_iterator_made_inside_and_a_for_over_a_dataset_are_read_while_tracing():
    ds = tf.data.Dataset.from_tensor_slices([1, 2, 3])

    @tf.function
    def first():
        return next(iter(ds))  # TF: a new iterator at every call, so its first element

    @tf.function
    def total():
        s = tf.constant(0)
        for x in ds:
            s += x
        return s

    assert [int(first()) for _ in range(3)] == [1, 1, 1]
    assert [int(total()) for _ in range(2)] == [6, 6]


def test_a_partial_last_batch_keeps_its_shape():
    # (None,) batches: a shape read in Python would freeze the traced batch size, so
    # the function runs eagerly then (with a warning); the values stay right.
    iterator = iter(tf.data.Dataset.range(5).batch(2))

    @tf.function
    def sizes(it):
        x = next(it)
        return tf.reduce_sum(x) + x.shape[0]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert [int(sizes(iterator)) for _ in range(3)] == [1 + 2, 5 + 2, 4 + 1]

    iterator = iter(tf.data.Dataset.range(5).batch(2))

    @tf.function
    def sums(it):
        return tf.reduce_sum(next(it))

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no shape read in Python: the graph replays
        assert [int(sums(iterator)) for _ in range(3)] == [1, 5, 4]
