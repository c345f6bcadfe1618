"""missing.py words the AttributeError of a tf.data name tapeflow does not
have (a `tf.data.X`, a `tf.data.experimental.X` or a Dataset method of TF's),
naming it and listing what tapeflow.data offers instead of a bare message."""

__all__ = ["TF_DATASET_METHODS", "missing_attribute", "missing_method"]

# Dataset methods of TF 2.x that tapeflow lacks: their AttributeError says so.
TF_DATASET_METHODS = frozenset(["group_by_reducer", "snapshot", "sparse_batch", "distributed_save"])


def missing_attribute(namespace, names):
    """A module `__getattr__` raising an AttributeError that names
    `namespace.name` and lists `names`, what the namespace has."""
    def __getattr__(name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise AttributeError(f"module '{namespace}' has no attribute '{name}': {namespace}."
                             f"{name} is not implemented in tapeflow. {namespace} has: "
                             f"{', '.join(sorted(names))}.")
    return __getattr__


def missing_method(name):
    """The AttributeError of `dataset.name` for a name that is not a method."""
    if name in TF_DATASET_METHODS:
        return AttributeError(f"Dataset.{name} is a tf.data method that tapeflow does not "
                              "implement yet; build it from map, filter, batch, padded_batch, "
                              "window and flat_map.")
    return AttributeError(f"'Dataset' object has no attribute '{name}'")
