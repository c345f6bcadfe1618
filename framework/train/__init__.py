"""tf.train: object-based checkpoints (`Checkpoint`, `CheckpointManager`), the
directory state file (`latest_checkpoint`, `get_checkpoint_state`) and reading
values by key (`load_checkpoint`, `list_variables`, `load_variable`). Files are
tapeflow's own format (checkpoint_file.py), not readable by TF. The Example
protos (`Example`, `Features`, `Feature`, ...) are in example.py, with TF's bytes."""

from .checkpoint import Checkpoint, CheckpointOptions
from .checkpoint_file import CheckpointReader
from .checkpoint_manager import CheckpointManager
from .checkpoint_state import CheckpointState, get_checkpoint_state, latest_checkpoint
from .checkpoint_manager import list_variables, load_checkpoint, load_variable
from .example import (BytesList, Example, Feature, FeatureList, FeatureLists, Features,
                      FloatList, Int64List, SequenceExample)

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointOptions", "CheckpointReader",
           "CheckpointState", "get_checkpoint_state", "latest_checkpoint", "load_checkpoint",
           "list_variables", "load_variable", "Example", "SequenceExample", "Features",
           "Feature", "FeatureList", "FeatureLists", "BytesList", "FloatList", "Int64List"]


def __getattr__(name):
    raise AttributeError(f"module 'tapeflow.train' has no attribute {name!r}: tf.train.{name} is "
                         f"not implemented in tapeflow; tf.train has {', '.join(__all__)}.")
