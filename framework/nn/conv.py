"""nn.py is the public `tf.nn` namespace: activations, losses, normalisation,
dropout, embeddings, convolution and pooling (NHWC), each a thin argument
check in front of the primitives of ops/ (ops/nn.py, ops/conv.py) or a
composite of them that needs no VJP of its own."""

import numbers

import numpy as np

from . import math as _pm
from .core.args import normalize_axis
from .core.errors import InvalidArgumentError
from .math import (elu, gelu, leaky_relu, log_sigmoid, relu, relu6, selu, sigmoid, silu,
                   softplus, softsign, swish, tanh)
from .ops import conv as _c
from .ops import math as _m
from .ops import nn as _n
from .ops import reduce as _r
from .ops import shape as _s
from .core.tensor import Tensor, as_tensor, binary_operands
from .random import _op_generator  # op seeds follow tf.random's rules

__all__ = ["relu", "relu6", "leaky_relu", "elu", "selu", "gelu", "silu", "swish", "softplus",
           "softsign", "log_sigmoid", "sigmoid", "tanh", "softmax", "log_softmax",
           "softmax_cross_entropy_with_logits", "sparse_softmax_cross_entropy_with_logits",
           "sigmoid_cross_entropy_with_logits", "l2_loss", "dropout", "bias_add", "moments",
           "batch_normalization", "embedding_lookup", "conv1d", "conv2d", "conv2d_transpose",
           "depthwise_conv2d", "max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d"]


def _float_tensor(value, op_name, what="logits"):
    t = as_tensor(value)
    if t._value.dtype.kind != "f":
        raise InvalidArgumentError(f"{op_name}: {what} must be a floating tensor, got "
                                   f"{t.dtype.name}.")
    return t


def _last_axis(x, axis, op_name):
    if x._value.ndim == 0:
        raise InvalidArgumentError(f"{op_name}: logits must have rank at least 1, got a scalar.")
    return normalize_axis(-1 if axis is None else axis, x._value.ndim, op_name,
                          x._value.shape)[0]


def softmax(logits, axis=None, name=None):
    """exp(logits) / sum(exp(logits)) along `axis` (default last), computed stably.

    Raises:
        InvalidArgumentError: for a scalar, an integer tensor or a bad axis.
    """
    x = _float_tensor(logits, "Softmax")
    return _n.softmax(x, axis=_last_axis(x, axis, "Softmax"))


def log_softmax(logits, axis=None, name=None):
    """logits - log(sum(exp(logits))) along `axis` (default last), computed stably."""
    x = _float_tensor(logits, "LogSoftmax")
    return _n.log_softmax(x, axis=_last_axis(x, axis, "LogSoftmax"))


def _move_last(t, axis):
    if axis == t._value.ndim - 1:
        return t
    perm = [i for i in range(t._value.ndim) if i != axis] + [axis]
    return _s.transpose(t, perm=tuple(perm))


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    """-sum(labels * log_softmax(logits), axis), fused in one pass per row.

    Both arguments are differentiable (TF differentiates the labels too).

    Args:
        labels: a probability distribution along `axis`, broadcastable to logits.
        logits: unscaled log-probabilities, floating.
        axis: the class axis.

    Returns:
        The per-example losses: logits' shape without `axis`.

    Raises:
        InvalidArgumentError: for shapes that do not broadcast or dtypes that differ.
    """
    z = _float_tensor(logits, "SoftmaxCrossEntropyWithLogits")
    y = as_tensor(labels)
    if y._value.dtype != z._value.dtype:
        y = _m.cast(y, dtype=z._value.dtype)
    axis = _last_axis(z, axis, "SoftmaxCrossEntropyWithLogits")
    if y._value.shape != z._value.shape:
        try:
            shape = np.broadcast_shapes(y._value.shape, z._value.shape)
        except ValueError:
            shape = None
        if shape != z._value.shape:
            raise InvalidArgumentError(
                f"logits and labels must be broadcastable: logits_size={list(z._value.shape)} "
                f"labels_size={list(y._value.shape)} [Op:SoftmaxCrossEntropyWithLogits]")
        y = _s.broadcast_to(y, shape=shape)
    return _n.softmax_cross_entropy(_move_last(y, axis), _move_last(z, axis))


