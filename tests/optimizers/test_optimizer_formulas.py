"""Every optimizer against its Keras 3 update formula written out in NumPy
(float64 arithmetic), for float64 and float32 variables, through the NumPy
path (tiny variables), the serial kernel and the parallel kernel."""

import math

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import optimizers

LR = 0.0625  # exactly representable in float32, so the float32 lr Variable is exact
STEPS = 4
TOL = {np.float64: dict(rtol=1e-10, atol=1e-12), np.float32: dict(rtol=3e-5, atol=3e-6)}
# 12 elements: NumPy path; 600: serial kernel; 5000: the parallel kernel, on all
# threads from 32 elements by the forced 'updates' decision (kernels/optimizers.py).
SHAPES = [(3, 4), (20, 30), (50, 100)]
_PARALLEL_SHAPE = SHAPES[2]


def _ref_sgd(cfg, p, g, s, t):
    mom = cfg.get("momentum", 0.0)
    if mom == 0:
        return p - LR * g
    s["m"] = mom * s.get("m", 0 * p) - LR * g
    if cfg.get("nesterov"):
        return p + mom * s["m"] - LR * g
    return p + s["m"]


def _ref_adam(cfg, p, g, s, t):
    b1, b2, eps = cfg.get("beta_1", 0.9), cfg.get("beta_2", 0.999), cfg.get("epsilon", 1e-7)
    s["m"] = s.get("m", 0 * p) + (g - s.get("m", 0 * p)) * (1 - b1)
    s["v"] = s.get("v", 0 * p) + (g * g - s.get("v", 0 * p)) * (1 - b2)
    v = s["v"]
    if cfg.get("amsgrad"):
        s["vh"] = np.maximum(s.get("vh", 0 * p), s["v"])
        v = s["vh"]
    alpha = LR * math.sqrt(1 - b2 ** t) / (1 - b1 ** t)
    return p - alpha * s["m"] / (np.sqrt(v) + eps)


def _ref_adamw(cfg, p, g, s, t):
    p = p - p * cfg.get("weight_decay", 0.004) * LR
    return _ref_adam(cfg, p, g, s, t)


def _ref_adamax(cfg, p, g, s, t):
    b1, b2, eps = 0.9, 0.999, 1e-7
    s["m"] = s.get("m", 0 * p) + (g - s.get("m", 0 * p)) * (1 - b1)
    s["u"] = np.maximum(b2 * s.get("u", 0 * p), np.abs(g))
    return p - LR * s["m"] / ((1 - b1 ** t) * (s["u"] + eps))


def _ref_nadam(cfg, p, g, s, t):
    b1, b2, eps = 0.9, 0.999, 1e-7
    u_t = b1 * (1 - 0.5 * 0.96 ** t)
    u_t1 = b1 * (1 - 0.5 * 0.96 ** (t + 1))
    s["up"] = s.get("up", 1.0) * u_t
    up_t1 = s["up"] * u_t1
    s["m"] = s.get("m", 0 * p) + (g - s.get("m", 0 * p)) * (1 - b1)
    s["v"] = s.get("v", 0 * p) + (g * g - s.get("v", 0 * p)) * (1 - b2)
    m_hat = u_t1 * s["m"] / (1 - up_t1) + (1 - u_t) * g / (1 - s["up"])
    v_hat = s["v"] / (1 - b2 ** t)
    return p - LR * m_hat / (np.sqrt(v_hat) + eps)


def _ref_rmsprop(cfg, p, g, s, t):
    rho, mom, eps = cfg.get("rho", 0.9), cfg.get("momentum", 0.0), 1e-7
    s["v"] = rho * s.get("v", 0 * p) + (1 - rho) * g * g
    if cfg.get("centered"):
        s["a"] = rho * s.get("a", 0 * p) + (1 - rho) * g
        denominator = s["v"] - s["a"] ** 2 + eps
    else:
        denominator = s["v"] + eps
    increment = LR * g / np.sqrt(denominator)
    if mom > 0:
        s["m"] = mom * s.get("m", 0 * p) + increment
        return p - s["m"]
    return p - increment


def _ref_adagrad(cfg, p, g, s, t):
    s["acc"] = s.get("acc", 0 * p + 0.1) + g * g
    return p - LR * g / np.sqrt(s["acc"] + 1e-7)


def _ref_adadelta(cfg, p, g, s, t):
    rho, eps = 0.95, 1e-7
    s["ag"] = rho * s.get("ag", 0 * p) + (1 - rho) * g * g
    delta = -np.sqrt(s.get("ad", 0 * p) + eps) * g / np.sqrt(s["ag"] + eps)
    s["ad"] = rho * s.get("ad", 0 * p) + (1 - rho) * delta * delta
    return p + LR * delta


