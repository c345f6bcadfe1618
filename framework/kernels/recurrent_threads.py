"""recurrent_threads.py: the recurrent kernels (recurrent.py) on all the kernel
threads, the batch split between them. The rows of a batch are independent
through time, so each thread runs a kernel's whole time loop on its slice of
the batch: one fork and join per sequence, not one per step (a step's
product, (32, 64) @ (64, 256), is ~20 us: too little to split).

A batch too small for two slices runs as one slice, through the same compiled
code: a callee compiled into its caller may round differently (fastmath lets
LLVM reassociate the product's sums), so the one-slice call never runs the
kernel compiled alone. Slices start at multiples of gemm.ROWS, so that every
row meets the same path of the product (a register tile, or the loop over
the rows left over) in any slicing: the values are the same bits whatever the
thread count.
"""

from ..runtime.jit import FASTMATH, kernel_threads, prange, serial_and_parallel  # noqa: I001

from . import gemm
from . import recurrent as _k

__all__ = ["rows_per_slice", "run"]


def _lstm_forward(xw, kernel, bias, h0, c0, keep, recurrent_mask, zero_output, out, pre, rows):
    batch = xw.shape[0]
    for s in prange((batch + rows - 1) // rows):
        lo, hi = s * rows, min(batch, (s + 1) * rows)
        _k.lstm_forward(xw[lo:hi], kernel, bias, h0[lo:hi], c0[lo:hi], keep[lo:hi],
                        recurrent_mask[lo:hi], zero_output, out[lo:hi], pre[lo:hi])


def _lstm_backward(g, xw, pre, out, h0, c0, kernel, kernel_t, bias, keep, recurrent_mask,
                   zero_output, dz, db, dh0, dc0, rows):
    batch = g.shape[0]
    for s in prange((batch + rows - 1) // rows):
        lo, hi = s * rows, min(batch, (s + 1) * rows)
        _k.lstm_backward(g[lo:hi], xw[lo:hi], pre[lo:hi], out[lo:hi], h0[lo:hi], c0[lo:hi],
                         kernel, kernel_t, bias, keep[lo:hi], recurrent_mask[lo:hi],
                         zero_output, dz[lo:hi], db[lo:hi], dh0[lo:hi], dc0[lo:hi])


def _gru_forward(xw, kernel, x_bias, bias, h0, keep, recurrent_mask, zero_output, reset_after,
                 out, pre, rows):
    batch = xw.shape[0]
    for s in prange((batch + rows - 1) // rows):
        lo, hi = s * rows, min(batch, (s + 1) * rows)
        _k.gru_forward(xw[lo:hi], kernel, x_bias, bias, h0[lo:hi], keep[lo:hi],
                       recurrent_mask[lo:hi], zero_output, reset_after, out[lo:hi], pre[lo:hi])


def _gru_backward(g, xw, pre, out, h0, kernel, kernel_t, x_bias, bias, keep, recurrent_mask,
                  zero_output, reset_after, dx, d_inner, rh_steps, dx_bias, dh0, rows):
    batch = g.shape[0]
    for s in prange((batch + rows - 1) // rows):
        lo, hi = s * rows, min(batch, (s + 1) * rows)
        # `d_inner` is written with reset_after only, `rh_steps` without it; the op
        # passes an empty array for the other.
        _k.gru_backward(g[lo:hi], xw[lo:hi], pre[lo:hi], out[lo:hi], h0[lo:hi], kernel,
                        kernel_t, x_bias, bias, keep[lo:hi], recurrent_mask[lo:hi],
                        zero_output, reset_after, dx[lo:hi],
                        d_inner[lo:hi] if reset_after else d_inner,
                        rh_steps if reset_after else rh_steps[lo:hi], dx_bias[lo:hi],
                        dh0[lo:hi])


def _simple_rnn_forward(xw, kernel, bias, h0, keep, recurrent_mask, zero_output, out, rows):
    batch = xw.shape[0]
    for s in prange((batch + rows - 1) // rows):
        lo, hi = s * rows, min(batch, (s + 1) * rows)
        _k.simple_rnn_forward(xw[lo:hi], kernel, bias, h0[lo:hi], keep[lo:hi],
                              recurrent_mask[lo:hi], zero_output, out[lo:hi])


def _simple_rnn_backward(g, h_new, kernel_t, keep, recurrent_mask, zero_output, dx, db, dh0,
                         rows):
    batch = g.shape[0]
    for s in prange((batch + rows - 1) // rows):
        lo, hi = s * rows, min(batch, (s + 1) * rows)
        _k.simple_rnn_backward(g[lo:hi], h_new[lo:hi], kernel_t, keep[lo:hi],
                               recurrent_mask[lo:hi], zero_output, dx[lo:hi], db[lo:hi],
                               dh0[lo:hi])


def _pair(fn):
    return serial_and_parallel(fn, fastmath=FASTMATH, error_model="numpy")


# kernel -> ((its variant over slices of the batch on one thread, on all threads),
# the positions of the arguments whose leading axis is the batch; gru_backward's
# `rh_steps`, position 15, is one of them without reset_after, position 12)
SLICED = {
    _k.lstm_forward: (_pair(_lstm_forward), (0, 3, 4, 5, 6, 8, 9)),
    _k.lstm_backward: (_pair(_lstm_backward), (0, 1, 2, 3, 4, 5, 9, 10, 12, 13, 14, 15)),
    _k.gru_forward: (_pair(_gru_forward), (0, 4, 5, 6, 9, 10)),
    _k.gru_backward: (_pair(_gru_backward), (0, 1, 2, 3, 4, 9, 10, 13, 16, 17)),
    _k.simple_rnn_forward: (_pair(_simple_rnn_forward), (0, 3, 4, 5, 7)),
    _k.simple_rnn_backward: (_pair(_simple_rnn_backward), (0, 1, 3, 4, 6, 7, 8)),
}


# kernel -> (the position of what its forward kept (pre), that of xw): (B, 0 or T, xw's width)
KEPT = {_k.lstm_forward: (9, 0), _k.lstm_backward: (2, 1), _k.gru_forward: (10, 0),
        _k.gru_backward: (2, 1)}


def rows_per_slice(batch, threads):
    """The rows each thread takes: an even share of the batch, rounded up to
    whole register tiles of the product (gemm.ROWS)."""
    share = -(-batch // max(1, threads))
    return -(-share // gemm.ROWS) * gemm.ROWS


def run(kernel, *args):
    """`kernel(*args)` (one of recurrent.py's), its batch split over the kernel
    threads (runtime/jit.kernel_threads: the cores, the user's intra-op setting,
    the calibration's one-thread decision), asked only for a batch that could
    fill two slices. A kernel that is not in SLICED (a wrapper of one) runs as
    it is.

    Raises:
        ValueError: if a batch-major operand's leading size is not the batch's,
            or the kept step values are neither (batch, 0, xw's width) nor xw's shape
            (the kernels check no bounds: they would read past their end).
    """
    pair, batched = SLICED.get(kernel, (None, ()))
    if pair is None:
        return kernel(*args)
    batch = args[0].shape[0]
    if kernel is _k.gru_backward:  # d_inner with reset_after, rh_steps without it
        batched += (14,) if args[12] else (15,)
    for i in batched:
        if args[i].shape[0] != batch:
            raise ValueError(f"{kernel.__name__}: argument {i} has shape {args[i].shape}, "
                             f"whose leading axis should be the batch, {batch}")
    if kernel in KEPT:
        at, of = KEPT[kernel]
        kept, xw = args[at].shape, args[of].shape
        if kept[1:] not in ((0, xw[2]), xw[1:]):
            raise ValueError(f"{kernel.__name__}: argument {at} (the kept step values) has "
                             f"shape {kept}, which should be {(batch, 0, xw[2])} or {xw}")
    rows = rows_per_slice(batch, kernel_threads()) if batch > gemm.ROWS else batch
    if rows >= batch:
        return pair[0](*args, max(batch, 1))  # one slice, on this thread
    return pair[1](*args, rows)
