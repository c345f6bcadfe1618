"""tf.saved_model: `save` and `load` of tf.Modules and Keras models in
tapeflow's own format (save_load.py says what it holds and why it is not TF's)."""

from .save_load import contains_saved_model, load, save
from .signatures import DEFAULT_SERVING_SIGNATURE_DEF_KEY

SERVING = "serve"

__all__ = ["save", "load", "contains_saved_model", "DEFAULT_SERVING_SIGNATURE_DEF_KEY",
           "SERVING"]
