"""`keras.ops`: Keras 3's backend-neutral, NumPy-style names over tapeflow's ops.

keras-io's current examples write `ops.mean(x, axis=-1)`, `ops.matmul(a, b)`;
these are the TF ops under NumPy's names and argument conventions (`axis=None`
reduces over everything, `concatenate(xs, axis=0)`, `clip(x, x_min, x_max)`),
so every one is differentiable on the tape. Dtypes follow Keras 3: Python
numbers become float32 / int32, `argmax` and `argmin` give int32.
"""

import numpy as np

from .. import backend as _backend
from .. import linalg as _linalg
from .. import math as _math
from .. import nn as _nn
from ..api import array_ops as _array
from ..api import indexing_ops as _index
from ..core import dtypes as _dtypes
from ..core.tensor import Tensor, convert_to_tensor as _to_tensor
from ..losses import functions as _losses

__all__ = [
    "convert_to_tensor", "convert_to_numpy", "is_tensor", "cast", "shape", "ndim", "size",
    "dtype", "reshape", "expand_dims", "squeeze", "transpose", "concatenate", "stack",
    "unstack", "split", "tile", "flip", "roll", "pad", "take", "take_along_axis", "broadcast_to",
    "zeros", "ones", "full", "zeros_like", "ones_like", "full_like", "eye", "arange", "linspace",
    "mean", "sum", "max", "min", "prod", "std", "var", "all", "any", "argmax", "argmin",
    "cumsum", "cumprod", "logsumexp", "sort", "argsort", "norm", "moments",
    "add", "subtract", "multiply", "divide", "true_divide", "floor_divide", "mod", "power",
    "negative", "maximum", "minimum", "clip", "where", "square", "sqrt", "rsqrt", "exp", "expm1",
    "log", "log1p", "abs", "absolute", "sign", "floor", "ceil", "round", "sin", "cos", "tan",
    "tanh", "sinh", "cosh", "arcsin", "arccos", "arctan", "erf", "reciprocal",
    "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and",
    "logical_or", "logical_not", "logical_xor", "isnan", "isinf", "isfinite",
    "matmul", "dot", "tensordot", "einsum", "one_hot", "stop_gradient",
    "sigmoid", "relu", "relu6", "softmax", "log_softmax", "gelu", "silu", "swish", "softplus",
    "softsign", "elu", "selu", "leaky_relu", "log_sigmoid", "hard_sigmoid",
    "binary_crossentropy", "categorical_crossentropy", "sparse_categorical_crossentropy",
    "cond", "fori_loop", "while_loop",
]

# -- conversion and shape ------------------------------------------------------------------


def _keras_dtype(value):
    """Keras 3's default dtypes: Python floats are float32, Python ints int32."""
    if isinstance(value, (bool, np.generic)):  # np.float64 is a float: it keeps its dtype
        return None
    if isinstance(value, float):
        return "float32"
    if isinstance(value, int):
        return "int32"
    return None


def convert_to_tensor(x, dtype=None, sparse=None):
    """A Tensor of `x` (a Variable is read; NumPy arrays keep their dtype)."""
    if sparse:
        raise NotImplementedError("keras.ops.convert_to_tensor: sparse tensors are not "
                                  "supported by tapeflow; pass a dense array.")
    return _to_tensor(x, dtype=dtype or _keras_dtype(x))


def _t(x):
    return x if isinstance(x, Tensor) else convert_to_tensor(x)


def convert_to_numpy(x):
    return np.asarray(_t(x).numpy())


def is_tensor(x):
    return isinstance(x, Tensor)


def cast(x, dtype):
    return _array.cast(_t(x), dtype)


def shape(x):
    """The static shape as a tuple of ints, as Keras 3 returns it."""
    return tuple(_t(x).shape)


def ndim(x):
    return len(shape(x))


def size(x):
    return int(np.prod(shape(x), dtype=np.int64))


def dtype(x):
    return _dtypes.as_dtype(_t(x).dtype).name


def reshape(x, newshape):
    return _array.reshape(x, (newshape,) if isinstance(newshape, int) else newshape)


def expand_dims(x, axis):
    return _array.expand_dims(x, axis)


def squeeze(x, axis=None):
    return _array.squeeze(x, axis)


def transpose(x, axes=None):
    return _array.transpose(x, axes)


def concatenate(xs, axis=0):
    return _array.concat(list(xs), axis)


def stack(x, axis=0):
    return _array.stack(list(x), axis)


