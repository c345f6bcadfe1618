"""SimpleRNN, LSTM, GRU and RNN(cell): values against step-by-step NumPy loops
of Keras's equations with weights set by set_weights, return_sequences /
return_state / go_backwards / masking / initial_state / stateful, float64
gradients (check_layer) and bad input."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.layers import check_layer
from tapeflow.layers.recurrent import GRU, LSTM, RNN, GRUCell, LSTMCell, SimpleRNN

RNG = np.random.default_rng(3)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_simple_rnn_step(x, states, w):
    kernel, recurrent, bias = w
    h = np.tanh(x @ kernel + states[0] @ recurrent + bias)
    return h, [h]


def np_lstm_step(x, states, w):
    kernel, recurrent, bias = w
    h, c = states
    z = x @ kernel + h @ recurrent + bias
    i, f, g, o = np.split(z, 4, axis=-1)
    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    h = sigmoid(o) * np.tanh(c)
    return h, [h, c]


def np_gru_step(x, states, w, reset_after=True):
    kernel, recurrent, bias = w
    h = states[0]
    u = h.shape[-1]
    if reset_after:
        mx = x @ kernel + bias[0]
        mi = h @ recurrent + bias[1]
        z = sigmoid(mx[:, :u] + mi[:, :u])
        r = sigmoid(mx[:, u:2 * u] + mi[:, u:2 * u])
        hh = np.tanh(mx[:, 2 * u:] + r * mi[:, 2 * u:])
    else:
        mx = x @ kernel + bias
        z = sigmoid(mx[:, :u] + h @ recurrent[:, :u])
        r = sigmoid(mx[:, u:2 * u] + h @ recurrent[:, u:2 * u])
        hh = np.tanh(mx[:, 2 * u:] + (r * h) @ recurrent[:, 2 * u:])
    h = z * h + (1 - z) * hh
    return h, [h]


def np_rnn(step, x, w, states, mask=None, go_backwards=False, zero_output_for_mask=False):
    """Keras's loop: masked steps keep the states and repeat the previous output."""
    steps = range(x.shape[1])[::-1] if go_backwards else range(x.shape[1])
    outputs, previous = [], np.zeros_like(states[0])
    for t in steps:
        out, new = step(x[:, t], states, w)
        if mask is not None:
            m = mask[:, t:t + 1]
            out = np.where(m, out, 0 if zero_output_for_mask else previous)
            new = [np.where(m, n, s) for n, s in zip(new, states)]
        states, previous = new, out
        outputs.append(out)
    return np.stack(outputs, axis=1), states


def _weights(layer, x, scale=0.5):
    layer(x)  # build
    values = [RNG.standard_normal(w.shape) * scale for w in layer.get_weights()]
    layer.set_weights(values)
    return [v.astype(np.float64) for v in values]


CASES = [(SimpleRNN, np_simple_rnn_step, 1), (LSTM, np_lstm_step, 2),
         (GRU, np_gru_step, 1)]


@pytest.mark.parametrize("cls,step,n_states", CASES)
def test_recurrent_values_all_options(cls, step, n_states):
    x = RNG.standard_normal((3, 5, 4)).astype(np.float32)
    for go_backwards in (False, True):
        layer = cls(3, return_sequences=True, return_state=True, go_backwards=go_backwards)
        w = _weights(layer, x)
        outs = layer(x)
        assert isinstance(outs, list) and len(outs) == 1 + n_states
        seq, states = np_rnn(step, x.astype(np.float64), w,
                             [np.zeros((3, 3))] * n_states, go_backwards=go_backwards)
        np.testing.assert_allclose(outs[0].numpy(), seq, rtol=1e-5, atol=1e-5)
        for got, expected in zip(outs[1:], states):
            np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-5)
        last = cls(3, go_backwards=go_backwards)
        last(x)
        last.set_weights(w)
        np.testing.assert_allclose(last(x).numpy(), seq[:, -1], rtol=1e-5, atol=1e-5)


def test_weight_shapes_and_order():
    x = np.zeros((1, 2, 5), np.float32)
    lstm, gru, gru_v1, rnn = LSTM(3), GRU(3), GRU(3, reset_after=False), SimpleRNN(3)
    for layer in (lstm, gru, gru_v1, rnn):
        layer(x)
    assert [w.shape for w in lstm.get_weights()] == [(5, 12), (3, 12), (12,)]
    assert [w.shape for w in gru.get_weights()] == [(5, 9), (3, 9), (2, 9)]
    assert [w.shape for w in gru_v1.get_weights()] == [(5, 9), (3, 9), (9,)]
    assert [w.shape for w in rnn.get_weights()] == [(5, 3), (3, 3), (3,)]
    # unit_forget_bias: the forget-gate block of the bias starts at 1.
    np.testing.assert_array_equal(lstm.get_weights()[2], [0] * 3 + [1] * 3 + [0] * 6)
    assert lstm.units == 3 and lstm.cell.unit_forget_bias


