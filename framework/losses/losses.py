"""losses.py owns the Keras losses (`tf.keras.losses`): the `Loss`
base class with Keras 3's reductions and sample weighting, the Loss classes
(one per loss function), and `get`/`serialize`/`deserialize` by Keras name.
The loss functions themselves live in functions.py and are re-exported here."""

import numpy as np

from ..core.lookup import function_or_instance
from ..api import array_ops as _ao
from .. import math as _tm
from ..core.errors import InvalidArgumentError
from .functions import (EPSILON, _const, _float_pred, _like, _mask, _sparse_with_mask,
                        binary_crossentropy, categorical_crossentropy, categorical_hinge,
                        cosine_similarity, hinge, huber, kl_divergence, log_cosh,
                        mean_absolute_error, mean_absolute_percentage_error,
                        mean_squared_error, mean_squared_logarithmic_error, poisson,
                        sparse_categorical_crossentropy, squared_hinge,
                        squeeze_or_expand_to_same_rank)
from ..core.tensor import Tensor

__all__ = [
    "Loss", "LossFunctionWrapper", "MeanSquaredError", "MeanAbsoluteError",
    "MeanAbsolutePercentageError", "MeanSquaredLogarithmicError", "Huber", "LogCosh",
    "BinaryCrossentropy", "CategoricalCrossentropy", "SparseCategoricalCrossentropy",
    "KLDivergence", "Poisson", "CosineSimilarity", "Hinge", "SquaredHinge", "CategoricalHinge",
    "mean_squared_error", "mean_absolute_error", "mean_absolute_percentage_error",
    "mean_squared_logarithmic_error", "huber", "log_cosh", "binary_crossentropy",
    "categorical_crossentropy", "sparse_categorical_crossentropy", "kl_divergence", "poisson",
    "cosine_similarity", "hinge", "squared_hinge", "categorical_hinge", "get", "serialize",
    "deserialize", "mse", "MSE", "mae", "MAE", "mape", "MAPE", "msle", "MSLE", "kld", "KLD",
    "kullback_leibler_divergence", "logcosh",
]

_REDUCTIONS = ("sum_over_batch_size", "sum", "none", None, "mean", "mean_with_sample_weight")


# -- reductions and sample weighting ------------------------------------------------------

def _standardize_reduction(reduction):
    if reduction == "auto":  # TF 2's name for the default
        return "sum_over_batch_size"
    if reduction not in _REDUCTIONS:
        raise ValueError(f"Invalid value for argument `reduction`. Expected one of "
                         f"{list(_REDUCTIONS) + ['auto']}. Received: reduction={reduction!r}")
    return reduction


def _reduce_weighted(values, sample_weight, mask, reduction):
    """Keras 3's `reduce_weighted_values`: weight, mask, then reduce."""
    if mask is not None:
        mask = _mask(mask, values)
        if reduction in ("sum_over_batch_size", "mean"):
            # Valid entries weigh total/valid, so the mean is over the valid entries only.
            total = mask._value.size
            mask = Tensor(mask._value * (total / (mask._value.sum() + EPSILON)))
        sample_weight = mask if sample_weight is None else _tm.multiply(
            _like(sample_weight, values), mask)
    if sample_weight is not None:
        sample_weight = _like(sample_weight, values)
        values, sample_weight = squeeze_or_expand_to_same_rank(values, sample_weight)
        while sample_weight._value.ndim < values._value.ndim:
            # As TF 2: per-sample weights broadcast over the trailing axes of the losses.
            sample_weight = _ao.expand_dims(sample_weight, -1)
        try:
            values = _tm.multiply(values, sample_weight)
        except InvalidArgumentError:
            raise InvalidArgumentError(
                f"sample_weight of shape {list(sample_weight.shape)} cannot be broadcast to the "
                f"losses of shape {list(values.shape)}.") from None
    if reduction in (None, "none") or values._value.shape in ((), (0,)):
        return values
    loss = _tm.reduce_sum(values)
    if reduction in ("sum_over_batch_size", "mean") or (
            reduction == "mean_with_sample_weight" and sample_weight is None):
        loss = _tm.divide(loss, _const(max(values._value.size, 1), loss))
    elif reduction == "mean_with_sample_weight":
        total = float(np.sum(np.broadcast_to(sample_weight._value, values._value.shape)))
        loss = _tm.divide(loss, _const(total, loss)) if total else _tm.multiply(loss, 0.0)
    return loss


