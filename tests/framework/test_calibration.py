"""runtime/calibration: kernel decisions measured on the running machine,
cached per CPU, core count and library versions in the user cache directory,
measured anew when any of them changes or the file is corrupt, forced without
the environment, and kernel results that do not depend on the choice."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.runtime import calibration


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A private cache directory, a quiet machine and no decision made yet (nor
    registered for a product's own shape by the tests before); the process's
    decisions are restored afterwards."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(calibration, "machine_busy", lambda: "")
    original = calibration._measurements
    measurements = {name: m for name, m in original.items() if not name.startswith("gemm ")}
    monkeypatch.setattr(calibration, "_measurements", measurements)
    saved = dict(calibration._decided)
    calibration.forget()
    yield tmp_path
    calibration.forget()
    calibration._decided.update(saved)
    # A kernel module imported during the test registered its decision here; its import
    # will not run again, so the process keeps it (not a test's own, nor a shape's).
    original.update({name: m for name, m in measurements.items()
                     if name not in original and not name.startswith("gemm ")
                     and m[0].__module__.startswith("tapeflow.")})


@pytest.fixture
def counted(monkeypatch):
    """A registered decision 'probe' whose measurement counts its runs."""
    runs = []
    monkeypatch.setitem(calibration._measurements, "probe",
                        (lambda: runs.append(1) or ("fast", {"run": len(runs)}), 1))
    return runs


def _entries():
    with open(calibration.cache_path()) as f:
        return json.load(f)["entries"]


def _cache_index(root, index, level, kind, size):
    folder = root / f"index{index}"
    folder.mkdir(parents=True)
    for name, value in (("level", level), ("type", kind), ("size", size)):
        (folder / name).write_text(f"{value}\n")


def test_l2_cache_bytes_reads_the_level_2_data_cache_from_sysfs(tmp_path):
    _cache_index(tmp_path, 0, 1, "Data", "32K")
    _cache_index(tmp_path, 1, 1, "Instruction", "32K")
    _cache_index(tmp_path, 2, 2, "Unified", "1024K")
    _cache_index(tmp_path, 3, 3, "Unified", "32768K")
    assert calibration.l2_cache_bytes(str(tmp_path)) == 1 << 20
    (tmp_path / "index2" / "size").write_text("2M\n")
    assert calibration.l2_cache_bytes(str(tmp_path)) == 2 << 20
    (tmp_path / "index2" / "size").write_text("512 KB?\n")  # unreadable: the default
    assert calibration.l2_cache_bytes(str(tmp_path), default=123) == 123
    assert calibration.l2_cache_bytes(str(tmp_path / "absent"), default=456) == 456


def test_cache_lives_under_xdg_cache_home(cache):
    assert calibration.cache_path() == os.path.join(
        str(cache), "tapeflow", "calibration", "kernel_choices.json")


def test_a_decision_is_cached_once_two_processes_measured_the_same(cache, counted):
    assert calibration.choice("probe") == "fast" and counted == [1]
    assert calibration.choice("probe") == "fast" and counted == [1]  # decided in this process
    [entry] = _entries().values()
    assert entry["probe"] == ["fast", {"run": 1}, 1, ["fast"]]
    calibration.forget()  # as a new process: one measurement is not enough
    assert not calibration.known("probe")
    assert calibration.choice("probe") == "fast" and counted == [1, 1]
    calibration.forget()
    assert calibration.known("probe")
    assert calibration.choice("probe") == "fast" and counted == [1, 1]
    [entry] = _entries().values()
    assert entry["probe"] == ["fast", {"run": 2}, 1, ["fast", "fast"]]


def _settle(name):
    """Measure `name` in two 'processes' (forget() in between), as a cached
    decision needs; then forget, as a new process."""
    for _ in range(2):
        calibration.choice(name)
        calibration.forget()


def test_measurements_that_disagree_are_measured_a_third_time(cache, monkeypatch):
    outcomes, runs = iter(["one", "many", "one", "many"]), []
    monkeypatch.setitem(calibration._measurements, "probe",
                        (lambda: runs.append(1) or (next(outcomes), {}), 1))
    for expected in ("one", "many", "one"):  # each process uses its own measurement
        assert calibration.choice("probe") == expected
        calibration.forget()
    assert calibration.choice("probe") == "one" and len(runs) == 3  # two of three agree
    [entry] = _entries().values()
    assert entry["probe"][3] == ["one", "many", "one"]


def test_three_measurements_all_different_settle_on_the_latest(cache, monkeypatch):
    outcomes = iter([{"a": 1}, {"a": 2}, {"a": 3}, {"a": 4}])
    monkeypatch.setitem(calibration._measurements, "probe", (lambda: (next(outcomes), {}), 1))
    _settle("probe")
    calibration.choice("probe")
    calibration.forget()
    assert calibration.choice("probe") == {"a": 3}


def test_a_decision_cached_before_votes_were_kept_is_measured_once_more(cache, counted):
    calibration.choice("probe")
    entries = _entries()
    [key] = entries
    entries[key]["probe"] = ["slow", {}, 1]  # the layout of an older tapeflow
    with open(calibration.cache_path(), "w") as f:
        json.dump({"format": 1, "entries": entries}, f)
    calibration.forget()
    assert calibration.choice("probe") == "fast" and counted == [1, 1]
    [entry] = _entries().values()
    assert entry["probe"][3] == ["slow", "fast"]


def test_a_changed_cpu_string_measures_anew(cache, counted, monkeypatch):
    real_cpu = calibration.cpu_model()
    _settle("probe")
    monkeypatch.setattr(calibration, "cpu_model", lambda: "Imaginary CPU 9000")
    assert calibration.choice("probe") == "fast" and counted == [1, 1, 1]
    assert calibration.choices()["machine"]["cpu"] == "Imaginary CPU 9000"
    assert sorted(json.loads(key)["cpu"] for key in _entries()) == sorted(
        [real_cpu, "Imaginary CPU 9000"])
    monkeypatch.setattr(calibration, "cpu_model", lambda: real_cpu)
    calibration.forget()
    calibration.choice("probe")  # back on the first CPU: its entry is still there
    assert counted == [1, 1, 1]


@pytest.mark.parametrize("field, value", [("cores", 999), ("numba", "0.0.1"), ("blas", "other")])
def test_changed_cores_or_library_versions_measure_anew(cache, counted, monkeypatch, field, value):
    _settle("probe")
    real = calibration.identity
    monkeypatch.setattr(calibration, "identity", lambda: {**real(), field: value})
    calibration.choice("probe")
    assert counted == [1, 1, 1] and len(_entries()) == 2


def test_a_new_version_of_the_measurement_measures_anew(cache, counted, monkeypatch):
    _settle("probe")
    measure, _ = calibration._measurements["probe"]
    monkeypatch.setitem(calibration._measurements, "probe", (measure, 2))
    calibration.choice("probe")
    assert counted == [1, 1, 1]
    assert _entries()[next(iter(_entries()))]["probe"][3] == ["fast"]  # votes start again


@pytest.mark.parametrize("garbage", [b"{not json", b"[1, 2]", b'{"format": 1, "entries": 7}',
                                     b"\xff\xfe", b""])
def test_a_corrupt_cache_file_is_ignored_and_rewritten(cache, counted, garbage):
    path = calibration.cache_path()
    with open(path, "wb") as f:
        f.write(garbage)
    assert calibration.choice("probe") == "fast" and counted == [1]
    [entry] = _entries().values()  # valid again
    assert entry["probe"][0] == "fast"


def test_a_measurement_on_a_busy_machine_is_not_cached(cache, counted, monkeypatch):
    monkeypatch.setattr(calibration, "machine_busy", lambda: "measured while busy: test")
    assert calibration.choice("probe") == "fast"
    assert not os.path.exists(calibration.cache_path())
    assert calibration.choices()["details"]["probe"]["not cached"] == "measured while busy: test"


def test_a_measurement_whose_repeats_spread_widely_is_not_cached(cache, monkeypatch):
    """Another process taking the cores mid-measurement shows in the repeats
    before the load average shows it: used by this process, not cached."""
    def measure():
        timings = {"blas": [1e-4, 1e-4, 1e-4, 1e-4, 9e-4, 9e-4, 9e-4, 9e-4], "tapeflow": [5e-5] * 8}
        return calibration.faster(timings, "blas"), {}
    monkeypatch.setitem(calibration._measurements, "probe", (lambda: (
        measure(), calibration.spread({"blas": [1e-4] * 4 + [9e-4] * 4}))[0], 1))
    assert calibration.choice("probe") == "tapeflow"
    assert not os.path.exists(calibration.cache_path())
    assert calibration.choices()["details"]["probe"]["not cached"] == (
        "repeats spread too widely: blas 100-900 us")


def test_steady_repeats_are_cached(cache, monkeypatch):
    steady = {"blas": [1.0e-4, 1.1e-4, 1.2e-4, 1.0e-4], "tapeflow": [5e-5] * 5}
    assert calibration.spread(steady) == ""
    monkeypatch.setitem(calibration._measurements, "probe", (lambda: (
        calibration.spread(steady) or calibration.faster(steady, "blas"), {}), 1))
    assert calibration.choice("probe") == "tapeflow"
    assert os.path.exists(calibration.cache_path())


def test_time_calls_marks_a_round_over_its_budget_as_noise(cache, monkeypatch):
    ticks = iter(range(0, 10_000, 1))  # every clock reading one 'second' after the last
    timings = calibration.time_calls({"a": lambda: None, "b": lambda: None}, repeats=5,
                                     budget=0.5, clock=lambda: next(ticks))
    assert {k: len(v) for k, v in timings.items()} == {"a": 1, "b": 1}  # the warm-up round
    assert calibration._spreads[-1].startswith("one round took")
    monkeypatch.setitem(calibration._measurements, "probe", (lambda: (
        calibration.time_calls({"a": lambda: None}, 5, budget=0.5, clock=lambda: next(ticks)),
        ("a", {}))[1], 1))
    assert calibration.choice("probe") == "a"
    assert "over the 500 ms budget" in calibration.choices()["details"]["probe"]["not cached"]


def test_an_unknown_decision_is_named():
    with pytest.raises(KeyError, match="no kernel decision named 'nonesuch'"):
        calibration.choice("nonesuch")


def test_faster_needs_the_margin_to_leave_the_default():
    assert calibration.faster({"blas": [1.0, 1.0, 9.0], "tapeflow": [0.9, 0.9, 0.1]},
                              default="blas") == "tapeflow"  # medians 1.0 and 0.9
    assert calibration.faster({"blas": [1.0], "tapeflow": [0.97]}, default="blas") == "blas"
    assert calibration.faster({"blas": [1.0], "tapeflow": [1.5]}, default="blas") == "blas"
    assert calibration.faster({"many": [1.0], "one": [0.8]}, default="many", margin=0.25) == "many"
    assert calibration.faster({"many": [1.0], "one": [0.7]}, default="many", margin=0.25) == "one"


def test_time_calls_takes_turns_and_runs_before_untimed():
    calls = []
    ticks = iter(range(100))
    # the clock is also read around the warm-up round: one tick each
    timings = calibration.time_calls({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")},
                                     repeats=2, before=lambda: calls.append("-"),
                                     clock=lambda: next(ticks))
    assert calls == ["a", "b"] + ["-", "a", "-", "b"] * 3  # first calls, warm-up, two rounds
    assert timings == {"a": [1, 1], "b": [1, 1]}


def test_time_calls_keeps_within_its_budget():
    calls = []
    ticks = iter(range(0, 1000, 10))  # every call takes 10 "seconds"
    timings = calibration.time_calls({"a": lambda: calls.append("a")}, repeats=9, budget=35,
                                     clock=lambda: next(ticks))
    # the warm-up round reads the clock 4 times: 30 "seconds", so one more round fits 35
    assert timings == {"a": [10]} and len(calls) == 3  # first call, warm-up, one round
    ticks = iter(range(0, 1000, 10))
    calls.clear()
    timings = calibration.time_calls({"a": lambda: calls.append("a")}, repeats=9, budget=5,
                                     clock=lambda: next(ticks))
    assert timings == {"a": [10]} and len(calls) == 2  # over budget: the warm-up is all


# --- the GEMM routing ------------------------------------------------------

gemm = pytest.importorskip("tapeflow.kernels.gemm")


def _fake_timings(tapeflow_faster):
    """time_calls stand-in: the tapeflow kernel takes 1 ms in the classes of
    `tapeflow_faster`, 3 ms elsewhere; BLAS always 2 ms."""
    calls = []

    def time_calls(candidates, repeats, before=None, budget=None, clock=None):
        # the classes in order; then any product measured by its own shape (BLAS-faster)
        cls = list(gemm.SHAPE_CLASSES)[len(calls)] if len(calls) < len(gemm.SHAPE_CLASSES) else None
        calls.append(cls)
        fast = 0.001 if cls in tapeflow_faster else 0.003
        assert set(candidates) == {"tapeflow", "blas", "follow"}
        # each product is timed with the BLAS product that follows it in a step
        return {"tapeflow": [fast + 0.0005] * repeats, "blas": [0.0025] * repeats,
                "follow": [0.0005] * repeats}
    return time_calls


@pytest.fixture
def due(monkeypatch):
    """DECIDE_AFTER's wait over, whatever ran before: decisions are measured."""
    monkeypatch.setattr(gemm, "_measuring", [True])


