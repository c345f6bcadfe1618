"""keras_format.py translates between tapeflow models and the config.json of
Keras 3's .keras files, as keras/src/saving/serialization_lib.py writes it:
every object is `{"module", "class_name", "config", "registered_name"}`, a layer
adds `build_config`, the model `compile_config`; a functional model lists its
layers with `inbound_nodes` whose tensors are `__keras_tensor__` references
`[layer name, node index, tensor index]`.

Classes are found as Keras finds them: the `register_keras_serializable`
registry and the scopes of `custom_object_scope` (utils/registry.py), then
`custom_objects`, then tapeflow's own classes. Keras options that a tapeflow
class lacks are dropped when unset (None, False, empty) and refused, naming
them, when set. A Python lambda is stored as Keras stores it (marshalled
bytecode); loading one is refused under `safe_mode=True` with Keras's message,
since running it would run the file's code."""

import builtins
import codecs
import inspect
import marshal
import sys
import types

import numpy as np

from .. import activations, constraints, initializers, losses, metrics, regularizers
from .. import optimizers as _optimizers
from ..core import nest
from ..layers.base import Layer
from ..layers.input_layer import Input
from ..layers.serialization import registered_class
from ..utils import registry

__all__ = ["model_to_keras", "model_from_keras", "compile_from_keras", "Finder"]

LAMBDA_REFUSED = (
    "Requested the deserialization of a `Lambda` layer whose `function` is a Python "
    "lambda. This carries a potential risk of arbitrary code execution and thus it is "
    "disallowed by default. If you trust the source of the artifact, you can override "
    "this error by passing `safe_mode=False` to the loading function, or calling "
    "`keras.config.enable_unsafe_deserialization().")
_NAMESPACES = [("keras.initializers", initializers), ("keras.regularizers", regularizers),
               ("keras.constraints", constraints), ("keras.losses", losses),
               ("keras.metrics", metrics), ("keras.optimizers", _optimizers)]
_KERAS_ONLY = {"quantization_config", "optional", "sparse", "ragged", "lora_rank",
               "lora_alpha", "input_axes", "output_axes"}
# Keras options tapeflow lacks whose value here changes nothing (renorm is off).
_INERT_KERAS_VALUES = {"renorm_momentum": 0.99}


class Finder(dict):
    """`custom_objects` that also answers from the registry and its scopes, in Keras's
    order (scopes, registered objects, custom_objects); tapeflow's classes come last."""

    def __bool__(self):  # `custom_objects or {}` in the layers' code must keep the lookup
        return True

    def get(self, name, default=None):
        found = registry.get_registered_object(name, dict(self))
        return default if found is None else found

    def find(self, class_name, registered_name=None, module=None):
        for name in (registered_name, class_name):
            found = self.get(name) if name else None
            if found is not None:
                return found
        for prefix, namespace in _NAMESPACES:
            if (module or "").startswith(prefix) and isinstance(
                    getattr(namespace, class_name, None), type):
                return getattr(namespace, class_name)
        found = registered_class(class_name)
        if found is None:
            for _, namespace in _NAMESPACES:
                if isinstance(getattr(namespace, class_name, None), type):
                    return getattr(namespace, class_name)
        return found


# -- tapeflow -> Keras -----------------------------------------------------------------
def _module_of(cls, class_name):
    if cls is not None and registry.get_registered_name(cls) != cls.__name__:
        return cls.__module__, registry.get_registered_name(cls)
    if cls is not None and cls.__module__.split(".")[0] != "tapeflow":
        return cls.__module__, None
    if registered_class(class_name) is not None:
        return "keras.layers", None
    for prefix, namespace in _NAMESPACES:
        if isinstance(getattr(namespace, class_name, None), type):
            return prefix, None
    return "keras", None


def _keras_object(class_name, config, cls=None):
    module, registered_name = _module_of(cls, class_name)
    return {"module": module, "class_name": class_name, "config": config,
            "registered_name": registered_name}


