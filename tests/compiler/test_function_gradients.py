"""Gradients and traced functions: a tape around a call (the replay records its
ops on the tape), tapes inside (their backward ops are traced), and optimizer
updates and assigns inside, in program order; every value against the same
code run eagerly, bitwise."""

import warnings

import numpy as np
import pytest
import tapeflow as tf
from tapeflow.testing.gradients import gradcheck


@pytest.fixture(autouse=True)
def _no_fallback():
    """Every function here must be traced and replayed, not run eagerly."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        yield


def _f(x, w):
    return tf.reduce_sum(tf.tanh(tf.matmul(x, w)) * x[:, :1])


def test_tape_around_a_traced_call_matches_eager():
    traced = tf.function(_f)
    rng = np.random.default_rng(0)
    x, w = tf.constant(rng.normal(size=(3, 2))), tf.Variable(rng.normal(size=(2, 2)))
    traced(x, w)  # traced; the calls below replay
    for fn in (traced, _f):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x, w)
        grads = tape.gradient(y, [x, w])
        if fn is traced:
            got = [g.numpy() for g in grads]
        else:
            want = [g.numpy() for g in grads]
    for a, b in zip(got, want):
        np.testing.assert_array_equal(a, b)


def test_gradcheck_through_a_traced_function_first_and_second_order():
    traced = tf.function(lambda x, y: tf.reduce_sum(tf.sin(x) * tf.exp(y) + x * x * y, axis=0))
    rng = np.random.default_rng(1)
    x, y = rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    gradcheck(traced, x, y, order=2)  # the trace itself runs under gradcheck's tapes
    assert traced.experimental_get_tracing_count() == 1


def test_tape_inside_a_traced_function():
    def grad_of_square(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x * x
        return tape.gradient(y, x)

    traced = tf.function(grad_of_square)
    for value in (1.0, 2.0, -3.0):
        assert float(traced(tf.constant(value))) == 3 * value * value
    assert traced.experimental_get_tracing_count() == 1


def test_seed_004_gradient_function():
    @tf.function
    def get_gradient(x):
        a, b, c = tf.constant(1.0), tf.constant(-2.0), tf.constant(1.0)
        x = tf.cast(x, tf.float32)
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = a * tf.pow(x, 2) + b * x + c
        return tape.gradient(y, x), y

    for x, (dy, y) in ((3, (4.0, 4.0)), (1, (0.0, 0.0)), (2, (2.0, 1.0))):
        got = get_gradient(x)
        assert (float(got[0]), float(got[1])) == (dy, y)


def test_seed_004_loop_with_optimizer_inside():
    x = tf.Variable(0.0, name="x", dtype=tf.float32)
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)

    @tf.function
    def minimizef():
        a, b, c = tf.constant(1.0), tf.constant(-2.0), tf.constant(1.0)
        for _ in tf.range(1000):
            with tf.GradientTape() as tape:
                y = a * tf.pow(x, 2) + b * x + c
            dy_dx = tape.gradient(y, x)
            optimizer.apply_gradients(grads_and_vars=[(dy_dx, x)])
        return a * tf.pow(x, 2) + b * x + c

    assert float(minimizef()) == 0.0
    assert float(x) == pytest.approx(0.99999857, abs=1e-7)
    x.assign(0.0)
    assert float(minimizef()) == 0.0  # the replay, from x = 0 again
    assert float(x) == pytest.approx(0.99999857, abs=1e-7)
    assert int(optimizer.iterations) == 2000
    assert minimizef.experimental_get_tracing_count() == 1


@pytest.mark.parametrize("optimizer_name", ["SGD", "Adam", "RMSprop"])
def test_train_step_with_optimizer_inside_matches_eager_bitwise(optimizer_name):
    def run(compiled):
        rng = np.random.default_rng(0)
        w = tf.Variable(rng.normal(size=(3, 2)).astype(np.float32))
        b = tf.Variable(np.zeros(2, np.float32))
        optimizer = getattr(tf.keras.optimizers, optimizer_name)(learning_rate=0.05)
        x = tf.constant(rng.normal(size=(8, 3)).astype(np.float32))
        y = tf.constant(rng.normal(size=(8, 2)).astype(np.float32))

        def step(x, y):
            with tf.GradientTape() as tape:
                loss = tf.reduce_mean(tf.square(tf.nn.relu(tf.matmul(x, w) + b) - y))
            grads = tape.gradient(loss, [w, b])
            optimizer.apply_gradients(zip(grads, [w, b]))
            b.assign_add(tf.ones_like(b) * 0.001)  # after the update, in program order
            return loss

        if compiled:
            step = tf.function(step)
        losses = [step(x, y).numpy() for _ in range(4)]
        return losses, w.numpy(), b.numpy()

    eager, traced = run(False), run(True)
    np.testing.assert_array_equal(np.array(eager[0]), np.array(traced[0]))
    np.testing.assert_array_equal(eager[1], traced[1])
    np.testing.assert_array_equal(eager[2], traced[2])


def test_dense_layers_inside_a_traced_step():
    def run(compiled):
        tf.keras.utils.set_random_seed(3)
        layers = [tf.keras.layers.Dense(4, activation="relu"), tf.keras.layers.Dense(1)]
        optimizer = tf.keras.optimizers.Adam(0.01)
        x = tf.constant(np.random.default_rng(0).normal(size=(8, 3)).astype(np.float32))
        y = tf.constant(np.random.default_rng(1).normal(size=(8, 1)).astype(np.float32))

        def step(x, y):
            with tf.GradientTape() as tape:
                out = layers[1](layers[0](x))
                loss = tf.reduce_mean(tf.square(out - y))
            variables = layers[0].trainable_variables + layers[1].trainable_variables
            optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))
            return loss

        if compiled:
            step = tf.function(step)
        return [float(step(x, y)) for _ in range(5)]

    assert run(True) == run(False)


def test_seed_004_as_a_while_loop_is_traced_once_and_replayed():
    """Seed 004's loop written with tf.while_loop (what AutoGraph makes of its
    `for _ in tf.range(1000)`): the body, with its tape and optimizer step, is
    traced once into a loop node, and the replay gives the seed's value."""
    x = tf.Variable(0.0)
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)
    a, b, c = tf.constant(1.0), tf.constant(-2.0), tf.constant(1.0)
    body_runs = []

    @tf.function
    def minimize(n):
        def body(i):
            body_runs.append(1)
            with tf.GradientTape() as tape:
                y = a * tf.pow(x, 2) + b * x + c
            optimizer.apply_gradients([(tape.gradient(y, x), x)])
            return i + 1

        tf.while_loop(lambda i: i < n, body, [tf.constant(0)])
        return a * tf.pow(x, 2) + b * x + c

    for _ in range(2):
        x.assign(0.0)
        assert float(minimize(tf.constant(1000))) == 0.0
        assert float(x) == pytest.approx(0.99999857, abs=1e-7)
    assert body_runs == [1]
    x.assign(0.0)
    minimize(tf.constant(10))  # another count, the same trace
    assert float(x) == pytest.approx(1 - 0.98 ** 10, rel=1e-5)
    assert minimize.experimental_get_tracing_count() == 1


