"""h5_format.py reads and writes Keras's HDF5 weight files through h5py, the
optional extra `pip install 'tapeflow[h5]'` (imported on first use, so tapeflow's
own .npz files never need it).

Keras 3's layout (`model.weights.h5`, inside a .keras zip or alone as
`*.weights.h5`), as keras/src/saving/saving_lib.py writes it: each layer's own
variables (trainable, then non-trainable, in creation order) under
`<path>/vars/0..n-1`, where a Sequential's or functional model's layers sit at
`layers/<snake_case class name>[_<k>]` (`dense`, `dense_1`, ...: numbered by
class, in `model.layers` order, not by the layers' names), a layer's sublayers
at `<path>/<attribute>` and the optimizer at `optimizer/vars`: iterations, the
learning rate, then each model variable's slots in turn (Keras interleaves
them: momentum and velocity of the first variable, then of the second).

Keras 2's layout (tf.keras 2.x `save_weights("w.h5")` or `model.save("m.h5")`,
tf_keras/src/saving/legacy/hdf5_format.py): the attribute `layer_names` lists
the layers, each group's attribute `weight_names` its weights in
`layer.weights` order; read by position among the layers that have weights, or
by layer name (`by_name`), with `skip_mismatch`.

A file is data: links, external or virtual datasets, dtypes other than bool,
integers and floats, and datasets declaring far more bytes than they store are
refused before anything is read, and every shape is checked before any
variable is assigned, so a file that does not fit leaves the model untouched."""

import logging
import math
import re

import numpy as np

from ..layers.base import Layer
from ..layers.input_layer import InputLayer

__all__ = ["require_h5py", "is_hdf5", "write_keras3", "read_keras3", "read_legacy",
           "layer_entries", "checked_dataset", "get_group", "names_attribute", "optimizer_keys",
           "optimizer_state", "restore_optimizer"]

HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"
INSTALL_HINT = "pip install 'tapeflow[h5]'"
# A dataset declaring more than this many bytes must store at least 1/_MAX_EXPANSION
# of them: a "shape bomb" stores next to nothing and asks for terabytes.
_BOMB_FLOOR_BYTES = 1 << 28
_MAX_EXPANSION = 1000
_logger = logging.getLogger("tapeflow")


def require_h5py():
    """The h5py module, or ImportError saying how to install it."""
    try:
        import h5py
    except ImportError:
        raise ImportError("Keras's HDF5 files (.h5, .weights.h5, and the weights inside a "
                          f".keras file) need h5py, which is not installed: {INSTALL_HINT} "
                          "(or pip install h5py). tapeflow's own .npz weights need nothing.") \
            from None
    return h5py


def is_hdf5(head):
    return head.startswith(HDF5_SIGNATURE)


# -- safe access -----------------------------------------------------------------------
def _child(h5py, parent, name, where):
    """parent[name], refusing soft and external links (a file must not reach outside)."""
    if name not in parent:
        return None
    link = parent.get(name, getclass=True, getlink=True)
    if link in (h5py.SoftLink, h5py.ExternalLink):
        raise ValueError(f"Not allowed: {where} is an HDF5 {link.__name__}; a weights file "
                         "must hold its data itself.")
    return parent[name]


def get_group(h5py, root, path, where):
    """The group at `path` ('a/b/c'), None if absent; ValueError if not a group."""
    node = root
    for part in path.split("/"):
        if not part:
            continue
        node = _child(h5py, node, part, where)
        if node is None:
            return None
        if not isinstance(node, h5py.Group):
            raise ValueError(f"Invalid HDF5 weights file: {where} is a {type(node).__name__}, "
                             "not a group.")
    return node


def checked_dataset(h5py, group, name, where):
    """The dataset group[name] ('a/b' allowed), after refusing what could not be
    weights: links, external or virtual storage, non-numeric dtypes, shape bombs."""
    parent, _, leaf = name.rpartition("/")
    if parent:
        group = get_group(h5py, group, parent, where)
    dataset = None if group is None else _child(h5py, group, leaf, where)
    if dataset is None:
        raise ValueError(f"Invalid HDF5 weights file: {where} is missing.")
    if not isinstance(dataset, h5py.Dataset):
        raise ValueError(f"Invalid HDF5 weights file: {where} is a {type(dataset).__name__}, "
                         "not a dataset.")
    if dataset.external or dataset.is_virtual:
        raise ValueError(f"Not allowed: {where} is an external or virtual HDF5 dataset.")
    dtype = dataset.dtype
    if dtype.kind not in "biuf" or dtype.itemsize > 8:
        raise ValueError(f"Invalid HDF5 weights file: {where} has dtype {dtype}; weights are "
                         "booleans, integers or floats.")
    declared = math.prod(dataset.shape) * dtype.itemsize
    stored = dataset.id.get_storage_size()
    if declared > _BOMB_FLOOR_BYTES and declared > _MAX_EXPANSION * stored:
        raise ValueError(f"Not allowed: {where} declares shape {dataset.shape} ({declared} "
                         f"bytes) but stores only {stored} bytes; refusing a potential "
                         "decompression or shape bomb.")
    return dataset


