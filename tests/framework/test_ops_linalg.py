"""Linear algebra: matmul, matvec, tensordot, einsum, inv, det, slogdet, solve and the
diagonal helpers -- gradients to second order, values against NumPy."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.ops.math import matmul_bias
from tapeflow.testing.gradients import Case

_rng = np.random.default_rng(0)


def _r(*shape):
    return _rng.standard_normal(shape)


def _well_conditioned(*shape):
    n = shape[-1]
    return _r(*shape) * 0.3 + np.eye(n) * 2.0


A, B, S = _r(2, 3), _r(3, 4), _r(3, 3)
EINSUM = [
    ("ij,jk->ik", (A, B)),                      # matmul
    ("bij,bjk->bik", (_r(2, 2, 3), _r(2, 3, 2))),  # batch matmul
    ("i,j->ij", (_r(3), _r(4))),                # outer
    ("ij->ji", (A,)),                           # transpose
    ("ii->i", (S,)),                            # diagonal
    ("ii", (S,)),                               # trace, implicit output
    ("ij->i", (A,)),                            # row sums
    ("ij->", (A,)),                             # total
    ("bi,ij,bj->b", (_r(2, 3), S, _r(2, 3))),   # bilinear form
    ("ij,ij->ij", (A, _r(2, 3))),               # elementwise
    ("ij,jk", (A, B)),                          # implicit output 'ik'
    ("...ij,...jk->...ik", (_r(2, 2, 3), B)),   # broadcast batch
    ("...i,...i->...", (_r(2, 3), _r(1, 3))),   # ellipsis of size 1 broadcast
    ("iij->j", (_r(2, 2, 3),)),                 # partial diagonal
    ("ij,jk,kl->il", (A, B, _r(4, 2))),         # chain
    ("ba,ac->bc", (A, _r(3, 1))),
]

GRADCHECK_CASES = [Case(f"einsum {eq}", lambda *t, e=eq: tf.linalg.einsum(e, *t), *ins)
                   for eq, ins in EINSUM]
for _ta in (False, True):
    for _tb in (False, True):
        _a = A.T if _ta else A
        _b = B.T if _tb else B
        GRADCHECK_CASES.append(Case(f"matmul ta={_ta} tb={_tb}", lambda x, y, ta=_ta, tb=_tb:
                                    tf.matmul(x, y, transpose_a=ta, transpose_b=tb), _a, _b))
# matmul_bias: the recurrent layers' input projection (the bias added in place
# on the product), size-0 operands, and biases it broadcasts instead.
for _x, _w, _b in [((2, 3), (3, 4), (4,)), ((0, 3), (3, 4), (4,)), ((2, 0), (0, 4), (4,)),
                   ((2, 3), (3, 0), (0,)), ((2, 3), (3, 4), (1, 4)), ((2, 3), (3, 4), ())]:
    GRADCHECK_CASES.append(Case(f"matmul_bias {_x}{_w}{_b}", matmul_bias, _r(*_x), _r(*_w),
                                _r(*_b)))
GRADCHECK_CASES += [
    Case("matmul batch broadcast", tf.matmul, _r(2, 1, 2, 3), _r(3, 3, 2)),
    Case("matvec", tf.linalg.matvec, _r(2, 3), _r(3)),
    Case("matvec batch transpose", lambda a, b: tf.linalg.matvec(a, b, transpose_a=True),
         _r(2, 3, 2), _r(2, 3)),
    Case("tensordot 1", lambda a, b: tf.linalg.tensordot(a, b, 1), A, B),
    Case("tensordot 0", lambda a, b: tf.linalg.tensordot(a, b, 0), _r(2), _r(3)),
    Case("tensordot pairs", lambda a, b: tf.linalg.tensordot(a, b, [[0, 2], [1, 0]]),
         _r(2, 3, 4), _r(4, 2, 3)),
    Case("inv", tf.linalg.inv, _well_conditioned(3, 3)),
    Case("inv batch adjoint", lambda a: tf.linalg.inv(a, adjoint=True),
         _well_conditioned(2, 2, 2)),
    Case("det", tf.linalg.det, S),
    Case("det batch", tf.linalg.det, _r(2, 3, 3)),
    Case("slogdet", lambda a: tf.linalg.slogdet(a)[1], _r(2, 3, 3)),
    Case("logdet", tf.linalg.logdet, _well_conditioned(3, 3)),
    Case("solve", tf.linalg.solve, _well_conditioned(3, 3), _r(3, 2)),
    Case("solve adjoint", lambda a, b: tf.linalg.solve(a, b, adjoint=True),
         _well_conditioned(3, 3), _r(3, 2)),
    Case("solve batch broadcast", tf.linalg.solve, _well_conditioned(3, 3), _r(2, 3, 1)),
    Case("trace", tf.linalg.trace, _r(2, 3, 3)),
    Case("diag_part rectangular", tf.linalg.diag_part, _r(2, 4)),
    Case("diag", tf.linalg.diag, _r(2, 3)),
    Case("matrix_transpose", tf.linalg.matrix_transpose, _r(2, 2, 3)),
]


@pytest.mark.parametrize("case", GRADCHECK_CASES, ids=repr)
def test_gradcheck(case):
    case.check()


@pytest.mark.parametrize("equation, inputs", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_matches_numpy(equation, inputs):
    out = tf.linalg.einsum(equation, *[tf.constant(x) for x in inputs])
    np.testing.assert_allclose(out.numpy(), np.einsum(equation, *inputs), rtol=1e-12)
    out32 = tf.linalg.einsum(equation, *[tf.constant(x.astype(np.float32)) for x in inputs])
    assert out32.dtype == tf.float32


def test_einsum_gradient_values_for_diagonal_and_trace():
    s = tf.constant(S)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(s)
        trace = tf.linalg.einsum("ii->", s)
        diagonal = tf.linalg.einsum("ii->i", s)
    np.testing.assert_array_equal(tape.gradient(trace, s).numpy(), np.eye(3))
    np.testing.assert_array_equal(tape.gradient(diagonal, s).numpy(), np.eye(3))


def test_linear_algebra_values():
    a = _well_conditioned(2, 3, 3)
    b = _r(2, 3, 2)
    np.testing.assert_allclose(tf.linalg.inv(a).numpy(), np.linalg.inv(a), rtol=1e-12)
    np.testing.assert_allclose(tf.linalg.det(a).numpy(), np.linalg.det(a), rtol=1e-12)
    sign, logabs = tf.linalg.slogdet(tf.constant(-a))
    ref_sign, ref_log = np.linalg.slogdet(-a)
    np.testing.assert_array_equal(sign.numpy(), ref_sign)
    np.testing.assert_allclose(logabs.numpy(), ref_log, rtol=1e-12)
    np.testing.assert_allclose(tf.linalg.solve(a, b).numpy(), np.linalg.solve(a, b), rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.solve(a, b, adjoint=True).numpy(),
                               np.linalg.solve(np.swapaxes(a, -1, -2), b), rtol=1e-10)
    np.testing.assert_allclose(tf.linalg.trace(a).numpy(), np.trace(a, axis1=1, axis2=2))
    np.testing.assert_array_equal(tf.linalg.diag_part(tf.constant(A)).numpy(), np.diagonal(A))
    np.testing.assert_array_equal(tf.linalg.diag(tf.constant([1.0, 2.0])).numpy(),
                                  [[1, 0], [0, 2]])
    np.testing.assert_array_equal(tf.linalg.eye(2, 3, batch_shape=[2]).numpy(),
                                  np.broadcast_to(np.eye(2, 3), (2, 2, 3)))
    assert tf.linalg.matrix_transpose(tf.constant(_r(4, 2, 3))).shape == (4, 3, 2)


def test_matmul_tensordot_matvec_values():
    np.testing.assert_allclose(tf.matmul(A, B).numpy(), A @ B)
    np.testing.assert_allclose(tf.matmul(A, A, transpose_b=True).numpy(), A @ A.T)
    np.testing.assert_allclose(tf.linalg.matmul(B, A, adjoint_a=True, adjoint_b=True).numpy(),
                               B.T @ A.T)
    x, y = _r(2, 3, 4), _r(4, 2, 3)
    np.testing.assert_allclose(tf.linalg.tensordot(x, y, [[0, 2], [1, 0]]).numpy(),
                               np.tensordot(x, y, [[0, 2], [1, 0]]))
    np.testing.assert_allclose(tf.linalg.tensordot(A, B, axes=[1, 0]).numpy(), A @ B)
    np.testing.assert_allclose(tf.linalg.matvec(A, _r(3) * 0 + 1.0).numpy(), A.sum(1))
    np.testing.assert_allclose(tf.matmul(_r(3, 1, 2, 3) * 0 + 1, B).shape, (3, 1, 2, 4))


def test_det_gradient_is_cofactor_matrix():
    m = np.array([[2.0, 1.0], [1.0, 3.0]])
    x = tf.constant(m)
    with tf.GradientTape() as tape:
        tape.watch(x)
        d = tf.linalg.det(x)
    assert d.numpy() == pytest.approx(5.0)
    np.testing.assert_allclose(tape.gradient(d, x).numpy(), [[3, -1], [-1, 2]])


@pytest.mark.skipif(not hasattr(tf, "einsum"), reason="tf.einsum/tensordot/norm need the "
                    "top-level export in framework/__init__.py (see linalg.TOP_LEVEL)")
def test_top_level_names():
    from tapeflow import linalg
    for name in linalg.TOP_LEVEL:
        assert getattr(tf, name) is getattr(tf.linalg, name)


@pytest.mark.parametrize("rows", [3, 4096])  # one thread, and all threads (2**18 elements on)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
def test_matmul_bias_against_numpy(rows, layout):
    x32 = _rng.standard_normal((rows, 48)).astype(np.float32)
    w32 = _rng.standard_normal((48, 96)).astype(np.float32)
    b32 = _rng.standard_normal(96).astype(np.float32)
    if layout == "transposed":
        x32, w32 = np.asfortranarray(x32), np.asfortranarray(w32)
    elif layout == "sliced":
        x32 = np.repeat(x32, 2, axis=1)[:, ::2]
        w32 = np.repeat(w32, 2, axis=0)[::2]
    got = matmul_bias(tf.constant(x32), tf.constant(w32), tf.constant(b32)).numpy()
    want = x32.astype(np.float64) @ w32 + b32
    assert got.dtype == np.float32
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_matmul_bias_promotes_as_numpy_where_dtypes_differ():
    x, w = _r(3, 2).astype(np.float32), _r(2, 4).astype(np.float32)
    b = _r(4)  # float64: no in-place add on the float32 product
    got = matmul_bias(tf.constant(x), tf.constant(w), tf.constant(b)).numpy()
    assert got.dtype == np.float64
    np.testing.assert_allclose(got, (x @ w) + b, rtol=1e-6)
    ints = matmul_bias(tf.constant(np.arange(6).reshape(3, 2)), tf.constant(np.ones((2, 2), int)),
                       tf.constant(np.array([1, 2])))
    np.testing.assert_array_equal(ints.numpy(), np.arange(6).reshape(3, 2) @ np.ones((2, 2), int)
                                  + [1, 2])
