"""The kernel runtime in a process: the kernels and NumPy's OpenBLAS take the
cores of the CPU affinity mask, or tf.config.threading's intra-op setting; an
OpenMP runtime loaded before them (PyTorch's libgomp, say) no longer costs the
kernels their threads (the calibration decides, in that process); idle
workers spin briefly (libgomp reads the setting while Numba loads it;
os.environ keeps nothing); exit is left to Python: nothing freezes the
collector, garbage is finalized (checked in fresh subprocesses); and where
compiled kernels are cached."""

import ctypes.util
import os
import subprocess
import sys

import pytest

from tapeflow.runtime import openblas as _openblas
from tapeflow.runtime import jit as _numba
from tapeflow.runtime import kernel_sources

# Run with the affinity mask argv[2] ("-": as inherited), `library` argv[1]
# loaded first ("-": none) and the 'threads' decision forced to argv[3]
# ("-": measured); prints the threads a kernel ran on, the threads of every
# OpenBLAS, the decision, and the OpenMP runtime the calibration names, then
# the same two counts after set_intra_op_parallelism_threads(1) and (0).
_PROBE = """
import ctypes, json, os, sys
if sys.argv[2] != "-":
    os.sched_setaffinity(0, json.loads(sys.argv[2]))
if sys.argv[1] != "-":
    ctypes.CDLL(sys.argv[1], mode=ctypes.RTLD_GLOBAL)  # as `import torch` does
import numpy as np
import tapeflow as tf
from tapeflow.runtime import calibration, openblas
from tapeflow.runtime import jit as _numba
from tapeflow.kernels import elementwise
if sys.argv[3] != "-":
    calibration.force("threads", sys.argv[3])
observed = []
real = _numba._run_on
_numba._run_on = lambda threads, kernel, args: observed.append(threads) or real(threads, kernel, args)


def counts():
    elementwise.relu_backward[1](np.ones(4), np.ones(4), np.empty(4))
    blas = [e[1]() for e in map(openblas._thread_entry_points, openblas.loaded_openblas_paths()) if e]
    return [observed[-1], blas]


first = counts()
tf.config.threading.set_intra_op_parallelism_threads(1)
one = counts()
tf.config.threading.set_intra_op_parallelism_threads(0)
print(json.dumps({"default": first, "one": one, "back": counts(),
                  "decision": calibration.choice("threads"),
                  "openmp_before": calibration.identity()["openmp_before"]}))
"""

# What libgomp went by (the OMP_WAIT_POLICY and GOMP_SPINCOUNT tapeflow or the
# user gave it), and whether a parallel kernel finds a worker still spinning;
# os.environ must hold the user's values only.
_POOL_PROBE = """
import os
before = dict(os.environ)
from tapeflow.runtime import jit as _numba
assert dict(os.environ) == before
env = _numba._OPENMP_ENVIRONMENT
print(env["OMP_WAIT_POLICY"], env["GOMP_SPINCOUNT"])
"""


