"""checkpoint.py owns `tf.train.Checkpoint`: the root of an object graph whose
Variables it saves and restores by attribute path ('net/l1/kernel'). The walk
is graph.py's, the file checkpoint_file.py's, matching and deferred restoration
restore.py's, keeping the last N checkpoints checkpoint_manager.py's."""

import logging
import os

import numpy as np

from ..core.tensor import Variable
from ..module import dependencies_of_attributes, is_trackable, notify_assignment
from .checkpoint_file import index_path, read_checkpoint, write_checkpoint
from .checkpoint_state import update_checkpoint_state
from .graph import optimizer_slots, slot_key, variable_key, walk
from .restore import CheckpointLoadStatus, InitializationOnlyStatus, Restoration

__all__ = ["Checkpoint", "CheckpointOptions"]

_log = logging.getLogger("tapeflow")
_OWN = frozenset(("_root", "_save_counter", "_restorations"))


class ListWrapper(list):
    """A list assigned to a Checkpoint's attribute: items added later are
    restored from a checkpoint read before, as TF's ListWrapper does."""

    def __init__(self, items, owner):
        super().__init__(items)
        self._owner = owner

    def _changed(self):
        notify_assignment(self._owner)

    def append(self, value):
        super().append(value)
        self._changed()

    def extend(self, values):
        super().extend(values)
        self._changed()

    def __iadd__(self, values):
        self.extend(values)
        return self

    def insert(self, index, value):
        super().insert(index, value)
        self._changed()

    def __setitem__(self, index, value):
        super().__setitem__(index, value)
        self._changed()

    def __repr__(self):
        return f"ListWrapper({list.__repr__(self)})"


class DictWrapper(dict):
    """A dict assigned to a Checkpoint's attribute; entries added later are restored."""

    def __init__(self, items, owner):
        super().__init__(items)
        self._owner = owner

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        notify_assignment(self._owner)

    def update(self, *args, **kwargs):
        super().update(*args, **kwargs)
        notify_assignment(self._owner)


class CheckpointOptions:
    """`tf.train.CheckpointOptions`: accepted for compatibility; tapeflow writes on
    the CPU, synchronously, so the options change nothing."""

    def __init__(self, experimental_io_device=None, experimental_enable_async_checkpoint=False,
                 experimental_write_callbacks=None, enable_async=False,
                 experimental_skip_slot_variables=False, experimental_sharding_callback=None):
        self.experimental_io_device = experimental_io_device
        self.enable_async = bool(enable_async or experimental_enable_async_checkpoint)
        self.experimental_write_callbacks = experimental_write_callbacks
        self.experimental_skip_slot_variables = experimental_skip_slot_variables


def _check_trackable(name, value):
    if not is_trackable(value):
        raise ValueError(f"`Checkpoint` was expecting a trackable object (a Variable, tf.Module, "
                         f"Keras layer or model, optimizer or Checkpoint) for {name!r}, got "
                         f"{value!r} of type {type(value).__name__}.")