def test_a_traced_conv_step_reuses_the_forwards_im2col_columns(monkeypatch):
    """A step traced with its GradientTape replays the forward and the backward:
    the filter gradient takes the im2col matrix the forward built, as eagerly
    under a tape, instead of building it again (record.replaying)."""
    from tapeflow.ops import conv as conv_ops
    from tapeflow.runtime import calibration
    given = []
    real = conv_ops._conv_filt

    def spy(*args, cols=None, **kwargs):
        given.append(cols is not None)
        return real(*args, cols=cols, **kwargs)

    monkeypatch.setattr(conv_ops, "_conv_filt", spy)
    layer = tf.keras.layers.Conv2D(4, 3, activation="relu")
    x = tf.constant(np.random.default_rng(0).normal(size=(2, 6, 6, 3)).astype(np.float32))

    def step(x):
        with tf.GradientTape() as tape:
            loss = tf.reduce_sum(layer(x) ** 2)
        return tape.gradient(loss, layer.trainable_variables)

    with calibration.forced(conv="im2col"):
        eager = step(x)
        traced = tf.function(step)
        traced(x)  # the trace
        del given[:]
        for _ in range(3):
            got = traced(x)
    assert given == [True, True, True]
    for a, b in zip(got, eager):
        np.testing.assert_array_equal(a.numpy(), b.numpy())
