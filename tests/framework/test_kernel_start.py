"""The kernels start once they pay (runtime/kernel_start.py): a short program runs
the ops' NumPy formulas and never imports Numba; the formulas count their
elements, and the count's end, an op without a formula, `jit_compile=True` or
op determinism start the kernels; compiled graph code waits for them.

The suite itself starts the kernels (tests/conftest.py); `before_start` undoes
that for a test, in this process, and the first tests run fresh processes."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import config as _config
from tapeflow.compiler import native
from tapeflow.compiler.native import native_state
# The kernel modules are imported here, not in the tests: importing one starts the
# kernels, which would undo `before_start`.
from tapeflow.kernels import elementwise, gather, gemm, optimizers, softmax
from tapeflow.ops import math as math_ops
from tapeflow.ops import nn as nn_ops
from tapeflow.ops import shape as shape_ops
from tapeflow.runtime import kernel_start

# What W5's model puts through the formulas a step, batch 32: Adam's updates of more
# than 16 elements (784 x 512, 512, 512 x 10), the ReLU's gradient mask (32 x 512), the
# loss and its gradient (32 x 10 logits each); the traced step's replays come on top.
_PER_STEP = 784 * 512 + 512 + 512 * 10 + 32 * 512 + 2 * 32 * 10

_SHORT_FIT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import tapeflow as tf
    from tapeflow.runtime import kernel_start
    if sys.argv[1] == "determinism":
        tf.config.experimental.enable_op_determinism()
    if sys.argv[1] == "crossing":  # the count ends in the fifth of the 16 steps
        kernel_start.START_AFTER = 5 * PER_STEP
    rng = np.random.default_rng(0)
    x = rng.random((256, 784), dtype=np.float32)
    y = rng.integers(0, 10, 256)
    tf.random.set_seed(0)
    model = tf.keras.Sequential([tf.keras.layers.Dense(512, activation="relu"),
                                 tf.keras.layers.Dense(10)])
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    losses = model.fit(x, y, batch_size=32, epochs=2, verbose=0).history["loss"]
    state = [kernel_start.started(), "numba" in sys.modules, kernel_start._elements[0]]
    if sys.argv[1] == "then jit_compile":
        double = tf.function(lambda a: a * 2.0, jit_compile=True)
        for _ in range(3):
            double(tf.constant([1.0]))
        state += [kernel_start.started(), "numba" in sys.modules]
    if sys.argv[1] == "then conv":
        tf.keras.layers.Conv2D(2, 3)(tf.zeros((1, 5, 5, 1)))
        state += [kernel_start.started(), "numba" in sys.modules]
    if sys.argv[1] == "then choices":
        tf.config.experimental.get_kernel_choices()
        state += [kernel_start.started(), "numba" in sys.modules]
    print(json.dumps({"losses": losses, "state": state}))
""").replace("PER_STEP", str(_PER_STEP))


def _short_fit(mode, cache):
    done = subprocess.run([sys.executable, "-c", _SHORT_FIT, mode], capture_output=True,
                          text=True, timeout=300, env=dict(os.environ, XDG_CACHE_HOME=str(cache)))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_a_short_fit_runs_the_formulas_without_numba_and_as_the_kernels_do(tmp_path):
    formulas = _short_fit("formulas", tmp_path)
    assert formulas["state"][:2] == [False, False]
    replays = formulas["state"][2] - 16 * _PER_STEP  # NODE_ELEMENTS an op
    assert replays > 0 and replays % kernel_start.NODE_ELEMENTS == 0
    assert _short_fit("formulas", tmp_path) == formulas  # the same bits in every run
    kernels = _short_fit("determinism", tmp_path)
    assert kernels["state"][:2] == [True, True]
    np.testing.assert_allclose(formulas["losses"], kernels["losses"], rtol=1e-5)
    crossing = _short_fit("crossing", tmp_path)  # formulas for 5 steps, kernels after
    assert crossing["state"][:2] == [True, True]
    assert 5 * _PER_STEP <= crossing["state"][2] < 6 * _PER_STEP
    np.testing.assert_allclose(crossing["losses"], kernels["losses"], rtol=1e-5)


@pytest.mark.parametrize("then", ["then jit_compile", "then conv", "then choices"])
def test_what_needs_a_kernel_starts_them(then, tmp_path):
    state = _short_fit(then, tmp_path)["state"]
    assert state[:2] == [False, False]
    assert state[3:] == [True, True]


@pytest.fixture
def before_start(monkeypatch):
    """This process as before the kernels started (the suite's conftest started them)."""
    monkeypatch.setattr(kernel_start, "_started", False)
    monkeypatch.setattr(kernel_start, "_elements", [0])
    _config._disable_op_determinism()
    yield
    _config._disable_op_determinism()