def _dump_function(fn):
    if isinstance(fn, types.LambdaType) and fn.__name__ == "<lambda>":
        code = codecs.encode(marshal.dumps(fn.__code__), "base64").decode("ascii")
        closure = (tuple(to_keras(c.cell_contents) for c in fn.__closure__)
                   if fn.__closure__ else None)
        return {"class_name": "__lambda__", "config": {
            "code": code, "defaults": to_keras(fn.__defaults__), "closure": closure}}
    name = registry.get_registered_name(fn)
    if ">" in str(name):
        return {"module": fn.__module__, "class_name": "function",
                "config": name.rpartition(">")[2], "registered_name": name}
    return getattr(fn, "__name__", str(fn))  # tapeflow's activations by name


def to_keras(value):
    """A config value as Keras 3 writes it (nested objects get module/registered_name)."""
    if isinstance(value, Layer):
        return layer_to_keras(value)
    if isinstance(value, dict):
        if set(value) == {"class_name", "config"}:
            return _keras_object(value["class_name"], to_keras(value["config"]))
        return {str(k): to_keras(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_keras(v) for v in value]
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if hasattr(value, "as_numpy_dtype") and hasattr(value, "name"):
        return value.name
    if hasattr(value, "get_config") and not isinstance(value, type):
        return _keras_object(type(value).__name__, to_keras(value.get_config()), type(value))
    if callable(value) and not isinstance(value, type):
        return _dump_function(value)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"Cannot save {value!r} of type {type(value).__name__} in a Keras config.")


def _shape(shape):
    return None if shape is None else [None if d is None else int(d) for d in shape]


def layer_to_keras(layer):
    if type(layer).__name__ == "Sequential" or getattr(layer, "_graph", None) is not None:
        return model_to_keras(layer, with_compile=False)
    out = _keras_object(type(layer).__name__, to_keras(layer.get_config()), type(layer))
    built_shape = getattr(layer, "_build_input_shape", None)
    if layer.built and built_shape is not None:
        out["build_config"] = {"input_shape": _batch_free(to_keras(built_shape))}
    return out


def _batch_free(shape):
    """A built shape with its batch size unknown, as Keras's build_config holds it."""
    if isinstance(shape, list) and shape and all(isinstance(s, list) for s in shape):
        return [_batch_free(s) for s in shape]
    return [None] + list(shape[1:]) if isinstance(shape, list) and shape else shape


def _input_layer(name, shape, dtype):
    return {"module": "keras.layers", "class_name": "InputLayer",
            "config": {"batch_shape": _shape(shape), "dtype": dtype, "sparse": False,
                       "ragged": False, "name": name}, "registered_name": None}


def _sequential_config(model):
    layers = []
    model_input = getattr(model, "_input", None)
    if model_input is not None:
        layers.append(_input_layer("input_layer", model_input.shape, model_input.dtype.name))
    layers.extend(layer_to_keras(layer) for layer in model.layers)
    config = {"name": model.name, "trainable": model.trainable, "dtype": "float32",
              "layers": layers}
    if model_input is not None:
        config["build_input_shape"] = _shape(model_input.shape)
    return config