@pytest.fixture
def waiting(cache, monkeypatch):
    """A process that has run no product yet and has no 'gemm' decision cached."""
    monkeypatch.setattr(gemm, "_measuring", [])
    monkeypatch.setattr(gemm, "_cached_here", {})
    monkeypatch.setattr(gemm, "_waited", [0.0])
    monkeypatch.setattr(gemm, "_shapes", set())  # (MAX_SHAPES may be reached by the tests before)
    monkeypatch.setattr(gemm, "_failed", {})
    monkeypatch.setattr(gemm, "SHAPE_MEASURED", (0, 0))  # every product by its class

    def no_measuring(*args, **kwargs):
        raise AssertionError("the 'gemm' decision was measured before it was due")
    monkeypatch.setattr(gemm, "_measure", no_measuring)
    version = calibration._measurements["gemm"][1]
    calibration.register("gemm", lambda: gemm._measure(), version=version)  # (in cache's copy)


def _w2_product():
    a = np.ones((128, 784), np.float32)
    return tf.matmul(a, np.ones((784, 512), np.float32)).numpy()  # W2's first layer


def test_products_wait_on_blas_until_deciding_can_pay(waiting, monkeypatch):
    # A first fit on an empty cache: the products run on BLAS, timed, and nothing
    # is measured (nor this kernel compiled) for them.
    assert (_w2_product() == 784).all()
    assert not gemm.wins(128, 784, 512, np.float32)
    assert "gemm" not in calibration.choices()["decisions"]
    assert 0 < gemm._waited[0] < gemm.DECIDE_AFTER
    waited = gemm._waited[0]
    tf.matmul(np.ones((128, 784), np.float64), np.ones((784, 512)))  # float64: not counted
    tf.matmul(np.ones((128, 784), np.float32), np.ones((784, 10), np.float32))  # no panel
    assert gemm._waited[0] == waited
    # Once they have run DECIDE_AFTER seconds, the decision is measured and routes.
    monkeypatch.setattr(gemm, "_measure", lambda: ({c: "tapeflow" for c in gemm.SHAPE_CLASSES},
                                                   {}))
    monkeypatch.setattr(gemm, "DECIDE_AFTER", waited)
    assert gemm.may_measure() and gemm.wins(128, 784, 512, np.float32)
    assert calibration.choices()["decisions"]["gemm"]["short-large"] == "tapeflow"


