"""blas_pool.py: NumPy's OpenBLAS runs the jobs of its threaded calls on
Numba's OpenMP pool, through OpenBLAS's caller-managed threading
(`openblas_set_threads_callback_function`, OpenBLAS 0.3.28 and later), so that
a step's BLAS products and tapeflow's kernels share one set of workers.

Why: two pools on the same cores fight whenever one's idle workers spin while
the other works. tapeflow shortens both spins (openblas.py, openmp.py), but an
OpenMP runtime loaded before Numba's keeps its own: PyTorch's libgomp, which
Numba's threading layer then binds to, spins ~300,000 rounds after every
parallel kernel, on the core the next BLAS call needs. One pool has nobody to
fight. Measured on an AMD Zen 4 (2 cores), fits alternating in one process
with the callback on and off (benchmarks/pools.py): beside PyTorch imported
first, W2 1.35x and W3 1.13x; beside PyTorch, TF and JAX 1.43x and 1.20x;
alone, even (W2 0.99x, W3 1.08x).

OpenBLAS's jobs wait on one another, so all of a call's jobs must run at once:
the callback runs them on a Numba team of exactly that many threads (chunk size
0, one job per thread) only when the team can hold them (no more jobs than the
pool has threads; in every loaded OpenMP runtime, a new parallel region would
be active, OMP_DYNAMIC is off and the thread limit is high enough); otherwise
on POSIX threads of its own. Calls run one at a time (a mutex): OpenBLAS's
pthreads build packs job i into a buffer per job index, which two calls at once
would share. No Python and no GIL on either path. A forked child goes back to
OpenBLAS's own threads, since libgomp is not fork-safe.

Installed at the first parallel kernel (jit.py), on POSIX with Numba's 'omp'
threading layer only; skipped with TAPEFLOW_PROCESS_TUNING=0 or
TAPEFLOW_BLAS_TUNING=0, where the BLAS is not OpenBLAS or has no callback entry
point; it replaces a callback another library may have set. Listed by
tf.config.experimental.get_process_settings; `uninstall` gives OpenBLAS its own
threads back.
"""

import ctypes
import ctypes.util
import os
import sys
import threading

import numba
import numpy as np
from llvmlite import binding as _llvm
from llvmlite import ir
from numba import cfunc, njit, prange, types
from numba.extending import intrinsic

from . import openblas, openmp
from .settings import ProcessSetting, record, skip_reason

__all__ = ["fallback_calls", "get_num_threads", "install", "installed", "set_num_threads",
           "uninstall", "why_not_installable"]

_NAME = "openblas.threads_callback"
_I32, _I64 = ir.IntType(32), ir.IntType(64)
_I8P = ir.IntType(8).as_pointer()

# What the compiled code reads at run time, from one int64 table bound by name
# (llvmlite's add_symbol) before the code loads, so that Numba's disk cache holds
# a name, not this process's addresses.
_TABLE_SYMBOL = "tapeflow_blas_pool_table"
(_POOL_SIZE, _FALLBACKS, _MUTEX, _LOCK, _UNLOCK, _CREATE, _JOIN, _JOB_THREAD,
 _RUNTIMES) = range(9)
_QUERIES = ("omp_get_active_level", "omp_get_max_active_levels", "omp_get_dynamic",
            "omp_get_thread_limit")
_MAX_RUNTIMES = 4
_FIRST_QUERY = _RUNTIMES + 1  # runtime r's queries at _FIRST_QUERY + len(_QUERIES) * r + q
_table = (ctypes.c_int64 * (_FIRST_QUERY + _MAX_RUNTIMES * len(_QUERIES)))()
_mutex = ctypes.create_string_buffer(128)  # a pthread_mutex_t, initialised in _bind


def _table_global(builder):
    return builder.module.globals.get(_TABLE_SYMBOL) or ir.GlobalVariable(
        builder.module, _I64, _TABLE_SYMBOL)