def _ref_lion(cfg, p, g, s, t):
    b1, b2 = 0.9, 0.99
    m = s.get("m", 0 * p)
    p = p - LR * np.sign(b1 * m + (1 - b1) * g)
    s["m"] = b2 * m + (1 - b2) * g
    return p


def _ref_ftrl(cfg, p, g, s, t):
    power = cfg.get("learning_rate_power", -0.5)
    l1 = cfg.get("l1_regularization_strength", 0.0)
    l2 = cfg.get("l2_regularization_strength", 0.0) + cfg.get("beta", 0.0) / (2 * LR)
    shrink = cfg.get("l2_shrinkage_regularization_strength", 0.0)
    acc = s.get("acc", 0 * p + cfg.get("initial_accumulator_value", 0.1))
    new_acc = acc + g * g
    s["lin"] = s.get("lin", 0 * p) + (g + 2 * shrink * p) - (
        new_acc ** -power - acc ** -power) / LR * p
    quadratic = new_acc ** -power / LR + 2 * l2
    s["acc"] = new_acc
    return (np.clip(s["lin"], -l1, l1) - s["lin"]) / quadratic


CASES = [
    ("SGD", {}, _ref_sgd),
    ("SGD", {"momentum": 0.9}, _ref_sgd),
    ("SGD", {"momentum": 0.5, "nesterov": True}, _ref_sgd),
    ("Adam", {}, _ref_adam),
    ("Adam", {"amsgrad": True, "beta_1": 0.8}, _ref_adam),
    ("AdamW", {}, _ref_adamw),
    ("AdamW", {"weight_decay": 0.1, "amsgrad": True}, _ref_adamw),
    ("Adamax", {}, _ref_adamax),
    ("Nadam", {}, _ref_nadam),
    ("RMSprop", {}, _ref_rmsprop),
    ("RMSprop", {"momentum": 0.5}, _ref_rmsprop),
    ("RMSprop", {"centered": True}, _ref_rmsprop),
    ("RMSprop", {"centered": True, "momentum": 0.3, "rho": 0.8}, _ref_rmsprop),
    ("Adagrad", {}, _ref_adagrad),
    ("Adadelta", {}, _ref_adadelta),
    ("Lion", {}, _ref_lion),
    ("Ftrl", {}, _ref_ftrl),
    ("Ftrl", {"l1_regularization_strength": 0.01, "l2_regularization_strength": 0.02,
              "l2_shrinkage_regularization_strength": 0.03, "beta": 0.1}, _ref_ftrl),
    ("Ftrl", {"learning_rate_power": -0.3, "initial_accumulator_value": 0.5}, _ref_ftrl),
]


def _case_id(case):
    name, cfg, _ = case
    return name + "".join(f"-{k}={v}" for k, v in cfg.items())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_steps_match_formula(case, shape, dtype):
    from tapeflow.runtime import calibration
    with calibration.forced(updates=32 if shape == _PARALLEL_SHAPE else "one"):
        _steps_match_formula(case, shape, dtype)


def _steps_match_formula(case, shape, dtype):
    name, cfg, ref = case
    rng = np.random.default_rng(4)
    init = rng.normal(size=shape).astype(dtype)
    var = tf.Variable(init)
    opt = getattr(optimizers, name)(learning_rate=LR, **cfg)
    p, state = init.astype(np.float64), {}
    for t in range(1, STEPS + 1):
        g = rng.normal(size=shape).astype(dtype)
        opt.apply_gradients([(tf.constant(g), var)])
        p = ref(cfg, p, g.astype(np.float64), state, t)
        np.testing.assert_allclose(var.numpy(), p, **TOL[dtype], err_msg=f"step {t}")
        assert var.numpy().dtype == dtype
    assert int(opt.iterations) == STEPS


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_kernel_matches_numpy_reference(case, monkeypatch):
    """The fused kernel and the NumPy formula of the same optimizer agree."""
    from tapeflow.optimizers import _fused
    name, cfg, _ = case
    rng = np.random.default_rng(7)
    init = rng.normal(size=(3000,)).astype(np.float32)
    grads = [rng.normal(size=(3000,)).astype(np.float32) for _ in range(STEPS)]
    results = []
    for limit in (0, 10**9):  # kernel everywhere, then NumPy everywhere
        monkeypatch.setattr(_fused, "NUMPY_MAX_SIZE", limit)
        var = tf.Variable(init)
        opt = getattr(optimizers, name)(learning_rate=LR, weight_decay=0.01, **{
            k: v for k, v in cfg.items() if k != "weight_decay"})
        for g in grads:
            opt.apply_gradients([(tf.constant(g), var)])
        results.append((var.numpy(), [s.numpy() for s in opt.variables[2:]]))
    (p_k, slots_k), (p_n, slots_n) = results
    np.testing.assert_allclose(p_k, p_n, rtol=2e-5, atol=2e-6)
    for a, b in zip(slots_k, slots_n):
        np.testing.assert_allclose(a, b, rtol=2e-5, atol=2e-6)


