"""tf.train: object-based checkpoints (`Checkpoint`, `CheckpointManager`), the
directory state file (`latest_checkpoint`, `get_checkpoint_state`) and reading
values by key (`load_checkpoint`, `list_variables`, `load_variable`). Files are
tapeflow's own format (checkpoint_file.py), not readable by TF."""

from .checkpoint import Checkpoint
from .checkpoint_file import CheckpointReader
from .checkpoint_manager import CheckpointManager
from .checkpoint_state import CheckpointState, get_checkpoint_state, latest_checkpoint
from .checkpoint_manager import list_variables, load_checkpoint, load_variable

__all__ = ["Checkpoint", "CheckpointManager", "CheckpointReader", "CheckpointState",
           "get_checkpoint_state", "latest_checkpoint", "load_checkpoint", "list_variables",
           "load_variable"]
