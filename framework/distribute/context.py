"""context.py holds which strategy is current and whether this thread is in a
replica's step: the two facts optimizers and the fit loop ask on every step,
so asking is one attribute read. A strategy's `scope()` makes it current for
the process (a rank is a process, as TF's strategy scope is per process);
`strategy.run` and fit mark the replica context of the calling thread."""

import threading

from ..core import tensor as _tensor

__all__ = ["current", "set_current", "replica", "ReplicaState"]

_current = []  # the strategies whose scope is open, innermost last


class ReplicaState(threading.local):
    def __init__(self):
        self.strategy = None   # the distributed strategy whose replica step runs now
        self.running = None    # the strategy whose `run` is on the stack (any size)
        self.loss_scale = 1.0  # this replica's share of the global batch (fit)


replica = ReplicaState()


def current():
    """The strategy whose scope is open, or None (the default strategy)."""
    return _current[-1] if _current else None


def set_current(strategy, entering):
    if entering:
        _current.append(strategy)
    elif _current and _current[-1] is strategy:
        _current.pop()
    else:
        raise RuntimeError("Strategy scopes must be exited in the reverse order of entering.")
    # Variables created in a distributed strategy's scope start from rank 0's values,
    # as TF's mirrored variables start from replica 0's.
    top = current()
    _tensor._variable_created = (top._broadcast_new_variable if top is not None
                                 and top._distributed else None)


def sum_gradients(arrays):
    """Gradients summed over the replicas when a distributed replica step runs (as TF's
    optimizer aggregates in replica context); unchanged otherwise."""
    strategy = replica.strategy
    if strategy is None:
        return arrays
    return strategy._sum_over_replicas(arrays)
