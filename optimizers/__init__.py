"""tapeflow.optimizers (also `tf.keras.optimizers`): the Keras 3 optimizers,
their base class, learning-rate schedules and `get`/`serialize`/`deserialize`.
Updates run in fused Numba kernels (tapeflow.kernels.optimizers) once the kernels
have started (tapeflow/runtime/kernel_start.py), NumPy formulas before."""

from . import experimental, legacy, schedules
from .adam import Adam, Adamax, AdamW, Nadam
from .lion import Ftrl, Lion
from .optimizer import Optimizer
from .rmsprop import Adadelta, Adagrad, RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adamax", "Nadam", "RMSprop", "Adagrad",
           "Adadelta", "Ftrl", "Lion", "experimental", "legacy", "schedules", "get", "serialize", "deserialize"]

_BY_NAME = {cls.__name__.lower(): cls for cls in
            (SGD, Adam, AdamW, Adamax, Nadam, RMSprop, Adagrad, Adadelta, Ftrl, Lion)}


def serialize(optimizer):
    """A dict `{'module', 'class_name', 'config'}` describing `optimizer`."""
    return {"module": "keras.optimizers", "class_name": type(optimizer).__name__,
            "config": optimizer.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """The optimizer described by `serialize()`'s dict (a new one, without state).

    Raises:
        ValueError: for an unknown class name.
    """
    name = config.get("class_name", "")
    cls = (custom_objects or {}).get(name) or _BY_NAME.get(name.lower())
    if cls is None:
        raise ValueError(f"Unknown optimizer: {name!r}. Known: {sorted(_BY_NAME)}; pass "
                         "custom classes in `custom_objects`.")
    return cls.from_config(config.get("config", {}), custom_objects=custom_objects)


def get(identifier):
    """An optimizer from a name ('adam', 'SGD', ...), a config dict or an Optimizer.

    A name gives the optimizer with its default arguments.

    Raises:
        ValueError: if the identifier cannot be interpreted.
    """
    if isinstance(identifier, Optimizer):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        cls = _BY_NAME.get(identifier.lower())
        if cls is not None:
            return cls()
    raise ValueError(f"Could not interpret optimizer identifier: {identifier!r}. Known "
                     f"names: {sorted(_BY_NAME)}.")
