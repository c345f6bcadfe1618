"""strategy.py is tf.distribute's Strategy API over MPI ranks: one replica per
process, started by `mpiexec -n N python train.py` on one machine or many (a
hostfile, Slurm). Gradients are summed over the replicas inside
`apply_gradients`, as TF's optimizers do in a replica context; variables
created under `scope()` start from rank 0's values; datasets are split so that
each rank takes its shard of every global batch. In a process not started by
mpiexec, the same script runs as one replica.

Differences from TF, on purpose: a replica is a process, never a device, so
`MirroredStrategy` (one machine, several devices in TF) is the same MPI-backed
strategy as `MultiWorkerMirroredStrategy`; values are never PerReplica objects
(each process holds its own replica's value), so `experimental_local_results`
returns a one-element tuple."""

import contextlib
import enum

import numpy as np

from ..core import nest
from ..core.tensor import Tensor, Variable, convert_to_tensor
from . import collectives
from . import context as _context
from .world import world

__all__ = ["Strategy", "MultiWorkerMirroredStrategy", "MirroredStrategy",
           "OneDeviceStrategy", "ReduceOp", "InputContext", "ReplicaContext", "get_strategy",
           "has_strategy", "in_cross_replica_context", "get_replica_context",
           "experimental_set_strategy"]


class ReduceOp(enum.Enum):
    SUM = "SUM"
    MEAN = "MEAN"


class InputContext:
    """What `distribute_datasets_from_function` tells the dataset function."""

    def __init__(self, num_input_pipelines=1, input_pipeline_id=0, num_replicas_in_sync=1):
        self.num_input_pipelines = num_input_pipelines
        self.input_pipeline_id = input_pipeline_id
        self.num_replicas_in_sync = num_replicas_in_sync

    def get_per_replica_batch_size(self, global_batch_size):
        if global_batch_size % self.num_replicas_in_sync:
            raise ValueError(f"The `global_batch_size` {global_batch_size} is not divisible by "
                             f"`num_replicas_in_sync` {self.num_replicas_in_sync}")
        return global_batch_size // self.num_replicas_in_sync


class _ClusterResolver:
    """The part of TF's cluster resolver programs read: this worker's task."""

    def __init__(self, rank, size):
        self.task_type = "worker"
        self.task_id = rank
        self.num_workers = size

    def num_accelerators(self, *args, **kwargs):
        return {}

    def cluster_spec(self):
        return {"worker": [f"rank:{r}" for r in range(self.num_workers)]}


def shard_bounds(n, rank, size):
    """Rows [start, stop) of a global batch of `n` rows that `rank` takes: balanced,
    the first n % size ranks one row more; a rank may get none."""
    base, extra = divmod(n, size)
    start = rank * base + min(rank, extra)
    return start, start + base + (rank < extra)


def _shard(structure, rank, size):
    """This rank's rows of every array or tensor in a batch structure."""
    def cut(value):
        if value is None:
            return None
        array = value._value if isinstance(value, Tensor) else np.asarray(value)
        if array.ndim == 0:
            return value
        start, stop = shard_bounds(array.shape[0], rank, size)
        part = array[start:stop]
        return convert_to_tensor(part) if isinstance(value, Tensor) else part
    return nest.map_structure(cut, structure)


