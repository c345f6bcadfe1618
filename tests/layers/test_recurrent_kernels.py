"""The fused recurrent ops inside SimpleRNN, LSTM, GRU and Bidirectional give
the composed loop's values and gradients (layers/recurrent.py's `_FUSED =
False`, one recorded op per gate per step, is the reference), to float32
rounding, over masking, go_backwards, return_sequences/return_state,
initial_state, stateful, recurrent dropout and GRU's reset_after; and the
layers fall back to the composed loop where a second-order gradient may be
taken."""

import warnings

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.layers import recurrent
from tapeflow.layers.recurrent import GRU, LSTM, SimpleRNN

RNG = np.random.default_rng(7)
MASK = np.array([[1, 1, 1, 0, 0, 1], [1, 0, 1, 1, 0, 0], [0, 0, 1, 1, 1, 1]], bool)


def _run(layer, x, fused, **call):
    """The layer's outputs and the gradients of a weighted sum of them."""
    recurrent._FUSED = fused
    try:
        xt = tf.constant(x)
        with tf.GradientTape() as tape:
            tape.watch(xt)
            outs = layer(xt, **call)
            outs = outs if isinstance(outs, list) else [outs]
            loss = tf.add_n([tf.reduce_sum(o * np.cos(np.arange(o.numpy().size)).reshape(
                o.shape).astype(np.float32)) for o in outs])
        grads = tape.gradient(loss, [xt] + layer.trainable_weights)
    finally:
        recurrent._FUSED = True
    return [o.numpy() for o in outs], [g.numpy() for g in grads]


def _same(layer, x, **call):
    expected_out, expected_grads = _run(layer, x, False, **call)
    got_out, got_grads = _run(layer, x, True, **call)
    for got, expected in zip(got_out + got_grads, expected_out + expected_grads):
        np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-6)
    return got_out


LAYERS = [lambda **k: SimpleRNN(4, **k), lambda **k: LSTM(4, **k), lambda **k: GRU(4, **k),
          lambda **k: GRU(4, reset_after=False, **k), lambda **k: GRU(4, use_bias=False, **k)]


@pytest.mark.parametrize("make", LAYERS, ids=["simple", "lstm", "gru", "gru_v1", "gru_nobias"])
@pytest.mark.parametrize("go_backwards", [False, True])
@pytest.mark.parametrize("masked", [False, True])
def test_fused_equals_composed(make, go_backwards, masked):
    x = RNG.standard_normal((3, 6, 5)).astype(np.float32)
    layer = make(return_sequences=True, return_state=True, go_backwards=go_backwards)
    layer(x)
    layer.set_weights([RNG.standard_normal(w.shape) * 0.5 for w in layer.get_weights()])
    _same(layer, x, mask=MASK if masked else None)
    last = make(go_backwards=go_backwards)
    last(x)
    last.set_weights(layer.get_weights())
    _same(last, x, mask=MASK if masked else None)


def test_zero_output_for_mask_and_initial_state():
    x = RNG.standard_normal((3, 6, 2)).astype(np.float32)
    layer = LSTM(3, return_sequences=True, return_state=True, zero_output_for_mask=True)
    h0 = RNG.standard_normal((3, 3)).astype(np.float32)
    c0 = RNG.standard_normal((3, 3)).astype(np.float32)
    out = _same(layer, x, mask=MASK, initial_state=[h0, c0])
    np.testing.assert_array_equal(out[0][2, :2], 0)  # masked steps output zeros
    np.testing.assert_allclose(out[1][1], out[0][1, 3], rtol=1e-6)  # h held after step 3


