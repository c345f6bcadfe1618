"""file_writers.py owns the callbacks that write files during training:
`ModelCheckpoint` (model or weights saves), `CSVLogger` (one row per epoch)
and `BackupAndRestore` (resumable training state), all written through
runtime/atomic_files.py (temporary file, fsync, rename). The callbacks reach the model
only through `save`/`save_weights`/`load_weights`, as each docstring says."""

import csv
import hashlib
import io
import json
import os
import re
import warnings

import numpy as np

from ..runtime.atomic_files import atomic_write, remove_stale_temporaries
from .base import Callback, _message, _scalar
from ..core.tensor import Tensor

__all__ = ["ModelCheckpoint", "CSVLogger", "BackupAndRestore"]


class ModelCheckpoint(Callback):
    """Save the model (or its weights) every epoch, or every `save_freq` batches.

    Args:
        filepath: a path template formatted with `epoch` (1-based), `batch`
            and the log values, e.g. 'ckpt/{epoch:02d}-{val_loss:.2f}.weights.npz'.
        monitor, mode: the quantity for `save_best_only` ('val_loss', 'auto').
        save_best_only: save only when `monitor` improves on the best so far.
        save_weights_only: call `model.save_weights(path)` instead of `model.save(path)`.
        save_freq: 'epoch' or a number of batches.
        initial_value_threshold: the value the first save must beat.

    Needs: `model.save(path)` / `model.save_weights(path)` writing `path` atomically.

    Raises:
        KeyError: when the template names a key the logs do not have.
    """

    chief_only = True  # distributed training: only rank 0 writes (training/loops.py)

    def __init__(self, filepath, monitor="val_loss", verbose=0, save_best_only=False,
                 save_weights_only=False, mode="auto", save_freq="epoch",
                 initial_value_threshold=None):
        super().__init__()
        self.filepath = os.fspath(filepath)
        self.monitor = monitor
        self.verbose = verbose
        self.save_best_only = save_best_only
        self.save_weights_only = save_weights_only
        if save_freq != "epoch" and not (isinstance(save_freq, int) and save_freq > 0):
            raise ValueError(f"Unrecognized save_freq: {save_freq!r}. Expected 'epoch' or a "
                             "positive integer number of batches.")
        self.save_freq = save_freq
        if mode not in ("auto", "min", "max"):
            warnings.warn(f"ModelCheckpoint mode {mode!r} is unknown, fallback to auto mode.",
                          stacklevel=2)
            mode = "auto"
        if mode == "auto":  # Keras's rule for checkpoints
            mode = "max" if "acc" in monitor or monitor.startswith("fmeasure") else "min"
        self.monitor_op = np.less if mode == "min" else np.greater
        if initial_value_threshold is not None:
            self.best = float(initial_value_threshold)
        else:
            self.best = np.inf if mode == "min" else -np.inf
        self._batches_seen = 0
        self._current_epoch = 0

    def on_epoch_begin(self, epoch, logs=None):
        self._current_epoch = epoch

    def on_train_batch_end(self, batch, logs=None):
        if self.save_freq != "epoch":
            self._batches_seen += 1
            if self._batches_seen % self.save_freq == 0:
                self._save(self._current_epoch, batch, logs)

    def on_epoch_end(self, epoch, logs=None):
        if self.save_freq == "epoch":
            self._save(epoch, None, logs)

    def _file_path(self, epoch, batch, logs):
        values = {k: (_scalar(v) if _scalar(v) is not None else v) for k, v in logs.items()}
        try:
            if batch is None or "batch" in values:
                return self.filepath.format(epoch=epoch + 1, **values)
            return self.filepath.format(epoch=epoch + 1, batch=batch + 1, **values)
        except KeyError as error:
            raise KeyError(f'Failed to format this callback filepath: "{self.filepath}". '
                           f"Reason: the logs have no key {error}; available: "
                           f"{sorted(values)}") from None

    def _write(self, path):
        directory = os.path.dirname(path)
        if directory:
            os.makedirs(directory, exist_ok=True)
        if self.save_weights_only:
            self.model.save_weights(path)
        else:
            self.model.save(path)

    def _save(self, epoch, batch, logs):
        logs = logs or {}
        path = self._file_path(epoch, batch, logs)
        if not self.save_best_only:
            if self.verbose > 0:
                _message(f"\nEpoch {epoch + 1}: saving model to {path}")
            self._write(path)
            return
        current = _scalar(logs.get(self.monitor))
        if current is None:
            warnings.warn(f"Can save best model only with {self.monitor} available, skipping.",
                          stacklevel=2)
            return
        if self.monitor_op(current, self.best):
            if self.verbose > 0:
                _message(f"\nEpoch {epoch + 1}: {self.monitor} improved from {self.best:.5f} "
                         f"to {current:.5f}, saving model to {path}")
            self.best = current
            self._write(path)
        elif self.verbose > 0:
            _message(f"\nEpoch {epoch + 1}: {self.monitor} did not improve from "
                     f"{self.best:.5f}")