def _run(code, *args, **env):
    """The words a fresh interpreter prints running `code`, without the
    caller's thread settings unless given in `env`."""
    run_env = {k: v for k, v in os.environ.items()
               if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OPENBLAS_THREAD_TIMEOUT",
                            "TAPEFLOW_BLAS_TUNING", "TAPEFLOW_PROCESS_TUNING", "NUMBA_NUM_THREADS",
                            "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "GOTO_NUM_THREADS")}
    run_env.update(env)
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True,
                          text=True, env=run_env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def _probe(library="-", cpus="-", threads="many", **env):
    """What _PROBE prints, in a fresh interpreter with its own cache directory."""
    import json
    out = _run(_PROBE, library, json.dumps(sorted(cpus)) if cpus != "-" else "-", threads, **env)
    return json.loads(" ".join(out))


def _pool_probe(**env):
    return _run(_POOL_PROBE, **env)


_CPUS = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_setaffinity") else []
needs_affinity = pytest.mark.skipif(not _CPUS, reason="no os.sched_setaffinity here")


def _blas(count):
    """What every loaded OpenBLAS reports given `count` threads ([] for none)."""
    paths = _openblas.loaded_openblas_paths()
    return [count] * len([p for p in paths if _openblas._thread_entry_points(p)])


@needs_affinity
@pytest.mark.parametrize("mask", [_CPUS[:1], _CPUS[:2]], ids=["one-cpu", "two-cpus"])
def test_kernels_and_blas_take_the_cores_of_the_affinity_mask(mask, tmp_path):
    result = _probe(cpus=mask, XDG_CACHE_HOME=str(tmp_path))
    n = len(mask)
    assert result["default"] == [n, _blas(n)]
    assert result["one"] == [1, _blas(1)]  # set_intra_op_parallelism_threads(1): both pools
    assert result["back"] == [n, _blas(n)]  # 0: the affinity's count again


@needs_affinity
def test_user_blas_threads_in_the_environment_win(tmp_path):
    result = _probe(cpus=_CPUS[:1], OPENBLAS_NUM_THREADS="1", XDG_CACHE_HOME=str(tmp_path))
    assert result["default"] == [1, _blas(1)]


@needs_affinity
def test_the_measured_threads_decision_governs_the_kernels(tmp_path):
    if len(_CPUS) < 2:
        pytest.skip("one CPU: nothing to decide")
    forced_one = _probe(cpus=_CPUS[:2], threads="one", XDG_CACHE_HOME=str(tmp_path))
    assert forced_one["default"][0] == 1 and forced_one["default"][1] == _blas(2)
    measured = _probe(cpus=_CPUS[:2], threads="-", XDG_CACHE_HOME=str(tmp_path))
    assert measured["decision"] in ("one", "many")
    assert measured["default"][0] == (1 if measured["decision"] == "one" else 2)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/maps")
def test_an_openmp_runtime_loaded_first_does_not_cost_the_kernels_their_threads(tmp_path):
    gomp = ctypes.util.find_library("gomp")
    if gomp is None or len(_CPUS) < 2:
        pytest.skip("no libgomp on this machine, or one CPU")
    # Before: one thread whenever BLAS workers also spun long. Now the pools
    # keep the affinity's cores, and the calibration measures in such a
    # process for itself (its cache key names the runtime).
    for env in ({"TAPEFLOW_BLAS_TUNING": "0"}, {}):
        result = _probe(gomp, cpus=_CPUS[:2], XDG_CACHE_HOME=str(tmp_path), **env)
        assert result["default"] == [2, _blas(2)]
        assert "libgomp" in result["openmp_before"]
    assert _probe(cpus=_CPUS[:2], XDG_CACHE_HOME=str(tmp_path))["openmp_before"] == "none"


def test_idle_workers_spin_briefly_unless_the_user_said_otherwise():
    assert _pool_probe() == ["PASSIVE", "10000"]
    assert _pool_probe(GOMP_SPINCOUNT="0") == ["PASSIVE", "0"]
    assert _pool_probe(GOMP_SPINCOUNT="2k") == ["PASSIVE", "2k"]
    assert _pool_probe(OMP_WAIT_POLICY="passive") == ["passive", "None"]
    assert _pool_probe(OMP_WAIT_POLICY="ACTIVE") == ["ACTIVE", "None"]
    assert _pool_probe(TAPEFLOW_PROCESS_TUNING="0") == ["None", "None"]


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
    source = tmp_path / "repo" / "framework"
    source.mkdir(parents=True)
    environ = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert _numba._choose_cache_dir(str(source), environ) is None  # Numba's default: beside it
    # An installed copy: pip uninstall would leave the cache files behind.
    installed = tmp_path / "lib" / "site-packages" / "tapeflow"
    installed.mkdir(parents=True)
    assert _numba._choose_cache_dir(str(installed), environ) == \
        str(tmp_path / "xdg" / "tapeflow" / "numba")
    assert not (installed / "__pycache__").exists()
    # The user's own NUMBA_CACHE_DIR wins: Numba's own locator handles it.
    environ = {"NUMBA_CACHE_DIR": "/somewhere", "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    assert _numba._choose_cache_dir(str(installed), environ) is None
    assert environ == {"NUMBA_CACHE_DIR": "/somewhere", "XDG_CACHE_HOME": str(tmp_path / "xdg")}


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes into read-only directories")
def test_kernel_cache_leaves_a_read_only_source_tree_alone(tmp_path):
    source = tmp_path / "repo" / "framework"
    source.mkdir(parents=True)
    source.chmod(0o555)
    environ = {"XDG_CACHE_HOME": str(tmp_path / "xdg")}
    try:
        chosen = _numba._choose_cache_dir(str(source), environ)
    finally:
        source.chmod(0o755)
    assert chosen == str(tmp_path / "xdg" / "tapeflow" / "numba")


def test_the_locator_takes_tapeflows_functions_only(tmp_path, monkeypatch):
    import numba
    import numba.core.caching as caching
    from tapeflow.kernels import elementwise

    impl = getattr(caching, "CacheImpl", None) or caching._CacheImpl
    assert impl._locator_classes.index(_numba._TapeflowCacheLocator) == 0
    locate = _numba._TapeflowCacheLocator.from_function
    kernel_file = elementwise.__file__  # a file inside tapeflow's package
    user_file = tmp_path / "mine.py"
    user_file.write_text("def f():\n    return 1\n")
    # An installed copy (or read-only tree): tapeflow's kernels go to its cache dir.
    monkeypatch.setattr(_numba, "_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    assert locate(_some_function, kernel_file).get_cache_path().startswith(
        str(tmp_path / "cache") + os.sep)
    assert locate(_some_function, str(user_file)) is None  # the user's: Numba's own locators
    # The user's NUMBA_CACHE_DIR: where Numba's own locator would put them.
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "user"))
    numbas = caching.UserProvidedCacheLocator.from_function(_some_function, kernel_file)
    assert locate(_some_function, kernel_file).get_cache_path() == numbas.get_cache_path()
    assert numbas.get_cache_path().startswith(str(tmp_path / "user") + os.sep)
    assert locate(_some_function, str(user_file)) is None
    # A writable source tree: beside the source, as Numba's default.
    monkeypatch.setattr(_numba, "_CACHE_DIR", None)
    monkeypatch.setattr(numba.config, "CACHE_DIR", "")
    assert locate(_some_function, kernel_file).get_cache_path() == \
        os.path.join(os.path.dirname(kernel_file), "__pycache__")
    assert locate(_some_function, str(user_file)) is None


