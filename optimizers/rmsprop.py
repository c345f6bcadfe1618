"""rmsprop.py: the accumulator family -- RMSprop, Adagrad and Adadelta --
following keras/src/optimizers/{rmsprop,adagrad,adadelta}.py (Keras 3); note
that all three put epsilon inside the square root."""

import numpy as np

from . import _util
from ._fused import FusedOptimizer, _empty, apply_decay

__all__ = ["RMSprop", "Adagrad", "Adadelta"]


def _base_kwargs(weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum,
                 ema_overwrite_frequency, name, kwargs):
    return dict(weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                global_clipnorm=global_clipnorm, use_ema=use_ema, ema_momentum=ema_momentum,
                ema_overwrite_frequency=ema_overwrite_frequency, name=name, **kwargs)


class RMSprop(FusedOptimizer):
    """RMSprop, as `tf.keras.optimizers.RMSprop`.

    Update rule (Keras 3; all slots start at zero):

        v = rho * v + (1 - rho) * g^2
        a = rho * a + (1 - rho) * g               (centered only)
        denominator = v - a^2 + epsilon if centered else v + epsilon
        increment = learning_rate * g / sqrt(denominator)
        m = momentum * m + increment; w = w - m   (momentum > 0)
        w = w - increment                         (momentum == 0)

    Args:
        learning_rate: Default 0.001. rho: in [0, 1], default 0.9.
        momentum: >= 0, default 0. epsilon: >= 0, default 1e-7.
        centered: normalise by the estimated variance of the gradient.
        **kwargs: the base optimizer's arguments (see `Optimizer`).
    """

    _coefs_use_step = False

    def __init__(self, learning_rate=0.001, rho=0.9, momentum=0.0, epsilon=1e-7,
                 centered=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, name="rmsprop", **kwargs):
        super().__init__(learning_rate=learning_rate, **_base_kwargs(
            weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum,
            ema_overwrite_frequency, name, kwargs))
        self.rho = _util.check_number("RMSprop", "rho", rho, 0.0, 1.0)
        self.momentum = _util.check_number("RMSprop", "momentum", momentum, low=0.0)
        self.epsilon = _util.check_number("RMSprop", "epsilon", epsilon, low=0.0)
        self.centered = bool(centered)

    def _slot_specs(self):
        specs = [("velocity", 0.0)]
        if self.momentum > 0:
            specs.append(("momentum", 0.0))
        if self.centered:
            specs.append(("average_gradient", 0.0))
        return tuple(specs)

    def _coefficients(self, lr, step):
        return (lr, self.rho, 1.0 - self.rho, self.epsilon, self.momentum,
                float(self.centered), float(self.momentum > 0))

    def _kernel_name(self):
        return "rmsprop_full" if self.centered or self.momentum > 0 else "rmsprop"

    def _kernel_slots(self, slots, dtype):
        if not (self.centered or self.momentum > 0):
            return slots
        rest = iter(slots[1:])
        mom = next(rest) if self.momentum > 0 else _empty(dtype)
        avg = next(rest) if self.centered else _empty(dtype)
        return [slots[0], mom, avg]

    def _numpy_update(self, p, g, slots, coefs, decay):
        lr, rho, one_minus_rho, eps, momentum = coefs[:5]
        apply_decay(p, decay)
        v = slots[0]
        v[...] = rho * v + one_minus_rho * (g * g)
        self._flush_small(v)
        if self.centered:
            a = slots[-1]
            a[...] = rho * a + one_minus_rho * g
            self._flush_small(a)
            denominator = v - a * a + eps
        else:
            denominator = v + eps
        increment = (lr * g) / np.sqrt(denominator)
        if self.momentum > 0:
            m = slots[1]
            m[...] = momentum * m + increment
            self._flush_small(m)
            p -= m
        else:
            p -= increment

    def get_config(self):
        config = super().get_config()
        config.update({"rho": self.rho, "momentum": self.momentum, "epsilon": self.epsilon,
                       "centered": self.centered})
        return config


