"""gfile.py: tf.io.gfile on the local file system: TF's function names over os,
shutil and glob, with TF's errors (tf.errors.NotFoundError for a missing path,
which is also a LookupError). Remote file systems (gs://, s3://, hdfs://) are
not supported: a path naming one raises UnimplementedError."""

import builtins
import glob as _glob
import os
import shutil

from ..core.errors import (AlreadyExistsError, FailedPreconditionError, NotFoundError, OpError,
                           UnimplementedError)

__all__ = ["GFile", "AlreadyExistsError", "FailedPreconditionError", "exists", "glob", "isdir",
           "listdir", "makedirs", "mkdir", "remove", "rmtree", "copy", "rename", "walk", "stat",
           "join", "Open"]


def _local(path):
    path = os.fspath(path)
    if isinstance(path, bytes):
        path = path.decode("utf-8")
    scheme, sep, _ = path.partition("://")
    if sep and scheme != "file":
        raise UnimplementedError(f"File system scheme '{scheme}' not implemented (file: "
                                 f"'{path}'): tapeflow's tf.io.gfile reads local files only.")
    return path[len("file://"):] if sep else path


def _not_found(path, what=""):
    return NotFoundError(f"{path}; No such file or directory{what}")


def exists(path):
    """Whether `path` (file or directory) exists."""
    return os.path.exists(_local(path))


def isdir(path):
    """Whether `path` is a directory."""
    return os.path.isdir(_local(path))


def listdir(path):
    """The names in directory `path` (not full paths), as tf.io.gfile.listdir.

    Raises:
        NotFoundError: if `path` is not a directory.
    """
    local = _local(path)
    if not os.path.isdir(local):
        raise NotFoundError(f"Could not find directory {path}")
    return sorted(os.listdir(local))


def glob(pattern):
    """The paths matching `pattern` (`*`, `?`, `[...]`), as tf.io.gfile.glob; a list
    of patterns gives the union."""
    patterns = [pattern] if isinstance(pattern, (str, bytes, os.PathLike)) else list(pattern)
    found = set()
    for p in patterns:
        found.update(_glob.glob(_local(p)))
    return sorted(found)


def makedirs(path):
    """Create `path` and its missing parents; an existing directory is fine."""
    os.makedirs(_local(path), exist_ok=True)


def mkdir(path):
    """Create the directory `path`, whose parent must exist; an existing directory is
    fine, as TF's.

    Raises:
        AlreadyExistsError: if `path` is an existing file.
        NotFoundError: if its parent does not exist.
    """
    local = _local(path)
    try:
        os.mkdir(local)
    except FileExistsError:
        if not os.path.isdir(local):
            raise AlreadyExistsError(f"{path}; File exists") from None
    except FileNotFoundError:
        raise _not_found(path, " (its parent directory is missing: use makedirs)") from None


def remove(path):
    """Delete the file `path`.

    Raises:
        NotFoundError: if there is no such file.
    """
    local = _local(path)
    if not os.path.lexists(local):
        raise _not_found(path)
    if os.path.isdir(local):
        raise OpError(f"{path} is a directory: use tf.io.gfile.rmtree.")
    os.remove(local)


def rmtree(path):
    """Delete the directory `path` and everything in it."""
    local = _local(path)
    if not os.path.exists(local):
        raise _not_found(path)
    shutil.rmtree(local)


def copy(src, dst, overwrite=False):
    """Copy file `src` to `dst`; AlreadyExistsError if `dst` exists and not `overwrite`."""
    s, d = _local(src), _local(dst)
    if not os.path.exists(s):
        raise _not_found(src)
    if os.path.exists(d) and not overwrite:
        raise AlreadyExistsError(f"{dst}; File already exists")
    shutil.copyfile(s, d)


def rename(src, dst, overwrite=False):
    """Move `src` to `dst`; AlreadyExistsError if `dst` exists and not `overwrite`."""
    s, d = _local(src), _local(dst)
    if not os.path.exists(s):
        raise _not_found(src)
    if os.path.exists(d) and not overwrite:
        raise AlreadyExistsError(f"{dst}; File already exists")
    os.replace(s, d)


def walk(top, topdown=True, onerror=None):
    """(dirname, subdirectories, filenames) triples, as os.walk."""
    return os.walk(_local(top), topdown=topdown, onerror=onerror)


class _StatResult:
    __slots__ = ("length", "mtime_nsec", "is_directory")

    def __init__(self, st, is_directory):
        self.length = st.st_size
        self.mtime_nsec = st.st_mtime_ns
        self.is_directory = is_directory


def stat(path):
    """A FileStatistics-like object: `length`, `mtime_nsec`, `is_directory`."""
    local = _local(path)
    if not os.path.exists(local):
        raise _not_found(path)
    return _StatResult(os.stat(local), os.path.isdir(local))


def join(path, *paths):
    """os.path.join, as tf.io.gfile.join."""
    return os.path.join(path, *paths)


class GFile:
    """A file object, as tf.io.gfile.GFile: `open` on a local path, with TF's
    errors (NotFoundError for a missing file in read mode) and its `size()`.

    Args:
        name: the path.
        mode: as `open`'s ("r", "rb", "w", "wb", "a", ...). Text mode reads str, binary
            mode bytes, as TF.
    """

    def __init__(self, name, mode="r"):
        self.name = name
        self.mode = mode
        local = _local(name)
        if "r" in mode and not os.path.exists(local):
            raise _not_found(name)
        self._file = builtins.open(local, mode, **({} if "b" in mode else {"encoding": "utf-8"}))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __iter__(self):
        return iter(self._file)

    def __getattr__(self, attr):  # read, write, readline, readlines, seek, tell, flush, closed
        return getattr(self._file, attr)

    def size(self):
        """The file's length in bytes."""
        if not self._file.closed and "r" not in self.mode:
            self._file.flush()  # count what was written so far
        return os.path.getsize(_local(self.name))

    def close(self):
        self._file.close()


Open = GFile