class CSVLogger(Callback):
    """Append one CSV row of the epoch logs per epoch ('epoch' first, then sorted keys).

    Each row is written with a single write, then flushed and fsync'ed, so an
    interrupted run leaves only whole lines.

    Args:
        filename: the CSV file.
        separator: the field separator (',').
        append: continue an existing file (no second header) instead of overwriting.
    """

    chief_only = True

    def __init__(self, filename, separator=",", append=False):
        super().__init__()
        self.filename = os.fspath(filename)
        self.sep = separator
        self.append = append
        self.keys = None
        self._file = None
        self._write_header = True

    def on_train_begin(self, logs=None):
        mode = "w"
        self._write_header = True
        if self.append:
            mode = "a"
            if os.path.exists(self.filename):
                with open(self.filename) as f:
                    self._write_header = not bool(f.readline())
        self.keys = None
        self._file = open(self.filename, mode, newline="")

    def _row(self, values):
        buffer = io.StringIO()
        csv.writer(buffer, delimiter=self.sep, lineterminator="\n").writerow(values)
        self._file.write(buffer.getvalue())
        self._file.flush()
        os.fsync(self._file.fileno())

    @staticmethod
    def _cell(value):
        scalar = _scalar(value)
        if scalar is not None:
            return repr(int(scalar)) if isinstance(value, (int, np.integer)) else repr(scalar)
        if isinstance(value, str):
            return value
        if isinstance(value, (list, tuple, np.ndarray, Tensor)):
            return f"[{', '.join(map(str, np.ravel(np.asarray(value))))}]"
        return str(value)

    def on_epoch_end(self, epoch, logs=None):
        logs = logs or {}
        if self._file is None:
            self.on_train_begin()
        if self.keys is None:
            self.keys = sorted(logs)
            if self.keys and not any(k.startswith("val_") for k in self.keys):
                # As Keras: validation may start later (validation_freq), so keep its columns.
                self.keys.extend("val_" + k for k in list(self.keys))
            if self._write_header:
                self._row(["epoch"] + self.keys)
        self._row([str(epoch)] + [self._cell(logs.get(k, "NA")) for k in self.keys])

    def on_train_end(self, logs=None):
        if self._file is not None:
            self._file.close()
            self._file = None


