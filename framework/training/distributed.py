"""distributed.py is what fit, evaluate and predict do differently under a
tf.distribute strategy with several replicas (MPI ranks): every rank reads the
same global batches (the shuffle seed is rank 0's) and takes its shard; the
model's weights start from rank 0's; each step's loss is scaled by the rank's
share of the global batch, so that the summed gradients are those of the
global batch's mean loss, whatever the shard sizes; metrics are reduced
exactly, as sums and counts, never as averages of averages; predictions are
gathered in the global order. With one replica every method is a pass-through."""

import contextlib

import numpy as np

from ..core import nest
from ..core import record as _record
from ..core.tensor import Tensor
from ..distribute import collectives
from ..distribute import context as _context

__all__ = ["Replicas", "batch_rows", "build"]


def build(model, x):
    """Build an unbuilt model by calling it on `x` (a batch, or its first rows), as
    Keras builds before fit's callbacks start; nothing is recorded."""
    if not model.built:
        with _record.paused():
            model(x, training=False)


def batch_rows(structure):
    """The number of rows of a batch (its first array's first dimension), or None
    when it holds no array of rank 1 or more."""
    for leaf in nest.flatten(structure):
        if leaf is not None:
            shape = np.shape(leaf._value if isinstance(leaf, Tensor) else leaf)
            if shape:
                return shape[0]
    return None


class Replicas:
    """The replica set a fit/evaluate/predict call runs on (see the module docstring)."""

    def __init__(self, model):
        strategy = getattr(model, "_distribute_strategy", None) or _context.current()
        self.strategy = strategy if strategy is not None and strategy._distributed else None
        self.model = model
        self._synchronized = False

    @property
    def active(self):
        return self.strategy is not None

    @property
    def is_chief(self):
        return self.strategy is None or self.strategy.is_chief

    def seed(self, seed):
        """Rank 0's shuffle seed on every rank: all must read the same global batches."""
        return self.strategy.broadcast_value(seed) if self.active else seed

    def batches(self, iterator, training=False):
        """This rank's shard of each global batch, with its share of the loss set."""
        if not self.active:
            yield from iterator
            return
        for batch in iterator:
            total = batch_rows(batch[0]) or 0
            shard = self.strategy.shard_batch(batch)
            if training and not self._synchronized:
                self._synchronize(shard)
            _context.replica.loss_scale = (batch_rows(shard[0]) or 0) / total if total else 1.0
            yield shard

    @contextlib.contextmanager
    def step(self):
        """A replica step: apply_gradients sums the gradients over the ranks."""
        if not self.active:
            yield
            return
        _context.replica.strategy = self.strategy
        try:
            yield
        finally:
            _context.replica.strategy = None
            _context.replica.loss_scale = 1.0

    def _synchronize(self, first_shard):
        """Build the model on the first shard if it is not built, then give every rank
        rank 0's weights (their initialisers drew different numbers)."""
        build(self.model, first_shard[0])
        self.strategy.broadcast_variables(self.model.weights)
        self._synchronized = True

    def synchronize_built(self):
        """Before training: rank 0's weights on every rank, if the model is built."""
        if self.active and self.model.built and not self._synchronized:
            self.strategy.broadcast_variables(self.model.weights)
            self._synchronized = True

    def empty_shard_step(self):
        """A rank whose shard of a short last batch is empty still joins the step's
        collective, with zero gradients, so that no rank waits forever."""
        model = self.model
        variables = model.trainable_variables
        zeros = [Tensor(np.zeros(v.shape, v._value.dtype)) for v in variables]
        model.optimizer.apply_gradients(zip(zeros, variables))
        return model.get_metrics_result()

    def reduced_logs(self, logs):
        """`logs` recomputed from the metrics' states summed over the ranks."""
        if not self.active:
            return logs
        model = self.model
        # The compiled metrics' container lists its metrics in `flat`.
        metrics = [leaf for m in model.metrics for leaf in getattr(m, "flat", [m])]
        arrays = [v._value for m in metrics for v in m.variables]
        saved = [a.copy() for a in arrays]
        for a, total in zip(arrays, collectives.allreduce_sum(self.strategy._world, arrays)):
            a[...] = total
        try:
            reduced = dict(logs)
            for m in model.metrics:
                value = m.result()
                if isinstance(value, dict):
                    reduced.update({k: _float(v) for k, v in value.items()})
                else:
                    reduced[m.name] = _float(value)
            return reduced
        finally:
            for a, local in zip(arrays, saved):
                a[...] = local

    def gather(self, outputs):
        """One batch's predictions from every rank, concatenated in rank order."""
        if not self.active:
            return outputs
        world = self.strategy._world
        return nest.map_structure(lambda a: collectives.allgather(world, a, 0), outputs)


def _float(value):
    value = np.asarray(value._value if isinstance(value, Tensor) else value)
    return float(value) if value.size == 1 else value
