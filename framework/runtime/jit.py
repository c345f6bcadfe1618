"""jit.py is the one place numba is imported. It has tapeflow's kernels cached
where they belong (beside the source in a writable source tree, else a user
cache directory) through a Numba cache locator of their own, which also
renews them when any kernel module changes, loads Numba's
threading layer with OpenMP's spin settings scoped to that load (openmp.py),
picks the thread count from the CPU affinity, the user's tf.config.threading
setting and the calibration (`kernel_threads`, which also says how Numba's,
BLAS's and a co-loaded OpenMP pool share the cores), and declares the
fastmath flags once. It leaves os.environ, Numba's config and the user's own Numba functions
as they were."""

import os
import statistics
import tempfile
import threading
import time
import types

from . import calibration, kernel_start, openblas, openmp
from .kernel_sources import PROCESS_TAG as _PROCESS_TAG  # noqa: F401 -- the locator's stamps
from .kernel_sources import kernel_sources as _kernel_sources
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
    return calibration.user_cache_dir("numba", environ)


_CACHE_DIR = _choose_cache_dir()

import numba  # noqa: E402
from numba import njit, prange  # noqa: E402,F401 -- kernels import both from here
from numba.core import caching as _caching  # noqa: E402




class _TapeflowCacheLocator(_caching._SourceFileBackedLocatorMixin, _caching._CacheLocator):
    """Caches tapeflow's own kernels, and only those (None for every other
    function: Numba's own locators take them): in the user's NUMBA_CACHE_DIR
    where set, as Numba would; else beside the source in a writable source
    tree; else under _CACHE_DIR (an installed copy, an unwritable tree).

    A cached kernel is fresh when its own module and every module of
    kernels/ and runtime/ are as they were: Numba's stamp covers the
    function's own file only, and a kernel compiled into its caller (the
    recurrent kernels into recurrent_threads.py's) stayed stale after an edit
    of the callee's module, running the old code."""

    def __init__(self, py_func, py_file):
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        if numba.config.CACHE_DIR:
            root = numba.config.CACHE_DIR
        elif _CACHE_DIR is None:
            self._cache_path = os.path.join(os.path.dirname(py_file), "__pycache__")
            return
        else:
            root = _CACHE_DIR
        self._cache_path = os.path.join(root, self.get_suitable_cache_subpath(py_file))

    def get_cache_path(self):
        return self._cache_path

    def get_source_stamp(self):
        try:
            kernels = _kernel_sources()
        except OSError:  # a module went away since from_function: match nothing
            kernels = f"unreadable in process {_PROCESS_TAG}"
        return super().get_source_stamp(), kernels

    @classmethod
    def from_function(cls, py_func, py_file):
        try:
            inside = os.path.commonpath([os.path.abspath(py_file), _PACKAGE_DIR]) == _PACKAGE_DIR
            if inside:
                _kernel_sources()
        except (ValueError, OSError):  # another drive; modules it cannot read (a frozen app)
            return None
        return super().from_function(py_func, py_file) if inside else None


def _register_locator():
    """Put _TapeflowCacheLocator first: it declines every function but tapeflow's."""
    impl = getattr(_caching, "CacheImpl", None) or _caching._CacheImpl
    locators = impl._locator_classes
    if _TapeflowCacheLocator not in locators:
        locators.insert(0, _TapeflowCacheLocator)


_register_locator()

from . import blas_pool  # noqa: E402 -- after the locator: its kernels cache through it


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
# Interval arithmetic stays IEEE (no `nnan`/`ninf`): kernels must propagate NaN
# so that bad input is visible, while reassociation lets loops vectorise.
FASTMATH = {"contract", "arcp", "reassoc", "nsz"}



# Every core of the process's CPU affinity (`taskset`, a container's cpuset),
# at most NUMBA_NUM_THREADS (the size of Numba's pool, fixed when it started).
_DEFAULT_THREADS = max(1, min(numba.config.NUMBA_NUM_THREADS, calibration.usable_cpus()))
# NumPy's BLAS pool spans the same cores (unless the user sized it).
openblas.size_pool(_DEFAULT_THREADS)
_pool_shared = []  # non-empty once the first parallel kernel had BLAS share Numba's pool


