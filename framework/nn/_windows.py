"""_windows.py: the window arguments shared by tf.nn's convolutions and pools
(NHWC): strides, dilations and ksize as one int per spatial axis, 'SAME' /
'VALID' / explicit padding resolved to pairs, rank, layout and output-size
checks, and the 1-D to 2-D reshapes. The ops themselves are conv.py's and
pooling.py's."""

import numbers

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ..ops import shape as _s

__all__ = ["spatial_ints", "resolve_padding", "check_rank", "check_format",
           "check_output_size", "as_2d", "from_2d"]


def spatial_ints(value, n, what, op_name):
    """An int, or a list of 1, n or n + 2 ints (batch and channel entries 1), as n ints."""
    v = value._value.tolist() if isinstance(value, Tensor) else value
    v = [v] if isinstance(v, numbers.Integral) else [int(i) for i in v]
    if len(v) == 1:
        v = v * n
    elif len(v) == n + 2:
        if v[0] != 1 or v[-1] != 1:
            raise InvalidArgumentError(f"{op_name}: {what} in the batch and depth dimensions "
                                       f"must be 1, got {v}.")
        v = v[1:-1]
    if len(v) != n or min(v) < 1:
        raise InvalidArgumentError(f"{op_name}: {what} must be positive ints, one per spatial "
                                   f"dimension ({n}), or {n + 2} for NHWC; got {value}.")
    return tuple(v)


def resolve_padding(padding, in_hw, k_hw, strides, dilations, op_name, explicit_ok=True):
    """'SAME' / 'VALID' / explicit [[0, 0], [t, b], [l, r], [0, 0]] as ((t, b), (l, r))."""
    n = len(in_hw)
    if isinstance(padding, str):
        mode = padding.upper()
        if mode == "VALID":
            return ((0, 0),) * n
        if mode == "SAME":
            pads = []
            for size, k, s, d in zip(in_hw, k_hw, strides, dilations):
                total = max((-(-size // s) - 1) * s + (k - 1) * d + 1 - size, 0)
                pads.append((total // 2, total - total // 2))
            return tuple(pads)
        raise ValueError(f"{op_name}: padding must be 'SAME', 'VALID' or a list of explicit "
                         f"paddings, got {padding!r}.")
    if not explicit_ok:
        raise ValueError(f"{op_name}: padding must be 'SAME' or 'VALID', got {padding!r}.")
    p = np.asarray(padding, dtype=np.int64)
    if p.shape != (n + 2, 2) or p[0].any() or p[-1].any() or (p < 0).any():
        raise ValueError(f"{op_name}: explicit padding must be {n + 2} non-negative [before, "
                         f"after] pairs with zeros for batch and channels, got {padding!r}.")
    return tuple((int(a), int(b)) for a, b in p[1:-1])


def check_rank(t, rank, op_name, what, layout):
    if t._value.ndim != rank:
        raise InvalidArgumentError(f"{op_name}: {what} must be rank {rank} ({layout}), got "
                                   f"shape {t._value.shape}.")


def check_format(data_format, allowed, op_name):
    if data_format is not None and data_format not in allowed:
        raise ValueError(f"{op_name}: tapeflow supports data_format {allowed[0]!r} only, got "
                         f"{data_format!r}.")


def check_output_size(in_hw, k_hw, strides, dilations, pads, op_name):
    # TF's GetWindowedOutputSize: (size + pads - span + stride) / stride in C++'s
    # truncating division, an error only when negative; an output size of 0 is an
    # empty result (a window wider than the input by less than one stride).
    for size, k, s, d, (a, b) in zip(in_hw, k_hw, strides, dilations, pads):
        span = (k - 1) * d + 1
        if size + a + b - span + s <= -s:
            raise InvalidArgumentError(
                f"{op_name}: Computed output size would be negative: input size {size}, "
                f"effective filter size {span}, padding ({a}, {b}), stride {s}.")


def as_2d(x, op_name, what="input"):
    check_rank(x, 3, op_name, what, "NWC")
    s = x._value.shape
    return _s.reshape(x, shape=(s[0], 1) + s[1:])


def from_2d(y):
    s = y._value.shape
    return _s.reshape(y, shape=(s[0],) + s[2:])
