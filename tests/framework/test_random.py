"""tf.random: TF's seeding rules (global seed, op seed, per-call streams), the
distributions against their moments and ranges, dtypes, and bad input."""

import subprocess
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import random as tf_random
from tapeflow.core.errors import InvalidArgumentError


@pytest.fixture(autouse=True)
def _unseed():
    yield
    tf.random.set_seed(None)


def _fresh_program(body):
    code = "import tapeflow as tf\n" + body + "\nprint(repr(out.numpy().tolist()))"
    return subprocess.run([sys.executable, "-c", code], check=True, capture_output=True,
                          text=True).stdout


def test_global_seed_repeats_in_a_fresh_program():
    body = "tf.random.set_seed(3)\ntf.random.uniform([2])\nout = tf.random.normal([4])"
    assert _fresh_program(body) == _fresh_program(body)


def test_op_seed_alone_repeats_in_a_fresh_program():
    body = "out = tf.random.normal([4], seed=11)"
    assert _fresh_program(body) == _fresh_program(body)


def test_unseeded_programs_differ():
    body = "out = tf.random.normal([4])"
    assert _fresh_program(body) != _fresh_program(body)


def test_set_seed_restarts_the_sequence_and_calls_differ():
    tf.random.set_seed(5)
    a, b = tf.random.normal([3]), tf.random.normal([3])
    c, d = tf.random.normal([3], seed=1), tf.random.normal([3], seed=1)
    assert not np.array_equal(a.numpy(), b.numpy())
    assert not np.array_equal(c.numpy(), d.numpy())
    tf.random.set_seed(5)
    np.testing.assert_array_equal(tf.random.normal([3]).numpy(), a.numpy())
    np.testing.assert_array_equal(tf.random.normal([3]).numpy(), b.numpy())
    np.testing.assert_array_equal(tf.random.normal([3], seed=1).numpy(), c.numpy())
    np.testing.assert_array_equal(tf.random.normal([3], seed=1).numpy(), d.numpy())


def test_op_seed_stream_does_not_depend_on_other_ops():
    tf.random.set_seed(2)
    want = tf.random.uniform([4], seed=9).numpy()
    tf.random.set_seed(2)
    tf.random.normal([10])
    tf.random.uniform([3], seed=4)
    np.testing.assert_array_equal(tf.random.uniform([4], seed=9).numpy(), want)
    tf.random.set_seed(3)  # another global seed gives another stream
    assert not np.array_equal(tf.random.uniform([4], seed=9).numpy(), want)


def test_generator_function_for_other_modules():
    tf.random.set_seed(1)
    first = tf_random.generator().random(3)
    assert isinstance(tf_random.generator(), np.random.Generator)
    tf.random.set_seed(1)
    np.testing.assert_array_equal(tf_random.generator().random(3), first)
    # with a seed: the same stream on every call (seeded Keras initializers)
    np.testing.assert_array_equal(tf_random.generator(7).random(3),
                                  tf_random.generator(7).random(3))
    assert not np.array_equal(tf_random.generator(7).random(3), tf_random.generator(8).random(3))


def test_normal_and_truncated_normal_moments():
    tf.random.set_seed(0)
    x = tf.random.normal([20000], mean=2.0, stddev=3.0)
    assert x.dtype == tf.float32 and x.shape == (20000,)
    assert abs(float(np.mean(x.numpy())) - 2.0) < 0.1
    assert abs(float(np.std(x.numpy())) - 3.0) < 0.1
    t = tf.random.truncated_normal([20000], mean=1.0, stddev=0.5, dtype=tf.float64).numpy()
    assert t.dtype == np.float64
    assert np.all(np.abs(t - 1.0) <= 1.0)
    # the std of a standard normal truncated to [-2, 2] is 0.8796
    assert abs(float(np.std(t)) / 0.5 - 0.8796) < 0.02


def test_uniform_ranges_and_dtypes():
    tf.random.set_seed(0)
    u = tf.random.uniform([2, 5000])
    assert u.dtype == tf.float32 and 0.0 <= float(np.min(u.numpy())) and np.max(u.numpy()) < 1
    u = tf.random.uniform([5000], -3.0, -1.0, dtype=tf.float64).numpy()
    assert np.all((u >= -3) & (u < -1)) and abs(u.mean() + 2) < 0.05
    i = tf.random.uniform([5000], 2, 5, dtype=tf.int32)
    assert i.dtype == tf.int32 and set(np.unique(i.numpy())) == {2, 3, 4}
    assert tf.random.uniform([], dtype=tf.float16).dtype == tf.float16


def test_distribution_parameters_get_gradients():
    mean, stddev = tf.Variable(1.0), tf.Variable(2.0)
    with tf.GradientTape() as tape:
        x = tf.random.normal([5], mean=mean, stddev=stddev, seed=1)
        y = tf.reduce_sum(x)
    g_mean, g_std = tape.gradient(y, [mean, stddev])
    assert float(g_mean) == 5.0
    np.testing.assert_allclose(float(g_std), float(np.sum((x.numpy() - 1.0) / 2.0)),
                               rtol=1e-5)


def test_shuffle_permutes_rows():
    x = np.arange(20).reshape(10, 2)
    tf.random.set_seed(4)
    s = tf.random.shuffle(x).numpy()
    assert sorted(s[:, 0].tolist()) == list(range(0, 20, 2))
    np.testing.assert_array_equal(s[:, 1], s[:, 0] + 1)
    tf.random.set_seed(4)
    np.testing.assert_array_equal(tf.random.shuffle(x).numpy(), s)


def test_categorical():
    tf.random.set_seed(0)
    logits = np.log(np.array([[0.2, 0.5, 0.3], [1.0, 1e-30, 1e-30]]))
    s = tf.random.categorical(logits, 20000)
    assert s.dtype == tf.int64 and s.shape == (2, 20000)
    freq = np.bincount(s.numpy()[0], minlength=3) / 20000
    np.testing.assert_allclose(freq, [0.2, 0.5, 0.3], atol=0.02)
    assert np.all(s.numpy()[1] == 0)
    blocked = tf.random.categorical([[0.0, -np.inf]], 50, dtype=tf.int32)
    assert blocked.dtype == tf.int32 and np.all(blocked.numpy() == 0)


def test_generator_class():
    a = tf.random.Generator.from_seed(3)
    b = tf.random.Generator.from_seed(3)
    np.testing.assert_array_equal(a.normal([4]).numpy(), b.normal([4]).numpy())
    assert not np.array_equal(a.uniform([4]).numpy(), a.uniform([4]).numpy())
    assert a.uniform([3], 0, 10, dtype=tf.int64).dtype == tf.int64
    t = a.truncated_normal([1000]).numpy()
    assert np.all(np.abs(t) <= 2)


@pytest.mark.parametrize("fn, error, match", [
    (lambda: tf.random.uniform([2], dtype=tf.int32), ValueError, "Must specify maxval"),
    (lambda: tf.random.uniform([2], 5, 5, dtype=tf.int32), InvalidArgumentError,
     "Need minval < maxval: 5 >= 5"),
    (lambda: tf.random.normal([2], dtype=tf.int32), InvalidArgumentError,
     "attr 'dtype' of int32 is not in the list"),
    (lambda: tf.random.normal([2, -1]), InvalidArgumentError, "negative dimension"),
    (lambda: tf.random.categorical([1.0, 2.0], 3), InvalidArgumentError,
     "logits should be a matrix"),
    (lambda: tf.random.shuffle(3.0), InvalidArgumentError, "rank >= 1"),
])
def test_bad_input(fn, error, match):
    with pytest.raises(error, match=match):
        fn()
