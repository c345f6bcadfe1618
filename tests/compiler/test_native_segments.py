"""Graphs that do not lower whole run partly compiled (compiler/segments.py):
runs of lowerable nodes between the matmuls become checked Numba functions,
with the executor's values, and only the other nodes are dispatched."""

import os
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.compiler import lowering, native, segments
from tapeflow.compiler.graph import OP
from tapeflow.compiler.native import native_state


@pytest.fixture(autouse=True)
def _own_cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(native, "_loaded", {})
    monkeypatch.setattr(native, "_spent", {})
    monkeypatch.setattr(native, "_compile_seconds", [])
    # one timed call decides whether a segment is used: fixed here so that the tests
    # do not depend on this machine's load (test_a_slower_segment_is_replayed sets it)
    monkeypatch.setattr(segments.Segment, "_time_compiled", lambda self, inputs: 0.0)


def _graph(function):
    (graph,) = [g for c in function._concrete for g in c._graphs.values()]
    return graph


def _quietly(function, *args, calls=4):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(calls):  # trace + probe, check, then trusted segments
            out = function(*args)
    return out


def _dense_chain(x, w1, b1, w2):
    h = tf.nn.relu(tf.matmul(x, w1) + b1)
    return tf.matmul(h, w2) * 2.0 + 1.0


def _operands(dtype=np.float64):
    rng = np.random.default_rng(0)
    return [tf.constant(rng.normal(size=shape).astype(dtype))
            for shape in ((5, 4), (4, 3), (3,), (3, 2))]


def test_elementwise_runs_between_matmuls_become_segments():
    compiled = tf.function(_dense_chain, jit_compile=True)
    with pytest.warns(UserWarning, match="compiled segments.*matmul"):
        compiled(*_operands())  # the trace's replay
        compiled(*_operands())  # the probe
    got = _quietly(compiled, *_operands())
    graph = _graph(compiled)
    state, reason = native_state(graph)
    assert state == "partial" and "the op matmul" in reason
    found = segments.segments_of(graph.tier.partial)
    assert [s.op_names for s in found] == [["add", "relu"], ["multiply", "add"]]
    assert [s.state for s in found] == ["trusted", "trusted"]
    replayed = _quietly(tf.function(_dense_chain, jit_compile=False), *_operands())
    np.testing.assert_array_equal(got.numpy(), replayed.numpy())  # float64, same formulas
    np.testing.assert_array_equal(got.numpy(), _dense_chain(*_operands()).numpy())


def test_a_value_used_inside_a_segment_and_returned_is_an_output():
    def f(a, w):
        y = a * 3.0
        return y, tf.matmul(y + 1.0, w)

    compiled = tf.function(f, jit_compile=True)
    a, w = tf.constant(np.arange(6.0).reshape(2, 3)), tf.constant(np.ones((3, 1)))
    y, z = _quietly(compiled, a, w)
    np.testing.assert_array_equal(y.numpy(), [[0.0, 3.0, 6.0], [9.0, 12.0, 15.0]])
    np.testing.assert_array_equal(z.numpy(), [[12.0], [39.0]])
    (segment,) = segments.segments_of(_graph(compiled).tier.partial)
    assert segment.op_names == ["multiply", "add"] and segment.state == "trusted"


def test_one_lowerable_node_alone_is_not_a_segment():
    @tf.function(jit_compile=True)
    def f(a):
        return tf.matmul(a, a) + 1.0

    _quietly(f, tf.constant(np.eye(2)))
    assert native_state(_graph(f))[0] == "off"


def test_a_segment_that_disagrees_is_replayed(monkeypatch):
    monkeypatch.setitem(lowering.EXPRESSIONS, "add", "{0} - {1}")  # a wrong lowering
    compiled = tf.function(_dense_chain, jit_compile=True)
    got = _quietly(compiled, *_operands())
    found = segments.segments_of(_graph(compiled).tier.partial)
    assert [s.state for s in found] == ["replayed", "replayed"]
    assert found[0].reason == "its compiled code disagreed with the executor"
    np.testing.assert_array_equal(got.numpy(), _dense_chain(*_operands()).numpy())


