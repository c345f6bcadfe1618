"""calling.py holds the steps of `Layer.__call__` (base.py) around its control
flow: autocasting the inputs, reading the mask they carry, building from the
first call's shapes, recording activity-regularization losses, attaching the
output masks, and the default `compute_output_shape` (running on zeros). The
call context and the mask table are tracking.py's."""

import functools
import inspect
import warnings

import numpy as np

from ..api.array_ops import cast as _cast
from ..core import nest
from ..core.tensor import Tensor, convert_to_tensor
from ..math import divide as _divide
from .layer_utils import _as_shape_tree, _is_shape_list, _shape_of
from .tracking import _context, get_keras_mask, set_keras_mask

__all__ = ["convert_inputs", "input_mask", "build_from_call", "add_activity_losses",
           "set_output_masks", "warn_mask_dropped", "output_shape_by_running"]


# Built-in layers whose first step multiplies the input by float weights (matmul, conv,
# normalization, gates). Keras 3 reaches them through keras.ops, which promote an integer
# input to the weights' float dtype; tapeflow's layers call TF's ops, which do not, so
# these layers cast integer and boolean inputs to their dtype themselves. Other layers
# (Embedding's indices, reshapes, merges, users' own layers) keep integer inputs as they
# are, as Keras does.
_FLOAT_MATH_LAYERS = frozenset({"Dense", "_Conv", "_Affine", "RNN", "_Cell",
                                "MultiHeadAttention", "PReLU"})
_CASTS_INTEGERS = {}


def _casts_integers(layer):
    cls = type(layer)
    try:
        return _CASTS_INTEGERS[cls]
    except KeyError:
        found = any(c.__name__ in _FLOAT_MATH_LAYERS
                    and c.__module__.startswith("tapeflow.layers") for c in cls.__mro__)
        _CASTS_INTEGERS[cls] = found
        return found


def convert_inputs(layer, args, kwargs):
    """`args` and `kwargs` with ndarrays made Tensors and, when `layer.autocast`,
    float tensors cast to the layer's dtype (`training` and `mask` untouched);
    integer and boolean ones too for the built-in layers that compute in floats
    (Dense, convolutions, normalizations, recurrent layers, attention)."""
    target = np.dtype(layer._dtype) if layer.autocast else None
    single = len(args) == 1 and not kwargs and isinstance(args[0], Tensor)
    # Fast path: one tensor already of the layer's dtype.
    if single and (target is None or args[0]._value.dtype == target):
        return args, kwargs
    kinds = "fiub" if target is not None and target.kind == "f" and _casts_integers(layer) \
        else "f"
    if single and args[0]._value.dtype.kind not in kinds:
        return args, kwargs

    def converter(kinds):
        def convert(x):
            if isinstance(x, (np.ndarray, np.generic)):
                x = convert_to_tensor(x)  # text arrays become tf.string tensors
            if isinstance(x, Tensor) and target is not None and x._value.dtype.kind in kinds \
                    and x._value.dtype != target:
                return _cast(x, target)
            return x
        return convert

    convert = converter(kinds)
    args = tuple(nest.map_structure(convert, a) for a in args)
    # Masks (attention_mask, ...) stay boolean or integer.
    kwargs = {k: (v if k in ("training", "mask") else nest.map_structure(
        converter("f") if k.endswith("mask") else convert, v)) for k, v in kwargs.items()}
    return args, kwargs


def input_mask(first):
    """The Keras mask of the first input (a structure of them for a nested one), or None."""
    if first is None:
        return None
    masks = [get_keras_mask(t) for t in nest.flatten(first)]
    if all(m is None for m in masks):
        return None
    return masks[0] if not nest.is_nested(first) else nest.pack_sequence_as(first, masks)

def wrap_build(cls):
    """Wrap the build method `cls` defines (if any) with marks_built."""
    if "build" in cls.__dict__:
        cls.build = marks_built(cls.__dict__["build"])