@intrinsic
def _slot(typingctx, index):
    """_table[index]."""
    def codegen(context, builder, signature, args):
        return builder.load(builder.gep(_table_global(builder), [args[0]]))
    return types.int64(types.intp), codegen


@intrinsic
def _add_to_slot(typingctx, index, value):
    def codegen(context, builder, signature, args):
        cell = builder.gep(_table_global(builder), [args[0]])
        builder.store(builder.add(builder.load(cell), args[1]), cell)
        return context.get_dummy_value()
    return types.void(types.intp, types.int64), codegen


def _indirect(ret, params):
    """An intrinsic calling the C function at an address (int64) with int64 arguments,
    passed as the pointer or int types of `params`."""
    def typer(typingctx, address, a, b, c, d):
        def codegen(context, builder, signature, args):
            fn = builder.inttoptr(args[0], ir.FunctionType(ret, params).as_pointer())
            values = [builder.inttoptr(v, t) if isinstance(t, ir.PointerType) else
                      builder.trunc(v, t) if t.width < 64 else v
                      for v, t in zip(args[1:], params)]
            return builder.call(fn, values)
        return types.int32(types.int64, types.int64, types.int64, types.int64,
                           types.int64), codegen
    return intrinsic(typer)


# int f(...) for up to four arguments; the unused ones are passed and ignored.
_call0 = _indirect(_I32, [])
_call1 = _indirect(_I32, [_I8P])
_call_create = _indirect(_I32, [_I8P, _I8P, _I8P, _I8P])  # pthread_create
_call_join = _indirect(_I32, [_I64, _I8P])  # pthread_join(pthread_t, void **)


@intrinsic
def _call_job(typingctx, dojob, job, data, extra):
    """dojob(job, data, extra): one of OpenBLAS's jobs, through its function pointer."""
    def codegen(context, builder, signature, args):
        fnty = ir.FunctionType(ir.VoidType(), [_I32, _I8P, _I32])
        fn = builder.inttoptr(args[0], fnty.as_pointer())
        builder.call(fn, [builder.trunc(args[1], _I32), builder.inttoptr(args[2], _I8P),
                          builder.trunc(args[3], _I32)])
        return context.get_dummy_value()
    return types.void(types.int64, types.int64, types.int64, types.int64), codegen


@intrinsic
def _address(typingctx, pointer):
    def codegen(context, builder, signature, args):
        return builder.ptrtoint(args[0], _I64)
    return types.int64(types.voidptr), codegen


@intrinsic
def _load(typingctx, address, index):
    """((int64 *) address)[index]."""
    def codegen(context, builder, signature, args):
        pointer = builder.inttoptr(args[0], _I64.as_pointer())
        return builder.load(builder.gep(pointer, [args[1]]))
    return types.int64(types.int64, types.intp), codegen


def _numba_function(name, ret, params):
    """An intrinsic calling one of Numba's threading-layer functions, declared as
    Numba's parfors declare it (one module may hold both declarations)."""
    def typer(typingctx, *values):
        def codegen(context, builder, signature, args):
            fn = builder.module.globals.get(name) or ir.Function(
                builder.module, ir.FunctionType(ret, params), name)
            result = builder.call(fn, list(args))
            return context.get_dummy_value() if ret == ir.VoidType() else result
        numba_types = {64: types.int64, 32: types.int32}
        arg_types = [numba_types[p.width] for p in params]
        return (types.void if ret == ir.VoidType() else numba_types[ret.width])(*arg_types), codegen
    return typer


@intrinsic
def get_num_threads(typingctx):
    """Numba's thread count, from compiled code by the threading layer's symbol
    (numba.get_num_threads there is a ctypes pointer, which a cached function
    cannot hold)."""
    return _numba_function("get_num_threads", _I64, [])(typingctx)