_ABOVE_FLOOR = 1 + 2.0 ** -10  # times the floor: one decaying step goes below it
_ACCUMULATING = ("Adagrad", "Ftrl")  # their slots only grow: none decays


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_a_slot_that_falls_below_the_floor_is_zero(case, shape, dtype):
    """A zero gradient shrinks a momentum or moving average by its beta each step;
    below the smallest normal times 2**24 (2**53 in float64) it is zero instead, so
    that neither it nor the products of its next decays are subnormal
    (kernels/optimizers.py: x86's slow subnormals, TF's flushed threads), on the
    NumPy path and both kernels; a slot above the floor keeps its value."""
    from tapeflow.runtime import calibration
    name, cfg, _ = case
    tiny = np.finfo(dtype).tiny
    floor = tiny * 2.0 ** (24 if dtype == np.float32 else 53)
    with calibration.forced(updates=32 if shape == _PARALLEL_SHAPE else "one"):
        var = tf.Variable(np.ones(shape, dtype))
        opt = getattr(optimizers, name)(learning_rate=LR, **cfg)
        opt.build([var])
        slots = opt._slots[opt._index[id(var)]]
        signs = np.where(np.arange(var.shape.num_elements()) % 2, -1.0, 1.0).reshape(shape)
        if name in _ACCUMULATING:  # (a negative accumulator is no state they reach)
            signs = np.abs(signs)
        signs.flat[0] *= 16 / _ABOVE_FLOOR  # 16x the floor: above it after any decay here
        for slot in slots:
            slot.assign((signs * floor * _ABOVE_FLOOR).astype(dtype))
        before = [slot.numpy() for slot in slots]
        opt.apply_gradients([(tf.constant(np.zeros(shape, dtype)), var)])
    zeroed = 0
    for slot, old in zip(slots, before):
        value = slot.numpy()
        subnormal = (value != 0) & (np.abs(value) < tiny)
        assert not subnormal.any(), f"{slot.name}: {value[subnormal][:3]} are subnormal"
        if name not in _ACCUMULATING:  # (Ftrl's linear term moves with its shrinkage)
            # each value zero, or kept: AMSGrad's maximum of its positive ones
            rest = value.ravel()[1:]
            assert np.all((rest == old.ravel()[1:]) | (rest == 0)), f"{slot.name}: {rest[:3]}"
            zeroed += not rest.any()
            assert abs(value.ravel()[0]) >= floor, f"{slot.name}: {value.ravel()[0]}"
    assert zeroed == (0 if name in _ACCUMULATING else len(slots) - cfg.get("amsgrad", 0))


@pytest.mark.parametrize("name, cfg", [("SGD", {"momentum": 0.9}), ("Adam", {}),
                                       ("RMSprop", {"momentum": 0.5})])
def test_the_numpy_formulas_flush_a_large_slot_every_flush_period_steps(name, cfg,
                                                                       monkeypatch):
    """Before the kernels start, a variable over NUMPY_MAX_SIZE takes the NumPy
    formulas, whose flush of its slots runs at every FLUSH_PERIOD-th step only
    (optimizers/_fused.py: at each step it cost W7's model 20% there)."""
    from tapeflow.optimizers import _fused
    monkeypatch.setattr(_fused.kernel_start, "use_kernel", lambda size: False)
    var = tf.Variable(np.ones(600, np.float32))
    opt = getattr(optimizers, name)(learning_rate=LR, **cfg)
    opt.build([var])
    slots = opt._slots[opt._index[id(var)]]
    floor = _fused.slot_floor(np.float32)
    for step in (1, _fused.FLUSH_PERIOD - 1, _fused.FLUSH_PERIOD, 3 * _fused.FLUSH_PERIOD):
        opt.iterations.assign(step)
        for slot in slots:
            slot.assign(np.full(600, floor * 1.001, np.float32))
        opt.apply_gradients([(tf.constant(np.zeros(600, np.float32)), var)])
        for slot in slots:
            value = slot.numpy()
            if step % _fused.FLUSH_PERIOD == 0:
                assert not value.any(), (step, slot.name)
            else:  # decayed below the floor, kept until the next flushing step
                assert np.all((value > 0) & (value < floor)), (step, slot.name)


