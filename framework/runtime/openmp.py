"""openmp.py: how long idle OpenMP workers spin before they sleep. Numba's
parallel kernels run on its 'omp' threading layer, i.e. on libgomp, which
reads OMP_WAIT_POLICY and GOMP_SPINCOUNT once, when it is loaded.

Idle workers should spin briefly, then sleep. Spinning long, a worker left
over from a parallel kernel steals the core that the next BLAS call needs;
sleeping at once, each parallel kernel pays ~0.1 ms to wake it on this VM,
more than a W2-sized GEMM gains from the second thread. OMP_WAIT_POLICY=PASSIVE
with GOMP_SPINCOUNT=10000 (about OpenBLAS's own wait after openblas.py)
measured best on W2 and W3: with a spin count of 0, W2's fit ran 418-423
steps/s, with 10,000 725-774, and with 10**6 W3 collapsed.

jit.py has Numba load its threading layer inside `load_runtime`, which sets
the two variables only while libgomp loads (settings.scoped_environ): libgomp
keeps what it read, os.environ is restored, and child processes inherit
nothing. The user's own OMP_WAIT_POLICY or GOMP_SPINCOUNT wins (the spin count
is only set when neither is), and TAPEFLOW_PROCESS_TUNING=0 turns it off. An
OpenMP runtime loaded before (PyTorch's libgomp) read its environment
already; nothing is set then, and the kernels' calibration measures one
thread against many in such a process (jit.py; `loaded_before_numba()`
names the runtime in its cache key).
Numba-free: importing this module loads nothing.
"""

import os
import sys

from .settings import ProcessSetting, add_pending, record, scoped_environ, skip_reason

__all__ = ["WAIT_POLICY", "SPIN_COUNT", "loaded_runtimes", "loaded_before_numba", "plan",
           "load_runtime"]

WAIT_POLICY = "PASSIVE"
SPIN_COUNT = "10000"
_NAMES = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")
_RUNTIMES = ("libgomp", "libiomp", "/libomp")


def loaded_runtimes():
    """The OpenMP runtimes mapped into this process (Linux; [] elsewhere)."""
    if not sys.platform.startswith("linux"):
        return []
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if any(n in line for n in _RUNTIMES)}
    except OSError:
        return []
    return sorted(p for p in paths if p.startswith("/"))


_before_numba = None  # the OpenMP runtimes loaded before Numba's layer, once it loaded


def loaded_before_numba():
    """The file names of the OpenMP runtimes that were loaded before Numba's
    threading layer ('none'); before the layer loads, of those loaded now."""
    paths = _before_numba if _before_numba is not None else loaded_runtimes()
    return ", ".join(os.path.basename(p) for p in paths) or "none"


def plan(environ=os.environ):
    """(the variables tapeflow would set while libgomp loads, and why each of
    the two is or is not set: {name: reason}, '' for the ones set)."""
    off = skip_reason(environ)
    user = {name: environ[name] for name in _NAMES if name in environ}
    values, why_not = {}, {}
    if off:
        why_not = {name: off for name in _NAMES}
    else:
        if "OMP_WAIT_POLICY" in user:
            why_not["OMP_WAIT_POLICY"] = f"your own OMP_WAIT_POLICY={user['OMP_WAIT_POLICY']} wins"
        else:
            values["OMP_WAIT_POLICY"] = WAIT_POLICY
        if user:  # either of the user's own settings decides the spin
            why_not["GOMP_SPINCOUNT"] = "your own " + ", ".join(f"{k}={v}" for k, v in user.items()) \
                + " wins"
        else:
            values["GOMP_SPINCOUNT"] = SPIN_COUNT
    return values, why_not


def _settings(values, why_not, applied, reason, environ):
    wanted = {"OMP_WAIT_POLICY": WAIT_POLICY, "GOMP_SPINCOUNT": SPIN_COUNT}
    return [ProcessSetting(f"openmp.{name}", wanted[name], environ.get(name),
                           applied and name in values, why_not.get(name) or reason)
            for name in _NAMES]


def _pending_report():
    values, why_not = plan()
    return _settings(values, why_not, False,
                     "pending: set while the first Numba kernel loads libgomp", os.environ)


add_pending(_pending_report)


def load_runtime(launch, environ=os.environ):
    """Call `launch()`, which has Numba load its threading layer and returns
    the layer's name, with the planned variables set for the call only.
    Returns the variables the OpenMP runtime went by (the user's, else
    tapeflow's where it loaded them, else none: {name: value or None})."""
    global _before_numba
    values, why_not = plan(environ)
    _before_numba = loaded_runtimes()
    already = [p for p in _before_numba if "libgomp" in p]
    if already:
        values = {}
        reason = f"an OpenMP runtime was loaded before ({os.path.basename(already[0])}) and " \
                 "read its environment then"
        why_not = {name: why_not.get(name) or reason for name in _NAMES}
    with scoped_environ(values, environ):
        layer = launch()
        loaded_here = [p for p in loaded_runtimes() if "libgomp" in p and p not in already]
    reason = "set only while Numba loaded libgomp; os.environ restored"
    if values and not loaded_here:
        reason = f"Numba's threading layer is {layer!r} and loaded no libgomp"
    record(*_settings(values, why_not, bool(loaded_here), reason, environ))
    return {name: environ.get(name, values.get(name) if loaded_here else None)
            for name in _NAMES}
