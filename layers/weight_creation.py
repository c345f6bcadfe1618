"""weight_creation.py holds the argument handling behind `Layer.add_weight`
and `Layer.set_weights` (base.py): the Keras 3 and tf.keras positional orders
of add_weight, the initial value an initializer gives (checked against the
shape), and the checks of a list of new weight values. Creating, tracking and
regularizing the Variable stays with Layer."""

import numpy as np

from .. import initializers as _initializers
from ..core.tensor import Tensor, convert_to_tensor
from .layer_utils import _is_dtype

__all__ = ["add_weight_arguments", "initial_value", "checked_weight_arrays"]

_ADD_WEIGHT_ORDER = ("shape", "initializer", "dtype", "trainable", "regularizer",
                     "constraint", "name")


def add_weight_arguments(layer, args, kwargs):
    """`kwargs` with add_weight's positional `args` added under their names.

    Keras 3 order, `(shape, initializer, dtype, ...)`, unless the first is a
    string: then the tf.keras order `(name, shape, initializer or dtype)`.

    Raises:
        TypeError: for too many positional arguments, or one also given by keyword.
    """
    if args and isinstance(args[0], str):
        order = ("name", "shape", "dtype" if len(args) > 2 and _is_dtype(args[2])
                 else "initializer")
    else:
        order = _ADD_WEIGHT_ORDER
    if len(args) > len(order):
        raise TypeError(f"add_weight() of layer {layer.name!r} takes at most "
                        f"{len(order)} positional arguments here; pass the rest by keyword.")
    for key, value in zip(order, args):
        if key in kwargs:
            raise TypeError(f"add_weight() got multiple values for argument {key!r}")
        kwargs[key] = value
    return kwargs


def initial_value(layer, initializer, shape, dtype, name):
    """The ndarray `initializer` (default glorot_uniform for floats, else zeros)
    gives for weight `name` of `shape` and DType `dtype`.

    Raises:
        ValueError: for an unknown initializer name or a value of another shape.
    """
    if initializer is None:
        initializer = "glorot_uniform" if dtype.is_floating else "zeros"
    init = _initializers.get(initializer)
    try:
        value = init(shape, dtype=dtype)
    except TypeError:
        value = init(shape)
    value = convert_to_tensor(value)._value.astype(dtype._np, copy=False)
    if value.shape != shape:
        raise ValueError(f"The initializer of weight {name!r} of layer {layer.name!r} "
                         f"returned shape {value.shape}, expected {shape}.")
    return value


def checked_weight_arrays(layer, variables, weights):
    """`weights` as ndarrays, one per Variable of `variables`, of the same shapes.

    Raises:
        ValueError: for a list of the wrong length or an array of the wrong
            shape, naming the layer, the weight and both shapes.
    """
    weights = list(weights)
    if len(weights) != len(variables):
        extra = "" if layer.built else " The layer is not built yet: call it on an input first."
        raise ValueError(f"You called `set_weights(weights)` on layer {layer.name!r} with a "
                         f"weight list of length {len(weights)}, but the layer was expecting "
                         f"{len(variables)} weights.{extra}")
    arrays = []
    for variable, value in zip(variables, weights):
        array = np.asarray(value._value if isinstance(value, Tensor) else value)
        if array.shape != variable._value.shape:
            raise ValueError(f"Layer {layer.name!r} weight {variable.path!r} has shape "
                             f"{variable._value.shape}, which is not compatible with the "
                             f"provided weight shape {array.shape}.")
        arrays.append(array)
    return arrays
