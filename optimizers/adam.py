"""adam.py: the Adam family -- Adam (with AMSGrad), AdamW, Adamax and Nadam --
following keras/src/optimizers/{adam,adamw,adamax,nadam}.py (Keras 3),
including their epsilon placement and bias corrections."""

import math

import numpy as np

from . import _util
from ._fused import FusedOptimizer, apply_decay

__all__ = ["Adam", "AdamW", "Adamax", "Nadam"]


def _check_betas(owner, beta_1, beta_2, epsilon):
    return (_util.check_number(owner, "beta_1", beta_1, 0.0, 1.0),
            _util.check_number(owner, "beta_2", beta_2, 0.0, 1.0),
            _util.check_number(owner, "epsilon", epsilon, low=0.0))


class _AdamBase(FusedOptimizer):
    def __init__(self, learning_rate, beta_1, beta_2, epsilon, name, **kwargs):
        super().__init__(learning_rate=learning_rate, name=name, **kwargs)
        self.beta_1, self.beta_2, self.epsilon = _check_betas(type(self).__name__, beta_1,
                                                              beta_2, epsilon)

    def get_config(self):
        config = super().get_config()
        config.update({"beta_1": self.beta_1, "beta_2": self.beta_2, "epsilon": self.epsilon})
        return config


class Adam(_AdamBase):
    """The Adam algorithm, as `tf.keras.optimizers.Adam`.

    Update rule (Keras 3; t = iterations + 1, m and v start at zero):

        alpha = learning_rate * sqrt(1 - beta_2^t) / (1 - beta_1^t)
        m = m + (g - m) * (1 - beta_1)
        v = v + (g^2 - v) * (1 - beta_2)
        v_hat = max(v_hat, v)               (amsgrad only; then v = v_hat below)
        w = w - alpha * m / (sqrt(v) + epsilon)

    epsilon is "epsilon hat" of Kingma and Ba (outside the bias correction);
    its default 1e-7 differs from PyTorch's 1e-8.

    Args:
        learning_rate: float >= 0, Variable, schedule or callable. Default 0.001.
        beta_1, beta_2: decay rates of the moment estimates, in [0, 1].
        epsilon: >= 0. Default 1e-7.
        amsgrad: use the AMSGrad variant.
        **kwargs: the base optimizer's arguments (see `Optimizer`).
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 amsgrad=False, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, name="adam", **kwargs):
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name,
                         weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, **kwargs)
        self.amsgrad = bool(amsgrad)

    def _slot_specs(self):
        specs = (("momentum", 0.0), ("velocity", 0.0))
        return specs + (("velocity_hat", 0.0),) if self.amsgrad else specs

    def _coefficients(self, lr, step):
        t = step + 1
        alpha = lr * math.sqrt(1.0 - self.beta_2 ** t) / (1.0 - self.beta_1 ** t)
        return (alpha, 1.0 - self.beta_1, 1.0 - self.beta_2, self.epsilon)

    def _kernel_name(self):
        return "adam_amsgrad" if self.amsgrad else "adam"

    def _numpy_update(self, p, g, slots, coefs, decay):
        alpha, one_minus_b1, one_minus_b2, eps = coefs
        apply_decay(p, decay)
        m, v = slots[0], slots[1]
        m += (g - m) * one_minus_b1
        v += (g * g - v) * one_minus_b2
        self._flush_small(m, v)
        if self.amsgrad:
            np.maximum(slots[2], v, out=slots[2])
            v = slots[2]
        p -= (m * alpha) / (np.sqrt(v) + eps)

    def get_config(self):
        config = super().get_config()
        config["amsgrad"] = self.amsgrad
        return config


class AdamW(Adam):
    """Adam with decoupled weight decay, as `tf.keras.optimizers.AdamW`.

    Each step first decays the weights, `w = w - w * weight_decay * lr`,
    then applies Adam's update (see `Adam`).

    Args:
        weight_decay: float >= 0. Default 0.004.
        The other arguments as for `Adam`.
    """

    def __init__(self, learning_rate=0.001, weight_decay=0.004, beta_1=0.9, beta_2=0.999,
                 epsilon=1e-7, amsgrad=False, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, name="adamw", **kwargs):
        if weight_decay is None:
            raise ValueError("AdamW: `weight_decay` must be a float, got None.")
        super().__init__(learning_rate=learning_rate, beta_1=beta_1, beta_2=beta_2,
                         epsilon=epsilon, amsgrad=amsgrad, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, name=name, **kwargs)


class Adamax(_AdamBase):
    """Adamax, the infinity-norm variant of Adam, as `tf.keras.optimizers.Adamax`.

    Update rule (Keras 3; t = iterations + 1, m and u start at zero):

        m = m + (g - m) * (1 - beta_1)
        u = max(beta_2 * u, |g|)
        w = w - learning_rate * m / ((1 - beta_1^t) * (u + epsilon))

    Args:
        learning_rate: Default 0.001. beta_1: 0.9. beta_2: 0.999. epsilon: 1e-7.
        **kwargs: the base optimizer's arguments (see `Optimizer`).
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 name="adamax", **kwargs):
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name,
                         weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, **kwargs)

    def _slot_specs(self):
        return (("momentum", 0.0), ("norm", 0.0))

    def _coefficients(self, lr, step):
        return (lr, 1.0 - self.beta_1, self.beta_2, 1.0 - self.beta_1 ** (step + 1),
                self.epsilon)

    def _kernel_name(self):
        return "adamax"

    def _numpy_update(self, p, g, slots, coefs, decay):
        lr, one_minus_b1, b2, denom_scale, eps = coefs
        apply_decay(p, decay)
        m, u = slots
        m += (g - m) * one_minus_b1
        np.maximum(b2 * u, np.abs(g), out=u)
        self._flush_small(m, u)
        p -= (lr * m) / (denom_scale * (u + eps))


