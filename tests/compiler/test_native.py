"""Traced graphs run as generated Numba code (compiler/codegen.py, lowering.py,
native.py): the values equal the executor's and eager's, the tiers move as
documented, and what cannot be lowered or disagrees stays on the executor."""

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.compiler import lowering, native, segments
from tapeflow.compiler.native import native_state

EXPECTED_X = np.float32(0.99999857)  # seed 004's x after 1000 SGD steps


@pytest.fixture(autouse=True)
def _own_cache(function_cache):
    """Each test compiles into its own cache directory and starts with no measurements."""


def _graphs(function):
    return [g for c in function._concrete for g in c._graphs.values()]


def _seed_loop(jit_compile):
    x = tf.Variable(0.0)
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)

    @tf.function(jit_compile=jit_compile)
    def minimize():
        a, b, c = tf.constant(1.0), tf.constant(-2.0), tf.constant(1.0)

        def body(i):
            with tf.GradientTape() as tape:
                y = a * tf.pow(x, 2) + b * x + c
            optimizer.apply_gradients([(tape.gradient(y, x), x)])
            return (i + 1,)

        tf.while_loop(lambda i: i < 1000, body, (tf.constant(0),))
        return a * tf.pow(x, 2) + b * x + c

    return x, optimizer, minimize


def test_seed_004_loop_compiles_and_ends_where_eager_does():
    x, optimizer, minimize = _seed_loop(jit_compile=True)
    results = []
    for _ in range(4):  # trace, probe, check, native
        x.assign(0.0)
        results.append(float(minimize()))
        assert x.numpy() == EXPECTED_X
    (graph,) = _graphs(minimize)
    assert native_state(graph) == ("native", None)
    assert "while True:" in graph.tier.source.text
    assert results[-1] == results[0]
    assert int(optimizer.iterations.numpy()) == 4000  # the update's counter is lowered too


def test_w1_step_compiled_follows_the_eager_trajectory_exactly():
    def trajectory(jit_compile):
        x = tf.Variable(0.0)
        optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)

        def step():
            with tf.GradientTape() as tape:
                y = 1.0 * x**2 + -2.0 * x + 1.0
            optimizer.apply_gradients([(tape.gradient(y, x), x)])

        if jit_compile is not None:
            step = tf.function(step, jit_compile=jit_compile)
        seen = []
        for _ in range(50):
            step()
            seen.append(x.numpy())
        return np.array(seen), step

    eager, _ = trajectory(None)
    compiled, step = trajectory(True)
    np.testing.assert_array_equal(compiled, eager)
    assert native_state(_graphs(step)[0])[0] == "native"


def test_jit_compile_false_never_compiles():
    x, _, minimize = _seed_loop(jit_compile=False)
    for _ in range(3):
        minimize()
    assert native_state(_graphs(minimize)[0]) == ("off", None)


def test_default_compiles_once_replays_have_cost_a_compile(monkeypatch):
    monkeypatch.setattr(native, "_FIRST_GUESS", 0.0)  # any replay time pays
    x, _, minimize = _seed_loop(jit_compile=None)
    for _ in range(4):
        x.assign(0.0)
        minimize()
        assert x.numpy() == EXPECTED_X
    assert native_state(_graphs(minimize)[0])[0] == "native"
    assert len(native._compile_seconds) == 1  # the compile was measured


def test_default_keeps_replaying_a_graph_called_rarely():
    x, _, minimize = _seed_loop(jit_compile=None)
    for _ in range(3):
        minimize()
    (graph,) = _graphs(minimize)
    assert native_state(graph)[0] == "replay"
    assert graph.tier.source is not None  # generated at the second call, not compiled
    assert "numba" not in sys.modules or native._loaded == {}


