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
