"""tf.cond, tf.while_loop, tf.case, tf.switch_case: TF's values and errors,
float64 gradient checks (first and second order) through them, and their
behaviour inside a traced function (a constant predicate traces; a traced one
runs that signature eagerly, with the right values)."""

import warnings

import numpy as np
import pytest
import tapeflow as tf
from tapeflow.testing.gradients import gradcheck


def _no_warnings():
    context = warnings.catch_warnings()
    context.__enter__()
    warnings.simplefilter("error")
    return context


# -- tf.cond -----------------------------------------------------------------------
def test_cond_values_and_tf_doc_example():
    x, y = tf.constant(2), tf.constant(5)
    # TF's docstring: tf.cond(x < y, lambda: tf.add(x, z), lambda: tf.square(y))
    z = tf.constant(3)
    assert int(tf.cond(x < y, lambda: tf.add(x, z), lambda: tf.square(y))) == 5
    assert int(tf.cond(x > y, lambda: tf.add(x, z), lambda: tf.square(y))) == 25
    assert tf.cond(True, lambda: (1, 2), lambda: (3, 4)) == (1, 2)


def test_cond_errors():
    with pytest.raises(TypeError, match="true_fn must be callable"):
        tf.cond(True, 1, lambda: 2)
    with pytest.raises(TypeError, match="false_fn must be callable"):
        tf.cond(True, lambda: 1, None)
    with pytest.raises(ValueError, match=r"shape \(2,\)"):
        tf.cond(tf.constant([True, False]), lambda: 1, lambda: 2)
    with pytest.raises(TypeError, match="float32"):
        tf.cond(tf.constant(1.0), lambda: 1, lambda: 2)


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 3)])
def test_cond_gradcheck(shape):
    x = np.random.default_rng(0).normal(size=shape)
    gradcheck(lambda t: tf.cond(tf.constant(True), lambda: tf.sin(t) * t, lambda: t), x)
    gradcheck(lambda t: tf.cond(tf.constant(False), lambda: t, lambda: tf.exp(t) * 2.0), x)


# -- tf.while_loop ---------------------------------------------------------------------
def test_while_loop_tf_doc_examples():
    i = tf.constant(0)
    assert int(tf.while_loop(lambda i: tf.less(i, 10), lambda i: (tf.add(i, 1),), [i])[0]) == 10
    # A single loop variable that is not a list comes back bare.
    assert int(tf.while_loop(lambda i: i < 10, lambda i: i + 1, i)) == 10
    # TF's nested example: ijk_0 = (0, (1, 2)), c: i < 10, b: (i + 1, ((j + k), (j - k)))
    i, (j, k) = tf.while_loop(lambda i, p: i < 10,
                              lambda i, p: (i + 1, (p[0] + p[1], p[0] - p[1])),
                              (tf.constant(0), (tf.constant(1), tf.constant(2))))
    a, b = 1, 2
    for _ in range(10):
        a, b = a + b, a - b
    assert (int(i), int(j), int(k)) == (10, a, b)


def test_while_loop_maximum_iterations_and_errors():
    out = tf.while_loop(lambda i: True, lambda i: i + 1, [tf.constant(0)], maximum_iterations=7)
    assert int(out[0]) == 7
    with pytest.raises(TypeError, match="'cond' must be callable"):
        tf.while_loop(1, lambda i: i, [0])
    with pytest.raises(ValueError, match=r"shape \(1,\).*\(2,\)"):
        tf.while_loop(lambda x: tf.size(x) < 3, lambda x: tf.concat([x, x], 0), [tf.ones([1])])
    grown = tf.while_loop(lambda x: tf.size(x) < 3, lambda x: tf.concat([x, x], 0),
                          [tf.ones([1])], shape_invariants=[tf.TensorShape([None])])
    assert tuple(grown[0].shape) == (4,)
    with pytest.raises(TypeError, match="int32.*float32"):
        tf.while_loop(lambda x: x < 3, lambda x: tf.cast(x, tf.float32) + 1.0, [tf.constant(0)])


