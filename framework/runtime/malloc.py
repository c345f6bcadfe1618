"""malloc.py keeps glibc's malloc from handing a training step's large arrays
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
like the OpenMP spin that jit.py has libgomp read, and it is what PyTorch's
and Intel's CPU tuning guides get from swapping in jemalloc or tcmalloc. It
is skipped when the user has tuned malloc already (glibc's MALLOC_*_
environment variables or glibc.malloc tunables), when TAPEFLOW_PROCESS_TUNING=0
or TAPEFLOW_MALLOC_TUNING=0, and where the C library is not glibc. mallopt
takes effect at once and reads no environment; tapeflow writes none. What it
did is listed by tf.config.experimental.get_process_settings().
"""

import ctypes
import os
import sys

from .settings import ProcessSetting, record, skip_reason

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
    """Set the thresholds (see the module docstring) unless told not to; the
    two ProcessSettings saying what was done, also recorded for
    get_process_settings."""
    wanted = (("malloc.M_MMAP_THRESHOLD", _M_MMAP_THRESHOLD, MMAP_THRESHOLD),
              ("malloc.M_TRIM_THRESHOLD", _M_TRIM_THRESHOLD, TRIM_THRESHOLD))
    users = [name for name in _USER_SETTINGS if name in environ]
    if "glibc.malloc." in environ.get("GLIBC_TUNABLES", ""):
        users.append("GLIBC_TUNABLES=" + environ["GLIBC_TUNABLES"])
    libc = None
    why_not = skip_reason(environ, "TAPEFLOW_MALLOC_TUNING")
    if not why_not and users:
        why_not = "your own malloc settings win: " + ", ".join(users)
    if not why_not:
        libc = _glibc()
        if libc is None:
            why_not = "the C library is not glibc (no mallopt)"
    settings = []
    for name, parameter, value in wanted:
        if why_not:
            settings.append(ProcessSetting(name, value, None, False, why_not))
        elif libc.mallopt(parameter, value):
            # glibc has no getter; its default is 128 KiB, raised as large blocks are freed
            settings.append(ProcessSetting(name, value, None, True, "mallopt"))
        else:
            settings.append(ProcessSetting(name, value, None, False, "mallopt refused it"))
    return record(*settings)
