"""init_scope.py is `tf.init_scope`: code under it inside a traced function runs
once, eagerly, while tracing, and is not recorded, as TF lifts it out of the
function-building graph (a Variable's initial assignment, a counter set once).
Its tensors are constants of the graph; a tensor of the trace (an argument,
anything computed from one) given to an op under it raises TF's TypeError,
since its value differs at every call. Tapes do not record under it, as in TF,
in or out of a traced function. Where tapeflow differs: a signature that runs
eagerly (function.py's fallback for what a graph cannot replay) runs its Python,
the code under init_scope included, at every call.
"""

import contextlib

from ..core import record as _record
from ..core.tensor import Tensor, Variable
from .tracing import current_trace, untraced

__all__ = ["init_scope"]


@contextlib.contextmanager
def init_scope():
    """`with tf.init_scope():` lifts its code out of the trace being recorded."""
    if current_trace() is None:
        with _record.paused():
            yield
        return
    with untraced(_Lifted), _record.paused():
        yield


class _Lifted:
    """The trace's stand-in while code under init_scope runs (tracing.py asks it
    about each op and value read): records nothing, refuses the trace's tensors."""

    lifted = True
    effects = ()
    problem = None
    may_create_variables = True

    def __init__(self, trace):
        self.trace = trace
        self.created_variables = []  # created outside the trace: nothing to retrace
        self.shape_dependent = False

    def is_dynamic(self, tensor):
        return type(tensor) is not Variable and self.trace.is_dynamic(tensor)

    def is_value_shaped(self, tensor):
        return self.trace.is_value_shaped(tensor)

    def add_op(self, op, inputs, attrs, out):
        for tensor in inputs:
            if isinstance(tensor, Tensor) and self.is_dynamic(tensor):
                self.untraceable(f"the op {op.name!r} under tf.init_scope was given a tensor "
                                 "computed inside the traced function")

    def untraceable(self, why):
        raise TypeError(f"{why} ({self.trace.name}): code under tf.init_scope runs once, "
                        "eagerly, outside the function's graph, so it cannot use the "
                        "function's tensors (its arguments or values computed from them).")
