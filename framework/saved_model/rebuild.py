"""rebuild.py owns making the object `tf.saved_model.load` returns, before its
Variables are restored: finding the saved class (imported by its path, or, in
the process that saved it, the class it saved), and building an
instance (Keras `from_config`, the saved constructor arguments, or a deep copy
of the live original). Reading and writing the directory is save_load.py's."""

import copy
import importlib
import os
import weakref

import numpy as np

__all__ = ["find_class", "rebuild", "remember_saved"]

# export directory -> (the class saved there by this process, a weak reference to
# the object): the class is kept (small), the object only while the program keeps it
_saved_here = {}

_NEED = ("tapeflow's SavedModel rebuilds the object from its class, so the code that defines "
         "it must be importable when loading (a deliberate difference from TF, whose "
         "SavedModel holds traced graphs)")


def remember_saved(obj, export_dir):
    """Note that `obj` was saved to `export_dir`, for a load in this same process."""
    try:
        ref = weakref.ref(obj)
    except TypeError:  # an object that takes no weak references
        ref = None
    _saved_here[os.path.abspath(export_dir)] = (type(obj), ref)


def _saved_by_this_process(path, export_dir):
    """(class, live original or None) saved to `export_dir` by this process as `path`."""
    cls, ref = _saved_here.get(os.path.abspath(export_dir), (None, None))
    if cls is None or f"{cls.__module__}:{cls.__qualname__}" != path:
        return None, None
    return cls, None if ref is None else ref()


def find_class(path, export_dir):
    """(the class saved as 'module:qualname', the live original saved by this process or None).

    Raises:
        ImportError: naming the module or class when neither import nor this
            process has it.
    """
    saved_class, live = _saved_by_this_process(path, export_dir)
    module_name, _, qualname = path.partition(":")
    try:
        target = importlib.import_module(module_name)
    except ImportError as error:
        if saved_class is not None:
            return saved_class, live
        raise ImportError(f"Cannot load the SavedModel: module {module_name!r} of class "
                          f"{qualname!r} cannot be imported ({error}). {_NEED}.") from None
    for part in qualname.split("."):
        target = getattr(target, part, None)
        if target is None:
            if saved_class is not None:
                return saved_class, live
            where = (" It is defined inside a function, so only the process that saved it can "
                     "load it; define it at module level." if "<locals>" in qualname else
                     " In a script, define the class before calling tf.saved_model.load.")
            raise ImportError(f"Cannot load the SavedModel: class {qualname!r} is not defined "
                              f"in module {module_name!r}. {_NEED}.{where}")
    return target, live


def _from_config(cls, config):
    """`cls.from_config(config)`, or None when there is no config or it does not fit
    the constructor (a subclassed model whose __init__ takes only its own arguments)."""
    if config is None:
        return None
    try:
        return cls.from_config(config)
    except (TypeError, ValueError, NotImplementedError):
        return None


def _build_keras(obj, shape):
    """Create the Variables of an unbuilt Keras model by calling it on zeros, as
    `Model.build(input_shape)` does, so they exist (and are restored) at once."""
    if getattr(obj, "built", True) or not shape or not all(
            isinstance(d, int) or d is None for d in shape):
        return
    dtype = getattr(obj, "dtype", None) or "float32"
    obj(np.zeros([1 if d is None else d for d in shape], dtype=dtype), training=False)


def rebuild(cls, metadata, live):
    """A new instance of `cls` as the saved one was made, its Variables not yet restored.

    Tried in order: Keras `from_config` of the saved config; the class called
    with the saved (plain-valued) constructor arguments; in the process that
    saved it, a deep copy of the live original (its Variables are then
    overwritten with the saved values).

    Raises:
        TypeError: when none applies, naming the class and its arguments.
    """
    obj = _from_config(cls, metadata.get("keras_config"))
    if obj is None:
        arguments = metadata.get("arguments")
        if arguments is None and live is not None:
            return copy.deepcopy(live)
        arguments = arguments or {"args": [], "kwargs": {}}
        try:
            obj = cls(*arguments["args"], **arguments["kwargs"])
        except TypeError as error:
            if live is not None:
                return copy.deepcopy(live)
            plain = ("its constructor arguments were not plain values (numbers, strings, "
                     "lists, dicts), so they were not saved" if metadata.get("arguments") is None
                     else f"calling it with its saved constructor arguments {arguments} failed")
            raise TypeError(f"Cannot rebuild {cls.__qualname__} for tf.saved_model.load: {plain} "
                            f"({error}). tapeflow's SavedModel rebuilds an object by calling its "
                            "class with the plain-valued arguments it was made with; only the "
                            "process that saved it can load it otherwise.") from None
    _build_keras(obj, metadata.get("build_input_shape"))
    return obj
