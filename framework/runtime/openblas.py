"""openblas.py shortens how long NumPy's OpenBLAS worker threads spin after
each call, so that they stop taking a core from tapeflow's own kernels.

OpenBLAS's workers busy-wait (yielding) for 2**28 clock ticks, ~70 ms, after
every threaded BLAS call before they sleep. A training step calls BLAS every
millisecond or two, so on a 2-core machine one worker spins on the second
core nearly all the time, and every two-thread Numba kernel between the BLAS
calls runs at half speed: measured on W3's steady state, 10.9-11.6 ms per step,
7.9-8.3 ms with the workers sleeping after 2**16-2**20 ticks. 2**20 (~0.3 ms)
keeps them awake across back-to-back BLAS calls (W2, nearly all BLAS, kept its
2.2-2.3 ms per step; 2**16 cost it 3%).

OpenBLAS reads OPENBLAS_THREAD_TIMEOUT when it starts, before tapeflow is
imported, so this sets the variable only while OpenBLAS reads its environment
again (settings.scoped_environ restores os.environ right after), then stops
its threads; the next threaded call starts them with the new timeout.
Skipped when the user set OPENBLAS_THREAD_TIMEOUT, TAPEFLOW_PROCESS_TUNING=0 or
TAPEFLOW_BLAS_TUNING=0, and for OpenBLAS builds without those entry points
(OpenMP builds) or other BLAS libraries. What it did is listed by
tf.config.experimental.get_process_settings().

2**20 is where a process starts; whether its workers should instead sleep at
once (SHORT_TIMEOUT) is measured on the running machine when the first kernel
runs (jit.py's 'blas_spin' decision, which calls `tune_openblas` again). The
other pool's spin decides it: beside an OpenMP runtime loaded before Numba's
(PyTorch's libgomp, whose workers spin ~300,000 rounds after every parallel
kernel), two spinning pools on two cores took W3 from 120 to 81 steps/s on a
Xeon; sleeping BLAS workers gave 124 there, and 390 against 295 on W2.

`size_pool` gives the BLAS pool the kernels' thread count (the CPU affinity's
cores, jit.py) when the kernels load, unless the user set OPENBLAS_NUM_THREADS
(or GOTO_/OMP_NUM_THREADS); `set_num_threads` applies the user's
tf.config.threading.set_intra_op_parallelism_threads. Both go through
OpenBLAS's `openblas_set_num_threads`, never through os.environ, and do
nothing (recorded as skipped) when NumPy's BLAS is not OpenBLAS.

Why ctypes and not threadpoolctl: threadpoolctl finds and limits BLAS/OpenMP
thread pools but cannot set OpenBLAS's worker timeout (nor libgomp's spin
count), and it is not a tapeflow dependency (numpy, numba, tqdm only).
"""

import ctypes
import os
import sys

import numpy  # noqa: F401 -- loads the OpenBLAS this module tunes

from .settings import ProcessSetting, record, scoped_environ, skip_reason, user_setting

__all__ = ["tune_openblas", "set_num_threads", "size_pool", "symbol", "thread_counts",
           "timeout_untunable", "THREAD_TIMEOUT", "SHORT_TIMEOUT"]

THREAD_TIMEOUT = 20  # log2 of the clock ticks a worker spins before sleeping
SHORT_TIMEOUT = 10  # ~1,000 ticks: a worker sleeps as soon as its call is done
_DEFAULT_TIMEOUT = 28  # OpenBLAS's own, used when its reported timeout is 0 (unset)


def loaded_openblas_paths():
    """The OpenBLAS shared libraries mapped into this process (Linux)."""
    if not sys.platform.startswith("linux"):
        return []
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if "openblas" in line.lower()}
    except OSError:
        return []
    return sorted(p for p in paths if p.startswith("/") and ".so" in p)


def _entry_points(path):
    """(read_env, thread_shutdown, thread_timeout) of the library, or None."""
    try:
        lib = ctypes.CDLL(path)
        return lib.openblas_read_env, lib.blas_thread_shutdown_, lib.openblas_thread_timeout
    except (OSError, AttributeError):
        return None


def _timeout_libraries():
    """[(path, entry points)] of the loaded OpenBLAS libraries whose timeout can be set."""
    paths = loaded_openblas_paths()
    return [(p, e) for p, e in zip(paths, map(_entry_points, paths)) if e is not None]


def timeout_untunable(environ=os.environ):
    """Why the workers' timeout is not tapeflow's to set ('' when it is)."""
    why_not = skip_reason(environ, "TAPEFLOW_BLAS_TUNING")
    if not why_not and "OPENBLAS_THREAD_TIMEOUT" in environ:
        why_not = "your own OPENBLAS_THREAD_TIMEOUT wins"
    if not why_not and not _timeout_libraries():
        why_not = ("no OpenBLAS loaded" if not loaded_openblas_paths() else
                   "no openblas_read_env/blas_thread_shutdown_ entry points (an OpenMP build?)")
    return why_not


