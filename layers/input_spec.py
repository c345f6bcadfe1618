"""input_spec.py owns `InputSpec` (the rank, axis sizes, shape and dtype a
layer accepts) and the check `Layer.__call__` runs against it, whose
ValueError names the layer, what it expected and the shape it received."""

from ..core import dtypes, nest
from ..core.tensor import Tensor

__all__ = ["InputSpec"]


# -- InputSpec ----------------------------------------------------------------
class InputSpec:
    """What a layer accepts: rank (`ndim`, `min_ndim`, `max_ndim`), fixed axis sizes
    (`axes={-1: 64}`), a full `shape` (None for any size) or a `dtype`.

    A layer sets `self.input_spec` (one spec, or a list for several inputs);
    `__call__` checks every call against it and raises ValueError naming the
    layer, what it expected and the shape it received.
    """

    def __init__(self, dtype=None, shape=None, ndim=None, max_ndim=None, min_ndim=None,
                 axes=None, allow_last_axis_squeeze=False, name=None, optional=False):
        self.dtype = None if dtype is None else dtypes.as_dtype(dtype).name
        self.shape = None if shape is None else tuple(shape)
        self.ndim = len(self.shape) if shape is not None else ndim
        self.max_ndim = max_ndim
        self.min_ndim = min_ndim
        self.axes = {int(k): v for k, v in (axes or {}).items()}
        self.allow_last_axis_squeeze = allow_last_axis_squeeze
        self.name = name
        self.optional = optional

    def __repr__(self):
        parts = [f"{k}={v}" for k, v in (("dtype", self.dtype), ("shape", self.shape),
                                         ("ndim", self.ndim), ("max_ndim", self.max_ndim),
                                         ("min_ndim", self.min_ndim), ("axes", self.axes or None))
                 if v is not None]
        return f"InputSpec({', '.join(parts)})"

    def get_config(self):
        return {"dtype": self.dtype, "shape": self.shape, "ndim": self.ndim,
                "max_ndim": self.max_ndim, "min_ndim": self.min_ndim, "axes": self.axes}


def _assert_input_compatibility(layer, inputs):
    specs = layer.input_spec
    if specs is None:
        return
    if isinstance(specs, InputSpec) and isinstance(inputs, Tensor):  # the common case
        _check_one(layer, specs, 0, inputs)
        return
    specs = list(specs) if isinstance(specs, (list, tuple)) else [specs]
    flat = nest.flatten(inputs)
    if len(flat) != len(specs) and not all(s is None or s.optional for s in specs[len(flat):]):
        raise ValueError(f'Layer "{layer.name}" expects {len(specs)} input(s), but it '
                         f"received {len(flat)} input tensors.")
    for index, (spec, x) in enumerate(zip(specs, flat)):
        if spec is not None and x is not None and hasattr(x, "shape"):
            _check_one(layer, spec, index, x)


def _check_one(layer, spec, index, x):
    shape = tuple(x.shape)
    ndim = len(shape)

    def fail(what, hint=True):
        built_for = getattr(layer, "_build_input_shape", None)
        tail = (f" (the layer was built for input shape {built_for})"
                if hint and built_for is not None else "")
        raise ValueError(f'Input {index} of layer "{layer.name}" is incompatible with the '
                         f"layer: {what}{tail}")

    if spec.ndim is not None and not spec.allow_last_axis_squeeze and ndim != spec.ndim:
        fail(f"expected ndim={spec.ndim}, found ndim={ndim}. Full shape received: {shape}")
    if spec.max_ndim is not None and ndim > spec.max_ndim:
        fail(f"expected max_ndim={spec.max_ndim}, found ndim={ndim}. Full shape received: "
             f"{shape}")
    if spec.min_ndim is not None and ndim < spec.min_ndim:
        fail(f"expected min_ndim={spec.min_ndim}, found ndim={ndim}. Full shape received: "
             f"{shape}")
    if spec.dtype is not None and hasattr(x, "dtype") and \
            dtypes.as_dtype(x.dtype).name != spec.dtype:
        fail(f"expected dtype={spec.dtype}, found dtype={dtypes.as_dtype(x.dtype).name}", False)
    for axis, value in spec.axes.items():
        if value is not None and (not -ndim <= axis < ndim or shape[axis] not in (value, None)):
            fail(f"expected axis {axis} of input shape to have value {value}, but received "
                 f"input with shape {shape}")
    if spec.shape is not None:
        for expected, got in zip(spec.shape, shape):
            if expected is not None and got is not None and expected != got:
                fail(f"expected shape={spec.shape}, found shape={shape}", False)
