"""GradientTape.explain names why a gradient is None (issue 22): each cause is
built here as a user meets it, and the explanation must name the cause and the
user's line (this file's)."""

import inspect
import logging
import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.autodiff import memory as tape_memory

HERE = os.path.basename(__file__)


def next_line():
    """The line number after the caller's line: where the statement under test is."""
    return inspect.currentframe().f_back.f_lineno + 1


def names_line(explanation, line):
    return f"{HERE}:{line}" in str(explanation) and any(
        site.line == line for site in explanation.sites)


def test_connected_source_gives_the_chain_of_ops():
    x = tf.constant(3.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        y = tf.exp(x * 2.0)
        loss = tf.reduce_sum(y)
    why = tape.explain(loss, x)
    assert why.cause == "connected" and why.connected
    assert why.chain == ("multiply", "exp", "reduce_sum")
    assert "multiply -> exp -> reduce_sum" in str(why)
    assert tape.gradient(loss, x) is not None


def test_a_constant_never_watched_names_the_tape_and_says_to_watch():
    x = tf.constant([1.0, 2.0])
    line = next_line()
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(x * x)
    why = tape.explain(y, x)
    assert why.cause == "not_watched"
    assert "tape.watch(x)" in str(why) and names_line(why, line)
    assert tape.gradient(y, x) is None  # the explanation is of a real None


def test_watch_accessed_variables_false():
    v = tf.Variable(2.0)
    with tf.GradientTape(watch_accessed_variables=False) as tape:
        y = v * v
    why = tape.explain(y, v)
    assert why.cause == "not_watched" and "watch_accessed_variables=False" in str(why)


def test_untrainable_variable_is_named():
    v = tf.Variable(2.0, trainable=False, name="frozen")
    with tf.GradientTape() as tape:
        y = v * 3.0
    why = tape.explain(y, v)
    assert why.cause == "untrainable_variable"
    assert "'frozen:0'" in str(why) and "trainable=False" in str(why)


def test_a_variable_never_read_in_the_context():
    v, w = tf.Variable(1.0, name="v"), tf.Variable(2.0, name="w")
    with tf.GradientTape() as tape:
        y = w * 2.0
    why = tape.explain(y, v)
    assert why.cause == "not_read" and "'v:0'" in str(why)


@pytest.mark.parametrize("role", ["source", "target"])
def test_integer_source_or_target(role):
    x = tf.constant([1.0, 5.0, 3.0])
    k = tf.constant(3)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        index = tf.argmax(x)
    if role == "source":
        why = tape.explain(tf.cast(k, tf.float32), k)
        assert why.cause == "integer_source" and "int32" in str(why)
    else:
        why = tape.explain(index, x)
        assert why.cause == "integer_target" and "int64" in str(why)


def test_target_computed_after_the_context_closed_names_the_blocks_last_line():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        y = x * x
        last = next_line() - 1
    z = y * 2.0  # after the tape stopped: not recorded
    why = tape.explain(z, x)
    assert why.cause == "after_context"
    assert names_line(why, last) and "inside the `with` block" in str(why)


def test_target_computed_under_stop_recording():
    x = tf.Variable(3.0)
    with tf.GradientTape() as tape:
        line = next_line()
        with tape.stop_recording():
            z = x * 2.0
        y = x * x
    why = tape.explain(z, x)
    assert why.cause == "stop_recording" and names_line(why, line)
    assert tape.explain(y, x).connected


def test_no_path_names_the_values_the_target_depends_on():
    a, b = tf.Variable(1.0, name="a"), tf.Variable(2.0, name="b")
    with tf.GradientTape() as tape:
        loss = tf.square(b) + 1.0
    why = tape.explain(loss, a)
    # `a` was never read: that is the first thing to say.
    assert why.cause == "not_read"
    with tf.GradientTape() as tape:
        _ = a * 1.0
        loss = tf.square(b) + 1.0
    why = tape.explain(loss, a)
    assert why.cause == "no_path"
    assert "'b:0'" in str(why) and "`add`" in str(why)


def test_after_gradient_on_a_non_persistent_tape():
    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        y = x * 2.0
    tape.gradient(y, x)
    why = tape.explain(y, x)
    assert why.cause == "released" and "persistent=True" in str(why)


def test_explain_rejects_non_tensors_with_the_role():
    with tf.GradientTape() as tape:
        pass
    with pytest.raises(TypeError, match="as the source"):
        tape.explain(tf.constant(1.0), [tf.constant(1.0)])


def test_target_is_the_source():
    x = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        pass
    assert tape.explain(x, x).connected


# -- memory_report ---------------------------------------------------------------------

def test_memory_report_totals_are_the_bytes_of_the_arrays_held():
    model = tf.keras.Sequential([tf.keras.layers.Dense(16, activation="relu", name="hidden"),
                                 tf.keras.layers.Dense(3, name="logits")])
    x = np.random.default_rng(0).random((8, 5), dtype=np.float32)
    model(x)
    with tf.GradientTape() as tape:
        out = model(x)
        loss = tf.reduce_mean(out * out)
    report = tape.memory_report()
    # Count by hand: every distinct non-Variable array of every record, once.
    arrays = {}
    for _, inputs, result, _ in tape._records:
        for t in (result, *inputs):
            if not isinstance(t, tf.Variable):
                arrays[id(t._value)] = t._value.nbytes
    assert report.total_bytes == sum(arrays.values())
    assert report.records == len(tape._records) == 7
    assert report.by_layer["hidden"][0] == 3  # matmul, bias add, relu
    assert report.by_layer["logits"][0] == 2
    assert report.by_layer["hidden"][1] == 3 * 8 * 16 * 4
    assert report.by_op["relu"] == (1, 8 * 16 * 4)
    assert sum(size for _, size in report.by_op.values()) == report.total_bytes
    assert "hidden" in str(report) and "records" in str(report)
    del loss


def test_memory_report_counts_a_view_once():
    x = tf.constant(np.ones((4, 4), np.float32))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reshape(x * 2.0, (16,))
    report = tape.memory_report()
    # x, the scalar 2.0 and x * 2; the reshape is a view of x * 2, not more memory
    assert report.total_bytes == 64 + 4 + 64
    del y


def test_a_large_persistent_tape_that_outlives_its_step_is_warned_once(monkeypatch, caplog):
    monkeypatch.setattr(tape_memory, "LIMIT_BYTES", 1000)
    x = tf.Variable(np.ones(1000, np.float32))
    with tf.GradientTape(persistent=True) as old:
        y = x * 2.0
    with caplog.at_level(logging.WARNING, logger="tapeflow"):
        for _ in range(2):
            with tf.GradientTape():
                pass
    warnings = [r for r in caplog.records if "still holds" in r.getMessage()]
    assert len(warnings) == 1 and HERE in warnings[0].getMessage()
    del old, y


# -- the optimizer says why (issue 22 part 2) ---------------------------------------------

def test_apply_gradients_warns_once_per_variable_with_the_reason(caplog):
    used, unused = tf.Variable(1.0, name="used"), tf.Variable(2.0, name="unused_w")
    opt = tf.keras.optimizers.SGD(0.1)
    with caplog.at_level(logging.WARNING, logger="tapeflow"):
        for _ in range(3):
            line = next_line()
            with tf.GradientTape() as tape:
                loss = used * used
            grads = tape.gradient(loss, [used, unused])
            opt.apply_gradients(zip(grads, [used, unused]))
    warnings = [r.getMessage() for r in caplog.records if "Gradients do not exist" in r.getMessage()]
    assert len(warnings) == 1
    assert "['unused_w:0']" in warnings[0]
    assert "never read while the tape" in warnings[0] and f"{HERE}:{line}" in warnings[0]
def test_no_gradients_error_carries_each_reason():
    v = tf.Variable(1.0, name="frozen_in", trainable=False)
    w = tf.Variable(1.0, name="cut_w")
    opt = tf.keras.optimizers.SGD(0.1)
    with tf.GradientTape() as tape:
        loss = v * tf.stop_gradient(w * 2.0)
    grads = tape.gradient(loss, [v, w])
    with pytest.raises(ValueError) as info:
        opt.apply_gradients(zip(grads, [v, w]))
    text = str(info.value)
    assert "No gradients provided for any variable: ['frozen_in:0', 'cut_w:0']" in text
    assert "frozen_in:0: Variable 'frozen_in:0' has trainable=False" in text
    assert "cut_w:0: Every path from Variable 'cut_w:0'" in text and "stop_gradient" in text


@pytest.mark.parametrize("how", [".numpy()", "np.asarray", "float()"])
def test_a_value_that_left_the_tape_is_named_with_its_line(how):
    w = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        y = w * 3.0
        line = next_line()
        left = y.numpy() if how == ".numpy()" else np.asarray(y) if how == "np.asarray" else float(y[0])  # noqa: E501
        z = tf.constant(left) * 1.0
    why = tape.explain(z, w)
    assert why.cause == "left_tape" and how in str(why)
    assert names_line(why, line)


def test_stop_gradient_and_ops_without_gradient_on_every_path():
    x = tf.Variable([1.0, 5.0, 3.0])
    with tf.GradientTape(persistent=True) as tape:
        line_stop = next_line()
        cut = tf.stop_gradient(x * 2.0) * 3.0
        line_argmax = next_line()
        picked = tf.cast(tf.argmax(x), tf.float32) * 2.0
        line_round = next_line()
        rounded = tf.round(x * 1.5)
    for target, line, op in ((cut, line_stop, "stop_gradient"), (picked, line_argmax, "argmax"),
                             (rounded, line_round, "round")):
        why = tape.explain(target, x)
        assert why.cause == "no_gradient_op", (op, str(why))
        assert f"`{op}`" in str(why) and names_line(why, line)
        assert tape.gradient(target, x) is None


def test_readme_example_names_each_cause():
    w = tf.Variable([1.0, 2.0], name="w")
    with tf.GradientTape(persistent=True) as tape:
        y = w * 3.0
        z = tf.constant(np.exp(y.numpy()))
        k = tf.cast(tf.argmax(y), tf.float32)
    assert tape.explain(z, w).cause == "left_tape"
    assert tape.explain(k, w).cause == "no_gradient_op"
    assert tape.explain(tf.reduce_sum(y), w).cause == "after_context"


def test_a_constant_copied_from_a_tracked_tensor_is_a_cut():
    x = tf.Variable([1.0, 2.0])
    with tf.GradientTape() as tape:
        line = next_line()
        copy = tf.constant(x * 2.0)
        z = copy * 3.0
    why = tape.explain(z, x)
    assert why.cause == "left_tape" and "tf.constant(tensor)" in str(why)
    assert names_line(why, line)
