"""Smoke test of the benchmark harness: `benchmarks/run.py --quick --json` runs
every workload at tiny sizes in a subprocess and writes a row for each
workload and implementation with positive figures. Asserts no timings."""

import json
import math
import os
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RUN = os.path.join(REPO, "benchmarks", "run.py")
WORKLOADS = {"W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8"}


def _run(tmp_path, *extra):
    out = tmp_path / "bench.json"
    done = subprocess.run([sys.executable, RUN, "--quick", "--json", str(out), *extra],
                          capture_output=True, text=True, timeout=900, cwd=REPO)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return json.loads(out.read_text()), done.stdout


def _check_rows(report):
    assert not report["errors"]
    rows = report["results"]
    assert rows
    for row in rows:
        assert row["samples"], row
        assert all(math.isfinite(v) and v > 0 for v in row["samples"]), row
        assert row["min"] <= row["median"] <= row["max"]
    return rows


def test_quick_run_covers_every_workload(tmp_path):
    report, stdout = _run(tmp_path, "--peers", "none")
    rows = _check_rows(report)
    by_workload = {}
    for row in rows:
        by_workload.setdefault(row["workload"], set()).add(row["family"])
    # W7 needs the MNIST files beside the repository; every other workload always runs.
    expected = WORKLOADS if os.path.isdir(os.path.join(REPO, "..", "shared", "data", "mnist")) \
        else WORKLOADS - {"W7"}
    assert set(by_workload) == expected
    for workload, families in by_workload.items():
        # W8's references are Keras's fit and PyTorch's nn.LSTM (docs/BENCHMARKS.md)
        assert "numpy" in families or workload == "W8", workload
    # tapeflow runs wherever its pieces exist: W1, W4, W5 (import) and W6 always do.
    for workload in ("W1", "W4", "W5", "W6"):
        assert "tapeflow" in by_workload[workload], workload
    assert {"torch", "tensorflow", "jax"}.isdisjoint(set().union(*by_workload.values()))
    machine = report["machine"]
    assert machine["cores"] >= 1 and machine["python"] and machine["numpy"] and machine["blas"]
    # the one table, with both ratio columns
    assert "vs NumPy" in stdout and "vs tapeflow" in stdout
    # correctness checks the workloads make
    assert any("W1: final x" in n and "MISMATCH" not in n for n in report["notes"])
    assert any("W4: tapeflow jacobians match" in n for n in report["notes"])
    assert any("W6:" in n and "every implementation agrees" in n for n in report["notes"])


def test_only_selects_workloads(tmp_path):
    report, _ = _run(tmp_path, "--peers", "none", "--only", "w4,W6")
    assert {row["workload"] for row in _check_rows(report)} == {"W4", "W6"}


def test_unknown_workload_is_refused():
    done = subprocess.run([sys.executable, RUN, "--only", "W9"], capture_output=True, text=True,
                          cwd=REPO)
    assert done.returncode != 0 and "W9" in done.stderr


@pytest.mark.slow
def test_quick_run_with_installed_peers(tmp_path):
    """Every installed peer's code path runs (skipped when none is installed)."""
    installed = [p for p in ("torch", "tensorflow", "jax") if _importable(p)]
    if not installed:
        pytest.skip("no peer framework installed")
    report, _ = _run(tmp_path, "--peers", ",".join(installed))
    families = {row["family"] for row in _check_rows(report)}
    assert set(installed) <= families
    notes = report["notes"]
    # the correctness checks cover the peers: W1's final x and W6's gradient of every row
    assert any("W1: final x" in n and "MISMATCH" not in n for n in notes)
    assert any("W6:" in n and "every implementation agrees" in n for n in notes)
    if "jax" in installed:
        # JAX's training steps against the hand-written ones, its jacobians against the
        # closed forms
        for text in ("W2: JAX step matches", "W3: JAX step matches", "W4: JAX jacobians match"):
            assert any(n.startswith(text) for n in notes), (text, notes)
        assert any("W1: final x" in n and "JAX jit step" in n for n in notes)


def _importable(name):
    return subprocess.run([sys.executable, "-c", f"import {name}"],
                          capture_output=True).returncode == 0