def marks_built(build):
    """`build` that leaves the layer built when its outermost call returns, as
    Keras 3's build wrapper: `layer.build(shape)` called by hand, then
    `layer(x)`, must not build (and create the weights) a second time. A
    subclass's build calling its parent's counts once, and may create weights
    after that call (the state locks when the outermost build returns)."""
    if getattr(build, "_marks_built", False):
        return build

    @functools.wraps(build)
    def marking_build(self, *args, **kwargs):
        depth = self.__dict__.get("_build_depth", 0)
        object.__setattr__(self, "_build_depth", depth + 1)
        try:
            result = build(self, *args, **kwargs)
        finally:
            object.__setattr__(self, "_build_depth", depth)
        if not depth:
            if self.__dict__.get("_build_input_shape") is None and args:
                object.__setattr__(self, "_build_input_shape", args[0])
            object.__setattr__(self, "built", True)
        return result

    marking_build._marks_built = True
    return marking_build



def build_from_call(layer, params, args, kwargs):
    """Build `layer` from the shapes of the call's arguments (`params`: call's signature).

    A `build` whose parameters are all named `<argument>_shape` (or have
    defaults) receives each argument's shape by name; any other gets the first
    argument's shape.
    """
    names = [n for n, p in params.items() if n != "self" and p.kind in
             (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    bound = dict(zip(names, args))
    bound.update({k: v for k, v in kwargs.items() if k not in ("training", "mask")})
    shapes = {}
    for key, value in bound.items():
        if value is not None and all(hasattr(t, "shape") for t in nest.flatten(value)):
            shapes[f"{key}_shape"] = nest.map_structure(_shape_of, value)
    first_shape = next(iter(shapes.values()), None)
    build_params = [p for n, p in inspect.signature(layer.build).parameters.items()
                    if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    object.__setattr__(layer, "_build_input_shape", first_shape)
    if len(build_params) <= 1 or not all(p.name in shapes or p.default is not p.empty
                                         for p in build_params):
        layer.build(first_shape)
    else:
        layer.build(**{p.name: shapes[p.name] for p in build_params if p.name in shapes})
    object.__setattr__(layer, "built", True)


def add_activity_losses(layer, outputs):
    """Add `layer.activity_regularizer` of each output tensor to the layer's losses."""
    for out in nest.flatten(outputs):
        if isinstance(out, Tensor):
            loss = layer.activity_regularizer(out)
            if out.ndim > 0 and out.shape[0]:
                # Keras (tf.keras 2 and current Keras 3) divides by the batch
                # size, so the strength does not depend on it.
                loss = _divide(loss, Tensor(np.asarray(out.shape[0], loss._value.dtype)))
            layer.add_loss(loss)


def warn_mask_dropped(layer):
    """Keras 3's warning, once per layer: a masked input reached a layer that neither
    takes `mask` nor supports masking, so the layers after it see no mask."""
    if layer.__dict__.get("_warned_mask_dropped") or _context.example_run:
        return
    object.__setattr__(layer, "_warned_mask_dropped", True)
    warnings.warn(f"Layer '{layer.name}' (of type {type(layer).__name__}) was passed an input "
                  "with a mask attached to it. However, this layer does not support masking "
                  "and will therefore destroy the mask information. Downstream layers will "
                  "not see the mask.", stacklevel=3)


def set_output_masks(layer, first, outputs, mask):
    """Attach `layer.compute_mask(first, mask)` to the outputs that carry no mask yet."""
    out_mask = layer.compute_mask(first, mask)
    if out_mask is None:
        return
    for out, m in zip(nest.flatten(outputs),
                      nest.flatten(out_mask) if nest.is_nested(outputs) else [out_mask]):
        if get_keras_mask(out) is None:
            set_keras_mask(out, m)


def output_shape_by_running(layer, input_shape):
    """The output shape of `layer` for `input_shape`, found by calling it on zeros
    (None sizes taken as 1, and put back as None on the batch axis)."""
    def zeros(shape):
        return Tensor(np.zeros(tuple(1 if d is None else d for d in shape),
                               np.dtype(layer._dtype)))
    shape_tree = _as_shape_tree(input_shape)
    dummy = nest.map_structure(zeros, shape_tree) if _is_shape_list(shape_tree) \
        else zeros(shape_tree)
    out = layer(dummy, training=False)
    batch_unknown = (shape_tree[0][0] if _is_shape_list(shape_tree) else
                     (shape_tree[0] if shape_tree else 0)) is None

    def out_shape(t):
        shape = tuple(t.shape)
        return (None,) + shape[1:] if batch_unknown and shape else shape
    return nest.map_structure(out_shape, out) if nest.is_nested(out) else out_shape(out)
