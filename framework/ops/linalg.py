"""linalg.py: linear-algebra primitives -- einsum, matrix inverse, determinant,
log |determinant| and linear solves -- each beside its VJPs (matmul lives in
ops/math.py). Equations reaching `einsum` here are explicit and use letters only;
framework/linalg.py parses and checks what users write, and broadcasts the
operands so that every letter has one size."""

import string

import numpy as np

from ..core.tensor import Tensor
from .math import matmul, multiply, negative
from .registry import defop
from .shape import reshape, transpose

__all__ = ["einsum", "inv", "det", "log_abs_det", "solve", "parse_einsum"]

_LETTERS = string.ascii_letters


def parse_einsum(equation):
    """'ab,bc->ac' as (['ab', 'bc'], 'ac')."""
    inputs, output = equation.split("->")
    return inputs.split(","), output


@defop
def einsum(*operands, equation):
    return np.einsum(equation, *operands, optimize=len(operands) > 1)


def _einsum_vjp(k, g, out, *operands, equation):
    """The gradient for operand k: `g` contracted with the other operands into
    operand k's subscripts, itself an einsum (so it differentiates again).

    Repeated letters of operand k (a diagonal) get fresh letters tied to the
    first by identity matrices; letters found only in operand k (summed there)
    are supplied by vectors of ones. `g`'s leading batch axes get fresh letters.
    """
    subs, out_subs = parse_einsum(equation)
    x = operands[k]
    if x._value.dtype.kind not in "fc":
        return None
    dtype = x._value.dtype
    used = set(equation)
    fresh = (c for c in _LETTERS if c not in used)
    nb = g._value.ndim - out._value.ndim
    batch = "".join(next(fresh) for _ in range(nb))
    terms = [batch + out_subs]
    tensors = [g]
    for j, s in enumerate(subs):
        if j != k:
            terms.append(s)
            tensors.append(operands[j])
    available = set(out_subs).union(*[s for j, s in enumerate(subs) if j != k])
    target = []
    sizes = dict(zip(subs[k], x._value.shape))
    for letter, size in zip(subs[k], x._value.shape):
        if letter not in available:
            terms.append(letter)
            tensors.append(Tensor(np.ones(size, dtype)))
            available.add(letter)
        if letter in target:
            new = next(fresh)
            terms.append(letter + new)
            tensors.append(Tensor(np.eye(sizes[letter], dtype=dtype)))
            target.append(new)
        else:
            target.append(letter)
    return einsum(*tensors, equation=",".join(terms) + "->" + batch + "".join(target))


einsum.defvjp_variadic(_einsum_vjp)


def _matrix_t(t):
    """Swap the last two axes."""
    n = t._value.ndim
    return transpose(t, perm=tuple(range(n - 2)) + (n - 1, n - 2))


def _as_matrix_batch(g):
    """A cotangent of shape (..., ) as (..., 1, 1), to scale whole matrices."""
    return reshape(g, shape=g._value.shape + (1, 1))


@defop
def inv(x):
    return np.linalg.inv(x)


@inv.defvjp
def inv_vjp(g, out, x):
    # d(X^-1) = -X^-1 dX X^-1, so the gradient is -X^-T g X^-T.
    return negative(matmul(matmul(out, g, transpose_a=True), out, transpose_b=True))


@defop
def det(x):
    return np.asarray(np.linalg.det(x))


@det.defvjp
def det_vjp(g, out, x):
    # d det(X) = det(X) tr(X^-1 dX): the gradient is g det(X) X^-T (TF's rule too).
    return multiply(_as_matrix_batch(multiply(g, out)), _matrix_t(inv(x)))


@defop
def log_abs_det(x):
    return np.asarray(np.linalg.slogdet(x)[1])


@log_abs_det.defvjp
def log_abs_det_vjp(g, out, x):
    return multiply(_as_matrix_batch(g), _matrix_t(inv(x)))


@defop(broadcasting=True)
def solve(a, b, adjoint=False):
    if adjoint:
        a = np.swapaxes(a, -1, -2)
    if b.ndim < a.ndim:
        # NumPy 1.x reads a `b` of rank a.ndim - 1 as a stack of vectors.
        b = np.reshape(b, (1,) * (a.ndim - b.ndim) + b.shape)
    return np.linalg.solve(a, b)


def _solve_vjp_b(g, out, a, b, adjoint=False):
    return solve(a, g, adjoint=not adjoint)


def _solve_vjp_a(g, out, a, b, adjoint=False):
    # With M = a (or a^T when adjoint): gM = -(M^-T g) out^T.
    gb = solve(a, g, adjoint=not adjoint)
    if adjoint:
        return negative(matmul(out, gb, transpose_b=True))
    return negative(matmul(gb, out, transpose_b=True))


solve.defvjp(_solve_vjp_a, _solve_vjp_b)
