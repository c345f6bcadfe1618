"""tf.init_scope: inside a traced function its code runs once, eagerly, while
tracing, unrecorded (TF lifts it out of the function-building graph); the
function's tensors are refused under it with TF's TypeError; tapes do not
record under it, in or out of a traced function."""

import pytest
import tapeflow as tf


def test_code_under_init_scope_runs_once_at_trace_time():
    v = tf.Variable(0)
    calls = []

    @tf.function
    def f(x):
        with tf.init_scope():
            calls.append(1)
            v.assign_add(1)  # not an effect of the graph: not replayed
            c = tf.constant(10) * 2  # a constant of the graph
        return x + c + v

    assert f(tf.constant(1)).numpy() == 22
    assert f(tf.constant(2)).numpy() == 23
    assert f(tf.constant(3)).numpy() == 24
    assert int(v.numpy()) == 1 and calls == [1]


def test_assignment_outside_init_scope_still_runs_at_every_call():
    v = tf.Variable(0)

    @tf.function
    def f():
        with tf.init_scope():
            v.assign_add(10)
        v.assign_add(1)
        return v + 0

    assert [int(f().numpy()) for _ in range(3)] == [11, 12, 13]


def test_a_variable_may_be_created_under_init_scope_on_a_retrace():
    made = []

    @tf.function
    def f(x):
        with tf.init_scope():
            made.append(tf.Variable(float(len(made))))
        return x * 2.0

    assert f(tf.constant(1.0)).numpy() == 2.0
    assert f(tf.constant([1.0, 2.0])).numpy().tolist() == [2.0, 4.0]  # a retrace
    assert [float(m.numpy()) for m in made] == [0.0, 1.0]


def test_the_function_tensors_are_refused_under_init_scope():
    @tf.function
    def f(x):
        y = x * 2
        with tf.init_scope():
            return y + 1

    with pytest.raises(TypeError, match="under tf.init_scope was given a tensor computed "
                                        r"inside the traced function \(f\)"):
        f(tf.constant(1))

    @tf.function
    def g(x):
        with tf.init_scope():
            return int(x.numpy())

    with pytest.raises(TypeError, match="tf.init_scope runs once, eagerly"):
        g(tf.constant(1))


def test_init_scope_pauses_tapes_eagerly_and_in_a_trace():
    x = tf.Variable(3.0)
    with tf.GradientTape(persistent=True) as tape:
        with tf.init_scope():
            y = x * x
        z = x * 2.0
    assert tape.gradient(y, x) is None
    assert float(tape.gradient(z, x)) == 2.0

    @tf.function
    def f():
        with tf.GradientTape() as inner:
            with tf.init_scope():
                a = x * x
            b = x * x + a
        return inner.gradient(b, x)

    assert float(f()) == 6.0  # only b's own x * x
    assert float(f()) == 6.0


def test_a_tf_function_called_under_init_scope_runs_as_at_top_level():
    @tf.function
    def inner(x):
        return x + 1

    @tf.function
    def outer(x):
        with tf.init_scope():
            c = inner(tf.constant(1))
        return x + c

    assert outer(tf.constant(1)).numpy() == 3
    assert outer(tf.constant(5)).numpy() == 7
    assert inner.experimental_get_tracing_count() == 1
