"""legacy_h5.py writes and reads whole models in the legacy HDF5 file that
`model.save("m.h5")` writes in Keras 3 (keras/src/legacy/saving/legacy_h5_format.py)
and tf.keras 2: the attributes `model_config` (the architecture as JSON) and
`training_config` (loss, metrics, `optimizer_config`), the weights in Keras 2's
`model_weights` layout (h5_format.read_legacy reads them) and the optimizer's
variables under `optimizer_weights`, in Keras's variable order."""

import json
import logging

import numpy as np

from . import h5_format, keras_format, keras_reader

__all__ = ["write_model", "read_model"]

# HDF5 object headers hold at most 64 KiB: longer name lists are split into chunks
# name0, name1, ... as Keras 2 does (h5_format._names_attribute reads them back).
_HEADER_LIMIT = 64512
_logger = logging.getLogger("tapeflow")


def _names(group, name, values):
    data = np.array([v.encode("utf8") for v in values]) if values else np.zeros(0)
    chunks = 1
    while data.nbytes and data.nbytes / chunks > _HEADER_LIMIT:
        chunks += 1
    if chunks == 1:
        group.attrs[name] = data
        return
    for k, part in enumerate(np.array_split(data, chunks)):
        group.attrs[f"{name}{k}"] = part


def write_model(model, target, keras_version, include_optimizer=True):
    """Write `model` (Sequential or functional) as a legacy HDF5 model file."""
    h5py = h5_format.require_h5py()
    spec = keras_format.model_to_keras(model)
    with h5py.File(target, "w") as f:
        f.attrs["backend"] = "tensorflow"
        f.attrs["keras_version"] = keras_version
        f.attrs["model_config"] = json.dumps({"class_name": spec["class_name"],
                                              "config": spec["config"]})
        compile_config = spec.get("compile_config")
        if compile_config:
            training = {k: v for k, v in compile_config.items() if k != "optimizer"}
            training["optimizer_config"] = compile_config["optimizer"]
            f.attrs["training_config"] = json.dumps(training)
        weights = f.create_group("model_weights")
        _names(weights, "layer_names", [layer.name for layer in model.layers])
        weights.attrs["backend"] = "tensorflow"
        weights.attrs["keras_version"] = keras_version
        for layer in sorted(model.layers, key=lambda layer: layer.name):
            group = weights.create_group(layer.name)
            variables = list(layer.trainable_weights) + list(layer.non_trainable_weights)
            names = [f"{layer.name}/{v.path.split('/')[-1]}" if v.path.count("/") < 1
                     else v.path for v in variables]
            names = _unique(names)
            _names(group, "weight_names", names)
            for name, variable in zip(names, variables):
                group.create_dataset(name, data=np.asarray(variable._value))
        _names(weights.create_group("top_level_model_weights"), "weight_names", [])
        optimizer = getattr(model, "optimizer", None)
        if include_optimizer and optimizer is not None:
            group = f.create_group("optimizer_weights")
            state = optimizer.get_state()
            keys = h5_format.optimizer_keys(optimizer)
            names = [f"{optimizer.name}/{key.replace('/', '_')}" for key in keys]
            _names(group, "weight_names", names)
            for name, key in zip(names, keys):
                group.create_dataset(name, data=state[key])


def _unique(names):
    seen, out = {}, []
    for name in names:
        seen[name] = seen.get(name, -1) + 1
        out.append(name if not seen[name] else f"{name}_{seen[name]}")
    return out


def _attribute_json(f, name):
    value = f.attrs.get(name)
    if value is None:
        return None
    if isinstance(value, bytes):
        value = value.decode("utf8")
    return json.loads(str(value))


def read_model(f, source, custom_objects=None, compile=True, safe_mode=True):
    """The model in the open legacy HDF5 file `f`: architecture, weights (every shape
    checked before any is assigned), compile arguments and optimizer state."""
    h5py = h5_format.require_h5py()
    try:
        config = _attribute_json(f, "model_config")
        training = _attribute_json(f, "training_config") if compile else None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"Cannot load model {source}: its model_config is not JSON "
                         f"({error}).") from None
    if config is None:
        raise ValueError(f"No model config found in the file at {source}.")
    model = keras_reader.model_from_keras(config, custom_objects, safe_mode)
    h5_format.read_legacy(model, f, source)
    if not training:
        return model
    compile_config = dict(training, optimizer=training.get("optimizer_config"))
    keras_reader.compile_from_keras(model, compile_config, custom_objects, safe_mode)
    group = h5_format.get_group(h5py, f, "optimizer_weights", "optimizer_weights")
    if group is not None:
        names = h5_format.names_attribute(group, "weight_names")
        values = [h5_format.checked_dataset(h5py, group, n, f"optimizer_weights/{n}")
                  for n in names]
        h5_format.restore_optimizer(model, values, source)
    return model
