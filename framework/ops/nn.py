"""nn.py: the softmax family of primitives -- softmax, log_softmax and the
fused softmax cross-entropy (dense and sparse labels) with its gradient op.
The cross-entropy forward and gradient are one pass over the rows each (a
Numba kernel up to a measured size, NumPy's vectorised passes above it); their VJPs are written with
ops, so higher orders work. Composite nn functions live in framework/nn/."""

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor
from ..runtime import kernel_start
from .math import multiply, negative, subtract
from .reduce import reduce_sum
from .registry import defop
from .shape import reshape

__all__ = ["softmax", "log_softmax", "softmax_cross_entropy", "softmax_cross_entropy_grad",
           "sparse_softmax_cross_entropy", "sparse_softmax_cross_entropy_grad"]

# Logits up to which the fused kernels win (measured in benchmarks/kernels.py: 2x
# faster at 64 x 10, where NumPy's several passes and temporaries dominate). Above
# it NumPy wins: its SIMD exp beats the kernels' scalar exp (3x at 512 x 100).
_KERNEL_MAX_SIZE = 4096


def _nb(g, out):
    return g._value.ndim - out._value.ndim


def _empty_like(x):
    """A size-0 result of x's shape (np.max raised only because x has no entries)."""
    if x.size:
        raise ValueError(f"softmax: cannot reduce an axis of input shape {x.shape}")
    return np.zeros_like(x)


@defop
def softmax(x, axis):
    """exp(x) / sum(exp(x)) along the non-negative `axis`, shifted by the max."""
    try:
        e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    except ValueError:  # an empty axis has no max; TF returns the empty input's shape
        return _empty_like(x)
    return e / np.sum(e, axis=axis, keepdims=True)


@softmax.defvjp
def softmax_vjp(g, out, x, axis):
    gs = multiply(g, out)
    return subtract(gs, multiply(out, reduce_sum(gs, axis=(axis + _nb(g, out),),
                                                 keepdims=True)))


@defop
def log_softmax(x, axis):
    """x - log(sum(exp(x))) along the non-negative `axis`, shifted by the max."""
    try:
        shifted = x - np.max(x, axis=axis, keepdims=True)
    except ValueError:  # an empty axis has no max
        return _empty_like(x)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axis, keepdims=True))


@log_softmax.defvjp
def log_softmax_vjp(g, out, x, axis):
    total = reduce_sum(g, axis=(axis + _nb(g, out),), keepdims=True)
    return subtract(g, multiply(softmax(x, axis=axis), total))


# -- fused cross-entropy over the last axis ------------------------------------------
def _rows(a):
    return np.ascontiguousarray(a.reshape(-1, a.shape[-1]))


def _use_kernel(z):
    """Whether the fused kernel runs (else NumPy's passes): small enough, and the
    kernels started (runtime/kernel_start.py)."""
    return z.size <= _KERNEL_MAX_SIZE and z.shape[-1] > 0 and z.dtype.itemsize >= 4 and \
        kernel_start.use_kernel(z.size)


def _np_log_softmax(z):
    if z.shape[-1] == 0:  # no classes: empty rows, whose sums below are 0 as in TF
        return np.zeros_like(z)
    shifted = z - np.max(z, axis=-1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=-1, keepdims=True))


@defop
def softmax_cross_entropy(labels, logits):
    """-sum(labels * log_softmax(logits), -1); labels and logits of one shape."""
    if not _use_kernel(logits):
        return -np.sum(labels * _np_log_softmax(logits), axis=-1)
    from ..kernels import softmax as _k
    z, y = _rows(logits), _rows(labels.astype(logits.dtype, copy=False))
    loss = np.empty(z.shape[0], logits.dtype)
    _k.softmax_cross_entropy_forward(z, y, loss)
    return loss.reshape(logits.shape[:-1])


def _expand_last(g):
    return reshape(g, shape=g._value.shape + (1,))


softmax_cross_entropy.defvjp(
    # TF differentiates the labels too: -g * log_softmax(logits).
    lambda g, out, y, z: negative(multiply(_expand_last(g), log_softmax(z, axis=z.ndim - 1))),
    lambda g, out, y, z: softmax_cross_entropy_grad(g, y, z))


