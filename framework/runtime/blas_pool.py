"""blas_pool.py: NumPy's OpenBLAS runs the jobs of its threaded calls on
Numba's OpenMP pool, through OpenBLAS's caller-managed threading
(`openblas_set_threads_callback_function`, OpenBLAS 0.3.27 and later), so that
a step's BLAS products and tapeflow's kernels share one set of workers.

Why: two pools on the same cores fight whenever one's idle workers spin while
the other works. tapeflow shortens both spins (openblas.py, openmp.py), but an
OpenMP runtime loaded before Numba's keeps its own: PyTorch's libgomp, which
Numba's threading layer then binds to, spins ~300,000 rounds after every
parallel kernel, on the core the next BLAS call needs. One pool has nobody to
fight. Measured on an AMD Zen 4 (2 cores), fits alternating in one process
with the callback on and off: with PyTorch imported first, W2 235 -> 351
steps/s (1.55x; every pair 1.40-1.75x) and W3 63 -> 69 (1.12x); without
PyTorch, even (W2 0.99x, W3 1.04x, within the machine's noise).

OpenBLAS's jobs wait on one another, so all of a call's jobs must run at once:
the callback runs them on Numba's team only when the team can hold them all
(no more jobs than the pool has threads, not inside an OpenMP parallel region,
OMP_DYNAMIC off, the thread limit high enough); otherwise each job runs on a
Python thread of its own (a ctypes call, which releases the GIL). A forked
child goes back to OpenBLAS's own threads, since libgomp is not fork-safe.

Installed when the kernels load (jit.py), with Numba's 'omp' threading layer
only; skipped with TAPEFLOW_PROCESS_TUNING=0 or TAPEFLOW_BLAS_TUNING=0, where
the BLAS is not OpenBLAS or has no callback entry point; listed by
tf.config.experimental.get_process_settings; `uninstall` gives OpenBLAS its
own threads back.
"""

import ctypes
import os
import threading

import numba
import numpy as np
from llvmlite import binding as _llvm
from llvmlite import ir
from numba import cfunc, njit, prange, types
from numba.extending import intrinsic

from . import openblas
from .settings import ProcessSetting, record, skip_reason

__all__ = ["install", "installed", "run_jobs_on_python_threads", "uninstall",
           "why_not_installable"]

_NAME = "openblas.threads_callback"
_DOJOB = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_void_p, ctypes.c_int)
_JOBS = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t,
                         ctypes.c_void_p, ctypes.c_int)
_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_I8P = ir.IntType(8).as_pointer()
# Symbols the compiled callback calls, bound to this process's addresses before it
# loads (llvmlite's add_symbol), so that its disk-cached code holds names, not addresses.
_IN_PARALLEL, _DYNAMIC, _THREAD_LIMIT, _FALLBACK, _POOL_SIZE = (
    "tapeflow_omp_in_parallel", "tapeflow_omp_get_dynamic", "tapeflow_omp_get_thread_limit",
    "tapeflow_blas_jobs_on_python_threads", "tapeflow_numba_pool_size")
_pool_size = ctypes.c_int32(0)  # Numba's pool size, which the compiled callback reads


def run_jobs_on_python_threads(dojob, numjobs, elsize, jobdata, extra):
    """Run OpenBLAS's `numjobs` jobs at once, job 0 on the calling thread and
    each other on a Python thread: the callback's way when Numba's team cannot
    hold them all."""
    job = _DOJOB(dojob)
    others = [threading.Thread(target=job, args=(i, jobdata + i * elsize, extra), daemon=True)
              for i in range(1, numjobs)]
    for thread in others:
        thread.start()
    job(0, jobdata, extra)
    for thread in others:
        thread.join()


# Kept alive: OpenBLAS may call it at any time. It looks the function up at each
# call, so that a test can watch it.
_fallback = _JOBS(lambda *job: run_jobs_on_python_threads(*job))


def _declared(builder, name, ret, args):
    """The C function bound to `name` (see _bind), declared in the module being built."""
    return builder.module.globals.get(name) or ir.Function(builder.module,
                                                           ir.FunctionType(ret, args), name)


