"""save_load.py owns `tf.saved_model.save` and `tf.saved_model.load` in
tapeflow's own SavedModel format. Variables go through tf.train's checkpoint
code, Keras architectures through models/saving.py; the signatures are
signatures.py's.

Why not TF's format: TF's SavedModel holds traced graphs, which load runs
without the Python code. tapeflow never traces (`tf.function` runs eagerly),
so it cannot store functions. It stores instead what rebuilds the object
from its own code: the class's import path, its constructor arguments (a
Keras model's config), the variables, and the signatures as method names.
`load` imports the class, builds the object and restores the variables, so
the loaded object is an instance of the original class with all its methods
(rebuild.py). The price: the defining code must be importable when loading
(in the process that saved the object, the live original stands in for a
class or constructor arguments that cannot be saved: its class, a deep copy
of it), and TF cannot read these directories (nor tapeflow TF's).

Layout of `export_dir`:
    saved_model.json      the format, class path, arguments, signatures;
                          written last, so a directory without it is incomplete
    variables/variables.index   the checkpoint of the object's Variables
    keras_model.keras     a functional or Sequential Keras model as
                          `model.save` writes it (what `load_model` reads)
"""

import json
import os

import numpy as np

from ..core.errors import NotFoundError
from ..models.saving import KERAS_MODEL_FILE, load_model, save_model
from ..module import init_arguments, is_trackable
from ..train.checkpoint import Checkpoint
from ..train.checkpoint_file import atomic_write, read_checkpoint
from ..train.restore import Restoration
from .rebuild import find_class, rebuild, remember_saved
from .signatures import describe_signatures, load_signatures

__all__ = ["save", "load", "contains_saved_model", "SaveOptions", "LoadOptions"]

FORMAT = "tapeflow-saved-model-1"
_METADATA = "saved_model.json"
_VARIABLES = os.path.join("variables", "variables")


class SaveOptions:
    """`tf.saved_model.SaveOptions`: accepted for compatibility; none of its options
    (devices, namespace whitelists, debug info) applies to tapeflow's format."""

    def __init__(self, namespace_whitelist=None, save_debug_info=False, function_aliases=None,
                 experimental_debug_stripper=False, experimental_io_device=None,
                 experimental_variable_policy=None, experimental_custom_gradients=True,
                 experimental_image_format=False, experimental_skip_saver=False,
                 experimental_sharding_callback=None, extra_tags=None):
        self.namespace_whitelist = namespace_whitelist
        self.save_debug_info = save_debug_info
        self.function_aliases = function_aliases
        self.experimental_io_device = experimental_io_device


class LoadOptions:
    """`tf.saved_model.LoadOptions`: accepted for compatibility; changes nothing."""

    def __init__(self, allow_partial_checkpoint=False, experimental_io_device=None,
                 experimental_skip_checkpoint=False, experimental_variable_policy=None,
                 experimental_load_function_aliases=False):
        self.allow_partial_checkpoint = allow_partial_checkpoint
        self.experimental_io_device = experimental_io_device
        self.experimental_skip_checkpoint = experimental_skip_checkpoint


def _class_path(obj):
    cls = type(obj)
    return f"{cls.__module__}:{cls.__qualname__}"


def _numpy_scalar(value):
    if isinstance(value, (np.integer, np.floating, np.bool_)):
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _plain(value):
    """`value` as JSON gives it back (tuples become lists), or None when JSON cannot
    hold it (objects, Tensors, functions)."""
    try:
        return json.loads(json.dumps(value, default=_numpy_scalar))
    except (TypeError, ValueError):
        return None


def _keras_config(obj):
    """A Keras layer's or subclassed model's `get_config()`, when it is plain."""
    if not hasattr(obj, "_auto_config"):
        return None
    try:
        return _plain(obj.get_config())
    except (NotImplementedError, TypeError, ValueError):
        return None


def _constructor_arguments(obj):
    """{"args": [...], "kwargs": {...}} to call the class with again, or None."""
    if hasattr(obj, "_auto_config"):  # a Keras layer: its plain constructor arguments
        kwargs = obj._auto_config
        return None if kwargs is None else _plain({"args": [], "kwargs": dict(kwargs)})
    arguments = init_arguments(obj)
    if arguments is None:
        return None
    return _plain({"args": list(arguments[0]), "kwargs": dict(arguments[1])})


def _is_graph_model(obj):
    """A functional or Sequential Keras model, rebuilt from its config."""
    return getattr(obj, "_graph", None) is not None or type(obj).__name__ == "Sequential"


