"""kernel_sources.py: what a cached compiled function must be stamped with so
that an edit of any of tapeflow's kernels makes it stale: a digest of every
module in kernels/ and runtime/, the folders whose Numba functions the kernels
(jit.py's cache locator) and the generated graph functions (compiler/native.py)
call and compile into themselves. Numba's own stamp covers a function's own file
only: a kernel compiled into its caller stayed stale after an edit of the
callee's module, running the old code. No numba here: compiler/native.py reads it
at `import tapeflow`'s cost.
"""

import hashlib
import os
import time

__all__ = ["PROCESS_TAG", "kernel_sources"]

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # tapeflow/
PROCESS_TAG = f"{os.getpid()}-{time.time_ns()}"


def _kernel_modules(package_dir=_PACKAGE_DIR):
    """The paths of every module in kernels/ and runtime/, the two folders whose
    Numba functions tapeflow's kernels call, in a fixed order."""
    paths = []
    for folder in ("kernels", "runtime"):
        directory = os.path.join(package_dir, folder)
        paths += [os.path.join(directory, name) for name in sorted(os.listdir(directory))
                  if name.endswith(".py")]
    return paths


def _kernel_sources_digest(package_dir=_PACKAGE_DIR):
    """A digest of the text of every module in kernels/ and runtime/."""
    digest = hashlib.sha256()
    for path in _kernel_modules(package_dir):
        with open(path, "rb") as source:
            digest.update(os.path.basename(path).encode() + b"\0" + source.read())
    return digest.hexdigest()


def _kernel_stats(package_dir=_PACKAGE_DIR):
    return tuple((path, st.st_mtime_ns, st.st_size)
                 for path in _kernel_modules(package_dir) for st in [os.stat(path)])


_first_look = []  # [(stats, digest)]: the kernel sources as this process first saw them


def kernel_sources():
    """The kernels' part of a cache stamp: the sources' digest as this process
    first saw them (the modules it imported are that code), or, once they have
    changed since, a stamp of this process alone, which no later process
    matches: what it compiles from then on may mix older and newer code.
    Raises OSError where a module cannot be read."""
    stats = _kernel_stats()
    if not _first_look:
        _first_look.append((stats, _kernel_sources_digest()))
    seen, digest = _first_look[0]
    return digest if stats == seen else f"changed while process {PROCESS_TAG} ran"