class Checkpoint:
    """Save and restore the Variables of a group of objects, as `tf.train.Checkpoint`.

    The objects given by keyword (and those they hold in attributes, lists
    and dicts, recursively) form a graph; each Variable is saved under its
    path of attribute names, so another Checkpoint of the same structure --
    a new model and optimizer of the same code -- restores it. Variables that
    do not exist yet when `restore` runs (a Keras model not built, optimizer
    slots before the first `apply_gradients`, attributes assigned later) get
    their values when they are created, as in TF.

    Files are tapeflow's own format (checkpoint_file.py: one archive per
    prefix, `<prefix>.index`, written atomically, values only), not TF's
    TensorBundle: TF cannot read them nor tapeflow TF's. Keys are TF's.

    An iterator that cannot be saved (a Python generator; a tf.data iterator
    saves its position itself, data/) is skipped with a warning and keeps its
    position on restore, where TF raises for an object it cannot track.

    Args:
        root: an object whose dependencies become the checkpoint's own.
        **kwargs: the objects to save, by name (Variables, tf.Modules, Keras
            layers and models, optimizers, other Checkpoints).

    Raises:
        ValueError: for an object a checkpoint cannot save.

    >>> ckpt = tf.train.Checkpoint(step=tf.Variable(1), model=model)  # doctest: +SKIP
    >>> ckpt.save("./ckpts/ckpt")                                     # doctest: +SKIP
    './ckpts/ckpt-1'
    >>> ckpt.restore("./ckpts/ckpt-1").assert_consumed()              # doctest: +SKIP
    """

    def __init__(self, root=None, **kwargs):
        object.__setattr__(self, "_restorations", [])
        object.__setattr__(self, "_save_counter", None)
        if root is not None:
            _check_trackable("root", root)
        object.__setattr__(self, "_root", root)
        for name, value in sorted(kwargs.items()):
            if hasattr(type(value), "__next__") and not is_trackable(value):
                _log.warning("tf.train.Checkpoint: %r is an iterator whose position "
                             "tapeflow cannot save; it is not part of the checkpoint and keeps "
                             "its position on restore.", name)
                object.__setattr__(self, name, value)
                continue
            _check_trackable(name, value)
            setattr(self, name, value)

    def __setattr__(self, name, value):
        if type(value) is list:
            value = ListWrapper(value, self)
        elif type(value) is dict:
            value = DictWrapper(value, self)
        object.__setattr__(self, name, value)
        notify_assignment(self)

    def _checkpoint_dependencies(self):
        found = []
        if self._root is not None:
            found.extend(self._root._checkpoint_dependencies()
                         if not isinstance(self._root, Variable) else [])
        found.extend(dependencies_of_attributes(vars(self), _OWN))
        if self._save_counter is not None:
            found.append(("save_counter", self._save_counter))
        return found

    @property
    def save_counter(self):
        """How many times `save` has run: an int64 Variable, saved with the rest."""
        self._maybe_create_save_counter()
        return self._save_counter

    def _maybe_create_save_counter(self):
        if self._save_counter is None:
            object.__setattr__(self, "_save_counter",
                               Variable(np.int64(0), name="save_counter", trainable=False))
            notify_assignment(self)  # a restore read before may hold its value

    # -- saving --------------------------------------------------------------------------
    def write(self, file_prefix, options=None):
        """Write a checkpoint at `file_prefix` (no numbering, no state file); returns it.

        The file, `<file_prefix>.index`, replaces any old one atomically: a
        save killed at any moment leaves the previous checkpoint readable.
        """
        file_prefix = _check_prefix(file_prefix, "write")
        objects, paths, edges = walk(self)
        index = {id(obj): i for i, obj in enumerate(objects)}
        arrays, nodes = {}, []
        for obj, path, named in zip(objects, paths, edges):
            node = {"path": path, "children": named}
            if isinstance(obj, Variable):
                node["key"] = variable_key(path)
                arrays[node["key"]] = np.array(obj._value)
            nodes.append(node)
        for k, optimizer in enumerate(objects):
            for variable, slot_name, slot in optimizer_slots(optimizer):
                i = index.get(id(variable))
                if i is None:
                    continue  # a slot of a Variable this checkpoint does not save
                key = slot_key(paths[i], paths[k], slot_name)
                nodes[i].setdefault("slots", []).append([k, slot_name, key])
                arrays[key] = np.array(slot._value)
        write_checkpoint(file_prefix, arrays, {"nodes": nodes})
        return file_prefix

    def save(self, file_prefix, options=None):
        """Write a numbered checkpoint ('<file_prefix>-<save_counter>') and record it
        in the directory's `checkpoint` state file; returns its prefix.

        >>> ckpt.save("ckpts/ckpt")   # doctest: +SKIP
        'ckpts/ckpt-1'
        """
        file_prefix = _check_prefix(file_prefix, "save")
        counter = self.save_counter
        counter.assign_add(1)
        path = self.write(f"{file_prefix}-{int(counter._value)}")
        update_checkpoint_state(os.path.dirname(path), path, [path])
        return path

    # -- restoring -------------------------------------------------------------------------
    def read(self, save_path, options=None):
        """Restore the checkpoint at `save_path` as `restore` does, but without
        creating `save_counter`: for checkpoints written by `write`, which have none."""
        save_path = _check_prefix(save_path, "read")
        saved_model_variables = os.path.join(save_path, "variables", "variables")
        if os.path.isdir(save_path) and os.path.isfile(index_path(saved_model_variables)):
            save_path = saved_model_variables  # a SavedModel directory, as TF accepts
        arrays, graph = read_checkpoint(save_path)
        restoration = Restoration(self, save_path, arrays, graph)
        # A new restore replaces the values an older one still waits to write.
        for old in self._restorations:
            old.abandon()
        self._restorations[:] = [restoration]
        restoration.retry()
        return CheckpointLoadStatus(restoration)

    def restore(self, save_path, options=None):
        """Restore the values saved at `save_path` into the objects of this checkpoint.

        Objects are matched by their paths of attribute names from the root.
        Variables that exist get their values now; the others when they are
        created (deferred restoration).

        Args:
            save_path: a prefix as `save`/`write` returned, e.g. from
                `tf.train.latest_checkpoint(dir)`, or a SavedModel directory
                (its Variables, saved with the object as the root); None
                restores nothing.

        Returns:
            A status with `assert_consumed()`, `assert_existing_objects_matched()`,
            `assert_nontrivial_match()` and `expect_partial()`.

        Raises:
            tf.errors.NotFoundError: when there is no checkpoint at `save_path`.
            ValueError: when a saved value's shape differs from its Variable's
                (naming the path and both shapes).
        """
        if save_path is None:
            return InitializationOnlyStatus()
        status = self.read(save_path, options)
        # Restored now (deferred), so `save` numbers on from it. As in TF, a checkpoint
        # written by `write` has none, so assert_consumed() then fails: use `read`.
        self._maybe_create_save_counter()
        return status

    def __repr__(self):
        names = [name for name, _ in self._checkpoint_dependencies()]
        return f"<tf.train.Checkpoint {', '.join(names)}>"


def _check_prefix(prefix, method):
    if isinstance(prefix, os.PathLike):
        prefix = os.fspath(prefix)
    if not isinstance(prefix, str):
        raise TypeError(f"Checkpoint.{method} expects a path (str), got {prefix!r} of type "
                        f"{type(prefix).__name__}.")
    return prefix