def _functional_config(model):
    graph = model._graph
    history, calls, layers = {}, {}, []
    for i, t in enumerate(graph.flat_inputs):
        name = t.name or f"input_layer_{i}"
        history[id(t)] = [name, 0, 0]
        entry = _input_layer(name, t.shape, t.dtype.name)
        layers.append(dict(entry, name=name, inbound_nodes=[]))
    entries = {}
    for node in graph.nodes:
        layer = node.layer
        if getattr(layer, "_is_lambda_op", False):
            raise ValueError("This functional model uses Python operators between layers; "
                             "such nodes cannot be saved. Use layers (e.g. layers.Add) instead.")

        def encode(structure):
            return nest.map_structure(lambda v: {"class_name": "__keras_tensor__", "config": {
                "shape": _shape(v.shape), "dtype": v.dtype.name,
                "keras_history": history[id(v)]}} if id(v) in history else to_keras(v),
                structure)
        if id(layer) not in entries:
            entries[id(layer)] = dict(layer_to_keras(layer), name=layer.name, inbound_nodes=[])
            layers.append(entries[id(layer)])
        entries[id(layer)]["inbound_nodes"].append({
            "args": [encode(node.inputs)] + [encode(a) for a in node.args],
            "kwargs": {k: encode(v) for k, v in node.kwargs.items()}})
        index = calls.get(id(layer), 0)
        calls[id(layer)] = index + 1
        for k, t in enumerate(nest.flatten(node.outputs)):
            history[id(t)] = [layer.name, index, k]

    def refs(structure):
        if not isinstance(structure, (list, tuple, dict)):
            return history[id(structure)]
        return nest.map_structure(lambda t: history[id(t)], structure)
    return {"name": model.name, "trainable": model.trainable, "layers": layers,
            "input_layers": refs(graph.inputs), "output_layers": refs(graph.outputs)}


def model_to_keras(model, with_compile=True):
    """The config.json dict of `model` (Sequential or functional)."""
    if type(model).__name__ == "Sequential":
        out = {"module": "keras", "class_name": "Sequential", "config": _sequential_config(model),
               "registered_name": None}
        shape = out["config"].get("build_input_shape")
    elif getattr(model, "_graph", None) is not None:
        out = {"module": "keras.src.models.functional", "class_name": "Functional",
               "config": _functional_config(model), "registered_name": "Functional"}
        shape = None
    else:
        raise ValueError(f"Keras's .keras format holds Sequential and functional models; "
                         f"{type(model).__name__} is subclassed: save its weights with "
                         "save_weights('w.weights.h5') and rebuild it in code.")
    out["build_config"] = {"input_shape": shape}
    if with_compile:
        out["compile_config"] = _compile_to_keras(model)
    return out


def _compile_to_keras(model):
    compile_config = getattr(model, "_compile_config", None)
    if compile_config is None:
        return None
    optimizer = model.optimizer
    return {"optimizer": None if optimizer is None else _keras_object(
                type(optimizer).__name__, to_keras(optimizer.get_config()), type(optimizer)),
            "loss": to_keras(compile_config.get("loss")),
            "loss_weights": to_keras(compile_config.get("loss_weights")),
            "metrics": to_keras(compile_config.get("metrics")),
            "weighted_metrics": to_keras(compile_config.get("weighted_metrics")),
            "run_eagerly": False, "steps_per_execution": 1, "jit_compile": False}


