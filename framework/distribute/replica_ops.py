"""replica_ops.py holds the differentiable collectives a layer may use inside a
replica's step: `all_sum` sums a tensor over the replicas, and its gradient is
the sum of the replicas' upstream gradients (every replica's loss depends on
the sum). Synchronized BatchNormalization computes the global batch's moments
with it."""

import numpy as np

from ..autodiff.custom_gradient import custom_gradient
from ..core.tensor import Tensor
from . import collectives
from . import context as _context

__all__ = ["all_sum", "in_distributed_step"]


def in_distributed_step():
    """Whether a replica step of a strategy with several replicas runs now."""
    return _context.replica.strategy is not None


def _summed(tensor):
    world = _context.replica.strategy._world
    (total,) = collectives.allreduce_sum(world, [np.asarray(tensor._value)])
    return Tensor(total.astype(tensor._value.dtype, copy=False))


def all_sum(tensor):
    """`tensor` summed over the replicas of the running step (itself outside one)."""
    if not in_distributed_step():
        return tensor

    @custom_gradient
    def summed(x):
        return _summed(x), _summed

    return summed(tensor)
