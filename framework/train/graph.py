"""graph.py owns the object graph a checkpoint saves: which objects an object
depends on, by name, and the breadth-first walk that names every Variable by the
attribute path from the root ('net/l1/kernel'), as TF's object-based checkpoints
do. The names are the objects' attribute names (tf.Module's rule, module.py),
for Keras models too: a Sequential's layers are 'model/_stack/0/...' where TF
writes 'model/layer_with_weights-0/...'. Reading and writing files is
checkpoint_file.py's, matching a saved graph against live objects restore.py's."""

from collections import deque

from ..core.tensor import Variable
from ..module import dependencies_of_attributes, is_trackable

__all__ = ["children", "is_trackable", "dependencies_of_attributes", "walk", "variable_key",
           "slot_key", "optimizer_slots"]

_VALUE_SUFFIX = "/.ATTRIBUTES/VARIABLE_VALUE"


def children(obj):
    """The named dependencies of `obj`: a list of (name, Variable or trackable)."""
    if isinstance(obj, Variable):
        return []
    return list(obj._checkpoint_dependencies())


def walk(root):
    """Breadth-first walk of the object graph from `root`.

    Returns (objects, paths, edges): the objects in the order first reached,
    each one's path from the root ('' for the root, 'net/l1' ...), and for each
    object a dict child name -> index into `objects`. An object reached by
    several paths is one node with several incoming edges.
    """
    objects, paths, edges = [root], [""], []
    index = {id(root): 0}
    queue = deque([0])
    while queue:
        i = queue.popleft()
        edges.append(None)
        named = {}
        for name, child in children(objects[i]):
            if name in named:
                continue
            j = index.get(id(child))
            if j is None:
                j = index[id(child)] = len(objects)
                objects.append(child)
                paths.append(f"{paths[i]}/{name}" if paths[i] else name)
                queue.append(j)
            named[name] = j
        edges[i] = named
    return objects, paths, edges


def variable_key(path):
    """The key of a Variable's value at `path`, TF's: 'net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE'."""
    return path + _VALUE_SUFFIX


def slot_key(variable_path, optimizer_path, slot_name):
    """The key of an optimizer slot, TF's: '<variable>/.OPTIMIZER_SLOT/<optimizer>/<slot>/...'."""
    return f"{variable_path}/.OPTIMIZER_SLOT/{optimizer_path}/{slot_name}{_VALUE_SUFFIX}"


def optimizer_slots(obj):
    """(model variable, slot name, slot Variable) of an optimizer, or () for other objects."""
    slots = getattr(type(obj), "_checkpoint_slots", None)
    return () if slots is None else slots(obj)
