"""runtime/blas_pool.py: NumPy's OpenBLAS runs its threaded calls' jobs on
Numba's OpenMP pool. The products must give OpenBLAS's own bits on every path
(Numba's team, the POSIX-thread fallback), from several Python threads at
once, inside an OpenMP parallel region (where the team cannot hold the jobs),
with a parallel chunk size set by the caller, and in a forked child (which
goes back to OpenBLAS's own threads)."""

import subprocess
import sys
import threading

import numba
import numpy as np
import pytest

from tapeflow.runtime import blas_pool, jit

pytestmark = pytest.mark.skipif(bool(blas_pool.why_not_installable()),
                                reason=f"BLAS on Numba's pool: {blas_pool.why_not_installable()}")


def _operands(dtype, transposed):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((300, 256)).astype(dtype)  # big enough for OpenBLAS to thread
    b = rng.standard_normal((256, 200)).astype(dtype)
    return (np.asfortranarray(a), b.T.copy().T) if transposed else (a, b)


def _own_threads_product(a, b):
    blas_pool.uninstall()
    try:
        return a @ b
    finally:
        blas_pool.install()


@pytest.fixture(autouse=True)
def shared_pool():
    jit.kernel_threads()  # the first parallel kernel installs it
    blas_pool.install()
    assert blas_pool.installed()
    yield


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("transposed", [False, True])
def test_products_on_numbas_pool_give_openblas_bits(dtype, transposed):
    a, b = _operands(dtype, transposed)
    shared = a @ b
    np.testing.assert_array_equal(shared, _own_threads_product(a, b))
    np.testing.assert_allclose(shared, a.astype(np.float64) @ b.astype(np.float64),
                               rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-3)


def test_sliced_operands_and_matrix_vector_products():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((900, 700))[::3, 1::2]
    v = rng.standard_normal(350)
    shared = (a @ a.T, a @ v)
    own = _own_threads_product(a, a.T), _own_threads_product(a, v)
    for mine, theirs in zip(shared, own):
        np.testing.assert_array_equal(mine, theirs)


def test_jobs_the_team_cannot_hold_run_on_threads_of_their_own():
    # A pool of one thread cannot hold OpenBLAS's jobs at once: the fallback runs them.
    size = blas_pool._table[blas_pool._POOL_SIZE]  # what the compiled callback reads
    before = blas_pool.fallback_calls()
    blas_pool._table[blas_pool._POOL_SIZE] = 1
    try:
        a, b = _operands(np.float64, False)
        shared = a @ b
    finally:
        blas_pool._table[blas_pool._POOL_SIZE] = size
    assert blas_pool.fallback_calls() > before
    np.testing.assert_array_equal(shared, _own_threads_product(a, b))


def test_a_chunk_size_set_by_the_caller_does_not_put_jobs_on_one_thread():
    a, b = _operands(np.float64, False)
    before = blas_pool.fallback_calls()
    with numba.parallel_chunksize(8):
        shared = a @ b  # would hang if the team ran the jobs in one chunk
    assert blas_pool.fallback_calls() == before
    np.testing.assert_array_equal(shared, _own_threads_product(a, b))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_several_python_threads_at_once(dtype):
    # Calls run one at a time: OpenBLAS packs job i into a buffer per job index.
    a, b = _operands(dtype, False)
    v = np.ascontiguousarray(b[:, 0])
    expected = _own_threads_product(a, b), _own_threads_product(a, v)
    results, errors = [], []

    def work():
        try:
            for _ in range(20):
                results.append(np.array_equal(a @ b, expected[0])
                               and np.array_equal(a @ v, expected[1]))
        except Exception as error:  # noqa: BLE001 -- reported below
            errors.append(error)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not errors and len(results) == 80 and all(results)


_NESTED = """
import ctypes, sys
import numpy as np, numba
import tapeflow
from tapeflow.runtime import blas_pool, jit, openmp
jit.kernel_threads()
assert blas_pool.installed()
if sys.argv[1] == "inactive":  # nested regions get one thread, as OMP_MAX_ACTIVE_LEVELS=1
    for path in openmp.loaded_runtimes():
        ctypes.CDLL(path).omp_set_max_active_levels(1)
a = np.random.default_rng(0).standard_normal((300, 256))
b = np.random.default_rng(1).standard_normal((256, 200))
expected = a @ b
before = blas_pool.fallback_calls()

@numba.njit(parallel=True)
def inside_a_parallel_region(out):
    for i in numba.prange(2):
        with numba.objmode():
            out[i] = np.abs(a @ b - expected).max()
    return out
print(inside_a_parallel_region(np.ones(2)).tolist(), blas_pool.fallback_calls() - before >= 2)
sys.stdout.flush()
"""

_FORKED = """
import sys
import os, numpy as np
import tapeflow
from tapeflow.runtime import blas_pool, jit
jit.kernel_threads()
a = np.random.default_rng(0).standard_normal((300, 256))
expected = a @ a.T
pid = os.fork()
if pid == 0:
    ok = not blas_pool.installed() and np.array_equal(a @ a.T, expected)
    os._exit(0 if ok else 1)
_, status = os.waitpid(pid, 0)
print(os.waitstatus_to_exitcode(status), bool(blas_pool.installed()))
"""


def _run(code, *args):
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=240)
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.strip().splitlines()[-1]


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs two of Numba's threads")
@pytest.mark.parametrize("nesting", ["inactive", "active"])
def test_a_product_inside_an_openmp_parallel_region_does_not_deadlock(nesting):
    # Where nested regions are inactive, Numba's team would run the jobs one after
    # another, and OpenBLAS's jobs wait on each other: the callback runs them on
    # threads of their own. Numba's layer allows active nested regions: a nested
    # team holds the jobs then.
    out = _run(_NESTED, nesting)
    assert out.startswith("[0.0, 0.0]")
    if nesting == "inactive":
        assert out == "[0.0, 0.0] True"


@pytest.mark.skipif(not hasattr(__import__("os"), "fork"), reason="needs os.fork")
def test_a_forked_child_goes_back_to_openblas_threads():
    assert _run(_FORKED) == "0 True"
