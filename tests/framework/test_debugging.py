"""tf.debugging: TF's eager assertions, check_numerics and its gradient, and the
NaN finder (enable_check_numerics) naming the op, layer and line (issue 22)."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.ops.registry import Op

dbg = tf.debugging


@pytest.fixture
def checks_on():
    dbg.enable_check_numerics()
    yield
    dbg.disable_check_numerics()


@pytest.mark.parametrize("check, x, y, holds", [
    (dbg.assert_equal, [1, 2], [1, 2], True), (dbg.assert_equal, [1, 2], [1, 3], False),
    (dbg.assert_none_equal, [1, 2], [3, 4], True), (dbg.assert_none_equal, [1, 2], [1, 4], False),
    (dbg.assert_less, [1, 2], [2, 3], True), (dbg.assert_less, [1, 3], [2, 3], False),
    (dbg.assert_less_equal, [1, 3], [2, 3], True), (dbg.assert_greater, [3], [2], True),
    (dbg.assert_greater, [2], [2], False), (dbg.assert_greater_equal, [2], [2], True),
    (dbg.assert_equal, [[1, 1]], 1, True),  # broadcasting, as TF
])
def test_binary_assertions(check, x, y, holds):
    if holds:
        assert check(tf.constant(x), tf.constant(y)) is None
    else:
        with pytest.raises(tf.errors.InvalidArgumentError, match="did not hold"):
            check(tf.constant(x), tf.constant(y), message="custom words")


def test_assertion_message_carries_the_values_and_the_users_words():
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        dbg.assert_equal(tf.constant([1, 2]), tf.constant([1, 3]), message="labels differ")
    text = str(info.value)
    assert text.startswith("labels differ") and "x == y" in text and "[1, 3]" in text


def test_incompatible_shapes_are_a_value_error():
    with pytest.raises(ValueError, match=r"\(2,\) and \(3,\)"):
        dbg.assert_equal(tf.constant([1, 2]), tf.constant([1, 2, 3]))


@pytest.mark.parametrize("check, good, bad", [
    (dbg.assert_positive, [1.0, 2.0], [0.0, 1.0]), (dbg.assert_negative, [-1.0], [0.0]),
    (dbg.assert_non_negative, [0.0, 1.0], [-1.0]), (dbg.assert_non_positive, [0.0], [0.5]),
])
def test_sign_assertions(check, good, bad):
    assert check(tf.constant(good)) is None
    with pytest.raises(tf.errors.InvalidArgumentError):
        check(tf.constant(bad))


def test_assert_near_uses_tfs_default_tolerance():
    dbg.assert_near(tf.constant([1.0]), tf.constant([1.0 + 5e-7]))
    with pytest.raises(tf.errors.InvalidArgumentError):
        dbg.assert_near(tf.constant([1.0]), tf.constant([1.0 + 1e-5]))
    dbg.assert_near(tf.constant([1.0]), tf.constant([1.1]), atol=0.2)


def test_rank_type_and_shapes():
    x = tf.zeros((2, 3))
    dbg.assert_rank(x, 2)
    dbg.assert_rank_at_least(x, 1)
    with pytest.raises(ValueError, match="rank 3"):
        dbg.assert_rank(x, 3)
    dbg.assert_type(x, tf.float32)
    with pytest.raises(TypeError, match="int32"):
        dbg.assert_type(x, tf.int32)
    y = tf.zeros((2,))
    dbg.assert_shapes([(x, ("N", "D")), (y, ("N",))])
    dbg.assert_shapes([(x, ("...", 3))])
    with pytest.raises(ValueError, match="'N' must be 2"):
        dbg.assert_shapes([(x, ("N", "D")), (tf.zeros((5,)), ("N",))])


def test_check_numerics_passes_finite_values_and_names_nan_and_inf():
    x = tf.constant([1.0, 2.0])
    np.testing.assert_array_equal(dbg.check_numerics(x, "ok").numpy(), [1.0, 2.0])
    with pytest.raises(tf.errors.InvalidArgumentError, match="my tensor : Tensor had NaN values"):
        dbg.check_numerics(tf.constant([np.nan, 1.0]), "my tensor")
    with pytest.raises(tf.errors.InvalidArgumentError, match="Inf and NaN"):
        dbg.assert_all_finite(tf.constant([np.nan, np.inf]), "both")


def test_check_numerics_checks_the_gradient_too():
    x = tf.constant([0.0, 1.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = dbg.check_numerics(x, "input")
        z = tf.reduce_sum(tf.sqrt(y))  # d/dx sqrt at 0 is inf
    with pytest.raises(tf.errors.InvalidArgumentError, match="detected in gradient. input"):
        tape.gradient(z, x)
    x = tf.constant([4.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        z = tf.reduce_sum(tf.sqrt(dbg.check_numerics(x, "input")))
    np.testing.assert_allclose(tape.gradient(z, x).numpy(), [0.25])


def test_enabling_and_disabling_swaps_the_op_call_so_disabled_costs_nothing():
    plain = Op.__call__
    dbg.enable_check_numerics()
    try:
        assert Op.__call__ is not plain and dbg.check_numerics_enabled()
    finally:
        dbg.disable_check_numerics()
    assert Op.__call__ is plain and not dbg.check_numerics_enabled()
    dbg.disable_check_numerics()  # twice is fine
    assert Op.__call__ is plain


def test_first_non_finite_op_is_named_with_the_users_line(checks_on):
    x = tf.constant([1.0, -1.0])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        y = tf.math.log(x)  # the line named
    text = str(info.value)
    line = info.tb.tb_lineno
    assert "'log'" in text and "1 NaN" in text
    assert f"test_debugging.py:{line}" in text
    assert "inputs were all finite: this op made the first non-finite value" in text


def test_an_input_already_non_finite_is_said(checks_on):
    dbg.disable_check_numerics()
    bad = tf.math.log(tf.constant([-1.0]))
    dbg.enable_check_numerics()
    with pytest.raises(tf.errors.InvalidArgumentError, match="already held 1 NaN"):
        bad * 2.0


def test_the_layer_that_made_the_nan_is_named(checks_on):
    model = tf.keras.Sequential([
        tf.keras.layers.Dense(3, kernel_initializer="ones", name="first"),
        tf.keras.layers.Lambda(lambda t: tf.math.log(t - 100.0), name="bad_log"),
        tf.keras.layers.Dense(1)])
    with pytest.raises(tf.errors.InvalidArgumentError) as info:
        model(np.ones((2, 2), np.float32))
    assert "in layer 'bad_log' (Lambda)" in str(info.value)
    assert "'log'" in str(info.value)


def test_finite_work_runs_unchanged_with_checks_on(checks_on):
    x = tf.constant([[1.0, 2.0]])
    np.testing.assert_allclose(tf.matmul(x, tf.transpose(x)).numpy(), [[5.0]])


def test_check_numerics_reaches_inside_a_traced_function(checks_on):
    """A traced function runs eagerly while the checks are on (a replay skips Op.__call__),
    so the NaN is found at its op, as in eager code (issue 22 item 6)."""
    @tf.function
    def step(x):
        return tf.math.log(x) * 2.0

    dbg.disable_check_numerics()
    step(tf.constant([1.0, 2.0]))  # traced while the checks are off
    dbg.enable_check_numerics()
    with pytest.raises(tf.errors.InvalidArgumentError, match="'log'"):
        step(tf.constant([-1.0, 2.0]))