# broadcasting: under a batch of cotangents `g` has extra leading axes and the
# gradients of labels and logits are summed back over them by the engine.
@defop(broadcasting=True)
def softmax_cross_entropy_grad(g, labels, logits):
    """g[..., None] * (softmax(logits) - labels), batched over g's extra leading axes."""
    if not _use_kernel(logits) or g.ndim != logits.ndim - 1:
        p = np.exp(_np_log_softmax(logits))
        return g[..., None] * (p - labels)
    from ..kernels import softmax as _k
    z, y = _rows(logits), _rows(labels.astype(logits.dtype, copy=False))
    dz = np.empty_like(z)
    _k.softmax_cross_entropy_backward(z, y, np.ascontiguousarray(
        g.reshape(-1), dtype=z.dtype), dz)
    return dz.reshape(logits.shape)


def _ce_grad_vjp_logits(h, out, g, y, z):
    # d/dz of <h, g (softmax(z) - y)> is softmax's VJP applied to h * g.
    hg = multiply(h, _expand_last(g))
    return multiply(softmax(z, axis=z.ndim - 1), subtract(hg, reduce_sum(
        multiply(hg, softmax(z, axis=z.ndim - 1)), axis=(h.ndim - 1,), keepdims=True)))


softmax_cross_entropy_grad.defvjp(
    lambda h, out, g, y, z: reduce_sum(multiply(h, subtract(softmax(z, axis=z.ndim - 1), y)),
                                       axis=(h.ndim - 1,)),
    lambda h, out, g, y, z: negative(multiply(h, _expand_last(g))),
    _ce_grad_vjp_logits)


def _check_labels(labels, classes):
    """TF's kernel check, in the forward so that a traced call checks every batch."""
    bad = (labels < 0) | (labels >= classes)
    if np.any(bad):
        raise InvalidArgumentError(
            f"Received a label value of {labels[bad].flat[0]} which is outside the valid "
            f"range of [0, {classes}).  Label values: "
            f"{' '.join(str(v) for v in labels.ravel()[:20])} "
            "[Op:SparseSoftmaxCrossEntropyWithLogits]")


@defop
def sparse_softmax_cross_entropy(labels, logits):
    """log-sum-exp(logits) - logits[labels] over the last axis; labels are ints of
    logits' shape without its last axis (their dtype and shape checked by the
    caller, their range here: InvalidArgumentError naming the label)."""
    if not _use_kernel(logits):
        _check_labels(labels, logits.shape[-1] if logits.ndim else 0)
        picked = np.take_along_axis(_np_log_softmax(logits), labels[..., None], axis=-1)
        return -picked[..., 0]
    from ..kernels import softmax as _k
    z = _rows(logits)
    loss = np.empty(z.shape[0], logits.dtype)
    if _k.sparse_softmax_cross_entropy_forward(
            z, np.ascontiguousarray(labels.reshape(-1), dtype=np.int64), loss) >= 0:
        _check_labels(labels, logits.shape[-1])  # raises, naming the label
    return loss.reshape(logits.shape[:-1])


sparse_softmax_cross_entropy.defvjp(
    lambda g, out, y, z: None,  # integer labels have no gradient
    lambda g, out, y, z: sparse_softmax_cross_entropy_grad(g, y, z))


def _one_hot(labels, like):
    return (labels[..., None] == np.arange(like.shape[-1])).astype(like.dtype)


@defop(broadcasting=True)
def sparse_softmax_cross_entropy_grad(g, labels, logits):
    """g[..., None] * (softmax(logits) - onehot(labels)), batched over g's leading axes."""
    if not _use_kernel(logits) or g.ndim != logits.ndim - 1:
        p = np.exp(_np_log_softmax(logits))
        return g[..., None] * (p - _one_hot(labels, logits))
    from ..kernels import softmax as _k
    z = _rows(logits)
    dz = np.empty_like(z)
    _k.sparse_softmax_cross_entropy_backward(
        z, np.ascontiguousarray(labels.reshape(-1), dtype=np.int64),
        np.ascontiguousarray(g.reshape(-1), dtype=z.dtype), dz)
    return dz.reshape(logits.shape)


def _sparse_grad_vjp_g(h, out, g, y, z):
    onehot = Tensor(_one_hot(y._value, z._value))
    return reduce_sum(multiply(h, subtract(softmax(z, axis=z.ndim - 1), onehot)),
                      axis=(h.ndim - 1,))


sparse_softmax_cross_entropy_grad.defvjp(
    _sparse_grad_vjp_g, lambda h, out, g, y, z: None, _ce_grad_vjp_logits)
