"""lion.py: the Lion and FTRL optimizers, following
keras/src/optimizers/lion.py and keras/src/optimizers/ftrl.py (Keras 3)."""

import numpy as np

from . import _util
from ._fused import FusedOptimizer, apply_decay

__all__ = ["Lion", "Ftrl"]


class Lion(FusedOptimizer):
    """Lion (evolved sign momentum), as `tf.keras.optimizers.Lion`.

    Update rule (Keras 3; m starts at zero):

        w = w - learning_rate * sign(beta_1 * m + (1 - beta_1) * g)
        m = beta_2 * m + (1 - beta_2) * g

    Args:
        learning_rate: Default 0.001. beta_1: in (0, 1], default 0.9.
        beta_2: in [0, 1], default 0.99.
        **kwargs: the base optimizer's arguments (see `Optimizer`).
    """

    _coefs_use_step = False

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.99, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, name="lion", **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, name=name, **kwargs)
        # beta_1 == 0 would make Lion SignSGD, which Keras rejects too.
        self.beta_1 = _util.check_number("Lion", "beta_1", beta_1, 0.0, 1.0, low_open=True)
        self.beta_2 = _util.check_number("Lion", "beta_2", beta_2, 0.0, 1.0)

    def _slot_specs(self):
        return (("momentum", 0.0),)

    def _coefficients(self, lr, step):
        return (lr, self.beta_1, 1.0 - self.beta_1, self.beta_2, 1.0 - self.beta_2)

    def _kernel_name(self):
        return "lion"

    def _numpy_update(self, p, g, slots, coefs, decay):
        lr, b1, one_minus_b1, b2, one_minus_b2 = coefs
        apply_decay(p, decay)
        m = slots[0]
        p -= lr * np.sign(m * b1 + g * one_minus_b1)
        m[...] = m * b2 + g * one_minus_b2
        self._flush_small(m)

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2})
        return config


class Ftrl(FusedOptimizer):
    """Follow The Regularized Leader, as `tf.keras.optimizers.Ftrl`.

    Update rule (Keras 3; the accumulator starts at initial_accumulator_value,
    the linear term at zero; p = -learning_rate_power):

        l2 = l2_regularization_strength + beta / (2 * learning_rate)
        g_shrunk = g + 2 * l2_shrinkage_regularization_strength * w
        new_acc = acc + g^2
        linear = linear + g_shrunk - (new_acc^p - acc^p) / learning_rate * w
        quadratic = new_acc^p / learning_rate + 2 * l2
        w = (clip(linear, -l1, l1) - linear) / quadratic
        acc = new_acc

    Args:
        learning_rate: > 0, default 0.001. learning_rate_power: <= 0, default -0.5.
        initial_accumulator_value: >= 0, default 0.1.
        l1_regularization_strength, l2_regularization_strength,
        l2_shrinkage_regularization_strength: >= 0, default 0. beta: default 0.
        **kwargs: the base optimizer's arguments (see `Optimizer`).
    """

    _coefs_use_step = False

    def __init__(self, learning_rate=0.001, learning_rate_power=-0.5,
                 initial_accumulator_value=0.1, l1_regularization_strength=0.0,
                 l2_regularization_strength=0.0, l2_shrinkage_regularization_strength=0.0,
                 beta=0.0, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, name="ftrl", **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, name=name, **kwargs)
        check = _util.check_number
        self.learning_rate_power = check("Ftrl", "learning_rate_power", learning_rate_power,
                                         high=0.0)
        self.initial_accumulator_value = check("Ftrl", "initial_accumulator_value",
                                               initial_accumulator_value, low=0.0)
        self.l1_regularization_strength = check("Ftrl", "l1_regularization_strength",
                                                l1_regularization_strength, low=0.0)
        self.l2_regularization_strength = check("Ftrl", "l2_regularization_strength",
                                                l2_regularization_strength, low=0.0)
        self.l2_shrinkage_regularization_strength = check(
            "Ftrl", "l2_shrinkage_regularization_strength",
            l2_shrinkage_regularization_strength, low=0.0)
        self.beta = check("Ftrl", "beta", beta)

    def _slot_specs(self):
        return (("accumulator", self.initial_accumulator_value), ("linear", 0.0))

    def _coefficients(self, lr, step):
        l2 = self.l2_regularization_strength + (self.beta / (2.0 * lr) if self.beta else 0.0)
        return (lr, -self.learning_rate_power, self.l1_regularization_strength, 2.0 * l2,
                2.0 * self.l2_shrinkage_regularization_strength,
                float(self.learning_rate_power == -0.5))

    def _kernel_name(self):
        return "ftrl"

    def _numpy_update(self, p, g, slots, coefs, decay):
        lr, power, l1, two_l2, two_shrinkage, is_sqrt = coefs
        apply_decay(p, decay)
        acc, linear = slots
        new_acc = acc + g * g
        root = np.sqrt if is_sqrt else (lambda x: x ** power)
        new_pow = root(new_acc)
        linear += (g + two_shrinkage * p) - ((new_pow - root(acc)) / lr) * p
        quadratic = new_pow / lr + two_l2
        p[...] = (np.clip(linear, -l1, l1) - linear) / quadratic
        acc[...] = new_acc

    def get_config(self):
        config = super().get_config()
        config.update({
            "learning_rate_power": self.learning_rate_power,
            "initial_accumulator_value": self.initial_accumulator_value,
            "l1_regularization_strength": self.l1_regularization_strength,
            "l2_regularization_strength": self.l2_regularization_strength,
            "l2_shrinkage_regularization_strength": self.l2_shrinkage_regularization_strength,
            "beta": self.beta})
        return config