@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (0, 2)])
def test_while_loop_gradcheck(shape):
    x = np.random.default_rng(1).normal(size=shape) * 0.5

    def repeated(t):
        _, out = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.sin(v) + v * t),
                               (tf.constant(0), t))
        return out

    gradcheck(repeated, x)


# -- tf.case and tf.switch_case --------------------------------------------------------
def test_case_tf_doc_examples():
    x, y = tf.constant(1), tf.constant(2)
    f1, f2, f3 = lambda: tf.constant(17), lambda: tf.constant(23), lambda: tf.constant(-1)
    assert int(tf.case([(tf.less(x, y), f1)], default=f2)) == 17
    assert int(tf.case([(tf.less(y, x), f1)], default=f2)) == 23
    z = tf.constant(3)
    r = tf.case([(tf.less(x, y), f1), (tf.greater(x, z), f2)], default=f3, exclusive=True)
    assert int(r) == 17
    assert int(tf.case([(tf.less(y, x), f1), (tf.less(x, y), f2)])) == 23
    assert tf.case([(True, lambda: [5])]) == 5  # a singleton list is unpacked
    assert tf.case([(True, lambda: [5])], strict=True) == [5]


def test_case_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="more than 1"):
        tf.case([(True, lambda: 1), (True, lambda: 2)], exclusive=True)
    with pytest.raises(tf.errors.InvalidArgumentError, match="None of conditions"):
        tf.case([(False, lambda: 1)])
    with pytest.raises(TypeError, match="must be callable"):
        tf.case([(True, 3)])


def test_switch_case_values():
    branches = {0: lambda: tf.constant(17), 1: lambda: tf.constant(13)}
    default = lambda: tf.constant(-1)
    assert int(tf.switch_case(tf.constant(1), branches, default)) == 13
    assert int(tf.switch_case(tf.constant(5), branches, default)) == -1
    assert int(tf.switch_case(-1, [lambda: 1, lambda: 2])) == 2  # TF: the last branch
    with pytest.raises(ValueError, match="at least one"):
        tf.switch_case(0, [])
    with pytest.raises(TypeError, match="int32 or int64"):
        tf.switch_case(tf.constant(1.0), [lambda: 1])


@pytest.mark.parametrize("shape", [(), (2, 3), (0,)])
def test_case_and_switch_case_gradcheck(shape):
    x = np.random.default_rng(2).normal(size=shape)
    gradcheck(lambda t: tf.case([(tf.constant(False), lambda: t), (tf.constant(True),
                                                                   lambda: tf.tanh(t) * t)]), x)
    gradcheck(lambda t: tf.switch_case(tf.constant(1), [lambda: t, lambda: tf.square(t) * 3.0]),
              x)


# -- inside a traced function ---------------------------------------------------------
def test_constant_predicate_traces_and_replays():
    @tf.function
    def f(x, flag):
        return tf.cond(flag, lambda: x * 2.0, lambda: x - 1.0)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(f(tf.constant(3.0), True)) == 6.0
        assert float(f(tf.constant(4.0), True)) == 8.0
        assert float(f(tf.constant(4.0), False)) == 3.0
    assert f.experimental_get_tracing_count() == 2


def test_traced_predicate_is_one_switch_node_for_both_branches():
    runs = []

    @tf.function
    def f(x):
        runs.append(1)  # Python: while tracing only (both branches are traced once)
        y = tf.cond(tf.reduce_sum(x) > 0, lambda: x * 2.0, lambda: -x)
        return tf.while_loop(lambda v: tf.reduce_sum(v) < 100.0, lambda v: v * 3.0, [y])[0]

    context = _no_warnings()
    try:
        np.testing.assert_array_equal(f(tf.constant([1.0, 2.0])).numpy(), [54.0, 108.0])
        np.testing.assert_array_equal(f(tf.constant([-1.0, -2.0])).numpy(), [81.0, 162.0])
    finally:
        context.__exit__(None, None, None)
    assert runs == [1]


