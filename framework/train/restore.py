"""restore.py owns matching a saved object graph against live objects and
writing the saved values into their Variables: now for the objects that exist,
later (deferred restoration, as TF) for Variables created afterwards -- an
attribute assigned to a tf.Module or Checkpoint, a Keras layer that builds,
an optimizer slot created by the first `apply_gradients`. It also owns the
status objects `Checkpoint.restore` returns. Walking the graph is graph.py's."""

import functools
import weakref

import numpy as np

from ..core.tensor import Variable
from ..module import DEFERRED_RESTORATIONS, _assignment_watchers
from .graph import children, optimizer_slots, walk

__all__ = ["Restoration", "CheckpointLoadStatus", "InitializationOnlyStatus"]

_builds = [0]  # depth of hooked `build` calls running (nested layers build inside models)


def assign_value(variable, value, path):
    """Copy a saved `value` into `variable` in place, checking shape and dtype kind.

    Raises:
        ValueError: naming the variable's path and both shapes (or dtypes).
    """
    target = variable._value
    if value.shape != target.shape:
        raise ValueError(f"Cannot restore the variable at {path!r}: the checkpoint's value has "
                         f"shape {value.shape} but the variable has shape {target.shape}.")
    try:
        np.copyto(target, value, casting="same_kind")
    except TypeError:
        raise ValueError(f"Cannot restore the variable at {path!r}: the checkpoint's value has "
                         f"dtype {value.dtype} but the variable has dtype {target.dtype}.") from None


class Restoration:
    """The binding of one checkpoint's nodes to the objects under `root`.

    Checkpoint nodes are bound breadth-first from the root by child name; a
    Variable's value is written once, when it is bound. Nodes still unbound
    stay waiting: `retry()` binds them when their Variables appear.
    """

    def __init__(self, root, prefix, arrays, graph):
        self.root = root
        self.prefix = prefix
        self.arrays = arrays
        self.nodes = graph["nodes"]
        self.bound = {}          # checkpoint node index -> object
        self.matched = {}        # id(object) -> checkpoint node index
        self.restored = set()    # keys whose values were written
        self.deferred_slots = []  # (optimizer, its pending-slot key, checkpoint key)
        self.waiting_on = set()  # ids of bound objects with children still unbound
        self._holders = []       # weak references to the objects keeping this alive

    # -- binding -----------------------------------------------------------------------
    def retry(self):
        """Bind what can be bound now and write the values of newly bound Variables."""
        queue, visited = [(self.root, 0)], {0}
        self._bind(self.root, 0)
        waiting = set()
        for obj, n in queue:
            saved = self.nodes[n]["children"]
            if not saved:
                continue
            for name, child in children(obj):
                j = saved.get(name)
                if j is None:
                    continue
                if id(child) not in self.matched and j not in self.bound:
                    self._bind(child, j)
                if self.matched.get(id(child)) == j and j not in visited:
                    visited.add(j)
                    queue.append((child, j))
            if any(j not in self.bound for j in saved.values()):
                waiting.add(id(obj))
                if obj is self.root and getattr(obj, "_root", None) is not None:
                    waiting.add(id(obj._root))  # Checkpoint(root=m) shows m's attributes as its own
                _hook_build(obj)
                self._held_by(obj)
        self._restore_slots()
        self.waiting_on = waiting
        if waiting:
            _assignment_watchers.add(self)
        else:  # all bound; slots still to come are kept by their optimizers
            self._release()

    def _held_by(self, obj):
        """Let `obj`, which waits for values, keep this restoration alive, as TF keeps
        deferred restorations on the objects: a Checkpoint or status dropped after
        `restore` must not lose the values of a model built later."""
        try:
            held = vars(obj).get(DEFERRED_RESTORATIONS)
        except TypeError:  # no __dict__: it cannot hold anything
            return
        if held is None:
            held = _Held()
            object.__setattr__(obj, DEFERRED_RESTORATIONS, held)
        if not any(r is self for r in held):
            held.append(self)
            self._holders.append(weakref.ref(obj))

    def _release(self):
        _assignment_watchers.discard(self)
        for ref in self._holders:
            obj = ref()
            held = None if obj is None else vars(obj).get(DEFERRED_RESTORATIONS)
            if held is not None:
                held[:] = [r for r in held if r is not self]
                if not held:
                    del vars(obj)[DEFERRED_RESTORATIONS]
        self._holders = []

    def _bind(self, obj, n):
        if self.bound.get(n) is obj:
            return
        self.bound[n] = obj
        self.matched[id(obj)] = n
        key = self.nodes[n].get("key")
        if key is not None and isinstance(obj, Variable) and key not in self.restored:
            assign_value(obj, self.arrays[key], self.nodes[n]["path"])
            self.restored.add(key)

    def _restore_slots(self):
        for n, variable in list(self.bound.items()):
            for optimizer_node, slot_name, key in self.nodes[n].get("slots", ()):
                optimizer = self.bound.get(optimizer_node)
                if key in self.restored or optimizer is None:
                    continue
                self.restored.add(key)
                path = f"{self.nodes[n]['path']} (slot {slot_name!r})"
                existing = [s for v, name, s in optimizer_slots(optimizer)
                            if v is variable and name == slot_name]
                if existing:
                    assign_value(existing[0], self.arrays[key], path)
                else:  # created by the optimizer's first apply_gradients
                    restore = functools.partial(assign_value, value=self.arrays[key], path=path)
                    pending_key = optimizer._defer_slot_restoration(variable, slot_name, restore)
                    self.deferred_slots.append((optimizer, pending_key, key))

    def abandon(self):
        """Stop writing values: a newer restore of the same checkpoint object replaces it."""
        self._release()
        for optimizer, pending_key, _ in self.deferred_slots:
            optimizer.__dict__.get("_deferred_slot_restorations", {}).pop(pending_key, None)
        self.deferred_slots = []

    def object_assigned(self, owner):
        """Called after an attribute of `owner` (a Module, a Checkpoint) was set."""
        if owner is None or id(owner) in self.waiting_on:
            self.retry()

    # -- what is left --------------------------------------------------------------------
    def pending_keys(self):
        """Checkpoint keys whose values no object has taken yet."""
        keys = [node["key"] for node in self.nodes
                if node.get("key") is not None and node["key"] not in self.restored]
        keys += [key for node in self.nodes for _, _, key in node.get("slots", ())
                 if key not in self.restored]
        keys += [key for optimizer, pending_key, key in self.deferred_slots
                 if pending_key in optimizer.__dict__.get("_deferred_slot_restorations", {})]
        return sorted(keys)

    def unmatched_objects(self):
        """Paths of the objects under the root that no checkpoint node was bound to."""
        objects, paths, _ = walk(self.root)
        return [path for obj, path in zip(objects[1:], paths[1:])
                if id(obj) not in self.matched]


