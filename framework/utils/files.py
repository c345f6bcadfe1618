"""files.py is `keras.utils.get_file`: a download cached under ~/.keras, checked
against an optional hash, written atomically (a temporary file in the target
folder, renamed when complete), and extracted when asked."""

import hashlib
import os
import tarfile
import tempfile
import zipfile
from urllib.parse import urlsplit

__all__ = ["get_file"]

_TIMEOUT = 30.0  # seconds per connect/read, so an offline machine fails fast
_CHUNK = 1 << 20


def get_file(fname=None, origin=None, untar=False, md5_hash=None, file_hash=None,
             cache_subdir="datasets", hash_algorithm="auto", extract=False,
             archive_format="auto", cache_dir=None, force_download=False):
    """The local path of the file at `origin`, downloaded once into the cache.

    Keras 2's behaviour, which TF's tutorials rely on: the file is stored at
    `cache_dir/cache_subdir/fname` (`cache_dir` defaults to `~/.keras`);
    with `untar=True` the download is `fname + '.tar.gz'`, extracted beside it,
    and the extracted path is returned; `extract=True` extracts a tar or zip
    archive into the same folder and returns the archive's path.

    Args:
        fname: the file name; the last part of `origin`'s path by default.
        origin: the URL (http, https, ftp or file).
        file_hash: the expected SHA-256 or MD5 hex digest (`md5_hash` is the
            old name); a cached file that does not match is downloaded again.
        hash_algorithm: 'sha256', 'md5' or 'auto' (from the digest's length).
        force_download: download even when the file is cached.

    Raises:
        ValueError: without `origin`, or if the download does not match `file_hash`.
        OSError: if the file is not cached and cannot be downloaded; the
            message names the URL and where to put the file to work offline.
    """
    if origin is None:
        raise ValueError('Please specify the "origin" argument (URL of the file to download).')
    if fname is None:
        fname = os.path.basename(urlsplit(origin).path)
        if not fname:
            raise ValueError(f"Can't parse the file name from the origin provided: '{origin}'."
                             " Please specify the `fname` argument.")
    if md5_hash is not None and file_hash is None:
        file_hash, hash_algorithm = md5_hash, "md5"
    datadir = _cache_folder(cache_dir, cache_subdir)
    fname = os.fspath(fname)
    if untar:
        untar_path = os.path.join(datadir, fname[:-len(".tar.gz")] if fname.endswith(
            ".tar.gz") else fname)
        fpath = untar_path + ".tar.gz"
    else:
        fpath = os.path.join(datadir, fname)

    cached = os.path.exists(fpath) and not force_download
    if cached and file_hash is not None and not _hash_matches(fpath, file_hash,
                                                               hash_algorithm):
        cached = False  # stale or corrupt: Keras downloads it again
    if not cached:
        _download(origin, fpath, file_hash, hash_algorithm)

    if untar:
        if not os.path.exists(untar_path):
            _extract(fpath, datadir, "tar")
        return untar_path
    if extract:
        _extract(fpath, datadir, archive_format)
    return fpath


def _cache_folder(cache_dir, cache_subdir):
    base = os.path.expanduser(os.fspath(cache_dir) if cache_dir else os.path.join("~", ".keras"))
    if cache_dir is None and not os.access(base if os.path.exists(base)
                                           else os.path.dirname(base), os.W_OK):
        base = os.path.join(tempfile.gettempdir(), ".keras")  # Keras's fallback
    folder = os.path.join(base, cache_subdir or "")
    os.makedirs(folder, exist_ok=True)
    return folder


def _hasher(file_hash, algorithm):
    if algorithm == "auto":
        algorithm = "sha256" if len(file_hash) == 64 else "md5"
    if algorithm not in ("sha256", "md5"):
        raise ValueError(f"hash_algorithm must be 'sha256', 'md5' or 'auto', got {algorithm!r}.")
    return algorithm, hashlib.new(algorithm)


def _hash_matches(path, file_hash, algorithm):
    _, digest = _hasher(file_hash, algorithm)
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(_CHUNK), b""):
            digest.update(chunk)
    return digest.hexdigest() == str(file_hash)


def _download(origin, fpath, file_hash, algorithm):
    import urllib.error
    import urllib.request  # imported here: it pulls in http and ssl

    folder = os.path.dirname(fpath)
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(fpath)}.", suffix=".part",
                               dir=folder)
    try:
        try:
            with urllib.request.urlopen(origin, timeout=_TIMEOUT) as response, \
                    os.fdopen(fd, "wb") as out:
                for chunk in iter(lambda: response.read(_CHUNK), b""):
                    out.write(chunk)
                out.flush()
                os.fsync(out.fileno())
        except (urllib.error.URLError, OSError, ValueError) as error:
            reason = getattr(error, "reason", error)
            raise OSError(f"URL fetch failure on {origin}: {reason}. To work offline, download "
                          f"it elsewhere and put it at {fpath}.") from error
        if file_hash is not None and not _hash_matches(tmp, file_hash, algorithm):
            name, _ = _hasher(file_hash, algorithm)
            raise ValueError(f"Incomplete or corrupted file detected. The {name} file hash "
                             f"does not match the provided value of {file_hash}.")
        os.replace(tmp, fpath)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)


def _extract(path, folder, archive_format):
    """Extract a tar or zip archive into `folder` (Keras's 'auto' tries both)."""
    formats = ["tar", "zip"] if archive_format == "auto" else (
        [archive_format] if isinstance(archive_format, str) else list(archive_format or []))
    for kind in formats:
        if kind == "tar" and tarfile.is_tarfile(path):
            with tarfile.open(path) as archive:
                archive.extractall(folder, filter="data")
            return True
        if kind == "zip" and zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                archive.extractall(folder)
            return True
    return False
