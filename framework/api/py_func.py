"""py_func.py: `tf.py_function` and `tf.numpy_function`, which call Python code on
a pipeline's values (tf.data's map calls them for decoders TF has no op for).
tapeflow is eager, so both simply call the function, then give the results TF's
types; py_function's ops are recorded on any tape, so it is differentiable,
numpy_function's NumPy work is not, as in TF."""

from ..core import dtypes, nest
from ..core.tensor import Tensor, convert_to_tensor

__all__ = ["py_function", "numpy_function"]


def _results(values, Tout, name):
    """`values` as Tensors of the dtypes `Tout` names (one dtype, or a list/tuple)."""
    if Tout is None:
        return None
    single = not isinstance(Tout, (list, tuple))
    touts = [Tout] if single else list(Tout)
    outs = [values] if single else list(values if isinstance(values, (list, tuple)) else
                                        [values])
    if len(outs) != len(touts):
        raise ValueError(f"{name}: the function returned {len(outs)} values but Tout names "
                         f"{len(touts)} dtypes.")
    tensors = []
    for value, tout in zip(outs, touts):
        want = dtypes.as_dtype(tout)
        tensor = value if isinstance(value, Tensor) else convert_to_tensor(value, dtype=want)
        if tensor.dtype != want:
            raise TypeError(f"{name}: the function returned a {tensor.dtype.name} value where "
                            f"Tout says {want.name}.")
        tensors.append(tensor)
    return tensors[0] if single else tensors


def py_function(func=None, inp=None, Tout=None, name=None):
    """Call `func(*inp)` on Tensors and return its results as Tensors of `Tout`.
    Differentiable: the ops `func` runs are recorded on the tapes, as in TF."""
    if func is None:  # the decorator form, tf.py_function(Tout=...)
        return lambda f: (lambda *args: py_function(f, list(args), Tout, name))
    inputs = [x if isinstance(x, Tensor) else convert_to_tensor(x) for x in (inp or [])]
    return _results(func(*inputs), Tout, "py_function")


def numpy_function(func=None, inp=None, Tout=None, stateful=True, name=None):
    """Call `func(*inp)` on NumPy arrays and return its results as Tensors of `Tout`.
    Not differentiable (the values leave the tape as NumPy arrays), as in TF."""
    if func is None:
        return lambda f: (lambda *args: numpy_function(f, list(args), Tout, stateful, name))
    arrays = [x.numpy() if isinstance(x, Tensor) else x for x in nest.flatten(inp or [])]
    return _results(func(*arrays), Tout, "numpy_function")