def test_elementwise_arrays_and_assignments_lower():
    v = tf.Variable(np.linspace(-1.0, 1.0, 12).reshape(3, 4))
    w = tf.Variable(0.0, dtype=tf.float64)

    def f(a, b):
        y = tf.exp(a) * b - tf.sqrt(tf.abs(b)) + tf.maximum(a, b) / (1.0 + tf.square(a))
        v.assign_add(tf.tanh(y))
        w.assign_sub(tf.cast(tf.reduce_sum(v) > 0.0, tf.float64))
        return y + v, tf.nn.relu(a)

    rng = np.random.default_rng(0)
    a = tf.constant(rng.normal(size=(3, 4)))
    b = tf.constant(rng.normal(size=(3, 4)))
    compiled = tf.function(f, jit_compile=True)
    v0 = v.numpy().copy()
    for _ in range(4):
        compiled(a, b)
    got, got_relu = compiled(a, b)
    v_compiled, w_compiled = v.numpy().copy(), w.numpy()
    v.assign(v0)
    w.assign(0.0)
    for _ in range(5):
        want, want_relu = f(a, b)
    np.testing.assert_allclose(v_compiled, v.numpy(), rtol=1e-12)
    np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)
    np.testing.assert_array_equal(got_relu.numpy(), want_relu.numpy())
    assert w_compiled == w.numpy()
    assert native_state(_graphs(compiled)[0]) == ("native", None)


def test_integer_loop_counter_stays_int32():
    @tf.function(jit_compile=True)
    def count(n):
        return tf.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + i), (0, 0))

    for _ in range(3):
        i, s = count(tf.constant(10))
    i, s = count(tf.constant(100))
    assert i.dtype == tf.int32 and s.dtype == tf.int32
    assert (int(i), int(s)) == (100, 4950)
    assert native_state(_graphs(count)[0])[0] == "native"


def test_an_op_without_a_lowering_warns_under_jit_compile_and_stays_right():
    @tf.function(jit_compile=True)
    def f(a):
        return tf.matmul(a, a) + 1.0

    a = tf.constant(np.eye(3, dtype=np.float32) * 2)
    with pytest.warns(UserWarning, match="matmul"):
        for _ in range(3):
            out = f(a)
    np.testing.assert_array_equal(out.numpy(), np.eye(3) * 4 + 1)
    state, reason = native_state(_graphs(f)[0])
    assert state == "off" and "the op matmul" in reason


def test_compiled_code_that_disagrees_is_not_used(monkeypatch):
    monkeypatch.setitem(lowering.EXPRESSIONS, "add", "{0} - {1}")  # a wrong lowering

    @tf.function(jit_compile=True)
    def f(a, b):
        return a + b

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(4):
            out = f(tf.constant([1.0, 2.0]), tf.constant([10.0, 20.0]))
    np.testing.assert_array_equal(out.numpy(), [11.0, 22.0])
    assert native_state(_graphs(f)[0]) == ("off", "its compiled code disagreed with the executor")


def test_a_second_process_finds_the_compiled_code_in_the_disk_cache(tmp_path):
    script = textwrap.dedent("""
        import tapeflow as tf
        from tapeflow.compiler.native import native_state
        x = tf.Variable(0.0)
        opt = tf.keras.optimizers.SGD(learning_rate=0.01)
        ramp = tf.constant([float(i) for i in range(300)])
        @tf.function(jit_compile=True)
        def step():
            with tf.GradientTape() as tape:
                y = x * x - 2.0 * x + 1.0
            opt.apply_gradients([(tape.gradient(y, x), x)])
            return tf.reduce_mean(tf.square(ramp - x))  # the pairwise helpers, from the cache
        for _ in range(4):
            mean = step()
        (graph,) = [g for c in step._concrete for g in c._graphs.values()]
        print(native_state(graph)[0], graph.tier.cached, x.numpy(), mean.numpy())
    """)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    outputs = [run.stdout.split() for run in runs]
    assert all(run.returncode == 0 for run in runs), [run.stderr for run in runs]
    assert outputs[0][:2] == ["native", "False"]
    assert outputs[1][:2] == ["native", "True"]
    assert outputs[0][2:] == outputs[1][2:]


