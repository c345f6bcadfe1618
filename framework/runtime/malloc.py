"""_malloc.py keeps glibc's malloc from handing a training step's large arrays
back to the kernel between steps.

By default glibc serves a large allocation with its own mmap, or, once one
such block has been freed, from the heap, whose free top it trims back to
the kernel as soon as it exceeds twice that block's size. A training step
frees its activations, gradients and im2col matrices (megabytes each) all
at once, so the heap is trimmed after every step and the next step faults
every page back in, zero-filled: measured 3,500 page faults and ~35% of a
W3 step (17 -> 11 ms), and the same for the hand-written NumPy reference. How
many pages fault depends on what the process freed earlier, so step times
also varied with the order in which things had run.

Fixed thresholds keep blocks up to 32 MB on the heap and the heap's free top
up to 256 MB in the process, reused by the next step. This is process-wide,
like the OMP_WAIT_POLICY that kernels/_numba.py sets, and it is what
PyTorch's and Intel's CPU tuning guides get from swapping in jemalloc or
tcmalloc. It is skipped when the user has tuned malloc already (glibc's
MALLOC_*_ environment variables or glibc.malloc tunables), when
TAPEFLOW_MALLOC_TUNING=0, and where the C library is not glibc.
"""

import ctypes
import os
import sys

__all__ = ["tune_malloc", "MMAP_THRESHOLD", "TRIM_THRESHOLD"]

_M_TRIM_THRESHOLD = -1  # mallopt parameter numbers, from glibc's malloc.h
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20  # glibc's largest allowed value on 64-bit
TRIM_THRESHOLD = 256 << 20

_USER_SETTINGS = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_TOP_PAD_",
                  "MALLOC_MMAP_MAX_")


def _glibc():
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # absent from musl and other C libraries
        return libc
    except (OSError, AttributeError):
        return None


def tune_malloc(environ=os.environ):
    """Set the thresholds (see the module docstring); True if they were set."""
    if environ.get("TAPEFLOW_MALLOC_TUNING", "1") == "0":
        return False
    if any(name in environ for name in _USER_SETTINGS) or \
            "glibc.malloc." in environ.get("GLIBC_TUNABLES", ""):
        return False
    libc = _glibc()
    if libc is None:
        return False
    return bool(libc.mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                and libc.mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
