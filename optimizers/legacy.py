"""`tf.keras.optimizers.legacy`: Keras 2.11+'s namespace of the pre-2.11 optimizers.

In tapeflow these are the same classes as `tf.keras.optimizers` (aliases, not
copies): the legacy ones differed from the new ones in TF's implementation
(slot variables, XLA, `decay=`), not in their update rules, which tapeflow's
optimizers follow. Keras 2's legacy-only arguments such as `decay` are not
accepted (use a learning-rate schedule).
"""

from .adam import Adam, Adamax, Nadam
from .lion import Ftrl
from .optimizer import Optimizer
from .rmsprop import Adadelta, Adagrad, RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "Adagrad", "RMSprop", "Adadelta", "Adamax", "Nadam",
           "Ftrl"]
