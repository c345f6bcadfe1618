"""saving.py holds `Dataset.save` and `Dataset.load`: a dataset's elements and
element_spec written to a directory and read back, in tapeflow's own format
(one pickle of NumPy values, optionally GZIP-compressed, written atomically);
TF's snapshot files are not read or written."""

import gzip
import os
import pickle

from ..core.errors import InvalidArgumentError, NotFoundError
from ..runtime.atomic_files import atomic_write

__all__ = ["Saving"]

_FILE = "tapeflow-dataset.pickle"


class Saving:
    """save and load (a mixin of Dataset)."""

    def save(self, path, compression=None, shard_func=None, checkpoint_args=None):
        """Write every element and the element_spec under the directory `path`
        (iterating the dataset once: an infinite one never ends, as in TF).
        `compression` is None or "GZIP"; `shard_func` and `checkpoint_args` are
        accepted and unused (one file, written when complete). The file is
        tapeflow's and `load` unpickles it: load only what your programs saved.

        Raises:
            tf.errors.InvalidArgumentError: for a compression other than GZIP.
        """
        compression = (compression or "").upper()
        if compression not in ("", "GZIP"):
            raise InvalidArgumentError(f"Dataset.save: compression must be None or 'GZIP', "
                                       f"got {compression!r}.")
        record = {"element_spec": self.element_spec, "elements": list(self._iterate())}

        def write(f):
            if compression == "GZIP":
                with gzip.GzipFile(fileobj=f, mode="wb") as out:
                    pickle.dump(record, out, pickle.HIGHEST_PROTOCOL)
            else:
                pickle.dump(record, f, pickle.HIGHEST_PROTOCOL)

        atomic_write(os.path.join(os.fspath(path), _FILE), write)

    @classmethod
    def load(cls, path, element_spec=None, compression=None, reader_func=None):
        """The dataset `save` wrote under `path` (read into memory at once; a
        GZIP file is recognised by itself, so `compression` may be left out).

        Raises:
            tf.errors.NotFoundError: if `path` holds no saved dataset.
        """
        name = os.path.join(os.fspath(path), _FILE)
        if not os.path.exists(name):
            raise NotFoundError(f"Could not find a dataset saved by Dataset.save in {path} "
                                f"(no {_FILE}).")
        with open(name, "rb") as f:
            gzipped = f.read(2) == b"\x1f\x8b"
        with (gzip.open if gzipped else open)(name, "rb") as f:
            record = pickle.load(f)
        elements = record["elements"]
        return cls._new(lambda: iter(elements), len(elements),
                        record["element_spec"] if element_spec is None else element_spec,
                        "_LoadDataset")
