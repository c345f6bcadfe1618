"""settings.py: the switches for tapeflow's process tuning, a record of what
each tuning did, and the one helper that sets environment variables for a
native library to read and then puts them back.

tapeflow leaves `os.environ` as it found it. Where a native library reads a
variable only when it loads or re-reads its environment (libgomp when Numba
loads it, OpenBLAS in `openblas_read_env`), the variable is set around that
moment only, by `scoped_environ`, and restored right after ("was absent"
included).

It also holds the settings a user makes through `tf.config` (thread counts,
run_functions_eagerly, op determinism), so that the runtime and the compiler
read them from here without importing the public namespace above them.
"""

import contextlib
import os
import threading
from typing import Any, NamedTuple

__all__ = ["ProcessSetting", "add_pending", "get_process_settings", "record", "scoped_environ",
           "skip_reason", "SWITCH", "user_setting", "set_user_setting"]

SWITCH = "TAPEFLOW_PROCESS_TUNING"  # =0 turns every tuning off; read, never written
_OFF = ("0", "false", "no", "off")


class ProcessSetting(NamedTuple):
    """One process-wide setting tapeflow makes for speed."""
    name: str  # what is set, e.g. "malloc.M_MMAP_THRESHOLD"
    value: Any  # what tapeflow applies (or would apply)
    before: Any  # what was in effect before, when known (else None)
    applied: bool
    reason: str  # how it was applied, or why it was skipped


_records = {}  # name -> ProcessSetting, in the order the tunings ran
_pending = []  # callables returning records for tunings that run later (OpenMP: first kernel)
_environ_lock = threading.RLock()

# What the user asked for through tf.config, process-wide as in TF (its
# context is one per process). 0 threads: "the system picks", TF's default.
_user = {"intra_op_parallelism_threads": 0, "inter_op_parallelism_threads": 0,
         "run_functions_eagerly": False, "op_determinism": False}


def skip_reason(environ=os.environ, switch=None):
    """Why tuning is switched off ('' when it is allowed): TAPEFLOW_PROCESS_TUNING=0
    turns off all of it, `switch` (e.g. TAPEFLOW_MALLOC_TUNING) one part."""
    for name in (SWITCH, switch):
        if name and environ.get(name, "1").strip().lower() in _OFF:
            return f"switched off: {name}={environ[name]}"
    return ""


def record(*settings):
    """Store what a tuning did (a later record of the same name replaces it)."""
    for setting in settings:
        _records[setting.name] = setting
    return list(settings)


def add_pending(report):
    """Register `report()`, the records of a tuning that has not run yet; shown
    by get_process_settings until records of the same names exist."""
    _pending.append(report)


def get_process_settings():
    """What tapeflow changed in this process for speed, one ProcessSetting per
    setting: its name, the value tapeflow applied, the value before (when
    known), whether it was applied, and how or why not. Settings applied on
    first use (OpenMP's, with the first Numba kernel) show as pending until
    then. Plain dicts: `[s._asdict() for s in get_process_settings()]`."""
    settings = list(_records.values())
    for report in _pending:
        settings += [s for s in report() if s.name not in _records]
    return settings


@contextlib.contextmanager
def scoped_environ(values, environ=os.environ):
    """Set `values` (name -> str) in `environ` for the duration of the block
    and restore every name afterwards, deleting those that were absent, also
    when the block raises. Held under one lock, so two scopes never interleave."""
    with _environ_lock:
        saved = {name: environ.get(name) for name in values}
        try:
            environ.update(values)
            yield
        finally:
            for name, old in saved.items():
                if old is None:
                    environ.pop(name, None)
                else:
                    environ[name] = old


def user_setting(name):
    """The value of a tf.config setting: 'intra_op_parallelism_threads',
    'inter_op_parallelism_threads', 'run_functions_eagerly', 'op_determinism'."""
    return _user[name]


def set_user_setting(name, value):
    """Store a tf.config setting (the caller checked the value)."""
    if name not in _user:
        raise KeyError(f"no tf.config setting named {name!r}; known: {sorted(_user)}")
    _user[name] = value