@intrinsic
def set_num_threads(typingctx, count):
    """Set Numba's thread count (an int32) from compiled code, as get_num_threads."""
    return _numba_function("set_num_threads", ir.VoidType(), [_I32])(typingctx, count)


@intrinsic
def _get_chunksize(typingctx):
    return _numba_function("get_parallel_chunksize", _I64, [])(typingctx)


@intrinsic
def _set_chunksize(typingctx, size):
    return _numba_function("set_parallel_chunksize", ir.VoidType(), [_I64])(typingctx, size)


@njit(parallel=True, nogil=True, cache=True)
def _run_on_team(dojob, numjobs, elsize, jobdata, extra):
    """The jobs on a Numba team of numjobs threads, one job each."""
    threads, chunk = get_num_threads(), _get_chunksize()
    set_num_threads(np.int32(numjobs))
    _set_chunksize(0)  # a chunk size the caller set would put jobs on one thread
    for i in prange(numjobs):
        _call_job(dojob, np.int64(i), jobdata + np.int64(i) * elsize, extra)
    set_num_threads(np.int32(threads))
    _set_chunksize(chunk)


@njit(nogil=True, cache=True)
def _team_can_hold(numjobs):
    if numjobs < 1 or numjobs > _slot(_POOL_SIZE):
        return False
    for r in range(_slot(_RUNTIMES)):
        base = _FIRST_QUERY + len(_QUERIES) * r
        active, most = _call0(_slot(base), 0, 0, 0, 0), _call0(_slot(base + 1), 0, 0, 0, 0)
        dynamic, limit = _call0(_slot(base + 2), 0, 0, 0, 0), _call0(_slot(base + 3), 0, 0, 0, 0)
        if active >= most or dynamic != 0 or limit < numjobs:
            return False  # a new region would be inactive (one thread) or smaller
    return True


@njit(nogil=True, cache=True)
def _run_on_own_threads(dojob, numjobs, elsize, jobdata, extra):
    """Jobs 1.. on POSIX threads of their own (retried until the system gives
    them: the jobs wait on one another), job 0 on the calling thread."""
    _add_to_slot(_FALLBACKS, 1)
    records = np.empty((numjobs, 4), np.int64)
    handles = np.zeros(numjobs, np.int64)
    for i in range(1, numjobs):
        records[i, 0], records[i, 1] = dojob, i
        records[i, 2], records[i, 3] = jobdata + i * elsize, extra
        while _call_create(_slot(_CREATE), handles[i:].ctypes.data, 0, _slot(_JOB_THREAD),
                           records[i:].ctypes.data) != 0:
            pass
    _call_job(dojob, 0, jobdata, extra)
    for i in range(1, numjobs):
        _call_join(_slot(_JOIN), handles[i], 0, 0, 0)


def _job_thread(record):
    """A POSIX thread's start routine: the job its (dojob, index, data, extra) record names."""
    address = _address(record)
    _call_job(_load(address, 0), _load(address, 1), _load(address, 2), _load(address, 3))
    return record


def _callback(sync, dojob, numjobs, elsize, jobdata, extra):
    """What OpenBLAS calls with a threaded call's jobs (`sync` is always 1: it
    returns when they are done)."""
    _call1(_slot(_LOCK), _slot(_MUTEX), 0, 0, 0)
    if _team_can_hold(numjobs):
        _run_on_team(_address(dojob), numjobs, np.int64(elsize), _address(jobdata), extra)
    else:
        _run_on_own_threads(_address(dojob), numjobs, np.int64(elsize), _address(jobdata),
                            extra)
    _call1(_slot(_UNLOCK), _slot(_MUTEX), 0, 0, 0)


_SIGNATURE = types.void(types.int32, types.voidptr, types.int32, types.uintp, types.voidptr,
                        types.int32)


def _function_address(lib, name):
    return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value


