"""The RNN state API: `states` of a stateful layer (Variables outside the
weights), `reset_states()` and `reset_states(states)`, state carried across
calls and across the batches of predict and fit with a fixed batch size,
`initial_state` (LSTM's [h, c], nested states of stacked cells), `RNN(cell)`
with a cell whose `state_size` is a list, `StackedRNNCells`, `return_state` --
all against NumPy loops of Keras's equations."""

import numpy as np
import pytest

import tapeflow as tf

L = tf.keras.layers
RNG = np.random.default_rng(11)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lstm_step(x, h, c, weights):
    kernel, recurrent, bias = weights
    i, f, g, o = np.split(x @ kernel + h @ recurrent + bias, 4, axis=-1)
    c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
    return sigmoid(o) * np.tanh(c), c


def gru_step(x, h, weights):
    kernel, recurrent, bias = weights
    u = h.shape[-1]
    mx, mh = x @ kernel + bias[0], h @ recurrent + bias[1]
    z = sigmoid(mx[:, :u] + mh[:, :u])
    r = sigmoid(mx[:, u:2 * u] + mh[:, u:2 * u])
    return z * h + (1 - z) * np.tanh(mx[:, 2 * u:] + r * mh[:, 2 * u:])


def np_lstm(x, weights, h, c):
    for t in range(x.shape[1]):
        h, c = lstm_step(x[:, t], h, c, weights)
    return h, c


def _weights(layer):
    return [w.astype(np.float64) for w in layer.get_weights()]