def test_a_slower_segment_is_replayed(monkeypatch):
    monkeypatch.setattr(segments.Segment, "_time_compiled", lambda self, inputs: 1e9)
    compiled = tf.function(_dense_chain, jit_compile=True)
    got = _quietly(compiled, *_operands())
    found = segments.segments_of(_graph(compiled).tier.partial)
    assert [s.state for s in found] == ["replayed", "replayed"]
    assert "slower than the replay" in found[0].reason
    np.testing.assert_array_equal(got.numpy(), _dense_chain(*_operands()).numpy())


def test_an_error_in_trusted_code_is_the_replays_error():
    compiled = tf.function(_dense_chain, jit_compile=True)
    _quietly(compiled, *_operands())
    first = segments.segments_of(_graph(compiled).tier.partial)[0]

    def failing(*args):
        raise ValueError("inside the compiled segment")

    first.compiled = failing
    np.testing.assert_array_equal(compiled(*_operands()).numpy(),
                                  _dense_chain(*_operands()).numpy())
    # the replay's own error, not the compiled code's, reaches the caller
    (node,) = [n for n in first.graph.nodes if n[0] == OP and n[1].name == "relu"]

    def bad_forward(x):
        raise tf.errors.InvalidArgumentError(None, None, "relu: the replay's message")

    original = node[1].forward
    node[1].forward = bad_forward
    try:
        with pytest.raises(tf.errors.InvalidArgumentError, match="the replay's message"):
            compiled(*_operands())
    finally:
        node[1].forward = original


def _count_forwards(graph, monkeypatch):
    """Counts of each op's forward calls (a Python-level dispatch), by op name."""
    counts = {}
    ops = {node[1] for node in graph.nodes if node[0] == OP}
    for op in ops:
        def counted(*args, _op=op, _forward=op.forward, **kwargs):
            counts[_op.name] = counts.get(_op.name, 0) + 1
            return _forward(*args, **kwargs)
        monkeypatch.setattr(op, "forward", counted)
    return counts


def test_dispatches_only_the_nodes_that_do_not_lower(monkeypatch):
    def chain(a, b):
        return tf.tanh(a * b + 1.0) - b

    native_fn = tf.function(chain, jit_compile=True)
    partial_fn = tf.function(_dense_chain, jit_compile=True)
    args = [tf.constant(np.linspace(-1.0, 1.0, 6)), tf.constant(np.full(6, 0.5))]
    _quietly(native_fn, *args)
    _quietly(partial_fn, *_operands())
    assert native_state(_graph(native_fn))[0] == "native"
    counts = _count_forwards(_graph(native_fn), monkeypatch)
    native_fn(*args)
    assert counts == {}  # a fully native graph dispatches no op
    counts = _count_forwards(_graph(partial_fn), monkeypatch)
    partial_fn(*_operands())
    assert counts == {"matmul": 2}  # the two segments' four ops are not dispatched


def _mlp_trajectory(jit_compile, optimizer_class, steps=5):
    rng = np.random.default_rng(1)
    w1 = tf.Variable(rng.normal(size=(6, 8)))
    b1 = tf.Variable(rng.normal(size=(8,)) * 0.1)
    w2 = tf.Variable(rng.normal(size=(8, 3)))
    b2 = tf.Variable(np.zeros(3))
    variables = [w1, b1, w2, b2]
    optimizer = optimizer_class(learning_rate=0.05)
    x = tf.constant(rng.normal(size=(10, 6)))
    y = tf.constant(np.arange(10) % 3)

    def step(x, y):
        with tf.GradientTape() as tape:
            logits = tf.matmul(tf.nn.relu(tf.matmul(x, w1) + b1), w2) + b2
            loss = tf.reduce_mean(
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
        grads = tape.gradient(loss, variables)
        optimizer.apply_gradients(zip(grads, variables))
        return loss

    if jit_compile is not None:
        step = tf.function(step, jit_compile=jit_compile)
    losses = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(steps):
            losses.append(float(step(x, y)))
    return losses, [v.numpy() for v in variables], step


@pytest.mark.parametrize("optimizer_class", [tf.keras.optimizers.SGD, tf.keras.optimizers.Adam])
def test_a_traced_training_step_with_segments_follows_eager(optimizer_class):
    eager_losses, eager_values, _ = _mlp_trajectory(None, optimizer_class)
    losses, values, step = _mlp_trajectory(True, optimizer_class)
    partial = _graph(step).tier.partial
    found = segments.segments_of(partial)
    assert ["relu_grad", "unbroadcast"] in [s.op_names[:2] for s in found]  # backward fused
    assert all(s.state == "trusted" for s in found)
    assert "Optimizer.apply" in found[-1].op_names  # the update fuses with the gradients'
    np.testing.assert_allclose(losses, eager_losses, rtol=1e-12)
    for got, want in zip(values, eager_values):
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)