def test_float16_variables_take_the_numpy_formulas_and_keep_small_slots():
    """Numba has no float16 arrays: the kernels' path raised NotImplementedError
    from inside Numba. Its NumPy formulas flush nothing (slot_floor)."""
    var = tf.Variable(np.ones(1000, np.float16))
    opt = optimizers.Adam(learning_rate=0.5)
    opt.apply_gradients([(tf.constant(np.full(1000, 1e-4, np.float16)), var)])
    opt.apply_gradients([(tf.constant(np.zeros(1000, np.float16)), var)])
    m = opt._slots[opt._index[id(var)]][0].numpy()
    np.testing.assert_allclose(m, np.float16(1e-5) * np.float16(0.9), rtol=2e-3)
    assert var.dtype == tf.float16 and np.all(var.numpy() < 1)


def test_kernel_serial_and_parallel_agree():
    from tapeflow.kernels import optimizers as k
    rng = np.random.default_rng(0)
    p0, g = rng.normal(size=(2, 10000)).astype(np.float32)
    out = []
    for fn in k.KERNELS["adam"]:
        p, m, v = p0.copy(), np.zeros_like(p0), np.zeros_like(p0)
        c = [np.float32(x) for x in (1e-3, 0.1, 0.001, 1e-7, 0.0)]
        fn(p, g, m, v, *c)
        out.append(p)
    np.testing.assert_allclose(out[0], out[1], rtol=1e-6)


def test_the_kernels_generated_code_calls_are_runs_kernels_on_runs_threads():
    """compiler/lowering.py calls `k.<name>` after `k.set_threads(k.threads_for(...))`:
    the function `run` calls, on the threads `run` gives it."""
    import numba
    from tapeflow.kernels import optimizers as k
    from tapeflow.runtime.jit import kernel_threads
    from tapeflow.runtime import calibration
    for name, (one_thread, all_threads) in k.KERNELS.items():
        assert getattr(k, name) is one_thread.kernel is all_threads.kernel
    with calibration.forced(updates=1000):
        assert k.threads_for("adam", 999) == 1
        assert k.threads_for("adam", 1000) == kernel_threads()
        assert k.threads_for("sgd", 1000) == 1  # plain SGD runs serially
    with calibration.forced(updates="one"):
        assert k.threads_for("adam", 1 << 30) == 1
    before = numba.get_num_threads()
    try:
        assert k.set_threads(1) == before and numba.get_num_threads() == 1
        assert k.set_threads(before) == 1 and numba.get_num_threads() == before
    finally:
        numba.set_num_threads(before)


def _fake_adam_timings(monkeypatch, one_over_many, threads):
    """The 'updates' measurement on `threads` kernel threads, with time_calls faked:
    at each size, "one" takes one_over_many(size) times as long as "many". Returns
    the sizes measured, in order (read from the arrays the candidates are given)."""
    from tapeflow.kernels import optimizers as k
    from tapeflow.runtime import calibration
    monkeypatch.setattr(k, "kernel_threads", lambda: threads)
    sizes = []
    monkeypatch.setattr(k, "KERNELS", {"adam": (lambda p, *a: sizes.append(p.size),
                                                lambda p, *a: sizes.append(p.size))})
    measured = []

    def time_calls(candidates, repeats, before=None, budget=None):
        candidates["one"](), candidates["many"]()
        assert sizes[-1] == sizes[-2]
        measured.append(sizes[-1])
        return {"one": [one_over_many(sizes[-1])] * 5, "many": [1.0] * 5}

    monkeypatch.setattr(calibration, "time_calls", time_calls)
    return measured