class _Held(list):
    """The restorations an object keeps alive; copies and pickles of the object
    start without any (they are not the objects the restorations bound)."""

    def __deepcopy__(self, memo):
        return _Held()

    def __reduce__(self):
        return _Held, ()


def _hook_build(obj):
    """Make an unbuilt Keras layer retry the waiting restorations once it has built."""
    if getattr(obj, "built", True) is not False or "build" in vars(obj):
        return
    if callable(getattr(obj, "build", None)):
        object.__setattr__(obj, "build", _BuildHook(obj))


class _BuildHook:
    """Stands in for `layer.build` (an instance attribute over the class's method)
    until the first build: runs it, removes itself, then lets the waiting restorations
    bind the new Variables. Copies and pickles of the layer get the plain method."""

    def __init__(self, layer):
        self._layer = weakref.ref(layer)
        self.__wrapped__ = type(layer).build.__get__(layer)  # for inspect.signature

    def __call__(self, *args, **kwargs):
        _builds[0] += 1
        try:
            result = self.__wrapped__(*args, **kwargs)
        finally:
            _builds[0] -= 1
            layer = self._layer()
            if layer is not None and vars(layer).get("build") is self:
                del vars(layer)["build"]
        if _builds[0] == 0:
            for restoration in list(_assignment_watchers):
                restoration.retry()
        return result

    def __deepcopy__(self, memo):
        copy = memo.get(id(self._layer()))
        return None if copy is None else type(copy).build.__get__(copy)

    def __reduce__(self):
        return getattr, (self._layer(), "build")


class CheckpointLoadStatus:
    """What `Checkpoint.restore(path)` returns: checks of how well it matched.

    Values of Variables that do not exist yet are written when they are
    created (deferred restoration), so the checks may pass later than the
    restore itself, as in TF.
    """

    def __init__(self, restoration):
        self._restoration = restoration

    def assert_consumed(self):
        """Every saved value was restored and every object was matched.

        Raises:
            AssertionError: naming the keys and object paths left over.
        """
        pending = self._restoration.pending_keys()
        if pending:
            raise AssertionError(f"Unresolved values in checkpoint {self._restoration.prefix}: "
                                 f"{pending}. They are restored when the Variables they "
                                 "belong to are created, if ever.")
        self.assert_existing_objects_matched()
        return self

    def assert_existing_objects_matched(self):
        """Every object (Variable, module, layer, optimizer) that exists now got a value.

        Raises:
            AssertionError: naming the paths of the unmatched objects.
        """
        unmatched = self._restoration.unmatched_objects()
        if unmatched:
            raise AssertionError("Some Python objects were not bound to checkpointed values, "
                                 "likely due to changes in the Python program: "
                                 f"{unmatched} (checkpoint {self._restoration.prefix}).")
        return self

    def assert_nontrivial_match(self):
        """Something besides the root was matched.

        Raises:
            AssertionError: when nothing but the root matched.
        """
        if len(self._restoration.matched) <= 1:
            raise AssertionError("Nothing except the root object matched a checkpointed value "
                                 f"in {self._restoration.prefix}. Typically this means that the "
                                 "checkpoint does not match the Python program.")
        return self

    def expect_partial(self):
        """Say that a partial restore is intended (tapeflow warns about none)."""
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run: tapeflow restores eagerly."""

    def initialize_or_restore(self, session=None):
        """Nothing to run: tapeflow restores eagerly."""


class InitializationOnlyStatus:
    """What `Checkpoint.restore(None)` returns: nothing was restored."""

    def _fail(self):
        raise AssertionError("No checkpoint specified (save_path=None); nothing is being "
                             "restored.")

    def assert_consumed(self):
        self._fail()

    def assert_existing_objects_matched(self):
        self._fail()

    def assert_nontrivial_match(self):
        self._fail()

    def expect_partial(self):
        return self

    def run_restore_ops(self, session=None):
        """Nothing to run."""

    def initialize_or_restore(self, session=None):
        """Nothing to run: Variables keep their initial values."""
