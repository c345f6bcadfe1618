"""gemm.py: a float32 matrix product for the tall, narrow products of a
convolution (im2col rows times filters, (N*H*W, k) @ (k, c_out)), where it
beats the BLAS NumPy links: OpenBLAS runs its AVX2 kernels on CPUs it does
not know (Zen 5 here), while this kernel uses the 512-bit registers.

Measured on W3's second convolution (2 threads, Zen 5): forward
(7744, 288) @ (288, 64) 0.72-0.77 ms against OpenBLAS's 1.42-1.51 ms; input
gradient (7744, 64) @ (64, 288) 0.79-0.83 against 1.22-1.27 ms. On the MLP
shapes of W2 (128 rows) and on the filter gradient's (288, 7744) @ (7744, 64)
BLAS is as fast or faster, so `wins` sends only tall products here.

The work is split in tiles of ROWS rows by 2 * LANES columns. A tile's
accumulators stay in 2 * ROWS vector registers for the whole k loop: each
step loads two vectors of b, broadcasts ROWS values of a and issues 2 * ROWS
fused multiply-adds. Numba's loops cannot say that (LLVM kept every
accumulator's store inside the loop: 1.5x slower than BLAS), so the tile is
an intrinsic that writes the loop in LLVM IR. b is first packed into
contiguous (k, 2 * LANES) panels, so that a tile reads it sequentially.
Rows and columns left over from whole tiles go to NumPy's matmul.
"""

import numba
import numpy as np
from llvmlite import binding as _llvm
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic

from ._numba import prange, serial_and_parallel

__all__ = ["LANES", "ROWS", "matmul", "wins"]


def _target_features():
    """The CPU features Numba compiles for: its configured ones, else the host's."""
    configured = numba.config.CPU_FEATURES
    return configured if configured else _llvm.get_host_cpu_features().flatten()


# float32 lanes of one vector register: 16 with AVX-512, else 8 (AVX2).
LANES = 16 if "+avx512f" in _target_features() else 8
ROWS = 6  # 2 * ROWS accumulators + 2 b vectors + 1 broadcast fit 16 AVX2 registers
_PANEL = 2 * LANES


@intrinsic
def _tile(typingctx, a, panel, c, row, k_len):
    """c[row:row + ROWS, :_PANEL] = a[row:row + ROWS, :k_len] @ panel[:k_len]."""
    signature = types.void(a, panel, c, row, k_len)

    def codegen(context, builder, sig, args):
        a_arg, panel_arg, c_arg, row, k_len = args
        i8p, i32, i64 = ir.IntType(8).as_pointer(), ir.IntType(32), ir.IntType(64)
        f32 = ir.FloatType()
        vec = ir.VectorType(f32, LANES)
        fma = cgutils.get_or_insert_function(
            builder.module, ir.FunctionType(vec, [vec, vec, vec]), f"llvm.fma.v{LANES}f32")

        def array(index, value):
            arr = context.make_array(sig.args[index])(context, builder, value)
            strides = cgutils.unpack_tuple(builder, arr.strides, 2)
            return builder.bitcast(arr.data, i8p), strides

        def at(base, offset, ty):  # a typed pointer `offset` bytes past base
            return builder.bitcast(builder.gep(base, [offset]), ty.as_pointer())

        a_data, (a_row, a_col) = array(0, a_arg)
        p_data, (p_row, _) = array(1, panel_arg)
        c_data, (c_row, _) = array(2, c_arg)
        a_rows = [builder.gep(a_data, [builder.mul(builder.add(row, ir.Constant(i64, r)), a_row)])
                  for r in range(ROWS)]
        zero = ir.Constant(vec, [0.0] * LANES)
        undef = ir.Constant(vec, ir.Undefined)
        splat_mask = ir.Constant(ir.VectorType(i32, LANES), [0] * LANES)
        half = ir.Constant(i64, 4 * LANES)  # bytes from the panel's first vector to its second

        entry = builder.block
        loop = builder.append_basic_block("tile.loop")
        done = builder.append_basic_block("tile.done")
        builder.cbranch(builder.icmp_signed(">", k_len, ir.Constant(i64, 0)), loop, done)

        builder.position_at_end(loop)
        k = builder.phi(i64)
        acc = [builder.phi(vec) for _ in range(2 * ROWS)]
        p_k = builder.gep(p_data, [builder.mul(k, p_row)])
        b0 = builder.load(at(p_k, ir.Constant(i64, 0), vec), align=4)
        b1 = builder.load(at(p_k, half, vec), align=4)
        a_k = builder.mul(k, a_col)
        summed = []
        for r in range(ROWS):
            a_rk = builder.load(at(a_rows[r], a_k, f32), align=4)
            a_vec = builder.shuffle_vector(builder.insert_element(undef, a_rk, ir.Constant(i32, 0)),
                                           undef, splat_mask)
            summed += [builder.call(fma, [a_vec, b0, acc[2 * r]]),
                       builder.call(fma, [a_vec, b1, acc[2 * r + 1]])]
        k_next = builder.add(k, ir.Constant(i64, 1))
        body = builder.block
        k.add_incoming(ir.Constant(i64, 0), entry)
        k.add_incoming(k_next, body)
        for phi, value in zip(acc, summed):
            phi.add_incoming(zero, entry)
            phi.add_incoming(value, body)
        builder.cbranch(builder.icmp_signed("<", k_next, k_len), loop, done)

        builder.position_at_end(done)
        results = []
        for value in summed:  # phis first: LLVM wants them at the top of the block
            results.append(builder.phi(vec))
            results[-1].add_incoming(zero, entry)
            results[-1].add_incoming(value, body)
        for r in range(ROWS):
            c_r = builder.gep(c_data, [builder.mul(builder.add(row, ir.Constant(i64, r)), c_row)])
            builder.store(results[2 * r], at(c_r, ir.Constant(i64, 0), vec), align=4)
            builder.store(results[2 * r + 1], at(c_r, half, vec), align=4)
        return context.get_dummy_value()

    return signature, codegen