class Strategy:
    """One replica per MPI rank (see the module docstring)."""

    def __init__(self, world_=None):
        self._world = world_ or world()
        self.cluster_resolver = _ClusterResolver(self._world.rank, self._world.size)
        self.extended = self

    # -- the replica set ---------------------------------------------------------------
    @property
    def num_replicas_in_sync(self):
        return self._world.size

    @property
    def _distributed(self):
        return self._world.size > 1

    @property
    def is_chief(self):
        """Rank 0: the one that writes files and shows progress (not in TF's API)."""
        return self._world.is_chief

    @contextlib.contextmanager
    def scope(self):
        """Make this strategy current: variables created inside start from rank 0's
        values, and models created or compiled inside train with it."""
        _context.set_current(self, True)
        try:
            yield self
        finally:
            _context.set_current(self, False)

    # -- steps -------------------------------------------------------------------------
    def run(self, fn, args=(), kwargs=None, options=None):
        """Run `fn(*args, **kwargs)` as this process's replica: `apply_gradients` inside
        sums the gradients over the replicas, as in TF (scale a per-example loss by the
        global batch size, e.g. with tf.nn.compute_average_loss)."""
        replica = _context.replica
        outer = replica.strategy, replica.running
        replica.strategy, replica.running = (self if self._distributed else None), self
        try:
            with self.scope():
                return fn(*args, **(kwargs or {}))
        finally:
            replica.strategy, replica.running = outer

    def _sum_over_replicas(self, arrays):
        return collectives.allreduce_sum(self._world, arrays)

    def reduce(self, reduce_op, value, axis=None):
        """`value` reduced over the replicas (and over `axis` first, when given): with
        MEAN and an axis, the mean over the global batch, as TF."""
        op = ReduceOp(reduce_op.value if isinstance(reduce_op, ReduceOp) else
                      str(reduce_op).upper())

        def one(v):
            array = np.asarray(v._value if isinstance(v, Tensor) else v)
            count = 1 if axis is None else array.shape[axis]
            if axis is not None:
                array = array.sum(axis=axis)
            total, n = collectives.allreduce_sum(
                self._world, [np.asarray(array, np.float64 if array.dtype.kind == "f" else
                                         array.dtype), np.array([count], np.int64)])
            result = total / n[0] if op is ReduceOp.MEAN else total
            return convert_to_tensor(np.asarray(result).astype(array.dtype, copy=False))
        return nest.map_structure(one, value)

    def gather(self, value, axis):
        """The replicas' values concatenated along `axis`, in rank order."""
        def one(v):
            array = np.asarray(v._value if isinstance(v, Tensor) else v)
            return convert_to_tensor(collectives.allgather(self._world, array, axis))
        return nest.map_structure(one, value)

    def experimental_local_results(self, value):
        return (value,)

    # -- datasets ----------------------------------------------------------------------
    def experimental_distribute_dataset(self, dataset, options=None):
        """Iterate `dataset`'s global batches, this rank taking its shard of each.
        Every rank must see the same global batches (shuffle with a seed)."""
        return _ShardedDataset(dataset, self._world.rank, self._world.size)

    def distribute_datasets_from_function(self, dataset_fn, options=None):
        """`dataset_fn(InputContext)` on each rank: the function makes its own shard."""
        size = self._world.size
        return dataset_fn(InputContext(size, self._world.rank, size))

    def shard_batch(self, batch):
        """This rank's part of a global batch structure (not in TF's API: fit uses it)."""
        return _shard(batch, self._world.rank, self._world.size) if self._distributed else batch

    # -- state -------------------------------------------------------------------------
    def broadcast_variables(self, variables):
        """Give every rank rank 0's values of `variables` (not in TF's API)."""
        collectives.broadcast(self._world, [v._value for v in variables])

    def _broadcast_new_variable(self, variable):
        collectives.broadcast(self._world, [variable._value])

    def broadcast_value(self, value):
        return collectives.broadcast_object(self._world, value)


class _ShardedDataset:
    def __init__(self, dataset, rank, size):
        self._dataset, self._rank, self._size = dataset, rank, size

    def __iter__(self):
        for batch in self._dataset:
            yield _shard(batch, self._rank, self._size) if self._size > 1 else batch

    @property
    def element_spec(self):
        return getattr(self._dataset, "element_spec", None)


class MultiWorkerMirroredStrategy(Strategy):
    """TF's multi-worker data parallelism, with the workers as MPI ranks."""

    def __init__(self, cluster_resolver=None, communication_options=None):
        super().__init__()


class MirroredStrategy(Strategy):
    """On tapeflow a replica is an MPI rank, so this is MultiWorkerMirroredStrategy
    under TF's single-machine name; `devices` and `cross_device_ops` are accepted."""

    def __init__(self, devices=None, cross_device_ops=None):
        super().__init__()


class _OneReplica:
    rank, size, is_chief, comm = 0, 1, True, None


class OneDeviceStrategy(Strategy):
    """One replica in this process, whatever the launcher (TF's OneDeviceStrategy)."""

    def __init__(self, device="/cpu:0"):
        super().__init__(_OneReplica())


_default = None


def get_strategy():
    """The strategy whose scope is open, or the default one-replica strategy."""
    global _default
    current = _context.current()
    if current is not None:
        return current
    if _default is None:
        _default = OneDeviceStrategy()
    return _default


def has_strategy():
    return _context.current() is not None


def in_cross_replica_context():
    replica = _context.replica
    return _context.current() is not None and replica.strategy is None and replica.running is None


class ReplicaContext:
    """`tf.distribute.get_replica_context()` inside a replica's step."""

    def __init__(self, strategy):
        self.strategy = strategy
        self.num_replicas_in_sync = strategy.num_replicas_in_sync
        self.replica_id_in_sync_group = strategy._world.rank

    def all_reduce(self, reduce_op, value, options=None):
        return self.strategy.reduce(reduce_op, value)


def get_replica_context():
    """The replica context in a step (None in a cross-replica context, as TF)."""
    strategy = _context.replica.running or _context.replica.strategy or _context.current()
    if strategy is None:
        return ReplicaContext(get_strategy())
    return ReplicaContext(strategy) if not in_cross_replica_context() else None


def experimental_set_strategy(strategy):
    """Make `strategy` current outside any `with` block (None: back to the default)."""
    while _context.current() is not None:
        _context.set_current(_context.current(), False)
    if strategy is not None:
        _context.set_current(strategy, True)