def test_stateful_states_are_variables_outside_the_weights():
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    layer = L.LSTM(2, stateful=True)
    assert layer.states is None
    out = layer(x[:, :2])
    w = _weights(layer)
    h, c = np_lstm(x[:, :2].astype(np.float64), w, np.zeros((2, 2)), np.zeros((2, 2)))
    assert len(layer.states) == 2 and all(isinstance(s, tf.Variable) for s in layer.states)
    np.testing.assert_allclose(layer.states[0].numpy(), h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(layer.states[1].numpy(), c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out.numpy(), h, rtol=1e-5, atol=1e-6)
    assert len(layer.weights) == 3 and len(layer.non_trainable_weights) == 0
    # The next call continues from there: the whole sequence's result.
    h, c = np_lstm(x[:, 2:].astype(np.float64), w, h, c)
    np.testing.assert_allclose(layer(x[:, 2:]).numpy(), h, rtol=1e-5, atol=1e-6)
    assert L.LSTM(2).states is None


def test_reset_states_zeros_or_sets_the_states():
    x = RNG.standard_normal((2, 3, 3)).astype(np.float32)
    layer = L.GRU(2, stateful=True)
    layer(x)
    layer.reset_states()
    np.testing.assert_array_equal(layer.states[0].numpy(), np.zeros((2, 2)))
    w = _weights(layer)
    h0 = RNG.standard_normal((2, 2))
    layer.reset_states(states=[h0])
    np.testing.assert_allclose(layer.states[0].numpy(), h0, rtol=1e-6)
    h = h0
    for t in range(3):
        h = gru_step(x[:, t].astype(np.float64), h, w)
    np.testing.assert_allclose(layer(x).numpy(), h, rtol=1e-5, atol=1e-6)
    layer.reset_state()  # Keras 3's name
    np.testing.assert_array_equal(layer.states[0].numpy(), 0)
    with pytest.raises(ValueError, match=r"expects states of shapes \[\(2, 2\)\], received "
                                         r"\[\(3, 2\)\]"):
        layer.reset_states(states=[np.zeros((3, 2))])
    with pytest.raises(AttributeError, match="must be stateful"):
        L.GRU(2).reset_states(states=[np.zeros((2, 2))])
    L.GRU(2).reset_states()  # nothing to reset: no error, as Keras 3


def test_stateful_batch_size_must_not_change():
    layer = L.SimpleRNN(2, stateful=True)
    layer(np.zeros((2, 3, 1), np.float32))
    with pytest.raises(ValueError, match="expected batch size 2, received 3"):
        layer(np.zeros((3, 3, 1), np.float32))


@pytest.mark.parametrize("first", [
    lambda: [tf.keras.Input(shape=(None, 1), batch_size=2), L.LSTM(3, stateful=True)],
    lambda: [L.LSTM(3, stateful=True, batch_input_shape=(2, None, 1))]], ids=["Input", "b_i_s"])
def test_stateful_predict_carries_state_across_batches(first):
    x = RNG.standard_normal((2, 6, 1)).astype(np.float32)
    model = tf.keras.Sequential(first() + [L.Dense(1)])
    whole = tf.keras.Sequential([tf.keras.Input((None, 1)), L.LSTM(3), L.Dense(1)])
    model(x[:, :1])
    whole(x[:, :1])
    whole.set_weights(model.get_weights())
    for layer in model.layers:
        if getattr(layer, "stateful", False):
            layer.reset_states()
    model.predict(x[:, :3], batch_size=2, verbose=0)
    np.testing.assert_allclose(model.predict(x[:, 3:], batch_size=2, verbose=0),
                               whole.predict(x, verbose=0), rtol=1e-5, atol=1e-6)


def test_stateful_fit_carries_state_and_reset_between_epochs_by_callback():
    x = RNG.standard_normal((4, 2, 1)).astype(np.float32)
    y = np.zeros((4, 1), np.float32)
    lstm = L.LSTM(2, stateful=True)
    model = tf.keras.Sequential([tf.keras.Input((2, 1), batch_size=2), lstm, L.Dense(1)])
    model.compile(tf.keras.optimizers.SGD(0.0), "mse")
    model.fit(x, y, batch_size=2, epochs=1, shuffle=False, verbose=0)
    # Two batches in one stateful stream: the final states are those of
    # batch 1 then batch 2 run as one sequence of 4 steps.
    w = _weights(lstm)
    h, c = np_lstm(np.concatenate([x[:2], x[2:]], axis=1).astype(np.float64), w,
                   np.zeros((2, 2)), np.zeros((2, 2)))
    np.testing.assert_allclose(lstm.states[0].numpy(), h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lstm.states[1].numpy(), c, rtol=1e-5, atol=1e-6)


def test_lstm_initial_state_and_return_state():
    x = RNG.standard_normal((2, 3, 2)).astype(np.float32)
    h0, c0 = RNG.standard_normal((2, 4)), RNG.standard_normal((2, 4))
    layer = L.LSTM(4, return_state=True)
    out, h, c = layer(x, initial_state=[h0.astype(np.float32), c0.astype(np.float32)])
    eh, ec = np_lstm(x.astype(np.float64), _weights(layer), h0, c0)
    for got, expected in ((out, eh), (h, eh), (c, ec)):
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"expects initial_state of shapes \[\(2, 4\), "
                                         r"\(2, 4\)\]"):
        layer(x, initial_state=[h0.astype(np.float32)])


class PairCell(L.Layer):
    """A cell with two states of different sizes: h (units) and a running sum (1)."""

    def __init__(self, units, **kwargs):
        super().__init__(**kwargs)
        self.units = units
        self.state_size = [units, 1]
        self.output_size = units

    def build(self, input_shape):
        self.kernel = self.add_weight(shape=(input_shape[-1], self.units), name="kernel")

    def call(self, inputs, states):
        h, total = states
        h = tf.tanh(tf.matmul(inputs, self.kernel) + h)
        return h, [h, total + tf.reduce_sum(inputs, axis=-1, keepdims=True)]


