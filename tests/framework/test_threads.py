"""GradientTape across threads: each thread has its own recording stack, as in
TF, so a tape sees only the ops of the thread that opened it.

Every test runs its threads many times with `sys.setswitchinterval(1e-5)` (the
interpreter switches threads every few bytecodes), so an unlocked or shared
stack fails here rather than once in thousands of runs in a user's program.
"""

import gc
import threading
import weakref

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.threads import fast_thread_switching, run_threads
from tapeflow.core import record

TRIALS = 25


@pytest.fixture
def fast_switching():
    with fast_thread_switching():
        yield


def assert_no_tape_records():
    assert record._recording == []
    assert record.current_tapes() == []


# -- isolation ------------------------------------------------------------------------
def test_a_tape_sees_only_the_ops_and_variables_of_its_own_thread(fast_switching):
    n_a, n_b = 60, 80
    for _ in range(TRIALS):
        va, vb = tf.Variable(1.0, name="a"), tf.Variable(1.0, name="b")
        opened, b_done = threading.Event(), threading.Event()

        def thread_a():
            with tf.GradientTape() as tape:
                opened.set()
                y = tf.constant(0.0)
                for _ in range(n_a):
                    y = y * va + 1.0  # two ops: multiply, add
                b_done.wait(10)
            return tape, y

        def thread_b():
            opened.wait(10)
            y = tf.constant(0.0)
            for _ in range(n_b):
                y = y * vb + 1.0  # runs while A's tape is open: not A's
            b_done.set()
            return y

        (tape, ya), yb = run_threads(thread_a, thread_b)
        assert len(tape._records) == 2 * n_a
        assert tape.watched_variables() == (va,)
        assert float(tape.gradient(ya, va)) == float(sum(range(n_a)))
        assert float(yb) == float(n_b)
    assert_no_tape_records()


def test_two_threads_with_their_own_tapes_record_exactly_their_own_ops(fast_switching):
    n = {0: 40, 1: 70}
    for _ in range(TRIALS):
        variables = [tf.Variable(0.5), tf.Variable(0.25)]

        def worker(i):
            v = variables[i]
            with tf.GradientTape(persistent=True) as outer:
                with tf.GradientTape() as inner:
                    y = v
                    for _ in range(n[i]):
                        y = y * v
                    stack = record.current_tapes()
            grad = inner.gradient(y, v)
            return outer, inner, stack, len(outer._records), grad

        def expected_grad(i):
            v = float(variables[i].numpy())
            return (n[i] + 1) * np.float32(v) ** n[i]

        results = run_threads(lambda: worker(0), lambda: worker(1))
        for i, (outer, inner, stack, count, grad) in enumerate(results):
            assert len(stack) == 2 and stack[0] is outer and stack[1] is inner
            assert count == n[i]  # inner's ops only: the gradient ran after outer closed
            assert outer.watched_variables() == (variables[i],)
            np.testing.assert_allclose(grad.numpy(), expected_grad(i), rtol=1e-5)
    assert_no_tape_records()


def test_a_tape_does_not_keep_other_threads_outputs_alive(fast_switching):
    opened, done = threading.Event(), threading.Event()
    refs = []

    def thread_a():
        with tf.GradientTape() as tape:
            opened.set()
            done.wait(10)
        return tape

    def thread_b():
        opened.wait(10)
        v = tf.Variable(np.ones(1000, np.float32))
        y = v * 2.0
        refs.append(weakref.ref(y))
        del y
        done.set()

    tape, _ = run_threads(thread_a, thread_b)
    gc.collect()
    assert refs[0]() is None
    assert tape._records == [] and tape.watched_variables() == ()


# -- same results as one thread -------------------------------------------------------
def _train(seed, steps=15):
    """A two-layer regression trained by hand with GradientTape and SGD."""
    rng = np.random.default_rng(seed)
    x = tf.constant(rng.standard_normal((16, 5)).astype(np.float32))
    y = tf.constant(rng.standard_normal((16, 1)).astype(np.float32))
    w1 = tf.Variable(rng.standard_normal((5, 8)).astype(np.float32) * 0.3)
    w2 = tf.Variable(rng.standard_normal((8, 1)).astype(np.float32) * 0.3)
    grads_seen = []
    for _ in range(steps):
        with tf.GradientTape() as tape:
            h = tf.tanh(tf.matmul(x, w1))
            loss = tf.reduce_mean(tf.square(tf.matmul(h, w2) - y))
        g1, g2 = tape.gradient(loss, [w1, w2])
        grads_seen.append((g1.numpy().copy(), g2.numpy().copy()))
        w1.assign_sub(0.1 * g1)
        w2.assign_sub(0.1 * g2)
    return grads_seen, w1.numpy().copy(), w2.numpy().copy()


