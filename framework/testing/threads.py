"""threads.py: helpers for tests that run tapeflow from several threads at once
(`tapeflow.testing.fast_thread_switching`, `run_threads`): switch threads every
few microseconds so that races show up in a few trials, and re-raise in the
caller what a thread raised, so a failure inside a thread fails the test."""

import contextlib
import sys
import threading

__all__ = ["fast_thread_switching", "run_threads"]


@contextlib.contextmanager
def fast_thread_switching(interval=1e-5):
    """Switch threads every `interval` seconds inside the block; restored afterwards."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(interval)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


def run_threads(*targets, timeout=30):
    """Run each callable in its own thread, all started together; return their results.

    Raises:
        AssertionError: if a thread is still running after `timeout` seconds.
        The first exception a thread raised, with its traceback.
    """
    barrier = threading.Barrier(len(targets))
    results, errors = [None] * len(targets), []

    def body(i, target):
        try:
            barrier.wait()
            results[i] = target()
        except BaseException as exc:  # noqa: BLE001 -- re-raised in the caller's thread
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(i, t)) for i, t in enumerate(targets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)
        assert not t.is_alive(), f"a thread did not finish within {timeout} s"
    if errors:
        raise errors[0]
    return results