def test_a_cached_or_forced_route_is_taken_while_waiting(waiting, monkeypatch):
    with calibration.forced(gemm="tapeflow"):
        assert gemm.wins(128, 784, 512, np.float32)
    assert not gemm.wins(128, 784, 512, np.float32)  # the force lifted: waiting again
    monkeypatch.setattr(gemm, "_cached_here", {})  # as a new process
    version = calibration._measurements["gemm"][1]
    routes = {c: "tapeflow" if c == "tall-medium" else "blas" for c in gemm.SHAPE_CLASSES}
    entries = {calibration._key(calibration.identity()): {  # as earlier processes left it
        "gemm": [routes, {}, version, [routes, routes]],
        "gemm 7744x288x64": ["tapeflow", {}, 1, ["tapeflow", "tapeflow"]],
        "gemm 7744x64x288": ["tapeflow", {}, 1, ["tapeflow"]]}}  # measured once: not settled
    calibration._write(calibration.cache_path(), entries)
    monkeypatch.setattr(gemm, "SHAPE_MEASURED", (1 << 25, 1 << 29))  # shapes by their own
    assert gemm.wins(1024, 128, 64, np.float32)  # tall-medium's cached route
    assert gemm.wins(7744, 288, 64, np.float32)  # its own shape's cached route
    assert not gemm.wins(7744, 64, 288, np.float32)  # its shape not cached: BLAS, waiting
    assert not gemm.may_measure() and gemm._waited == [0.0]


