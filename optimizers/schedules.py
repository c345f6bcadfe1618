"""schedules.py owns the learning-rate schedules of `tf.keras.optimizers.schedules`,
following keras/src/optimizers/schedules/learning_rate_schedule.py (Keras 3):
each is a callable of the step returning a float32 scalar Tensor, computed in
float32 as Keras does, with get_config/from_config."""

import math

import numpy as np

from ..core.tensor import Tensor

__all__ = ["LearningRateSchedule", "ExponentialDecay", "PiecewiseConstantDecay",
           "PolynomialDecay", "InverseTimeDecay", "CosineDecay", "CosineDecayRestarts",
           "serialize", "deserialize"]

_f32 = np.float32


def _step(step):
    if isinstance(step, Tensor):
        step = step._value
    return _f32(step)


def _positive(name, value, owner):
    if not value > 0:
        raise ValueError(f"{owner}: argument `{name}` must be > 0, got {name}={value!r}.")


class LearningRateSchedule:
    """Base class: subclasses implement `__call__(step)` and `get_config()`.

    The optimizer calls the schedule with its step count (iterations, a
    Python int) once per step.
    """

    def __call__(self, step):
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must "
                                  "override `__call__(self, step)`.")

    def get_config(self):
        raise NotImplementedError(f"Learning rate schedule '{type(self).__name__}' must "
                                  "override `get_config()` in order to be serializable.")

    @classmethod
    def from_config(cls, config):
        """Instantiate a schedule from `get_config()`'s dict."""
        return cls(**config)


