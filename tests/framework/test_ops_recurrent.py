"""ops/recurrent.py's fused time loops: values against plain NumPy loops of
Keras's equations (also on transposed and sliced inputs), float64
finite-difference gradients of every input (first order: the VJPs are ndarray
loops, see the module) with masks, recurrent dropout masks, zero outputs for
masked steps, an empty batch and no steps, and the jacobian's batched
cotangents."""

import gc
import threading
import weakref

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.kernels import recurrent as recurrent_kernels
from tapeflow.kernels import recurrent_threads
from tapeflow.ops import recurrent as recurrent_ops
from tapeflow.ops.recurrent import gru_sequence, lstm_sequence, simple_rnn_sequence
from tapeflow.testing.gradients import Case

_RNG = np.random.default_rng(5)
MASK = np.array([[1, 0, 1, 1], [0, 0, 1, 0]], bool)
RMASK = np.array([[2.0, 0.0], [0.0, 2.0]])


def _r(*shape, scale=0.7):
    return _RNG.standard_normal(shape) * scale


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def np_loop(step, xw, states, mask=None, zero_output_for_mask=False):
    """Keras's loop on arrays: per step output then states, (B, T, (1 + n) * U)."""
    y = np.zeros_like(states[0])
    rows = []
    for t in range(xw.shape[1]):
        new = step(xw[:, t], states)
        out = new[0]
        if mask is not None:
            m = mask[:, t:t + 1]
            out = np.where(m, out, 0 if zero_output_for_mask else y)
            new = [np.where(m, n, s) for n, s in zip(new, states)]
        y, states = out, new
        rows.append(np.concatenate([y] + states, axis=1))
    return np.stack(rows, axis=1)


def np_lstm(xw, kernel, bias, h0, c0, rmask=1.0):
    u = kernel.shape[0]

    def step(x, states):
        h, c = states
        z = x + bias + (h * rmask) @ kernel
        c = sigmoid(z[:, u:2 * u]) * c + sigmoid(z[:, :u]) * np.tanh(z[:, 2 * u:3 * u])
        return [sigmoid(z[:, 3 * u:]) * np.tanh(c), c]
    return step, [h0, c0]


def np_gru(xw, kernel, x_bias, bias, h0, reset_after=True, rmask=1.0):
    u = kernel.shape[0]

    def step(x, states):
        h = states[0]
        h_in = h * rmask
        x = x + x_bias
        if reset_after:
            inner = h_in @ kernel + bias
            z = sigmoid(x[:, :u] + inner[:, :u])
            r = sigmoid(x[:, u:2 * u] + inner[:, u:2 * u])
            hh = np.tanh(x[:, 2 * u:] + r * inner[:, 2 * u:])
        else:
            z = sigmoid(x[:, :u] + h_in @ kernel[:, :u])
            r = sigmoid(x[:, u:2 * u] + h_in @ kernel[:, u:2 * u])
            hh = np.tanh(x[:, 2 * u:] + (r * h_in) @ kernel[:, 2 * u:])
        return [z * h + (1 - z) * hh]
    return step, [h0]


def np_simple(xw, kernel, bias, h0, rmask=1.0):
    return (lambda x, states: [np.tanh(x + bias + (states[0] * rmask) @ kernel)]), [h0]


