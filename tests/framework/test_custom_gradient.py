"""tf.custom_gradient and tf.recompute_grad: TF 2's contract (custom_gradient.py), first
and second order checked numerically in float64."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing import gradcheck


@tf.custom_gradient
def log1pexp(x):
    """TF's docstring example: a stable gradient for log(1 + e^x)."""
    e = tf.exp(x)

    def grad(upstream):
        return upstream * (1 - 1 / (1 + e))

    return tf.math.log(1 + e), grad


@tf.custom_gradient
def clip_gradient_by_norm(x, norm):
    """TF's guide example: identity forward, the upstream gradient clipped by norm."""
    y = tf.identity(x)

    def grad_fn(upstream):
        return [tf.clip_by_norm(upstream, norm), None]

    return y, grad_fn


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def test_log1pexp_gradient_is_stable_where_the_plain_one_is_nan():
    x = tf.constant(100.0)
    with tf.GradientTape(persistent=True) as tape, np.errstate(over="ignore", invalid="ignore"):
        tape.watch(x)
        plain = tf.math.log(1 + tf.exp(x))  # exp(100) overflows float32
        custom = log1pexp(x)
    with np.errstate(invalid="ignore"):
        assert np.isnan(tape.gradient(plain, x).numpy())
    g = tape.gradient(custom, x)
    assert g.dtype == tf.float32 and g.numpy() == 1.0
    assert custom.shape == () and custom.dtype == tf.float32


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_log1pexp_first_and_second_order(shape):
    x = np.linspace(-2.0, 1.5, int(np.prod(shape))).reshape(shape)
    gradcheck(log1pexp, x, order=2)
    t = tf.constant(x)
    with tf.GradientTape() as outer:
        outer.watch(t)
        with tf.GradientTape() as inner:
            inner.watch(t)
            y = log1pexp(t)
        g = inner.gradient(y, t)
    np.testing.assert_allclose(g.numpy(), _sigmoid(x), rtol=1e-12)
    s = _sigmoid(x)
    np.testing.assert_allclose(outer.gradient(g, t).numpy(), s * (1 - s), rtol=1e-12)


def test_clip_gradient_by_norm_clips_the_upstream_gradient_and_has_a_second_order():
    x = tf.constant(np.array([1.0, -2.0, 0.5]))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(clip_gradient_by_norm(x, 1.0) ** 3)
    g = tape.gradient(y, x).numpy()
    raw = 3 * x.numpy() ** 2
    np.testing.assert_allclose(g, raw / np.linalg.norm(raw), rtol=1e-12)
    assert np.linalg.norm(g) == pytest.approx(1.0)

    # Where nothing is clipped the custom gradient is the true one, to every order.
    gradcheck(lambda t: tf.reduce_sum(clip_gradient_by_norm(t, 100.0) ** 3), x.numpy(),
              order=2)

    # The outer tape records the custom op too, so d2/dx2 passes through grad_fn again,
    # as in TF: d/dx sum(clip(3y^2)) is clip(6y) when 3y^2 is under the norm.
    def second_derivative(values, norm):
        t = tf.constant(np.array(values))
        with tf.GradientTape() as outer:
            outer.watch(t)
            with tf.GradientTape() as inner:
                inner.watch(t)
                out = tf.reduce_sum(clip_gradient_by_norm(t, norm) ** 3)
            g = inner.gradient(out, t)
        return outer.gradient(g, t).numpy()

    # 6y = [0.6, -1.2] has norm 1.34: kept under norm 2, clipped to norm 1.
    np.testing.assert_allclose(second_derivative([0.1, -0.2], 2.0), [0.6, -1.2], rtol=1e-12)
    np.testing.assert_allclose(second_derivative([0.1, -0.2], 1.0),
                               np.array([0.6, -1.2]) / np.hypot(0.6, 1.2), rtol=1e-12)