@intrinsic
def _team_can_hold(typingctx, numjobs):
    """Whether a team of `numjobs` threads runs them all at once: no more than
    the pool's threads, not inside a parallel region, OMP_DYNAMIC off, the
    thread limit high enough."""
    def codegen(context, builder, signature, args):
        jobs = args[0]
        size = builder.load(builder.module.globals.get(_POOL_SIZE) or ir.GlobalVariable(
            builder.module, _I32, _POOL_SIZE))
        limit = builder.call(_declared(builder, _THREAD_LIMIT, _I32, []), [])
        nested = builder.call(_declared(builder, _IN_PARALLEL, _I32, []), [])
        dynamic = builder.call(_declared(builder, _DYNAMIC, _I32, []), [])
        zero = ir.Constant(_I32, 0)
        checks = [builder.icmp_signed(">=", jobs, ir.Constant(_I32, 1)),
                  builder.icmp_signed("<=", jobs, size), builder.icmp_signed(">=", limit, jobs),
                  builder.icmp_signed("==", nested, zero), builder.icmp_signed("==", dynamic, zero)]
        result = checks[0]
        for check in checks[1:]:
            result = builder.and_(result, check)
        return result
    return types.boolean(types.int32), codegen


@intrinsic
def _team_size(typingctx):
    """Numba's get_num_threads, called directly: its jitted version holds an
    address that keeps a function out of Numba's disk cache."""
    def codegen(context, builder, signature, args):
        # Declared as Numba's parfors declare it (returning intp), as one module holds both.
        count = builder.call(_declared(builder, "get_num_threads", _I64, []), [])
        return builder.trunc(count, _I32)
    return types.int32(), codegen


@intrinsic
def _set_team_size(typingctx, threads):
    """Numba's set_num_threads without its check against the pool size its
    cached code was compiled with (_team_can_hold checks this process's)."""
    def codegen(context, builder, signature, args):
        fn = _declared(builder, "set_num_threads", ir.VoidType(), [_I32])
        builder.call(fn, [args[0]])
        return context.get_dummy_value()
    return types.void(types.int32), codegen


@intrinsic
def _jobs_on_python_threads(typingctx, dojob, numjobs, elsize, jobdata, extra):
    def codegen(context, builder, signature, args):
        fn = _declared(builder, _FALLBACK, ir.VoidType(), [_I8P, _I32, _I64, _I8P, _I32])
        builder.call(fn, [builder.inttoptr(args[0], _I8P), args[1], args[2],
                          builder.inttoptr(args[3], _I8P), args[4]])
        return context.get_dummy_value()
    return types.void(types.intp, types.int32, types.intp, types.intp, types.int32), codegen


@intrinsic
def _call_job(typingctx, dojob, job, data, extra):
    """dojob(job, data, extra): one of OpenBLAS's jobs, through its function pointer."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.VoidType(), [_I32, _I8P, _I32])
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        builder.call(fn, [args[1], builder.inttoptr(args[2], _I8P), args[3]])
        return context.get_dummy_value()
    return types.void(types.intp, types.int32, types.intp, types.int32), codegen


@intrinsic
def _address(typingctx, pointer):
    def codegen(context, builder, signature, args):
        return builder.ptrtoint(args[0], _I64)
    return types.intp(types.voidptr), codegen


@njit(parallel=True, nogil=True, cache=True)
def _run_on_team(dojob, numjobs, elsize, jobdata, extra):
    before = _team_size()
    _set_team_size(numjobs)
    for i in prange(numjobs):  # one job per thread: the team has numjobs threads
        _call_job(dojob, np.int32(i), jobdata + i * elsize, extra)
    _set_team_size(before)


_SIGNATURE = types.void(types.int32, types.voidptr, types.int32, types.uintp, types.voidptr,
                        types.int32)


def _callback(sync, dojob, numjobs, elsize, jobdata, extra):
    """What OpenBLAS calls with a threaded call's jobs (`sync` is always 1: it
    returns when they are done)."""
    if _team_can_hold(numjobs):
        _run_on_team(_address(dojob), numjobs, np.intp(elsize), _address(jobdata), extra)
    else:
        _jobs_on_python_threads(_address(dojob), numjobs, np.intp(elsize), _address(jobdata),
                                extra)


def _omp_functions():
    """{symbol: address} of the OpenMP queries, from the libgomp Numba's layer runs on."""
    from numba.np.ufunc import omppool
    lib = ctypes.CDLL(omppool.__file__)  # its libgomp's symbols resolve through it
    names = {_IN_PARALLEL: "omp_in_parallel", _DYNAMIC: "omp_get_dynamic",
             _THREAD_LIMIT: "omp_get_thread_limit"}
    return {symbol: ctypes.cast(getattr(lib, name), ctypes.c_void_p).value
            for symbol, name in names.items()}