def test_traced_case_and_switch_case_pick_at_every_call():
    @tf.function
    def f(x, i):
        a = tf.case([(x < 0.0, lambda: x * 10.0), (x > 5.0, lambda: x - 5.0)],
                    default=lambda: x)
        b = tf.switch_case(i, [lambda: a + 1.0, lambda: a + 2.0], default=lambda: a * 0.0)
        return b

    context = _no_warnings()
    try:
        got = [float(f(tf.constant(x), tf.constant(i))) for x, i in
               ((-1.0, 0), (7.0, 1), (2.0, 0), (2.0, 9))]
    finally:
        context.__exit__(None, None, None)
    assert got == [-9.0, 4.0, 3.0, 0.0]
    assert f.experimental_get_tracing_count() == 1
    with pytest.raises(tf.errors.InvalidArgumentError, match="None of conditions"):
        tf.function(lambda x: tf.case([(x < 0.0, lambda: x)]))(tf.constant(1.0))


def test_branch_not_taken_with_an_effect_runs_eagerly():
    v = tf.Variable(0.0)

    @tf.function(autograph=False)  # (AutoGraph records the dry assignment: test_autograph.py)
    def f(x):
        return tf.cond(x > 0.0, lambda: x, lambda: v.assign_add(1.0) + 0.0)

    with pytest.warns(UserWarning, match="branch not taken"):
        assert float(f(tf.constant(2.0))) == 2.0
    assert float(v) == 0.0  # the dry branch's assignment never ran
    assert float(f(tf.constant(-2.0))) == 1.0
    assert float(v) == 1.0


def test_gradient_through_a_traced_cond_matches_eager():
    def fn(x):
        return tf.cond(tf.reduce_sum(x) > 0, lambda: tf.sin(x) * x, lambda: tf.exp(x))

    traced = tf.function(fn)
    context = _no_warnings()
    try:
        for value in ([0.5, 1.0], [-0.5, -1.0]):
            x = tf.constant(np.array(value))
            with tf.GradientTape() as tape:
                tape.watch(x)
                got = traced(x)
            grad = tape.gradient(got, x)
            with tf.GradientTape() as tape:
                tape.watch(x)
                want = fn(x)
            np.testing.assert_array_equal(got.numpy(), want.numpy())
            np.testing.assert_array_equal(grad.numpy(), tape.gradient(want, x).numpy())
        gradcheck(traced, np.array([0.3, 0.4]))
        gradcheck(traced, np.array([-0.3, -0.4]))
    finally:
        context.__exit__(None, None, None)


def test_branches_with_different_structures_raise_tf_error():
    @tf.function
    def f(x):
        return tf.cond(x > 0.0, lambda: (x, x), lambda: x)

    with pytest.raises(ValueError, match="same number, type, and overall structure"):
        f(tf.constant(1.0))


# -- tf.while_loop as one node of a traced function ---------------------------------------
def test_traced_while_loop_is_one_node_replayed_for_any_count():
    body_runs = []

    def body(i, total):
        body_runs.append(1)  # Python: runs while tracing only
        return i + 1, total + tf.cast(i, tf.float32) * 0.5

    @tf.function
    def f(n, start):
        return tf.while_loop(lambda i, total: i < n, body, (tf.constant(0), start))[1]

    context = _no_warnings()
    try:
        results = [float(f(tf.constant(n), tf.constant(1.0))) for n in (4, 10, 1, 7)]
    finally:
        context.__exit__(None, None, None)
    assert results == [1.0 + 0.5 * sum(range(n)) for n in (4, 10, 1, 7)]
    assert body_runs == [1]  # one trace of the body, for 22 iterations in all
    assert f.experimental_get_tracing_count() == 1


def test_traced_while_loop_with_assignments_and_maximum_iterations():
    v = tf.Variable(0.0)

    @tf.function
    def f(x):
        def body(i):
            v.assign_add(x)
            return i + 1
        return tf.while_loop(lambda i: True, body, [tf.constant(0)], maximum_iterations=5)

    context = _no_warnings()
    try:
        assert int(f(tf.constant(1.0))[0]) == 5
        assert float(v) == 5.0
        assert int(f(tf.constant(2.0))[0]) == 5
    finally:
        context.__exit__(None, None, None)
    assert float(v) == 15.0