def _call(op, *tensors, **attrs):
    return op(*[tf.convert_to_tensor(t) for t in tensors], **attrs)


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_values_against_numpy(layout, masked, dtype):
    xw4, xw3, xw1 = _r(2, 4, 8), _r(2, 4, 6), _r(2, 4, 2)
    k4, k3, k1, b4, b = _r(2, 8), _r(2, 6), _r(2, 2), _r(8), _r(6)
    b3, b1 = _r(6), _r(2)  # the GRU's and the SimpleRNN's input biases
    h0, c0 = _r(2, 2), _r(2, 2)

    def lay(a):
        if layout == "transposed":
            return np.asfortranarray(a)
        if layout == "sliced":
            wide = np.zeros(tuple(2 * n for n in a.shape))
            wide[tuple(slice(None, None, 2) for _ in a.shape)] = a
            return wide[tuple(slice(None, None, 2) for _ in a.shape)]
        return a
    mask = MASK if masked else None
    cases = [(lstm_sequence, (xw4, k4, b4, h0, c0), np_lstm(xw4, k4, b4, h0, c0), {}),
             (gru_sequence, (xw3, k3, b3, b, h0), np_gru(xw3, k3, b3, b, h0), {}),
             (gru_sequence, (xw3, k3, b3, b, h0), np_gru(xw3, k3, b3, b, h0, reset_after=False),
              {"reset_after": False}),
             (simple_rnn_sequence, (xw1, k1, b1, h0), np_simple(xw1, k1, b1, h0), {})]
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for op, arrays, (step, states), attrs in cases:
        got = _call(op, *[lay(a.astype(dtype)) for a in arrays], mask=mask, **attrs).numpy()
        expected = np_loop(step, arrays[0], states, mask=mask)
        np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)


def test_zero_output_and_recurrent_mask_values():
    xw, k, bias, h0, c0 = _r(2, 4, 8), _r(2, 8), _r(8), _r(2, 2), _r(2, 2)
    got = _call(lstm_sequence, xw, k, bias, h0, c0, mask=MASK, recurrent_mask=RMASK,
                zero_output_for_mask=True).numpy()
    step, states = np_lstm(xw, k, bias, h0, c0, rmask=RMASK)
    np.testing.assert_allclose(got, np_loop(step, xw, states, MASK, True), rtol=1e-12)
    assert np.all(got[1, :2, :2] == 0)  # masked steps output zeros


def test_jacobian_batched_cotangents():
    xw, k, b, h0 = _r(2, 3, 2), _r(2, 2), _r(2), _r(2, 2)
    x = tf.constant(xw)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = simple_rnn_sequence(x, tf.constant(k), tf.constant(b), tf.constant(h0),
                                mask=MASK[:, :3])
    jac = tape.jacobian(y, x).numpy()
    eps = 1e-6
    numeric = np.zeros(y.shape + x.shape)
    for idx in np.ndindex(*xw.shape):
        up, down = xw.copy(), xw.copy()
        up[idx] += eps
        down[idx] -= eps
        diff = (_call(simple_rnn_sequence, up, k, b, h0, mask=MASK[:, :3]).numpy()
                - _call(simple_rnn_sequence, down, k, b, h0, mask=MASK[:, :3]).numpy())
        numeric[(Ellipsis,) + idx] = diff / (2 * eps)
    np.testing.assert_allclose(jac, numeric, rtol=1e-6, atol=1e-8)


def _lstm(**attrs):
    return lambda xw, k, b, h0, c0: lstm_sequence(xw, k, b, h0, c0, **attrs)


def _gru(**attrs):
    return lambda xw, k, b, rb, h0: gru_sequence(xw, k, b, rb, h0, **attrs)


def _simple(**attrs):
    return lambda xw, k, b, h0: simple_rnn_sequence(xw, k, b, h0, **attrs)


def _lstm_args(b, t):
    return _r(b, t, 8), _r(2, 8), _r(8), _r(b, 2), _r(b, 2)


def _gru_args(b, t):
    return _r(b, t, 6), _r(2, 6), _r(6), _r(6), _r(b, 2)


def _simple_args(b, t):
    return _r(b, t, 2), _r(2, 2), _r(2), _r(b, 2)