def _read(dataset, variable):
    value = np.empty(dataset.shape, dataset.dtype)
    if value.size:
        dataset.read_direct(value)
    return value.astype(variable._value.dtype, copy=False)


def _assign(plan):
    """plan: [(variable, dataset)], every shape already checked; reads, then writes."""
    values = [_read(dataset, variable) for variable, dataset in plan]
    for (variable, _), value in zip(plan, values):
        np.copyto(variable._value, value, casting="unsafe")


def _shape_error(layer, variable, shape, where, source):
    return ValueError(f"Weight mismatch in layer {layer.name!r} at weight {variable.path!r}: "
                      f"the model's shape is {tuple(variable.shape)} but {source} has "
                      f"{tuple(shape)} (stored at {where!r}). Nothing was loaded.")


# -- Keras 3's walk --------------------------------------------------------------------
_BASE_ATTRIBUTES = None


def _snake_case(name):
    name = re.sub(r"\W+", "", name)
    name = re.sub("(.)([A-Z][a-z]+)", r"\1_\2", name)
    return re.sub("([a-z])([A-Z])", r"\1_\2", name).lower()


def _is_graph_model(layer):
    return type(layer).__name__ == "Sequential" or getattr(layer, "_graph", None) is not None


def _sublayer_attributes(layer):
    """(attribute, Layer or list of Layers) in Keras's order (private ones last)."""
    global _BASE_ATTRIBUTES
    if _BASE_ATTRIBUTES is None:
        _BASE_ATTRIBUTES = set(vars(Layer(name="attribute_probe")))  # named: no uid used
    if _is_graph_model(layer):
        return [("layers", list(layer.layers))]
    children = []
    for name in sorted(vars(layer), key=lambda n: "~" + n if n.startswith("_") else n):
        value = vars(layer)[name]
        if name in _BASE_ATTRIBUTES or name.startswith("__"):
            continue
        if isinstance(value, Layer) and value is not layer:
            children.append((name, value))
        elif isinstance(value, (list, tuple, dict)):
            items = list(value.values()) if isinstance(value, dict) else list(value)
            if items and all(isinstance(v, Layer) for v in items):
                children.append((name, items))
    return children


# tapeflow layers that hold as their own variables what Keras keeps in sublayers:
# class -> {first part of the variable's name: Keras's sublayer attribute}.
_KERAS_SUBLAYERS = {"MultiHeadAttention": {"query": "query_dense", "key": "key_dense",
                                           "value": "value_dense",
                                           "attention_output": "output_dense"}}


class _Part:
    """A group of a layer's variables that Keras stores as a sublayer of its own."""

    def __init__(self, name):
        self.name = name


def _split_for_keras(layer, path, variables):
    table = _KERAS_SUBLAYERS.get(type(layer).__name__)
    if table is None:
        return [(path, layer, variables)]
    groups = {}
    for variable in variables:
        groups.setdefault(variable.name.split("/")[0], []).append(variable)
    if not set(groups) <= set(table):
        return [(path, layer, variables)]
    return [(path, layer, [])] + [(f"{path}/{table[key]}", _Part(key), group)
                                  for key, group in groups.items()]


def layer_entries(model):
    """[(path, layer, own variables)] for `model` and every layer under it, as Keras 3
    walks them; each layer once, at the first path that reaches it."""
    entries, seen = [], set()

    def walk(layer, path):
        if id(layer) in seen:
            return
        seen.add(id(layer))
        if isinstance(layer, InputLayer):  # a functional model's: no weights, a group
            entries.append((path, layer, []))
            return
        entries.extend(_split_for_keras(layer, path, list(layer._tracked_trainable)
                                        + list(layer._tracked_non_trainable)))
        for attribute, child in _sublayer_attributes(layer):
            inner = f"{path}/{attribute}" if path else attribute
            if isinstance(child, Layer):
                walk(child, inner)
                continue
            used = {}
            for item in child:
                base = _snake_case(type(item).__name__)  # (InputLayerOf's: "InputLayer")
                used[base] = used.get(base, -1) + 1
                walk(item, f"{inner}/{base}" + (f"_{used[base]}" if used[base] else ""))

    walk(model, "")
    return entries


