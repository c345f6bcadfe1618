"""Keras models used from several threads at once: a service that trains with
`fit` in one thread and serves `predict`/`__call__` in another, and threads
that each train their own model.

Every test runs with `sys.setswitchinterval(1e-5)` (a thread switch every few
bytecodes), over several trials, and fails on any exception raised in a
thread or any wrong value.
"""

import threading

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.threads import fast_thread_switching, run_threads

X = np.random.default_rng(0).standard_normal((48, 4)).astype(np.float32)
Y = (X @ np.array([[1.0], [-2.0], [0.5], [1.5]], np.float32)).astype(np.float32)


@pytest.fixture
def fast_switching():
    with fast_thread_switching():
        yield


def make_model(seed, dropout=True):
    """Dense - BatchNormalization - (Dropout) - Dense, with an activity
    regularizer, so fit has call losses, moving statistics and random masks."""
    tf.keras.utils.set_random_seed(seed)
    layers = [tf.keras.layers.Dense(8, activation="relu", activity_regularizer="l2"),
              tf.keras.layers.BatchNormalization()]
    if dropout:
        layers.append(tf.keras.layers.Dropout(0.25))
    layers.append(tf.keras.layers.Dense(1))
    model = tf.keras.Sequential(layers)
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse", metrics=["mae"])
    return model


def fit(model, epochs=2):
    history = model.fit(X, Y, batch_size=8, epochs=epochs, verbose=0)
    return history.history, model.get_weights()


# -- fit in one thread, predict in another -----------------------------------------------
def test_predict_during_fit_never_raises_and_matches_the_weights_of_its_moment(
        fast_switching):
    """Every prediction is finite and of the right shape. A prediction made
    while no training step changed the weights (the weights read just before
    and just after it are equal) must equal, bit for bit, a prediction from a
    second model holding those weights: exact values wherever exact values
    are defined. Predictions made across a step see weights being updated in
    place, so only their shape and finiteness are defined."""
    reference = make_model(99)
    reference.predict(X[:5], verbose=0)  # built: takes weights by set_weights below
    calls = exact = 0
    for trial in range(4):
        model = make_model(trial)  # unbuilt: the first predict races fit's build
        done = threading.Event()
        stable = []

        def trainer():
            try:
                return fit(model)
            finally:
                done.set()

        def server():
            count = 0
            while not done.is_set() or count < 3:
                before = model.get_weights() if model.built else None
                out = model.predict(X[:5], verbose=0)
                direct = model(X[:5], training=False).numpy()
                assert out.shape == (5, 1) and direct.shape == (5, 1)
                assert np.isfinite(out).all() and np.isfinite(direct).all()
                after = model.get_weights()
                if before is not None and all(np.array_equal(a, b)
                                              for a, b in zip(before, after)):
                    stable.append((before, out, direct))
                count += 1
            return count

        _, count = run_threads(trainer, server)
        calls += count
        for weights, out, direct in stable:
            reference.set_weights(weights)
            np.testing.assert_array_equal(out, reference.predict(X[:5], verbose=0))
            np.testing.assert_array_equal(direct, reference(X[:5], training=False).numpy())
        exact += len(stable)
    assert calls >= 12 and exact >= 4  # the exact check really ran


def test_fit_gives_the_same_history_and_weights_while_another_thread_predicts(
        fast_switching):
    """Serving must not change training: `predict` adds no call losses to the
    ones fit collects, updates no metric and reads no random numbers, so the
    history and final weights equal those of fit alone, bit for bit."""
    def built():
        model = make_model(7)
        model.predict(X[:2], verbose=0)  # built before fit, in both runs
        return model

    alone_history, alone_weights = fit(built())
    for _ in range(3):
        model = built()
        done = threading.Event()

        def trainer():
            try:
                return fit(model)
            finally:
                done.set()

        def server():
            while not done.is_set():
                model.predict(X[:4], verbose=0)
                model(X[:3])  # training=None: inference, whatever fit's thread passes down

        (history, weights), _ = run_threads(trainer, server)
        assert history == alone_history
        for got, want in zip(weights, alone_weights):
            np.testing.assert_array_equal(got, want)