def test_lstm_keras_weights_documented_values():
    # All weights constant: z = 0.1 * sum(x) + 0.1 * sum(h) per gate, easy to follow by hand.
    layer = LSTM(2, kernel_initializer="ones", recurrent_initializer="ones",
                 unit_forget_bias=False)
    x = np.array([[[0.1, 0.2], [0.3, 0.4]]], np.float32)
    layer(x)
    layer.set_weights([np.full((2, 8), 0.1), np.full((2, 8), 0.1), np.zeros(8)])
    z1 = 0.1 * 0.3
    c1 = sigmoid(z1) * np.tanh(z1)
    h1 = sigmoid(z1) * np.tanh(c1)
    z2 = 0.1 * 0.7 + 0.1 * 2 * h1
    c2 = sigmoid(z2) * c1 + sigmoid(z2) * np.tanh(z2)
    h2 = sigmoid(z2) * np.tanh(c2)
    np.testing.assert_allclose(layer(x).numpy(), [[h2, h2]], rtol=1e-6)


def test_gru_reset_before_values():
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    layer = GRU(2, reset_after=False, return_sequences=True)
    w = _weights(layer, x)
    seq, _ = np_rnn(lambda a, s, ww: np_gru_step(a, s, ww, reset_after=False),
                    x.astype(np.float64), w, [np.zeros((2, 2))])
    np.testing.assert_allclose(layer(x).numpy(), seq, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("cls,step,n_states", CASES)
def test_recurrent_masking(cls, step, n_states):
    x = RNG.standard_normal((3, 5, 2)).astype(np.float32)
    mask = np.array([[1, 1, 1, 0, 0], [1, 0, 1, 1, 0], [0, 0, 1, 1, 1]], bool)
    for go_backwards in (False, True):
        layer = cls(3, return_sequences=True, return_state=True, go_backwards=go_backwards)
        w = _weights(layer, x)
        outs = layer(x, mask=mask)
        seq, states = np_rnn(step, x.astype(np.float64), w, [np.zeros((3, 3))] * n_states,
                             mask=mask, go_backwards=go_backwards)
        np.testing.assert_allclose(outs[0].numpy(), seq, rtol=1e-5, atol=1e-5)
        for got, expected in zip(outs[1:], states):
            np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-5)
        if not go_backwards:
            # A masked step's output is the previous output (zeros before the first real
            # step).
            np.testing.assert_array_equal(outs[0].numpy()[2, :2], 0)
            np.testing.assert_array_equal(outs[0].numpy()[0, 4], outs[0].numpy()[0, 2])


def test_mask_from_embedding_and_padding_gives_last_real_output():
    ids = np.array([[4, 2, 3, 0, 0], [1, 2, 3, 4, 2]])
    emb = tf.keras.layers.Embedding(5, 3, mask_zero=True)
    lstm = LSTM(4)
    out = lstm(emb(ids))
    unpadded = lstm(emb(ids[:1, :3]))
    np.testing.assert_allclose(out.numpy()[0], unpadded.numpy()[0], rtol=1e-5, atol=1e-6)
    seq_layer = LSTM(4, return_sequences=True)
    seq_out = seq_layer(emb(ids))
    assert tf.keras.layers.get_keras_mask(seq_out) is not None
    np.testing.assert_array_equal(seq_out.numpy()[0, 3], seq_out.numpy()[0, 2])


