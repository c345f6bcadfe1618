"""tf.train: object-based checkpoints (`Checkpoint`, `CheckpointManager`), the
directory state file (`latest_checkpoint`, `get_checkpoint_state`) and reading
values by key (`load_checkpoint`, `list_variables`, `load_variable`). Files are
tapeflow's own format (checkpoint_file.py), not readable by TF."""

from .checkpoint import Checkpoint, CheckpointOptions
from .checkpoint_file import CheckpointReader
from .checkpoint_manager import CheckpointManager
from .checkpoint_state import CheckpointState, get_checkpoint_state, latest_checkpoint
from .checkpoint_manager import list_variables, load_checkpoint, load_variable

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointOptions", "CheckpointReader",
           "CheckpointState", "get_checkpoint_state", "latest_checkpoint", "load_checkpoint",
           "list_variables", "load_variable"]

_PROTOS = frozenset(("Example", "SequenceExample", "Features", "Feature", "FeatureList",
                     "FeatureLists", "BytesList", "FloatList", "Int64List"))


def __getattr__(name):
    if name in _PROTOS:
        raise AttributeError(f"tf.train.{name} is not implemented: tapeflow does not read or "
                             "write TFRecord files or tf.train.Example protos; keep the data as "
                             "NumPy arrays, CSV or image files (see tf.io).")
    raise AttributeError(f"module 'tapeflow.train' has no attribute {name!r}: tf.train.{name} is "
                         f"not implemented in tapeflow; tf.train has {', '.join(__all__)}.")
