"""atomic_files.py is the one way tapeflow writes a file that must survive a kill:
a temporary file beside the target, written, fsynced and renamed over it, so a
reader sees the old file or the new one, never part of one. Temporaries are
named ".tmp-<host>-<pid>-<random>-<target name>", so that the next write into
the same directory can tell a killed writer's file (same host, pid gone) from
one being written right now, and remove it. Saved models, checkpoints,
callbacks' files and tf.io.write_file all write through it."""

import os
import re
import socket
import tempfile
import time
import zlib

__all__ = ["atomic_write", "temporary_beside", "remove_stale_temporaries"]

# A temporary file is named ".tmp-<host>-<pid>-<random>-<target name>", so that the
# next write into the same directory can tell a killed writer's file (same host, pid
# gone) from one being written right now, and remove it.
_TMP_PREFIX = ".tmp-"
_TMP_NAME = re.compile(r"^\.tmp-([0-9a-f]{8})-(\d+)-[a-z0-9_]{8}-.")
_LEGACY_TMP_NAME = re.compile(r"^\.tmp-[a-z0-9_]{8}.")  # tapeflow before issue 19
_STALE_SECONDS = 3600  # a temporary this old is stale, whoever wrote it


def _host_tag():
    return f"{zlib.crc32(socket.gethostname().encode()):08x}"


def _pid_alive(pid):
    if os.name == "nt":  # os.kill(pid, 0) would interrupt it there: rely on the age
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, owned by someone else
    return True


def _is_stale(path, name, host, now):
    match = _TMP_NAME.match(name)
    if match is not None:
        if match.group(1) == host and not _pid_alive(int(match.group(2))):
            return True
        return now - os.path.getmtime(path) > _STALE_SECONDS
    if _LEGACY_TMP_NAME.match(name) and now - os.path.getmtime(path) > _STALE_SECONDS:
        with open(path, "rb") as f:  # only what tapeflow wrote: a zip (.npz, .keras)
            head = f.read(4)
        return head in (b"", b"PK\x03\x04")
    return False


def remove_stale_temporaries(directory):
    """Remove the temporary files that killed writers left in `directory`; their names.

    A temporary counts as stale when its name carries this host and the id of a
    process that no longer runs, or when it is older than an hour (one from another
    host, or from tapeflow before issue 19, whose names carry no process id).
    Temporaries of live writers and every other file are kept.
    """
    removed = []
    try:
        names = [n for n in os.listdir(directory) if n.startswith(_TMP_PREFIX)]
    except OSError:
        return removed
    host, now = _host_tag(), time.time()
    for name in names:
        path = os.path.join(directory, name)
        try:
            if os.path.isfile(path) and _is_stale(path, name, host, now):
                os.remove(path)
                removed.append(name)
        except OSError:
            pass  # removed meanwhile by another writer's clean-up
    return removed


def _fsync_directory(directory):
    """Make a rename in `directory` durable (not only atomic) where the OS allows it."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot fsync a directory
    finally:
        os.close(fd)


def temporary_beside(filepath):
    """A new temporary file beside `filepath`, as (fd, path), named so that a later
    `remove_stale_temporaries` can tell a killed writer's file from a live one's;
    the folder is made if needed and its stale temporaries are removed first."""
    directory = os.path.dirname(os.path.abspath(os.fspath(filepath)))
    os.makedirs(directory, exist_ok=True)
    remove_stale_temporaries(directory)
    return tempfile.mkstemp(prefix=f"{_TMP_PREFIX}{_host_tag()}-{os.getpid()}-",
                            suffix="-" + os.path.basename(os.fspath(filepath)), dir=directory)


def atomic_write(filepath, write, overwrite=True):
    """Call `write(file)` on a temporary file beside `filepath`, then rename it there.

    A process killed at any moment leaves either the old file or the new one, never
    part of one; the temporary file it may leave is removed by the next write into
    that directory (`remove_stale_temporaries`).

    Raises:
        FileExistsError: if `filepath` exists and `overwrite` is False.
    """
    filepath = os.fspath(filepath)
    if not overwrite and os.path.exists(filepath):
        raise FileExistsError(f"{filepath} exists and overwrite=False.")
    fd, tmp = temporary_beside(filepath)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, filepath)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
    _fsync_directory(os.path.dirname(os.path.abspath(filepath)))
