"""kernels/recurrent_threads.py: the recurrent kernels over slices of the batch
on all threads give the one-slice values bit for bit (float32, whose per-step
product is gemm's register tile, and float64), for even and uneven slices,
masks and recurrent dropout masks, and agree with the kernel called alone
(whose compile may round the float64 product's sums otherwise); `run` takes
all threads only when the batch fills two slices. The kernels' values
themselves are tested against NumPy in test_kernels_recurrent.py."""

import numpy as np
import pytest
from tapeflow.kernels import gemm
from tapeflow.kernels import recurrent as kernels
from tapeflow.kernels import recurrent_threads as threads

RNG = np.random.default_rng(21)
T, U = 7, 16


def _operands(name, batch, dtype, reset_after=True):
    """(kernel, args, indices of the arrays it writes) with random values."""
    def a(*shape, scale=1.0):
        return (RNG.standard_normal(shape) * scale).astype(dtype)

    keep = RNG.random((batch, T)) < 0.8
    rmask = np.where(RNG.random((batch, U)) < 0.3, 0.0, 1 / 0.7).astype(dtype)
    empty = np.zeros((0, 0, 0), dtype)
    if name == "lstm_forward":  # keeping the gates (position 9)
        args = [a(batch, T, 4 * U), a(U, 4 * U, scale=0.4), a(4 * U), a(batch, U), a(batch, U),
                keep, rmask, False, np.empty((batch, T, 3 * U), dtype),
                np.empty((batch, T, 4 * U), dtype)]
        return kernels.lstm_forward, args, (8, 9)
    if name in ("lstm_backward", "lstm_backward_kept"):  # computing them again, or reading
        kernel = a(U, 4 * U, scale=0.4)
        pre = a(batch, T, 4 * U) if name.endswith("kept") else np.empty((batch, 0, 4 * U), dtype)
        args = [a(batch, T, 3 * U), a(batch, T, 4 * U), pre, a(batch, T, 3 * U), a(batch, U),
                a(batch, U), kernel, np.ascontiguousarray(kernel.T), a(4 * U), keep, rmask, True,
                np.empty((batch, T, 4 * U), dtype), np.zeros((batch, 4 * U), dtype),
                np.empty((batch, U), dtype), np.empty((batch, U), dtype)]
        return kernels.lstm_backward, args, (12, 13, 14, 15)
    if name == "gru_forward":  # keeping the recurrent products (position 10)
        args = [a(batch, T, 3 * U), a(U, 3 * U, scale=0.4), a(3 * U), a(3 * U), a(batch, U), keep,
                rmask, False, reset_after, np.empty((batch, T, 2 * U), dtype),
                np.empty((batch, T, 3 * U), dtype)]
        return kernels.gru_forward, args, (9, 10)
    if name in ("gru_backward", "gru_backward_kept"):  # computing them again, or reading
        kernel = a(U, 3 * U, scale=0.4)
        rh_steps = empty if reset_after else np.empty((batch, T, U), dtype)
        pre = a(batch, T, 3 * U) if name.endswith("kept") else np.empty((batch, 0, 3 * U), dtype)
        args = [a(batch, T, 2 * U), a(batch, T, 3 * U), pre, a(batch, T, 2 * U), a(batch, U),
                kernel, np.ascontiguousarray(kernel.T), a(3 * U), a(3 * U), keep, rmask, True,
                reset_after, np.empty((batch, T, 3 * U), dtype),
                np.empty((batch, T, 3 * U), dtype) if reset_after else empty,
                rh_steps, np.zeros((batch, 3 * U), dtype), np.empty((batch, U), dtype)]
        return kernels.gru_backward, args, (13, 14, 16, 17) if reset_after else (13, 15, 16, 17)
    if name == "simple_rnn_forward":
        args = [a(batch, T, U), a(U, U, scale=0.4), a(U), a(batch, U), keep, rmask, False,
                np.empty((batch, T, 2 * U), dtype)]
        return kernels.simple_rnn_forward, args, (7,)
    args = [a(batch, T, 2 * U), np.tanh(a(batch, T, U)), a(U, U, scale=0.4), keep, rmask, False,
            np.empty((batch, T, U), dtype), np.zeros((batch, U), dtype),
            np.empty((batch, U), dtype)]
    return kernels.simple_rnn_backward, args, (6, 7, 8)


KERNELS = ["lstm_forward", "lstm_backward", "lstm_backward_kept", "gru_forward", "gru_backward",
           "gru_backward_kept", "simple_rnn_forward", "simple_rnn_backward"]


def _written(args, outputs):
    return [args[i].copy() for i in outputs]


# each backward kernel's bias-gradient sums, which it adds to
_ACCUMULATED = {kernels.lstm_backward: 13, kernels.gru_backward: 16,
                kernels.simple_rnn_backward: 7}