def test_gradient_through_a_traced_while_loop_matches_eager():
    def fn(x):
        _, out = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, tf.sin(v) * x + v),
                               (tf.constant(0), x))
        return out

    traced = tf.function(fn)
    x0 = np.random.default_rng(5).normal(size=(2, 3))
    context = _no_warnings()
    try:
        gradcheck(traced, x0)  # its first call (the trace) runs under gradcheck's tapes
    finally:
        context.__exit__(None, None, None)
    for value in (x0, x0 * 2):
        x = tf.constant(value)
        with tf.GradientTape() as tape:
            tape.watch(x)
            got = traced(x)
        grad_traced = tape.gradient(got, x)
        with tf.GradientTape() as tape:
            tape.watch(x)
            want = fn(x)
        np.testing.assert_array_equal(got.numpy(), want.numpy())
        np.testing.assert_array_equal(grad_traced.numpy(), tape.gradient(want, x).numpy())


def test_traced_while_loop_under_an_inner_tape_is_unrolled_with_right_values():
    @tf.function
    def f(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x),
                              (tf.constant(0), tf.ones_like(x)))[1]
        return tape.gradient(y, x)  # d(x^3)/dx

    context = _no_warnings()
    try:
        assert [float(f(tf.constant(v))) for v in (1.0, 2.0)] == [3.0, 12.0]
    finally:
        context.__exit__(None, None, None)


def test_traced_while_loop_false_at_once_is_still_a_loop_node():
    @tf.function(autograph=False)
    def f(x):
        return tf.while_loop(lambda v: tf.reduce_sum(v) < 10.0, lambda v: v * 2.0, [x])[0]

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the body is traced dry, not run eagerly
        assert float(f(tf.constant(20.0))) == 20.0
        assert float(f(tf.constant(3.0))) == 12.0
    assert f.experimental_get_tracing_count() == 1


def test_loop_in_a_branch_not_taken_runs_eagerly_without_running_it():
    v = tf.Variable(0.0)

    def count_up():
        def body(i):
            v.assign_add(1.0)
            return i + 1
        return tf.cast(tf.while_loop(lambda i: i < 3, body, [tf.constant(0)])[0], tf.float32)

    @tf.function
    def f(x):
        return tf.cond(x > 0.0, lambda: x, count_up)

    with pytest.warns(UserWarning, match="runs eagerly"):
        assert float(f(tf.constant(2.0))) == 2.0
    assert float(v) == 0.0
    assert float(f(tf.constant(-1.0))) == 3.0
    assert float(v) == 3.0


@tf.function
def _module_level_countdown(n):
    if n > 0:
        return _module_level_countdown(n - 1)
    return n


def test_endless_recursion_in_a_branch_not_taken_raises_as_in_tf():
    # TF's guide: the branch not taken recurses without end while tracing, and TF
    # raises the maximum recursion error (it is not a failure on the values).
    @tf.function
    def recursive_fn(n):
        if n > 0:
            return recursive_fn(n - 1)
        else:
            return 1

    with pytest.raises(RecursionError):
        recursive_fn(tf.constant(5))
    with pytest.raises(RecursionError):  # a module-level function: its own name is a global
        _module_level_countdown(tf.constant(2))
    assert _module_level_countdown(3) == 0  # Python ints: traced once per value, no branch
    assert tf.autograph.to_code(_module_level_countdown.python_function).startswith(
        "def _module_level_countdown(")


def test_a_branch_not_taken_failing_on_its_values_still_runs_eagerly():
    @tf.function
    def f(x, i):
        if x > 0:
            return x
        return tf.gather(x[None], i)  # index 3 is out of range for the taken x > 0

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert f(tf.constant(2.0), tf.constant(3)).numpy() == 2.0
    assert any("branch not taken failed" in str(w.message) for w in caught)