def test_two_threads_fitting_their_own_models_match_sequential_fits(fast_switching):
    def fresh(seed):
        model = make_model(seed, dropout=False)  # random masks would share one generator
        model.predict(X[:1], verbose=0)
        return model

    models = [fresh(1), fresh(2)]
    tf.keras.utils.set_random_seed(5)  # the shuffle seed every fit reads
    want = [fit(models[0]), fit(models[1])]
    for _ in range(3):
        models = [fresh(1), fresh(2)]
        tf.keras.utils.set_random_seed(5)
        got = run_threads(lambda: fit(models[0]), lambda: fit(models[1]))
        for (history, weights), model_seed in zip(got, (1, 2)):
            want_history, want_weights = want[model_seed - 1]
            assert history == want_history
            for g, w in zip(weights, want_weights):
                np.testing.assert_array_equal(g, w)


# -- the shared state of one model -------------------------------------------------------
def test_an_unbuilt_model_called_from_many_threads_is_built_once(fast_switching):
    for trial in range(10):
        model = make_model(trial)
        outs = run_threads(*[lambda: model(X[:3], training=False).numpy()] * 4)
        assert len(model.weights) == 8  # kernel, bias; gamma, beta, mean, variance; kernel, bias
        assert len({id(v) for v in model.weights}) == 8
        for out in outs[1:]:
            np.testing.assert_array_equal(out, outs[0])


class _ReportsTraining(tf.keras.layers.Layer):
    """Returns the `training` it received, passed down by the outer call."""

    def call(self, inputs, training=None):
        return tf.fill([tf.shape(inputs)[0], 1], 1.0 if training else 0.0)


class _Outer(tf.keras.Model):
    def __init__(self):
        super().__init__()
        self.inner = _ReportsTraining()

    def call(self, inputs):
        return self.inner(inputs)  # no training= here: the call context supplies it


def test_the_training_flag_is_passed_down_per_thread(fast_switching):
    model = _Outer()

    def caller(training):
        for _ in range(200):
            out = model(X[:2], training=training).numpy()
            assert out.tolist() == [[float(training)]] * 2, (training, out)
        return True

    assert run_threads(lambda: caller(True), lambda: caller(False)) == [True, True]


def test_call_losses_are_the_calling_threads_own(fast_switching):
    """`model.losses` after a call holds the activity losses of that thread's
    last call, never those of a call in another thread."""
    layer = tf.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros",
                                  activity_regularizer=tf.keras.regularizers.L1(1.0))
    inputs = {scale: np.full((2, 3), scale, np.float32) for scale in (1.0, 2.0)}
    # Each output is 3 * scale; L1 sums 4 of them and divides by the batch size, 2.
    expected = {1.0: 6.0, 2.0: 12.0}

    def caller(scale):
        for _ in range(150):
            layer(inputs[scale])
            losses = layer.losses
            assert len(losses) == 1 and float(losses[0]) == expected[scale], (scale, losses)
        return True

    assert run_threads(lambda: caller(1.0), lambda: caller(2.0)) == [True, True]


def test_a_metric_read_while_another_thread_updates_it_never_shows_half_an_update(
        fast_switching):
    """Every value is 1, so the mean read at any moment is 0 (empty) or 1;
    a new total over an old count would read e.g. 1.0001."""
    mean = tf.keras.metrics.Mean()
    done = threading.Event()

    def updater():
        try:
            for _ in range(4000):
                mean.update_state([1.0, 1.0])
                assert float(mean([1.0])) == 1.0  # __call__: this update's result
        finally:
            done.set()

    def reader():
        seen = set()
        while not done.is_set():
            seen.add(float(mean.result()))
        return seen

    _, seen = run_threads(updater, reader)
    assert seen <= {0.0, 1.0} and 1.0 in seen
    assert float(mean.count.numpy()) == 4000 * 3
