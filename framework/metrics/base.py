"""base.py owns the `Metric` base class (state in non-trainable
Variables, updated from NumPy arrays, never on a tape, under a lock per
metric), the `Sum` and `Mean` reductions, and the NumPy helpers (rank
matching, sample weighting) that every metric module shares. Concrete metrics
live in accuracy_metrics.py and confusion.py."""

import functools
import threading

import numpy as np

from .. import initializers
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, Variable, convert_to_tensor

__all__ = ["Metric", "Mean", "Sum"]


def _array(x):
    """The NumPy value of a Tensor, Variable, array or nested list (never recorded)."""
    if isinstance(x, Tensor):
        return x._value
    return np.asarray(x)


def _detached(x):
    """A fresh Tensor no tape tracks, so loss functions used as metrics are not recorded."""
    return Tensor(x._value) if isinstance(x, Tensor) else convert_to_tensor(x)


def _same_rank(x1, x2, expand_rank_1=True):
    """Keras's squeeze_or_expand_to_same_rank on ndarrays."""
    r1, r2 = x1.ndim, x2.ndim
    if r1 == r2 + 1 and x1.shape[-1] == 1:
        if r2 == 1 and expand_rank_1:
            x2 = x2[..., None]
        else:
            x1 = x1[..., 0]
    elif r2 == r1 + 1 and x2.shape[-1] == 1:
        if r1 == 1 and expand_rank_1:
            x1 = x1[..., None]
        else:
            x2 = x2[..., 0]
    return x1, x2


def _broadcast(array, shape, what):
    try:
        return np.broadcast_to(array, shape)
    except ValueError:
        raise InvalidArgumentError(f"{what} of shape {array.shape} cannot be broadcast to "
                                   f"shape {tuple(shape)}.") from None


def _samplewise(values, sample_weight, reduce_fn, dtype):
    """Keras's reduce_to_samplewise_values: one (weighted) value per sample."""
    values = np.asarray(values, dtype=dtype)
    if sample_weight is not None:
        sample_weight = np.asarray(_array(sample_weight), dtype=dtype)
        values, sample_weight = _same_rank(values, sample_weight)
        w_ndim = sample_weight.ndim
        if values.ndim > w_ndim:
            values = reduce_fn(values, axis=tuple(range(w_ndim, values.ndim)))
        sample_weight = _broadcast(sample_weight, values.shape, "sample_weight")
        values = values * sample_weight
        if w_ndim > 1:
            sample_weight = reduce_fn(sample_weight, axis=tuple(range(1, w_ndim)))
    if values.ndim > 1:
        values = reduce_fn(values, axis=tuple(range(1, values.ndim)))
    return values, sample_weight


def _divide_no_nan(x, y):
    x, y = np.asarray(x), np.asarray(y)
    if y.ndim == 0:  # the common case (Mean, every step of fit): no array temporaries
        return np.asarray(x / y if y != 0 else np.zeros_like(x), x.dtype)
    return np.where(y == 0, np.zeros_like(x), x / np.where(y == 0, 1, y)).astype(x.dtype)


def _snake(name):
    return "".join("_" + c.lower() if c.isupper() and i and not name[i - 1].isupper()
                   else c.lower() for i, c in enumerate(name))


_LOCKED = ("update_state", "result", "reset_state")
_lock_creation = threading.Lock()


def _state_lock(metric):
    lock = metric.__dict__.get("_state_lock")
    if lock is None:
        with _lock_creation:
            lock = metric.__dict__.setdefault("_state_lock", threading.RLock())
    return lock


def _locked(method):
    """`method` run under its metric's lock: a metric updated in one thread and
    read in another (a monitor, a callback) never shows half an update, e.g. a
    Mean's new total over its old count."""
    @functools.wraps(method)
    def locked(self, *args, **kwargs):
        with _state_lock(self):
            return method(self, *args, **kwargs)
    locked._locked = True
    return locked


