"""kernels/gather.py: embedding_scatter_add against np.add.at, and the
scatter_add primitive (the gradient of gather) that runs it, over random
shapes, dtypes, repeated and dropped (negative) ids."""

import subprocess
import sys

import numpy as np
import pytest

from tapeflow.kernels import gather as _k
from tapeflow.ops import shape as _s
from tapeflow.core.tensor import Tensor


def _reference(size, ids, rows):
    out = np.zeros((size, rows.shape[1]), rows.dtype)
    keep = (ids >= 0) & (ids < size)
    np.add.at(out, ids[keep], rows[keep])
    return out


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_embedding_scatter_add_matches_add_at(seed, dtype):
    rng = np.random.default_rng(seed)
    size, n, dim = rng.integers(1, 20), rng.integers(0, 60), rng.integers(1, 9)
    ids = rng.integers(-2, size, n).astype(np.int64)  # repeats, and negatives to drop
    rows = (rng.standard_normal((n, dim)) * 10).astype(dtype)
    out = np.zeros((size, dim), dtype)
    result = _k.embedding_scatter_add(out, ids, rows)
    assert result is out
    want = _reference(size, ids, rows)
    if np.dtype(dtype).kind == "f":
        np.testing.assert_allclose(out, want, rtol=1e-6, atol=1e-5)
    else:
        np.testing.assert_array_equal(out, want)


def test_embedding_scatter_add_adds_into_existing_values():
    out = np.ones((3, 2))
    _k.embedding_scatter_add(out, np.array([2, 2, 0]), np.full((3, 2), 0.5))
    np.testing.assert_array_equal(out, [[1.5, 1.5], [1, 1], [2, 2]])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("axis", [0, 1, 2])
def test_scatter_add_op_is_the_adjoint_of_gather(seed, axis):
    rng = np.random.default_rng(seed)
    x_shape = tuple(int(d) for d in rng.integers(1, 5, 3))
    ids = rng.integers(0, x_shape[axis], tuple(int(d) for d in rng.integers(1, 4, 2)))
    gathered = np.take(np.zeros(x_shape), ids, axis=axis)
    g = rng.standard_normal(gathered.shape)
    got = _s.scatter_add(Tensor(g), Tensor(ids), axis=axis, size=x_shape[axis])._value
    want = np.zeros(x_shape)
    key = (slice(None),) * axis + (ids,)
    np.add.at(want, key, g)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    # adjointness: <gather(x), g> == <x, scatter_add(g)>
    x = rng.standard_normal(x_shape)
    lhs = np.sum(_s.gather(Tensor(x), Tensor(ids), axis=axis)._value * g)
    np.testing.assert_allclose(lhs, np.sum(x * got), rtol=1e-10)


def test_gather_forward_does_not_import_numba():
    code = ("import sys, tapeflow as tf; tf.gather([1.0, 2.0], [1, 1]); "
            "assert 'numba' not in sys.modules")
    subprocess.run([sys.executable, "-c", code], check=True)