def test_initial_state_and_stateful():
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    layer = LSTM(2, return_state=True)
    w = _weights(layer, x)
    h0, c0 = RNG.standard_normal((2, 2)), RNG.standard_normal((2, 2))
    out, h, c = layer(x, initial_state=[h0.astype(np.float32), c0.astype(np.float32)])
    _, (eh, ec) = np_rnn(np_lstm_step, x.astype(np.float64), w, [h0, c0])
    np.testing.assert_allclose(h.numpy(), eh, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(c.numpy(), ec, rtol=1e-5, atol=1e-5)
    # Stateful: two halves in a row give the same final state as the whole sequence.
    stateful = GRU(2, stateful=True)
    whole = GRU(2)
    whole(x)
    stateful(x[:, :2])
    stateful.set_weights(whole.get_weights())
    stateful.reset_states()
    stateful(x[:, :2])
    np.testing.assert_allclose(stateful(x[:, 2:]).numpy(), whole(x).numpy(), rtol=1e-5,
                               atol=1e-6)
    stateful.reset_states()
    np.testing.assert_allclose(stateful(x[:, :2]).numpy(), whole(x[:, :2]).numpy(), rtol=1e-5)


def test_dropout_only_in_training():
    x = RNG.standard_normal((4, 5, 3)).astype(np.float32)
    layer = LSTM(3, dropout=0.5, recurrent_dropout=0.5)
    inference = layer(x).numpy()
    np.testing.assert_array_equal(layer(x, training=False).numpy(), inference)
    assert not np.allclose(layer(x, training=True).numpy(), inference)


def test_rnn_with_cell_matches_layer():
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    generic, lstm = RNN(LSTMCell(2), return_sequences=True), LSTM(2, return_sequences=True)
    generic(x)
    lstm(x)
    generic.set_weights(lstm.get_weights())
    np.testing.assert_allclose(generic(x).numpy(), lstm(x).numpy(), rtol=1e-6)
    # The Keras one-step API of a cell.
    cell = GRUCell(2)
    h, state = cell(x[:, 0], [np.zeros((2, 2), np.float32)])
    expected, _ = np_gru_step(x[:, 0].astype(np.float64), [np.zeros((2, 2))],
                              [w.astype(np.float64) for w in cell.get_weights()])
    np.testing.assert_allclose(h.numpy(), expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(state.numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("layer", [
    lambda: SimpleRNN(3, return_sequences=True), lambda: LSTM(2), lambda: GRU(2),
    lambda: GRU(2, reset_after=False, return_sequences=True, go_backwards=True),
    lambda: LSTM(2, return_sequences=True, go_backwards=True)], ids=repr)
def test_recurrent_check_layer(layer):
    layer = layer()
    check_layer(layer, (2, 3, 2), expected_num_trainable_weights=3)


def test_recurrent_gradients_with_mask_and_second_order():
    x = RNG.standard_normal((2, 3, 2))
    mask = np.array([[1, 1, 0], [1, 0, 1]], bool)
    layer = LSTM(2, return_sequences=True, dtype="float64")
    layer(x)
    weights = [w for w in layer.get_weights()]

    def fn(inputs, kernel, recurrent, bias):
        from tapeflow.testing.layers import functional_call
        return functional_call(layer, [kernel, recurrent, bias], inputs, mask=mask)

    tf.testing.gradcheck(fn, x, *weights, order=2)


def test_recurrent_bad_input():
    layer = LSTM(2, name="lstm_a")
    layer(np.zeros((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match=r'"lstm_a".*axis -1.*value 4.*\(2, 3, 5\)'):
        layer(np.zeros((2, 3, 5), np.float32))
    with pytest.raises(ValueError, match=r'"lstm_a".*expected ndim=3, found ndim=2'):
        layer(np.zeros((2, 4), np.float32))
    with pytest.raises(ValueError, match=r"'lstm_a'.*initial_state.*\[\(2, 2\), \(2, 2\)\]"
                                         r".*\[\(2, 3\)\]"):
        layer(np.zeros((2, 3, 4), np.float32), initial_state=[np.zeros((2, 3), np.float32)])
    with pytest.raises(ValueError, match=r"'lstm_a'.*mask.*\(2, 3\).*\(2, 4\)"):
        layer(np.zeros((2, 3, 4), np.float32), mask=np.ones((2, 4), bool))
    with pytest.raises(ValueError, match="units"):
        GRU(0)
    with pytest.raises(ValueError, match="dropout"):
        LSTM(2, dropout=1.5)
    with pytest.raises(ValueError, match="Unknown activation"):
        SimpleRNN(2, activation="tanhh")
    with pytest.raises(ValueError, match="cell"):
        RNN("lstm")


@pytest.mark.parametrize("layer", ["LSTM", "GRU", "SimpleRNN"])
def test_float16_layers_run_composed(layer):
    """float16 has no Numba kernels: the input projection adds its bias with
    NumPy and the steps run composed, in float16, as before the fused ops."""
    x = np.random.default_rng(3).standard_normal((2, 3, 5)).astype(np.float16)
    rnn = getattr(tf.keras.layers, layer)(4, dtype="float16", return_sequences=True)
    with tf.GradientTape() as tape:
        out = rnn(x)
        loss = tf.reduce_sum(out)
    grads = tape.gradient(loss, rnn.trainable_variables)
    assert out.dtype == tf.float16 and out.shape == (2, 3, 4)
    assert np.all(np.isfinite(out.numpy()))
    reference = getattr(tf.keras.layers, layer)(4, return_sequences=True)
    reference(x.astype(np.float32))
    reference.set_weights([w.astype(np.float32) for w in rnn.get_weights()])
    np.testing.assert_allclose(out.numpy(), reference(x.astype(np.float32)).numpy(), atol=1e-2)
    assert all(g is not None and g.dtype == tf.float16 for g in grads)
