"""`tf.errors` as an import path (`import tapeflow.errors`): the module lives in core/."""
import sys

from .core import errors

sys.modules[__name__] = errors
