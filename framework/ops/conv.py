"""conv.py: convolution and pooling primitives in NHWC -- conv2d with its
input and filter gradients, max and average pooling with their gradients.
Each VJP calls a sibling op, so the chain closes and higher orders work; the
loops are Numba kernels (kernels/conv.py, kernels/pool.py) or im2col + GEMM,
whichever measured faster on this machine for the filters' window class (the
'conv' decision, measured here by `_measure_conv` on first need). Padding
arrives resolved as ((top, bottom), (left, right)); checks live in nn/_windows.py.

Every op accepts extra leading axes on its inputs (a batch of cotangents from
`jacobian`, or the leading axes of a higher-order gradient): the conv ops
broadcast them like matmul does; the pools fold them into the batch axis."""

import functools

import numpy as np

from ..core import record as _record
from ..core.tensor import Tensor
from ..runtime import calibration
from .beside import Beside, backward_follows
from .math import matmul_2d as _matmul, relu_grad
from .registry import defop
from .shape import getitem, reshape, unbroadcast

__all__ = ["conv2d", "conv2d_input_grad", "conv2d_filter_grad", "conv2d_bias_activation",
           "max_pool2d", "max_pool2d_grad", "avg_pool2d", "avg_pool2d_grad", "conv_output_size"]

# The forward and the filter gradient take the direct kernels or im2col + GEMM
# as measured per window class (kernels/conv.py: `direct`); the input gradient
# always takes GEMM + col2im, which won on every shape tried.


