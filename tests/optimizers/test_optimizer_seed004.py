"""Seed 004's optimizer loops (W1 of docs/BENCHMARKS.md): 1000 SGD(0.01) steps on
y = x^2 - 2x + 1 from x = 0 reach float32(1 - 0.98^1000) = 0.99999857."""

import numpy as np

import tapeflow as tf

EXPECTED = np.float32(0.99999857)


def _fresh():
    return tf.Variable(0.0, name="x", dtype=tf.float32)


def test_apply_gradients_loop():
    a, b, c = tf.constant(1.0), tf.constant(-2.0), tf.constant(1.0)
    x = _fresh()
    opt = tf.keras.optimizers.SGD(learning_rate=0.01)
    for _ in range(1000):
        with tf.GradientTape() as tape:
            y = a * tf.pow(x, 2) + b * x + c
        dx = tape.gradient(y, x)
        opt.apply_gradients(grads_and_vars=[(dx, x)])
    assert x.numpy() == EXPECTED
    assert float(y) == 0.0
    assert int(opt.iterations) == 1000


def test_minimize_loop():
    x = _fresh()

    def f():
        a, b, c = tf.constant(1.0), tf.constant(-2.0), tf.constant(1.0)
        return a * tf.pow(x, 2) + b * x + c

    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)
    for _ in range(1000):
        optimizer.minimize(f, [x])
    assert x.numpy() == EXPECTED
    assert float(f()) == 0.0


def test_minimize_inside_function_decorator():
    x = _fresh()
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)

    @tf.function
    def fun_to_min():
        a, b, c = tf.constant(1.0), tf.constant(-2.0), tf.constant(1.0)
        return a * tf.pow(x, 2) + b * x + c

    @tf.function
    def train(epoch, f, var):
        for _ in tf.range(epoch):
            optimizer.minimize(f, [var])
        return f()

    assert float(train(1000, fun_to_min, x)) == 0.0
    assert x.numpy() == EXPECTED


def test_manual_assign_add_loop_agrees():
    a, b, c = tf.constant(1.0), tf.constant(-2.0), tf.constant(1.0)
    x = _fresh()
    lr = tf.constant(0.01)
    for _ in range(1000):
        with tf.GradientTape() as tape:
            y = a * tf.pow(x, 2) + b * x + c
        x.assign_add(-lr * tape.gradient(y, x))
    assert x.numpy() == EXPECTED


def test_kernel_path_reaches_same_value(monkeypatch):
    """The same loop through the Numba kernel (forced for a scalar) agrees to float32 rounding."""
    from tapeflow.optimizers import _fused
    monkeypatch.setattr(_fused, "NUMPY_MAX_SIZE", -1)
    x = _fresh()
    opt = tf.keras.optimizers.SGD(learning_rate=0.01)
    for _ in range(1000):
        with tf.GradientTape() as tape:
            y = tf.pow(x, 2) - 2.0 * x + 1.0
        opt.apply_gradients([(tape.gradient(y, x), x)])
    np.testing.assert_allclose(x.numpy(), EXPECTED, rtol=0, atol=2e-7)