def tune_openblas(environ=os.environ, timeout=THREAD_TIMEOUT, why="set at import"):
    """Apply `timeout` (log2 of clock ticks, as OPENBLAS_THREAD_TIMEOUT) to
    every loaded OpenBLAS unless told not to; one ProcessSetting per library
    (or one saying why none was tuned), also recorded for get_process_settings."""
    name = "openblas.thread_timeout"
    why_not = timeout_untunable(environ)
    if why_not:
        before = environ.get("OPENBLAS_THREAD_TIMEOUT") if "your own" in why_not else None
        return record(ProcessSetting(name, timeout, before, False, why_not))
    libraries = _timeout_libraries()
    before = [current() or _DEFAULT_TIMEOUT for _, (_, _, current) in libraries]
    with scoped_environ({"OPENBLAS_THREAD_TIMEOUT": str(timeout)}):
        for _, (read_env, _, _) in libraries:
            read_env()
    settings = []
    for (path, (_, thread_shutdown, current)), old in zip(libraries, before):
        thread_shutdown()  # the next threaded call starts the workers with the new timeout
        label = name if len(libraries) == 1 else f"{name}[{os.path.basename(path)}]"
        if current() == timeout:
            settings.append(ProcessSetting(
                label, timeout, old, True, f"{why}: openblas_read_env with the variable set "
                "for the call"))
        else:
            settings.append(ProcessSetting(label, timeout, old, False, f"OpenBLAS kept {current()}"))
    return record(*settings)


_original_threads = {}  # path -> openblas_get_num_threads() before tapeflow's first setting
_sized = 0  # the count size_pool gave every OpenBLAS (0: none)


def _thread_entry_points(path):
    """(openblas_set_num_threads, openblas_get_num_threads) of the library, or None."""
    try:
        lib = ctypes.CDLL(path)
    except OSError:
        return None
    setter, getter = symbol(lib, "openblas_set_num_threads"), symbol(lib, "openblas_get_num_threads")
    if setter is None or getter is None:
        return None
    setter.argtypes, setter.restype, getter.restype = [ctypes.c_int], None, ctypes.c_int
    return setter, getter


def symbol(lib, name):
    """lib's `name`, or its scipy-openblas spelling: NumPy's wheels bundle
    scipy-openblas, whose exported names carry a prefix and a 64-bit-integer
    suffix. None when the library has neither."""
    for prefix, suffix in (("", ""), ("scipy_", "64_"), ("scipy_", "_64"), ("", "64_")):
        found = getattr(lib, f"{prefix}{name}{suffix}", None)
        if found is not None:
            return found
    return None


_USER_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")


def size_pool(num_threads, environ=os.environ):
    """Give every loaded OpenBLAS `num_threads` workers, the count the kernels
    run on (jit.py: the CPU affinity), so that both pools span the same cores.
    Recorded only when it changes a count (OpenBLAS usually counts the same
    cores itself) or is skipped: when the user set OpenBLAS's thread count in
    the environment, or TAPEFLOW_PROCESS_TUNING=0 / TAPEFLOW_BLAS_TUNING=0."""
    global _sized
    name = "openblas.num_threads"
    user = [v for v in _USER_VARIABLES if environ.get(v)]
    if user:
        return record(ProcessSetting(name, num_threads, environ[user[0]], False,
                                     f"your own {user[0]}={environ[user[0]]} wins"))
    why_not = skip_reason(environ, "TAPEFLOW_BLAS_TUNING")
    if why_not:
        return record(ProcessSetting(name, num_threads, None, False, why_not))
    _sized = num_threads  # what set_num_threads(0) goes back to
    if user_setting("intra_op_parallelism_threads"):
        return []  # the user's tf.config setting, applied by set_num_threads, stands
    if all(count == num_threads for count in thread_counts()):
        return []
    return _apply(num_threads, "sized to the kernels' threads (the CPU affinity)")


def thread_counts():
    """openblas_get_num_threads() of every loaded OpenBLAS that has it."""
    return [e[1]() for e in map(_thread_entry_points, loaded_openblas_paths()) if e]


def set_num_threads(num_threads):
    """Have every loaded OpenBLAS use at most `num_threads` threads; 0 gives
    each back the count size_pool gave it, else the count it had before the
    first call (OpenBLAS's own choice).
    Recorded for get_process_settings as a user-requested setting; returns the
    records (one per library, or one saying why none was set)."""
    return _apply(num_threads, "user request: tf.config.threading.set_intra_op_parallelism_threads")


def _apply(num_threads, why):
    name = "openblas.num_threads"
    paths = loaded_openblas_paths()
    libraries = [(p, e) for p, e in zip(paths, map(_thread_entry_points, paths)) if e is not None]
    if not libraries:
        why_not = ("no OpenBLAS loaded" if not paths else
                   "no openblas_set_num_threads entry point in the loaded BLAS")
        return record(ProcessSetting(name, num_threads, None, False, f"{why}; {why_not}"))
    settings = []
    for path, (setter, getter) in libraries:
        before = getter()
        original = _original_threads.setdefault(path, before)
        wanted = num_threads or _sized or original
        setter(wanted)
        label = name if len(libraries) == 1 else f"{name}[{os.path.basename(path)}]"
        applied = getter() == wanted
        reason = why if applied else f"{why}; OpenBLAS kept {getter()}"
        if not num_threads:
            reason += " (0: the default count restored)"
        settings.append(ProcessSetting(label, wanted, before, applied, reason))
    return record(*settings)
