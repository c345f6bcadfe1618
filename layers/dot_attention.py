"""dot_attention.py holds Keras's single-head attention layers over [query,
value(, key)]: `Attention` (Luong-style dot-product or "concat" scores) and
`AdditiveAttention` (Bahdanau-style), with Keras 3's arguments, weights, masks
and outputs. No projections: the scores are computed from the inputs
themselves, so everything is a few batched ops and gradients come from the op
library. MultiHeadAttention is attention.py's."""

import numpy as np

from .. import nn as _nn
from ..api.array_ops import cast, expand_dims
from ..linalg import matmul
from ..math import add, logical_and, logical_not, multiply, reduce_sum, subtract, tanh
from ..core.tensor import Tensor
from ..ops.math import const
from .attention import _bool_mask
from .base import Layer

__all__ = ["Attention", "AdditiveAttention"]

_SCORE_MODES = ("dot", "concat")


class Attention(Layer):
    """Dot-product attention (Luong et al. 2015), as keras.layers.Attention.

    `layer([query, value])` or `layer([query, value, key])` with query (B, Tq,
    dim), value (B, Tv, dv), key (B, Tv, dim) (default: value) returns (B, Tq,
    dv): softmax(scores) @ value over the value steps.

    Args:
        use_scale: learn a scalar `scale` (initially 1) that multiplies the
            scores (for "concat", the query + key inside the tanh).
        score_mode: "dot" (query @ key^T) or "concat" (the sum over features of
            tanh(query + key), times the scalar weight `concat_score_weight`).
        dropout: the rate dropped from the attention distribution in training.
        seed: the dropout's seed.

    Call arguments:
        inputs: the list [query, value] or [query, value, key].
        mask: [query_mask, value_mask] bool (B, Tq) and (B, Tv); by default the
            Keras masks of the inputs (Embedding(mask_zero=True)). Masked value
            steps get no attention; masked query steps give zero outputs.
        training: whether dropout applies.
        return_attention_scores: also return the (B, Tq, Tv) distribution.
        use_causal_mask: query step i attends only to value steps <= i.

    Raises:
        ValueError: for an unknown score_mode, inputs or masks that are not a
            list of two or three, or feature sizes that do not fit.
    """

    def __init__(self, use_scale=False, score_mode="dot", dropout=0.0, seed=None, **kwargs):
        causal = kwargs.pop("causal", False)  # Keras 2's deprecated spelling of use_causal_mask
        super().__init__(**kwargs)
        if score_mode not in _SCORE_MODES:
            raise ValueError(f"Invalid value for argument score_mode. Expected one of "
                             f"{set(_SCORE_MODES)}. Received: score_mode={score_mode!r}")
        if not 0.0 <= float(dropout) < 1.0:
            raise ValueError(f"Layer {self.name!r}: `dropout` must be in [0, 1), got {dropout!r}.")
        self.use_scale = bool(use_scale)
        self.score_mode = score_mode
        self.dropout = float(dropout)
        self.seed = seed
        self._causal = bool(causal)
        self.supports_masking = True
        self.scale = None
        self.concat_score_weight = None

    # -- argument checks -----------------------------------------------------------------
    def _validate_inputs(self, inputs, mask=None):
        name = type(self).__name__
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"{name} layer must be called on a list of inputs, namely [query, "
                             f"value] or [query, value, key]. Received: inputs={inputs!r}.")
        if not 2 <= len(inputs) <= 3:
            raise ValueError(f"{name} layer accepts inputs list of length 2 or 3, namely "
                             f"[query, value] or [query, value, key]. Received length: "
                             f"{len(inputs)}.")
        if mask is not None:
            if not isinstance(mask, (list, tuple)):
                raise ValueError(f"{name} layer mask must be a list, namely [query_mask, "
                                 f"value_mask]. Received: mask={mask!r}.")
            if not 2 <= len(mask) <= 3:
                raise ValueError(f"{name} layer accepts mask list of length 2 or 3. Received:"
                                 f" mask of length {len(mask)}.")

    def _check_shapes(self, query, value, key):
        shapes = [tuple(x.shape) for x in (query, value, key)]
        if any(len(s) != 3 for s in shapes):
            raise ValueError(f"Layer {self.name!r}: query, value and key must be 3-D (batch, "
                             f"steps, features); received shapes {shapes}.")
        (b, _, dq), (bv, tv, _), (bk, tk, dk) = shapes
        if dq != dk or tv != tk or not b == bv == bk:
            raise ValueError(f"Layer {self.name!r}: query (B, Tq, dim) and key (B, Tv, dim) "
                             f"must share batch and dim, key and value (B, Tv, ...) their "
                             f"steps; received query {shapes[0]}, value {shapes[1]}, key "
                             f"{shapes[2]}.")

    # -- weights -------------------------------------------------------------------------
    def build(self, input_shape):
        self._validate_inputs(input_shape)
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=(), initializer="ones")
        if self.score_mode == "concat":
            self.concat_score_weight = self.add_weight(name="concat_score_weight", shape=(),
                                                       initializer="ones")
        self.built = True

    # -- the computation -----------------------------------------------------------------
    def _calculate_scores(self, query, key):
        """(B, Tq, Tv) scores of every query step against every key step."""
        if self.score_mode == "dot":
            scores = matmul(query, key, transpose_b=True)
            return multiply(scores, self.scale) if self.scale is not None else scores
        joined = add(expand_dims(query, -2), expand_dims(key, -3))  # (B, Tq, Tv, dim)
        if self.scale is not None:
            joined = multiply(self.scale, joined)
        return multiply(self.concat_score_weight, reduce_sum(tanh(joined), axis=-1))

    def call(self, inputs, mask=None, training=False, return_attention_scores=False,
             use_causal_mask=False):
        self._validate_inputs(inputs, mask)
        query, value = inputs[0], inputs[1]
        key = inputs[2] if len(inputs) > 2 else value
        self._check_shapes(query, value, key)
        query_mask = _bool_mask(mask[0]) if mask else None
        value_mask = _bool_mask(mask[1]) if mask else None
        scores = self._calculate_scores(query, key)
        allowed = self._score_mask(scores.shape, value_mask, use_causal_mask or self._causal)
        if allowed is not None:  # Keras's additive mask, by ops (a traced step replays it)
            big = 65504.0 if scores._value.dtype == np.float16 else 1.0e9
            scores = subtract(scores, multiply(const(big, scores),
                                               cast(logical_not(allowed), scores.dtype)))
        weights = _nn.softmax(scores, axis=-1)
        if training and self.dropout > 0:
            weights = _nn.dropout(weights, self.dropout, seed=self.seed)
        output = matmul(weights, value)
        if query_mask is not None:
            self._check_mask("query_mask", query_mask, tuple(query.shape[:2]))
            output = multiply(output, cast(expand_dims(query_mask, -1), output.dtype))
        if return_attention_scores:
            return output, weights
        return output

    def _check_mask(self, what, mask, expected):
        if tuple(mask.shape) != expected:
            raise ValueError(f"Layer {self.name!r}: {what} must have shape {expected} (batch, "
                             f"steps), received {tuple(mask.shape)}.")

    def _score_mask(self, score_shape, value_mask, causal):
        """bool (B or 1, Tq, Tv): True where a query step may attend; None for all."""
        b, tq, tv = score_shape
        allowed = None
        if value_mask is not None:
            self._check_mask("value_mask", value_mask, (b, tv))
            allowed = expand_dims(value_mask, 1)
        if causal:
            lower = Tensor(np.tril(np.ones((tq, tv), bool))[None])
            allowed = lower if allowed is None else logical_and(allowed, lower)
        return allowed

    def compute_mask(self, inputs, mask=None):
        self._validate_inputs(inputs, mask)
        if mask is None or mask[0] is None:
            return None
        return _bool_mask(mask[0])

    def compute_output_shape(self, input_shape):
        self._validate_inputs(input_shape)
        return tuple(input_shape[0])[:-1] + (tuple(input_shape[1])[-1],)

    def get_config(self):
        config = super().get_config()
        config.update({"use_scale": self.use_scale, "score_mode": self.score_mode,
                       "dropout": self.dropout, "seed": self.seed})
        return config


class AdditiveAttention(Attention):
    """Additive attention (Bahdanau et al. 2015), as keras.layers.AdditiveAttention:
    the scores are sum(scale * tanh(query + key)) over the features, with a
    learned per-feature `scale` (dim,) (glorot_uniform) when use_scale (the
    default), else 1. Inputs, masks and outputs as `Attention`."""

    def __init__(self, use_scale=True, dropout=0.0, **kwargs):
        kwargs.pop("score_mode", None)
        super().__init__(use_scale=use_scale, dropout=dropout, **kwargs)

    def build(self, input_shape):
        self._validate_inputs(input_shape)
        if self.use_scale:
            self.scale = self.add_weight(name="scale", shape=(tuple(input_shape[0])[-1],),
                                         initializer="glorot_uniform")
        self.built = True

    def _calculate_scores(self, query, key):
        joined = tanh(add(expand_dims(query, -2), expand_dims(key, -3)))  # (B,Tq,Tv,dim)
        if self.scale is not None:
            joined = multiply(self.scale, joined)
        return reduce_sum(joined, axis=-1)

    def get_config(self):
        config = super().get_config()
        del config["score_mode"]
        return config
