"""checkpoint_file.py owns tapeflow's checkpoint file: one archive per
checkpoint prefix, `<prefix>.index`, written atomically, and `CheckpointReader`
(`tf.train.load_checkpoint`, `list_variables`, `load_variable`) over it. What
goes into the archive (the object graph, the keys) is checkpoint.py's.

The format is tapeflow's own, not TF's TensorBundle: a NumPy .npz archive (read
with allow_pickle=False, so loading a file never runs code) holding one array
per key plus the object graph as JSON. TF cannot read these files and tapeflow
cannot read TF's; the keys are TF's ('net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE')
so code that inspects checkpoints by key works the same."""

import json
import os
import zipfile

import numpy as np

from ..core import dtypes
from ..core.errors import NotFoundError
from ..runtime.atomic_files import atomic_write

__all__ = ["CheckpointReader", "write_checkpoint", "read_checkpoint", "index_path",
           "atomic_write"]

FORMAT = "tapeflow-checkpoint-1"
_GRAPH_KEY = "__object_graph__"
_FORMAT_KEY = "__format__"
_SSTABLE_MAGIC = (0xdb4775248b80fb57).to_bytes(8, "little")  # the end of TF's .index files


def index_path(prefix):
    """The one file of the checkpoint at `prefix` (TF's name for its index file)."""
    return os.fspath(prefix) + ".index"


def write_checkpoint(prefix, arrays, graph):
    """Write `arrays` (key -> ndarray) and `graph` (JSON-able) to `<prefix>.index`."""
    members = {_FORMAT_KEY: np.array(FORMAT), _GRAPH_KEY: np.array(json.dumps(graph))}
    for key, value in arrays.items():
        if value.dtype.kind not in "biufc":
            raise ValueError(f"Cannot save the checkpoint value {key!r} of dtype {value.dtype}: "
                             "tapeflow checkpoints hold numeric and boolean values only.")
        members[key] = value
    # Straight into the temporary file: no second copy of the values in memory.
    atomic_write(index_path(prefix), lambda f: np.savez(f, **members))


def read_checkpoint(prefix):
    """(arrays, graph) of the checkpoint at `prefix`.

    Raises:
        NotFoundError: naming the path when there is no checkpoint there.
        ValueError: for a truncated, corrupted or foreign file, naming it.
    """
    prefix = os.fspath(prefix)
    path = index_path(prefix)
    if not os.path.isfile(path):
        hint = ""
        if os.path.isdir(prefix):
            hint = (" It is a directory: pass a checkpoint prefix, e.g. "
                    "tf.train.latest_checkpoint(directory).")
        elif os.path.exists(prefix):
            hint = " A file of that name exists, but it is not a tapeflow checkpoint prefix."
        raise NotFoundError(f"Failed to find any matching files for {prefix} (no checkpoint "
                            f"file {path}).{hint}")
    try:
        with np.load(path, allow_pickle=False) as npz:
            arrays = {k: npz[k] for k in npz.files}
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as error:
        if _is_tensorflow_index(path):
            raise ValueError(f"{prefix} is a TensorFlow checkpoint (TensorBundle): tapeflow "
                             "reads only its own checkpoints, not TF's. Restore it with "
                             "TensorFlow, or save the values again with tapeflow.") from None
        raise ValueError(f"Cannot read the checkpoint {path}: the file is truncated, corrupted "
                         f"or not a tapeflow checkpoint ({error}).") from None
    if _FORMAT_KEY not in arrays or str(arrays.pop(_FORMAT_KEY)) != FORMAT:
        raise ValueError(f"{path} is not a tapeflow checkpoint (no {_FORMAT_KEY!r} entry "
                         f"{FORMAT!r}); TF's own checkpoints cannot be read by tapeflow.")
    graph = json.loads(str(arrays.pop(_GRAPH_KEY)))
    return arrays, graph


def _is_tensorflow_index(path):
    """Whether `path` ends with the magic number of TF's index files (SSTables)."""
    try:
        with open(path, "rb") as f:
            f.seek(-8, os.SEEK_END)
            return f.read(8) == _SSTABLE_MAGIC
    except OSError:
        return False


class CheckpointReader:
    """The values of a checkpoint by key, as `tf.train.load_checkpoint` returns.

    Args:
        prefix: a checkpoint prefix ('ckpts/ckpt-3').

    Raises:
        NotFoundError: when there is no checkpoint at `prefix`.
    """

    def __init__(self, prefix):
        self._prefix = os.fspath(prefix)
        self._arrays, _ = read_checkpoint(self._prefix)

    def get_tensor(self, tensor_str):
        """The value saved under the key `tensor_str`, as an ndarray.

        Raises:
            NotFoundError: for a key the checkpoint does not have, naming it.
        """
        try:
            return np.array(self._arrays[tensor_str])
        except KeyError:
            raise NotFoundError(f"Key {tensor_str} not found in checkpoint "
                                f"{self._prefix}.") from None

    def has_tensor(self, tensor_str):
        return tensor_str in self._arrays

    def get_variable_to_shape_map(self):
        """Key -> shape (a list of ints) of every saved value."""
        return {k: list(v.shape) for k, v in self._arrays.items()}

    def get_variable_to_dtype_map(self):
        """Key -> DType of every saved value."""
        return {k: dtypes.as_dtype(v.dtype) for k, v in self._arrays.items()}

    def __repr__(self):
        return f"<CheckpointReader {self._prefix!r}: {len(self._arrays)} values>"