def test_a_kernels_cache_is_stale_once_any_kernel_module_changes(tmp_path):
    """Numba stamps a cached function with its own file only: a kernel compiled
    into its caller from another module must not outlive an edit of that module."""
    for folder, name in (("kernels", "callee.py"), ("runtime", "jit.py")):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / name).write_text("X = 1\n")
    (tmp_path / "kernels" / "notes.txt").write_text("not a module")
    before = kernel_sources._kernel_sources_digest(str(tmp_path))
    (tmp_path / "kernels" / "notes.txt").write_text("still not a module")
    assert kernel_sources._kernel_sources_digest(str(tmp_path)) == before
    (tmp_path / "kernels" / "callee.py").write_text("X = 2\n")
    changed = kernel_sources._kernel_sources_digest(str(tmp_path))
    assert changed != before
    (tmp_path / "runtime" / "jit.py").write_text("X = 2\n")
    assert kernel_sources._kernel_sources_digest(str(tmp_path)) not in (before, changed)
    from tapeflow.kernels import elementwise
    locator = _numba._TapeflowCacheLocator.from_function(_some_function, elementwise.__file__)
    own, kernels = locator.get_source_stamp()
    assert kernels == kernel_sources._kernel_sources_digest()
    assert own == _numbas_stamp(elementwise.__file__)


def test_kernel_sources_edited_while_the_process_runs_match_no_later_process(monkeypatch):
    """The modules a process imported are the sources as it first saw them:
    once they change, what it compiles may mix older and newer code, so its
    stamp must be one no later process computes, and an unreadable module
    declines caching (Numba's own locators take the function)."""
    from tapeflow.kernels import elementwise
    first = kernel_sources.kernel_sources()
    assert first == kernel_sources._kernel_sources_digest()
    seen = kernel_sources._kernel_stats()
    edited = seen[:-1] + ((seen[-1][0], seen[-1][1] + 1, seen[-1][2]),)
    monkeypatch.setattr(kernel_sources, "_kernel_stats", lambda: edited)
    changed = kernel_sources.kernel_sources()
    assert changed != first and _numba._PROCESS_TAG in changed
    locator = _numba._TapeflowCacheLocator.from_function(_some_function, elementwise.__file__)
    assert locator.get_source_stamp()[1] == changed

    def unreadable():
        raise PermissionError("kernels/gemm.py")
    monkeypatch.setattr(_numba, "_kernel_sources", unreadable)
    assert _numba._TapeflowCacheLocator.from_function(_some_function,
                                                      elementwise.__file__) is None
    assert locator.get_source_stamp()[1] == f"unreadable in process {_numba._PROCESS_TAG}"


def _numbas_stamp(path):
    """Numba's own stamp of a source file."""
    import numba.core.caching as caching
    return caching.InTreeCacheLocator.from_function(_some_function, path).get_source_stamp()


def _some_function():
    return 1


# Records whether numba is imported before tapeflow's runtime/jit.py has run
# (jit.py registers the kernels' cache locator and loads the threading layer
# with OpenMP's settings before any kernel is defined).
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