def test_unlowerable_reasons_name_the_node():
    @tf.function(jit_compile=True)
    def f(a):
        tf.print(a)
        return a * 2.0

    with pytest.warns(UserWarning, match="print"):
        for _ in range(3):
            f(tf.constant(1.0))


def test_generated_code_must_give_the_replays_bits_unless_jit_compile_was_asked():
    """Compiled by default, a step must not change its result (a resumed run
    replays where the straight run ran compiled); jit_compile=True accepts
    ulps, as XLA's numerics may differ in TF."""
    from tapeflow.compiler import native
    a = np.float32([1.0, 2.0, np.nan])
    one_ulp = np.nextafter(a, np.float32(3))
    assert native._agree(a, a.copy())
    assert not native._agree(one_ulp, a)
    assert native._agree(one_ulp, a, exact=False)
    assert not native._agree(a.astype(np.float64), a, exact=False)  # a dtype change is wrong
    assert not native._agree(np.int32([1, 2]), np.int32([1, 3]), exact=False)


@pytest.mark.parametrize("dtype", [tf.float32, tf.float64])
def test_means_and_sums_compile_by_default_and_give_the_executors_bits(monkeypatch, dtype):
    """The exact check accepts a loss's mean: it used to keep such graphs replayed."""
    monkeypatch.setattr(native, "_FIRST_GUESS", 0.0)  # any replay time pays

    def f(a, b):
        d = tf.square(a - b)
        return (tf.reduce_mean(d), tf.reduce_sum(d, axis=-1), tf.reduce_mean(d, axis=1),
                tf.reduce_mean(d, axis=0), tf.reduce_sum(a))

    rng = np.random.default_rng(3)
    a = tf.constant(rng.standard_normal((37, 300)) * 10, dtype=dtype)
    b = tf.constant(rng.standard_normal((37, 300)), dtype=dtype)
    compiled = tf.function(f)
    for _ in range(4):
        got = compiled(a, b)
    assert native_state(_graphs(compiled)[0]) == ("native", None)
    for g, w in zip(got, f(a, b)):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g.numpy(), w.numpy())


def test_division_by_zero_in_compiled_code_gives_inf_and_nan_as_numpy():
    @tf.function(jit_compile=True)
    def f(x, y):
        return x / y + 1.0

    for _ in range(3):
        assert float(f(tf.constant(1.0), tf.constant(2.0))) == 1.5
    assert native_state(_graphs(f)[0]) == ("native", None)
    with np.errstate(divide="ignore", invalid="ignore"):
        assert float(f(tf.constant(1.0), tf.constant(0.0))) == np.inf  # not ZeroDivisionError
        assert np.isnan(float(f(tf.constant(0.0), tf.constant(0.0))))


def _sums(x):
    return tf.reduce_sum(x), tf.reduce_mean(x, axis=-1)


@pytest.mark.parametrize("how", ["argument", "transposed inside"])
def test_compiled_sums_replay_calls_on_views_whose_sums_numpy_adds_in_another_order(how):
    # NumPy adds a Fortran-ordered or strided array in memory order, or row by row in
    # sequence: code adding in C order would differ in the last bits, silently.
    if how == "argument":  # one graph for every layout (its signature has no layout)
        compiled = tf.function(_sums, jit_compile=True,
                               input_signature=[tf.TensorSpec(None, tf.float32)])
        f = _sums
    else:  # a transpose (not lowered) hands the compiled segment a view
        compiled = tf.function(lambda x: _sums(tf.transpose(x)), jit_compile=True)
        f = lambda x: _sums(tf.transpose(x))  # noqa: E731
    base = np.random.default_rng(5).standard_normal((300, 64)).astype(np.float32) * 100
    c_ordered = base if how == "argument" else np.ascontiguousarray(base.T)
    other = np.asfortranarray(base) if how == "argument" else base
    for _ in range(4):
        compiled(tf.constant(c_ordered))
    for x in (c_ordered, other, c_ordered):
        for got, want in zip(compiled(tf.constant(x)), f(tf.constant(x))):
            assert got.numpy().tobytes() == want.numpy().tobytes()
    graph = _graphs(compiled)[0]
    if how == "argument":
        assert native_state(graph) == ("native", None)
    else:
        # its input is a view at every call: checked on none, it replays
        assert [s.state for s in segments.segments_of(graph.tier.partial)] == ["check"]


