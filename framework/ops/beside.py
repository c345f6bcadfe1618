"""beside.py: what a forward computes for its backward, kept beside its output
array until that array dies (a weakref.finalize on it): conv2d's im2col
columns, max_pool2d's argmax, the LSTM's gates and the GRU's recurrent products.
Keyed by the output array's id, which no other live array has; each op keeps
its own table, so that one op never reads what another kept. `backward_follows`
says when keeping pays."""

import weakref

from ..core import record as _record

__all__ = ["Beside", "backward_follows"]


def backward_follows():
    """Whether a backward may read what a forward keeps: a tape records in the
    calling thread (tapes record their own thread's ops only), or a graph traced
    with its GradientTape replays (record.replaying)."""
    return _record.recording_here() or bool(_record.replaying)


class Beside:
    """A table of values kept beside output arrays: `keep(out, value)`, `get(out)`."""

    __slots__ = ("_values",)

    def __init__(self):
        self._values = {}

    def keep(self, out, value):
        """Keep `value` until the array `out` dies."""
        self._values[id(out)] = value
        weakref.finalize(out, self._values.pop, id(out), None)

    def get(self, out):
        """What was kept beside the array `out`, or None."""
        return self._values.get(id(out))

    def __len__(self):
        return len(self._values)
