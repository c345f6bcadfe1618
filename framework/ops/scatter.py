"""scatter.py: the scatter primitive that is not a sum -- the elementwise
minimum or maximum of rows scattered into a tensor (tf.tensor_scatter_nd_min
and _max). Scatter-adds are shape.py's `scatter_add`; index checks live in
api/scatter_ops.py."""

import numpy as np

from ..core.tensor import Tensor
from .math import multiply
from .registry import defop
from .shape import _batch_ndim, gather

__all__ = ["scatter_extremum"]

_UFUNCS = {"min": np.minimum, "max": np.maximum}


@defop
def scatter_extremum(x, rows, lin, mode):
    """`x` (cells, ...) with row `lin[i]` replaced by its `mode` ("min" or "max")
    with `rows[i]`; repeated indices all take part."""
    out = x.copy()
    _UFUNCS[mode].at(out, lin, rows)
    return out


def _shares(out, x, rows, lin):
    """Which entries of x and of rows the result equals, each divided by the
    number of tied entries (TF's _TensorScatterMinOrMaxGrad splits a tie evenly)."""
    dtype = out.dtype
    x_hit = (x == out).astype(dtype)
    rows_hit = (rows == out[lin]).astype(dtype)
    ties = x_hit.copy()
    np.add.at(ties, lin, rows_hit)
    return x_hit / ties, rows_hit / ties[lin]


def _x_vjp(g, out, x, rows, lin, mode):
    x_share, _ = _shares(out._value, x._value, rows._value, lin)
    return multiply(g, Tensor(x_share))


def _rows_vjp(g, out, x, rows, lin, mode):
    _, rows_share = _shares(out._value, x._value, rows._value, lin)
    picked = gather(g, Tensor(lin), axis=_batch_ndim(g, out))
    return multiply(picked, Tensor(rows_share))


scatter_extremum.defvjp(_x_vjp, _rows_vjp)
