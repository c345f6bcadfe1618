"""probabilistic.py holds Keras's probabilistic and regression metrics that are
the running mean of a loss function: the cross-entropies, KL divergence,
Poisson, log-cosh, MAPE, MSLE, cosine similarity and the hinges. Each is a
MeanMetricWrapper (accuracy_metrics.py) over the loss function of
losses/functions.py, with Keras's names and constructor arguments."""

from ..losses import losses as _losses
from ..math.elementwise import negative
from .accuracy_metrics import _CLASSES, _wrapper_class

__all__ = [
    "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy",
    "KLDivergence", "Poisson", "LogCoshError", "MeanAbsolutePercentageError",
    "MeanSquaredLogarithmicError", "CosineSimilarity", "Hinge", "SquaredHinge",
    "CategoricalHinge", "cosine_similarity",
]


def cosine_similarity(y_true, y_pred, axis=-1):
    """The cosine of the angle between each pair of vectors (the loss's negative)."""
    return negative(_losses.cosine_similarity(y_true, y_pred, axis=axis))


BinaryCrossentropy = _wrapper_class(
    "BinaryCrossentropy", _losses.binary_crossentropy, "binary_crossentropy", "down",
    "The mean binary cross-entropy between labels and predictions.",
    from_logits=False, label_smoothing=0)
CategoricalCrossentropy = _wrapper_class(
    "CategoricalCrossentropy", _losses.categorical_crossentropy, "categorical_crossentropy",
    "down", "The mean cross-entropy between one-hot labels and predictions.",
    from_logits=False, label_smoothing=0, axis=-1)
SparseCategoricalCrossentropy = _wrapper_class(
    "SparseCategoricalCrossentropy", _losses.sparse_categorical_crossentropy,
    "sparse_categorical_crossentropy", "down",
    "The mean cross-entropy between integer labels and predictions.",
    from_logits=False, axis=-1)
KLDivergence = _wrapper_class(
    "KLDivergence", _losses.kl_divergence, "kl_divergence", "down",
    "The mean Kullback-Leibler divergence `y_true * log(y_true / y_pred)`.")
Poisson = _wrapper_class(
    "Poisson", _losses.poisson, "poisson", "down",
    "The mean Poisson loss `y_pred - y_true * log(y_pred)`.")
LogCoshError = _wrapper_class(
    "LogCoshError", _losses.log_cosh, "logcosh", "down",
    "The mean of `log(cosh(y_pred - y_true))`.")
MeanAbsolutePercentageError = _wrapper_class(
    "MeanAbsolutePercentageError", _losses.mean_absolute_percentage_error,
    "mean_absolute_percentage_error", "down",
    "The mean of `100 * |y_true - y_pred| / |y_true|`.")
MeanSquaredLogarithmicError = _wrapper_class(
    "MeanSquaredLogarithmicError", _losses.mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error", "down",
    "The mean of `(log(y_true + 1) - log(y_pred + 1)) ** 2`.")
CosineSimilarity = _wrapper_class(
    "CosineSimilarity", cosine_similarity, "cosine_similarity", "up",
    "The mean cosine similarity between labels and predictions along `axis`.", axis=-1)
Hinge = _wrapper_class(
    "Hinge", _losses.hinge, "hinge", "down",
    "The mean hinge loss `max(1 - y_true * y_pred, 0)` (0/1 labels become -1/1).")
SquaredHinge = _wrapper_class(
    "SquaredHinge", _losses.squared_hinge, "squared_hinge", "down",
    "The mean squared hinge loss `max(1 - y_true * y_pred, 0) ** 2`.")
CategoricalHinge = _wrapper_class(
    "CategoricalHinge", _losses.categorical_hinge, "categorical_hinge", "down",
    "The mean categorical hinge loss `max(neg - pos + 1, 0)`.")

# `tf.keras.metrics.get('BinaryCrossentropy')` finds these classes too.
_CLASSES.update({name: globals()[name] for name in __all__ if name[0].isupper()})
