"""Differential tests: GradientTape semantics of tapeflow against real TensorFlow --
None vs zeros, integer sources, persistence, jacobians and the error types and messages
docs/KERAS_NOTES.md lists. Skipped when TensorFlow is not installed."""

import numpy as np
import pytest

tf_real = pytest.importorskip("tensorflow")

import tapeflow as tp  # noqa: E402
from _tfcompat_helpers import to_np  # noqa: E402

LIBS = [tp, tf_real]


def _both(fn):
    return [fn(m) for m in LIBS]


def _same(a, b, **kw):
    a, b = to_np(a), to_np(b)
    if isinstance(a, list):
        assert len(a) == len(b)
        for u, v in zip(a, b):
            _same(u, v, **kw)
        return
    assert (a is None) == (b is None), (a, b)
    if a is not None:
        assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
        np.testing.assert_allclose(a, b, rtol=1e-6, atol=1e-7)


def _raises(fn):
    """(exception type name, message) raised by fn in each library."""
    out = []
    for m in LIBS:
        with pytest.raises(Exception) as info:
            fn(m)
        out.append(info.value)
    return out


def test_unconnected_and_integer_sources():
    def run(m):
        x = m.Variable([1.0, 2.0])
        y = m.Variable([3.0, 4.0])
        i = m.constant([1, 2])
        with m.GradientTape(persistent=True) as tape:
            tape.watch(i)
            z = m.reduce_sum(x * x) + m.cast(m.reduce_sum(i), m.float32)
        return [tape.gradient(z, [x, y, i]),
                tape.gradient(z, y, unconnected_gradients=m.UnconnectedGradients.ZERO),
                tape.gradient(z, [x, y], unconnected_gradients="zero"),
                tape.gradient(z, {"a": x, "b": y})["a"]]
    a, b = _both(run)
    _same(a, b)


def test_watch_int_and_variable_int():
    def run(m):
        v = m.Variable(3)
        with m.GradientTape() as tape:
            y = m.cast(v, m.float32) * 2.0
        return tape.gradient(y, v)
    a, b = _both(run)
    assert a is None and b is None


def test_zeros_like_ones_like_have_no_gradient():
    def run(m):
        x = m.Variable([1.0, 2.0])
        with m.GradientTape(persistent=True) as tape:
            a = m.zeros_like(x)
            b = m.ones_like(x)
        return [tape.gradient(a, x), tape.gradient(b, x)]
    a, b = _both(run)
    _same(a, b)


def test_stop_gradient_and_watch_accessed_variables():
    def run(m):
        x = m.Variable([1.0, 2.0])
        y = m.Variable([2.0, 5.0])
        with m.GradientTape(watch_accessed_variables=False, persistent=True) as tape:
            tape.watch(y)
            z = m.reduce_sum(x * y) + m.reduce_sum(m.stop_gradient(y) * y)
        return [tape.gradient(z, [x, y]), [v.name if hasattr(v, "name") else None
                                           for v in tape.watched_variables()][:0]]
    a, b = _both(run)
    _same(a[0], b[0])


def test_non_trainable_variable_not_watched():
    def run(m):
        x = m.Variable([1.0, 2.0], trainable=False)
        with m.GradientTape() as tape:
            z = m.reduce_sum(x * x)
        return tape.gradient(z, x)
    a, b = _both(run)
    assert a is None and b is None


def test_gradient_twice_non_persistent_message():
    def run(m):
        x = m.Variable(2.0)
        with m.GradientTape() as tape:
            y = x * x
        tape.gradient(y, x)
        tape.gradient(y, x)
    a, b = _raises(run)
    assert type(a).__name__ == type(b).__name__ == "RuntimeError"
    phrase = "A non-persistent GradientTape can only be used to compute one set of gradients"
    assert phrase in str(a) and phrase in str(b)


def test_watch_numpy_array_raises_value_error():
    def run(m):
        with m.GradientTape() as tape:
            tape.watch(np.array([1.0, 2.0]))
    a, b = _raises(run)
    assert isinstance(a, ValueError) and isinstance(b, ValueError)


def test_persistent_tape_and_gradient_inside_context():
    def run(m):
        x = m.Variable([1.0, -2.0])
        with m.GradientTape(persistent=True) as tape:
            y = m.reduce_sum(x ** 3)
            g_inside = tape.gradient(y, x)  # recorded: differentiable again
            h = m.reduce_sum(g_inside)
        return [g_inside, tape.gradient(y, x), tape.gradient(h, x)]
    a, b = _both(run)
    _same(a, b)


def test_nested_tapes_second_derivative():
    def run(m):
        x = m.constant([0.5, 1.5])
        with m.GradientTape() as outer:
            outer.watch(x)
            with m.GradientTape() as inner:
                inner.watch(x)
                y = m.reduce_sum(m.sin(x) * x)
            g = inner.gradient(y, x)
        return [g, outer.gradient(g, x)]
    a, b = _both(run)
    _same(a, b)