def test_nested_structures_of_outputs_get_one_upstream_each():
    seen = []

    @tf.custom_gradient
    def split(x):
        def grad(da, db, dc):
            seen.append([t.numpy().tolist() for t in (da, db, dc)])
            return da * 2.0 + tf.reduce_sum(db) + dc * 10.0

        return {"a": x * 1.0, "pair": (x + 1.0, x - 1.0)}, grad

    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        out = split(x)
        y = tf.reduce_sum(out["a"] * 3.0) + out["pair"][1][0]
    assert set(out) == {"a", "pair"} and isinstance(out["pair"], tuple)
    np.testing.assert_array_equal(out["pair"][0].numpy(), [2.0, 3.0])
    g = tape.gradient(y, x)
    # Upstreams in flattened order (dict keys sorted): a, pair[0], pair[1]; the unused
    # output gets zeros, as TF fills them.
    assert seen == [[[3.0, 3.0], [0.0, 0.0], [1.0, 0.0]]]
    np.testing.assert_array_equal(g.numpy(), [16.0, 6.0])


def test_several_outputs_second_order_and_jacobian():
    @tf.custom_gradient
    def two(x, w):
        def grad(da, db):
            return da * w + db * 2.0 * x, da * x

        return (x * w, x * x), grad

    def f(x, w):
        a, b = two(x, w)
        return a * b + tf.sin(b)

    gradcheck(f, np.array([0.3, -0.7]), np.array([1.1, 0.4]), order=2)


def test_mixed_dtype_outputs_keep_their_dtypes():
    @tf.custom_gradient
    def mixed(x):
        def grad(d32, d64, dint):
            assert dint.dtype == tf.int32 and dint.numpy().tolist() == [0, 0]
            return tf.cast(d32, tf.float64) + d64

        return (tf.cast(x, tf.float32), x * 1.0, tf.constant([1, 2])), grad

    x = tf.constant(np.array([1.0, 2.0]))
    with tf.GradientTape() as tape:
        tape.watch(x)
        a, b, c = mixed(x)
        y = tf.cast(tf.reduce_sum(a * a), tf.float64) + tf.reduce_sum(b)
    assert (a.dtype, b.dtype, c.dtype) == (tf.float32, tf.float64, tf.int32)
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [3.0, 5.0])


def test_variables_form_gets_the_variables_and_returns_their_gradients():
    w = tf.Variable(np.array([2.0, 3.0]))
    calls = []

    @tf.custom_gradient
    def scale(x):
        def grad(upstream, variables=None):
            calls.append(variables)
            return upstream * w, [upstream * x * 10.0]

        return x * w, grad

    x = tf.constant(np.array([1.0, 4.0]))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(scale(x))
    gx, gw = tape.gradient(y, [x, w])
    assert len(calls) == 1 and len(calls[0]) == 1 and calls[0][0] is w
    np.testing.assert_array_equal(gx.numpy(), [2.0, 3.0])
    np.testing.assert_array_equal(gw.numpy(), [10.0, 40.0])  # the custom one, not x
    assert tape.watched_variables() == (w,)


def test_reading_variables_without_a_variables_argument_is_tf_s_type_error():
    w = tf.Variable(2.0)

    @tf.custom_gradient
    def f(x):
        return x * w, lambda upstream: upstream * w

    with pytest.raises(TypeError, match="grad_fn must accept keyword argument 'variables', "
                                        "since function uses variables"):
        f(tf.constant(1.0))
    # A Variable passed as an argument is an input, not a captured variable.

    @tf.custom_gradient
    def g(x, v):
        return x * v, lambda upstream: (upstream * v, upstream * x)

    v = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = g(tf.constant(2.0), v)
    assert tape.gradient(y, v).numpy() == 2.0


def test_grad_fn_mistakes_are_named():
    @tf.custom_gradient
    def too_many(x):
        return x * 2.0, lambda upstream: (upstream, upstream)

    @tf.custom_gradient
    def wrong_shape(x):
        return x * 2.0, lambda upstream: tf.reduce_sum(upstream)

    @tf.custom_gradient
    def wrong_dtype(x):
        return x * 2.0, lambda upstream: tf.cast(upstream, tf.float64)

    @tf.custom_gradient
    def no_pair(x):
        return x * 2.0

    w = tf.Variable(1.0)

    @tf.custom_gradient
    def missing_variable_grads(x):
        return x * w, lambda upstream, variables=None: (upstream, [])

    x = tf.constant([1.0, 2.0])
    cases = [(too_many, ValueError, "expected to return 1 gradients, but returned 2"),
             (wrong_shape, ValueError, r"shape \(\) for input 0, of shape \(2,\)"),
             (wrong_dtype, TypeError, "float64 gradient for input 0, of dtype float32"),
             (missing_variable_grads, ValueError, "Must return gradient for each variable")]
    for fn, error, message in cases:
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x)
        with pytest.raises(error, match=message):
            tape.gradient(y, x)
    with pytest.raises(TypeError, match=r"no_pair must return a pair \(y, grad_fn\)"):
        no_pair(x)