def test_op_determinism_makes_the_gemm_decision_at_the_first_product(waiting, monkeypatch):
    # A product's route must not change within the process when ops must repeat bits.
    from tapeflow.config import _disable_op_determinism
    monkeypatch.setattr(gemm, "_measure", lambda: ({c: "blas" for c in gemm.SHAPE_CLASSES}, {}))
    tf.config.experimental.enable_op_determinism()
    try:
        _w2_product()
    finally:
        _disable_op_determinism()
    assert gemm._waited == [0.0] and "gemm" in calibration.choices()["decisions"]


@pytest.mark.parametrize("tapeflow_faster", [set(), {"tall-large", "short-large"},
                                             set(gemm.SHAPE_CLASSES)])
def test_the_gemm_decision_routes_as_its_measurements_say(cache, due, monkeypatch,
                                                          tapeflow_faster):
    fake = _fake_timings(tapeflow_faster)
    monkeypatch.setattr(calibration, "time_calls", fake)
    monkeypatch.setattr(gemm, "SHAPE_MEASURED", (0, 0))  # every product by its class
    assert calibration.choice("gemm") == {
        cls: "tapeflow" if cls in tapeflow_faster else "blas" for cls in gemm.SHAPE_CLASSES}
    for cls, (m, k, n) in gemm.SHAPE_CLASSES.items():
        assert gemm.shape_class(m, k, n) == cls
        assert gemm.wins(m, k, n, np.float32) == (cls in tapeflow_faster)
    # A BLAS faster everywhere is used everywhere, W2's and W3's shapes included.
    if not tapeflow_faster:
        assert not any(gemm.wins(*shape, np.float32)
                       for shape in [(128, 784, 512), (7744, 288, 64), (288, 7744, 64)])


