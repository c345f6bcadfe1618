"""`tf.strings`: text functions over string tensors of any shape (and
RaggedTensors), as TF's. This package only re-exports: elementwise.py (case,
strip, length, substr, regular expressions), joining.py (join, reduce_join,
format, ngrams), splitting.py (split, bytes_split, unicode_*), numbers.py
(as_string, to_number, to_hash_bucket_fast; FarmHash in farmhash.py)."""

from .elementwise import *  # noqa: F401,F403
from .elementwise import __all__ as _elementwise
from .joining import *  # noqa: F401,F403
from .joining import __all__ as _joining
from .numbers import *  # noqa: F401,F403
from .numbers import __all__ as _numbers
from .splitting import *  # noqa: F401,F403
from .splitting import __all__ as _splitting

__all__ = _elementwise + _joining + _numbers + _splitting