def _tiles(a, b, c, row_tiles, panels):
    """c[:row_tiles * ROWS, :panels * _PANEL] = the matching part of a @ b."""
    k_len = a.shape[1]
    packed = np.empty((panels, k_len, _PANEL), np.float32)
    for p in prange(panels):
        for k in range(k_len):
            for j in range(_PANEL):
                packed[p, k, j] = b[k, p * _PANEL + j]
    for t in prange(row_tiles * panels):
        r, p = t // panels, t % panels  # consecutive tiles share a's rows
        _tile(a, packed[p], c[:, p * _PANEL:], r * ROWS, k_len)
    return c


_tiles_pair = serial_and_parallel(_tiles, nogil=True)
_PARALLEL_WORK = 1 << 20  # multiply-adds above which two threads pay


def wins(m, k, n, dtype):
    """Whether `matmul` beats NumPy's BLAS for an (m, k) @ (k, n) product: float32,
    512-bit vectors, and tall (the measured cases in the module docstring)."""
    return dtype == np.float32 and LANES == 16 and m >= 1024 and n >= _PANEL and n <= 1024


def matmul(a, b):
    """a @ b for 2-D float32 arrays of any strides, as a new C-contiguous array."""
    if a.dtype != np.float32 or b.dtype != np.float32 or a.ndim != 2 or b.ndim != 2 \
            or a.shape[1] != b.shape[0]:
        raise ValueError(f"gemm.matmul takes 2-D float32 (m, k) and (k, n) arrays, got "
                         f"{a.dtype}{a.shape} and {b.dtype}{b.shape}")
    m, k_len = a.shape
    n = b.shape[1]
    c = np.empty((m, n), np.float32)
    row_tiles, panels = m // ROWS, n // _PANEL
    if row_tiles and panels:
        work = row_tiles * ROWS * panels * _PANEL * k_len
        _tiles_pair[1 if work >= _PARALLEL_WORK else 0](a, b, c, row_tiles, panels)
    rows_done, cols_done = row_tiles * ROWS, panels * _PANEL
    if rows_done < m:
        np.matmul(a[rows_done:], b, out=c[rows_done:])
    if cols_done < n and rows_done:
        np.matmul(a[:rows_done], b[:, cols_done:], out=c[:rows_done, cols_done:])
    return c
