"""`tf.keras.metrics`: the `Metric` base and reductions (base.py), accuracy
and loss-function metrics with `get`/`resolve` (accuracy.py), and the
confusion-matrix metrics (confusion.py)."""

from .accuracy_metrics import *  # noqa: F401,F403
from .accuracy_metrics import __all__  # noqa: F401
