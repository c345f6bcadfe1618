"""replay_ledger.py keeps, per generated source, the seconds its graphs and
segments were replayed in this machine's earlier processes, so that compiling
it pays once the machine's replays have cost what compiling would, not one
process's alone: the compiled code is cached on disk, so its compile is paid
once per machine. W2's elementwise runs replay in ~50 us a step against a
first guess of 0.5 s to compile: ~10,000 steps, which no one run of a few
thousand steps reached, however often it was run (native.py).

The ledger is a JSON file beside the generated sources (functions/replayed.json
in the user cache directory), read once per process and written at exit,
merged with what other processes wrote meanwhile (atomic_files.py: a reader
never sees half a file); an absent or corrupt file counts as nothing.
"""

import json
import os
import threading

from ..runtime import calibration
from ..runtime.atomic_files import atomic_write

__all__ = ["earlier", "path", "save"]

KEPT = 1024  # sources kept, the most recently replayed: a file of tens of kilobytes
_lock = threading.Lock()
# $XDG_CACHE_HOME (None: unset) -> {stem: seconds}, as read at this process's first count
# there: keyed by the setting, not the path, whose lookup (user_cache_dir) creates a
# file to check the folder is writable, 24 us that each count of a replay would pay
_read_once = {}


def path():
    """The ledger file of the current user cache directory."""
    return os.path.join(calibration.user_cache_dir("functions"), "replayed.json")


def _read(file):
    try:
        with open(file) as f:
            data = json.load(f)
        return {stem: float(seconds) for stem, seconds in data.items()
                if isinstance(stem, str) and isinstance(seconds, (int, float))}
    except (OSError, ValueError, AttributeError, TypeError):
        return {}


def earlier(stem):
    """Seconds code `stem` was replayed in earlier processes (0.0 if never)."""
    setting = os.environ.get("XDG_CACHE_HOME")
    seconds = _read_once.get(setting)
    if seconds is None:
        with _lock:
            seconds = _read_once.get(setting)
            if seconds is None:
                seconds = _read_once[setting] = _read(path())
    return seconds.get(stem, 0.0)


def save(spent):
    """Add this process's `spent` ({stem: seconds}) to the ledger (at exit)."""
    spent = {stem: seconds for stem, seconds in spent.items() if seconds > 0}
    if not spent:
        return
    file = path()
    with _lock:
        merged = _read(file)
        for stem, seconds in spent.items():  # the replayed last: the newest kept
            merged[stem] = merged.pop(stem, 0.0) + seconds
        kept = dict(list(merged.items())[-KEPT:])
        text = json.dumps(kept)
        try:
            atomic_write(file, lambda f: f.write(text.encode()))
        except OSError:
            pass  # an unwritable cache directory: the next process counts from zero
