"""runtime/openblas: after `import tapeflow`, NumPy's OpenBLAS workers spin 2**20
ticks instead of 2**28 before sleeping; the user's own setting wins."""

import os
import subprocess
import sys

import pytest

from tapeflow.runtime import openblas as _openblas

# Prints the thread timeout every loaded OpenBLAS reports after `import
# tapeflow` and one threaded BLAS call.
_REPORT = """
import os
import numpy as np
from tapeflow.runtime import openblas as _openblas
a = np.ones((256, 256), np.float32)
a @ a
assert os.environ.get("OPENBLAS_THREAD_TIMEOUT") != str(_openblas.THREAD_TIMEOUT)  # not left set
print([_openblas._entry_points(p)[2]() for p in _openblas.loaded_openblas_paths()
       if _openblas._entry_points(p) is not None])
"""

needs_openblas = pytest.mark.skipif(
    not any(_openblas._entry_points(p) for p in _openblas.loaded_openblas_paths()),
    reason="NumPy here is not linked to a pthreads OpenBLAS")


def _timeouts(**env):
    """The timeout of every loaded OpenBLAS."""
    environ = {k: v for k, v in os.environ.items()
               if k not in ("OPENBLAS_THREAD_TIMEOUT", "TAPEFLOW_BLAS_TUNING",
                            "TAPEFLOW_PROCESS_TUNING")}
    environ.update(env)
    out = subprocess.run([sys.executable, "-c", _REPORT], env=environ,
                         check=True, capture_output=True, text=True).stdout
    return eval(out.strip().splitlines()[-1])  # a list of ints we printed



@needs_openblas
def test_import_shortens_the_spin_of_every_loaded_openblas():
    assert set(_timeouts()) == {_openblas.THREAD_TIMEOUT}


@needs_openblas
def test_user_timeout_and_opt_out_are_left_alone():
    assert set(_timeouts(OPENBLAS_THREAD_TIMEOUT="24")) == {24}
    assert _openblas.THREAD_TIMEOUT not in _timeouts(TAPEFLOW_BLAS_TUNING="0")
    assert _openblas.THREAD_TIMEOUT not in _timeouts(TAPEFLOW_PROCESS_TUNING="0")


@pytest.mark.parametrize("environ, before, reason", [
    ({"TAPEFLOW_BLAS_TUNING": "0"}, None, "switched off: TAPEFLOW_BLAS_TUNING=0"),
    ({"TAPEFLOW_PROCESS_TUNING": "0"}, None, "switched off: TAPEFLOW_PROCESS_TUNING=0"),
    ({"OPENBLAS_THREAD_TIMEOUT": "10"}, "10", "your own OPENBLAS_THREAD_TIMEOUT wins"),
])
def test_tune_openblas_skips_when_told(environ, before, reason):
    assert _openblas.tune_openblas(environ=environ) == [_openblas.ProcessSetting(
        "openblas.thread_timeout", _openblas.THREAD_TIMEOUT, before, False, reason)]


@pytest.mark.parametrize("environ, reason", [
    ({"OPENBLAS_NUM_THREADS": "3"}, "your own OPENBLAS_NUM_THREADS=3 wins"),
    ({"OMP_NUM_THREADS": "1"}, "your own OMP_NUM_THREADS=1 wins"),
    ({"TAPEFLOW_PROCESS_TUNING": "0"}, "switched off: TAPEFLOW_PROCESS_TUNING=0"),
    ({"TAPEFLOW_BLAS_TUNING": "off"}, "switched off: TAPEFLOW_BLAS_TUNING=off"),
])
def test_size_pool_leaves_the_users_count_alone(environ, reason):
    [setting] = _openblas.size_pool(7, environ=environ)
    assert (setting.name, setting.value, setting.applied, setting.reason) == (
        "openblas.num_threads", 7, False, reason)


@needs_openblas
def test_size_pool_sets_every_openblas_and_zero_restores_it():
    entries = [e for e in map(_openblas._thread_entry_points, _openblas.loaded_openblas_paths()) if e]
    before = [get() for _, get in entries]
    sized = _openblas._sized
    try:
        _openblas.size_pool(1, environ={})
        assert [get() for _, get in entries] == [1] * len(entries)
        _openblas.set_num_threads(3)  # the user's intra-op setting
        assert [get() for _, get in entries] == [3] * len(entries)
        _openblas.set_num_threads(0)  # back to the pool's size
        assert [get() for _, get in entries] == [1] * len(entries)
    finally:
        _openblas._sized = sized
        _openblas.set_num_threads(0)
        for (set_, _), count in zip(entries, before):
            set_(count)


def _current_timeouts():
    return [e[2]() for e in map(_openblas._entry_points, _openblas.loaded_openblas_paths()) if e]


@pytest.fixture
def spin_restored():
    """The process's 'blas_spin' setting put back after the test."""
    from tapeflow.runtime import jit
    saved = jit._blas_spin[0]
    yield jit
    jit._set_blas_spin(saved, why="test restored")


@needs_openblas
def test_the_blas_spin_decision_sets_the_workers_timeout_at_the_next_kernel(spin_restored):
    from tapeflow.runtime import calibration
    jit = spin_restored
    with calibration.forced(blas_spin="short"):
        jit.kernel_threads()
        assert set(_current_timeouts()) == {_openblas.SHORT_TIMEOUT}
        setting = tf_settings()["openblas.thread_timeout"]
        assert setting.value == _openblas.SHORT_TIMEOUT and "'blas_spin' decision" in setting.reason
    with calibration.forced(blas_spin="long"):
        jit.kernel_threads()
        assert set(_current_timeouts()) == {_openblas.THREAD_TIMEOUT}


def tf_settings():
    """get_process_settings by name, one OpenBLAS or several folded into one name."""
    import tapeflow as tf
    return {s.name.split("[")[0]: s for s in tf.config.experimental.get_process_settings()}


def test_an_unknown_blas_spin_setting_is_named(spin_restored):
    from tapeflow.runtime import calibration
    with calibration.forced(blas_spin="medium"):
        with pytest.raises(ValueError, match="'blas_spin' decision is one of \\['long', 'short'\\], "
                                             "got 'medium'"):
            spin_restored.kernel_threads()


@needs_openblas
def test_the_blas_spin_measurement_times_both_settings_and_puts_long_back(spin_restored):
    jit = spin_restored
    setting, details = jit._measure_blas_spin(rounds=2, budget=1.0)
    assert setting in ("long", "short")
    assert set(details) >= {"long", "short"} and all(details[k] > 0 for k in ("long", "short"))
    assert set(_current_timeouts()) == {_openblas.THREAD_TIMEOUT}  # until the decision is applied


@needs_openblas
def test_the_users_timeout_leaves_the_blas_spin_unmeasured():
    code = ("import numpy as np, tapeflow as tf\n"
            "from tapeflow.runtime import jit, openblas\n"
            "setting, details = jit._measure_blas_spin()\n"
            "print(setting, details, sorted(set(e[2]() for e in map(openblas._entry_points,"
            " openblas.loaded_openblas_paths()) if e)))")
    environ = {**os.environ, "OPENBLAS_THREAD_TIMEOUT": "24"}
    out = subprocess.run([sys.executable, "-c", code], env=environ, check=True,
                         capture_output=True, text=True).stdout.strip().splitlines()[-1]
    assert out == "long {'skipped': 'your own OPENBLAS_THREAD_TIMEOUT wins'} [24]"
