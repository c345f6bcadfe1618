"""Bidirectional and TimeDistributed: values against the wrapped layers run by
hand, weight order, merge modes, states and masks, gradients (check_layer) and
bad input."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.layers import check_layer
from tapeflow.layers.conv import Conv2D
from tapeflow.layers.recurrent import GRU, LSTM, SimpleRNN
from tapeflow.layers.wrappers import Bidirectional, TimeDistributed

RNG = np.random.default_rng(5)


def _pair(cls, x, **kwargs):
    """A forward and a go_backwards layer with random weights."""
    forward, backward = cls(3, **kwargs), cls(3, go_backwards=True, **kwargs)
    forward(x)
    backward(x)
    for layer in (forward, backward):
        layer.set_weights([RNG.standard_normal(w.shape) * 0.5 for w in layer.get_weights()])
    return forward, backward


@pytest.mark.parametrize("merge_mode,merge", [
    ("concat", lambda a, b: np.concatenate([a, b], -1)), ("sum", np.add),
    ("mul", np.multiply), ("ave", lambda a, b: (a + b) / 2)])
@pytest.mark.parametrize("return_sequences", [False, True])
def test_bidirectional_values(merge_mode, merge, return_sequences):
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    forward, backward = _pair(LSTM, x, return_sequences=return_sequences)
    layer = Bidirectional(LSTM(3, return_sequences=return_sequences), merge_mode=merge_mode)
    layer(x)
    layer.set_weights(forward.get_weights() + backward.get_weights())
    y, y_rev = forward(x).numpy(), backward(x).numpy()
    if return_sequences:
        y_rev = y_rev[:, ::-1]  # back to time order
    np.testing.assert_allclose(layer(x).numpy(), merge(y, y_rev), rtol=1e-5, atol=1e-6)
    assert [v.path.split("/")[0] for v in layer.weights] == ["lstm_cell"] * 6
    assert layer.forward_layer.name.startswith("forward_")
    assert layer.backward_layer.name.startswith("backward_")
    assert layer.backward_layer.go_backwards


def test_bidirectional_states_and_none_merge():
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    layer = Bidirectional(GRU(3, return_state=True), merge_mode=None)
    outs = layer(x)
    assert len(outs) == 4 and all(o.shape == (2, 3) for o in outs)
    np.testing.assert_allclose(outs[0].numpy(), outs[2].numpy())  # last output == h
    lstm = Bidirectional(LSTM(2, return_state=True))
    outs = lstm(x)
    assert [tuple(o.shape) for o in outs] == [(2, 4)] + [(2, 2)] * 4


def test_bidirectional_masked_sequences_output_zeros():
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    mask = np.array([[1, 1, 1, 0], [1, 1, 1, 1]], bool)
    layer = Bidirectional(SimpleRNN(2, return_sequences=True))
    out = layer(x, mask=mask).numpy()
    np.testing.assert_array_equal(out[0, 3], 0)  # Keras: zero_output_for_mask with sequences
    short = layer(x[:1, :3]).numpy()
    np.testing.assert_allclose(out[0, :3], short[0], rtol=1e-5, atol=1e-6)


def test_bidirectional_custom_backward_layer_and_check_layer():
    x = RNG.standard_normal((2, 3, 2))
    layer = Bidirectional(GRU(2, return_sequences=True),
                          backward_layer=SimpleRNN(2, return_sequences=True, go_backwards=True))
    out = check_layer(layer, input_data=x, expected_num_trainable_weights=6,
                      expected_output_shape=(2, 3, 4))
    assert out.shape == (2, 3, 4)
    check_layer(Bidirectional(LSTM(2), merge_mode="sum"), (2, 3, 2),
                expected_num_trainable_weights=6)


def test_time_distributed_dense_and_conv():
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    layer = TimeDistributed(tf.keras.layers.Dense(5, activation="tanh"))
    out = check_layer(layer, input_data=x, expected_output_shape=(2, 4, 5),
                      expected_num_trainable_weights=2)
    kernel, bias = layer.get_weights()
    np.testing.assert_allclose(out.numpy(), np.tanh(x @ kernel + bias), rtol=1e-5, atol=1e-6)
    images = RNG.standard_normal((2, 3, 4, 4, 1)).astype(np.float32)
    conv = TimeDistributed(Conv2D(2, 3))
    out = check_layer(conv, input_data=images, expected_output_shape=(2, 3, 2, 2, 2))
    for t in range(3):
        np.testing.assert_allclose(out.numpy()[:, t], conv.layer(images[:, t]).numpy(),
                                   rtol=1e-5, atol=1e-6)


def test_wrappers_bad_input():
    with pytest.raises(ValueError, match="Invalid merge mode"):
        Bidirectional(LSTM(2), merge_mode="max")
    with pytest.raises(ValueError, match="Layer instance"):
        Bidirectional("lstm")
    with pytest.raises(ValueError, match="go_backwards"):
        Bidirectional(LSTM(2), backward_layer=LSTM(2))
    with pytest.raises(ValueError, match="return_sequences"):
        Bidirectional(LSTM(2), backward_layer=LSTM(2, go_backwards=True,
                                                   return_sequences=True))
    with pytest.raises(ValueError, match=r"'td_a'.*rank at least 3.*\(2, 3\)"):
        TimeDistributed(tf.keras.layers.Dense(2), name="td_a")(np.zeros((2, 3), np.float32))
