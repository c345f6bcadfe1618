"""`tapeflow.testing` (also `tf.test`): numerical gradient checks
(gradients.py). The shared layer check, `check_layer`, is in layers.py and is
imported by path, since it needs the layers this package sits below."""

from .gradients import *  # noqa: F401,F403
from .gradients import __all__  # noqa: F401
