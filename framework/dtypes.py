"""`tf.dtypes` as an import path (`import tapeflow.dtypes`): the module lives in core/."""
import sys

from .core import dtypes

sys.modules[__name__] = dtypes