# -- base classes -------------------------------------------------------------------------

class Loss:
    """Base class of losses: `__call__(y_true, y_pred, sample_weight=None)`.

    Subclasses implement `call(y_true, y_pred)` returning per-sample losses;
    `__call__` applies `sample_weight` and the reduction.

    Args:
        reduction: 'sum_over_batch_size' (default: the weighted sum divided by
            the number of loss entries), 'sum', 'mean_with_sample_weight', or
            'none'/None (per-sample losses). TF 2's 'auto' means the default.
        name: the loss's name.
        dtype: the dtype computations run in; None keeps `y_pred`'s float
            dtype (Keras 3 would use float32; keeping float64 lets losses be
            gradient-checked in float64).

    Raises:
        ValueError: for an unknown reduction.
    """

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        self.name = name or _snake(type(self).__name__)
        self.reduction = _standardize_reduction(reduction)
        self.dtype = dtype

    def __call__(self, y_true, y_pred, sample_weight=None):
        y_pred = _float_pred(y_pred, self.dtype)
        values, mask = self._call_with_mask(y_true, y_pred)
        return _reduce_weighted(values, sample_weight, mask, self.reduction)

    def _call_with_mask(self, y_true, y_pred):
        return self.call(y_true, y_pred), None

    def call(self, y_true, y_pred):
        raise NotImplementedError(f"{type(self).__name__} must implement call(y_true, y_pred).")

    def get_config(self):
        return {"name": self.name, "reduction": self.reduction, "dtype": self.dtype}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name!r} reduction={self.reduction!r}>"


def _snake(name):
    return "".join("_" + c.lower() if c.isupper() and i else c.lower()
                   for i, c in enumerate(name))


class LossFunctionWrapper(Loss):
    """A Loss calling `fn(y_true, y_pred, **kwargs)`; the model wraps plain functions in it."""

    def __init__(self, fn, reduction="sum_over_batch_size", name=None, dtype=None, **kwargs):
        super().__init__(name=name or getattr(fn, "__name__", None), reduction=reduction,
                         dtype=dtype)
        self.fn = fn
        self._fn_kwargs = kwargs

    def call(self, y_true, y_pred):
        return self.fn(y_true, y_pred, **self._fn_kwargs)

    def get_config(self):
        config = super().get_config()
        config.update(self._fn_kwargs)
        if type(self) is LossFunctionWrapper:
            config["fn"] = self.fn
        return config


def _loss_class(class_name, fn, default_name, doc, **defaults):
    """A LossFunctionWrapper subclass whose keyword hyperparameters default to `defaults`."""
    order = list(defaults) + ["reduction", "name", "dtype"]  # Keras's positional order

    def __init__(self, *args, **kwargs):
        if len(args) > len(order):
            raise TypeError(f"{class_name} takes at most {len(order)} positional arguments.")
        unknown = set(kwargs) - set(order)
        if unknown:
            raise TypeError(f"{class_name} got unexpected keyword arguments {sorted(unknown)}; "
                            f"it accepts {order}.")
        params = dict(defaults, reduction="sum_over_batch_size", name=default_name, dtype=None)
        params.update(zip(order, args))
        params.update(kwargs)
        reduction, name, dtype = params.pop("reduction"), params.pop("name"), params.pop("dtype")
        LossFunctionWrapper.__init__(self, fn, reduction=reduction, name=name, dtype=dtype,
                                     **params)
        for key, value in params.items():
            setattr(self, key, value)
    cls = type(class_name, (LossFunctionWrapper,), {"__init__": __init__, "__doc__": doc})
    cls.__module__ = __name__
    return cls


# -- the loss classes ---------------------------------------------------------------------