class Adagrad(FusedOptimizer):
    """Adagrad, as `tf.keras.optimizers.Adagrad`.

    Update rule (Keras 3; the accumulator starts at initial_accumulator_value):

        accumulator = accumulator + g^2
        w = w - learning_rate * g / sqrt(accumulator + epsilon)

    Args:
        learning_rate: Default 0.001. initial_accumulator_value: >= 0, default 0.1.
        epsilon: >= 0, default 1e-7.
        **kwargs: the base optimizer's arguments (see `Optimizer`).
    """

    _coefs_use_step = False

    def __init__(self, learning_rate=0.001, initial_accumulator_value=0.1, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 name="adagrad", **kwargs):
        super().__init__(learning_rate=learning_rate, **_base_kwargs(
            weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum,
            ema_overwrite_frequency, name, kwargs))
        self.initial_accumulator_value = _util.check_number(
            "Adagrad", "initial_accumulator_value", initial_accumulator_value, low=0.0)
        self.epsilon = _util.check_number("Adagrad", "epsilon", epsilon, low=0.0)

    def _slot_specs(self):
        return (("accumulator", self.initial_accumulator_value),)

    def _coefficients(self, lr, step):
        return (lr, self.epsilon)

    def _kernel_name(self):
        return "adagrad"

    def _numpy_update(self, p, g, slots, coefs, decay):
        lr, eps = coefs
        apply_decay(p, decay)
        acc = slots[0]
        acc += g * g
        p -= (lr * g) / np.sqrt(acc + eps)

    def get_config(self):
        config = super().get_config()
        config.update({"initial_accumulator_value": self.initial_accumulator_value,
                       "epsilon": self.epsilon})
        return config


class Adadelta(FusedOptimizer):
    """Adadelta, as `tf.keras.optimizers.Adadelta`.

    Update rule (Keras 3; both accumulators start at zero):

        acc_g = rho * acc_g + (1 - rho) * g^2
        delta = -sqrt(acc_delta + epsilon) * g / sqrt(acc_g + epsilon)
        acc_delta = rho * acc_delta + (1 - rho) * delta^2
        w = w + learning_rate * delta

    Args:
        learning_rate: Default 0.001 (the paper's form uses 1.0).
        rho: in [0, 1], default 0.95. epsilon: >= 0, default 1e-7.
        **kwargs: the base optimizer's arguments (see `Optimizer`).
    """

    _coefs_use_step = False

    def __init__(self, learning_rate=0.001, rho=0.95, epsilon=1e-7, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, name="adadelta", **kwargs):
        super().__init__(learning_rate=learning_rate, **_base_kwargs(
            weight_decay, clipnorm, clipvalue, global_clipnorm, use_ema, ema_momentum,
            ema_overwrite_frequency, name, kwargs))
        self.rho = _util.check_number("Adadelta", "rho", rho, 0.0, 1.0)
        self.epsilon = _util.check_number("Adadelta", "epsilon", epsilon, low=0.0)

    def _slot_specs(self):
        return (("accumulated_grad", 0.0), ("accumulated_delta_var", 0.0))

    def _coefficients(self, lr, step):
        return (lr, self.rho, 1.0 - self.rho, self.epsilon)

    def _kernel_name(self):
        return "adadelta"

    def _numpy_update(self, p, g, slots, coefs, decay):
        lr, rho, one_minus_rho, eps = coefs
        apply_decay(p, decay)
        acc_g, acc_dx = slots
        acc_g[...] = rho * acc_g + one_minus_rho * (g * g)
        self._flush_small(acc_g)
        delta = -(np.sqrt(acc_dx + eps) * g) / np.sqrt(acc_g + eps)
        acc_dx[...] = rho * acc_dx + one_minus_rho * (delta * delta)
        self._flush_small(acc_dx)
        p += lr * delta

    def get_config(self):
        config = super().get_config()
        config.update({"rho": self.rho, "epsilon": self.epsilon})
        return config