class ExponentialDecay(LearningRateSchedule):
    """`initial_learning_rate * decay_rate ** (step / decay_steps)`.

    Args:
        initial_learning_rate: the rate at step 0.
        decay_steps: > 0.
        decay_rate: the factor per `decay_steps` steps.
        staircase: use `floor(step / decay_steps)` (decay at discrete intervals).
        name: the schedule's name.

    Raises:
        ValueError: if `decay_steps <= 0`.
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="ExponentialDecay"):
        _positive("decay_steps", decay_steps, type(self).__name__)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.decay_rate = decay_rate
        self.staircase = staircase
        self.name = name

    def _progress(self, step):
        """step / decay_steps, floored with `staircase`."""
        p = _step(step) / _f32(self.decay_steps)
        return np.floor(p) if self.staircase else p

    def __call__(self, step):
        return Tensor(_f32(self.initial_learning_rate) *
                      np.power(_f32(self.decay_rate), self._progress(step)))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "decay_rate": self.decay_rate,
                "staircase": self.staircase, "name": self.name}


class PiecewiseConstantDecay(LearningRateSchedule):
    """`values[0]` while `step <= boundaries[0]`, `values[i]` while
    `boundaries[i-1] < step <= boundaries[i]`, and `values[-1]` after the last boundary.

    Raises:
        ValueError: unless `len(values) == len(boundaries) + 1`.
    """

    def __init__(self, boundaries, values, name="PiecewiseConstant"):
        if len(boundaries) != len(values) - 1:
            raise ValueError(f"The length of boundaries should be 1 less than the length of "
                             f"values. Received: boundaries={boundaries} of length "
                             f"{len(boundaries)}, and values={values} of length {len(values)}.")
        self.boundaries = list(boundaries)
        self.values = list(values)
        self.name = name

    def __call__(self, step):
        s = step._value if isinstance(step, Tensor) else step
        for boundary, value in zip(self.boundaries, self.values):
            if s <= boundary:
                return Tensor(np.asarray(value, dtype=_f32))
        return Tensor(np.asarray(self.values[-1], dtype=_f32))

    def get_config(self):
        return {"boundaries": self.boundaries, "values": self.values, "name": self.name}


class PolynomialDecay(LearningRateSchedule):
    """`(initial - end) * (1 - step / decay_steps) ** power + end`, step capped at decay_steps.

    With `cycle=True`, decay_steps is multiplied by `ceil(step / decay_steps)`
    (1 at step 0), so the decay restarts.

    Raises:
        ValueError: if `decay_steps <= 0`.
    """

    def __init__(self, initial_learning_rate, decay_steps, end_learning_rate=0.0001, power=1.0,
                 cycle=False, name="PolynomialDecay"):
        _positive("decay_steps", decay_steps, type(self).__name__)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.end_learning_rate = end_learning_rate
        self.power = power
        self.cycle = cycle
        self.name = name

    def __call__(self, step):
        s = _step(step)
        decay_steps = _f32(self.decay_steps)
        if self.cycle:
            multiplier = _f32(1.0) if s == 0 else np.ceil(s / decay_steps)
            decay_steps = decay_steps * multiplier
        else:
            s = min(s, decay_steps)
        p = s / decay_steps
        initial, end = _f32(self.initial_learning_rate), _f32(self.end_learning_rate)
        return Tensor((initial - end) * np.power(_f32(1) - p, _f32(self.power)) + end)

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "end_learning_rate": self.end_learning_rate,
                "power": self.power, "cycle": self.cycle, "name": self.name}


class InverseTimeDecay(ExponentialDecay):
    """`initial_learning_rate / (1 + decay_rate * step / decay_steps)` (floor with staircase).

    Takes ExponentialDecay's arguments and checks.

    Raises:
        ValueError: if `decay_steps <= 0`.
    """

    def __init__(self, initial_learning_rate, decay_steps, decay_rate, staircase=False,
                 name="InverseTimeDecay"):
        super().__init__(initial_learning_rate, decay_steps, decay_rate, staircase, name)

    def __call__(self, step):
        return Tensor(_f32(self.initial_learning_rate) /
                      (_f32(1) + _f32(self.decay_rate) * self._progress(step)))


class CosineDecay(LearningRateSchedule):
    """Cosine decay with an optional linear warmup.

    Without `warmup_target`: `initial * ((1 - alpha) * 0.5 * (1 + cos(pi * s / decay_steps)) + alpha)`
    with `s = min(step, decay_steps)`. With `warmup_target`, the rate first
    rises linearly from `initial_learning_rate` to `warmup_target` over
    `warmup_steps`, then decays from `warmup_target` as above over
    `decay_steps` (step counted from the end of the warmup).

    Raises:
        ValueError: if `decay_steps <= 0`.
    """

    def __init__(self, initial_learning_rate, decay_steps, alpha=0.0, name="CosineDecay",
                 warmup_target=None, warmup_steps=0):
        _positive("decay_steps", decay_steps, type(self).__name__)
        self.initial_learning_rate = initial_learning_rate
        self.decay_steps = decay_steps
        self.alpha = alpha
        self.name = name
        self.warmup_steps = warmup_steps
        self.warmup_target = warmup_target

    def _decay(self, s, decay_steps, start):
        cosine = _f32(0.5) * (_f32(1) + np.cos(_f32(math.pi) * (s / decay_steps)))
        alpha = _f32(self.alpha)
        return start * ((_f32(1) - alpha) * cosine + alpha)

    def __call__(self, step):
        s = _step(step)
        initial = _f32(self.initial_learning_rate)
        decay_steps = _f32(self.decay_steps)
        if self.warmup_target is None:
            return Tensor(self._decay(min(s, decay_steps), decay_steps, initial))
        target = _f32(self.warmup_target)
        warmup_steps = _f32(self.warmup_steps)
        s = min(s, decay_steps + warmup_steps)
        if s < warmup_steps:
            return Tensor((target - initial) * (s / warmup_steps) + initial)
        return Tensor(self._decay(s - warmup_steps, decay_steps, target))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "decay_steps": self.decay_steps, "alpha": self.alpha, "name": self.name,
                "warmup_target": self.warmup_target, "warmup_steps": self.warmup_steps}


class CosineDecayRestarts(LearningRateSchedule):
    """Cosine decay with warm restarts (SGDR).

    The multiplier decays from 1 to `alpha` over `first_decay_steps`; then
    the schedule restarts, each period `t_mul` times longer and starting
    `m_mul` times lower than the one before.

    Raises:
        ValueError: if `first_decay_steps <= 0`.
    """

    def __init__(self, initial_learning_rate, first_decay_steps, t_mul=2.0, m_mul=1.0,
                 alpha=0.0, name="SGDRDecay"):
        _positive("first_decay_steps", first_decay_steps, type(self).__name__)
        self.initial_learning_rate = initial_learning_rate
        self.first_decay_steps = first_decay_steps
        self._t_mul = t_mul
        self._m_mul = m_mul
        self.alpha = alpha
        self.name = name

    def __call__(self, step):
        fraction = _step(step) / _f32(self.first_decay_steps)
        t_mul, m_mul, one = _f32(self._t_mul), _f32(self._m_mul), _f32(1)
        if t_mul == 1:
            i_restart = np.floor(fraction)
            fraction = fraction - i_restart
        else:
            i_restart = np.floor(np.log(one - fraction * (one - t_mul)) / np.log(t_mul))
            sum_r = (one - np.power(t_mul, i_restart)) / (one - t_mul)
            fraction = (fraction - sum_r) / np.power(t_mul, i_restart)
        m_fac = np.power(m_mul, i_restart)
        cosine = _f32(0.5) * m_fac * (one + np.cos(_f32(math.pi) * fraction))
        alpha = _f32(self.alpha)
        return Tensor(_f32(self.initial_learning_rate) * ((one - alpha) * cosine + alpha))

    def get_config(self):
        return {"initial_learning_rate": self.initial_learning_rate,
                "first_decay_steps": self.first_decay_steps, "t_mul": self._t_mul,
                "m_mul": self._m_mul, "alpha": self.alpha, "name": self.name}


def serialize(learning_rate_schedule):
    """A JSON-compatible dict `{'module', 'class_name', 'config'}` for a schedule."""
    return {"module": "keras.optimizers.schedules",
            "class_name": type(learning_rate_schedule).__name__,
            "config": learning_rate_schedule.get_config(), "registered_name": None}


def deserialize(config, custom_objects=None):
    """The schedule described by `serialize()`'s dict.

    Raises:
        ValueError: for an unknown class name (pass it in `custom_objects`).
    """
    name = config.get("class_name")
    cls = (custom_objects or {}).get(name) or {
        n: globals()[n] for n in __all__ if n not in ("serialize", "deserialize")}.get(name)
    if cls is None:
        raise ValueError(f"Unknown learning rate schedule: {name!r}. Pass custom schedules "
                         "in `custom_objects`.")
    return cls.from_config(config.get("config", {}))
