"""tf.saved_model: `save` and `load` of tf.Modules and Keras models in
tapeflow's own format (save_load.py says what it holds and why it is not TF's)."""

from .save_load import LoadOptions, SaveOptions, contains_saved_model, load, save
from .signatures import DEFAULT_SERVING_SIGNATURE_DEF_KEY

SERVING = "serve"

__all__ = ["save", "load", "contains_saved_model", "SaveOptions", "LoadOptions",
           "DEFAULT_SERVING_SIGNATURE_DEF_KEY", "SERVING"]


def __getattr__(name):
    raise AttributeError(f"module 'tapeflow.saved_model' has no attribute {name!r}: "
                         f"tf.saved_model.{name} is not implemented in tapeflow; "
                         f"tf.saved_model has {', '.join(__all__)}.")