def unstack(x, num=None, axis=0):
    return _array.unstack(x, num=num, axis=axis)


def split(x, indices_or_sections, axis=0):
    """NumPy's split: a number of equal sections, or the indices to cut at."""
    if isinstance(indices_or_sections, int):
        return _array.split(x, indices_or_sections, axis=axis)
    length = shape(x)[axis]
    cuts = [0] + [int(i) for i in indices_or_sections] + [length]
    return _array.split(x, [b - a for a, b in zip(cuts[:-1], cuts[1:])], axis=axis)


def tile(x, repeats):
    repeats = [repeats] if isinstance(repeats, int) else list(repeats)
    x = _t(x)
    rank = len(x.shape)
    if len(repeats) > rank:  # NumPy pads x's shape with leading ones
        x = _array.reshape(x, (1,) * (len(repeats) - rank) + tuple(x.shape))
    return _array.tile(x, [1] * (len(x.shape) - len(repeats)) + repeats)


def flip(x, axis=None):
    x = _t(x)
    axes = list(range(len(x.shape))) if axis is None else (
        [axis] if isinstance(axis, int) else list(axis))
    return _array.reverse(x, axes)


def roll(x, shift, axis=None):
    if axis is None:
        x = _t(x)
        return reshape(_array.roll(reshape(x, -1), shift, 0), shape(x))
    return _array.roll(x, shift, axis)


def pad(x, pad_width, mode="constant", constant_values=None):
    return _array.pad(x, pad_width, mode=mode.upper(),
                      constant_values=0 if constant_values is None else constant_values)


def take(x, indices, axis=None):
    if axis is None:
        return _index.gather(reshape(x, -1), indices)
    return _index.gather(x, indices, axis=axis)


def take_along_axis(x, indices, axis=None):
    x = _t(x)
    if axis is None:
        x, axis = reshape(x, -1), 0
    indices = np.asarray(_t(indices).numpy())
    axis = axis % len(x.shape)
    index = list(np.indices(indices.shape, sparse=True))
    index[axis] = indices
    grid = np.stack(np.broadcast_arrays(*index), axis=-1)
    return _index.gather_nd(x, grid)


def broadcast_to(x, shape):
    return _array.broadcast_to(x, shape)


# -- creation --------------------------------------------------------------------------------


def zeros(shape, dtype=None):
    return _array.zeros(shape, dtype or "float32")


def ones(shape, dtype=None):
    return _array.ones(shape, dtype or "float32")


def full(shape, fill_value, dtype=None):
    return _array.fill(shape, convert_to_tensor(fill_value, dtype))


def zeros_like(x, dtype=None):
    return _array.zeros_like(x, dtype=dtype)


def ones_like(x, dtype=None):
    return _array.ones_like(x, dtype=dtype)


def full_like(x, fill_value, dtype=None):
    x = _t(x)
    return full(shape(x), fill_value, dtype or x.dtype)


def eye(N, M=None, k=0, dtype=None):  # noqa: N803 -- Keras's names
    return convert_to_tensor(np.eye(N, M, k), dtype or "float32")


def arange(start, stop=None, step=1, dtype=None):
    if dtype is None:
        floats = [v for v in (start, stop, step) if isinstance(v, float)]  # `any` is ops.any here
        dtype = "float32" if floats else "int32"
    return _array.range(start, stop, step, dtype=dtype)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):
    values = np.linspace(start, stop, num, endpoint=endpoint, retstep=retstep, axis=axis)
    if retstep:
        return convert_to_tensor(values[0], dtype or "float32"), values[1]
    return convert_to_tensor(values, dtype or "float32")


# -- reductions --------------------------------------------------------------------------------


def _axis(axis):
    return list(axis) if isinstance(axis, tuple) else axis


def mean(x, axis=None, keepdims=False):
    return _math.reduce_mean(_t(x), _axis(axis), keepdims)


def sum(x, axis=None, keepdims=False):  # noqa: A001 -- Keras's name
    return _math.reduce_sum(_t(x), _axis(axis), keepdims)


def max(x, axis=None, keepdims=False, initial=None):  # noqa: A001
    out = _math.reduce_max(_t(x), _axis(axis), keepdims)
    return out if initial is None else _math.maximum(out, initial)


def min(x, axis=None, keepdims=False, initial=None):  # noqa: A001
    out = _math.reduce_min(_t(x), _axis(axis), keepdims)
    return out if initial is None else _math.minimum(out, initial)