def test_rnn_of_a_cell_with_a_list_state_size():
    x = RNG.standard_normal((2, 3, 2)).astype(np.float32)
    layer = L.RNN(PairCell(3), return_state=True)
    h0 = np.full((2, 3), 0.1, np.float32)
    s0 = np.ones((2, 1), np.float32)
    out, h, total = layer(x, initial_state=[h0, s0])
    kernel = layer.cell.kernel.numpy().astype(np.float64)
    eh = h0.astype(np.float64)
    for t in range(3):
        eh = np.tanh(x[:, t] @ kernel + eh)
    np.testing.assert_allclose(out.numpy(), eh, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(h.numpy(), eh, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(total.numpy(), 1 + x.sum(axis=(1, 2))[:, None], rtol=1e-5)
    assert layer.compute_output_shape((2, 3, 2)) == [(2, 3), (2, 3), (2, 1)]


class SumCell(L.Layer):
    """A cell adding each step's feature sum to its state, of size `size`."""

    def __init__(self, size, **kwargs):
        super().__init__(**kwargs)
        self.state_size, self.output_size = size, 3

    def call(self, inputs, states):
        h = states[0] + tf.reduce_sum(inputs, axis=-1, keepdims=True)
        return h, [h]


def test_a_state_size_given_as_a_tensorshape():
    # tf.keras 2 takes TensorShape([n]) for n; it was read as a nested structure of
    # sizes, and the output grew an axis a step.
    x = np.ones((2, 5, 4), np.float32)
    expected = np.full((2, 3), 20.0, np.float32)
    for size in (3, tf.TensorShape([3]), [tf.TensorShape([3])]):
        out, h = L.RNN(SumCell(size), return_state=True)(x)
        np.testing.assert_array_equal(out.numpy(), expected)
        np.testing.assert_array_equal(h.numpy(), expected)
    with pytest.raises(NotImplementedError, match=r"state_size TensorShape\(\[2, 4\]\)"):
        L.RNN(SumCell([tf.TensorShape([3]), tf.TensorShape([2, 4])]))(x)


def test_stacked_cells_with_nested_states():
    x = RNG.standard_normal((2, 3, 2)).astype(np.float32)
    cells = [L.LSTMCell(3), L.GRUCell(2)]
    layer = L.RNN(L.StackedRNNCells(cells), return_sequences=True, return_state=True)
    assert layer.state_size == [[3, 3], 2]
    h0, c0, g0 = (RNG.standard_normal((2, n)).astype(np.float32) for n in (3, 3, 2))
    seq, lstm_states, gru_state = layer(x, initial_state=[[h0, c0], g0])
    lw, gw = _weights(cells[0]), _weights(cells[1])
    h, c, g = h0.astype(np.float64), c0.astype(np.float64), g0.astype(np.float64)
    outputs = []
    for t in range(3):
        h, c = lstm_step(x[:, t].astype(np.float64), h, c, lw)
        g = gru_step(h, g, gw)
        outputs.append(g)
    np.testing.assert_allclose(seq.numpy(), np.stack(outputs, axis=1), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lstm_states[0].numpy(), h, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(lstm_states[1].numpy(), c, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gru_state.numpy(), g, rtol=1e-5, atol=1e-6)
    assert len(layer.trainable_weights) == 6
    # A list of cells is a StackedRNNCells, and the stack rebuilds from its config.
    again = L.RNN.from_config(layer.get_config())
    assert isinstance(again.cell, L.StackedRNNCells)
    assert [type(c).__name__ for c in again.cell.cells] == ["LSTMCell", "GRUCell"]
    again(x)
    again.set_weights(layer.get_weights())
    np.testing.assert_allclose(again(x, initial_state=[[h0, c0], g0])[0].numpy(), seq.numpy(),
                               rtol=1e-6)
    assert isinstance(L.RNN([L.SimpleRNNCell(2), L.SimpleRNNCell(2)]).cell, L.StackedRNNCells)


def test_stacked_cells_stateful_and_bad_cells():
    x = RNG.standard_normal((2, 4, 2)).astype(np.float32)
    stateful = L.RNN([L.LSTMCell(2), L.SimpleRNNCell(2)], stateful=True)
    whole = L.RNN([L.LSTMCell(2), L.SimpleRNNCell(2)])
    stateful(x[:, :2])
    whole(x)
    whole.set_weights(stateful.get_weights())
    stateful.reset_states()
    stateful(x[:, :2])
    np.testing.assert_allclose(stateful(x[:, 2:]).numpy(), whole(x).numpy(), rtol=1e-5,
                               atol=1e-6)
    assert [len(s) if isinstance(s, list) else 1 for s in stateful.states] == [2, 1]
    with pytest.raises(ValueError, match="must have a `call` method and a `state_size`"):
        L.StackedRNNCells([L.Dense(2)])


def test_get_initial_state_follows_the_state_structure():
    layer = L.RNN([L.LSTMCell(3), L.GRUCell(2)])
    states = layer.get_initial_state(4)
    assert [[tuple(s.shape) for s in states[0]], tuple(states[1].shape)] == [[(4, 3), (4, 3)],
                                                                            (4, 2)]
    assert float(tf.reduce_sum(tf.abs(states[1]))) == 0.0


def test_building_a_functional_model_leaves_stateful_states_alone():
    inp = tf.keras.Input((None, 1))  # unknown batch: the states are made at the first call
    lstm = L.LSTM(2, stateful=True, bias_initializer="ones")
    model = tf.keras.Model(inp, lstm(inp))
    assert lstm.states is None
    x = RNG.standard_normal((3, 2, 1)).astype(np.float32)
    h, c = np_lstm(x.astype(np.float64), _weights(lstm), np.zeros((3, 2)), np.zeros((3, 2)))
    np.testing.assert_allclose(model.predict(x, batch_size=3, verbose=0), h, rtol=1e-5,
                               atol=1e-6)
    fixed = tf.keras.Input((None, 1), batch_size=3)
    lstm = L.LSTM(2, stateful=True, bias_initializer="ones")
    model = tf.keras.Model(fixed, lstm(fixed))
    np.testing.assert_allclose(model.predict(x, batch_size=3, verbose=0), np_lstm(
        x.astype(np.float64), _weights(lstm), np.zeros((3, 2)), np.zeros((3, 2)))[0],
        rtol=1e-5, atol=1e-6)


def test_bidirectional_stateful_states_and_reset():
    x = RNG.standard_normal((2, 3, 2)).astype(np.float32)
    layer = L.Bidirectional(L.LSTM(2, stateful=True), merge_mode="sum")
    assert layer.states is None
    layer(x)
    assert len(layer.states) == 4
    forward_w = _weights(layer.forward_layer)
    h, c = np_lstm(x.astype(np.float64), forward_w, np.zeros((2, 2)), np.zeros((2, 2)))
    np.testing.assert_allclose(layer.states[0].numpy(), h, rtol=1e-5, atol=1e-6)
    layer.reset_states()
    assert all(not np.any(s.numpy()) for s in layer.states)
    values = [RNG.standard_normal((2, 2)).astype(np.float32) for _ in range(4)]
    layer.reset_states(values)
    for got, expected in zip(layer.states, values):
        np.testing.assert_array_equal(got.numpy(), expected)


def test_model_reset_states_resets_every_stateful_layer_keras2():
    x = RNG.standard_normal((2, 3, 1)).astype(np.float32)
    model = tf.keras.Sequential([L.LSTM(2, stateful=True, return_sequences=True,
                                        batch_input_shape=(2, None, 1)),
                                 L.GRU(2, stateful=True), L.Dense(1)])
    first = model.predict(x, verbose=0)
    assert not np.allclose(model.predict(x, verbose=0), first)  # the state carried on
    model.reset_states()
    assert all(not np.any(s.numpy()) for layer in model.layers[:2] for s in layer.states)
    np.testing.assert_allclose(model.predict(x, verbose=0), first, rtol=1e-6)


class OnesStartCell(PairCell):
    """PairCell whose own initial state is h = 1 and a sum of 10 (Keras calls it)."""

    def get_initial_state(self, batch_size=None):
        return [tf.ones((batch_size, self.units)), tf.fill((batch_size, 1), 10.0)]


def test_a_cells_own_get_initial_state_starts_the_loop():
    x = RNG.standard_normal((2, 3, 2)).astype(np.float32)
    layer = L.RNN(OnesStartCell(3), return_state=True)
    out, h, total = layer(x)
    kernel = layer.cell.kernel.numpy().astype(np.float64)
    eh = np.ones((2, 3))
    for t in range(3):
        eh = np.tanh(x[:, t] @ kernel + eh)
    np.testing.assert_allclose(h.numpy(), eh, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(total.numpy(), 10 + x.sum(axis=(1, 2))[:, None], rtol=1e-5)
