"""sgd.py: stochastic gradient descent with optional (Nesterov) momentum,
following keras/src/optimizers/sgd.py (Keras 3)."""

from . import _util
from ._fused import FusedOptimizer, apply_decay

__all__ = ["SGD"]


class SGD(FusedOptimizer):
    """Gradient descent (with momentum), as `tf.keras.optimizers.SGD`.

    Update rule (Keras 3), with velocity starting at zero:

        momentum == 0:  w = w - learning_rate * g
        momentum > 0:   velocity = momentum * velocity - learning_rate * g
                        w = w + velocity
        nesterov:       velocity = momentum * velocity - learning_rate * g
                        w = w + momentum * velocity - learning_rate * g

    Args:
        learning_rate: float >= 0, Variable, schedule or callable. Default 0.01.
        momentum: float in [0, 1]. Default 0.
        nesterov: use Nesterov momentum.
        **kwargs: the base optimizer's arguments (weight_decay, clipnorm,
            clipvalue, global_clipnorm, use_ema, ema_momentum,
            ema_overwrite_frequency, name).

    >>> x = tf.Variable(0.0)
    >>> opt = tf.keras.optimizers.SGD(learning_rate=0.01)
    >>> opt.minimize(lambda: x * x - 2.0 * x + 1.0, [x])
    """

    _coefs_use_step = False

    def __init__(self, learning_rate=0.01, momentum=0.0, nesterov=False, weight_decay=None,
                 clipnorm=None, clipvalue=None, global_clipnorm=None, use_ema=False,
                 ema_momentum=0.99, ema_overwrite_frequency=None, name="SGD", **kwargs):
        super().__init__(learning_rate=learning_rate, weight_decay=weight_decay,
                         clipnorm=clipnorm, clipvalue=clipvalue,
                         global_clipnorm=global_clipnorm, use_ema=use_ema,
                         ema_momentum=ema_momentum,
                         ema_overwrite_frequency=ema_overwrite_frequency, name=name, **kwargs)
        self.momentum = _util.check_number("SGD", "momentum", momentum, 0.0, 1.0)
        self.nesterov = bool(nesterov)

    def _slot_specs(self):
        return (("momentum", 0.0),) if self.momentum != 0 else ()

    def _coefficients(self, lr, step):
        return (lr,) if self.momentum == 0 else (lr, self.momentum)

    def _kernel_name(self):
        if self.momentum == 0:
            return "sgd"
        return "sgd_nesterov" if self.nesterov else "sgd_momentum"

    def _numpy_update(self, p, g, slots, coefs, decay):
        apply_decay(p, decay)
        if self.momentum == 0:
            (lr,) = coefs
            p -= g * lr
            return
        lr, momentum = coefs
        m = slots[0]
        m[...] = m * momentum - g * lr
        self._flush_small(m)
        if self.nesterov:
            p += m * momentum - g * lr
        else:
            p += m

    def get_config(self):
        config = super().get_config()
        config.update({"momentum": self.momentum, "nesterov": self.nesterov})
        return config