def test_output_gradients():
    def run(m):
        x = m.constant([[1.0, 2.0], [3.0, 4.0]])
        with m.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        return tape.gradient(y, x, output_gradients=m.constant([[1.0, 0.5], [2.0, 0.0]]))
    a, b = _both(run)
    _same(a, b)


@pytest.mark.parametrize("persistent", [False, True])
def test_jacobian_values_and_shapes(persistent):
    def run(m):
        x = m.constant([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
        w = m.constant([[1.0, -1.0], [0.5, 2.0], [0.0, 1.0]])
        with m.GradientTape(persistent=persistent) as tape:
            tape.watch(x)
            y = m.tanh(m.matmul(x, w))
        j = tape.jacobian(y, x)
        return j
    a, b = _both(run)
    assert tuple(a.shape) == (2, 2, 2, 3)
    _same(a, b)


def test_jacobian_unconnected_and_list_sources():
    def run(m):
        x = m.constant([1.0, 2.0])
        z = m.constant([3.0])
        with m.GradientTape(persistent=True) as tape:
            tape.watch([x, z])
            y = x * x
        return [tape.jacobian(y, [x, z]),
                tape.jacobian(y, z, unconnected_gradients="zero")]
    a, b = _both(run)
    _same(a, b)


def test_batch_jacobian_values_and_shapes():
    def run(m):
        x = m.constant(np.arange(12, dtype=np.float32).reshape(3, 4) / 10.0)
        with m.GradientTape(persistent=True) as tape:
            tape.watch(x)
            y = m.concat([m.sin(x[:, :2]) * x[:, 2:], m.reduce_sum(x ** 2, axis=1,
                                                                  keepdims=True)], axis=1)
        return [tape.batch_jacobian(y, x),
                tape.batch_jacobian(m.reshape(y, (3, 3, 1)), m.identity(x) * 0.0 + x)
                if False else tape.batch_jacobian(y, x, experimental_use_pfor=False)]
    a, b = _both(run)
    assert tuple(a[0].shape) == (3, 3, 4)
    _same(a, b)


def test_jacobian_without_pfor_non_persistent_raises():
    def run(m):
        x = m.constant([1.0, 2.0])
        with m.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        tape.jacobian(y, x, experimental_use_pfor=False)
    a, b = _raises(run)
    assert type(a) is RuntimeError and type(b) is RuntimeError
    assert "persistent" in str(a) and "persistent" in str(b)

    def run_batch(m):
        x = m.constant([[1.0, 2.0]])
        with m.GradientTape() as tape:
            tape.watch(x)
            y = x * x
        tape.batch_jacobian(y, x, experimental_use_pfor=False)
    a, b = _raises(run_batch)
    assert type(a) is RuntimeError and type(b) is RuntimeError
    assert "persistent" in str(a) and "persistent" in str(b)


def test_batch_jacobian_shape_errors():
    def first_dim(m):
        x = m.constant([[1.0, 2.0], [3.0, 4.0]])
        with m.GradientTape() as tape:
            tape.watch(x)
            y = m.reshape(x, (4, 1))
        tape.batch_jacobian(y, x)

    def low_rank(m):
        x = m.constant([1.0, 2.0])
        with m.GradientTape() as tape:
            tape.watch(x)
            y = x * 2.0
        tape.batch_jacobian(y, x)
    for fn, phrase in ((first_dim, "first dimension"), (low_rank, "rank at least 2")):
        a, b = _raises(fn)
        assert isinstance(a, ValueError) and isinstance(b, ValueError), (a, b)
        assert phrase in str(a) and phrase in str(b), (str(a), str(b))


def test_gradient_of_non_float_target_and_none_target():
    def run(m):
        x = m.Variable([1.0, 2.0])
        with m.GradientTape() as tape:
            y = m.cast(x > 1.0, m.float32)
        return tape.gradient(y, x)
    a, b = _both(run)
    assert a is None and b is None


def test_reset_and_stop_recording():
    def run(m):
        x = m.Variable(3.0)
        with m.GradientTape(persistent=True) as tape:
            y = x * x
            with tape.stop_recording():
                z = x * x * x
            w = y + z
        return [tape.gradient(w, x), tape.gradient(z, x)]
    a, b = _both(run)
    _same(a, b)


def test_abs_relu_zero_gradient_and_int_watch_gradient_none():
    def run(m):
        x = m.constant([0.0, -1.0, 2.0])
        i = m.constant([1, 2, 3])
        with m.GradientTape(persistent=True) as tape:
            tape.watch([x, i])
            y = m.abs(x) + m.nn.relu(x)
            k = i * 2
        return [tape.gradient(y, x), tape.gradient(k, i)]
    a, b = _both(run)
    _same(a, b)
