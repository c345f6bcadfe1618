"""lookup.py: the `serialize` / `deserialize` / `get` trio that Keras gives each
family of options (regularizers, constraints), written once."""

__all__ = ["Lookup", "function_or_instance"]


class Lookup:
    """Name, config-dict and instance lookup for one family of option classes.

    Args:
        kind: the family's singular name, for error messages ('regularizer').
        base: the family's base class; its instances pass through `get`.
        by_name: Keras names and class names -> classes.
    """

    def __init__(self, kind, base, by_name):
        self.kind = kind
        self.base = base
        self.by_name = by_name

    def serialize(self, obj):
        return {"class_name": type(obj).__name__, "config": obj.get_config()}

    def deserialize(self, config):
        cls = self.by_name.get(config.get("class_name"))
        if cls is None:
            raise ValueError(f"Unknown {self.kind} class {config.get('class_name')!r}.")
        return cls.from_config(config.get("config", {}))

    def get(self, identifier):
        """An instance from a name, a config dict, an instance or a callable.

        Raises:
            ValueError: for an unknown name, listing the valid ones.
        """
        if identifier is None or isinstance(identifier, self.base):
            return identifier
        if isinstance(identifier, dict):
            return self.deserialize(identifier)
        if isinstance(identifier, str):
            if identifier not in self.by_name:
                raise ValueError(f"Unknown {self.kind}: {identifier!r}. Valid names are "
                                 f"{sorted(self.by_name)}.")
            return self.by_name[identifier]()
        if callable(identifier):
            return identifier
        raise ValueError(f"Could not interpret {self.kind} identifier: {identifier!r}.")


def function_or_instance(kind, name, functions, classes):
    """Keras's rule for losses and metrics named by a string: a function name gives
    the function, a class name a new instance.

    Raises:
        ValueError: for an unknown name, listing the valid names.
    """
    if name in functions:
        return functions[name]
    if name in classes:
        return classes[name]()
    raise ValueError(f"Unknown {kind}: {name!r}. Valid names are: "
                     f"{sorted(set(functions) | set(classes))}.")