class BackupAndRestore(Callback):
    """Back up training state each epoch so an interrupted `fit` resumes where it stopped.

    A backup is one weights file, `<backup_dir>/epoch-<N>.weights.npz`
    (`model.save_weights` after N epochs, optimizer state included), named by a
    manifest, `<backup_dir>/training_metadata.json` ({"epoch": N, "weights": its
    name, "size" and "sha256" of its bytes}). Both are written atomically, the
    manifest last: the backup is whatever the manifest names, so a process killed
    at any moment leaves the previous backup or the new one, never a mix.

    The weights of epoch N are written at its end; the manifest naming them is
    committed when epoch N+1 begins (or when training ends), once every other
    callback has finished epoch N: a kill in between resumes at N-1 and runs epoch
    N again, ModelCheckpoint's and CSVLogger's writes included, instead of skipping
    them. Older weights files and temporary files left by killed writers are then
    removed.

    At `on_train_begin`, if a backup exists, its weights file is checked against the
    manifest (present, same size and SHA-256), loaded with `model.load_weights`, and
    `model._initial_epoch` is set to N. After a `fit` that completes, the backup is
    deleted (`delete_checkpoint=True`), the manifest first.

    Contract with the model (as Keras 3):
      - `save_weights(path)` / `load_weights(path)` include the optimizer's
        state (slot variables and iterations) when the model is compiled, so
        that resuming is exact; the restore happens in place, on the model
        being fit (which is why `load_model`, returning a new model, is not used);
      - `fit` calls `callbacks.on_train_begin()` first, then starts from
        `model._initial_epoch` if that is set (clearing it afterwards).

    Args:
        backup_dir: the directory for the backup files.
        delete_checkpoint: remove the backup when training ends normally.

    Raises:
        ValueError: at `on_train_begin`, when the backup is damaged (a manifest that
            is not one, or that names weights that are missing or differ), saying
            what was found; delete `backup_dir` to start over.
    """

    METADATA_NAME = "training_metadata.json"
    LEGACY_WEIGHTS_NAME = "latest.weights.npz"  # the layout before issue 19 (and its
    # manifest's temporary, METADATA_NAME + ".tmp", which a kill could leave)
    _FORMAT = "tapeflow-backup-2"
    _WEIGHTS = re.compile(r"^epoch-\d+\.weights\.npz$")

    # Distributed training: every rank restores, only rank 0 writes (training/loops.py).
    writes_backups = True

    def __init__(self, backup_dir, save_freq="epoch", delete_checkpoint=True):
        super().__init__()
        if not backup_dir:
            raise ValueError("Empty `backup_dir` argument passed")
        if save_freq != "epoch":
            raise ValueError(f"BackupAndRestore supports save_freq='epoch' only, got "
                             f"{save_freq!r}.")
        self.backup_dir = os.fspath(backup_dir)
        self.save_freq = save_freq
        self.delete_checkpoint = delete_checkpoint
        self._metadata_path = os.path.join(self.backup_dir, self.METADATA_NAME)
        self._pending = None  # (epochs done, weights file name) written, not yet committed

    # -- reading ---------------------------------------------------------------------
    def _damaged(self, found):
        return ValueError(f"BackupAndRestore: the backup in {self.backup_dir!r} is damaged: "
                          f"{found}. It was not written by an interrupted run (those leave "
                          f"the previous backup intact); delete {self.backup_dir!r} to start "
                          "training over, or restore the missing file.")

    def _read_backup(self):
        """(epochs done, weights path) of the committed backup, or None; checks it first."""
        if not os.path.exists(self._metadata_path):
            return None
        try:
            with open(self._metadata_path) as f:
                metadata = json.load(f)
            epoch = int(metadata["epoch"])
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise self._damaged(f"{self.METADATA_NAME} is not a backup manifest ({error})") \
                from None
        if metadata.get("format") != self._FORMAT:  # written before issue 19
            path = os.path.join(self.backup_dir, self.LEGACY_WEIGHTS_NAME)
            if os.path.exists(path):
                return epoch, path
            warnings.warn(f"BackupAndRestore: {self._metadata_path} (epoch {epoch}) has no "
                          f"weights beside it ({self.LEGACY_WEIGHTS_NAME}): left by a clean-up "
                          "interrupted at the end of a completed fit. Ignoring it and "
                          "starting from epoch 0.", stacklevel=3)
            os.remove(self._metadata_path)
            return None
        name = metadata.get("weights")
        if not isinstance(name, str) or not self._WEIGHTS.match(name):
            raise self._damaged(f"{self.METADATA_NAME} names no weights file ({name!r})")
        path = os.path.join(self.backup_dir, name)
        if not os.path.exists(path):
            raise self._damaged(f"{self.METADATA_NAME} (epoch {epoch}) names {name}, which "
                                "does not exist")
        size, digest = _size_and_sha256(path)
        if (size, digest) != (metadata.get("size"), metadata.get("sha256")):
            raise self._damaged(f"{name} has {size} bytes with SHA-256 {digest[:12]}..., but "
                                f"{self.METADATA_NAME} recorded {metadata.get('size')} bytes "
                                f"with SHA-256 {str(metadata.get('sha256'))[:12]}...")
        return epoch, path

    def on_train_begin(self, logs=None):
        self._pending = None
        backup = self._read_backup()
        if self.writes_backups:
            self._remove_uncommitted(keep=backup and os.path.basename(backup[1]))
        if backup is not None:
            self.model.load_weights(backup[1])
            self.model._initial_epoch = backup[0]

    # -- writing ---------------------------------------------------------------------
    def _remove_uncommitted(self, keep=None):
        """Remove weights files other than `keep`, and killed writers' temporaries."""
        if not os.path.isdir(self.backup_dir):
            return
        remove_stale_temporaries(self.backup_dir)
        for name in os.listdir(self.backup_dir):
            if name != keep and (self._WEIGHTS.match(name) or name in (
                    self.LEGACY_WEIGHTS_NAME, self.METADATA_NAME + ".tmp")):
                os.remove(os.path.join(self.backup_dir, name))

    def _commit(self):
        epoch, name = self._pending
        size, digest = _size_and_sha256(os.path.join(self.backup_dir, name))
        manifest = json.dumps({"format": self._FORMAT, "epoch": epoch, "weights": name,
                               "size": size, "sha256": digest}).encode()
        atomic_write(self._metadata_path, lambda f: f.write(manifest))
        self._pending = None
        self._remove_uncommitted(keep=name)

    def on_epoch_begin(self, epoch, logs=None):
        if self._pending is not None:
            self._commit()

    def on_epoch_end(self, epoch, logs=None):
        if not self.writes_backups:
            return
        os.makedirs(self.backup_dir, exist_ok=True)
        name = f"epoch-{epoch + 1:06d}.weights.npz"
        self.model.save_weights(os.path.join(self.backup_dir, name))
        self._pending = (epoch + 1, name)

    def on_train_end(self, logs=None):
        if not self.writes_backups:
            return
        if not self.delete_checkpoint:
            if self._pending is not None:
                self._commit()
            return
        self._pending = None
        # The manifest goes first: from then on there is no backup, whatever remains.
        if os.path.exists(self._metadata_path):
            os.remove(self._metadata_path)
        self._remove_uncommitted()
        try:
            os.rmdir(self.backup_dir)
        except OSError:
            pass  # not empty (the user keeps other files there) or already gone


def _size_and_sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return os.path.getsize(path), digest.hexdigest()