def sparse_softmax_cross_entropy_with_logits(labels, logits, name=None):
    """Cross-entropy of integer class `labels` against `logits` over the last axis.

    Args:
        labels: int tensor of shape logits.shape[:-1], values in [0, classes).
        logits: float tensor of shape (..., classes).

    Returns:
        The per-example losses, of labels' shape.

    Raises:
        ValueError: when the ranks or shapes of labels and logits disagree.
        InvalidArgumentError: for a label outside [0, classes) (naming it) or
            non-integer labels.
    """
    z = _float_tensor(logits, "SparseSoftmaxCrossEntropyWithLogits")
    y = as_tensor(labels)
    if y._value.dtype.kind not in "iu":
        raise InvalidArgumentError(f"SparseSoftmaxCrossEntropyWithLogits: labels must be "
                                   f"int32 or int64, got {y.dtype.name}.")
    ys, zs = y._value.shape, z._value.shape
    if len(ys) != len(zs) - 1:
        raise ValueError(f"Rank mismatch: Rank of labels (received {len(ys)}) should equal "
                         f"rank of logits minus 1 (received {len(zs)}).")
    if ys != zs[:-1]:
        raise ValueError(f"Shape mismatch: The shape of labels (received {ys}) should equal "
                         f"the shape of logits except for the last dimension (received {zs}).")
    classes = zs[-1] if zs else 0
    bad = (y._value < 0) | (y._value >= classes)
    if np.any(bad):
        raise InvalidArgumentError(
            f"Received a label value of {y._value[bad].flat[0]} which is outside the valid "
            f"range of [0, {classes}).  Label values: "
            f"{' '.join(str(v) for v in y._value.ravel()[:20])} "
            "[Op:SparseSoftmaxCrossEntropyWithLogits]")
    return _n.sparse_softmax_cross_entropy(y, z)


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Binary cross-entropy of `labels` against `logits`, computed stably as
    max(x, 0) - x * z + log(1 + exp(-|x|)) with x = logits, z = labels.

    Raises:
        ValueError: when the shapes differ.
        InvalidArgumentError: when the dtypes differ.
    """
    z, x = binary_operands(labels, logits, "SigmoidCrossEntropyWithLogits")
    if z._value.shape != x._value.shape:
        raise ValueError(f"logits and labels must have the same shape "
                         f"({x._value.shape} vs {z._value.shape})")
    # Selects rather than relu/abs (TF's form): at x = 0 the gradient is 0.5 - z.
    positive = Tensor(x._value >= 0)
    zero = _m.const(0, x)
    relu_x = _m.select(positive, x, zero)
    neg_abs_x = _m.select(positive, _m.negative(x), x)
    return _m.add(_m.subtract(relu_x, _m.multiply(x, z)), _m.log1p(_m.exp(neg_abs_x)))


def l2_loss(t, name=None):
    """sum(t ** 2) / 2, a scalar."""
    t = _float_tensor(t, "L2Loss", "t")
    return _m.multiply(_r.reduce_sum(_m.square(t), axis=None), _m.const(0.5, t))


def dropout(x, rate, noise_shape=None, seed=None, name=None):
    """Zero each element with probability `rate` and scale the rest by 1 / (1 - rate).

    Args:
        x: a floating tensor.
        rate: the drop probability, in [0, 1); 0 returns `x` unchanged.
        noise_shape: the shape of the keep mask, broadcast against x (None
            entries take x's dimension); default x's shape.
        seed: op seed; with `tf.random.set_seed` the masks repeat between runs.

    Raises:
        ValueError: for a rate outside [0, 1) or a non-floating x.
    """
    x = as_tensor(x)
    if x._value.dtype.kind != "f":
        raise ValueError(f"x has to be a floating point tensor since it's going to be scaled. "
                         f"Got a {x.dtype.name} tensor instead.")
    r = float(rate._value) if isinstance(rate, Tensor) else rate
    if not isinstance(r, numbers.Real) or not 0 <= r < 1:
        raise ValueError(f"rate must be a scalar tensor or a float in the range [0, 1), "
                         f"got {rate}")
    if r == 0:
        return x
    shape = x._value.shape if noise_shape is None else tuple(
        d if s is None else int(s) for s, d in zip(
            np.asarray(getattr(noise_shape, "_value", noise_shape), object).tolist(),
            x._value.shape))
    keep = _op_generator(seed).random(shape) >= r
    mask = Tensor((keep * (1.0 / (1.0 - r))).astype(x._value.dtype))
    try:
        return _m.multiply(x, mask)
    except ValueError:
        raise InvalidArgumentError(f"dropout: noise_shape {list(shape)} does not broadcast "
                                   f"to x's shape {list(x._value.shape)}.") from None


def bias_add(value, bias, data_format=None, name=None):
    """value + bias, with the 1-D bias added along the channel axis (last, or
    axis 1 for data_format 'NC...').

    Raises:
        InvalidArgumentError: for a bias that is not 1-D or does not match the channels.
    """
    x, b = binary_operands(value, bias, "BiasAdd")
    xs, bs = x._value.shape, b._value.shape
    if len(xs) < 2:
        raise InvalidArgumentError(f"Input tensor must be at least 2D: {list(xs)} "
                                   "[Op:BiasAdd]")
    if len(bs) != 1:
        raise InvalidArgumentError(f"Biases must be 1D: {list(bs)} [Op:BiasAdd]")
    channels_first = data_format is not None and str(data_format).startswith("NC")
    c = xs[1] if channels_first else xs[-1]
    if bs[0] != c:
        raise InvalidArgumentError(f"Must provide as many biases as the channel dimension of "
                                   f"the input tensor: {list(bs)} vs. {list(xs)} [Op:BiasAdd]")
    if channels_first:
        b = _s.reshape(b, shape=(c,) + (1,) * (len(xs) - 2))
    return _m.add(x, b)


def moments(x, axes, shift=None, keepdims=False, name=None):
    """The mean and (biased) variance of `x` over `axes`.

    Unlike TF, the mean is not wrapped in stop_gradient inside the variance:
    the first derivative is the same, and second derivatives are exact.

    Returns:
        (mean, variance), with the reduced axes kept as 1 when `keepdims`.
    """
    x = _float_tensor(x, "moments", "x")
    ax = normalize_axis(axes, x._value.ndim, "moments", x._value.shape)
    mean = _r.reduce_mean(x, axis=ax, keepdims=True)
    variance = _r.reduce_mean(_m.square(_m.subtract(x, mean)), axis=ax, keepdims=True)
    if not keepdims:
        kept = tuple(d for i, d in enumerate(x._value.shape) if ax is not None and i not in ax)
        mean, variance = _s.reshape(mean, shape=kept), _s.reshape(variance, shape=kept)
    return mean, variance


def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """(x - mean) * scale / sqrt(variance + epsilon) + offset, as TF computes it:
    x * inv + (offset - mean * inv) with inv = scale / sqrt(variance + epsilon).
    `offset` and `scale` may be None."""
    inv = _pm.reciprocal(_pm.sqrt(_pm.add(variance, variance_epsilon)))
    if scale is not None:
        inv = _pm.multiply(inv, scale)
    shift = _pm.negative(_pm.multiply(mean, inv))
    if offset is not None:
        shift = _pm.add(offset, shift)
    return _pm.add(_pm.multiply(x, inv), shift)


def embedding_lookup(params, ids, max_norm=None, name=None):
    """The rows of `params` at `ids` (tf.gather on axis 0); the gradient is a
    scatter-add, so repeated ids accumulate.

    Args:
        params: a tensor, or a list of shards concatenated on axis 0 ('div' strategy).
        ids: int tensor of any shape.
        max_norm: if set, rows whose L2 norm exceeds it are scaled down to it.

    Raises:
        InvalidArgumentError: for an id outside [0, params.shape[0]).
    """
    if isinstance(params, (list, tuple)):
        shards = [as_tensor(p) for p in params]
        params = shards[0] if len(shards) == 1 else _s.concat(*shards, axis=0)
    p = _float_tensor(params, "embedding_lookup", "params")
    idx = as_tensor(ids)._value
    if idx.dtype.kind not in "iu":
        raise InvalidArgumentError(f"embedding_lookup: ids must be int32 or int64, got "
                                   f"{idx.dtype}.")
    rows = p._value.shape[0] if p._value.ndim else 0
    bad = (idx < 0) | (idx >= rows)
    if np.any(bad):
        where = tuple(int(i) for i in np.argwhere(bad)[0])
        raise InvalidArgumentError(f"indices[{','.join(map(str, where))}] = {idx[where]} is not "
                                   f"in [0, {rows}) [Op:GatherV2]")
    # gather's gradient is a scatter-add kernel; getitem's (np.add.at) is the fallback.
    out = (_s.gather(p, Tensor(idx), axis=0) if hasattr(_s, "gather")
           else _s.getitem(p, key=(idx,)))
    if max_norm is None:
        return out
    n_ids = idx.ndim
    axes = tuple(range(n_ids, out._value.ndim)) or None
    norm = _m.sqrt(_r.reduce_sum(_m.square(out), axis=axes, keepdims=True))
    limit = _m.const(max_norm, out)
    return _m.multiply(out, _m.divide(limit, _m.maximum(norm, limit)))


# -- convolution and pooling -------------------------------------------------------
def _spatial(value, n, what, op_name):
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


def _pads(padding, in_hw, k_hw, strides, dilations, op_name, explicit_ok=True):
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


def _check_rank(t, rank, op_name, what, layout):
    if t._value.ndim != rank:
        raise InvalidArgumentError(f"{op_name}: {what} must be rank {rank} ({layout}), got "
                                   f"shape {t._value.shape}.")


def _check_format(data_format, allowed, op_name):
    if data_format is not None and data_format not in allowed:
        raise ValueError(f"{op_name}: tapeflow supports data_format {allowed[0]!r} only, got "
                         f"{data_format!r}.")


def _check_output(in_hw, k_hw, strides, dilations, pads, op_name):
    for size, k, s, d, (a, b) in zip(in_hw, k_hw, strides, dilations, pads):
        if size + a + b < (k - 1) * d + 1:
            raise InvalidArgumentError(
                f"{op_name}: Computed output size would be negative: input size {size}, "
                f"effective filter size {(k - 1) * d + 1}, padding ({a}, {b}), stride {s}.")


def _conv_operands(input, filters, op_name, channels_axis=2):
    x, w = binary_operands(input, filters, op_name)
    if x._value.dtype.kind != "f":
        raise InvalidArgumentError(f"{op_name}: input must be floating, got {x.dtype.name}.")
    _check_rank(x, 4, op_name, "input", "NHWC")
    _check_rank(w, 4, op_name, "filters", "kh, kw, in, out")
    if x._value.shape[3] != w._value.shape[channels_axis]:
        raise InvalidArgumentError(
            f"{op_name}: input depth {x._value.shape[3]} does not match the filter's "
            f"in-channels {w._value.shape[channels_axis]}: input shape {x._value.shape}, "
            f"filter shape {w._value.shape}.")
    return x, w


def conv2d(input, filters, strides, padding, data_format="NHWC", dilations=None,  # noqa: A002
           name=None):
    """2-D convolution (cross-correlation, as TF) of NHWC `input` with (kh, kw, in, out)
    `filters`.

    Args:
        strides, dilations: an int or a list of 1, 2 or 4 ints (NHWC, batch and depth 1).
        padding: 'SAME', 'VALID' or [[0, 0], [top, bottom], [left, right], [0, 0]].

    Returns:
        (N, H', W', out).

    Raises:
        InvalidArgumentError: for bad ranks, a channel mismatch (naming both shapes),
            bad strides or dilations, or an empty output.
        ValueError: for a bad padding or data_format.
    """
    _check_format(data_format, ("NHWC",), "Conv2D")
    x, w = _conv_operands(input, filters, "Conv2D")
    st = _spatial(strides, 2, "strides", "Conv2D")
    di = _spatial(1 if dilations is None else dilations, 2, "dilations", "Conv2D")
    in_hw, k_hw = x._value.shape[1:3], w._value.shape[:2]
    pads = _pads(padding, in_hw, k_hw, st, di, "Conv2D")
    _check_output(in_hw, k_hw, st, di, pads, "Conv2D")
    return _c.conv2d(x, w, strides=st, dilations=di, pads=pads)


def conv2d_bias_activation(input, filters, bias, strides, padding, dilations=None,  # noqa: A002
                           activation=None, name=None):
    """`activation(conv2d(input, filters) + bias)` as one fused op (tapeflow's own).

    TF has no public fused convolution; this is what Conv2D layers call. The
    result and its gradients equal the three-op composition; the bias add and
    ReLU run as the convolution's epilogue, which saves two passes over the
    output forward and one backward.

    Args:
        bias: 1-D, one value per output channel, of the input's dtype.
        activation: None (linear) or 'relu'.
        strides, padding, dilations: as for `conv2d` (NHWC).

    Raises:
        InvalidArgumentError: as `conv2d`, or for a bias that does not match the
            filter's out-channels or the input's dtype.
        ValueError: for another activation.
    """
    if activation not in (None, "relu"):
        raise ValueError(f"conv2d_bias_activation: activation must be None or 'relu', got "
                         f"{activation!r}.")
    x, w = _conv_operands(input, filters, "Conv2D")
    b = as_tensor(bias)
    if b._value.dtype != x._value.dtype:
        raise InvalidArgumentError(f"conv2d_bias_activation: bias dtype {b.dtype.name} does "
                                   f"not match input dtype {x.dtype.name}.")
    if b._value.shape != (w._value.shape[3],):
        raise InvalidArgumentError(
            f"conv2d_bias_activation: bias shape {list(b._value.shape)} must be "
            f"[{w._value.shape[3]}], the filter's out-channels (filter shape "
            f"{list(w._value.shape)}).")
    st = _spatial(strides, 2, "strides", "Conv2D")
    di = _spatial(1 if dilations is None else dilations, 2, "dilations", "Conv2D")
    in_hw, k_hw = x._value.shape[1:3], w._value.shape[:2]
    pads = _pads(padding, in_hw, k_hw, st, di, "Conv2D")
    _check_output(in_hw, k_hw, st, di, pads, "Conv2D")
    return _c.conv2d_bias_activation(x, w, b, activation=activation, strides=st,
                                     dilations=di, pads=pads)


def _as_2d(x, op_name, what="input"):
    _check_rank(x, 3, op_name, what, "NWC")
    s = x._value.shape
    return _s.reshape(x, shape=(s[0], 1) + s[1:])


def _from_2d(y):
    s = y._value.shape
    return _s.reshape(y, shape=(s[0],) + s[2:])


def conv1d(input, filters, stride, padding, data_format="NWC", dilations=None,  # noqa: A002
           name=None):
    """1-D convolution of NWC `input` with (kw, in, out) `filters`, via conv2d."""
    _check_format(data_format, ("NWC",), "conv1d")
    x, w = binary_operands(input, filters, "conv1d")
    _check_rank(w, 3, "conv1d", "filters", "kw, in, out")
    st = (1,) + _spatial(stride, 1, "stride", "conv1d")
    di = (1,) + _spatial(1 if dilations is None else dilations, 1, "dilations", "conv1d")
    if not isinstance(padding, str):
        padding = [[0, 0], [0, 0]] + [list(p) for p in padding[1:]]
    w4 = _s.reshape(w, shape=(1,) + w._value.shape)
    return _from_2d(conv2d(_as_2d(x, "conv1d"), w4, st, padding, dilations=di))


def conv2d_transpose(input, filters, output_shape, strides, padding="SAME",  # noqa: A002
                     data_format="NHWC", dilations=None, name=None):
    """The transpose (gradient) of conv2d: (N, H, W, in) to `output_shape`
    (N, H', W', out), with filters laid out (kh, kw, out, in) as TF.

    Raises:
        InvalidArgumentError: for bad ranks, channel mismatches, or an output_shape
            whose convolution would not give the input's size.
    """
    _check_format(data_format, ("NHWC",), "conv2d_transpose")
    op_name = "Conv2DBackpropInput"
    x, w = _conv_operands(input, filters, op_name, channels_axis=3)
    out_shape = tuple(int(d) for d in np.asarray(getattr(output_shape, "_value",
                                                         output_shape)).ravel())
    if len(out_shape) != 4 or out_shape[0] != x._value.shape[0] or \
            out_shape[3] != w._value.shape[2]:
        raise InvalidArgumentError(
            f"{op_name}: output_shape {list(out_shape)} must be [batch {x._value.shape[0]}, "
            f"height, width, filter out-channels {w._value.shape[2]}]; input shape "
            f"{x._value.shape}, filter shape {w._value.shape}.")
    st = _spatial(strides, 2, "strides", op_name)
    di = _spatial(1 if dilations is None else dilations, 2, "dilations", op_name)
    out_hw, k_hw = out_shape[1:3], w._value.shape[:2]
    pads = _pads(padding, out_hw, k_hw, st, di, op_name)
    expect = tuple(_c.conv_output_size(s, k, t, d, *p)
                   for s, k, t, d, p in zip(out_hw, k_hw, st, di, pads))
    if expect != x._value.shape[1:3]:
        raise InvalidArgumentError(
            f"{op_name}: input spatial size {x._value.shape[1:3]} does not match the size "
            f"{expect} that convolving output_shape {list(out_shape)} would give "
            f"(filter shape {w._value.shape}, strides {st}, padding {padding!r}).")
    return _c.conv2d_input_grad(x, w, input_hw=out_hw, strides=st, dilations=di, pads=pads)


def depthwise_conv2d(input, filter, strides, padding, data_format=None,  # noqa: A002
                     dilations=None, name=None):
    """Each input channel convolved with its own `multiplier` filters: NHWC input,
    filter (kh, kw, in, multiplier), output channel c * multiplier + m.

    Computed as conv2d with a block-diagonal filter (in x more arithmetic than a
    dedicated kernel, fine for the channel counts of depthwise layers), so the
    gradients of every order come from conv2d's.
    """
    _check_format(data_format, ("NHWC",), "DepthwiseConv2dNative")
    x, w = _conv_operands(input, filter, "DepthwiseConv2dNative")
    kh, kw, c_in, mult = w._value.shape
    eye = Tensor(np.eye(c_in, dtype=w._value.dtype).reshape(1, 1, c_in, c_in, 1))
    block = _m.multiply(_s.reshape(w, shape=(kh, kw, c_in, 1, mult)), eye)
    return conv2d(x, _s.reshape(block, shape=(kh, kw, c_in, c_in * mult)), strides, padding,
                  dilations=dilations)


def _pool_args(x, ksize, strides, padding, op_name, explicit_ok):
    x = as_tensor(x)
    _check_rank(x, 4, op_name, "input", "NHWC")
    ks = _spatial(ksize, 2, "ksize", op_name)
    st = _spatial(strides, 2, "strides", op_name)
    in_hw = x._value.shape[1:3]
    pads = _pads(padding, in_hw, ks, st, (1, 1), op_name, explicit_ok)
    _check_output(in_hw, ks, st, (1, 1), pads, op_name)
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
    _check_format(data_format, ("NHWC",), "MaxPool")
    x, attrs = _pool_args(input, ksize, strides, padding, "MaxPool", True)
    return _c.max_pool2d(x, **attrs)


def avg_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """The mean of each window of NHWC `input`; with 'SAME' padding the mean is
    over the real cells only, as TF."""
    _check_format(data_format, ("NHWC",), "AvgPool")
    x, attrs = _pool_args(input, ksize, strides, padding, "AvgPool", False)
    return _c.avg_pool2d(x, **attrs)


def _pool1d(pool, input, ksize, strides, padding, data_format, op_name):  # noqa: A002
    _check_format(data_format, ("NWC",), op_name)
    x = as_tensor(input)
    ks = (1,) + _spatial(ksize, 1, "ksize", op_name)
    st = (1,) + _spatial(strides, 1, "strides", op_name)
    if not isinstance(padding, str):
        padding = [[0, 0], [0, 0]] + [list(p) for p in padding[1:]]
    return _from_2d(pool(_as_2d(x, op_name), ks, st, padding))


def max_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """max_pool2d over the W axis of NWC `input`."""
    return _pool1d(max_pool2d, input, ksize, strides, padding, data_format, "max_pool1d")


def avg_pool1d(input, ksize, strides, padding, data_format="NWC", name=None):  # noqa: A002
    """avg_pool2d over the W axis of NWC `input`."""
    return _pool1d(avg_pool2d, input, ksize, strides, padding, data_format, "avg_pool1d")
