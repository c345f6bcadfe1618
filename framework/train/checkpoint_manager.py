"""checkpoint_manager.py owns `tf.train.CheckpointManager` (numbered saves of
one Checkpoint into a directory, keeping the newest `max_to_keep`, recorded in
the directory's state file) and the readers by directory or prefix:
`load_checkpoint`, `list_variables`, `load_variable`."""

import collections
import os
import time

from ..core.errors import NotFoundError
from .checkpoint_file import CheckpointReader, index_path
from .checkpoint_state import get_checkpoint_state, latest_checkpoint, update_checkpoint_state

__all__ = ["CheckpointManager", "load_checkpoint", "list_variables", "load_variable"]


class CheckpointManager:
    """Save numbered checkpoints of `checkpoint` into `directory`, keeping the newest.

    The list of kept checkpoints lives in the directory's `checkpoint` state
    file (TF's text format), so a manager made later over the same directory
    continues it: `latest_checkpoint` and `checkpoints` are read back and old
    checkpoints are still deleted in order.

    Args:
        checkpoint: the `tf.train.Checkpoint` to save.
        directory: where to write ('<directory>/<checkpoint_name>-<n>.index').
        max_to_keep: how many checkpoints to keep (None: all).
        keep_checkpoint_every_n_hours: additionally keep one checkpoint per
            this many hours among those `max_to_keep` would delete.
        checkpoint_name: the prefix of the files' names.
        step_counter, checkpoint_interval: with both, `save` skips saves
            fewer than `checkpoint_interval` steps after the last one.
        init_fn: called by `restore_or_initialize` when there is no checkpoint.

    Raises:
        ValueError: for `max_to_keep` <= 0, or `checkpoint_interval` without
            `step_counter`.
    """

    def __init__(self, checkpoint, directory, max_to_keep, keep_checkpoint_every_n_hours=None,
                 checkpoint_name="ckpt", step_counter=None, checkpoint_interval=None,
                 init_fn=None):
        if max_to_keep is not None and max_to_keep <= 0:
            raise ValueError(f"Expected a positive integer or `None` for `max_to_keep`, got "
                             f"{max_to_keep}.")
        if checkpoint_interval is not None and step_counter is None:
            raise ValueError("`step_counter` should be passed if `checkpoint_interval` is not "
                             "None.")
        self._checkpoint = checkpoint
        self._directory = os.fspath(directory)
        self._max_to_keep = max_to_keep
        self._keep_checkpoint_every_n_hours = keep_checkpoint_every_n_hours
        self._prefix = os.path.join(self._directory, checkpoint_name)
        self._step_counter = step_counter
        self._checkpoint_interval = checkpoint_interval
        self._init_fn = init_fn
        self._last_checkpoint_step = None
        self._maybe_delete = collections.OrderedDict()
        now = time.time()
        state = get_checkpoint_state(self._directory)
        if state is None:
            self._latest_checkpoint = None
            self._last_preserved_timestamp = now - 1.0
            return
        self._latest_checkpoint = state.model_checkpoint_path
        self._last_preserved_timestamp = min(state.last_preserved_timestamp, now)
        timestamps = state.all_model_checkpoint_timestamps
        if len(timestamps) != len(state.all_model_checkpoint_paths):
            timestamps = [self._last_preserved_timestamp] * len(state.all_model_checkpoint_paths)
        for path, stamp in zip(state.all_model_checkpoint_paths, timestamps):
            stamp = min(stamp, now)
            if stamp > self._last_preserved_timestamp:
                self._maybe_delete[path] = stamp

    @property
    def directory(self):
        return self._directory

    @property
    def checkpoint(self):
        return self._checkpoint

    @property
    def checkpoint_interval(self):
        return self._checkpoint_interval

    @property
    def latest_checkpoint(self):
        """The prefix of the newest checkpoint, or None when none was written."""
        return self._latest_checkpoint

    @property
    def checkpoints(self):
        """The prefixes of the checkpoints kept (and deletable), oldest first."""
        return list(self._maybe_delete)

    def save(self, checkpoint_number=None, check_interval=True, options=None):
        """Write a new checkpoint, delete those beyond `max_to_keep`; returns its prefix.

        Args:
            checkpoint_number: the number in its name; by default the
                checkpoint's `save_counter` after incrementing it.
            check_interval: with `checkpoint_interval`, skip (return None) when
                too few steps passed since the last save.
        """
        if self._checkpoint_interval is not None:
            step = int(self._step_counter.numpy())
            if (check_interval and self._last_checkpoint_step is not None
                    and step < self._last_checkpoint_step + self._checkpoint_interval):
                return None
            self._last_checkpoint_step = step
        counter = self._checkpoint.save_counter
        counter.assign_add(1)
        if checkpoint_number is None:
            checkpoint_number = int(counter._value)
        elif not isinstance(checkpoint_number, int):
            checkpoint_number = int(getattr(checkpoint_number, "numpy", lambda: checkpoint_number)())
        path = self._checkpoint.write(f"{self._prefix}-{checkpoint_number}")
        self._maybe_delete.pop(path, None)  # a rewritten number moves to the end
        self._maybe_delete[path] = time.time()
        self._latest_checkpoint = path
        # The state names the new checkpoint before anything is deleted, so a kill
        # during the deletions loses no record of it.
        self._record_state()
        self._sweep()
        self._record_state()
        return path

    def _record_state(self):
        update_checkpoint_state(self._directory, self._latest_checkpoint,
                                list(self._maybe_delete), list(self._maybe_delete.values()),
                                self._last_preserved_timestamp)

    def _sweep(self):
        if self._max_to_keep is None:
            return
        while len(self._maybe_delete) > self._max_to_keep:
            path, stamp = self._maybe_delete.popitem(last=False)
            hours = self._keep_checkpoint_every_n_hours
            if hours and stamp - hours * 3600.0 >= self._last_preserved_timestamp:
                self._last_preserved_timestamp = stamp
                continue
            try:
                os.remove(index_path(path))
            except FileNotFoundError:
                pass

    def restore_or_initialize(self):
        """Restore the latest checkpoint (returning its prefix), else call `init_fn`."""
        if self._latest_checkpoint is not None:
            self._checkpoint.restore(self._latest_checkpoint)
            return self._latest_checkpoint
        if self._init_fn is not None:
            self._init_fn()
        return None


def _prefix_of(ckpt_dir_or_file):
    path = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(path):
        latest = latest_checkpoint(path)
        if latest is None:
            raise NotFoundError(f"Unsuccessful TensorSliceReader constructor: Failed to find any "
                                f"matching files for {path} (no checkpoint in that directory).")
        return latest
    return path


def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader of a checkpoint prefix, or of a directory's latest checkpoint.

    Raises:
        tf.errors.NotFoundError: naming the path when there is no checkpoint.
    """
    return CheckpointReader(_prefix_of(ckpt_dir_or_file))


def list_variables(ckpt_dir_or_file):
    """(key, shape) of every value in the checkpoint, sorted by key."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(key, shapes[key]) for key in sorted(shapes)]


def load_variable(ckpt_dir_or_file, name):
    """The value saved under `name` (a key; ':0' at the end is ignored) as an ndarray."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)
