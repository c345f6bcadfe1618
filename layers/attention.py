"""attention.py holds MultiHeadAttention (Keras 3's weights and call signature):
projections of query, key and value per head, scaled dot-product attention with
padding / causal / explicit masks, and the output projection -- all matmuls
over the whole batch, so gradients come from the op library."""

import math

import numpy as np

from .. import constraints, initializers, regularizers
from .. import nn as _nn
from ..api.array_ops import cast, reshape, transpose
from ..core.tensor import Tensor
from ..linalg import matmul
from ..math import add, multiply
from ..math.comparisons import logical_and
from ..ops.math import const, select
from .base import Layer, get_keras_mask
from .layer_utils import serialize_option, weight_options_config

__all__ = ["MultiHeadAttention"]


def _large_negative(dtype):
    """The score Keras gives masked positions (Softmax's _large_negative_number)."""
    return -3e4 if dtype == np.float16 else -1e9


def _bool_mask(mask):
    """A mask as a bool Tensor (Keras casts masks defensively). Masks are combined
    with ops, never read in Python, so a traced step replays them."""
    return None if mask is None else cast(mask, "bool")


def _with_head_axis(mask):
    """A (B, Tq, Tv) mask (or one broadcasting to it) as (B, 1, Tq, Tv)."""
    shape = (1,) * (3 - len(mask.shape)) + tuple(mask.shape)
    return reshape(mask, (shape[0], 1) + shape[1:])


