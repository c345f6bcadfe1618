"""`tf.keras.losses`: the Loss classes (losses.py) and the loss functions
(functions.py), with `get`/`serialize`/`deserialize` by Keras name."""

from .losses import *  # noqa: F401,F403
from .losses import __all__ as _loss_names
from .reduction import Reduction  # noqa: F401

__all__ = _loss_names + ["Reduction"]