def _run(variant, kernel, args, outputs, *rows):
    """What variant(*args, *rows) writes, every output first set to NaN (each
    element must be written), but a backward's bias-gradient sums, which the
    kernel adds to: set to zeros."""
    for i in outputs:
        args[i][...] = 0 if _ACCUMULATED.get(kernel) == i else np.nan
    variant(*args, *rows)
    return _written(args, outputs)


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("batch", [20, 40])
def test_slices_give_the_one_call_bits(name, dtype, batch):
    kernel, args, outputs = _operands(name, batch, dtype)
    alone = _run(kernel, kernel, args, outputs)
    one_thread, all_threads = threads.SLICED[kernel][0]
    whole = _run(one_thread, kernel, args, outputs, batch)
    for expected, got in zip(alone, whole):
        tol = (1e-12 if dtype == np.float64 else 1e-6) * np.max(np.abs(expected), initial=1.0)
        np.testing.assert_allclose(got, expected, rtol=0, atol=tol)
    for rows in sorted({gemm.ROWS, threads.rows_per_slice(batch, 2)}):
        for expected, got in zip(whole, _run(all_threads, kernel, args, outputs, rows)):
            np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gru_without_reset_after_slices_alike(dtype):
    for name in ("gru_forward", "gru_backward", "gru_backward_kept"):
        kernel, args, outputs = _operands(name, 24, dtype, reset_after=False)
        one_thread, all_threads = threads.SLICED[kernel][0]
        whole = _run(one_thread, kernel, args, outputs, 24)
        for expected, got in zip(whole, _run(all_threads, kernel, args, outputs, gemm.ROWS)):
            np.testing.assert_array_equal(got, expected)


def test_rows_per_slice_are_whole_register_tiles():
    assert threads.rows_per_slice(32, 2) == 16
    assert threads.rows_per_slice(20, 2) == -(-10 // gemm.ROWS) * gemm.ROWS
    assert threads.rows_per_slice(64, 64) == gemm.ROWS
    assert threads.rows_per_slice(5, 1) % gemm.ROWS == 0 and threads.rows_per_slice(5, 1) >= 5
    assert threads.rows_per_slice(7, 0) >= 7  # no threads reported: one slice


@pytest.fixture
def calls(monkeypatch):
    """Which variant `run` called ('one thread' or 'all threads') with the rows."""
    seen = []
    for kernel, (pair, batched) in list(threads.SLICED.items()):
        def spy(which, variant):
            def call(*args):
                seen.append((which, args[-1]))
                return variant(*args)
            return call
        monkeypatch.setitem(threads.SLICED, kernel, (
            (spy("one thread", pair[0]), spy("all threads", pair[1])), batched))
    return seen


def test_run_slices_a_batch_that_fills_two(monkeypatch, calls):
    monkeypatch.setattr(threads, "kernel_threads", lambda: 2)
    batch = 4 * gemm.ROWS
    kernel, args, outputs = _operands("lstm_forward", batch, np.float32)
    threads.run(kernel, *args)
    assert calls == [("all threads", 2 * gemm.ROWS)]
    got = _written(args, outputs)
    threads.SLICED[kernel][0][0](*args, batch)
    np.testing.assert_array_equal(got[0], args[outputs[0]])


@pytest.mark.parametrize("batch, cores", [(gemm.ROWS, 2), (4 * gemm.ROWS, 1), (0, 2)])
def test_run_keeps_one_slice_when_it_cannot_cut(monkeypatch, calls, batch, cores):
    monkeypatch.setattr(threads, "kernel_threads", lambda: cores)
    kernel, args, _ = _operands("gru_forward", batch, np.float32)
    threads.run(kernel, *args)
    assert calls == [("one thread", max(batch, 1))]


@pytest.mark.parametrize("name, position", [
    ("lstm_forward", 3), ("lstm_forward", 5), ("lstm_forward", 9), ("lstm_backward", 2),
    ("lstm_backward", 13),
    ("gru_forward", 10), ("gru_backward", 2), ("gru_backward", 4), ("gru_backward", 16),
    ("simple_rnn_backward", 7)])
def test_run_names_an_operand_of_another_batch(name, position):
    # The kernels check no bounds: a (1, U) state for a batch of 32 would be read past its end.
    kernel, args, _ = _operands(name, 4 * gemm.ROWS, np.float32)
    args[position] = np.ascontiguousarray(args[position][:1])
    with pytest.raises(ValueError, match=rf"{name}: argument {position} has shape "
                                         rf"\(1, .*leading axis should be the batch, 32"):
        threads.run(kernel, *args)


def test_run_asks_no_thread_count_for_a_batch_it_cannot_cut(monkeypatch, calls):
    # (a first predict of one sample must not start the calibration's thread measurements)
    def no_threads():
        raise AssertionError("kernel_threads() asked for a batch of one register tile")
    monkeypatch.setattr(threads, "kernel_threads", no_threads)
    kernel, args, _ = _operands("simple_rnn_forward", gemm.ROWS, np.float32)
    threads.run(kernel, *args)
    assert calls == [("one thread", gemm.ROWS)]