def conv_output_size(size, k, stride, dilation, pad_before, pad_after):
    """The output length of a convolution or pool along one axis."""
    span = (k - 1) * dilation + 1
    return max((size + pad_before + pad_after - span) // stride + 1, 0)


def _kernels():
    from ..kernels import conv as _k
    return _k


def _contiguous(a):
    return np.ascontiguousarray(a)


# -- 4-D implementations ---------------------------------------------------------
def _conv_fwd(x, w, strides, dilations, pads, keep=None, direct=None):
    k = _kernels()
    n, h, wd, c_in = x.shape
    kh, kw, _, c_out = w.shape
    (pt, pb), (pl, pr) = pads
    ho = conv_output_size(h, kh, strides[0], dilations[0], pt, pb)
    wo = conv_output_size(wd, kw, strides[1], dilations[1], pl, pr)
    dtype = np.result_type(x, w)
    out = np.empty((n, ho, wo, c_out), dtype)
    if out.size == 0 or c_in == 0:
        return np.zeros_like(out)
    x, w = _contiguous(x.astype(dtype, copy=False)), _contiguous(w.astype(dtype, copy=False))
    geometry = (*strides, *dilations, pt, pl)
    work = out.size * kh * kw * c_in
    if direct if direct is not None else _is_direct(w.shape, dtype):
        return k.pick(k.conv2d_forward, work, n)(x, w, out, *geometry)
    cols = np.empty((n * ho * wo, kh * kw * c_in), dtype)
    k.pick(k.im2col, cols.size, n)(x, cols, kh, kw, *geometry, ho, wo)
    if keep is not None:
        keep.append(cols)
    return _matmul(cols, w.reshape(-1, c_out)).reshape(out.shape)


def _conv_in(g, w, input_hw, strides, dilations, pads, direct=None):
    k = _kernels()
    n, ho, wo, c_out = g.shape
    kh, kw, c_in, _ = w.shape
    dtype = np.result_type(g, w)
    dx = np.empty((n,) + tuple(input_hw) + (c_in,), dtype)
    if g.size == 0 or dx.size == 0:
        return np.zeros_like(dx)
    g, w = _contiguous(g.astype(dtype, copy=False)), _contiguous(w.astype(dtype, copy=False))
    geometry = (*strides, *dilations, pads[0][0], pads[1][0])
    if k.conv_tiled.takes_input(kh * kw * c_in, dtype) and (
            direct if direct is not None else _is_direct(w.shape, dtype)):
        return k.pick(k.conv_tiled.backward_input, g.size * kh * kw * c_in, n)(
            g, np.ascontiguousarray(w.reshape(-1, c_out).T), dx, kh, kw, *geometry)
    rows, wt = ho * wo, w.reshape(-1, c_out).T
    g = g.reshape(-1, c_out)
    # at least a sample a core: col2im runs the samples on parallel threads
    chunk = COLUMN_CHUNK_BYTES or _l2_cache_bytes()
    per = max(calibration.usable_cpus(), chunk // (rows * wt.shape[1] * dx.itemsize))
    for start in range(0, n, per):  # a chunk's columns are added into dx while in cache
        stop = min(n, start + per)
        cols = _matmul(g[start * rows:stop * rows], wt)
        k.pick(k.col2im, cols.size, stop - start)(cols, dx[start:stop], kh, kw, *geometry,
                                                  ho, wo)
    return dx


# Input-gradient columns a chunk: one core's L2 cache (read at first use), so that
# col2im reads them from cache (Zen 4: W3's conv2 input gradient 2.33 -> 1.95 ms).
COLUMN_CHUNK_BYTES = None
_l2_cache_bytes = functools.cache(calibration.l2_cache_bytes)


def _is_direct(w_shape, dtype):
    """Whether conv2d with (kh, kw, in, out) filters of `dtype` takes the direct kernels."""
    return _kernels().direct(*w_shape, dtype)


def _conv_filt_direct(x, g, filter_hw, strides, dilations, pads, relu_out=None):
    """The filter gradient by the direct kernel, and the bias gradient it sums
    on the way. With `relu_out` (the ReLU's output), g is masked by it first."""
    k = _kernels()
    n, _, _, c_in = x.shape
    c_out = g.shape[3]
    kh, kw = filter_hw
    dtype = np.result_type(x, g)
    x, g = _contiguous(x.astype(dtype, copy=False)), _contiguous(g.astype(dtype, copy=False))
    relu = relu_out is not None
    y = _contiguous(relu_out.astype(dtype, copy=False)) if relu else g
    kernel = k.pick(k.conv2d_backward_filter, g.size * kh * kw * c_in, n)
    # One accumulator per thread of the parallel kernel, summed below (it was two:
    # the filter gradient now scales past two cores).
    chunks = k.chunks_for(kernel, k.conv2d_backward_filter, n)
    partial = np.empty((chunks, kh, kw, c_in, c_out), dtype)
    bias_partial = np.empty((chunks, c_out), np.float64)
    kernel(x, g, partial, *strides, *dilations, pads[0][0], pads[1][0], y, relu, bias_partial)
    dw = partial.sum(axis=0) if chunks > 1 else partial[0]
    return dw, bias_partial.sum(axis=0).astype(dtype)


def _conv_filt(x, g, filter_hw, strides, dilations, pads, cols=None, direct=None):
    k = _kernels()
    n, _, _, c_in = x.shape
    _, ho, wo, c_out = g.shape
    kh, kw = filter_hw
    dtype = np.result_type(x, g)
    if g.size == 0 or c_in == 0:
        return np.zeros((kh, kw, c_in, c_out), dtype)
    if direct if direct is not None else _is_direct((kh, kw, c_in, c_out), dtype):
        return _conv_filt_direct(x, g, filter_hw, strides, dilations, pads)[0]
    x, g = _contiguous(x.astype(dtype, copy=False)), _contiguous(g.astype(dtype, copy=False))
    geometry = (*strides, *dilations, pads[0][0], pads[1][0])
    if cols is None or cols.dtype != dtype:
        cols = np.empty((n * ho * wo, kh * kw * c_in), dtype)
        k.pick(k.im2col, cols.size, n)(x, cols, kh, kw, *geometry, ho, wo)
    return _matmul(cols.T, g.reshape(-1, c_out)).reshape(kh, kw, c_in, c_out)


# The input each window class is measured on, (batch, height = width): a few
# million multiply-adds per pass, as a layer's in a step (MNIST-sized input
# layers; 32 of a 13 x 13 x 32 hidden layer). Smaller inputs measure the threads'
# start: on a busy 2-core Xeon 8 x 16 x 16 x 1 ran 8x slower direct, 32 x 28 x 28 x 1
# 2x faster, as W3's first layer; 3x3x32 tiled, AMD Zen 4: 1.2x at 8 x 16 x 16, 1.5x here.
_MEASURED_INPUTS = {"upto9": (32, 28), "upto16": (32, 28), "upto27": (16, 28),
                    "upto81": (8, 28), "over81": (32, 13)}


def _measure_conv(repeats=9, budget=0.03, time_calls=calibration.time_calls):
    """('conv' routes, median seconds per class, path and measurement): what a
    training step runs for a Conv2D(32, activation='relu') input layer, the forward with its
    bias and ReLU and the filter and bias gradients, through the direct kernels
    (the filter kernel masking the gradient as it reads it) and through im2col
    + GEMM (reusing the forward's columns, as under a tape), taking turns, on
    one float32 batch per window class (_MEASURED_INPUTS), within `budget`
    seconds per class after a warm-up round (~0.2 s in all), measured again where the
    default path loses (kernels/conv.py `routes`). The input gradient is measured
    too where the direct path has its own (tiled: windows of a panel of values or
    more, a hidden layer's); elsewhere, GEMM + col2im on both, left out. Arrays
    only, no ops: the first convolution may run inside a trace. `time_calls` is
    bound here, so that a test replacing calibration's does not see these calls."""
    k, relu_backward = _kernels(), _elementwise_kernels().relu_bias_backward_arrays
    rng = np.random.default_rng(0)
    geometry = {"strides": (1, 1), "dilations": (1, 1), "pads": ((1, 1), (1, 1))}
    timings = {}
    for cls, (_, (kh, kw, c_in), _) in k.WINDOW_CLASSES.items():
        batch, size = _MEASURED_INPUTS[cls]
        x = rng.standard_normal((batch, size, size, c_in)).astype(np.float32)
        w = rng.standard_normal((kh, kw, c_in, 32)).astype(np.float32)
        b = np.zeros(32, np.float32)
        out_hw = [conv_output_size(size, k_len, 1, 1, 1, 1) for k_len in (kh, kw)]
        g = rng.standard_normal((batch, *out_hw, 32)).astype(np.float32)

        hidden = k.conv_tiled.takes_input(kh * kw * c_in, np.float32)
        def direct(x=x, w=w, b=b, g=g, hidden=hidden):
            out = _bias_activation(_conv_fwd(x, w, **geometry, direct=True), b, "relu")
            _conv_filt_direct(x, g, w.shape[:2], **geometry, relu_out=out)
            if hidden:
                _conv_in(g, w, x.shape[1:3], **geometry, direct=True)

        def im2col(x=x, w=w, b=b, g=g, hidden=hidden):
            keep = []
            out = _bias_activation(_conv_fwd(x, w, **geometry, keep=keep, direct=False), b, "relu")
            masked, _ = relu_backward(g.reshape(-1, 32), out.reshape(-1, 32),
                                      g.size >= _elementwise_kernels().PARALLEL_ELEMENTS)
            _conv_filt(x, masked.reshape(g.shape), w.shape[:2], **geometry, cols=keep[0],
                       direct=False)
            if hidden:
                _conv_in(masked.reshape(g.shape), w, x.shape[1:3], **geometry, direct=False)
        candidates = {"direct": direct, "im2col": im2col}
        runs = [time_calls(candidates, repeats, budget=budget)]
        if k.routes({cls: runs})[cls] != k.WINDOW_CLASSES[cls][2]:  # a switch must show twice
            runs.append(time_calls(candidates, repeats, budget=budget))
        timings[cls] = runs
    medians = {cls: {p: [float(np.median(t[p])) for t in runs] for p in ("direct", "im2col")}
               for cls, runs in timings.items()}
    return k.routes(timings), medians


calibration.register("conv", _measure_conv, version=3)  # 3: tiled kernels, wide windows


def _over_leading(fn, a, b, fold_a, core=4, **attrs):
    """`fn` on the last `core` axes of `a` and `b` (4 for conv2d, 5 for conv3d),
    broadcast over their leading axes.

    When only `a` has leading axes and `fold_a` (its first core axis is the batch
    axis), they are folded into that axis: one kernel call instead of a loop.
    """
    lead_a, lead_b = a.shape[:-core], b.shape[:-core]
    if not lead_b and fold_a:
        result = fn(_fold(a, core - 1), b, **attrs)
        return result.reshape(lead_a + (a.shape[-core],) + result.shape[1:])
    lead = np.broadcast_shapes(lead_a, lead_b)
    a = np.broadcast_to(a, lead + a.shape[-core:])
    b = np.broadcast_to(b, lead + b.shape[-core:])
    parts = [fn(a[i], b[i], **attrs) for i in np.ndindex(*lead)]
    if not parts:  # a size-0 leading axis: the empty stack of what one call returns
        one = fn(np.zeros(a.shape[-core:], a.dtype), np.zeros(b.shape[-core:], b.dtype),
                 **attrs)
        return np.zeros(lead + one.shape, one.dtype)
    return np.stack(parts).reshape(lead + parts[0].shape)


def _fold(a, kept=3):
    """`a` with the axes before its last `kept` merged into one."""
    try:
        return a.reshape((-1,) + a.shape[-kept:])
    except ValueError:  # size 0 with a 0 among the last axes: -1 cannot be inferred
        return a.reshape((int(np.prod(a.shape[:-kept], dtype=np.int64)),) + a.shape[-kept:])


# -- conv2d and its gradients --------------------------------------------------------
# The im2col matrix of a recorded conv2d forward, kept beside its output array
# until that array dies (beside.py): the filter gradient multiplies by the same
# matrix, so it need not rebuild it. Holds (x, cols).
_COLS = Beside()
# At most one (x, cols) pair, offered by conv2d's filter VJP to the
# conv2d_filter_grad call it makes; taken only if that call's x is the same array.
_OFFERED = []


def _conv_fwd_recorded(x, w, strides, dilations, pads):
    """_conv_fwd for a tape that records, or a replayed step whose backward is in
    its graph (record.replaying): its im2col matrix, if it built one, is kept
    beside the output for the filter gradient (see _COLS)."""
    keep = []
    out = _conv_fwd(x, w, strides, dilations, pads, keep=keep)
    if keep:
        _COLS.keep(out, (x, keep[0]))
    return out


@defop(broadcasting=True)
def conv2d(x, w, strides, dilations, pads):
    """x (..., N, H, W, in) * w (..., kh, kw, in, out) -> (..., N, H', W', out)."""
    if backward_follows() and x.ndim == 4 and w.ndim == 4:
        return _conv_fwd_recorded(x, w, strides, dilations, pads)
    return _over_leading(_conv_fwd, x, w, True, strides=strides, dilations=dilations, pads=pads)


@defop(broadcasting=True)
def conv2d_input_grad(g, w, input_hw, strides, dilations, pads):
    """The adjoint of conv2d in its input: g (..., N, H', W', out) -> (..., N, H, W, in)."""
    return _over_leading(_conv_in, g, w, True, input_hw=input_hw, strides=strides,
                         dilations=dilations, pads=pads)


@defop(broadcasting=True)
def conv2d_filter_grad(x, g, filter_hw, strides, dilations, pads):
    """The adjoint of conv2d in its filter: (x, g) -> (..., kh, kw, in, out)."""
    offered = _OFFERED.pop() if _OFFERED else None
    if offered is not None and offered[0] is x and g.ndim == 4:
        return _conv_filt(x, g, filter_hw, strides, dilations, pads, cols=offered[1])
    return _over_leading(_conv_filt, x, g, False, filter_hw=filter_hw, strides=strides,
                         dilations=dilations, pads=pads)


def _hw(t):
    return t._value.shape[-3:-1]


def _filter_hw(t):
    return t._value.shape[-4:-2]


# <h, C(x, w)> is bilinear, so each gradient is another of the three ops.
def _conv2d_filter_vjp(g, out, x, w, **a):
    kept = None if _record.tracing else _COLS.get(out._value)  # (a trace records ops)
    if kept is not None and kept[0] is x._value:
        _OFFERED.append(kept)
    try:
        return conv2d_filter_grad(x, g, filter_hw=_filter_hw(w), **a)
    finally:
        _OFFERED.clear()


conv2d.defvjp(
    lambda g, out, x, w, **a: conv2d_input_grad(g, w, input_hw=_hw(x), **a),
    _conv2d_filter_vjp)
conv2d_input_grad.defvjp(
    lambda h, out, g, w, input_hw, **a: conv2d(h, w, **a),
    lambda h, out, g, w, input_hw, **a: conv2d_filter_grad(h, g, filter_hw=_filter_hw(w), **a))
conv2d_filter_grad.defvjp(
    lambda h, out, x, g, filter_hw, **a: conv2d_input_grad(g, h, input_hw=_hw(x), **a),
    lambda h, out, x, g, filter_hw, **a: conv2d(x, h, **a))


# -- conv2d + bias + activation in one op ----------------------------------------------
@defop
def conv2d_bias_activation(x, w, b, activation, strides, dilations, pads):
    """activation(conv2d(x, w) + b) for 4-D x and w, activation None or 'relu'.

    The bias add and the ReLU run in place on the convolution's output (one
    pass, no temporaries), and the backward pass masks the gradient and sums
    the bias gradient in one pass too. What Conv2D layers call.
    """
    fwd = _conv_fwd_recorded if backward_follows() else _conv_fwd
    return _bias_activation(fwd(x, w, strides, dilations, pads), b, activation)


def _bias_activation(out, b, activation):
    """activation(out + b), in place on out: one pass, no temporaries."""
    return _elementwise_kernels().bias_activation_in_place(out, b, activation == "relu")


def _elementwise_kernels():
    from ..kernels import elementwise as _k
    return _k


def _masked_and_bias_grad(g, out, activation, want_bias):
    """(the gradient below the activation, the bias gradient or None)."""
    nb = g.ndim - 4
    channels = g.shape[-1]
    if activation != "relu":
        return g, (unbroadcast(g, shape=(channels,), batch_ndim=nb) if want_bias else None)
    if not (_record._recording or _record.tracing) and nb == 0 and g.dtype == out.dtype \
            and g.shape.num_elements():
        # First order: no tape records this VJP, so one kernel pass may do both.
        gv, yv = g._value, out._value
        parallel = gv.size >= _elementwise_kernels().PARALLEL_ELEMENTS and gv.shape[0] > 1
        gm, db = _elementwise_kernels().relu_bias_backward_arrays(
            np.ascontiguousarray(gv).reshape(-1, channels),
            np.ascontiguousarray(yv).reshape(-1, channels), parallel)
        return Tensor(gm.reshape(gv.shape)), Tensor(db)
    gm = relu_grad(g, out)
    return gm, (unbroadcast(gm, shape=(channels,), batch_ndim=nb) if want_bias else None)


@conv2d_bias_activation.defvjp_joint
def _conv2d_bias_activation_vjp(g, out, needed, x, w, b, activation, **a):
    if (not needed[0] and needed[1] and not (_record._recording or _record.tracing)
            and g._value.ndim == 4
            and g._value.size and _is_direct(w._value.shape, g._value.dtype)):
        # A first layer (no input gradient) on the direct kernel, first order:
        # the filter kernel masks g and sums the bias gradient as it reads g.
        relu_out = out._value if activation == "relu" else None
        dw, db = _conv_filt_direct(x._value, g._value, _filter_hw(w), relu_out=relu_out, **a)
        return None, Tensor(dw), Tensor(db) if needed[2] else None
    gm, db = _masked_and_bias_grad(g, out, activation, needed[2])
    dx = conv2d_input_grad(gm, w, input_hw=_hw(x), **a) if needed[0] else None
    dw = _conv2d_filter_vjp(gm, out, x, w, **a) if needed[1] else None
    return dx, dw, db


# -- pooling -------------------------------------------------------------------------
def _pool_kernels():
    from ..kernels import pool as _k
    return _k


def _folded(a):
    """a's leading axes folded into the batch, C-contiguous and writable: a read-only
    operand would compile the kernel again, and that fastmath compile may round
    differently (avg_pool2d_grad did, by an ulp)."""
    folded = np.ascontiguousarray(_fold(a))
    return folded if folded.flags.writeable else folded.copy()


def _pool_out_shape(shape, ksize, strides, pads):
    ho = conv_output_size(shape[-3], ksize[0], strides[0], 1, *pads[0])
    wo = conv_output_size(shape[-2], ksize[1], strides[1], 1, *pads[1])
    return shape[:-3] + (ho, wo, shape[-1])


# The argmax of a max pool, kept beside its output array until that array dies, so
# that the gradient scatters without a second pass over the input.
_ARGMAX = Beside()


def _max_pool(x, ksize, strides, pads):
    k = _pool_kernels()
    xf = _folded(x)
    out_shape = _pool_out_shape(x.shape, ksize, strides, pads)
    out = np.empty((xf.shape[0],) + out_shape[-3:], x.dtype)
    argmax = np.empty(out.shape, np.int64)
    if out.size:
        k.pick(k.max_pool2d_forward, xf.size, xf.shape[0])(
            xf, out, argmax, *ksize, *strides, pads[0][0], pads[1][0])
    return out.reshape(out_shape), argmax.reshape(out_shape)


@defop
def max_pool2d(x, ksize, strides, pads):
    """The maximum over each (kh, kw) window of x (..., N, H, W, C)."""
    out, argmax = _max_pool(x, ksize, strides, pads)
    if backward_follows():  # as conv2d keeps its columns (not in inference, nor a trace)
        _ARGMAX.keep(out, argmax)
    return out


@defop(differentiable=False)
def max_pool2d_argmax(x, out, ksize, strides, pads):
    """Where each of max_pool2d's maxima came from: the forward's argmax when it kept
    it for `out`, else recomputed. An op, so a traced backward replays it."""
    argmax = _ARGMAX.get(out)
    return argmax if argmax is not None else _max_pool(x, ksize, strides, pads)[1]


@max_pool2d.defvjp
def max_pool2d_vjp(g, out, x, ksize, strides, pads):
    argmax = max_pool2d_argmax(x, out, ksize=ksize, strides=strides, pads=pads)
    return max_pool2d_grad(g, argmax, input_shape=x.shape[-3:])


@defop
def max_pool2d_grad(g, argmax, input_shape):
    """g (..., N, H', W', C) scattered to the argmax positions of (..., N, H, W, C).

    `argmax` holds flat indices into each sample's (H, W, C) block; it is
    broadcast over extra leading axes of `g`.
    """
    k = _pool_kernels()
    gf = _folded(g)
    am = _folded(argmax if argmax.shape == g.shape else np.broadcast_to(argmax, g.shape))
    dx = np.empty((gf.shape[0],) + tuple(input_shape), g.dtype)
    if dx.size:
        # Sized by what it touches: it zeroes all of dx, then adds g into it.
        k.pick(k.max_pool2d_backward, dx.size + gf.size, gf.shape[0])(gf, am, dx)
    return dx.reshape(g.shape[:-3] + tuple(input_shape))


def _max_pool2d_grad_vjp(h, out, g, argmax, input_shape):
    # The adjoint of a scatter is the gather from the same positions.
    nb = h._value.ndim - out._value.ndim
    batch = h._value.shape[:nb]
    am = np.broadcast_to(argmax._value, g._value.shape)
    m = int(np.prod(g._value.shape[:-3], dtype=np.int64))
    am = am.reshape(m, int(np.prod(g._value.shape[-3:], dtype=np.int64)))
    flat = reshape(h, shape=batch + (m, int(np.prod(input_shape, dtype=np.int64))))
    key = (np.arange(m)[:, None], np.maximum(am, 0))
    picked = getitem(flat, key=key, batch_ndim=nb)
    if (am < 0).any():  # windows of padding only: their gradient is 0
        picked = picked * Tensor((am >= 0).astype(h._value.dtype))
    return reshape(picked, shape=batch + g._value.shape)


max_pool2d_grad.defvjp(_max_pool2d_grad_vjp, lambda h, out, g, argmax, input_shape: None)


@defop
def avg_pool2d(x, ksize, strides, pads):
    """The mean over the real (non-padding) cells of each window of x (..., N, H, W, C)."""
    k = _pool_kernels()
    xf = _folded(x)
    out_shape = _pool_out_shape(x.shape, ksize, strides, pads)
    out = np.empty((xf.shape[0],) + out_shape[-3:], x.dtype)
    if out.size:
        k.pick(k.avg_pool2d_forward, xf.size, xf.shape[0])(
            xf, out, *ksize, *strides, pads[0][0], pads[1][0])
    return out.reshape(out_shape)


@defop
def avg_pool2d_grad(g, input_shape, ksize, strides, pads):
    """The adjoint of avg_pool2d: each g cell spread evenly over its window's real cells."""
    k = _pool_kernels()
    gf = _folded(g)
    dx = np.empty((gf.shape[0],) + tuple(input_shape), g.dtype)
    if dx.size:
        k.pick(k.avg_pool2d_backward, dx.size + gf.size, gf.shape[0])(
            gf, dx, *ksize, *strides, pads[0][0], pads[1][0])
    return dx.reshape(g.shape[:-3] + tuple(input_shape))


avg_pool2d.defvjp(lambda g, out, x, **a: avg_pool2d_grad(g, input_shape=x._value.shape[-3:],
                                                          **a))
avg_pool2d_grad.defvjp(lambda h, out, g, input_shape, **a: avg_pool2d(h, **a))