def test_unbroadcast_lowers_only_a_float_leading_sum():
    f32 = np.float32
    assert lowering.unbroadcast_expression("g", {"shape": (3,)}, (5, 3), f32, exact=False) == \
        "reduction_kernels.sum_leading_axis(g)"
    # the code must give the executor's bits: its sum runs on BLAS, in an order of its own
    assert lowering.unbroadcast_expression("g", {"shape": (3,)}, (5, 3), f32) is None
    assert lowering.unbroadcast_expression("g", {"shape": (5, 3)}, (5, 3), f32) == "g"
    assert lowering.unbroadcast_expression("g", {"shape": (1, 3)}, (5, 3), f32) is None
    assert lowering.unbroadcast_expression("g", {"shape": (3,)}, (2, 5, 3), f32) is None
    assert lowering.unbroadcast_expression("g", {"shape": ()}, (5,), f32) is None
    assert lowering.unbroadcast_expression("g", {"shape": (3,)}, (5, 3), np.int32) is None
    assert lowering.unbroadcast_expression("g", {"shape": (3,), "batch_ndim": 1}, (5, 3),
                                           f32) is None


@pytest.mark.parametrize("amsgrad", [False, True])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_adam_lowers_and_follows_its_eager_update(amsgrad, dtype):
    def trajectory(jit_compile):
        w = tf.Variable(np.linspace(-1.0, 2.0, 40).astype(dtype).reshape(8, 5))
        s = tf.Variable(dtype(0.5))
        optimizer = tf.keras.optimizers.Adam(learning_rate=0.1, amsgrad=amsgrad)

        def step():
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(w - 0.25)) + tf.square(s * 3.0 - 1.0)
            optimizer.apply_gradients(zip(tape.gradient(loss, [w, s]), [w, s]))
            return loss

        if jit_compile:
            step = tf.function(step, jit_compile=True)
        _quietly(step, calls=6)
        return w.numpy(), s.numpy(), int(optimizer.iterations.numpy()), step

    w_eager, s_eager, n_eager, _ = trajectory(False)
    w_got, s_got, n_got, step = trajectory(True)
    found = segments.segments_of(_graph(step).tier.partial)  # reduce_sum's gradient: reshape
    assert ["Optimizer.apply"] in [s.op_names[-1:] for s in found]
    assert all(s.state == "trusted" for s in found)
    assert n_got == n_eager == 6
    tolerance = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(w_got, w_eager, rtol=tolerance, atol=tolerance)
    np.testing.assert_allclose(s_got, s_eager, rtol=tolerance)