def prod(x, axis=None, keepdims=False, dtype=None):
    x = _t(x) if dtype is None else cast(x, dtype)
    return _math.reduce_prod(x, _axis(axis), keepdims)


def std(x, axis=None, keepdims=False):
    return _math.reduce_std(_t(x), _axis(axis), keepdims)


def var(x, axis=None, keepdims=False):
    return _math.reduce_variance(_t(x), _axis(axis), keepdims)


def all(x, axis=None, keepdims=False):  # noqa: A001
    return _math.reduce_all(cast(x, "bool"), _axis(axis), keepdims)


def any(x, axis=None, keepdims=False):  # noqa: A001
    return _math.reduce_any(cast(x, "bool"), _axis(axis), keepdims)


def _arg(reduce, x, axis, keepdims):
    x = _t(x)
    if axis is None:  # NumPy's: the index into the flattened array
        out = reduce(reshape(x, -1), 0, output_type="int32")
        return reshape(out, (1,) * len(x.shape)) if keepdims else out
    out = reduce(x, axis, output_type="int32")
    return expand_dims(out, axis) if keepdims else out


def argmax(x, axis=None, keepdims=False):
    return _arg(_math.argmax, x, axis, keepdims)


def argmin(x, axis=None, keepdims=False):
    return _arg(_math.argmin, x, axis, keepdims)


def cumsum(x, axis=None, dtype=None):
    x = _t(x) if dtype is None else cast(x, dtype)
    return _math.cumsum(reshape(x, -1), 0) if axis is None else _math.cumsum(x, axis)


def cumprod(x, axis=None, dtype=None):
    x = _t(x) if dtype is None else cast(x, dtype)
    return _math.cumprod(reshape(x, -1), 0) if axis is None else _math.cumprod(x, axis)


def logsumexp(x, axis=None, keepdims=False):
    return _math.reduce_logsumexp(_t(x), _axis(axis), keepdims)


def sort(x, axis=-1):
    return _index.sort(x, axis=axis)


def argsort(x, axis=-1):
    return cast(_index.argsort(x, axis=axis, stable=True), "int32")


def norm(x, ord=None, axis=None, keepdims=False):  # noqa: A002 -- Keras's name
    return _linalg.norm(_t(x), ord="euclidean" if ord is None else ord, axis=axis,
                        keepdims=keepdims)


def moments(x, axes, keepdims=False, synchronized=False):
    return _nn.moments(_t(x), axes, keepdims=keepdims)


# -- elementwise -------------------------------------------------------------------------------


def _binary(op):
    def apply(x1, x2):
        return op(*_align(x1, x2))
    apply.__name__ = op.__name__
    return apply


def _align(x1, x2):
    """A Python number takes the other operand's dtype, as in Keras 3."""
    if not isinstance(x1, (Tensor, np.ndarray, np.generic, list)):
        x2 = _t(x2)
        return convert_to_tensor(x1, x2.dtype), x2
    x1 = _t(x1)
    if not isinstance(x2, (Tensor, np.ndarray, np.generic, list)):
        return x1, convert_to_tensor(x2, x1.dtype)
    return x1, _t(x2)


add, subtract, multiply = _binary(_math.add), _binary(_math.subtract), _binary(_math.multiply)
divide = true_divide = _binary(_math.truediv)
floor_divide, mod = _binary(_math.floordiv), _binary(_math.floormod)
power = _binary(_math.pow)
maximum, minimum = _binary(_math.maximum), _binary(_math.minimum)
equal, not_equal = _binary(_math.equal), _binary(_math.not_equal)
greater, greater_equal = _binary(_math.greater), _binary(_math.greater_equal)
less, less_equal = _binary(_math.less), _binary(_math.less_equal)
logical_and, logical_or = _binary(_math.logical_and), _binary(_math.logical_or)
logical_xor = _binary(_math.logical_xor)
(negative, square, sqrt, rsqrt, exp, expm1, log, log1p, abs, sign, floor, ceil, round,  # noqa: A001
 sin, cos, tan, tanh, sinh, cosh, arcsin, arccos, arctan, erf, reciprocal, logical_not,
 isnan, isinf, isfinite) = (
    _math.negative, _math.square, _math.sqrt, _math.rsqrt, _math.exp, _math.expm1, _math.log,
    _math.log1p, _math.abs, _math.sign, _math.floor, _math.ceil, _math.round, _math.sin,
    _math.cos, _math.tan, _math.tanh, _math.sinh, _math.cosh, _math.asin, _math.acos,
    _math.atan, _math.erf, _math.reciprocal, _math.logical_not, _math.is_nan, _math.is_inf,
    _math.is_finite)