@pytest.mark.parametrize("ratios, start", [
    ({1 << 14: 1.1, 1 << 16: 1.5, 1 << 18: 1.8}, 1 << 16),
    ({1 << 14: 1.3, 1 << 16: 1.5, 1 << 18: 1.8}, 1 << 14),
    ({1 << 14: 1.3, 1 << 16: 1.1, 1 << 18: 1.8}, 1 << 18),  # a gap: from the larger
    ({1 << 14: 1.3, 1 << 16: 1.5, 1 << 18: 1.2}, "one"),  # not won at the largest
    ({1 << 14: 0.5, 1 << 16: 0.5, 1 << 18: 0.5}, "one"),
], ids=["from-2**16", "from-2**14", "from-2**18", "not-at-the-largest", "never"])
def test_the_updates_decision_is_the_size_from_which_all_threads_win(ratios, start,
                                                                     monkeypatch):
    """All threads must win by 1.25x at a size and at every larger one; measured on
    the Adam kernel, largest size first, each size's arrays that size."""
    from tapeflow.kernels import optimizers as k
    measured = _fake_adam_timings(monkeypatch, ratios.__getitem__, threads=4)
    decided, details = k._measure_updates()
    assert decided == start
    assert measured == sorted(measured, reverse=True) and measured[0] == 1 << 18
    assert details["threads"] == 4


@pytest.mark.parametrize("largest, cached", [(1.1, False), (0.9, True), (1.8, True)],
                         ids=["won-under-the-margin", "lost", "won"])
def test_an_updates_decision_too_close_to_call_is_not_cached(largest, cached, tmp_path,
                                                             monkeypatch):
    """"one" from all threads winning at the largest size by less than the margin is
    used but not cached (the next process measures again); a clear loss or win is."""
    from tapeflow.kernels import optimizers as k
    from tapeflow.runtime import calibration
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(calibration, "machine_busy", lambda: "")
    _fake_adam_timings(monkeypatch, lambda size: largest if size == k.UPDATE_SIZES[-1] else 1.0,
                       threads=2)
    saved = dict(calibration._decided)
    calibration.forget()
    try:
        decided = calibration.choice("updates")
        assert decided == ("one" if largest < 1.25 else k.UPDATE_SIZES[-1])
        details = calibration.choices()["details"]["updates"]
        assert ("not cached" not in details) == cached
        calibration.forget()  # as a new process, which measures once more
        calibration.choice("updates")
        calibration.forget()  # this process's decisions: what is left is the cache file's
        assert calibration.known("updates") == cached
    finally:
        calibration.forget()
        calibration._decided.update(saved)


def test_the_updates_decision_is_one_thread_on_one_core(monkeypatch):
    from tapeflow.kernels import optimizers as k
    monkeypatch.setattr(k, "kernel_threads", lambda: 1)
    assert k._measure_updates() == ("one", {"threads": 1})


def test_small_updates_never_ask_for_the_updates_decision(monkeypatch):
    """A variable below UPDATE_SIZES[0] runs on one thread without measuring (toy
    programs time nothing); a forced decision counts at every size."""
    from tapeflow.kernels import optimizers as k
    from tapeflow.runtime import calibration

    def measured(name):
        raise AssertionError(f"{name} was asked for")

    monkeypatch.setattr(calibration, "choice", measured)
    assert k.threads_for("adam", k.UPDATE_SIZES[0] - 1) == 1
    monkeypatch.undo()
    with calibration.forced(updates=8):
        assert k.threads_for("adam", 8) == k.kernel_threads()
        assert k.threads_for("adam", 7) == 1


@pytest.mark.parametrize("name", ["SGD", "Adam", "RMSprop", "Lion"])
def test_nan_gradient_propagates(name):
    var = tf.Variable(np.ones(5000, np.float32))
    g = np.ones(5000, np.float32)
    g[3] = np.nan
    getattr(optimizers, name)(learning_rate=0.1).apply_gradients([(tf.constant(g), var)])
    assert np.isnan(var.numpy()[3]) and np.isfinite(np.delete(var.numpy(), 3)).all()


def test_defaults_match_keras():
    assert float(optimizers.SGD().learning_rate) == pytest.approx(0.01)
    for cls in (optimizers.Adam, optimizers.AdamW, optimizers.Adamax, optimizers.Nadam,
                optimizers.RMSprop, optimizers.Adagrad, optimizers.Adadelta, optimizers.Lion,
                optimizers.Ftrl):
        assert float(cls().learning_rate) == pytest.approx(0.001), cls
    assert optimizers.Adam().epsilon == 1e-7 and optimizers.Adam().beta_2 == 0.999
    assert optimizers.AdamW().weight_decay == 0.004
    assert optimizers.RMSprop().rho == 0.9 and optimizers.RMSprop().epsilon == 1e-7
    assert optimizers.Adagrad().initial_accumulator_value == 0.1
    assert optimizers.Adadelta().rho == 0.95
    assert (optimizers.Lion().beta_1, optimizers.Lion().beta_2) == (0.9, 0.99)
    assert optimizers.SGD().name == "SGD" and optimizers.Adam().name == "adam"
