"""record.py owns the recording stack: the tapes that are recording now, and
`record`, which an op calls to leave one small record on each tape that
tracks one of its inputs. It sits below the ops so that they can report to
it; the tapes themselves and the backward walk are autodiff/'s."""

import contextlib
import operator

from .tensor import Variable

__all__ = ["record", "paused"]

# The tapes currently recording, outermost first. Ops test this list before
# doing any tape work, so an op run with no tape pays one truth test.
_recording = []


class _Record(tuple):
    """One recorded op application, (op, inputs, out, attrs): what the walk needs.

    A tuple, because making records is the hottest thing a tape does and a
    tuple is made without running any Python code.
    """

    __slots__ = ()
    op = property(operator.itemgetter(0))
    inputs = property(operator.itemgetter(1))
    out = property(operator.itemgetter(2))
    attrs = property(operator.itemgetter(3))

    @property
    def _op(self):  # label for debugging
        return self[0].name

    def __repr__(self):
        return f"<record {self.op.name} {[tuple(t.shape) for t in self.inputs]}>"


_new_record = tuple.__new__


def record(op, inputs, out, attrs):
    """Put `op` on every recording tape that tracks one of `inputs`."""
    if out._value.dtype.kind not in "fc":
        return  # integer and boolean results carry no gradient
    rec = None
    for tape in _recording:
        tracked = tape._tracked
        hit = False
        for t in inputs:
            if id(t) in tracked:
                hit = True
            elif (type(t) is Variable and tape._watch_accessed and t._trainable
                  and t._value.dtype.kind in "fc"):
                tape._watch_one(t)
                hit = True
        if hit:
            if rec is None:
                rec = _new_record(_Record, (op, inputs, out, attrs))
            tracked.add(id(out))
            tape._records.append(rec)


@contextlib.contextmanager
def paused():
    """No tape records inside the block (Keras's shape inference runs layers on
    placeholder values that no gradient should see)."""
    saved = list(_recording)
    _recording.clear()
    try:
        yield
    finally:
        _recording[:0] = saved
