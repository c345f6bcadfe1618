"""jit.py is the one place numba is imported. It has tapeflow's kernels cached
where they belong (beside the source in a writable source tree, else a user
cache directory) through a Numba cache locator of their own, loads Numba's
threading layer with OpenMP's spin settings scoped to that load (openmp.py),
picks the thread count for this machine and the user's
tf.config.threading setting (`kernel_threads`), and declares the fastmath flags
once. It leaves os.environ, Numba's config and the user's own Numba functions
as they were."""

import os
import tempfile
import threading
import types

from . import openmp
from .openblas import workers_spin_long
from .settings import user_setting

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tapeflow/


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


def _choose_cache_dir(package_dir=_PACKAGE_DIR, environ=os.environ):
    """Where tapeflow's kernels are cached: None for Numba's own choice (the
    user's NUMBA_CACHE_DIR; else beside the source when that is a writable
    source tree), else a user cache directory. An installed copy never gets
    cache files beside it: `pip uninstall` leaves files it did not install,
    and the leftover `tapeflow/` directory would then shadow a later editable
    install as an empty namespace package (`pip install .` then `pip install -e
    .`). Reads `environ`, never writes it."""
    if environ.get("NUMBA_CACHE_DIR"):
        return None
    if not _installed_copy(package_dir) and _writable(os.path.join(package_dir, "__pycache__")):
        return None  # numba's default: beside the source, which is writable here
    user_cache = os.path.join(environ.get("XDG_CACHE_HOME")
                              or os.path.join(os.path.expanduser("~"), ".cache"),
                              "tapeflow", "numba")
    if not _writable(user_cache):
        user_cache = os.path.join(tempfile.gettempdir(), "tapeflow-numba-cache")
    return user_cache


def _spinning_openmp_loaded():
    """Whether an OpenMP runtime is already loaded (PyTorch brings its own
    libgomp) without a passive wait policy. Its idle workers then spin, and
    Numba's parallel regions run on it. Linux only."""
    if os.environ.get("OMP_WAIT_POLICY", "").upper() == "PASSIVE":
        return False
    return bool(openmp.loaded_runtimes())


def _kernels_must_share_one_thread():
    """A spinning OpenMP runtime and BLAS workers that spin long between calls
    together halve a step: measured on W3 with torch imported first and
    TAPEFLOW_BLAS_TUNING=0, 33-40 steps/s with two-thread kernels against
    98-103 with one. Either alone is harmless: with the BLAS spin shortened
    (openblas.py), two threads are faster beside torch (122-124 against
    110-112 steps/s)."""
    return _spinning_openmp_loaded() and workers_spin_long()


_CACHE_DIR = _choose_cache_dir()
# Kernels stay on one thread when another OpenMP runtime was there first
# (its wait policy was fixed when it loaded, so openmp.py's setting comes too
# late) and BLAS workers still spin between calls. Decided before Numba loads
# its own OpenMP runtime below.
ONE_THREAD_ONLY = _kernels_must_share_one_thread()

import numba  # noqa: E402
from numba import njit, prange  # noqa: E402,F401 -- kernels import both from here
from numba.core import caching as _caching  # noqa: E402


class _TapeflowCacheLocator(_caching._SourceFileBackedLocatorMixin, _caching._CacheLocator):
    """Caches tapeflow's own kernels under _CACHE_DIR when tapeflow must not
    cache beside its source (an installed copy, an unwritable tree); declines
    (None) every other function, and everything when the user set
    NUMBA_CACHE_DIR, so Numba's own locators handle them as without tapeflow."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        self._cache_path = os.path.join(_CACHE_DIR, self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self):
        return self._cache_path

    @classmethod
    def from_function(cls, py_func, py_file):
        if _CACHE_DIR is None or numba.config.CACHE_DIR:
            return None
        try:
            inside = os.path.commonpath([os.path.abspath(py_file), _PACKAGE_DIR]) == _PACKAGE_DIR
        except ValueError:  # another drive
            return None
        return super().from_function(py_func, py_file) if inside else None


def _register_locator():
    """Put _TapeflowCacheLocator right after Numba's locator for a user's
    NUMBA_CACHE_DIR (which keeps precedence), before the in-tree one."""
    impl = getattr(_caching, "CacheImpl", None) or _caching._CacheImpl
    locators = impl._locator_classes
    if _TapeflowCacheLocator not in locators:
        after = [i for i, c in enumerate(locators) if c is _caching.UserProvidedCacheLocator]
        locators.insert(after[0] + 1 if after else 0, _TapeflowCacheLocator)


_register_locator()


def _launch_threading_layer():
    """Have Numba load its threading layer now; the layer's name. A failure is
    left for the first parallel kernel to raise, as without tapeflow."""
    try:
        numba.get_num_threads()  # loads the threading layer and starts its threads
        return numba.threading_layer()
    except Exception as error:  # noqa: BLE001 -- e.g. no threading layer could be loaded
        return f"none ({error})"


# Numba loads its threading layer (libgomp) here, before any kernel runs, with
# openmp.py's spin settings in the environment for the load only.
_OPENMP_ENVIRONMENT = openmp.load_runtime(_launch_threading_layer)
# Whether parallel kernels start without a wake-up's delay (kernels/gemm.py
# beats BLAS on small products only then).
POOL_WAKES_FAST = not ONE_THREAD_ONLY and openmp.pool_wakes_fast(_OPENMP_ENVIRONMENT)

# Interval arithmetic stays IEEE (no `nnan`/`ninf`): kernels must propagate NaN
# so that bad input is visible, while reassociation lets loops vectorise.
FASTMATH = {"contract", "arcp", "reassoc", "nsz"}



def _usable_cpus():
    """The CPUs this process may run on: its affinity mask where the OS has one
    (a container or `taskset` limits it below os.cpu_count()), else the count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


# Two threads at most by default: BLAS and Numba's pool must not oversubscribe
# the cores. The cap of 2 stays until a later issue measures what the default
# should be on larger machines; do not change it here.
_DEFAULT_CAP = 2
_DEFAULT_THREADS = 1 if ONE_THREAD_ONLY else max(1, min(numba.config.NUMBA_NUM_THREADS,
                                                        _usable_cpus(), _DEFAULT_CAP))


def kernel_threads():
    """The threads a parallel kernel runs on, the one place that decides it:
    the default (above), lowered to tf.config.threading's intra-op setting when
    the user made one (0, TF's "system picks", keeps the default). Read at
    every call, so a setting made after the first kernel ran counts too."""
    limit = user_setting("intra_op_parallelism_threads")
    return min(_DEFAULT_THREADS, limit) if limit else _DEFAULT_THREADS



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
    """One `parallel=True` compile of `fn`, as a (one thread, all threads) pair;
    "all threads" is `kernel_threads()` at each call.
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

    def one_thread(*args):
        return _run_on(1, kernel, args)

    def all_threads(*args):
        return _run_on(kernel_threads(), kernel, args)

    one_thread.__name__ = fn.__name__
    all_threads.__name__ = fn.__name__ + "_parallel"
    one_thread.kernel = all_threads.kernel = kernel
    return one_thread, all_threads