@pytest.fixture
def shapes(cache, due, monkeypatch):
    """Classes measured BLAS-faster everywhere; each product measured by its own
    shape is BLAS-faster too unless `shapes.faster` holds it; `shapes.measured`
    lists the measurements. Registered decisions are restored afterwards."""
    monkeypatch.setattr(calibration, "time_calls", _fake_timings(set()))
    monkeypatch.setattr(gemm, "_shapes", set())

    class Shapes:
        faster, measured = set(), []

    def measure_shape(m, k, n):
        Shapes.measured.append((m, k, n))
        route = "tapeflow" if (m, k, n) in Shapes.faster else "blas"
        return route, {"tapeflow": 0.001, "blas": 0.002, "follow": 0.0005}
    monkeypatch.setattr(gemm, "_measure_shape", measure_shape)
    return Shapes


def test_a_large_product_is_routed_by_a_measurement_of_its_own_shape(shapes):
    # W3's second convolution and its input gradient: one class, opposite routes
    # on an AMD Zen 4 (1.3x faster on the kernel, 0.7x as fast).
    shapes.faster.add((7744, 288, 64))
    assert gemm.shape_class(7744, 288, 64) == gemm.shape_class(7744, 64, 288)
    assert gemm.wins(7744, 288, 64, np.float32)
    assert not gemm.wins(7744, 64, 288, np.float32)
    assert gemm.wins(7744, 288, 64, np.float32)
    assert shapes.measured == [(7744, 288, 64), (7744, 64, 288)]  # once each
    assert not gemm.wins(64, 64, 64, np.float32)  # under SHAPE_MEASURED: its class's route
    assert not gemm.wins(7744, 288, 64, np.float64)  # float32 only
    assert shapes.measured == [(7744, 288, 64), (7744, 64, 288)]
    decisions = calibration.choices()["decisions"]  # as get_kernel_choices lists them
    assert decisions["gemm 7744x288x64"] == "tapeflow" and decisions["gemm 7744x64x288"] == "blas"
    calibration.forget()  # as a new process: measured once more, which confirms it
    assert gemm.wins(7744, 288, 64, np.float32) and len(shapes.measured) == 3
    calibration.forget()  # then read from the cache
    assert gemm.wins(7744, 288, 64, np.float32) and len(shapes.measured) == 3
    assert _entries()[calibration._key(calibration.identity())]["gemm 7744x288x64"][0] == \
        "tapeflow"
    with calibration.forced(gemm={"tall-large": "blas"}):  # forcing 'gemm' overrides shapes
        assert not gemm.wins(7744, 288, 64, np.float32)
    with calibration.forced(gemm="tapeflow"):
        assert gemm.wins(7744, 64, 288, np.float32)


def test_a_shape_measured_blas_faster_overrides_its_class(shapes, monkeypatch):
    monkeypatch.setattr(calibration, "time_calls", _fake_timings({"tall-large"}))
    shapes.faster.add((4096, 288, 64))
    assert gemm.wins(4096, 288, 64, np.float32)
    assert not gemm.wins(7744, 64, 288, np.float32)  # its class this kernel's, its shape BLAS
    assert calibration.choice("gemm")["tall-large"] == "tapeflow"