def _share_pool():
    """Have NumPy's OpenBLAS run its threaded calls' jobs on Numba's pool
    (blas_pool.py), once, at the first parallel kernel (Numba's first compile
    may load another OpenBLAS, SciPy's, which the 'blas_spin' setting applied
    next then reaches too)."""
    _pool_shared.append(True)
    blas_pool.install()


def kernel_threads():
    """The threads a parallel kernel runs on, the one place that decides it:
    the default (above), lowered to tf.config.threading's intra-op setting when
    the user made one (0, TF's "system picks", keeps the default), and one when
    the calibration measured that many threads lose on this machine in this
    process (`threads` decision). Read at every call, so a setting made after
    the first kernel ran counts too.

    How the pools share the cores: where it can (blas_pool.py), NumPy's
    OpenBLAS runs its threaded calls' jobs on Numba's pool, so there is one.
    Otherwise a tapeflow op runs either a Numba kernel or
    a BLAS call, synchronously, so in one Python thread the two pools are
    never busy at the same time, and both are sized to the same cores. What
    can collide is an idle pool still spinning while the other works: BLAS
    workers sleep after ~0.3 ms or at once (openblas.py; which of the two is
    the 'blas_spin' decision, measured on a step's mix of both pools' work and
    applied at the first kernel), Numba's after a short spin (openmp.py). An
    OpenMP runtime loaded before Numba's (PyTorch's libgomp) keeps its own
    spin, which tapeflow cannot change; instead of dropping to one thread
    then, the calibration measures, in that very process (its cache key names
    the runtime loaded first), how long BLAS workers should spin and one
    thread against many, each kernel call following a BLAS call as in a step,
    and keeps many where they win."""
    if _spin_measuring:
        return _DEFAULT_THREADS  # the 'blas_spin' measurement's own kernel calls
    if not _pool_shared:
        _share_pool()
    if calibration.choice("blas_spin") != _blas_spin[0]:
        _set_blas_spin(calibration.choice("blas_spin"))
    limit = user_setting("intra_op_parallelism_threads")
    threads = min(_DEFAULT_THREADS, limit) if limit else _DEFAULT_THREADS
    if threads > 1 and calibration.choice("threads") == "one":
        return 1
    return threads


# One thread is chosen only when many lose by a wide margin: a shared machine's
# passing load must not leave a user's kernels on one core for good, while a
# pool that fights another's spinning workers loses 2-3x (W3 beside a spinning
# libgomp and OpenBLAS: 33-40 steps/s on two threads, 98-103 on one).
_ONE_THREAD_MARGIN = 0.25


def _measure_threads():
    """('many' or 'one', the timings): the probe kernel (compute-bound, as the
    convolutions and the GEMM are) on one thread against all of them, at two
    sizes, each call after a threaded BLAS product (so that BLAS or OpenMP
    workers still spinning count); decided by the larger size."""
    import numpy as np
    if _DEFAULT_THREADS < 2:
        return "one", {"threads": _DEFAULT_THREADS}
    kernel = _probe_pair[0].kernel
    a = np.ones((96, 96), np.float32)  # 96**3 multiply-adds: OpenBLAS threads it
    details, wins = {"threads": _DEFAULT_THREADS}, []
    for size in (1 << 15, 1 << 19):  # ~0.04 and ~0.6 ms on one Xeon core: a W3 kernel
        x, out = np.ones(size, np.float32), np.empty(size, np.float32)
        timings = calibration.time_calls(
            {"one": lambda: _run_on(1, kernel, (x, out)),
             "many": lambda: _run_on(_DEFAULT_THREADS, kernel, (x, out))},
            repeats=15, before=lambda: a @ a, budget=0.02)
        details[str(size)] = {k: statistics.median(v) for k, v in timings.items()}
        wins.append(calibration.faster(timings, default="many", margin=_ONE_THREAD_MARGIN))
    return wins[-1], details


