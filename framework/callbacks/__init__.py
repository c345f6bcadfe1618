"""`tf.keras.callbacks`: the `Callback` base (base.py), `CallbackList`, History
and the callbacks that steer training (steering.py), the progress display
(progbar.py), the callbacks that write files (file_writers.py) and TensorBoard's
(tensorboard.py)."""

from .steering import *
from .steering import __all__
from .tensorboard import TensorBoard

__all__ = __all__ + ["TensorBoard"]  # a new list: steering.__all__ stays its own