def test_recurrent_dropout_uses_the_same_masks():
    x = RNG.standard_normal((4, 5, 3)).astype(np.float32)
    for layer in (LSTM(3, recurrent_dropout=0.4), GRU(3, recurrent_dropout=0.4),
                  SimpleRNN(3, recurrent_dropout=0.4)):
        layer(x)
        tf.random.set_seed(5)
        expected, _ = _run(layer, x, False, training=True)
        tf.random.set_seed(5)
        got, _ = _run(layer, x, True, training=True)
        np.testing.assert_allclose(got[0], expected[0], rtol=2e-5, atol=2e-6)


def test_stateful_fused_carries_states():
    x = RNG.standard_normal((2, 6, 3)).astype(np.float32)
    whole, stateful = LSTM(2), LSTM(2, stateful=True)
    whole(x)
    stateful(x[:, :3])
    stateful.set_weights(whole.get_weights())
    stateful.reset_states()
    stateful(x[:, :3])
    np.testing.assert_allclose(stateful(x[:, 3:]).numpy(), whole(x).numpy(), rtol=1e-5)


def test_bidirectional_lstm_fused_equals_composed():
    ids = np.array([[4, 2, 3, 0, 0], [1, 2, 3, 4, 2]])
    emb = tf.keras.layers.Embedding(5, 3, mask_zero=True)
    model = tf.keras.Sequential([
        emb, tf.keras.layers.Bidirectional(LSTM(4, return_sequences=True)),
        tf.keras.layers.Bidirectional(GRU(3)), tf.keras.layers.Dense(1)])
    model(ids)
    results = []
    for fused in (False, True):
        recurrent._FUSED = fused
        try:
            with tf.GradientTape() as tape:
                y = model(ids)
            grads = tape.gradient(y, model.trainable_weights)
        finally:
            recurrent._FUSED = True
        results.append([y.numpy()] + [g.numpy() for g in grads])
    for got, expected in zip(results[1], results[0]):
        np.testing.assert_allclose(got, expected, rtol=2e-5, atol=2e-6)


def test_composed_loop_under_nested_or_persistent_tapes(monkeypatch):
    # The fused ops are first order: a second tape (or a persistent one, whose gradient
    # may itself be recorded) runs the composed loop, so second order stays exact.
    calls = []
    original = LSTM._cell_class.fused
    monkeypatch.setattr(LSTM._cell_class, "fused",
                        lambda self, *a: calls.append(1) or original(self, *a))
    layer = LSTM(2)
    x = tf.constant(RNG.standard_normal((2, 3, 2)).astype(np.float32))
    layer(x)
    assert len(calls) == 1
    with tf.GradientTape() as outer:
        outer.watch(x)
        with tf.GradientTape() as inner:
            inner.watch(x)
            y = layer(x)
        g = inner.gradient(y, x)
    assert outer.gradient(g, x) is not None and len(calls) == 1
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        layer(x)
    assert len(calls) == 1
    with tf.GradientTape() as tape:
        tape.watch(x)
        layer(x)
    assert len(calls) == 2


def test_other_activations_run_composed():
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    layer = LSTM(3, activation="relu", return_sequences=True)
    _same(layer, x)
    xw = tf.zeros((2, 4, 12))
    assert layer.cell.fused(xw, None, None, None, False) is None
    float16 = LSTM(3)
    float16(x)
    assert float16.cell.fused(tf.cast(xw, "float16"), None, None, None, False) is None


def test_fused_gradients_trace_in_tf_function():
    # The VJP is an op (lstm_sequence_grad), so a traced step replays it on new values.
    layer = tf.keras.layers.Bidirectional(LSTM(3, return_sequences=True))
    x = tf.constant(RNG.standard_normal((2, 5, 4)).astype(np.float32))
    layer(x)

    def step(x):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(layer(x) ** 2)
        return y, tape.gradient(y, layer.trainable_weights)
    traced = tf.function(step)
    traced(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        y, grads = traced(x * 2)
    expected_y, expected = step(x * 2)
    np.testing.assert_allclose(y.numpy(), expected_y.numpy(), rtol=1e-6)
    for got, want in zip(grads, expected):
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-6, atol=1e-7)
