"""GradientTape: TF 2's contract, corner by corner."""

import logging

import numpy as np
import pytest

import tapeflow as tf


def test_trainable_variables_are_watched_when_read():
    v = tf.Variable(2.0)
    frozen = tf.Variable(2.0, trainable=False)
    with tf.GradientTape() as tape:
        y = v * v + frozen * frozen
    gv, gf = tape.gradient(y, [v, frozen])
    assert gv.numpy() == 4.0 and gf is None
    assert tape.watched_variables() == (v,)


def test_watch_accessed_variables_false_watches_only_what_is_asked():
    a, b = tf.Variable(1.0), tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        tape.watch(b)
        y = a * b
    ga, gb = tape.gradient(y, [a, b])
    assert ga is None and gb.numpy() == 1.0


def test_watch_rejects_non_tensors():
    with tf.GradientTape() as tape:
        with pytest.raises(ValueError, match="not tf.Tensor or tf.Variable"):
            tape.watch(np.ones(3))
        with pytest.raises(ValueError, match="float"):
            tape.watch(1.0)


def test_integer_tensors_are_never_differentiable(caplog):
    x = tf.constant(3)
    with caplog.at_level(logging.WARNING, logger="tapeflow"):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = x * x
    assert "must be floating" in caplog.text
    assert tape.gradient(y, x) is None


def test_non_persistent_tape_allows_one_gradient():
    x = tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, x).numpy() == 6.0
    with pytest.raises(RuntimeError, match="A non-persistent GradientTape can only be used to "
                                           "compute one set of gradients"):
        tape.gradient(y, x)


def test_persistent_tape_allows_many_gradients():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        z = y * y
    assert tape.gradient(z, x).numpy() == 108.0
    assert tape.gradient(y, x).numpy() == 6.0
    assert tape.gradient(z, y).numpy() == 18.0


def test_unconnected_gradients():
    x, unused = tf.Variable([1.0, 2.0]), tf.Variable([[3.0]])
    with tf.GradientTape(persistent=True) as tape:
        y = tf.reduce_sum(x * 2.0)
    assert tape.gradient(y, unused) is None
    zero = tape.gradient(y, unused, unconnected_gradients=tf.UnconnectedGradients.ZERO)
    assert zero.shape == (1, 1) and zero.dtype == tf.float32 and zero.numpy()[0, 0] == 0.0
    assert tape.gradient(y, unused, unconnected_gradients="zero").numpy().tolist() == [[0.0]]
    with pytest.raises(ValueError, match="Unknown value for unconnected_gradients"):
        tape.gradient(y, x, unconnected_gradients="ones")


def test_nested_sources_keep_their_structure():
    a, b, c = tf.Variable(1.0), tf.Variable(2.0), tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = a * b * c
    grads = tape.gradient(y, {"first": [a, b], "second": (c,)})
    assert list(grads) == ["first", "second"]
    assert [g.numpy() for g in grads["first"]] == [6.0, 3.0]
    assert isinstance(grads["second"], tuple) and grads["second"][0].numpy() == 2.0


def test_several_targets_are_summed_and_output_gradients_seed_them():
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape(persistent=True) as tape:
        y1 = x * x
        y2 = 3.0 * x
    assert tape.gradient([y1, y2], x).numpy().tolist() == [5.0, 7.0]
    seeded = tape.gradient(y1, x, output_gradients=tf.constant([10.0, 0.5]))
    assert seeded.numpy().tolist() == [20.0, 2.0]
    with pytest.raises(ValueError, match="does not match its target's shape"):
        tape.gradient(y1, x, output_gradients=tf.constant([1.0]))


def test_gradient_of_a_source_with_respect_to_itself():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
    assert tape.gradient(x, x).numpy().tolist() == [1.0, 1.0]


def test_gradient_inside_a_non_persistent_context_stops_recording():
    x = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = x * x
        g = tape.gradient(y, x)
        z = x * 5.0  # not recorded any more, as in TF
    assert g.numpy() == 4.0
    assert z.numpy() == 10.0


def test_gradient_inside_a_persistent_context_is_recorded():
    x = tf.Variable(3.0)
    with tf.GradientTape(persistent=True) as tape:
        y = x * x * x
        dy = tape.gradient(y, x)  # 3x^2 = 27, recorded on the tape itself
    assert dy.numpy() == 27.0
    assert tape.gradient(dy, x).numpy() == 18.0  # 6x


def test_third_derivative_with_three_tapes():
    x = tf.Variable(2.0)
    with tf.GradientTape() as t3:
        with tf.GradientTape() as t2:
            with tf.GradientTape() as t1:
                y = x ** 4.0
            d1 = t1.gradient(y, x)
        d2 = t2.gradient(d1, x)
    d3 = t3.gradient(d2, x)
    assert (d1.numpy(), d2.numpy(), d3.numpy()) == (32.0, 48.0, 48.0)


