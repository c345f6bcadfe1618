"""tf.types: the types of TF's API that user code may implement. tapeflow has
`tf.types.experimental`'s tracing protocol (trace_type.py): a class with a
`__tf_tracing_type__` method decides when tapeflow.function retraces for it.
"""

from . import trace_type as experimental

__all__ = ["experimental"]