class Nadam(_AdamBase):
    """Adam with Nesterov momentum, as `tf.keras.optimizers.Nadam`.

    Update rule (Keras 3; t = iterations + 1, m and v start at zero, the
    optimizer-wide u_product at one):

        u_t = beta_1 * (1 - 0.5 * 0.96^t);  u_t1 = beta_1 * (1 - 0.5 * 0.96^(t+1))
        u_product = u_product * u_t         (once per step, before the updates)
        m = m + (g - m) * (1 - beta_1)
        v = v + (g^2 - v) * (1 - beta_2)
        m_hat = u_t1 * m / (1 - u_product * u_t1) + (1 - u_t) * g / (1 - u_product)
        v_hat = v / (1 - beta_2^t)
        w = w - learning_rate * m_hat / (sqrt(v_hat) + epsilon)

    Args:
        learning_rate: Default 0.001. beta_1: 0.9. beta_2: 0.999. epsilon: 1e-7.
        **kwargs: the base optimizer's arguments (see `Optimizer`).
    """

    def __init__(self, learning_rate=0.001, beta_1=0.9, beta_2=0.999, epsilon=1e-7,
                 weight_decay=None, clipnorm=None, clipvalue=None, global_clipnorm=None,
                 use_ema=False, ema_momentum=0.99, ema_overwrite_frequency=None,
                 name="nadam", **kwargs):
        super().__init__(learning_rate, beta_1, beta_2, epsilon, name,
                         weight_decay=weight_decay, clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, **kwargs)
        self._u_product = None

    def build(self, var_list):
        super().build(var_list)
        if self._u_product is None:
            # float64 where Keras uses the variables' dtype: one scalar, kept exact
            self._u_product = self.add_variable((), initializer="ones", dtype="float64",
                                                name="u_product")

    def _slot_specs(self):
        return (("momentum", 0.0), ("velocity", 0.0))

    def _prepare_step(self, step, lr):
        super()._prepare_step(step, lr)
        u = self._u_product._value
        u[()] = u * (self.beta_1 * (1.0 - 0.5 * 0.96 ** (step + 1)))

    def _coefficients(self, lr, step):
        t = step + 1
        b1, b2 = self.beta_1, self.beta_2
        u_t = b1 * (1.0 - 0.5 * 0.96 ** t)
        u_t1 = b1 * (1.0 - 0.5 * 0.96 ** (t + 1))
        u_product_t = float(self._u_product._value)
        return (lr, 1.0 - b1, 1.0 - b2, u_t1 / (1.0 - u_product_t * u_t1),
                (1.0 - u_t) / (1.0 - u_product_t), 1.0 / (1.0 - b2 ** t), self.epsilon)

    def _kernel_name(self):
        return "nadam"

    def _numpy_update(self, p, g, slots, coefs, decay):
        lr, one_minus_b1, one_minus_b2, c_m, c_g, c_v, eps = coefs
        apply_decay(p, decay)
        m, v = slots
        m += (g - m) * one_minus_b1
        v += (g * g - v) * one_minus_b2
        self._flush_small(m, v)
        m_hat = c_m * m + c_g * g
        p -= (m_hat * lr) / (np.sqrt(v * c_v) + eps)