GRADCHECK_CASES = [
    Case("lstm_sequence", _lstm(), *_lstm_args(2, 4), order=1),
    Case("lstm_sequence_masked", _lstm(mask=MASK, recurrent_mask=RMASK), *_lstm_args(2, 4),
         order=1),
    Case("lstm_sequence_zero_output", _lstm(mask=MASK, zero_output_for_mask=True),
         *_lstm_args(2, 4), order=1),
    Case("lstm_sequence_transposed_input",
         lambda xw, k, b, h0, c0: lstm_sequence(tf.transpose(xw, [1, 0, 2]), k, b, h0, c0),
         _r(4, 2, 8), *_lstm_args(2, 4)[1:], order=1),
    Case("lstm_sequence_empty_batch", _lstm(), *_lstm_args(0, 3), order=1),
    Case("lstm_sequence_no_steps", _lstm(), *_lstm_args(2, 0), order=1),
    Case("gru_sequence", _gru(), *_gru_args(2, 4), order=1),
    Case("gru_sequence_masked", _gru(mask=MASK, recurrent_mask=RMASK), *_gru_args(2, 4),
         order=1),
    Case("gru_sequence_reset_before", _gru(reset_after=False, mask=MASK, recurrent_mask=RMASK),
         *_gru_args(2, 4), order=1),
    Case("gru_sequence_zero_output", _gru(mask=MASK, zero_output_for_mask=True),
         *_gru_args(2, 4), order=1),
    Case("gru_sequence_empty", _gru(), *_gru_args(0, 0), order=1),
    Case("simple_rnn_sequence", _simple(), *_simple_args(2, 4), order=1),
    Case("simple_rnn_sequence_masked", _simple(mask=MASK, recurrent_mask=RMASK),
         *_simple_args(2, 4), order=1),
    Case("simple_rnn_sequence_empty", _simple(), *_simple_args(0, 2), order=1),
    Case("simple_rnn_sequence_no_steps", _simple(), *_simple_args(3, 0), order=1),
]


@pytest.mark.parametrize("case", GRADCHECK_CASES, ids=repr)
def test_gradcheck(case):
    case.check()


# -- the LSTM's and the GRU's products, kept by the forward for its backward ----------------
_PRE_POSITION = {"lstm_forward": 9, "lstm_backward": 2, "gru_forward": 10, "gru_backward": 2}


def _pre_shapes(monkeypatch):
    """The shape of the kept-products array each LSTM and GRU kernel call is given."""
    seen = []

    def run(kernel, *args):
        if kernel.__name__ in _PRE_POSITION:
            seen.append((kernel.__name__, args[_PRE_POSITION[kernel.__name__]].shape))
        return real(kernel, *args)
    real = recurrent_threads.run
    monkeypatch.setattr(recurrent_threads, "run", run)
    return seen


