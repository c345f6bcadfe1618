"""Old path of core/tensor.py, kept because pickles written before the move name it."""
import sys

from .core import tensor

sys.modules[__name__] = tensor