def test_the_count_ends_in_the_start_on_the_call_that_reaches_it(before_start, monkeypatch):
    monkeypatch.setattr(kernel_start, "START_AFTER", 100)
    assert kernel_start.use_kernel(60) is False
    assert not kernel_start.started()
    assert kernel_start.use_kernel(40) is True
    assert kernel_start.started() and kernel_start.use_kernel(10**9) is True
    assert kernel_start._elements[0] == 100  # nothing counted once started


def test_op_determinism_starts_the_kernels_at_the_next_op(before_start):
    assert kernel_start.use_kernel(1) is False
    tf.config.experimental.enable_op_determinism()
    assert kernel_start.use_kernel(1) is True and kernel_start.started()


def _formula_then_kernel(monkeypatch, module, name, run):
    """(before, after): `run()`'s result before the start, with the kernel
    `module.name` refusing, so that the formula must have run; and after it, when
    the refusing kernel must be called (it raises) and then the real one runs."""
    def refuse(*args, **kwargs):
        raise AssertionError(f"the kernel {name} ran")

    with monkeypatch.context() as patched:
        kernel = getattr(module, name)
        patched.setattr(module, name, (refuse, refuse) if isinstance(kernel, tuple) else refuse)
        before = run()
        counted = kernel_start._elements[0]
        kernel_start.start()
        with pytest.raises(AssertionError, match=f"the kernel {name} ran"):
            run()
    after = run()
    assert kernel_start._elements[0] == counted  # nothing counted once started
    return before, after


def test_relu_gradient_runs_its_formula_before_and_its_kernel_after(before_start, monkeypatch):
    rng = np.random.default_rng(1)
    g, y = rng.standard_normal((2, 100, 50)).astype(np.float32)
    before, after = _formula_then_kernel(monkeypatch, elementwise, "relu_backward",
                                         lambda: math_ops.relu_grad.forward(g, y))
    assert kernel_start._elements[0] == 5000
    np.testing.assert_array_equal(before, np.where(y > 0, g, 0))
    np.testing.assert_array_equal(after, before)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_a_bias_added_by_the_formula_has_the_kernels_bits(before_start, monkeypatch, dtype):
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((64, 30)).astype(dtype), rng.standard_normal((30, 70)).astype(dtype)
    b = rng.standard_normal(70).astype(dtype)
    before, after = _formula_then_kernel(monkeypatch, elementwise, "bias_activation_in_place",
                                         lambda: math_ops.matmul_bias.forward(x, w, b))
    assert kernel_start._elements[0] == 64 * 70
    np.testing.assert_array_equal(before, after)
    np.testing.assert_array_equal(before, np.matmul(x, w) + b)


def test_float32_products_take_blas_until_the_kernels_start(before_start, monkeypatch):
    a = np.random.default_rng(3).standard_normal((64, 64)).astype(np.float32)
    before, _ = _formula_then_kernel(monkeypatch, gemm, "product",
                                     lambda: math_ops.matmul_2d(a, a))
    np.testing.assert_array_equal(before, a @ a)
    assert kernel_start._elements[0] == 0  # products are not counted


def test_softmax_cross_entropy_runs_its_formula_before_the_start(before_start, monkeypatch):
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((64, 10)).astype(np.float32)
    labels = rng.integers(0, 10, 64)
    before, after = _formula_then_kernel(
        monkeypatch, softmax, "sparse_softmax_cross_entropy_forward",
        lambda: nn_ops.sparse_softmax_cross_entropy.forward(labels, logits))
    assert kernel_start._elements[0] == 640
    shifted = logits - logits.max(axis=1, keepdims=True)
    formula = np.log(np.exp(shifted).sum(axis=1)) - shifted[np.arange(64), labels]
    np.testing.assert_array_equal(before, formula)
    np.testing.assert_allclose(after, before, rtol=1e-6)


def test_an_optimizer_update_runs_its_formula_before_the_start(before_start, monkeypatch):
    rng = np.random.default_rng(5)
    start, grad = rng.standard_normal((2, 40, 25)).astype(np.float32)

    def update():
        v = tf.Variable(start)
        tf.keras.optimizers.Adam(0.1).apply_gradients([(tf.constant(grad), v)])
        return v.numpy()

    before, after = _formula_then_kernel(monkeypatch, optimizers, "run", update)
    assert kernel_start._elements[0] == 1000
    m, s = 0.1 * grad, 0.001 * grad * grad  # Keras' Adam after one step
    alpha = 0.1 * np.sqrt(1 - 0.999) / (1 - 0.9)
    np.testing.assert_allclose(before, start - alpha * m / (np.sqrt(s) + 1e-7), rtol=1e-5)
    np.testing.assert_allclose(after, before, rtol=1e-6)