# How long NumPy's OpenBLAS workers spin after a call ('long': 2**20 ticks, set
# at import; 'short': they sleep at once), measured against the kernels' pool.
_SPIN_TIMEOUTS = {"long": openblas.THREAD_TIMEOUT, "short": openblas.SHORT_TIMEOUT}
_blas_spin = ["long"]  # the setting applied now (openblas.tune_openblas at import)
_spin_measuring = []  # non-empty while 'blas_spin' is measured


def _set_blas_spin(setting, why="measured on this machine (the 'blas_spin' decision)"):
    if setting not in _SPIN_TIMEOUTS:
        raise ValueError(f"the 'blas_spin' decision is one of {sorted(_SPIN_TIMEOUTS)}, "
                         f"got {setting!r}")
    _blas_spin[0] = setting  # first: the timeout is set once even when two threads race
    if not openblas.timeout_untunable():
        openblas.tune_openblas(timeout=_SPIN_TIMEOUTS[setting], why=why)


def _measure_blas_spin(rounds=12, budget=0.1):
    """('long' or 'short', the timings): how long BLAS workers should spin, by
    timing a step's mix (threaded BLAS products and parallel kernels after one
    another, both ways round, and two products back to back) with each setting,
    the settings taking turns. Workers spinning on keep back-to-back products
    fast; asleep, they leave the cores to the kernels' pool, whose own spin
    (libgomp's, fixed when it loaded: openmp.py) decides which costs less."""
    import numpy as np
    why_not = openblas.timeout_untunable() or (_DEFAULT_THREADS < 2 and "one core")
    if why_not:
        return "long", {"skipped": why_not}
    a, b = np.ones((128, 512), np.float32), np.ones((512, 256), np.float32)  # ~0.1 ms, threaded
    x, out = np.ones(1 << 17, np.float32), np.empty(1 << 17, np.float32)
    kernel = _probe_pair[0].kernel

    def step_mix():
        a @ b
        _run_on(_DEFAULT_THREADS, kernel, (x, out))
        a @ b
        a @ b
        _run_on(_DEFAULT_THREADS, kernel, (x, out))
        _run_on(_DEFAULT_THREADS, kernel, (x, out))

    timings = {setting: [] for setting in _SPIN_TIMEOUTS}
    started = time.perf_counter()
    _spin_measuring.append(True)
    try:
        for _ in range(rounds):
            for setting in timings:
                _set_blas_spin(setting, why="calibration")
                step_mix()  # untimed: the workers restart with the new timeout
                start = time.perf_counter()
                step_mix()
                timings[setting].append(time.perf_counter() - start)
            if time.perf_counter() - started > budget:
                break
    finally:
        _spin_measuring.pop()
        _set_blas_spin("long", why="put back after the 'blas_spin' measurement")
    calibration.spread(timings)
    # 'short' is the default 'long' must beat: it won wherever measured on a quiet
    # machine (Intel Xeon 2026-11-25: W2 fit 295 -> 390-409 steps/s; AMD Zen 4
    # 2026-12-06: the mix 2.0 against 2.5-3.1 ms, W3 fit +3-8%, W2 even), and a
    # measurement taken under another process's load had kept 'long' on the Zen 4
    # by 4.5%, within the margin, and cached it.
    return (calibration.faster(timings, default="short"),
            {k: statistics.median(v) for k, v in timings.items()})


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


def _probe(x, out):
    """16 multiply-adds per element: the calibration's stand-in for a kernel
    that computes more than it reads (a convolution, a GEMM)."""
    for i in prange(x.shape[0]):
        v = x[i]
        for _ in range(16):
            v = v * v * 0.25 + 0.5  # not foldable: it must be computed
        out[i] = v
    return out


_probe_pair = serial_and_parallel(_probe, "float32[::1](float32[::1], float32[::1])",
                                  fastmath=FASTMATH)
calibration.register("threads", _measure_threads, version=2)  # 2: the probe sizes of 77329f4
calibration.register("blas_spin", _measure_blas_spin, version=3)  # 2: "short" the default;
# 3: without tapeflow's GEMM in the mix: it is decided at the first parallel kernel, before
# the GEMM's own decision (kernels/gemm.py DECIDE_AFTER), which compiling it would pre-empt

kernel_start.start()  # every op with a kernel runs it from now on (kernel_start.py)