def test_each_fit_row_trains_its_own_framework_model():
    # The 'tapeflow fit' row once timed Keras's fit: a lambda in build_impls saw
    # `model` rebound to the TF model built after it. A stand-in TF peer whose
    # models record their fits shows which model each row trains.
    sys.path.insert(0, os.path.join(REPO, "benchmarks"))
    try:
        import numpy as np
        from workloads import w2_mlp
    finally:
        sys.path.pop(0)
    fitted = []

    class FakeModel:
        def __init__(self, framework):
            self.framework = framework

        def fit(self, *args, **kwargs):
            fitted.append(self.framework)

    class FakeKeras:
        class utils:
            @staticmethod
            def set_random_seed(seed):
                pass

    class FakeTF:
        keras = FakeKeras()

        @staticmethod
        def function(fn):
            return fn

    class Ctx:
        quick = True

        def peer(self, name):
            return FakeTF if name == "tensorflow" else None

        def note(self, message):
            pass

    import tapeflow as tf

    def keras_builder(keras, **compile_options):
        return FakeModel("keras" if keras is FakeTF.keras else "tapeflow")

    x, y = np.zeros((4, 3), np.float32), np.zeros(4, np.int64)
    class NumpyModel:
        train_step = None

    impls = w2_mlp.build_impls(Ctx(), "W2", x, y, 2, 1, make_numpy=NumpyModel,
                               keras_builder=keras_builder, torch_builder=None,
                               jax_builder=None, needs=(), tape_step=lambda tf_, model: None)
    by_name = {name: fn for name, _, fn in impls}
    by_name["tapeflow fit"]()  # the untimed lead-in and the timed chunk: two fits
    assert fitted == ["tapeflow", "tapeflow"]
    fitted.clear()
    by_name["TF Keras fit"]()
    assert fitted == ["keras", "keras"]
    assert tf.keras is not FakeTF.keras


def test_scaling_configurations_take_the_first_cpus_and_add_one_intra_op_thread():
    sys.path.insert(0, os.path.join(REPO, "benchmarks"))
    try:
        import scaling
    finally:
        sys.path.remove(os.path.join(REPO, "benchmarks"))
    assert scaling.configurations([1, 2, 4], [3, 5, 7, 9]) == [
        ("1 core", [3], 0), ("2 cores", [3, 5], 0), ("4 cores", [3, 5, 7, 9], 0),
        ("4 cores, intra_op 1", [3, 5, 7, 9], 1)]
    assert scaling.configurations([1, 8], [0]) == [("1 core", [0], 0)]  # 8 not available


def test_scaling_runs_one_w2_process_on_one_core():
    sys.path.insert(0, os.path.join(REPO, "benchmarks"))
    try:
        import scaling
    finally:
        sys.path.remove(os.path.join(REPO, "benchmarks"))
    rate = scaling.run_once(sorted(os.sched_getaffinity(0))[:1], "W2")
    assert math.isfinite(rate) and rate > 0


def _harness_module():
    sys.path.insert(0, os.path.join(REPO, "benchmarks"))
    try:
        import _harness
    finally:
        sys.path.remove(os.path.join(REPO, "benchmarks"))
    return _harness


def test_interleave_times_a_short_call_right_after_an_untimed_one(monkeypatch):
    """After the cool-down sleep a short call is run untimed (at least once, for
    REWARM_FOR seconds), then timed; a long one is timed straight away (its
    wake-up cost is in the noise)."""
    _harness = _harness_module()
    monkeypatch.setattr(_harness, "COOL_DOWN", 0.0)
    monkeypatch.setattr(_harness, "REWARM_BELOW", 0.02)
    monkeypatch.setattr(_harness, "REWARM_FOR", 0.0)
    calls = {"short": 0, "long": 0}

    def short():
        calls["short"] += 1

    def long():
        calls["long"] += 1
        _harness.time.sleep(0.03)

    samples = _harness.interleave({"short": short, "long": long}, repeats=3, warmup=1)
    assert calls == {"short": 1 + 2 * 3, "long": 1 + 3}
    assert len(samples["short"]) == len(samples["long"]) == 3


def test_a_short_call_is_rewarmed_for_rewarm_for_seconds(monkeypatch):
    _harness = _harness_module()
    monkeypatch.setattr(_harness, "COOL_DOWN", 0.0)
    monkeypatch.setattr(_harness, "REWARM_FOR", 0.01)
    stamps = []
    samples = _harness.interleave(
        {"short": lambda: stamps.append(_harness.time.perf_counter())}, repeats=2, warmup=1)
    assert len(samples["short"]) == 2
    # After the warm-up call, each round calls it untimed for 0.01 s, then timed once.
    assert len(stamps) > 1 + 2 * 2
    assert stamps[-1] - stamps[1] >= 2 * 0.01
