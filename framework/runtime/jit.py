"""_numba.py is the one place numba is imported. It picks a writable cache
directory before the import (the package folder, else a user cache), sets
the thread count for this machine, and declares the fastmath flags once."""

import os
import tempfile
import threading
import types

from .openblas import workers_spin_long


def _writable(path):
    try:
        os.makedirs(path, exist_ok=True)
        probe = tempfile.NamedTemporaryFile(dir=path, delete=True)
        probe.close()
        return True
    except OSError:
        return False


def _installed_copy(path):
    """Whether `path` lies in an installed (not editable) copy of the package."""
    parts = os.path.normpath(path).split(os.sep)
    return "site-packages" in parts or "dist-packages" in parts


def _choose_cache_dir(package_dir=os.path.dirname(os.path.abspath(__file__)),
                      environ=os.environ):
    """Where Numba caches compiled kernels: the user's NUMBA_CACHE_DIR; else
    Numba's default beside the source when that is a writable source tree;
    else a user cache directory. An installed copy never gets cache files
    beside it: `pip uninstall` leaves files it did not install, and the
    leftover `tapeflow/` directory would then shadow a later editable install
    as an empty namespace package (`pip install .` then `pip install -e .`)."""
    if environ.get("NUMBA_CACHE_DIR"):
        return
    if not _installed_copy(package_dir) and _writable(os.path.join(package_dir, "__pycache__")):
        return  # numba's default: beside the source, which is writable here
    user_cache = os.path.join(environ.get("XDG_CACHE_HOME")
                              or os.path.join(os.path.expanduser("~"), ".cache"),
                              "tapeflow", "numba")
    if not _writable(user_cache):
        user_cache = os.path.join(tempfile.gettempdir(), "tapeflow-numba-cache")
    environ["NUMBA_CACHE_DIR"] = user_cache


def _spinning_openmp_loaded():
    """Whether an OpenMP runtime is already loaded (PyTorch brings its own
    libgomp) without a passive wait policy. Its idle workers then spin, and
    Numba's parallel regions run on it. Linux only."""
    if os.environ.get("OMP_WAIT_POLICY", "").upper() == "PASSIVE":
        return False
    try:
        with open("/proc/self/maps") as maps:
            loaded = maps.read()
    except OSError:
        return False
    return any(name in loaded for name in ("libgomp", "libiomp", "/libomp"))


def _kernels_must_share_one_thread():
    """A spinning OpenMP runtime and BLAS workers that spin long between calls
    together halve a step: measured on W3 with torch imported first and
    TAPEFLOW_BLAS_TUNING=0, 33-40 steps/s with two-thread kernels against
    98-103 with one. Either alone is harmless: with the BLAS spin shortened
    (_openblas.py), two threads are faster beside torch (122-124 against
    110-112 steps/s)."""
    return _spinning_openmp_loaded() and workers_spin_long()


_choose_cache_dir()
# Kernels stay on one thread when another OpenMP runtime was there first
# (its wait policy was fixed when it loaded, so the setting below comes too
# late) and BLAS workers still spin between calls.
ONE_THREAD_ONLY = _kernels_must_share_one_thread()
# Idle OpenMP workers spin briefly, then sleep. Spinning long, a worker left
# over from a parallel kernel steals the core that the next BLAS call needs;
# sleeping at once, each parallel kernel pays ~0.1 ms to wake it on this VM,
# more than a W2-sized GEMM gains from the second thread. 10,000 spins (about
# OpenBLAS's own wait after _openblas.py) measured best on W2 and W3: with 0,
# W2's fit ran 418-423 steps/s, with 10,000 725-774, with 10**6 W3 collapsed.
_SPIN_COUNT = "10000"
_user_set_wait = "OMP_WAIT_POLICY" in os.environ or "GOMP_SPINCOUNT" in os.environ
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
if not _user_set_wait:
    os.environ["GOMP_SPINCOUNT"] = _SPIN_COUNT


def _pool_wakes_fast():
    """Whether an idle worker is still spinning when the next kernel starts:
    tapeflow's setting, or the user's if it spins at all."""
    spin_count = os.environ.get("GOMP_SPINCOUNT", "").strip().lower()
    if spin_count:
        return spin_count in ("infinite", "infinity") or spin_count.rstrip("kmgt") not in ("", "0")
    return os.environ["OMP_WAIT_POLICY"].upper() != "PASSIVE"


# Whether parallel kernels start without a wake-up's delay (kernels/gemm.py
# beats BLAS on small products only then).
POOL_WAKES_FAST = not ONE_THREAD_ONLY and _pool_wakes_fast()

import numba  # noqa: E402
from numba import njit, prange  # noqa: E402,F401 -- kernels import both from here


# Interval arithmetic stays IEEE (no `nnan`/`ninf`): kernels must propagate NaN
# so that bad input is visible, while reassociation lets loops vectorise.
FASTMATH = {"contract", "arcp", "reassoc", "nsz"}

# Two threads at most: BLAS and Numba's pool must not oversubscribe the cores.
# Each kernel call picks its own count through `serial_and_parallel`.


_thread_count = threading.local()  # the count last given to numba, per Python thread


def _run_on(threads, kernel, args):
    if getattr(_thread_count, "n", None) != threads:
        numba.set_num_threads(threads)
        _thread_count.n = threads
    return kernel(*args)


class _OneSignature:
    """A dispatcher that compiles for one signature at its first call (from the
    cache when warm) and converts every later call's arrays to it: one compile
    instead of one per combination of array layouts (each ~1.4 s cold)."""

    def __init__(self, dispatcher, signature):
        self.dispatcher, self.signature = dispatcher, signature

    def __call__(self, *args):
        if self.signature is not None:
            self.dispatcher.compile(self.signature)
            self.dispatcher.disable_compile()
            self.signature = None
        return self.dispatcher(*args)


def serial_and_parallel(fn, signature=None, **options):
    """One `parallel=True` compile of `fn`, as a (one thread, all threads) pair.
    With a `signature` it is the only compile (arrays of any layout convert to
    the signature's), done on first use.

    Both run the same machine code: numba's parallel compile marks the arrays
    as not aliasing, so its loops vectorise, which a plain serial compile of
    the same source does not (measured 3-4x slower for the optimizer updates).
    On one thread the loop runs inline, without waking a worker, so it is as
    cheap to enter as a serial kernel and safe on a busy machine.
    """
    # A renamed twin: numba's cache key holds the name but not the `parallel`
    # flag, so a serial compile of `fn` cached earlier must not be picked up.
    twin = types.FunctionType(fn.__code__, fn.__globals__, fn.__name__ + "_parallel",
                              fn.__defaults__, fn.__closure__)
    twin.__qualname__ = fn.__qualname__ + "_parallel"
    kernel = njit(cache=True, parallel=True, **options)(twin)
    if signature is not None:
        kernel = _OneSignature(kernel, signature)
    threads = 1 if ONE_THREAD_ONLY else min(numba.config.NUMBA_NUM_THREADS,
                                             os.cpu_count() or 1, 2)

    def one_thread(*args):
        return _run_on(1, kernel, args)

    def all_threads(*args):
        return _run_on(threads, kernel, args)

    one_thread.__name__ = fn.__name__
    all_threads.__name__ = fn.__name__ + "_parallel"
    one_thread.kernel = all_threads.kernel = kernel
    return one_thread, all_threads