@pytest.mark.parametrize("threaded", [False, True], ids=["one-thread", "all-threads"])
@pytest.mark.parametrize("kernel", ["adam", "sgd_momentum", "sgd_nesterov", "sgd"])
def test_an_update_on_the_kernel_lowers_to_that_kernel_bit_for_bit(kernel, threaded,
                                                                   monkeypatch):
    """Without jit_compile=True a segment must give eager's bits (native._agree): an
    update that eager runs on its fused kernel (over 16 elements) calls that kernel,
    on the threads eager gives it (all of them from the 'updates' decision's size),
    and the small one the NumPy formulas."""
    from tapeflow.runtime import calibration
    monkeypatch.setattr(native, "_compile_estimate", lambda: 0.0)  # compile at once
    monkeypatch.setattr(calibration, "_forced", {**calibration._forced,
                                                 "updates": 32 if threaded else "one"})

    def trajectory(traced):
        w = tf.Variable(np.linspace(-1.0, 2.0, 40, dtype=np.float32).reshape(8, 5))
        b = tf.Variable(np.float32([0.5, -0.25, 2.0]))
        optimizer = tf.keras.optimizers.Adam(0.1) if kernel == "adam" else \
            tf.keras.optimizers.SGD(0.1, momentum=0.0 if kernel == "sgd" else 0.9,
                                    nesterov=kernel == "sgd_nesterov")

        def step():
            with tf.GradientTape() as tape:
                loss = tf.reduce_sum(tf.square(w - 0.25)) + tf.reduce_sum(tf.exp(b * 0.3))
            optimizer.apply_gradients(zip(tape.gradient(loss, [w, b]), [w, b]))

        if traced:
            step = tf.function(step)
        _quietly(step, calls=8)
        return w.numpy(), b.numpy(), step

    w_eager, b_eager, _ = trajectory(False)
    w_got, b_got, step = trajectory(True)
    (update,) = [s for s in segments.segments_of(_graph(step).tier.partial)
                 if "Optimizer.apply" in s.op_names]
    assert update.state == "trusted", update.reason
    assert update.source.text.count(f"optimizer_kernels.{kernel}(") == 1  # w's, not b's
    np.testing.assert_array_equal(w_got, w_eager)
    np.testing.assert_array_equal(b_got, b_eager)


@pytest.mark.parametrize("kernel", ["adam", "sgd_momentum", "sgd_nesterov"])
def test_generated_updates_flush_small_slots_as_eager(kernel, monkeypatch):
    """The written-out updates (a small array, a scalar, a strided array) zero a slot
    that falls below the floor at the steps eager's NumPy formulas do
    (optimizers/_fused.py `_flush_small`: each step for a small variable, every
    FLUSH_PERIOD-th for a larger one), so the segment's compiled code agrees with
    its replay and is trusted."""
    from tapeflow.optimizers import _fused
    monkeypatch.setattr(native, "_compile_estimate", lambda: 0.0)  # compile at once
    variables = [tf.Variable(np.ones((8, 5), np.float32)),  # the kernel's
                 tf.Variable(np.ones(3, np.float32)), tf.Variable(np.float32(1.0))]
    if kernel != "adam":  # (Adam's written-out loop reshapes: Numba cannot on a strided array)
        strided = tf.Variable(np.ones((40, 50), np.float32))  # written out: a Variable holds
        strided._value = np.ones((50, 40), np.float32).T  # C order, an array set in may not
        variables.append(strided)
    optimizer = tf.keras.optimizers.Adam(0.1) if kernel == "adam" else \
        tf.keras.optimizers.SGD(0.1, momentum=0.9, nesterov=kernel == "sgd_nesterov")
    optimizer.build(variables)
    slots = [list(optimizer._slots[optimizer._index[id(v)]]) for v in variables]
    below_floor = -_fused.slot_floor(np.float32) * 1.001  # zero after one decay and flush

    @tf.function
    def step():
        with tf.GradientTape() as tape:
            loss = sum(tf.reduce_sum(v * 0.0) for v in variables)  # zero gradients
        optimizer.apply_gradients(zip(tape.gradient(loss, variables), variables))

    def call(iteration):
        optimizer.iterations.assign(iteration)
        for slot in sum(slots, []):
            slot.assign(np.full(slot.shape, below_floor, np.float32))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            step()
        return [[s.numpy() for s in of_variable] for of_variable in slots]

    for iteration in range(1, 9):  # trace, probe, the kernels start, check, trusted
        found = call(iteration)
        assert not any(s.any() for s in sum(found[:3], []))  # flushed at each step
        for strided in found[3:]:
            assert all(np.all((s < 0) & (s > below_floor)) for s in strided)  # decayed only
    (update,) = [s for s in segments.segments_of(_graph(step).tier.partial)
                 if "Optimizer.apply" in s.op_names]
    assert update.state == "trusted", update.reason
    assert not any(s.any() for s in sum(call(_fused.FLUSH_PERIOD * 3), []))


