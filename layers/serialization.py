"""serialization.py turns a layer into `{'class_name', 'config'}` and back, as
`tf.keras.layers.serialize` / `deserialize`. Every Layer subclass that
tapeflow defines (models included) registers itself here by name when its
class statement runs (`Layer.__init_subclass__`), so rebuilding a layer needs
no import of the module that defines it: wrappers, Sequential and model
loading all look here. User classes come in through `custom_objects`, as in
Keras, so a user's class never shadows a built-in one."""

__all__ = ["serialize", "deserialize", "registered_class", "register"]

_CLASSES = {}


def register(cls, name=None):
    """Make `cls` findable by `name` (its class name by default); tapeflow's own only."""
    if cls.__module__.split(".")[0] != "tapeflow":
        return
    name = name or cls.__name__
    known = _CLASSES.setdefault(name, cls)
    if known is not cls:
        raise TypeError(f"Two tapeflow layer classes are named {name!r}: "
                        f"{known.__module__} and {cls.__module__}.")


def registered_class(name):
    """tapeflow's layer or model class called `name`, or None."""
    return _CLASSES.get(name)


def serialize(layer):
    """`{'class_name': ..., 'config': layer.get_config()}`, as Keras writes it."""
    return {"class_name": type(layer).__name__, "config": layer.get_config()}


def deserialize(config, custom_objects=None):
    """Rebuild a layer from `{'class_name', 'config'}`, looking in `custom_objects` first.

    Raises:
        ValueError: for a class name neither tapeflow nor `custom_objects` knows.
    """
    name = config["class_name"]
    cls = (custom_objects or {}).get(name) or registered_class(name)
    if cls is None:
        raise ValueError(f"Unknown layer class {name!r}: pass it in custom_objects="
                         f"{{'{name}': {name}}}.")
    return cls.from_config(config["config"])