def _doc(summary, extra=""):
    return (f"{summary}\n\n    Args:\n{extra}        reduction: 'sum_over_batch_size' (default),"
            " 'sum', 'none'/None, ...; see `Loss`.\n        name: the loss's name.\n")


MeanSquaredError = _loss_class(
    "MeanSquaredError", mean_squared_error, "mean_squared_error",
    _doc("mean(square(y_true - y_pred)).\n\n    >>> MeanSquaredError()([[0., 1.], [0., 0.]], "
         "[[1., 1.], [1., 0.]])  # 0.5"))
MeanAbsoluteError = _loss_class(
    "MeanAbsoluteError", mean_absolute_error, "mean_absolute_error",
    _doc("mean(abs(y_true - y_pred))."))
MeanAbsolutePercentageError = _loss_class(
    "MeanAbsolutePercentageError", mean_absolute_percentage_error,
    "mean_absolute_percentage_error", _doc("100 * mean(abs((y_true - y_pred) / y_true))."))
MeanSquaredLogarithmicError = _loss_class(
    "MeanSquaredLogarithmicError", mean_squared_logarithmic_error,
    "mean_squared_logarithmic_error", _doc("mean(square(log(y_true + 1) - log(y_pred + 1)))."))
Huber = _loss_class(
    "Huber", huber, "huber_loss", _doc("The Huber loss, quadratic up to `delta`, then linear.",
                                       "        delta: where the loss turns linear (1.0).\n"),
    delta=1.0)
LogCosh = _loss_class("LogCosh", log_cosh, "log_cosh",
                      _doc("mean(log(cosh(y_pred - y_true)))."))
BinaryCrossentropy = _loss_class(
    "BinaryCrossentropy", binary_crossentropy, "binary_crossentropy",
    _doc("Binary cross-entropy for 0/1 labels.",
         "        from_logits: whether y_pred holds logits (uses the fused sigmoid op).\n"
         "        label_smoothing: squeezes labels towards 0.5.\n"
         "        axis: the axis averaged over (-1).\n"),
    from_logits=False, label_smoothing=0.0, axis=-1)
CategoricalCrossentropy = _loss_class(
    "CategoricalCrossentropy", categorical_crossentropy, "categorical_crossentropy",
    _doc("Cross-entropy for one-hot labels.",
         "        from_logits: whether y_pred holds logits (uses the fused softmax op).\n"
         "        label_smoothing: s gives targets y (1 - s) + s / num_classes.\n"
         "        axis: the class axis (-1).\n"),
    from_logits=False, label_smoothing=0.0, axis=-1)
KLDivergence = _loss_class("KLDivergence", kl_divergence, "kl_divergence",
                           _doc("sum(y_true * log(y_true / y_pred)), clipped to [eps, 1]."))
Poisson = _loss_class("Poisson", poisson, "poisson",
                      _doc("mean(y_pred - y_true * log(y_pred + eps))."))
CosineSimilarity = _loss_class(
    "CosineSimilarity", cosine_similarity, "cosine_similarity",
    _doc("-sum(l2_normalize(y_true) * l2_normalize(y_pred), axis).",
         "        axis: the features axis (-1).\n"), axis=-1)
Hinge = _loss_class("Hinge", hinge, "hinge", _doc("mean(maximum(1 - y_true * y_pred, 0))."))
SquaredHinge = _loss_class("SquaredHinge", squared_hinge, "squared_hinge",
                           _doc("mean(square(maximum(1 - y_true * y_pred, 0)))."))
CategoricalHinge = _loss_class("CategoricalHinge", categorical_hinge, "categorical_hinge",
                               _doc("maximum(neg - pos + 1, 0) for one-hot labels."))