def test_few_rows_and_large_operands_take_their_class(shapes, monkeypatch):
    monkeypatch.setattr(calibration, "time_calls", _fake_timings({"few-large", "short-large"}))
    assert gemm.wins(1, 4096, 8192, np.float32)  # a batch-1 layer: few-large's route
    rows = gemm.SHAPE_MAX_BYTES // (4 * 1024)  # an (m, 1024) operand past the cap
    assert gemm.wins(rows // 2, 2048, 32, np.float32) == (gemm.shape_class(
        rows // 2, 2048, 32) in {"few-large", "short-large"})
    assert shapes.measured == []


def test_a_failed_shape_measurement_takes_the_class_route_once(shapes, monkeypatch):
    calls = []

    def failing(m, k, n):
        calls.append((m, k, n))
        raise MemoryError("no room for the operands")
    monkeypatch.setattr(gemm, "_measure_shape", failing)
    monkeypatch.setattr(gemm, "_failed", {})
    monkeypatch.setattr(calibration, "time_calls", _fake_timings({"tall-large"}))
    assert gemm.wins(7744, 288, 64, np.float32)  # tall-large's route
    assert gemm.wins(7744, 288, 64, np.float32)
    assert calls == [(7744, 288, 64)]  # not measured again
    assert "MemoryError" in gemm._failed[(7744, 288, 64)]


def test_a_process_measures_at_most_max_shapes(shapes, monkeypatch):
    monkeypatch.setattr(gemm, "MAX_SHAPES", 1)
    shapes.faster.update({(7744, 288, 64), (4096, 288, 64)})
    assert gemm.wins(7744, 288, 64, np.float32)
    assert not gemm.wins(4096, 288, 64, np.float32)  # one shape too many: tall-large's BLAS
    assert gemm.wins(7744, 288, 64, np.float32)  # the shape decided stays decided
    assert shapes.measured == [(7744, 288, 64)]


def test_a_shape_measurement_routes_as_its_timings_say(monkeypatch):
    def time_calls(candidates, repeats, before=None, budget=None, clock=None):
        assert set(candidates) == {"tapeflow", "blas", "follow"}
        return {"tapeflow": [0.0015] * 3, "blas": [0.0030] * 3, "follow": [0.0005] * 3}
    monkeypatch.setattr(calibration, "time_calls", time_calls)
    route, medians = gemm._measure_shape(64, 32, 64)
    assert route == "tapeflow"
    assert medians == {"tapeflow": 0.001, "blas": 0.0025, "follow": 0.0005}


def test_the_real_shape_measurement_times_both_products():
    route, medians = gemm._measure_shape(512, 64, 64, repeats=1)
    assert route in ("tapeflow", "blas")
    assert set(medians) == {"tapeflow", "blas", "follow"} and min(medians.values()) > 0


def test_shape_classes_split_by_rows_and_multiply_adds():
    assert gemm.shape_class(8, 64, 64) == "few-small"
    assert gemm.shape_class(31, 1024, 1024) == "few-large"
    assert gemm.shape_class(32, 64, 1024) == "short-medium"  # 2**21 exactly: medium
    assert gemm.shape_class(511, 1, 1) == "short-small"
    assert gemm.shape_class(512, 128, 256) == "tall-large"  # 2**24 exactly: large
    assert gemm.shape_class(7744, 288, 64) == "tall-large"


def test_forcing_overrides_the_measurement_without_the_environment(cache, monkeypatch):
    def no_measuring(*args, **kwargs):
        raise AssertionError("a forced decision must not be measured")
    monkeypatch.setattr(calibration, "time_calls", no_measuring)
    environ = dict(os.environ)
    with calibration.forced(gemm="tapeflow"):
        assert gemm.wins(128, 784, 512, np.float32)
        assert not gemm.wins(128, 784, 512, np.float64)  # float32 only
        assert not gemm.wins(128, 784, 10, np.float32)  # fewer columns than a panel
        assert calibration.choices()["forced"] == {"gemm": "tapeflow"}
        with calibration.forced(gemm={"short-large": "blas"}):
            assert not gemm.wins(128, 784, 512, np.float32)
            assert not gemm.wins(7744, 288, 64, np.float32)  # a class left out: BLAS
        assert gemm.wins(7744, 288, 64, np.float32)
    with calibration.forced(gemm="blas"):
        assert not gemm.wins(7744, 288, 64, np.float32)
    assert calibration.choices()["forced"] == {}
    assert dict(os.environ) == environ


def test_get_kernel_choices_names_the_machine_and_the_decisions(cache):
    forced = {"gemm": "blas", "threads": "one", "blas_spin": "long", "conv": "im2col",
              "updates": 1 << 16, "pools": 1 << 18}
    with calibration.forced(**forced):
        choices = tf.config.experimental.get_kernel_choices()
    assert choices["machine"]["cpu"] == calibration.cpu_model()
    assert choices["machine"]["cores"] == calibration.usable_cpus()
    assert set(choices["machine"]) == {"cpu", "cpu_generation", "l2", "cores", "numpy", "numba",
                                       "blas", "openmp_before"}
    assert choices["machine"]["cpu_generation"] == calibration.cpu_generation()
    assert choices["decisions"] == forced
    assert choices["forced"] == forced


def test_get_kernel_choices_measures_what_is_not_decided(cache, monkeypatch):
    fake = _fake_timings({"tall-large"})
    monkeypatch.setattr(calibration, "time_calls", fake)
    with calibration.forced(threads="many", updates="one", pools="one"):
        choices = tf.config.experimental.get_kernel_choices()
    assert choices["decisions"]["gemm"]["tall-large"] == "tapeflow"
    assert choices["decisions"]["gemm"]["short-large"] == "blas"
    assert set(choices["details"]["gemm"]) == set(gemm.SHAPE_CLASSES)
    assert os.path.exists(calibration.cache_path())


def test_the_real_calibration_decides_every_class(cache):
    """The measurement itself, once: every class decided one way or the other."""
    decided, medians = gemm._measure(repeats=1)
    assert set(decided) == set(medians) == set(gemm.SHAPE_CLASSES)
    assert set(decided.values()) <= {"tapeflow", "blas"}
    assert all(set(v) == {"tapeflow", "blas", "follow"} for v in medians.values())
    assert all(t > 0 for v in medians.values() for t in v.values())


def test_the_gemm_measurement_runs_each_class_through_the_kernel_given(monkeypatch):
    shapes = []

    def kernel(a, b):
        shapes.append((a.shape[0], a.shape[1], b.shape[1]))
        return a @ b

    def time_calls(candidates, repeats, before=None, budget=None, clock=None):
        candidates["tapeflow"]()
        return {"tapeflow": [0.003], "blas": [0.003], "follow": [0.001]}
    monkeypatch.setattr(calibration, "time_calls", time_calls)
    decided, medians = gemm._measure(kernel=kernel)
    assert shapes == list(gemm.SHAPE_CLASSES.values())
    assert set(decided.values()) == {"blas"}  # a tie keeps BLAS
    assert medians["tall-large"] == {"tapeflow": 0.002, "blas": 0.002, "follow": 0.001}


# --- results do not depend on the choice -----------------------------------

def _operands(m, k, n, layout):
    rng = np.random.default_rng(m + k + n)
    a = rng.standard_normal((k, m) if layout == "transposed" else (m, 2 * k)).astype(np.float32)
    b = rng.standard_normal((k, n)).astype(np.float32)
    a = a.T if layout == "transposed" else a[:, ::2] if layout == "sliced" else a[:, :k]
    return a, b


@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("shape", [(128, 784, 512), (77, 288, 64), (40, 50, 40)])
def test_matmul_results_are_the_same_whichever_gemm_and_threads(shape, layout):
    a, b = _operands(*shape, layout)
    reference = a.astype(np.float64) @ b.astype(np.float64)
    results = []
    for gemm_choice in ("tapeflow", "blas"):
        for threads in ("one", "many"):
            with calibration.forced(gemm=gemm_choice, threads=threads):
                x, w = tf.constant(a), tf.constant(b)
                with tf.GradientTape() as tape:
                    tape.watch(w)
                    y = tf.matmul(x, w)
                grad = tape.gradient(y, w).numpy()
            results.append((y.numpy(), grad))
            np.testing.assert_allclose(y.numpy(), reference, rtol=1e-4, atol=1e-3)
            np.testing.assert_allclose(grad, a.astype(np.float64).sum(0)[:, None]
                                       * np.ones((1, shape[2])), rtol=1e-4, atol=1e-3)
    for y, grad in results[1:]:
        np.testing.assert_allclose(y, results[0][0], rtol=1e-5, atol=1e-4)


def test_conv2d_results_are_the_same_whichever_gemm_and_threads():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((4, 12, 12, 8)).astype(np.float32)
    f = rng.standard_normal((3, 3, 8, 32)).astype(np.float32)
    outs = []
    for gemm_choice in ("tapeflow", "blas"):
        for threads in ("one", "many"):
            with calibration.forced(gemm=gemm_choice, threads=threads):
                outs.append(tf.nn.conv2d(x, f, strides=1, padding="SAME").numpy())
    # Reference: the convolution as a sum over the 3 x 3 window, in float64.
    padded = np.pad(x.astype(np.float64), ((0, 0), (1, 1), (1, 1), (0, 0)))
    reference = sum(padded[:, i:i + 12, j:j + 12, :] @ f[i, j].astype(np.float64)
                    for i in range(3) for j in range(3))
    for out in outs:
        np.testing.assert_allclose(out, reference, rtol=1e-4, atol=1e-3)


def test_import_tapeflow_neither_calibrates_nor_loads_numba(tmp_path):
    code = ("import os, sys\nenviron = dict(os.environ)\nimport tapeflow\n"
            "assert 'numba' not in sys.modules\nassert dict(os.environ) == environ\n"
            "from tapeflow.runtime import calibration\nassert calibration._decided == {}\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300,
                   env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)})
    assert not os.path.exists(os.path.join(tmp_path, "tapeflow", "calibration",
                                           "kernel_choices.json"))