def _bind():
    for symbol, address in _omp_functions().items():
        _llvm.add_symbol(symbol, address)
    _llvm.add_symbol(_FALLBACK, ctypes.cast(_fallback, ctypes.c_void_p).value)
    _pool_size.value = numba.config.NUMBA_NUM_THREADS
    _llvm.add_symbol(_POOL_SIZE, ctypes.addressof(_pool_size))


def _setters():
    """[(path, openblas_set_threads_callback_function)] of the loaded OpenBLAS libraries."""
    found = []
    for path in openblas.loaded_openblas_paths():
        try:
            setter = openblas.symbol(ctypes.CDLL(path), "openblas_set_threads_callback_function")
        except OSError:
            continue
        if setter is not None:
            setter.argtypes, setter.restype = [ctypes.c_void_p], None
            found.append((path, setter))
    return found


_state = {"callback": None, "libraries": []}
_lock = threading.Lock()


def installed():
    """The paths of the OpenBLAS libraries whose threaded calls run on Numba's pool."""
    return [path for path, _ in _state["libraries"]]


def why_not_installable(environ=os.environ):
    """Why OpenBLAS's calls cannot or must not run on Numba's pool ('' when they can)."""
    why_not = skip_reason(environ, "TAPEFLOW_BLAS_TUNING")
    if not why_not and numba.threading_layer() != "omp":
        why_not = f"Numba's threading layer is {numba.threading_layer()!r}, not 'omp'"
    if not why_not and not _setters():
        why_not = ("no OpenBLAS loaded" if not openblas.loaded_openblas_paths() else
                   "no openblas_set_threads_callback_function entry point (OpenBLAS < 0.3.27?)")
    if not why_not:
        counts = openblas.thread_counts()
        if max(counts, default=0) > numba.config.NUMBA_NUM_THREADS:
            why_not = (f"OpenBLAS runs {max(counts)} threads, more than Numba's pool has "
                       f"({numba.config.NUMBA_NUM_THREADS}): its jobs would run on Python threads")
    return why_not


def install(environ=os.environ):
    """Have every loaded OpenBLAS run its threaded calls' jobs on Numba's pool,
    unless told not to or unable; the ProcessSetting records (one per library, or
    one saying why none)."""
    why_not = why_not_installable(environ)
    if why_not:
        return record(ProcessSetting(_NAME, "Numba's OpenMP pool", None, False, why_not))
    setters = _setters()
    with _lock:
        if _state["callback"] is None:
            _bind()
            _state["callback"] = cfunc(_SIGNATURE, nopython=True, cache=True)(_callback)
        address = _state["callback"].address
        for _, setter in setters:
            setter(address)
        _state["libraries"] = setters
    return record(*[ProcessSetting(_label(path, len(setters)), "Numba's OpenMP pool",
                                   "OpenBLAS's own threads", True,
                                   "one pool for BLAS and the kernels (runtime/blas_pool.py)")
                    for path, _ in setters])


def uninstall():
    """Give every OpenBLAS its own threads back (also done in a forked child)."""
    with _lock:
        libraries, _state["libraries"] = _state["libraries"], []
    for _, setter in libraries:
        setter(None)
    return libraries


def _label(path, count):
    return _NAME if count == 1 else f"{_NAME}[{os.path.basename(path)}]"


def _after_fork_in_child():
    libraries, _state["libraries"] = _state["libraries"], []
    for _, setter in libraries:
        setter(None)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
