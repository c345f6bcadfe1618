"""pooling.py: tf.nn's max and average pools over NWC and NHWC windows:
window checks (_windows.py) in front of ops/conv.py's pooling primitives,
which own the kernels and VJPs."""

from ..core.tensor import as_tensor
from ..ops import conv as _c
from ._windows import (as_2d, check_format, check_output_size, check_rank, from_2d,
                       resolve_padding, spatial_ints)

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d"]


def _pool_args(x, ksize, strides, padding, op_name, explicit_ok):
    x = as_tensor(x)
    check_rank(x, 4, op_name, "input", "NHWC")
    ks = spatial_ints(ksize, 2, "ksize", op_name)
    st = spatial_ints(strides, 2, "strides", op_name)
    in_hw = x._value.shape[1:3]
    pads = resolve_padding(padding, in_hw, ks, st, (1, 1), op_name, explicit_ok)
    check_output_size(in_hw, ks, st, (1, 1), pads, op_name)
    return x, {"ksize": ks, "strides": st, "pads": pads}


def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """The maximum of each (kh, kw) window of NHWC `input`; padding cells never win.

    Args:
        ksize, strides: an int or a list of 1, 2 or 4 ints.
        padding: 'SAME', 'VALID' or explicit [[0, 0], [t, b], [l, r], [0, 0]].

    Raises:
        InvalidArgumentError: for a bad rank, ksize or strides, or an empty output.
        ValueError: for a bad padding.
    """
    check_format(data_format, ("NHWC",), "MaxPool")
    x, attrs = _pool_args(input, ksize, strides, padding, "MaxPool", True)
    return _c.max_pool2d(x, **attrs)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """The mean of each window of NHWC `input`; with 'SAME' padding the mean is
    over the real cells only, as TF."""
    check_format(data_format, ("NHWC",), "AvgPool")
    x, attrs = _pool_args(input, ksize, strides, padding, "AvgPool", False)
    return _c.avg_pool2d(x, **attrs)


def _pool1d(pool, input, ksize, strides, padding, data_format, op_name):  # noqa: A002
    check_format(data_format, ("NWC",), op_name)
    x = as_tensor(input)
    ks = (1,) + spatial_ints(ksize, 1, "ksize", op_name)
    st = (1,) + spatial_ints(strides, 1, "strides", op_name)
    if not isinstance(padding, str):
        padding = [[0, 0], [0, 0]] + [list(p) for p in padding[1:]]
    return from_2d(pool(as_2d(x, op_name), ks, st, padding))


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """max_pool2d over the W axis of NWC `input`."""
    return _pool1d(max_pool2d, input, ksize, strides, padding, data_format, "max_pool1d")


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """avg_pool2d over the W axis of NWC `input`."""
    return _pool1d(avg_pool2d, input, ksize, strides, padding, data_format, "avg_pool1d")
