"""`tf.keras.metrics`: the `Metric` base and reductions (base.py), accuracy
and loss-function metrics with `get`/`resolve` (accuracy.py), and the
confusion-matrix metrics (confusion.py), the mean-of-a-loss metrics
(probabilistic.py)."""

from .accuracy_metrics import *  # noqa: F401,F403
from .accuracy_metrics import __all__ as _accuracy_names
from .probabilistic import *  # noqa: F401,F403
from .probabilistic import __all__ as _probabilistic_names

__all__ = _accuracy_names + _probabilistic_names