def test_hessian_vector_product():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3))
    a = a + a.T
    x = tf.Variable(rng.standard_normal((3, 1)))
    v = tf.constant(rng.standard_normal((3, 1)))
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            f = 0.5 * tf.reduce_sum(x * tf.matmul(tf.constant(a), x))
        g = inner.gradient(f, x)
        gv = tf.reduce_sum(g * v)
    hvp = outer.gradient(gv, x)
    np.testing.assert_allclose(hvp.numpy(), a @ v.numpy(), rtol=1e-12)


def test_several_tapes_each_record_what_they_track():
    x, y = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape() as tx, tf.GradientTape() as ty:
        tx.watch(x)
        ty.watch(y)
        z = x * y
    assert tx.gradient(z, x).numpy() == 3.0
    assert ty.gradient(z, y).numpy() == 2.0


def test_stop_gradient_and_zeros_like_block_gradients():
    x = tf.Variable(2.0)
    with tf.GradientTape(persistent=True) as tape:
        a = tf.stop_gradient(x * x)
        b = tf.zeros_like(x) + tf.ones_like(x)
    assert tape.gradient(a, x) is None
    assert tape.gradient(b, x) is None


def test_reset_forgets_what_was_recorded():
    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        loss = x * x
        tape.reset()
        loss = loss + x * 3.0
    assert tape.gradient(loss, x).numpy() == 3.0


def test_stop_recording_requires_a_recording_tape():
    tape = tf.GradientTape()
    with pytest.raises(RuntimeError, match="not recording"):
        with tape.stop_recording():
            pass


def test_watched_variables_in_creation_order():
    first, second = tf.Variable(1.0), tf.Variable(2.0)
    with tf.GradientTape() as tape:
        _ = second * 2.0
        _ = first * 2.0
    assert tape.watched_variables() == (first, second)


def test_long_chain_needs_no_recursion():
    x = tf.Variable(1.0001)
    y = tf.constant(0.0)
    with tf.GradientTape() as tape:
        for _ in range(10_000):
            y = y * x + 1.0
    g = tape.gradient(y, x)
    # y = sum_{k<n} x^k, dy/dx = sum_k k x^(k-1)
    n = np.arange(10_000, dtype=np.float64)
    expected = np.sum(n * 1.0001 ** (n - 1))
    assert np.isclose(g.numpy(), expected, rtol=1e-3)


def test_gradient_dtype_and_shape_follow_the_source():
    x = tf.Variable(np.ones((2, 3)), dtype=tf.float64)
    b = tf.Variable([1.0, 2.0, 3.0], dtype=tf.float64)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x * b)
    gx, gb = tape.gradient(y, [x, b])
    assert gx.dtype == tf.float64 and gx.shape == (2, 3)
    assert gb.numpy().tolist() == [2.0, 2.0, 2.0]


def test_sources_must_be_tensors():
    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = x * 2.0
    with pytest.raises(ValueError, match="sources must be Tensors or Variables"):
        tape.gradient(y, [1.0])


def test_jacobian_shapes_and_values():
    w = np.arange(6.0).reshape(2, 3)
    x = tf.constant([[1.0], [2.0], [3.0]], dtype=tf.float64)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.tanh(tf.matmul(tf.constant(w), x))
    jac = tape.jacobian(y, x)
    assert jac.shape == (2, 1, 3, 1)
    expected = (1 - np.tanh(w @ x.numpy()) ** 2) * w
    np.testing.assert_allclose(jac.numpy()[:, 0, :, 0], expected, rtol=1e-12)


def test_jacobian_unconnected_and_loop_mode():
    x, other = tf.constant([1.0, 2.0]), tf.constant([5.0, 6.0, 7.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, other])
        y = x * x
    assert tape.jacobian(y, other) is None
    assert tape.jacobian(y, other, unconnected_gradients="zero").shape == (2, 3)
    looped = tape.jacobian(y, x, experimental_use_pfor=False)
    assert looped.numpy().tolist() == [[2.0, 0.0], [0.0, 4.0]]


def test_jacobian_without_pfor_needs_a_persistent_tape():
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    with pytest.raises(RuntimeError, match="persistent"):
        tape.jacobian(y, x, experimental_use_pfor=False)


def test_batch_jacobian_matches_per_example_jacobians():
    rng = np.random.default_rng(1)
    w = tf.constant(rng.standard_normal((4, 3)))
    x = tf.constant(rng.standard_normal((5, 4)))
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.tanh(tf.matmul(x, w))
    batch = tape.batch_jacobian(y, x)
    assert batch.shape == (5, 3, 4)
    full = tape.jacobian(y, x).numpy()
    for i in range(5):
        np.testing.assert_allclose(batch.numpy()[i], full[i, :, i, :], rtol=1e-12)


def test_batch_jacobian_errors():
    x = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = x * x
        flat = tf.reduce_sum(x, axis=1)
        short = y[:1]
    with pytest.raises(ValueError, match="rank at least 2"):
        tape.batch_jacobian(flat, x)
    with pytest.raises(ValueError, match="first dimension"):
        tape.batch_jacobian(short, x)
    with tf.GradientTape() as plain:
        plain.watch(x)
        y = x * x
    with pytest.raises(RuntimeError, match="persistent"):
        plain.batch_jacobian(y, x, experimental_use_pfor=False)