def test_without_a_tape_it_is_the_forward_alone():
    y = log1pexp(tf.constant([0.0, 1.0]))
    np.testing.assert_allclose(y.numpy(), np.log1p(np.exp([0.0, 1.0])), rtol=1e-6)
    assert log1pexp.__name__ == "log1pexp" and "stable gradient" in log1pexp.__doc__


def test_a_python_number_argument_and_methods():
    class Scaler:
        factor = 3.0

        @tf.custom_gradient
        def __call__(self, x, k):
            def grad(upstream):
                return upstream * self.factor * k, None
            return x * self.factor * k, grad

    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = Scaler()(x, 2.0)
    assert y.numpy() == 12.0 and tape.gradient(y, x).numpy() == 6.0


def test_returning_an_input_unchanged_still_routes_through_grad_fn():
    @tf.custom_gradient
    def passthrough(x):
        return x, lambda upstream: upstream * 5.0

    x = tf.constant(1.5)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = passthrough(x)
    assert y is not x and tape.gradient(y, x).numpy() == 5.0


# -- recompute_grad ------------------------------------------------------------


def _block(x, w):
    h = tf.tanh(tf.matmul(x, w))
    return tf.reduce_sum(h * h, axis=1)


def test_recompute_grad_matches_the_plain_function_inputs_and_variables():
    rng = np.random.default_rng(0)
    x = tf.constant(rng.standard_normal((3, 4)))
    w = tf.Variable(rng.standard_normal((4, 5)))
    captured = tf.Variable(rng.standard_normal((5,)))

    def f(x):
        return _block(x, w) + tf.reduce_sum(tf.tanh(tf.matmul(x, w)) * captured)

    runs = []

    def counted(x):
        runs.append(1)
        return f(x)

    recomputed = tf.recompute_grad(counted)
    grads = []
    for fn in (f, recomputed):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = fn(x) * tf.constant([1.0, 2.0, 3.0], tf.float64)
        grads.append(tape.gradient(y, [x, w, captured]))
    for plain, again in zip(*grads):
        np.testing.assert_allclose(again.numpy(), plain.numpy(), rtol=1e-12)
    assert len(runs) == 2  # the forward, then once more for the gradient


def test_recompute_grad_records_nothing_in_the_forward():
    x = tf.constant(np.array([[0.5, -0.5]]))
    w = tf.Variable(np.array([[1.0], [2.0]]))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.recompute_grad(_block)(x, w)
    assert [r.op.name for r in tape._records] == ["_block"]  # one record, no activations
    plain_x = tape.gradient(y, x)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = _block(x, w)
    np.testing.assert_allclose(plain_x.numpy(), tape.gradient(y, x).numpy(), rtol=1e-12)


def test_recompute_grad_first_and_second_order():
    gradcheck(tf.recompute_grad(_block), np.array([[0.3, -0.2], [0.1, 0.4]]),
              np.array([[0.5], [-1.0]]), order=2)


def test_recompute_grad_of_a_keras_layer_gives_its_weights_the_same_gradients():
    layer = tf.keras.layers.Dense(3, activation="tanh")
    x = tf.constant(np.random.default_rng(1).standard_normal((4, 2)))
    layer(x)  # built outside, as a model would be
    grads = []
    for fn in (layer, tf.recompute_grad(layer)):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(fn(x) ** 2)
        grads.append(tape.gradient(y, layer.trainable_variables))
    assert len(grads[1]) == 2 and all(g is not None for g in grads[1])
    for plain, again in zip(*grads):
        np.testing.assert_allclose(again.numpy(), plain.numpy(), rtol=1e-12)
