"""tf.distribute: data-parallel training over MPI ranks (strategy.py), with
mpi4py imported only when a strategy is made (world.py). Re-exports only."""

from .strategy import (InputContext, MirroredStrategy, MultiWorkerMirroredStrategy,  # noqa: F401
                       OneDeviceStrategy, ReduceOp, ReplicaContext, Strategy,
                       experimental_set_strategy, get_replica_context, get_strategy,
                       has_strategy, in_cross_replica_context)
from . import experimental  # noqa: F401

__all__ = ["InputContext", "MirroredStrategy", "MultiWorkerMirroredStrategy",
           "OneDeviceStrategy", "ReduceOp", "ReplicaContext", "Strategy", "experimental",
           "experimental_set_strategy", "get_replica_context", "get_strategy", "has_strategy",
           "in_cross_replica_context"]