def save(obj, export_dir, signatures=None, options=None):
    """Save `obj` (a tf.Module, Keras layer or model) to the directory `export_dir`.

    tapeflow's own format (see this module's docstring): the Variables (a
    tf.train checkpoint), the class's import path and constructor arguments
    (for Keras functional and Sequential models, the `model.save` file), and
    the signatures as the names of methods of `obj`. Each file is written
    atomically; `saved_model.json`, removed first and written last, marks a
    complete export, so a save killed half way is never loaded as one.

    Args:
        obj: the object to save.
        export_dir: the directory to write (created if needed).
        signatures: None (a Keras model gets 'serving_default', its call), a
            method of `obj`, or a dict of signature key -> method.

    Raises:
        ValueError: for an object a checkpoint cannot track, or a signature
            that is not a method (or function attribute) of `obj`.
    """
    if not is_trackable(obj):
        raise ValueError(f"Expected a tf.Module, Keras layer or model to save, got {obj!r} of "
                         f"type {type(obj).__name__}.")
    export_dir = os.fspath(export_dir)
    metadata = {"format": FORMAT, "class": _class_path(obj),
                "arguments": _constructor_arguments(obj),
                "signatures": describe_signatures(obj, signatures),
                "keras_model": _is_graph_model(obj)}
    if not metadata["keras_model"]:
        metadata["keras_config"] = _keras_config(obj)
    shape = getattr(obj, "_build_input_shape", None)
    if shape is not None:
        metadata["build_input_shape"] = _plain(shape if not isinstance(shape, tuple)
                                               else list(shape))
    os.makedirs(os.path.join(export_dir, "variables"), exist_ok=True)
    marker = os.path.join(export_dir, _METADATA)
    if os.path.exists(marker):  # overwriting: until done, the directory is incomplete
        os.remove(marker)
    Checkpoint(root=obj).write(os.path.join(export_dir, _VARIABLES))
    if metadata["keras_model"]:
        save_model(obj, os.path.join(export_dir, KERAS_MODEL_FILE), include_optimizer=False)
    data = json.dumps(metadata, indent=1).encode()
    atomic_write(marker, lambda f: f.write(data))
    remember_saved(obj, export_dir)


def contains_saved_model(export_dir):
    """Whether `export_dir` holds a complete tapeflow SavedModel."""
    return os.path.isfile(os.path.join(os.fspath(export_dir), _METADATA))


def load(export_dir, tags=None, options=None):
    """Load what `tf.saved_model.save` wrote to `export_dir`.

    Imports the saved class, rebuilds the object (a Keras functional or
    Sequential model from its `model.save` file, anything else as rebuild.py
    says: `from_config`, the saved constructor arguments, or in the saving
    process a deep copy of the original), restores its Variables, and attaches
    `signatures` (key -> callable returning a dict of outputs). Unlike TF, the
    result is an instance of the original class.

    Raises:
        tf.errors.NotFoundError: when `export_dir` holds no SavedModel.
        ImportError: when the class cannot be imported, naming it.
        ValueError: when the rebuilt object's Variables do not fit the saved ones.
    """
    export_dir = os.fspath(export_dir)
    path = os.path.join(export_dir, _METADATA)
    try:
        with open(path, encoding="utf-8") as f:
            metadata = json.load(f)
    except FileNotFoundError:
        raise NotFoundError(f"Could not find SavedModel in {export_dir} (no {_METADATA}: not a "
                            "tapeflow SavedModel, or the save did not finish).") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ValueError(f"Cannot read {path}: it is corrupted or not a tapeflow SavedModel "
                         f"({error}).") from None
    if metadata.get("format") != FORMAT:
        raise ValueError(f"{path} is not a tapeflow SavedModel; TF's SavedModels cannot be "
                         "read by tapeflow.")
    cls, live = find_class(metadata["class"], export_dir)
    if metadata.get("keras_model"):
        obj = load_model(os.path.join(export_dir, KERAS_MODEL_FILE),
                         custom_objects={cls.__name__: cls}, compile=False)
    else:
        obj = rebuild(cls, metadata, live)
    prefix = os.path.join(export_dir, _VARIABLES)
    arrays, graph = read_checkpoint(prefix)
    restoration = Restoration(obj, prefix, arrays, graph)
    restoration.retry()
    unmatched = restoration.unmatched_objects()
    if unmatched:
        raise ValueError(f"The {cls.__qualname__} rebuilt from {export_dir} has Variables the "
                         f"SavedModel does not: {unmatched}. Has the class's code changed since "
                         "it was saved?")
    if restoration.pending_keys():  # Variables made later (a first call) get their values then
        object.__setattr__(obj, "_saved_model_restoration", restoration)
    object.__setattr__(obj, "signatures", load_signatures(obj, metadata["signatures"]))
    return obj
