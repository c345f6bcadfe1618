"""reductions.py: sums in the order NumPy adds them, for the code compiler/ generates
from a traced graph (lowering.py), which is kept only if it gives the executor's
bits (native.py): Numba's np.sum adds in sequence, NumPy's pairwise, so a loss's
mean kept whole graphs on the replay.

NumPy's pairwise summation (numpy/_core/src/umath/loops_utils.h.src,
pairwise_sum): a run under 8 elements is added in sequence from zero, one of up to
128 in 8 interleaved sums combined as ((0+1)+(2+3))+((4+5)+(6+7)) with the rest
added after, and a longer run is cut in two halves at a multiple of 8; the
reduction then adds that to its identity, +0.0 (so all -0.0 sum to +0.0). np.sum
adds a C-contiguous array this way, whole or row by row along the last axis
(checked bit for bit on NumPy 2.4 to 2**20 elements); a view it adds in another
order, so the generated code replays calls on views (segments.runs_on). In
the array's dtype, without fastmath, which would reorder the additions.
"""

import numpy as np

from ..runtime.jit import njit

__all__ = ["pairwise_rows", "pairwise_total", "sum_leading_axis"]

_LEAF = 128  # NumPy's PW_BLOCKSIZE: runs up to this long are added in 8 interleaved sums
_DEPTH = 64  # halvings of a run, at most: 2**64 elements


@njit(cache=True, error_model="numpy")
def _block(a, start, n, zero):
    """The sum of a[start:start + n], n <= _LEAF, as NumPy's leaf adds it."""
    if n < 8:
        total = zero
        for i in range(start, start + n):
            total += a[i]
        return total
    r0, r1, r2, r3 = a[start], a[start + 1], a[start + 2], a[start + 3]
    r4, r5, r6, r7 = a[start + 4], a[start + 5], a[start + 6], a[start + 7]
    i = start + 8
    end = start + n - n % 8
    while i < end:
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < start + n:
        total += a[i]
        i += 1
    return total


@njit(cache=True, error_model="numpy")
def _run(a, start, n, zero, stack, partial):
    """The pairwise sum of a[start:start + n] (1-D). NumPy's recursion walked with
    a stack of its own (`stack` (_DEPTH, 3) int64: start, length, halves done;
    `partial`: the sums of finished halves): a recursive Numba function loaded
    from the disk cache crashed the process (Numba 0.68)."""
    if n <= _LEAF:
        return _block(a, start, n, zero)
    stack[0, 0], stack[0, 1], stack[0, 2] = start, n, 0
    top, done = 1, 0
    while top:
        s, m = stack[top - 1, 0], stack[top - 1, 1]
        if m <= _LEAF:
            partial[done] = _block(a, s, m, zero)
            done += 1
            top -= 1
            continue
        half = m // 2
        half -= half % 8
        halves = stack[top - 1, 2]
        if halves < 2:  # its first half, then its second
            stack[top - 1, 2] = halves + 1
            stack[top, 0] = s if halves == 0 else s + half
            stack[top, 1] = half if halves == 0 else m - half
            stack[top, 2] = 0
            top += 1
        else:  # both halves summed: their sum
            partial[done - 2] = partial[done - 2] + partial[done - 1]
            done -= 1
            top -= 1
    return partial[0]


@njit(cache=True, error_model="numpy")
def pairwise_total(a):
    """np.sum(a) of a C-contiguous float array, bit for bit."""
    flat = np.ascontiguousarray(a).reshape(-1)
    zero = np.zeros(1, a.dtype)[0]
    stack = np.empty((_DEPTH, 3), np.int64)
    return zero + _run(flat, 0, flat.size, zero, stack, np.empty(_DEPTH, a.dtype))


@njit(cache=True, error_model="numpy")
def pairwise_rows(a):
    """np.sum(a, axis=-1) of a C-contiguous float array of 2 or more axes, bit for bit."""
    n = a.shape[-1]
    count = 1
    for size in a.shape[:-1]:
        count *= size
    rows = np.ascontiguousarray(a).reshape(count, n)
    out = np.empty(count, a.dtype)
    zero = np.zeros(1, a.dtype)[0]
    stack = np.empty((_DEPTH, 3), np.int64)
    partial = np.empty(_DEPTH, a.dtype)
    for i in range(count):
        out[i] = zero + _run(rows[i], 0, n, zero, stack, partial)
    return out.reshape(a.shape[:-1])


@njit(cache=True, error_model="numpy")
def sum_leading_axis(a):
    """a summed over its first axis, in float64 (a bias gradient's unbroadcast, under
    jit_compile=True: NumPy's runs on BLAS, whose order no loop repeats)."""
    columns = 1
    for size in a.shape[1:]:
        columns *= size
    rows = np.ascontiguousarray(a).reshape(a.shape[0], columns)
    total = np.zeros(columns, np.float64)
    for i in range(rows.shape[0]):
        for j in range(rows.shape[1]):
            total[j] += rows[i, j]
    return total.astype(a.dtype).reshape(a.shape[1:])