class MultiHeadAttention(Layer):
    """Multi-head scaled dot-product attention (Vaswani et al. 2017).

    `layer(query, value, key=None)` with query (B, Tq, dq), value (B, Tv, dv)
    and key (B, Tv, dk) (default: value) returns (B, Tq, dq), or
    (B, Tq, *output_shape). Each head projects the query and key to `key_dim`
    and the value to `value_dim`; the query is scaled by 1 / sqrt(key_dim).

    Weights, in order (kernel then bias each): query (dq, heads, key_dim),
    (heads, key_dim); key (dk, heads, key_dim), (heads, key_dim); value
    (dv, heads, value_dim), (heads, value_dim); attention_output
    (heads, value_dim, out_dim), (out_dim,).

    Args:
        num_heads: the number of heads.
        key_dim: the size of each head's query and key.
        value_dim: the size of each head's value (default key_dim).
        dropout: the dropout rate on the attention probabilities (training only).
        use_bias: whether the projections have biases.
        output_shape: the size (int or tuple) of the output's last axes;
            default the query's last axis.
        attention_axes: only None (attend over every axis between batch and
            features, flattened) is supported.
        kernel_*/bias_* initializers, regularizers and constraints: as Dense.

    Call arguments:
        query, value, key: as above (extra axes between batch and features are
            flattened into one sequence axis).
        attention_mask: bool (B, Tq, Tv) (or broadcasting to it, or
            (B, heads, Tq, Tv)), True where a query may attend.
        return_attention_scores: also return the (B, heads, Tq, Tv) probabilities.
        use_causal_mask: a query step attends only to value steps <= it.
        query_mask, value_mask, key_mask: (B, T) padding masks; by default the
            Keras masks of the inputs (Embedding(mask_zero=True)). Keras 3
            ignores an explicit `query_mask` (it reads the query's Keras mask);
            tapeflow uses it.

    The masks are ANDed as Keras 3's `_compute_attention_mask` does, and the
    output carries the query's Keras mask. A query row with no position to
    attend to gets uniform probabilities, as Keras's fused path gives, or zeros
    where Keras takes its masked-softmax path (dropout > 0,
    return_attention_scores, or a query of rank > 3).

    Raises:
        ValueError: for bad arguments, or inputs whose feature sizes differ
            from those the layer was built with, or masks of the wrong shape.
    """

    def __init__(self, num_heads, key_dim, value_dim=None, dropout=0.0, use_bias=True,
                 output_shape=None, attention_axes=None, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None,
                 seed=None, **kwargs):
        super().__init__(activity_regularizer=activity_regularizer, **kwargs)
        for what, value in (("num_heads", num_heads), ("key_dim", key_dim),
                            ("value_dim", key_dim if value_dim is None else value_dim)):
            if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Layer {self.name!r}: `{what}` must be a positive int, got "
                                 f"{value!r}.")
        if not 0.0 <= float(dropout) < 1.0:
            raise ValueError(f"Layer {self.name!r}: `dropout` must be in [0, 1), got {dropout!r}.")
        if attention_axes is not None:
            raise ValueError(f"Layer {self.name!r}: tapeflow supports attention_axes=None "
                             f"only (attention over all axes between batch and features); "
                             f"got {attention_axes!r}.")
        self.num_heads, self.key_dim = int(num_heads), int(key_dim)
        self.value_dim = self.key_dim if value_dim is None else int(value_dim)
        self.dropout = float(dropout)
        self.use_bias = bool(use_bias)
        if isinstance(output_shape, (int, np.integer)):
            output_shape = (int(output_shape),)
        self._output_shape = None if output_shape is None else tuple(int(d) for d in
                                                                     output_shape)
        self.attention_axes = attention_axes
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = regularizers.get(kernel_regularizer)
        self.bias_regularizer = regularizers.get(bias_regularizer)
        self.kernel_constraint = constraints.get(kernel_constraint)
        self.bias_constraint = constraints.get(bias_constraint)
        self.seed = seed
        self.supports_masking = True

    @staticmethod
    def _split_inputs(query, value, key):
        if isinstance(query, (list, tuple)) and value is None:
            parts = list(query)
            query, value = parts[0], parts[1]
            key = parts[2] if len(parts) > 2 else key
        return query, value, key

    def _weight(self, name, shape, bias=False):
        return self.add_weight(name=name, shape=shape,
                               initializer=self.bias_initializer if bias else
                               self.kernel_initializer,
                               regularizer=self.bias_regularizer if bias else
                               self.kernel_regularizer,
                               constraint=self.bias_constraint if bias else
                               self.kernel_constraint)

    def build(self, query_shape, value_shape=None, key_shape=None):
        query_shape, value_shape, key_shape = self._split_inputs(query_shape, value_shape,
                                                                 key_shape)
        key_shape = value_shape if key_shape is None else key_shape
        dims = [tuple(s)[-1] for s in (query_shape, key_shape, value_shape)]
        if any(d is None for d in dims):
            raise ValueError(f"Layer {self.name!r}: the feature axes of query, key and value "
                             f"must be known; got shapes {tuple(query_shape)}, "
                             f"{tuple(key_shape)}, {tuple(value_shape)}.")
        self._dims = tuple(dims)
        h = self.num_heads
        out = self._output_shape or (dims[0],)
        self.query_kernel = self._weight("query/kernel", (dims[0], h, self.key_dim))
        self.query_bias = self._weight("query/bias", (h, self.key_dim), True) \
            if self.use_bias else None
        self.key_kernel = self._weight("key/kernel", (dims[1], h, self.key_dim))
        self.key_bias = self._weight("key/bias", (h, self.key_dim), True) \
            if self.use_bias else None
        self.value_kernel = self._weight("value/kernel", (dims[2], h, self.value_dim))
        self.value_bias = self._weight("value/bias", (h, self.value_dim), True) \
            if self.use_bias else None
        self.output_kernel = self._weight("attention_output/kernel",
                                          (h, self.value_dim) + out)
        self.output_bias = self._weight("attention_output/bias", out, True) \
            if self.use_bias else None

    def _check(self, what, x, expected):
        shape = tuple(x.shape)
        if len(shape) < 3 or shape[-1] != expected:
            raise ValueError(f"Layer {self.name!r}: the {what} must have shape (batch, ..., "
                             f"{expected}) as when the layer was built; received {shape}.")

    def _project(self, x, kernel, bias, size):
        """(B, T, d) -> (B, heads, T, size): one matmul for all heads."""
        b, t, d = x.shape
        flat = matmul(reshape(x, (b * t, d)), reshape(kernel, (d, self.num_heads * size)))
        out = reshape(flat, (b, t, self.num_heads, size))
        if bias is not None:
            out = add(out, bias)
        return transpose(out, (0, 2, 1, 3))

    def call(self, query, value=None, key=None, query_mask=None, value_mask=None,
             key_mask=None, attention_mask=None, return_attention_scores=False,
             training=None, use_causal_mask=False):
        query, value, key = self._split_inputs(query, value, key)
        key = value if key is None else key
        for what, x, dim in (("query", query, self._dims[0]), ("key", key, self._dims[1]),
                             ("value", value, self._dims[2])):
            self._check(what, x, dim)
        q_shape = tuple(query.shape)
        flat = [reshape(x, (x.shape[0], -1, x.shape[-1])) for x in (query, key, value)]
        q = self._project(flat[0], self.query_kernel, self.query_bias, self.key_dim)
        k = self._project(flat[1], self.key_kernel, self.key_bias, self.key_dim)
        v = self._project(flat[2], self.value_kernel, self.value_bias, self.value_dim)
        q = multiply(q, 1.0 / math.sqrt(self.key_dim))
        scores = matmul(q, k, transpose_b=True)                  # (B, H, Tq, Tv)
        mask = self._attention_mask(query, value, key, query_mask, value_mask, key_mask,
                                    attention_mask, use_causal_mask, tuple(scores.shape))
        if mask is not None:
            scores = select(mask, scores, const(_large_negative(scores.dtype.as_numpy_dtype),
                                                scores))
        probs = _nn.softmax(scores, axis=-1)
        if mask is not None and (self.dropout > 0 or return_attention_scores
                                 or len(q_shape) != 3):
            # Keras's masked-softmax path (taken in these cases) zeroes the masked
            # positions, so a row with none to attend gives zeros; its fused
            # dot-product path (otherwise) leaves such a row uniform, as here.
            probs = select(mask, probs, const(0, probs))
        attended = probs
        if training and self.dropout > 0:
            attended = _nn.dropout(probs, self.dropout, seed=self.seed)
        context = transpose(matmul(attended, v), (0, 2, 1, 3))  # (B, Tq, H, dv)
        b, tq = context.shape[:2]
        out_tail = self._output_shape or (self._dims[0],)
        width = int(np.prod(out_tail))
        out = matmul(reshape(context, (b * tq, self.num_heads * self.value_dim)),
                     reshape(self.output_kernel, (self.num_heads * self.value_dim, width)))
        out = reshape(out, q_shape[:-1] + out_tail)
        if self.output_bias is not None:
            out = add(out, self.output_bias)
        if return_attention_scores:
            return out, probs
        return out

    def _attention_mask(self, query, value, key, query_mask, value_mask, key_mask,
                        attention_mask, use_causal_mask, score_shape):
        """Keras 3's _compute_attention_mask: the query mask (B, Tq, 1), the value
        and key masks (B, 1, Tv), the causal mask (1, Tq, Tv) and `attention_mask`
        (broadcasting to (B, Tq, Tv), or (B, heads, Tq, Tv)) ANDed, as a bool
        tensor of rank 4 (a head axis) for the scores, or None."""
        b, heads, tq, tv = score_shape
        auto = None
        for what, m, tensor, length in (("query_mask", query_mask, query, tq),
                                        ("value_mask", value_mask, value, tv),
                                        ("key_mask", key_mask, key, tv)):
            m = _bool_mask(m if m is not None else get_keras_mask(tensor))
            if m is None:
                continue
            shape = tuple(m.shape)
            if len(shape) < 2 or shape[0] != b or int(np.prod(shape[1:])) != length:
                raise ValueError(f"Layer {self.name!r}: {what} must have shape "
                                 f"{(b, length)}, received {shape}.")
            m = reshape(m, (b, length, 1) if what == "query_mask" else (b, 1, length))
            auto = m if auto is None else logical_and(auto, m)
        if use_causal_mask:
            causal = Tensor(np.tril(np.ones((1, tq, tv), bool)))
            auto = causal if auto is None else logical_and(auto, causal)
        mask = None if auto is None else _with_head_axis(auto)
        if attention_mask is not None:
            m = _bool_mask(attention_mask)
            shape = tuple(m.shape)
            target = (b, heads, tq, tv) if len(shape) == 4 else (b, tq, tv)
            try:
                fits = np.broadcast_shapes(shape, target) == target
            except ValueError:
                fits = False
            if not fits:
                raise ValueError(f"Layer {self.name!r}: attention_mask must broadcast to "
                                 f"(batch, Tq, Tv) = {(b, tq, tv)} (or (batch, heads, Tq, "
                                 f"Tv) = {(b, heads, tq, tv)}), received {shape}.")
            m = m if len(shape) == 4 else _with_head_axis(m)
            mask = m if mask is None else logical_and(m, mask)
        return mask

    def compute_mask(self, inputs, mask=None):
        """The query's Keras mask passes on to the output, as in Keras 3."""
        if isinstance(mask, (list, tuple)):
            return mask[0] if mask else None
        return mask

    def compute_output_shape(self, query_shape, value_shape=None, key_shape=None):
        query_shape, _, _ = self._split_inputs(query_shape, value_shape, key_shape)
        query_shape = tuple(query_shape)
        return query_shape[:-1] + (self._output_shape or (query_shape[-1],))

    def get_config(self):
        config = super().get_config()
        config.update({
            "num_heads": self.num_heads, "key_dim": self.key_dim, "value_dim": self.value_dim,
            "dropout": self.dropout, "use_bias": self.use_bias,
            "output_shape": self._output_shape, "attention_axes": self.attention_axes,
            **weight_options_config(self, "kernel", "bias"),
            "activity_regularizer": serialize_option(self.activity_regularizer, regularizers),
            "seed": self.seed,
        })
        return config