def test_second_order_jacobian_of_a_gradient_is_the_hessian():
    x = tf.Variable([1.0, 2.0], dtype=tf.float64)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            f = tf.reduce_sum(x ** 3.0) + x[0] * x[1]
        g = inner.gradient(f, x)
    hessian = outer.jacobian(g, x)
    np.testing.assert_allclose(hessian.numpy(), [[6.0, 1.0], [1.0, 12.0]])


def test_entering_a_tape_twice_is_an_error():
    tape = tf.GradientTape()
    with tape:
        with pytest.raises(ValueError, match="already recording"):
            tape.__enter__()


# -- issue 15's three gradient rules ---------------------------------------------


def test_gradient_of_a_watched_source_with_respect_to_itself_is_ones():
    x = tf.constant([[1.0, 2.0, 3.0]])
    v = tf.Variable([4.0, 5.0])
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
    np.testing.assert_array_equal(tape.gradient(x, x).numpy(), np.ones((1, 3), np.float32))
    # A Variable target is read on the tape (as TF), so a trainable one needs no read before.
    gv = tape.gradient(v, v)
    assert gv.dtype == tf.float32
    np.testing.assert_array_equal(gv.numpy(), [1.0, 1.0])
    assert tape.gradient([x, v], [x, v])[1].numpy().tolist() == [1.0, 1.0]
    # Not watched: a constant, a frozen Variable, or a tape not watching accessed variables.
    frozen = tf.Variable(1.0, trainable=False)
    with tf.GradientTape(persistent=True) as tape2:
        pass
    assert tape2.gradient(tf.constant(1.0), tf.constant(1.0)) is None
    assert tape2.gradient(frozen, frozen) is None
    with tf.GradientTape(watch_accessed_variables=False) as tape3:
        pass
    assert tape3.gradient(v, v) is None


def test_gradient_of_a_variable_target_reaches_its_sources_and_higher_order():
    v = tf.Variable(3.0)
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = v * v
        g = inner.gradient(y, v)  # 2v, recorded by the outer tape
    assert g.numpy() == 6.0
    assert outer.gradient(g, v).numpy() == 2.0
    with tf.GradientTape() as tape:
        pass
    jac = tape.jacobian(v, v)
    assert jac.numpy() == 1.0


def test_convert_to_tensor_of_a_variable_is_a_differentiable_read():
    v = tf.Variable([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        t = tf.convert_to_tensor(v)
        y = tf.reduce_sum(t * t)
    assert type(t) is tf.Tensor
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), [2.0, 4.0, 6.0])
    assert tape.watched_variables() == (v,)
    # The read is a snapshot: a later assign does not change it.
    t = tf.convert_to_tensor(v)
    v.assign([0.0, 0.0, 0.0])
    np.testing.assert_array_equal(t.numpy(), [1.0, 2.0, 3.0])
    # A frozen Variable is read without being watched; an explicitly watched one is.
    frozen = tf.Variable(2.0, trainable=False)
    with tf.GradientTape(persistent=True) as tape:
        a = tf.convert_to_tensor(frozen) * 3.0
        tape.watch(frozen)
        b = tf.convert_to_tensor(frozen) * 3.0
    assert tape.gradient(a, frozen) is None
    assert tape.gradient(b, frozen).numpy() == 3.0


def test_convert_to_tensor_read_has_first_and_second_order_gradients():
    v = tf.Variable(np.array([0.5, -1.5], np.float64))
    with tf.GradientTape() as outer:
        with tf.GradientTape() as inner:
            y = tf.reduce_sum(tf.convert_to_tensor(v) ** 3)
        g = inner.gradient(y, v)
    np.testing.assert_allclose(g.numpy(), 3 * np.array([0.5, -1.5]) ** 2)
    np.testing.assert_allclose(outer.gradient(g, v).numpy(), 6 * np.array([0.5, -1.5]))


@pytest.mark.parametrize("sources, expected", [([], []), ((), ()), ({}, {}),
                                               ({"a": []}, {"a": []})])
def test_gradient_returns_the_structure_of_sources_even_empty(sources, expected):
    x = tf.constant(2.0)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert tape.gradient(y, sources) == expected


def test_gradient_keeps_nested_source_structures():
    x, z = tf.constant(2.0), tf.constant(3.0)
    with tf.GradientTape() as tape:
        tape.watch([x, z])
        y = x * z
    grads = tape.gradient(y, {"x": x, "rest": (z, [x])})
    assert grads["x"].numpy() == 3.0 and grads["rest"][0].numpy() == 2.0
    assert isinstance(grads["rest"], tuple) and grads["rest"][1][0].numpy() == 3.0
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = x * x
    assert [g.numpy() for g in tape.gradient(y, [x])] == [4.0]
