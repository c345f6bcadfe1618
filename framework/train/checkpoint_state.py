"""checkpoint_state.py owns the `checkpoint` state file of a checkpoint directory
(TF's text format: `model_checkpoint_path: "ckpt-3"`, one
`all_model_checkpoint_paths:` line per kept checkpoint, their timestamps) and
what reads it: `tf.train.get_checkpoint_state`, `tf.train.latest_checkpoint`.
Which checkpoints to keep is checkpoint_manager.py's."""

import json
import logging
import os

from .checkpoint_file import atomic_write, index_path

__all__ = ["CheckpointState", "get_checkpoint_state", "latest_checkpoint",
           "update_checkpoint_state"]

_log = logging.getLogger("tapeflow")
_STATE_FILE = "checkpoint"


class CheckpointState:
    """The content of a directory's `checkpoint` file, as TF's CheckpointState proto."""

    def __init__(self, model_checkpoint_path="", all_model_checkpoint_paths=(),
                 all_model_checkpoint_timestamps=(), last_preserved_timestamp=0.0):
        self.model_checkpoint_path = model_checkpoint_path
        self.all_model_checkpoint_paths = list(all_model_checkpoint_paths)
        self.all_model_checkpoint_timestamps = list(all_model_checkpoint_timestamps)
        self.last_preserved_timestamp = last_preserved_timestamp

    def __repr__(self):
        lines = [f"model_checkpoint_path: {json.dumps(self.model_checkpoint_path)}"]
        lines += [f"all_model_checkpoint_paths: {json.dumps(p)}"
                  for p in self.all_model_checkpoint_paths]
        lines += [f"all_model_checkpoint_timestamps: {t!r}"
                  for t in self.all_model_checkpoint_timestamps]
        if self.last_preserved_timestamp:  # the text format leaves out default values
            lines.append(f"last_preserved_timestamp: {self.last_preserved_timestamp!r}")
        return "\n".join(lines) + "\n"


def _parse(text, path):
    state = CheckpointState()
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line:
            continue
        field, sep, value = line.partition(":")
        value = value.strip()
        try:
            if field in ("model_checkpoint_path", "all_model_checkpoint_paths"):
                value = json.loads(value)
                if not isinstance(value, str):
                    raise ValueError(value)
            else:
                value = float(value)
        except ValueError:
            raise ValueError(f"{path}, line {number}: cannot read {line!r} as a checkpoint "
                             "state entry.") from None
        if field == "model_checkpoint_path":
            state.model_checkpoint_path = value
        elif field == "all_model_checkpoint_paths":
            state.all_model_checkpoint_paths.append(value)
        elif field == "all_model_checkpoint_timestamps":
            state.all_model_checkpoint_timestamps.append(value)
        elif field == "last_preserved_timestamp":
            state.last_preserved_timestamp = value
    return state


def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The CheckpointState of `checkpoint_dir`'s state file, or None when it has none.

    Relative paths in the file are joined to `checkpoint_dir`, as TF does.

    Raises:
        ValueError: for a state file that cannot be parsed, naming it.
    """
    checkpoint_dir = os.fspath(checkpoint_dir)
    path = os.path.join(checkpoint_dir, latest_filename or _STATE_FILE)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
        return None
    state = _parse(text, path)
    if not state.model_checkpoint_path:
        raise ValueError(f"Invalid checkpoint state loaded from {checkpoint_dir}: it names no "
                         "model_checkpoint_path.")

    def absolute(p):
        return p if os.path.isabs(p) else os.path.join(checkpoint_dir, p)

    state.model_checkpoint_path = absolute(state.model_checkpoint_path)
    state.all_model_checkpoint_paths = [absolute(p) for p in state.all_model_checkpoint_paths]
    return state


def update_checkpoint_state(save_dir, model_checkpoint_path, all_model_checkpoint_paths=None,
                            all_model_checkpoint_timestamps=None,
                            last_preserved_timestamp=None):
    """Write `save_dir`'s state file (atomically), paths relative to `save_dir`."""
    save_dir = os.fspath(save_dir) or "."

    def relative(p):
        return os.path.relpath(p, save_dir) if os.path.dirname(p) or os.path.isabs(p) else p

    paths = list(all_model_checkpoint_paths or ())
    if model_checkpoint_path not in paths:
        paths.append(model_checkpoint_path)
    state = CheckpointState(relative(model_checkpoint_path), [relative(p) for p in paths],
                            list(all_model_checkpoint_timestamps or ()),
                            last_preserved_timestamp or 0.0)
    data = repr(state).encode("utf-8")
    atomic_write(os.path.join(save_dir, _STATE_FILE), lambda f: f.write(data))


def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint in `checkpoint_dir`, or None.

    Reads the directory's `checkpoint` state file (written by
    `Checkpoint.save` and `CheckpointManager.save`); None when there is no
    state file or the checkpoint it names is gone.

    >>> tf.train.latest_checkpoint("./tf_ckpts")   # doctest: +SKIP
    './tf_ckpts/ckpt-3'
    """
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state is None:
        return None
    if os.path.isfile(index_path(state.model_checkpoint_path)):
        return state.model_checkpoint_path
    _log.error("Couldn't match files for checkpoint %s", state.model_checkpoint_path)
    return None
