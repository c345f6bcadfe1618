"""_util.py: argument checks, gradient conversion and clipping shared by the
optimizers. Everything here works on ndarrays; nothing is recorded on a tape."""

import inspect
import math
import numbers

import numpy as np

from ..core.tensor import Tensor, Variable

__all__ = []


def check_number(owner, name, value, low=None, high=None, low_open=False, high_open=False):
    """Return `value` as a float, or raise ValueError stating the allowed range."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        if isinstance(value, Tensor) and value._value.size == 1:
            value = value._value.reshape(()).item()
        else:
            raise ValueError(f"{owner}: `{name}` must be a number, got {value!r}.")
    value = float(value)
    ok = not math.isnan(value)
    if ok and low is not None:
        ok = value > low if low_open else value >= low
    if ok and high is not None:
        ok = value < high if high_open else value <= high
    if not ok:
        lo = "-inf" if low is None else f"{low}"
        hi = "inf" if high is None else f"{high}"
        interval = f"{'(' if low_open or low is None else '['}{lo}, {hi}{')' if high_open or high is None else ']'}"
        raise ValueError(f"{owner}: `{name}` must be in {interval}, got {name}={value!r}.")
    return value


def check_learning_rate(owner, value):
    """A constant learning rate: a finite or infinite number >= 0, not NaN."""
    return check_number(owner, "learning_rate", value, low=0.0)


def densify(gradient, variable):
    """The dense ndarray of an IndexedSlices-like gradient (`.values`, `.indices`).

    Rows of `values` at repeated indices are summed, as TF does when it
    converts IndexedSlices to a dense tensor.
    """
    values = np.asarray(gradient.values._value if isinstance(gradient.values, Tensor)
                        else gradient.values)
    indices = np.asarray(gradient.indices._value if isinstance(gradient.indices, Tensor)
                         else gradient.indices)
    target = variable._value
    if values.dtype != target.dtype:
        raise TypeError(f"The gradient of variable {variable.name!r} has dtype "
                        f"{values.dtype.name} but the variable has dtype {target.dtype.name}.")
    expected = indices.shape + target.shape[1:]
    if target.ndim == 0 or values.shape != expected:
        raise ValueError(f"The sparse gradient of variable {variable.name!r} (shape "
                         f"{target.shape}) has values of shape {values.shape} for indices of "
                         f"shape {indices.shape}; expected values of shape {expected}.")
    dense = np.zeros(target.shape, target.dtype)
    np.add.at(dense, indices.astype(np.intp, copy=False), values)
    return dense


def gradient_array(gradient, variable):
    """The gradient of `variable` as an ndarray (or NumPy scalar), checked."""
    if isinstance(gradient, Tensor):
        array = gradient._value
    elif isinstance(gradient, (np.ndarray, np.generic)):
        array = gradient
    elif hasattr(gradient, "indices") and hasattr(gradient, "values"):
        return densify(gradient, variable)
    else:
        array = np.asarray(gradient, dtype=variable._value.dtype)
    target = variable._value
    if array.shape != target.shape:
        raise ValueError(f"The gradient of variable {variable.name!r} has shape "
                         f"{tuple(array.shape)} but the variable has shape "
                         f"{tuple(target.shape)}; they must match.")
    if array.dtype != target.dtype:
        raise TypeError(f"The gradient of variable {variable.name!r} has dtype "
                        f"{array.dtype.name} but the variable has dtype "
                        f"{target.dtype.name}; cast the gradient or the variable.")
    return array


def check_variable(variable, where):
    if not isinstance(variable, Variable):
        text = repr(variable)
        if len(text) > 80:
            text = text[:77] + "..."
        raise TypeError(f"{where} expects tf.Variable objects, got {type(variable).__name__}: "
                        f"{text}. Only Variables can be updated by an optimizer.")
    return variable


def _sum_of_squares(array):
    flat = np.asarray(array).reshape(-1)
    return np.dot(flat, flat)


def clip_by_norm(array, clipnorm):
    """Keras' per-gradient clipping: `g * clipnorm / max(||g||, clipnorm)`."""
    l2norm = np.sqrt(_sum_of_squares(array))
    return array * clipnorm / np.maximum(l2norm, array.dtype.type(clipnorm))


def clip_by_global_norm(arrays, clipnorm):
    """Keras' global clipping; an infinite or NaN global norm makes every gradient NaN."""
    norm = math.sqrt(sum(float(_sum_of_squares(a)) for a in arrays))
    scale = clipnorm * min(1.0 / norm if norm else math.inf, 1.0 / clipnorm)
    scale = scale + (norm - norm)  # inf/NaN norm -> NaN scale, as Keras
    if scale == 1.0:
        return arrays
    return [a * a.dtype.type(scale) for a in arrays]


def lr_callable_kind(fn, of_step, no_args):
    """Whether a learning-rate callable takes the step (`of_step`) or nothing."""
    try:
        params = inspect.signature(fn).parameters.values()
    except (TypeError, ValueError):
        return no_args
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)
                  and p.default is p.empty]
    takes_step = positional or any(p.kind == p.VAR_POSITIONAL for p in params)
    return of_step if takes_step else no_args


def checked_var_list(var_list):
    if isinstance(var_list, Variable):
        var_list = [var_list]
    var_list = list(var_list)
    for v in var_list:
        check_variable(v, "minimize")
    return var_list
