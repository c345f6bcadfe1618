"""`tf.nest` as an import path (`import tapeflow.nest`): the module lives in core/."""
import sys

from .core import nest

sys.modules[__name__] = nest