def test_an_embeddings_gradient_adds_as_its_kernel_before_the_start(before_start, monkeypatch):
    rng = np.random.default_rng(7)
    ids = rng.integers(-2, 52, 3000)  # repeated, and out of range at both ends
    rows = rng.standard_normal((3000, 16)).astype(np.float32)
    before, after = _formula_then_kernel(
        monkeypatch, gather, "embedding_scatter_add",
        lambda: shape_ops.scatter_add.forward(rows, ids, axis=0, size=50))
    assert kernel_start._elements[0] == rows.size
    np.testing.assert_array_equal(before, after)  # the same sums, in the same order


def test_a_graph_compiles_only_once_the_count_has_started_the_kernels(
        before_start, function_cache, monkeypatch):
    monkeypatch.setattr(native, "_FIRST_GUESS", 0.0)  # the clock alone would compile it now
    monkeypatch.setattr(kernel_start, "START_AFTER", 10**12)
    affine = tf.function(lambda a: a * 3.0 + 1.0)
    x = tf.constant(np.arange(6, dtype=np.float32))
    for _ in range(6):
        affine(x)
    (graph,) = [g for c in affine._concrete for g in c._graphs.values()]
    assert native_state(graph)[0] == "replay" and not kernel_start.started()
    # every call but the trace and the probe (codegen.Probe) counted
    assert kernel_start._elements[0] == 4 * len(graph.nodes) * kernel_start.NODE_ELEMENTS
    monkeypatch.setattr(kernel_start, "START_AFTER", kernel_start._elements[0] + 1)
    for _ in range(3):  # the replay that ends the count, the check, native
        affine(x)
    assert kernel_start.started() and native_state(graph)[0] == "native"


def test_code_in_the_disk_cache_waits_for_the_start(function_cache, monkeypatch):

    def affine(a):
        return a * 3.0 + 1.0

    x = tf.constant(np.arange(6, dtype=np.float32))
    monkeypatch.setattr(native, "_FIRST_GUESS", 0.0)  # the first function compiles at once
    first = tf.function(affine)
    for _ in range(4):
        first(x)
    (graph,) = [g for c in first._concrete for g in c._graphs.values()]
    assert native_state(graph)[0] == "native"

    monkeypatch.setattr(native, "_FIRST_GUESS", 1e9)  # now only the disk cache can pay
    monkeypatch.setattr(native, "_loaded", {})
    monkeypatch.setattr(kernel_start, "_started", False)
    second = tf.function(affine)
    for _ in range(5):
        np.testing.assert_array_equal(second(x).numpy(), np.arange(6) * 3.0 + 1.0)
    (graph,) = [g for c in second._concrete for g in c._graphs.values()]
    assert graph.tier.cached and native_state(graph)[0] == "replay"
    kernel_start.start()
    for _ in range(2):  # found at the next call, checked, then native
        second(x)
    assert native_state(graph)[0] == "native"


def test_segments_in_the_disk_cache_wait_for_the_start(function_cache, monkeypatch):
    from tapeflow.compiler import segments

    def layer(a, w):  # the product does not lower: the rest is a segment
        return tf.nn.relu(tf.matmul(a, w) + 1.0) * 2.0

    rng = np.random.default_rng(6)
    a, w = (tf.constant(rng.standard_normal(s).astype(np.float32)) for s in ((8, 5), (5, 4)))
    expected = np.maximum(a.numpy() @ w.numpy() + 1.0, 0) * 2.0

    def segment_states(function):
        (graph,) = [g for c in function._concrete for g in c._graphs.values()]
        partial = graph.tier.partial
        return [] if partial is None else [s.state for s in segments.segments_of(partial)]

    monkeypatch.setattr(native, "_FIRST_GUESS", 0.0)
    first = tf.function(layer)
    for _ in range(5):
        first(a, w)
    assert segment_states(first) == ["trusted"]

    monkeypatch.setattr(native, "_FIRST_GUESS", 1e9)
    monkeypatch.setattr(native, "_loaded", {})
    monkeypatch.setattr(kernel_start, "_started", False)
    second = tf.function(layer)
    for _ in range(5):
        np.testing.assert_allclose(second(a, w).numpy(), expected, rtol=1e-6)
    assert segment_states(second) in ([], ["check"])  # replayed, whole or in part
    kernel_start.start()
    for _ in range(4):
        np.testing.assert_allclose(second(a, w).numpy(), expected, rtol=1e-6)
    assert segment_states(second) == ["trusted"]