def test_a_generated_module_names_the_kernel_sources_it_calls():
    """Generated code calls tapeflow's kernels, which Numba compiles into it: its
    file (and so its disk cache) is named by their sources' digest too, so that an
    edit of a kernel is not answered by code compiled before it."""
    from tapeflow.compiler import codegen
    from tapeflow.runtime import kernel_sources
    source = codegen.Source("def graph_function():\n    return ()\n", [], [], [], [], [])
    module = native._Module(source)
    assert module.text.startswith(f"# tapeflow kernels {kernel_sources.kernel_sources()}\n")
    assert module.stem == native._Module(source).stem


def test_adam_in_a_loop_is_not_lowered():
    x = tf.Variable(1.0)
    optimizer = tf.keras.optimizers.Adam(learning_rate=0.1)

    @tf.function(jit_compile=True)
    def run():
        def body(i):
            with tf.GradientTape() as tape:
                y = x * x
            optimizer.apply_gradients([(tape.gradient(y, x), x)])
            return (i + 1,)
        tf.while_loop(lambda i: i < 3, body, (tf.constant(0),))

    with pytest.warns(UserWarning, match="Adam inside a loop"):
        run()
        run()


def test_a_second_process_finds_the_segments_in_the_disk_cache(tmp_path):
    script = textwrap.dedent("""
        import warnings
        import numpy as np
        import tapeflow as tf
        from tapeflow.compiler import segments
        warnings.simplefilter("ignore")
        segments.Segment._time_compiled = lambda self, inputs: 0.0
        x = tf.constant(np.arange(12.0).reshape(3, 4))
        w = tf.constant(np.ones((4, 2)))
        @tf.function(jit_compile=True)
        def f(x, w):
            return tf.matmul(tf.nn.relu(x - 5.0) * 2.0, w)
        for _ in range(3):
            out = f(x, w)
        (graph,) = [g for c in f._concrete for g in c._graphs.values()]
        (segment,) = segments.segments_of(graph.tier.partial)
        print(graph.tier.cached, segment.state, out.numpy().sum())
    """)
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    assert all(run.returncode == 0 for run in runs), [run.stderr for run in runs]
    outputs = [run.stdout.split() for run in runs]
    # relu(x - 5) * 2 summed over rows, times the two columns of ones
    assert outputs[0] == ["False", "trusted", str(float(2 * 2 * sum(range(1, 7))))]
    assert outputs[1] == ["True", "trusted", outputs[0][2]]


@pytest.mark.parametrize("estimate, final", [(0.0, "trusted"), (1e9, "check")])
def test_without_jit_compile_a_segment_compiles_once_its_replays_cost_a_compile(
        monkeypatch, estimate, final):
    # A ConvLSTM step holds a dozen segments of 5-D arrays, 10 s or more each to
    # compile cold: without jit_compile=True each is replayed until its replays have
    # cost the expected compile, then checked (and trusted) at its next run.
    expected = [0.0]  # the whole graph's decision: partial at once
    monkeypatch.setattr(native, "_compile_estimate", lambda: expected[0])
    function = tf.function(_dense_chain)  # jit_compile unset: compiled where it pays
    _quietly(function, *_operands(), calls=3)  # the trace, a replay, the probe
    expected[0] = estimate
    _quietly(function, *_operands(), calls=1)  # the first partial run: segments replayed
    found = segments.segments_of(_graph(function).tier.partial)
    assert [s.state for s in found] == ["check", "check"]
    assert all(s.compiled is None for s in found)
    out = _quietly(function, *_operands(), calls=2)
    assert [s.state for s in found] == [final, final]
    np.testing.assert_array_equal(out.numpy(), _dense_chain(*_operands()).numpy())


def test_the_same_computation_at_other_slots_is_the_same_source():
    # a layer called at each step of a Python loop: one compiled module for all steps
    @tf.function(jit_compile=True)
    def twice(x, w):
        for _ in range(2):
            x = tf.nn.relu(tf.matmul(x, w) + 1.0) * 2.0
        return x
    rng = np.random.default_rng(1)
    x, w = (tf.constant(rng.normal(size=s)) for s in ((3, 3), (3, 3)))
    _quietly(twice, x, w)
    found = segments.segments_of(_graph(twice).tier.partial)
    assert len(found) == 2 and found[0].graph.nodes[0][2] != found[1].graph.nodes[0][2]
    assert found[0].module.stem == found[1].module.stem