# -- Keras -> tapeflow -----------------------------------------------------------------
def _accepted_arguments(cls):
    """Constructor arguments of `cls` (through the **kwargs chain up to Layer), or None
    when any name may be accepted."""
    names = set()
    for klass in cls.__mro__:
        init = klass.__dict__.get("__init__")
        if init is None:
            continue
        try:
            params = inspect.signature(init).parameters.values()
        except (TypeError, ValueError):
            return None
        names |= {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        if klass is Layer:
            return names | {"input_shape", "input_dim", "batch_size", "batch_input_shape"}
        if not any(p.kind == p.VAR_KEYWORD for p in params):
            return names
    return None


def _fit_config(cls, config, what):
    accepted = _accepted_arguments(cls) if isinstance(cls, type) else None
    if accepted is None or "from_config" in vars(cls) and cls.__module__.split(".")[0] != \
            "tapeflow":
        return config
    fitted = {}
    for key, value in config.items():
        if key in accepted:
            fitted[key] = value
        elif not (value is None or value is False or value == {} or value == []
                  or key in _KERAS_ONLY and not value
                  or key in _INERT_KERAS_VALUES and value == _INERT_KERAS_VALUES[key]):
            raise ValueError(f"Cannot load {what}: tapeflow's {cls.__name__} has no argument "
                             f"{key!r}, which the file sets to {value!r}.")
    return fitted


def _load_lambda(config, safe_mode):
    if safe_mode:
        raise ValueError(LAMBDA_REFUSED)
    code = marshal.loads(codecs.decode(config["code"].encode("ascii"), "base64"))
    main = sys.modules.get("__main__")
    scope = dict(vars(main)) if main is not None else {"__builtins__": builtins}
    closure = config.get("closure")
    cells = tuple(types.CellType(v) for v in closure) if closure else None
    defaults = config.get("defaults")
    return types.FunctionType(code, scope, code.co_name,
                              tuple(defaults) if defaults is not None else None, cells)


class _Reader:
    def __init__(self, finder, safe_mode):
        self.finder, self.safe_mode = finder, safe_mode

    def value(self, value, what):
        if isinstance(value, list):
            return [self.value(v, what) for v in value]
        if not isinstance(value, dict):
            return value
        if not ("class_name" in value and "config" in value):
            return {k: self.value(v, what) for k, v in value.items()}
        name, inner = value["class_name"], value["config"]
        if name == "__keras_tensor__":
            return value  # resolved by `functional`
        if name == "__lambda__":
            return _load_lambda(inner, self.safe_mode)
        if name == "__tuple__":
            return tuple(self.value(inner["value"], what))
        if name == "__numpy__":
            return np.asarray(inner["value"], dtype=inner.get("dtype"))
        if name in ("DTypePolicy", "FloatDTypePolicy"):
            return inner["name"]
        if name == "function":
            fn = self.finder.find(inner, value.get("registered_name"))
            fn = fn or getattr(activations, str(inner), None)
            if fn is None:
                raise ValueError(f"Unknown function {value.get('registered_name') or inner!r} "
                                 f"in {what}: register it with @tf.keras.utils."
                                 "register_keras_serializable() or pass it in custom_objects.")
            return fn
        cls = self.finder.find(name, value.get("registered_name"), value.get("module"))
        if cls is None:
            raise ValueError(f"Unknown class {value.get('registered_name') or name!r} in "
                             f"{what}: register it with @tf.keras.utils."
                             "register_keras_serializable() or pass it in custom_objects.")
        if name in ("Sequential", "Functional") or (
                isinstance(cls, type) and "layers" in inner and issubclass(cls, Layer)
                and registered_class(name) in (registered_class("Sequential"),
                                               registered_class("Functional"))):
            return self.model(value)
        config = _fit_config(cls, self.value(inner, what), what)
        if cls.__module__.split(".")[0] == "tapeflow" and not issubclass(cls, Layer):
            return {"class_name": name, "config": config}  # tapeflow's get() takes dicts
        return cls.from_config(config)

    def layer(self, spec):
        name = spec.get("name") or spec.get("config", {}).get("name")
        layer = self.value({k: spec[k] for k in ("module", "class_name", "config",
                                                 "registered_name") if k in spec},
                           f"layer {name!r}")
        if not isinstance(layer, Layer):
            raise ValueError(f"Layer {name!r} of class {spec['class_name']!r} did not load as "
                             "a layer.")
        return layer

    def model(self, spec):
        class_name, config = spec["class_name"], spec["config"]
        if class_name == "Sequential":
            return self.sequential(config)
        if "input_layers" in config:
            cls = self.finder.find(class_name, spec.get("registered_name"), spec.get("module"))
            return self.functional(config, cls or registered_class("Functional"))
        raise ValueError(f"Cannot load a model of class {class_name!r}: tapeflow loads "
                         "Sequential and functional models from .keras files.")

    def sequential(self, config):
        model = registered_class("Sequential")(name=config.get("name"))
        specs = list(config["layers"])
        shape, dtype = config.get("build_input_shape"), "float32"
        if specs and specs[0]["class_name"] == "InputLayer":
            inner = specs.pop(0)["config"]
            shape = inner.get("batch_shape") or inner.get("batch_input_shape")
            dtype = inner.get("dtype") or "float32"
        if shape is not None:
            model.add(Input(batch_shape=tuple(shape), dtype=dtype))
        for spec in specs:
            model.add(self.layer(spec))
        return model

    def functional(self, config, cls):
        outputs, pending = {}, []
        for spec in config["layers"]:
            name = spec.get("name") or spec["config"]["name"]
            if spec["class_name"] == "InputLayer":
                inner = spec["config"]
                shape = inner.get("batch_shape") or inner.get("batch_input_shape")
                outputs[(name, 0)] = [Input(batch_shape=tuple(shape), name=name,
                                            dtype=inner.get("dtype") or "float32")]
                continue
            layer = self.layer(spec)
            for index, node in enumerate(spec.get("inbound_nodes", [])):
                if not isinstance(node, dict):
                    raise ValueError(f"Layer {name!r}: inbound nodes in Keras 2's list form "
                                     "are not supported; re-save the model with Keras 3.")
                pending.append((layer, name, index, node))

        def resolve(value):
            if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
                history = value["config"]["keras_history"]
                return outputs[(history[0], history[1])][history[2]]
            if isinstance(value, dict):
                return {k: resolve(v) for k, v in value.items()}
            if isinstance(value, list):
                return [resolve(v) for v in value]
            return value

        def ready(value):
            if isinstance(value, dict) and value.get("class_name") == "__keras_tensor__":
                return tuple(value["config"]["keras_history"][:2]) in outputs
            items = value.values() if isinstance(value, dict) else (
                value if isinstance(value, list) else [])
            return all(ready(v) for v in items)

        while pending:
            waiting = [item for item in pending if not ready(item[3])]
            if len(waiting) == len(pending):
                raise ValueError(f"Cannot load functional model {config.get('name')!r}: layer "
                                 f"{pending[0][1]!r} needs tensors that no layer produces.")
            for layer, name, index, node in pending:
                if ready(node):
                    args = resolve(self.value(node.get("args", []), f"layer {name!r}"))
                    kwargs = resolve(self.value(node.get("kwargs", {}), f"layer {name!r}"))
                    outputs[(name, index)] = nest.flatten(layer(*args, **kwargs))
            pending = waiting

        def refs(value):
            if (isinstance(value, list) and len(value) == 3 and isinstance(value[0], str)
                    and isinstance(value[1], int)):
                return outputs[(value[0], value[1])][value[2]]
            if isinstance(value, dict):
                return {k: refs(v) for k, v in value.items()}
            return [refs(v) for v in value]
        return cls(inputs=refs(config["input_layers"]), outputs=refs(config["output_layers"]),
                   name=config.get("name"))


def model_from_keras(spec, custom_objects=None, safe_mode=True):
    """The tapeflow model that config.json's dict `spec` describes."""
    return _Reader(Finder(custom_objects or {}), safe_mode).model(spec)


def compile_from_keras(model, compile_config, custom_objects=None, safe_mode=True):
    """Compile `model` as config.json's `compile_config` says (no-op if there is none)."""
    if not compile_config:
        return
    reader = _Reader(Finder(custom_objects or {}), safe_mode)
    optimizer = compile_config.get("optimizer")
    if isinstance(optimizer, dict):
        optimizer = _optimizers.get(reader.value(optimizer, "the optimizer"))
    model.compile(optimizer=optimizer or "rmsprop",
                  loss=_spec(reader, compile_config.get("loss"), losses.get),
                  metrics=_spec(reader, compile_config.get("metrics"), metrics.get),
                  weighted_metrics=_spec(reader, compile_config.get("weighted_metrics"),
                                         metrics.get),
                  loss_weights=compile_config.get("loss_weights"))


def _spec(reader, value, get):
    value = reader.value(value, "the compile config")
    if isinstance(value, dict) and set(value) == {"class_name", "config"}:
        return get(value)
    if isinstance(value, dict):
        return {k: _spec(reader, v, get) for k, v in value.items()}
    if isinstance(value, list):
        return [_spec(reader, v, get) for v in value]
    return value