class Metric:
    """Base class of metrics: state in non-trainable Variables.

    Subclasses create state with `add_variable` in `__init__` and implement
    `update_state(...)` and `result()`. `__call__` updates, then returns the result.
    Each metric's `update_state`, `result` and `reset_state` run under a lock
    of its own, so threads never see a half-done update.

    Args:
        name: the metric's name (its key in the training logs).
        dtype: the dtype of the state (float32).
    """

    _direction = None  # 'up' or 'down': whether larger is better (EarlyStopping's mode='auto')

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        for name in _LOCKED:
            method = cls.__dict__.get(name)
            if method is not None and not getattr(method, "_locked", False):
                setattr(cls, name, _locked(method))

    def __getstate__(self):  # copies and pickles get a lock of their own
        state = dict(self.__dict__)
        state.pop("_state_lock", None)
        return state

    def __init__(self, name=None, dtype=None):
        self.name = name or _snake(type(self).__name__)
        self.dtype = np.dtype(dtype or "float32").name
        self._variables = []

    def add_variable(self, shape=(), initializer="zeros", dtype=None, aggregation="sum",
                     name=None):
        """A non-trainable state Variable starting at `initializer` (a Keras
        initializer or its name), set to zeros by `reset_state` as Keras does.
        `aggregation` is accepted for Keras's signature (one process sums nothing)."""
        dtype = np.dtype(dtype or self.dtype)
        shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
        value = np.zeros(shape, dtype)
        if initializer is not None and initializer != "zeros":
            value = np.asarray(_array(initializers.get(initializer)(shape, dtype=dtype.name)),
                               dtype)
        variable = Variable(value, trainable=False, name=name or "variable")
        self._variables.append(variable)
        return variable

    def add_weight(self, *args, **kwargs):
        """Keras 3's `add_weight(shape=(), initializer=None, dtype=None, name=None)`,
        or Keras 2's, whose first argument is the name: `add_weight("tp", ...)`."""
        if args and isinstance(args[0], str):
            kwargs["name"], args = args[0], args[1:]
        kwargs.pop("synchronization", None)
        return self.add_variable(*args, **kwargs)

    @property
    def variables(self):
        return list(self._variables)

    non_trainable_variables = variables
    weights = variables

    @property
    def trainable_variables(self):
        return []

    @_locked
    def reset_state(self):
        """Set every state variable back to zero."""
        for variable in self._variables:
            variable.assign(np.zeros_like(variable._value))

    def reset_states(self):  # TF 2's name; reaches a subclass's reset_state
        self.reset_state()

    def update_state(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must implement update_state.")

    def result(self):
        raise NotImplementedError(f"{type(self).__name__} must implement result.")

    def __call__(self, *args, **kwargs):
        with _state_lock(self):  # the result of this update, no other thread's
            self.update_state(*args, **kwargs)
            return self.result()

    def get_config(self):
        return {"name": self.name, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name!r}>"


class Sum(Metric):
    """The (weighted) sum of the values seen. `Sum()([1, 3, 5, 7])` is 16."""

    def __init__(self, name="sum", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(name="total")

    def update_state(self, values, sample_weight=None):
        values, _ = _samplewise(_array(values), sample_weight, np.sum, self.dtype)
        self.total.assign_add(np.asarray(np.sum(values), self.dtype))

    def result(self):
        return Tensor(self.total._value.copy())


class Mean(Metric):
    """The (weighted) mean of the values seen: total / count.

    >>> m = Mean(); m.update_state([1, 3, 5, 7]); float(m.result())  # 4.0
    """

    def __init__(self, name="mean", dtype=None):
        super().__init__(name=name, dtype=dtype)
        self.total = self.add_variable(name="total")
        self.count = self.add_variable(name="count")

    def update_state(self, values, sample_weight=None):
        values = np.asarray(_array(values), self.dtype)
        if values.ndim == 0:  # fit's loss tracker at every step: a scalar weighted by the batch
            weight = None if sample_weight is None else np.asarray(_array(sample_weight),
                                                                   self.dtype)
            if weight is None or weight.ndim == 0:  # _samplewise's values, without its passes
                self.total.assign_add(values if weight is None else values * weight)
                self.count.assign_add(np.ones((), self.dtype) if weight is None else weight)
                return
        values, sample_weight = _samplewise(values, sample_weight, np.mean, self.dtype)
        self.total.assign_add(np.asarray(np.sum(values), self.dtype))
        if sample_weight is not None:
            count = np.sum(sample_weight)
        else:
            count = values.shape[0] if values.ndim >= 1 else 1
        self.count.assign_add(np.asarray(count, self.dtype))

    def result(self):
        return Tensor(_divide_no_nan(self.total._value, self.count._value))