def _openmp_runtimes():
    """The loaded OpenMP runtimes that answer the queries (at most _MAX_RUNTIMES)."""
    found = []
    for path in openmp.loaded_runtimes():
        try:
            lib = ctypes.CDLL(path)
            found.append([_function_address(lib, name) for name in _QUERIES])
        except (OSError, AttributeError):
            continue
    return found[:_MAX_RUNTIMES]


def _bind(job_thread):
    """Fill the table the compiled code reads, and bind its name."""
    libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
    pthread = libc if hasattr(libc, "pthread_create") else ctypes.CDLL(
        ctypes.util.find_library("pthread"))
    libc.pthread_mutex_init(_mutex, None)
    runtimes = _openmp_runtimes()
    values = {_POOL_SIZE: numba.config.NUMBA_NUM_THREADS, _MUTEX: ctypes.addressof(_mutex),
              _LOCK: _function_address(pthread, "pthread_mutex_lock"),
              _UNLOCK: _function_address(pthread, "pthread_mutex_unlock"),
              _CREATE: _function_address(pthread, "pthread_create"),
              _JOIN: _function_address(pthread, "pthread_join"),
              _JOB_THREAD: job_thread.address, _RUNTIMES: len(runtimes)}
    for index, value in values.items():
        _table[index] = value
    for r, queries in enumerate(runtimes):
        for q, address in enumerate(queries):
            _table[_FIRST_QUERY + len(_QUERIES) * r + q] = address
    _llvm.add_symbol(_TABLE_SYMBOL, ctypes.addressof(_table))


def _keep_forever(*objects):
    """OpenBLAS holds raw pointers into these: never free them, not even while the
    interpreter shuts down (a late BLAS call would read freed memory)."""
    for obj in objects:
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))


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


def fallback_calls():
    """How many threaded calls ran their jobs on threads of their own, not on Numba's."""
    return int(_table[_FALLBACKS])


def why_not_installable(environ=os.environ):
    """Why OpenBLAS's calls cannot or must not run on Numba's pool ('' when they can)."""
    why_not = skip_reason(environ, "TAPEFLOW_BLAS_TUNING")
    if not why_not and (os.name != "posix" or not hasattr(os, "register_at_fork")):
        why_not = f"needs POSIX threads ({sys.platform})"
    if not why_not and numba.threading_layer() != "omp":
        why_not = f"Numba's threading layer is {numba.threading_layer()!r}, not 'omp'"
    if not why_not and not _setters():
        why_not = ("no OpenBLAS loaded" if not openblas.loaded_openblas_paths() else
                   "no openblas_set_threads_callback_function entry point (OpenBLAS < 0.3.28?)")
    if not why_not:
        counts = openblas.thread_counts()
        if max(counts, default=0) > numba.config.NUMBA_NUM_THREADS:
            why_not = (f"OpenBLAS runs {max(counts)} threads, more than Numba's pool has "
                       f"({numba.config.NUMBA_NUM_THREADS})")
    return why_not


def install(environ=os.environ):
    """Have every loaded OpenBLAS run its threaded calls' jobs on Numba's pool,
    unless told not to or unable; the ProcessSetting records (one per library, or
    one saying why none). Never raises: a failure is recorded as not applied."""
    try:
        why_not = why_not_installable(environ)
        if not why_not:
            setters = _setters()
            with _lock:
                if _state["callback"] is None:
                    job_thread = cfunc(types.voidptr(types.voidptr), cache=True)(_job_thread)
                    _bind(job_thread)
                    callback = cfunc(_SIGNATURE, cache=True)(_callback)
                    _keep_forever(_table, _mutex, job_thread, callback)
                    _state["callback"] = callback
                for _, setter in setters:
                    setter(_state["callback"].address)
                _state["libraries"] = setters
    except Exception as error:  # noqa: BLE001 -- the kernels run on without it
        why_not = f"failed: {type(error).__name__}: {error}"
    if why_not:
        return record(ProcessSetting(_NAME, "Numba's OpenMP pool", None, False, why_not))
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
