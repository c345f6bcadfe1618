"""The kernel runtime in a process: the kernels take one thread when an OpenMP
runtime that spins was loaded before them (PyTorch's libgomp, say) and BLAS
workers also spin long between calls, up to two otherwise; idle workers spin
briefly; exit is left to Python: nothing freezes the collector, garbage is
finalized (checked in fresh subprocesses); and where compiled kernels are
cached."""

import ctypes.util
import os
import subprocess
import sys

import pytest

from tapeflow.runtime import openblas as _openblas
from tapeflow.runtime import jit as _numba

_PROBE = """
import ctypes, sys
if sys.argv[1] != "-":
    ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)  # as `import torch` does
import numpy as np
from tapeflow.runtime import jit as _numba
from tapeflow.kernels import elementwise
observed = []
real = _numba._run_on
_numba._run_on = lambda threads, kernel, args: observed.append(threads) or real(threads, kernel, args)
elementwise.relu_backward[1](np.ones(4), np.ones(4), np.empty(4))
print(_numba.ONE_THREAD_ONLY, observed[0])
"""

_POOL_PROBE = """
import os
from tapeflow.runtime import jit as _numba
print(os.environ.get("OMP_WAIT_POLICY"), os.environ.get("GOMP_SPINCOUNT"), _numba.POOL_WAKES_FAST)
"""


def _run(code, *args, **env):
    """The words a fresh interpreter prints running `code`, without the
    caller's thread settings unless given in `env`."""
    run_env = {k: v for k, v in os.environ.items()
               if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OPENBLAS_THREAD_TIMEOUT",
                            "TAPEFLOW_BLAS_TUNING")}
    run_env.update(env)
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, env=run_env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def _probe(library, **env):
    """(whether kernels keep one thread, the threads a kernel ran on) with
    `library` loaded first ('-': none)."""
    return _run(_PROBE, library, **env)


def _pool_probe(**env):
    return _run(_POOL_PROBE, **env)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_kernels_take_one_thread_beside_a_spinning_openmp_runtime_and_spinning_blas():
    gomp = ctypes.util.find_library("gomp")
    if gomp is None:
        pytest.skip("no libgomp on this machine")
    assert _probe(gomp, TAPEFLOW_BLAS_TUNING="0") == ["True", "1"]
    assert _probe(gomp, OPENBLAS_THREAD_TIMEOUT="28") == ["True", "1"]
    # import tapeflow shortened the BLAS spin: two threads beside the runtime.
    blas_paths = _openblas.loaded_openblas_paths()
    if blas_paths and all(_openblas._entry_points(p) for p in blas_paths):
        spinning, threads = _probe(gomp)
        assert spinning == "False" and (threads == "2" or os.cpu_count() < 2)
    # A runtime loaded with a passive wait policy sleeps when idle: two threads.
    spinning, threads = _probe(gomp, OMP_WAIT_POLICY="PASSIVE")
    assert spinning == "False" and (threads == "2" or os.cpu_count() < 2)


def test_idle_workers_spin_briefly_unless_the_user_said_otherwise():
    assert _pool_probe() == ["PASSIVE", "10000", "True"]
    assert _pool_probe(GOMP_SPINCOUNT="0") == ["PASSIVE", "0", "False"]
    assert _pool_probe(GOMP_SPINCOUNT="2k") == ["PASSIVE", "2k", "True"]
    assert _pool_probe(OMP_WAIT_POLICY="passive") == ["passive", "None", "False"]
    assert _pool_probe(OMP_WAIT_POLICY="ACTIVE") == ["ACTIVE", "None", "True"]


def test_kernels_take_two_threads_on_their_own():
    spinning, threads = _probe("-")
    assert spinning == "False" and (threads == "2" or os.cpu_count() < 2)


_EXIT_PROBE = """
import atexit, gc
import numpy as np
# Registered first, so it runs last: after any hook tapeflow could add.
atexit.register(lambda: print("frozen", gc.get_freeze_count(), flush=True))
from tapeflow.kernels import elementwise


class Noisy:
    def __init__(self):
        self.me = self  # a reference cycle: only the cyclic collector frees it

    def __del__(self):
        print("finalized", flush=True)


elementwise.relu_backward[0](np.ones(4), np.ones(4), np.empty(4))
Noisy()  # garbage by the time the interpreter exits
print("done", flush=True)
"""


def test_exit_finalizes_garbage_and_freezes_nothing():
    done = subprocess.run([sys.executable, "-c", _EXIT_PROBE], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["done", "frozen", "0", "finalized"]


def test_kernel_cache_goes_beside_a_source_tree_else_to_a_user_directory(tmp_path):
    source = tmp_path / "repo" / "framework" / "kernels"
    source.mkdir(parents=True)
    environ = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    _numba._choose_cache_dir(str(source), environ)
    assert "NUMBA_CACHE_DIR" not in environ  # Numba's default: beside the source
    # An installed copy: pip uninstall would leave the cache files behind.
    installed = tmp_path / "lib" / "site-packages" / "tapeflow" / "kernels"
    installed.mkdir(parents=True)
    _numba._choose_cache_dir(str(installed), environ)
    assert environ["NUMBA_CACHE_DIR"] == str(tmp_path / "xdg" / "tapeflow" / "numba")
    assert not (installed / "__pycache__").exists()
    # The user's own setting wins.
    environ = {"NUMBA_CACHE_DIR": "/somewhere", "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    _numba._choose_cache_dir(str(installed), environ)
    assert environ["NUMBA_CACHE_DIR"] == "/somewhere"


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_kernel_cache_leaves_a_read_only_source_tree_alone(tmp_path):
    source = tmp_path / "repo" / "kernels"
    source.mkdir(parents=True)
    source.chmod(0o555)
    environ = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    try:
        _numba._choose_cache_dir(str(source), environ)
    finally:
        source.chmod(0o755)
    assert environ["NUMBA_CACHE_DIR"] == str(tmp_path / "xdg" / "tapeflow" / "numba")


# Records whether numba is imported before tapeflow's _numba module has run
# (numba reads NUMBA_CACHE_DIR once, when it loads).
_IMPORT_ORDER_PROBE = """
import importlib, sys
class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == "numba" and "tapeflow.runtime.jit" not in sys.modules:
            print("numba first", flush=True)
        return None
sys.meta_path.insert(0, Watch())
importlib.import_module(sys.argv[1])
print("done", flush=True)
"""


@pytest.mark.parametrize("module", ["conv", "elementwise", "gather", "gemm", "optimizers",
                                    "pool", "softmax"])
def test_every_kernel_module_lets_numba_load_after_the_settings(module):
    done = subprocess.run([sys.executable, "-c", _IMPORT_ORDER_PROBE, f"tapeflow.kernels.{module}"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["done"]