def _lstm_step(xw, k, bias, h0, c0, g, **masks):
    tensors = [tf.constant(a) for a in (xw, k, bias, h0, c0)]
    with tf.GradientTape() as tape:
        tape.watch(tensors)
        loss = tf.reduce_sum(lstm_sequence(*tensors, **masks) * g)
    return [t.numpy() for t in tape.gradient(loss, tensors)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lstm_backward_reads_what_its_forward_kept(monkeypatch, dtype):
    b, t, u = 33, 6, 4  # two slices of the batch on two threads
    xw, k, bias, h0, c0 = (_r(*s).astype(dtype) for s in ((b, t, 4 * u), (u, 4 * u), (4 * u,),
                                                           (b, u), (b, u)))
    g = _r(b, t, 3 * u).astype(dtype)
    masks = {"mask": _RNG.random((b, t)) < 0.8,
             "recurrent_mask": np.where(_RNG.random((b, u)) < 0.3, 0, 2).astype(dtype)}
    seen = _pre_shapes(monkeypatch)
    kept = _lstm_step(xw, k, bias, h0, c0, g, **masks)
    assert seen == [("lstm_forward", (b, t, 4 * u)), ("lstm_backward", (b, t, 4 * u))]
    seen.clear()
    monkeypatch.setattr(recurrent_ops, "_kept", lambda out, operands, weights, shape:
                        np.empty(shape, out.dtype))
    again = _lstm_step(xw, k, bias, h0, c0, g, **masks)
    assert seen[1] == ("lstm_backward", (b, 0, 4 * u))
    for a, c in zip(kept, again):  # the same product on the same rows: the same bits
        np.testing.assert_array_equal(a, c)


def test_lstm_keeps_nothing_untaped_and_forgets_with_its_output(monkeypatch):
    xw, k, bias, h0, c0 = _r(2, 3, 8), _r(2, 8), _r(8), _r(2, 2), _r(2, 2)
    seen = _pre_shapes(monkeypatch)
    before = len(recurrent_ops._KEPT)
    _call(lstm_sequence, xw, k, bias, h0, c0)
    assert seen == [("lstm_forward", (2, 0, 8))] and len(recurrent_ops._KEPT) == before
    with tf.GradientTape() as tape:
        out = _call(lstm_sequence, xw, k, bias, h0, c0)
    assert len(recurrent_ops._KEPT) == before + 1
    del out, tape
    gc.collect()
    assert len(recurrent_ops._KEPT) == before


def test_lstm_kept_pre_activations_serve_only_their_own_operands():
    xw, k, bias, h0, c0 = _r(2, 3, 8), _r(2, 8), _r(8), _r(2, 2), _r(2, 2)
    with tf.GradientTape():
        tensors = [tf.constant(a) for a in (xw, k, bias, h0, c0)]
        out = lstm_sequence(*tensors)._value
    operands = tuple(t._value for t in tensors) + (None, None)
    weights = [operands[1], operands[2]]
    assert recurrent_ops._kept(out, operands, weights, (2, 0, 8)).shape == (2, 3, 8)
    for i in range(len(operands)):  # another array in any place: computed again
        other = list(operands)
        other[i] = None if other[i] is not None else np.ones(1)
        assert recurrent_ops._kept(out, tuple(other), weights, (2, 0, 8)).shape == (2, 0, 8)
    for i in range(2):  # a weight's values changed: computed again
        moved = list(weights)
        moved[i] = moved[i] + 1
        assert recurrent_ops._kept(out, operands, moved, (2, 0, 8)).shape == (2, 0, 8)
    assert recurrent_ops._kept(np.empty(1), operands, weights, (2, 0, 8)).shape == (2, 0, 8)


@pytest.mark.parametrize("sequence, weight", [("lstm", 1), ("lstm", 2), ("gru", 1), ("gru", 2),
                                              ("gru", 3)])
def test_a_weight_assigned_in_place_is_read_as_it_is(monkeypatch, sequence, weight):
    """A Variable updated in place between the forward and the backward (an
    optimizer step under a persistent tape): the kept products are not used, and
    the gradient is the recomputation's from the new values, as every op's here
    (README: where tapeflow differs)."""
    b, t, u = 3, 5, 2
    gates = 4 if sequence == "lstm" else 3
    xw = tf.constant(_r(b, t, gates * u))
    weights = [tf.Variable(_r(u, gates * u)), tf.Variable(_r(gates * u))]  # kernel, bias
    if sequence == "gru":
        weights.append(tf.Variable(_r(gates * u)))  # the recurrent bias
    states = [tf.constant(_r(b, u)) for _ in range(2 if sequence == "lstm" else 1)]
    op = lstm_sequence if sequence == "lstm" else gru_sequence
    moved = weights[weight - 1]

    start = moved.numpy()

    def gradient():
        moved.assign(start)
        with tf.GradientTape(persistent=True) as tape:
            tape.watch(xw)
            loss = tf.reduce_sum(op(xw, *weights, *states) ** 2)
        moved.assign_add(np.full(moved.shape, 0.25))
        return tape.gradient(loss, xw).numpy()
    seen = _pre_shapes(monkeypatch)
    read = gradient()
    assert seen[1] == (f"{sequence}_backward", (b, 0, gates * u))
    monkeypatch.setattr(recurrent_ops, "_kept", lambda out, operands, weights, shape:
                        np.empty(shape, out.dtype))
    np.testing.assert_array_equal(read, gradient())


def test_only_a_tape_in_the_calling_thread_keeps(monkeypatch):
    xw, k, bias, h0, c0 = _r(2, 3, 8), _r(2, 8), _r(8), _r(2, 2), _r(2, 2)
    recording, done = threading.Event(), threading.Event()

    def other_thread():
        with tf.GradientTape():
            recording.set()
            done.wait(10)
    worker = threading.Thread(target=other_thread)
    worker.start()
    try:
        recording.wait(10)
        seen = _pre_shapes(monkeypatch)
        _call(lstm_sequence, xw, k, bias, h0, c0)
        assert seen == [("lstm_forward", (2, 0, 8))]
    finally:
        done.set()
        worker.join()


@pytest.mark.parametrize("steps", [1, 2])
def test_run_names_kept_products_of_another_length(steps):
    xw = np.zeros((2, 3, 8), np.float32)
    args = [xw, np.zeros((2, 8), np.float32), np.zeros(8, np.float32),
            np.zeros((2, 2), np.float32), np.zeros((2, 2), np.float32), np.ones((2, 3), bool),
            np.ones((2, 2), np.float32), False, np.empty((2, 3, 6), np.float32),
            np.empty((2, steps, 8), np.float32)]
    with pytest.raises(ValueError, match=r"lstm_forward: argument 9 \(the kept step values\) "
                                         rf"has shape \(2, {steps}, 8\)"):
        recurrent_threads.run(recurrent_kernels.lstm_forward, *args)


def test_a_replayed_lstm_step_keeps_its_pre_activations(monkeypatch):
    xw, k, bias, h0, c0 = (tf.constant(_r(*s).astype(np.float32))
                           for s in ((4, 5, 12), (3, 12), (12,), (4, 3), (4, 3)))

    @tf.function
    def step(xw):
        with tf.GradientTape() as tape:
            tape.watch(xw)
            loss = tf.reduce_sum(lstm_sequence(xw, k, bias, h0, c0) ** 2)
        return tape.gradient(loss, xw)
    first = step(xw).numpy()
    seen = _pre_shapes(monkeypatch)
    np.testing.assert_array_equal(step(xw).numpy(), first)
    assert seen == [("lstm_forward", (4, 5, 12)), ("lstm_backward", (4, 5, 12))]
    np.testing.assert_array_equal(step.python_function(xw).numpy(), first)  # eager


@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_backward_reads_what_its_forward_kept(monkeypatch, reset_after):
    b, t, u = 33, 6, 4
    xw, k, x_bias, bias, h0 = (_r(*s).astype(np.float32) for s in (
        (b, t, 3 * u), (u, 3 * u), (3 * u,), (3 * u,), (b, u)))
    g = _r(b, t, 2 * u).astype(np.float32)
    masks = {"mask": _RNG.random((b, t)) < 0.8, "reset_after": reset_after,
             "recurrent_mask": np.where(_RNG.random((b, u)) < 0.3, 0, 2).astype(np.float32)}

    def step():
        tensors = [tf.constant(a) for a in (xw, k, x_bias, bias, h0)]
        with tf.GradientTape() as tape:
            tape.watch(tensors)
            loss = tf.reduce_sum(gru_sequence(*tensors, **masks) * g)
        return [t.numpy() for t in tape.gradient(loss, tensors)]
    seen = _pre_shapes(monkeypatch)
    kept = step()
    assert seen == [("gru_forward", (b, t, 3 * u)), ("gru_backward", (b, t, 3 * u))]
    seen.clear()
    monkeypatch.setattr(recurrent_ops, "_kept", lambda out, operands, weights, shape:
                        np.empty(shape, out.dtype))
    again = step()
    assert seen == [("gru_forward", (b, t, 3 * u)), ("gru_backward", (b, 0, 3 * u))]
    for a, c in zip(kept, again):
        np.testing.assert_array_equal(a, c)


def test_a_kept_entry_holds_the_operands_weakly():
    tensors = [tf.constant(a) for a in (_r(2, 3, 8), _r(2, 8), _r(8), _r(2, 2), _r(2, 2))]
    with tf.GradientTape() as tape:
        out = lstm_sequence(*tensors)
    xw = weakref.ref(tensors[0]._value)
    del tensors, tape
    gc.collect()
    assert recurrent_ops._KEPT.get(out._value) is not None and xw() is None  # only `out` held