def test_threads_asking_at_once_share_one_measurement(cache, monkeypatch):
    import threading
    import time
    runs = []

    def slow():
        runs.append(1)
        time.sleep(0.05)
        return "fast", {}
    monkeypatch.setitem(calibration._measurements, "probe", (slow, 1))
    got = []
    threads = [threading.Thread(target=lambda: got.append(calibration.choice("probe")))
               for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == ["fast"] * 4 and runs == [1]


_CPUINFO = """processor\t: 0
vendor_id\t: AuthenticAMD
cpu family\t: {family}
model\t\t: {model}
model name\t: AMD EPYC
stepping\t: 1
flags\t\t: {flags}

processor\t: 1
vendor_id\t: AuthenticAMD
cpu family\t: 99
model\t\t: 99
model name\t: AMD EPYC
stepping\t: 9
flags\t\t: other
"""


def _cpuinfo(tmp_path, family=25, model=17, flags="fpu sse2 avx2 avx512f"):
    path = tmp_path / f"cpuinfo-{family}-{model}-{len(flags)}"
    path.write_text(_CPUINFO.format(family=family, model=model, flags=flags))
    return str(path)


def test_cpu_generation_names_family_model_stepping_and_the_flags(tmp_path):
    zen4 = calibration.cpu_generation(_cpuinfo(tmp_path))
    assert zen4.startswith("AuthenticAMD 25 17 1 flags ")  # the first processor's block
    # Zen 3 and Zen 5 under the same model string, another instruction set: all differ
    assert calibration.cpu_generation(_cpuinfo(tmp_path, model=1)) != zen4
    assert calibration.cpu_generation(_cpuinfo(tmp_path, family=26, model=2)) != zen4
    assert calibration.cpu_generation(_cpuinfo(tmp_path, flags="fpu sse2 avx2")) != zen4
    # the flags' order is not a difference
    assert calibration.cpu_generation(_cpuinfo(tmp_path, flags="avx512f avx2 sse2 fpu ")) == zen4
    assert calibration.cpu_generation(str(tmp_path / "absent")) == ""


def test_a_changed_cpu_generation_under_the_same_model_string_measures_anew(
        cache, counted, monkeypatch):
    calibration.choice("probe")
    monkeypatch.setattr(calibration, "cpu_generation", lambda: "AuthenticAMD 26 2 0 flags 0")
    calibration.forget()
    calibration.choice("probe")
    assert counted == [1, 1] and len(_entries()) == 2
    assert {json.loads(key)["cpu"] for key in _entries()} == {calibration.cpu_model()}


def test_the_newest_shape_decisions_are_kept_and_the_machine_keys_in_their_order(
        cache, counted, monkeypatch):
    monkeypatch.setattr(calibration, "_KEPT_SHAPES", 3)
    calibration.choice("probe")
    for i in range(5):
        calibration.register(f"gemm {i}x1x1", lambda i=i: ("blas", {"i": i}))
        calibration.choice(f"gemm {i}x1x1")
    [entry] = _entries().values()
    assert list(entry) == ["probe", "gemm 2x1x1", "gemm 3x1x1", "gemm 4x1x1"]  # newest 3
    # machine keys: the most recently written are the ones kept (not the last by name)
    monkeypatch.setattr(calibration, "_KEPT", 2)
    real = calibration.identity
    for cores in (9, 1, 5):
        monkeypatch.setattr(calibration, "identity", lambda c=cores: {**real(), "cores": c})
        calibration.forget()
        calibration.choice("probe")
    assert [json.loads(k)["cores"] for k in _entries()] == [1, 5]