def test_compiled_sums_keep_numpys_zero_sign_and_mean_rounding():
    @tf.function(jit_compile=True)
    def f(x):
        return tf.reduce_sum(x * -1.0), tf.reduce_mean(x)

    ones = tf.ones((16,))
    for _ in range(4):
        f(ones)
    assert native_state(_graphs(f)[0]) == ("native", None)
    total, _ = f(tf.zeros((16,)))
    assert not np.signbit(total.numpy())  # NumPy's sum of -0.0s starts from +0.0
    # above 2**24 a float32 count is inexact: np.mean divides in float64
    big = np.random.default_rng(0).random(2**24 + 3, dtype=np.float32)  # the two round apart
    g = tf.function(lambda x: tf.reduce_mean(x * 1.0), jit_compile=True)
    for _ in range(4):
        got = g(tf.constant(big))
    assert native_state(_graphs(g)[0]) == ("native", None)
    assert got.numpy().tobytes() == np.mean(big * np.float32(1.0)).tobytes()


def test_exact_agreement_tells_the_signs_of_zero_apart():
    assert not native._agree(np.float32([-0.0, 1.0]), np.float32([0.0, 1.0]))
    assert native._agree(np.float32([-0.0, np.nan]), np.float32([-0.0, np.nan]))
    assert native._agree(np.float32([-0.0]), np.float32([0.0]), exact=False)


@pytest.mark.parametrize("name", ["exp", "tanh", "log", "pow"])
def test_functions_numba_rounds_otherwise_stay_on_the_executor_unless_jit_compile(
        monkeypatch, name):
    # float32 exp differs between Numba and NumPy for ~40% of values: a check on one
    # call's scalar could pass and the next call's differ, so exact code leaves them out
    monkeypatch.setattr(native, "_FIRST_GUESS", 0.0)  # any replay time pays
    fn = {"exp": tf.exp, "tanh": tf.tanh, "log": lambda x: tf.math.log(tf.abs(x) + 1.0),
          "pow": lambda x: tf.pow(tf.abs(x) + 1.0, 1.7)}[name]

    def f(x):
        return fn(x) * 3.0 + 1.0

    default, jit = tf.function(f), tf.function(f, jit_compile=True)
    values = np.random.default_rng(4).standard_normal(64).astype(np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for v in values:
            x = tf.constant(v)
            assert default(x).numpy().tobytes() == f(x).numpy().tobytes()
            np.testing.assert_allclose(jit(x).numpy(), f(x).numpy(), rtol=1e-5)
    state, reason = native_state(_graphs(default)[0])
    assert state in ("off", "partial")  # its other ops may run as a compiled segment
    assert f"{name} where the code must give the executor's bits" in reason
    assert native_state(_graphs(jit)[0])[0] == "native"


def test_a_square_by_pow_2_stays_exact_and_compiled(monkeypatch):
    monkeypatch.setattr(native, "_FIRST_GUESS", 0.0)
    f = tf.function(lambda x: tf.pow(x, 2.0) + x)
    values = np.random.default_rng(6).standard_normal(32).astype(np.float32) * 100
    for v in values:
        assert f(tf.constant(v)).numpy().tobytes() == (v * v + v).tobytes()
    assert native_state(_graphs(f)[0]) == ("native", None)
