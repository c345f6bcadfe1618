"""`tf.keras.callbacks`: the `Callback` base (base.py), `CallbackList`, History
and the callbacks that steer training (steering.py), the progress display
(progbar.py) and the callbacks that write files (file_writers.py)."""

from .steering import *  # noqa: F401,F403
from .steering import __all__  # noqa: F401
