"""A training step frees its arrays by reference counting alone.

A reference cycle created per step (once: a recursive closure in nest) holds
that step's gradients and activations until the cycle collector runs; the
memory then returns in bursts, and the next steps fault in fresh pages (W2:
~500 page faults and 20% of each step). Each case counts the objects that
only the cycle collector could free after a few steps: it must be zero."""

import gc

import numpy as np
import pytest

import tapeflow as tf

layers = tf.keras.layers


def _cyclic_garbage_after(fn):
    fn()  # first calls build weights, slots and caches that live on
    gc.collect()
    gc.disable()
    try:
        for _ in range(3):
            fn()
        return gc.collect()
    finally:
        gc.enable()


def _mlp():
    tf.random.set_seed(0)
    model = tf.keras.Sequential([tf.keras.Input(shape=(8,)), layers.Dense(16, activation="relu"),
                                 layers.Dense(3)])
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])
    return model


def _data(shape=(8,), n=64):
    rng = np.random.default_rng(0)
    return rng.random((n,) + shape, dtype=np.float32), rng.integers(0, 3, n).astype(np.int32)


def _tape_step(model, x, y):
    opt = tf.keras.optimizers.SGD(0.01, momentum=0.9)
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step():
        with tf.GradientTape() as tape:
            loss = loss_fn(y, model(x, training=True))
        opt.apply_gradients(zip(tape.gradient(loss, model.trainable_variables),
                                model.trainable_variables))
    return step


def test_gradient_tape_step_leaves_no_cycles():
    x, y = _data()
    assert _cyclic_garbage_after(_tape_step(_mlp(), x, y)) == 0


def test_conv_step_leaves_no_cycles():
    tf.random.set_seed(0)
    model = tf.keras.Sequential([tf.keras.Input(shape=(10, 10, 1)),
                                 layers.Conv2D(4, 3, activation="relu"), layers.MaxPooling2D(2),
                                 layers.Flatten(), layers.Dense(3)])
    x, y = _data((10, 10, 1))
    assert _cyclic_garbage_after(_tape_step(model, x, y)) == 0


def test_minimize_leaves_no_cycles():
    v = tf.Variable([1.0, 2.0])
    opt = tf.keras.optimizers.Adam(0.1)
    assert _cyclic_garbage_after(
        lambda: opt.minimize(lambda: tf.reduce_sum(v ** 2), var_list=[v])) == 0


@pytest.mark.parametrize("call", ["fit", "evaluate", "predict"])
def test_fit_evaluate_predict_leave_no_cycles(call):
    model = _mlp()
    x, y = _data()
    run = {"fit": lambda: model.fit(x, y, batch_size=16, epochs=1, verbose=0),
           "evaluate": lambda: model.evaluate(x, y, batch_size=16, verbose=0),
           "predict": lambda: model.predict(x, batch_size=16, verbose=0)}[call]
    assert _cyclic_garbage_after(run) == 0