def optimizer_keys(optimizer):
    """The optimizer's state keys (optimizers/_state.py) in Keras 3's variable order."""
    keys = list(optimizer.get_state())
    head = [k for k in ("iterations", "learning_rate") if k in keys]
    averages = [k for k in keys if k.endswith("/average")]
    slots = sorted((k for k in keys if "/" in k and k not in averages),
                   key=lambda k: int(k.split("/")[0]))  # stable: slot order kept per variable
    rest = [k for k in keys if k not in head + averages + slots]
    return head + averages + slots + rest


def write_keras3(model, target, include_optimizer=True):
    """Write `model`'s weights (and optimizer state) in Keras 3's layout to `target`
    (a path or a binary file object)."""
    h5py = require_h5py()
    with h5py.File(target, "w") as f:
        for path, layer, variables in layer_entries(model):
            group = f.require_group(f"{path}/vars" if path else "vars")
            group.attrs["name"] = layer.name
            for i, variable in enumerate(variables):
                group.create_dataset(str(i), data=np.asarray(variable._value))
        optimizer = getattr(model, "optimizer", None)
        if include_optimizer and optimizer is not None:
            group = f.require_group("optimizer/vars")
            group.attrs["name"] = getattr(optimizer, "name", type(optimizer).__name__.lower())
            state = optimizer.get_state()
            for i, key in enumerate(optimizer_keys(optimizer)):
                group.create_dataset(str(i), data=state[key])


def _vars_group(h5py, f, path):
    group = get_group(h5py, f, path, path or "/") if path else f
    return None if group is None else get_group(h5py, group, "vars", f"{path}/vars")


def _stored_count(group):
    return 0 if group is None else len(group.keys())


def read_keras3(model, f, source, skip_mismatch=False, load_optimizer=True):
    """Load Keras 3's layout from the open h5py File `f` into `model`.

    Every count and shape is checked before anything is assigned; a mismatch names
    the layer, the weight and both shapes (`skip_mismatch` skips that layer with a
    warning instead). Groups of the file that no layer of the model reads are an
    error too (Keras ignores them, which loads a different architecture silently).
    """
    h5py = require_h5py()
    plan, used = [], set()
    for path, layer, variables in layer_entries(model):
        group = _vars_group(h5py, f, path)
        where = f"{path}/vars" if path else "vars"
        if group is not None:
            used.add(where)
        names = [str(i) for i in range(len(variables))]
        if _stored_count(group) != len(variables):
            message = (f"Layer {layer.name!r} (stored at {where!r}) has {len(variables)} "
                       f"weight(s) but {source} holds {_stored_count(group)} there"
                       + (f"; the first without a value is {variables[_stored_count(group)].path!r}"
                          if _stored_count(group) < len(variables) else "")
                       + ". Nothing was loaded.")
            if skip_mismatch:
                _logger.warning("Skipping layer %r: %s", layer.name, message)
                continue
            raise ValueError(message)
        layer_plan = []
        for name, variable in zip(names, variables):
            dataset = checked_dataset(h5py, group, name, f"{where}/{name}")
            if tuple(dataset.shape) != tuple(variable.shape):
                error = _shape_error(layer, variable, dataset.shape, f"{where}/{name}", source)
                if not skip_mismatch:
                    raise error
                _logger.warning("Skipping layer %r: %s", layer.name, error)
                layer_plan = []
                break
            layer_plan.append((variable, dataset))
        plan.extend(layer_plan)
    _check_nothing_left(h5py, f, used, source, skip_mismatch)
    optimizer_plan = _optimizer_plan(h5py, f, model, source) if load_optimizer else None
    _assign(plan)
    if optimizer_plan:
        optimizer, state = optimizer_plan
        optimizer.set_state(state, var_list=model.trainable_variables)


def _check_nothing_left(h5py, f, used, source, skip_mismatch):
    unread = []

    def visit(name, node):
        if (isinstance(node, h5py.Group) and name.endswith("vars") and len(node.keys())
                and name not in used and not name.startswith("optimizer")):
            unread.append(name)
    f.visititems(visit)
    if unread and not skip_mismatch:
        raise ValueError(f"{source} was saved from a different architecture: it holds "
                         "weights that no layer of the model has, the first at "
                         f"{sorted(unread)[0]!r} (layer {_stored_name(f, sorted(unread)[0])!r})."
                         " Nothing was loaded.")


def _stored_name(f, where):
    name = f[where].attrs.get("name", "?")
    return name.decode() if isinstance(name, bytes) else str(name)


def _optimizer_plan(h5py, f, model, source):
    group = _vars_group(h5py, f, "optimizer")
    if group is None or not len(group.keys()):
        return None
    return optimizer_state(model, [checked_dataset(h5py, group, str(i), f"optimizer/vars/{i}")
                                   for i in range(len(group.keys()))], source)