def test_two_threads_training_give_the_sequential_results_bit_for_bit(fast_switching):
    reference = [_train(1), _train(2)]
    for _ in range(8):
        results = run_threads(lambda: _train(1), lambda: _train(2))
        for got, want in zip(results, reference):
            for (g1, g2), (r1, r2) in zip(got[0], want[0]):
                assert g1 is not None and g2 is not None
                np.testing.assert_array_equal(g1, r1)
                np.testing.assert_array_equal(g2, r2)
            np.testing.assert_array_equal(got[1], want[1])
            np.testing.assert_array_equal(got[2], want[2])
    assert_no_tape_records()


# -- the stacks survive errors and per-thread controls ---------------------------------
def test_stacks_are_intact_after_exceptions_in_threads(fast_switching):
    def failing(i):
        v = tf.Variable(float(i + 1))
        for _ in range(10):
            try:
                with tf.GradientTape() as outer:
                    with tf.GradientTape(persistent=True) as inner:
                        y = v * v
                        with inner.stop_recording():
                            _ = y * y
                        raise KeyError(i)
            except KeyError:
                pass
            assert record.current_tapes() == []
            assert not outer._is_recording and not inner._is_recording
        return float(inner.gradient(y, v))

    for _ in range(TRIALS):
        results = run_threads(*[lambda i=i: failing(i) for i in range(3)])
        assert results == [2.0, 4.0, 6.0]
        assert_no_tape_records()
    v = tf.Variable(3.0)  # the main thread still works afterwards
    with tf.GradientTape() as tape:
        y = v * v
    assert float(tape.gradient(y, v)) == 6.0
    assert_no_tape_records()


def test_stop_recording_and_paused_act_on_the_calling_thread_only(fast_switching):
    for _ in range(TRIALS):
        va, vb = tf.Variable(2.0), tf.Variable(3.0)
        a_open, b_paused, a_done = threading.Event(), threading.Event(), threading.Event()

        def thread_a():
            with tf.GradientTape() as tape:
                a_open.set()
                b_paused.wait(10)
                y = va * va  # while B's tape is stopped and B is paused: still recorded
                a_done.set()
            return float(tape.gradient(y, va))

        def thread_b():
            with tf.GradientTape(persistent=True) as tape:
                a_open.wait(10)
                with tape.stop_recording(), record.paused():
                    b_paused.set()
                    a_done.wait(10)
                    hidden = vb * vb
                y = vb * vb
            return tape.gradient(hidden, vb), float(tape.gradient(y, vb))

        ga, (hidden_grad, gb) = run_threads(thread_a, thread_b)
        assert ga == 4.0 and hidden_grad is None and gb == 6.0
    assert_no_tape_records()


def test_a_gradient_taken_in_another_thread_pops_the_tape_from_its_own_stack():
    v = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = v * v
        result = run_threads(lambda: float(tape.gradient(y, v)))  # as TF: the tape stops
        assert result == [4.0]
        assert record.current_tapes() == [] and not tape._is_recording
        z = v * v  # no longer recorded
    assert tape._records is None and float(z) == 4.0
    assert_no_tape_records()


def test_a_tape_ended_inside_paused_is_not_put_back():
    x = tf.constant(3.0)
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = x * x
            with record.paused():
                assert float(inner.gradient(y, x)) == 6.0  # pops inner: it stops recording
            assert record.current_tapes() == [outer]
            z = x * y
        assert record.current_tapes() == [outer]
    assert float(outer.gradient(z, x)) == 27.0  # d(x^3)/dx, recorded on outer only
    assert_no_tape_records()


def test_stop_recording_inside_paused_leaves_the_tape_recording_afterwards():
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        with record.paused():
            with tape.stop_recording():
                hidden = x * x
            assert record.current_tapes() == []
        assert record.current_tapes() == [tape]
        y = x * x * x
    assert tape.gradient(hidden, x) is None and float(tape.gradient(y, x)) == 12.0
    assert_no_tape_records()
