"""layer_utils.py owns the helpers of `Layer` that need no Layer: unique
default names (`reset_name_counters`), the cached reading of a `call`
signature, and the checks of dtypes, weight shapes and shape trees."""

import collections
import inspect
import re

import numpy as np

from ..core import dtypes
from ..core.tensor import TensorShape
from .. import constraints, initializers, regularizers

__all__ = ["serialize_option", "weight_options_config", "reset_name_counters"]

_FLOATX = "float32"


# -- unique names -------------------------------------------------------------
_name_uids = collections.defaultdict(int)


def reset_name_counters():
    """Forget the names given so far: the next Dense is 'dense' again.

    `tf.keras.backend.clear_session()` calls this.
    """
    _name_uids.clear()


def _uniquify(prefix):
    count = _name_uids[prefix]
    _name_uids[prefix] += 1
    return prefix if count == 0 else f"{prefix}_{count}"


def _to_snake_case(name):
    name = re.sub(r"(.)([A-Z][a-z0-9]+)", r"\1_\2", name)
    name = re.sub(r"([a-z])([A-Z])", r"\1_\2", name).lower()
    return name if name[0] != "_" else "private" + name


# -- signatures ---------------------------------------------------------------------
_signature_cache = {}


def _call_signature(cls):
    """(parameters of `call`, has `training`, its default, has `mask`, takes **kwargs)."""
    info = _signature_cache.get(cls)
    if info is None:
        params = inspect.signature(cls.call).parameters
        var_kw = any(p.kind is p.VAR_KEYWORD for p in params.values())
        training = params.get("training")
        info = (params, training is not None or var_kw,
                None if training is None or training.default is inspect.Parameter.empty
                else training.default,
                "mask" in params or var_kw, var_kw)
        _signature_cache[cls] = info
    return info


def _shape_of(x):
    return TensorShape(x.shape) if hasattr(x, "shape") else None


# -- dtypes and shapes -------------------------------------------------------------
def _is_dtype(value):
    if isinstance(value, (dtypes.DType, np.dtype, type)):
        return True
    try:
        dtypes.as_dtype(value)
        return True
    except (TypeError, ValueError):
        return False


def _standardize_dtype(dtype, layer):
    if dtype is None:
        return _FLOATX
    if isinstance(dtype, dict):  # a serialized Keras DTypePolicy
        dtype = dtype.get("config", {}).get("name", _FLOATX)
    name = getattr(dtype, "name", dtype)
    if isinstance(name, str) and name.startswith("mixed_"):
        raise ValueError(f"Layer {type(layer).__name__}: mixed-precision policies ({name!r}) "
                         "are not supported by tapeflow; pass a plain dtype such as 'float32'.")
    try:
        return dtypes.as_dtype(name).name
    except (TypeError, ValueError):
        raise ValueError(f"Layer {type(layer).__name__}: invalid dtype {dtype!r}.") from None


def _check_weight_shape(shape, layer, name):
    if shape is None:
        return ()
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        dims = tuple(shape)
    except TypeError:
        dims = None
    if dims is None or not all(isinstance(d, (int, np.integer)) and not isinstance(d, bool)
                               and d >= 0 for d in dims):
        raise ValueError(f"Layer {layer.name!r}: cannot create weight {name!r} with shape "
                         f"{shape!r}; a weight shape must be a tuple of non-negative ints "
                         "(all sizes known when `build` runs).")
    return tuple(int(d) for d in dims)


def _as_shape_tree(shape):
    if isinstance(shape, TensorShape):
        return tuple(shape)
    if isinstance(shape, (list, tuple)) and shape and all(
            isinstance(s, (list, tuple)) for s in shape):
        return [tuple(s) for s in shape]
    return tuple(shape)


def _is_shape_list(tree):
    return isinstance(tree, list)


def serialize_option(obj, module):
    """A layer option (initializer, regularizer, constraint) as get_config stores it."""
    return None if obj is None else module.serialize(obj)


def weight_options_config(layer, *weights):
    """get_config's '<weight>_initializer', '_regularizer' and '_constraint' entries."""
    config = {}
    for weight in weights:
        for kind, module in (("initializer", initializers), ("regularizer", regularizers),
                             ("constraint", constraints)):
            config[f"{weight}_{kind}"] = serialize_option(getattr(layer, f"{weight}_{kind}"),
                                                          module)
    return config