def optimizer_state(model, datasets, source):
    """(optimizer, state) from the file's optimizer variables in Keras's order, or None
    (with a warning, as Keras) when their count does not fit this optimizer.

    Raises:
        ValueError: for a variable whose shape differs, naming it.
    """
    optimizer = getattr(model, "optimizer", None)
    if optimizer is None or not datasets:
        return None
    reference = optimizer
    if len(datasets) != len(optimizer_keys(optimizer)) and not optimizer.built:
        # The file's optimizer had taken a step: its slots fit this one once built.
        reference = type(optimizer).from_config(optimizer.get_config())
        reference.build(model.trainable_variables)
    keys, shapes = optimizer_keys(reference), reference.get_state()
    if len(datasets) != len(keys):
        _logger.warning("Skipping the optimizer state in %s: it holds %d variables but "
                        "optimizer %r has %d.", source, len(datasets),
                        type(optimizer).__name__, len(keys))
        return None
    for key, dataset in zip(keys, datasets):
        if tuple(dataset.shape) != shapes[key].shape:
            raise ValueError(f"Optimizer variable {key!r} of {type(optimizer).__name__} has "
                             f"shape {shapes[key].shape} but {source} has "
                             f"{tuple(dataset.shape)} (at {dataset.name!r}). Nothing was "
                             "loaded.")
    return optimizer, {key: np.asarray(dataset[()]) for key, dataset in zip(keys, datasets)}


def restore_optimizer(model, datasets, source):
    """Restore the optimizer from the file's variables (Keras's order), if they fit."""
    plan = optimizer_state(model, datasets, source)
    if plan is not None:
        plan[0].set_state(plan[1], var_list=model.trainable_variables)


# -- Keras 2's layout --------------------------------------------------------------------
def names_attribute(group, name):
    """An attribute list, possibly split into name0, name1, ... chunks (as Keras 2)."""
    if name in group.attrs:
        values = list(group.attrs[name])
    else:
        values, k = [], 0
        while f"{name}{k}" in group.attrs:
            values.extend(group.attrs[f"{name}{k}"])
            k += 1
    return [v.decode("utf8") if isinstance(v, bytes) else str(v) for v in values]


def _legacy_weights(layer):
    return list(layer.trainable_weights) + list(layer.non_trainable_weights)


def read_legacy(model, f, source, by_name=False, skip_mismatch=False):
    """Load a Keras 2 HDF5 weights (or whole-model) file: by position among the
    layers with weights, as Keras 2's `load_weights`, or by layer name."""
    h5py = require_h5py()
    if "model_weights" in f:
        f = get_group(h5py, f, "model_weights", "model_weights")
    layer_names = names_attribute(f, "layer_names")
    saved = []
    for name in layer_names:
        group = get_group(h5py, f, name, name)
        weight_names = [] if group is None else names_attribute(group, "weight_names")
        if weight_names:
            saved.append((name, [checked_dataset(h5py, group, w, f"{name}/{w}")
                                 for w in weight_names]))
    plan = []
    if by_name:
        index = {}
        for layer in model.layers:
            index.setdefault(layer.name, []).append(layer)
        pairs = [(k, name, layer, values) for k, (name, values) in enumerate(saved)
                 for layer in index.get(name, [])]
    else:
        layers = [layer for layer in model.layers if _legacy_weights(layer)]
        if len(layers) != len(saved):
            raise ValueError("Layer count mismatch when loading weights from file. Model "
                             f"expected {len(layers)} layers, found {len(saved)} saved layers "
                             f"in {source}. Nothing was loaded.")
        pairs = [(k, name, layer, values)
                 for k, ((name, values), layer) in enumerate(zip(saved, layers))]
    for k, name, layer, values in pairs:
        variables = _legacy_weights(layer)
        problem = None
        if len(values) != len(variables):
            problem = (f"Weight count mismatch for layer #{k} (named {layer.name} in the current "
                       f"model, {name} in {source}). Layer expects {len(variables)} weight(s). "
                       f"Received {len(values)} saved weight(s).")
        else:
            for variable, dataset in zip(variables, values):
                if tuple(dataset.shape) != tuple(variable.shape):
                    problem = (f"Shape mismatch in layer #{k} (named {layer.name} in the "
                               f"current model, {name} in {source}) for weight "
                               f"{variable.path}. Weight expects shape {tuple(variable.shape)}. "
                               f"Received saved weight {dataset.name} with shape "
                               f"{tuple(dataset.shape)}.")
                    break
        if problem is None:
            plan.extend(zip(variables, values))
        elif skip_mismatch and by_name:
            _logger.warning("Skipping loading of weights: %s", problem)
        else:
            raise ValueError(problem + " Nothing was loaded.")
    _assign(plan)