absolute = abs


def clip(x, x_min, x_max):
    x = _t(x)
    return _math.clip_by_value(x, convert_to_tensor(x_min, x.dtype),
                               convert_to_tensor(x_max, x.dtype))


def where(condition, x1=None, x2=None):
    """`x1` where `condition`, else `x2`; with neither, the indices where it holds
    (a tuple of one int tensor per axis, as `np.nonzero`)."""
    condition = cast(condition, "bool")
    if x1 is None and x2 is None:
        found = _math.where(condition)
        return tuple(_array.unstack(cast(found, "int32"), num=len(condition.shape), axis=1))
    if x1 is None or x2 is None:
        raise ValueError("keras.ops.where: `x1` and `x2` must both be given, or neither.")
    x1, x2 = _align(x1, x2)
    return _math.where(condition, x1, x2)


# -- linear algebra ----------------------------------------------------------------------------


def matmul(x1, x2):
    return _linalg.matmul(_t(x1), _t(x2))


def dot(x1, x2):
    """NumPy's dot: a product for scalars, else the sum over x1's last axis and x2's
    second to last (its only one for a vector)."""
    x1, x2 = _t(x1), _t(x2)
    if not x1.shape or not x2.shape:
        return multiply(x1, x2)
    return _linalg.tensordot(x1, x2, [[len(x1.shape) - 1], [0 if len(x2.shape) == 1 else len(x2.shape) - 2]])


def tensordot(x1, x2, axes=2):
    return _linalg.tensordot(_t(x1), _t(x2), axes)


def einsum(subscripts, *operands):
    return _linalg.einsum(subscripts, *[_t(o) for o in operands])


def one_hot(x, num_classes, axis=-1, dtype=None, sparse=False):
    if sparse:
        raise NotImplementedError("keras.ops.one_hot: sparse=True is not supported by tapeflow.")
    return _index.one_hot(cast(x, "int64"), num_classes, axis=axis, dtype=dtype or "float32")


def stop_gradient(variable):
    return _array.stop_gradient(variable)


# -- neural network ----------------------------------------------------------------------------

sigmoid, relu, relu6, silu, softplus, softsign, elu, selu, log_sigmoid = (
    _nn.sigmoid, _nn.relu, _nn.relu6, _nn.silu, _nn.softplus, _nn.softsign, _nn.elu, _nn.selu,
    _nn.log_sigmoid)
swish = silu


def softmax(x, axis=-1):
    return _nn.softmax(_t(x), axis=axis)


def log_softmax(x, axis=-1):
    return _nn.log_softmax(_t(x), axis=axis)


def gelu(x, approximate=True):
    """Keras 3's default is the tanh approximation (TF's tf.nn.gelu defaults to exact)."""
    return _nn.gelu(_t(x), approximate=approximate)


def leaky_relu(x, negative_slope=0.2):
    return _nn.leaky_relu(_t(x), alpha=negative_slope)


def hard_sigmoid(x):
    """relu6(x + 3) / 6, Keras 3's definition."""
    x = _t(x)
    return _math.truediv(_nn.relu6(_math.add(x, convert_to_tensor(3.0, x.dtype))),
                         convert_to_tensor(6.0, x.dtype))


binary_crossentropy = _backend.binary_crossentropy


def categorical_crossentropy(target, output, from_logits=False, axis=-1):
    return _losses.categorical_crossentropy(target, output, from_logits=from_logits, axis=axis)


def sparse_categorical_crossentropy(target, output, from_logits=False, axis=-1):
    return _losses.sparse_categorical_crossentropy(target, output, from_logits=from_logits,
                                                   axis=axis)


# -- control flow (eager: plain Python) -------------------------------------------------------


def cond(pred, true_fn, false_fn):
    return true_fn() if bool(_t(pred).numpy()) else false_fn()


def fori_loop(lower, upper, body_fun, init_val):
    value = init_val
    for i in range(int(lower), int(upper)):
        value = body_fun(i, value)
    return value


def while_loop(cond, body, loop_vars, maximum_iterations=None):
    single = not isinstance(loop_vars, (list, tuple))
    values = (loop_vars,) if single else tuple(loop_vars)
    count = 0
    while (maximum_iterations is None or count < maximum_iterations) and bool(
            _t(cond(*values)).numpy()):
        values = body(*values)
        values = (values,) if single else tuple(values)
        count += 1
    return values[0] if single else values
