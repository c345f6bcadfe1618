"""keras/ is the `tapeflow.keras` alias namespace: `tf.keras.layers is
tapeflow.layers`, likewise optimizers, losses, metrics, callbacks, datasets,
Model, Sequential and Input. It holds no code of its own; members resolve
lazily, so pieces that have not landed yet simply are not there."""

import importlib

_MODULES = {
    "layers": "tapeflow.layers",
    "optimizers": "tapeflow.optimizers",
    "datasets": "tapeflow.datasets",
    "losses": "tapeflow.losses",
    "metrics": "tapeflow.metrics",
    "callbacks": "tapeflow.callbacks",
    "initializers": "tapeflow.initializers",
    "regularizers": "tapeflow.regularizers",
    "constraints": "tapeflow.constraints",
    "activations": "tapeflow.activations",
    "models": "tapeflow.models",
    "utils": "tapeflow.utils",
    "backend": "tapeflow.backend",
}
_MODEL_NAMES = {"Model": "tapeflow.models", "Sequential": "tapeflow.models",
                "Input": "tapeflow.models"}


def __getattr__(name):
    try:
        if name in _MODULES:
            return importlib.import_module(_MODULES[name])
        if name in _MODEL_NAMES:
            return getattr(importlib.import_module(_MODEL_NAMES[name]), name)
    except ModuleNotFoundError as error:
        if error.name != _MODULES.get(name, _MODEL_NAMES.get(name)):
            raise  # a real import error inside the module, not a missing module
        raise AttributeError(f"tapeflow.keras.{name} is not available: {error}") from None
    raise AttributeError(f"module 'tapeflow.keras' has no attribute {name!r}")


def __dir__():
    return sorted(list(_MODULES) + list(_MODEL_NAMES))