class SparseCategoricalCrossentropy(LossFunctionWrapper):
    """Cross-entropy for integer labels.

    Args:
        from_logits: whether y_pred holds logits (the fused sparse softmax op).
        ignore_class: a label value left out of the loss and of the mean.
        axis: the class axis of y_pred (-1).
        reduction: 'sum_over_batch_size' (default), 'sum', 'none'/None, ...
        name: the loss's name.

    >>> SparseCategoricalCrossentropy()([1, 2], [[0.05, 0.95, 0], [0.1, 0.8, 0.1]])  # 1.177
    """

    def __init__(self, from_logits=False, ignore_class=None, axis=-1,
                 reduction="sum_over_batch_size", name="sparse_categorical_crossentropy",
                 dtype=None):
        super().__init__(sparse_categorical_crossentropy, reduction=reduction, name=name,
                         dtype=dtype, from_logits=from_logits, ignore_class=ignore_class,
                         axis=axis)
        self.from_logits = from_logits
        self.ignore_class = ignore_class
        self.axis = axis

    def _call_with_mask(self, y_true, y_pred):
        return _sparse_with_mask(y_true, y_pred, self.from_logits, self.ignore_class, self.axis)


# -- lookup by name -----------------------------------------------------------------------

_CLASSES = {cls.__name__: cls for cls in (
    MeanSquaredError, MeanAbsoluteError, MeanAbsolutePercentageError,
    MeanSquaredLogarithmicError, Huber, LogCosh, BinaryCrossentropy, CategoricalCrossentropy,
    SparseCategoricalCrossentropy, KLDivergence, Poisson, CosineSimilarity, Hinge,
    SquaredHinge, CategoricalHinge)}

_FUNCTIONS = {fn.__name__: fn for fn in (
    mean_squared_error, mean_absolute_error, mean_absolute_percentage_error,
    mean_squared_logarithmic_error, huber, log_cosh, binary_crossentropy,
    categorical_crossentropy, sparse_categorical_crossentropy, kl_divergence, poisson,
    cosine_similarity, hinge, squared_hinge, categorical_hinge)}
_FUNCTIONS.update({
    "mse": mean_squared_error, "MSE": mean_squared_error, "mae": mean_absolute_error,
    "MAE": mean_absolute_error, "mape": mean_absolute_percentage_error,
    "MAPE": mean_absolute_percentage_error, "msle": mean_squared_logarithmic_error,
    "MSLE": mean_squared_logarithmic_error, "kld": kl_divergence, "KLD": kl_divergence,
    "kullback_leibler_divergence": kl_divergence, "logcosh": log_cosh, "huber_loss": huber,
})

# Keras-style aliases of the functions: tf.keras.losses.mse(y_true, y_pred), ...
mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
msle = MSLE = mean_squared_logarithmic_error
kld = KLD = kullback_leibler_divergence = kl_divergence
logcosh = log_cosh


def get(identifier):
    """A loss from a Keras name, a config dict, a Loss or a callable (as `keras.losses.get`).

    A function name ('mse', 'sparse_categorical_crossentropy', ...) gives the
    function; a class name ('MeanSquaredError') gives a new instance. The
    model wraps a function in `LossFunctionWrapper(fn, name=identifier)`.

    Raises:
        ValueError: for an unknown name, listing the valid names.
    """
    if identifier is None or isinstance(identifier, Loss):
        return identifier
    if isinstance(identifier, dict):
        return deserialize(identifier)
    if isinstance(identifier, str):
        return function_or_instance("loss", identifier, _FUNCTIONS, _CLASSES)
    if isinstance(identifier, type) and issubclass(identifier, Loss):
        return identifier()
    if callable(identifier):
        return identifier
    raise ValueError(f"Could not interpret loss identifier: {identifier!r}")


def serialize(loss):
    """{'class_name': ..., 'config': ...} for a Loss; the function's name for a loss function."""
    if isinstance(loss, Loss):
        return {"class_name": type(loss).__name__, "config": loss.get_config()}
    return getattr(loss, "__name__", loss)


def deserialize(config):
    """The inverse of `serialize`."""
    if isinstance(config, str):
        return get(config)
    name = config.get("class_name")
    if name not in _CLASSES:
        raise ValueError(f"Unknown loss class: {name!r}. Valid classes are: {sorted(_CLASSES)}.")
    return _CLASSES[name].from_config(config.get("config", {}))
