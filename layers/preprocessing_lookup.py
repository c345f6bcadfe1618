"""preprocessing_lookup.py holds Keras's vocabulary layers, StringLookup and
IntegerLookup, on one base that follows Keras's IndexLookup: the vocabulary is
[mask token (in 'int' mode)] + [OOV token] * num_oov_indices + the tokens,
learned by `adapt` in order of decreasing count (ties: the larger token first,
as Keras's lexsort) or given; out-of-vocabulary values share the OOV indices
(several: by FarmHash for strings, modulo for integers); the encodings are
'int', 'one_hot', 'multi_hot', 'count' and 'tf_idf'. Lookups are host-side
(NumPy and dicts): their outputs are indices, with no gradient.
"""

import os
from collections import Counter

import numpy as np

from ..core.tensor import Tensor, constant
from .base import Layer
from .preprocessing import batches_of, encode_categorical
from .preprocessing_hashing import fingerprint64

__all__ = ["StringLookup", "IntegerLookup"]

_MODES = ("int", "one_hot", "multi_hot", "count", "tf_idf")


class _IndexLookup(Layer):
    """The shared lookup; subclasses say how to read a value (`_token`)."""

    def __init__(self, max_tokens, num_oov_indices, mask_token, oov_token, vocabulary,
                 idf_weights, invert, output_mode, pad_to_max_tokens, sparse, **kwargs):
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        kwargs.setdefault("autocast", False)
        kwargs.pop("vocabulary_size", None)
        kwargs.pop("has_input_vocabulary", None)
        if "dtype" not in kwargs or kwargs["dtype"] is None:
            kwargs["dtype"] = "int64" if output_mode == "int" else "float32"
        super().__init__(**kwargs)
        if max_tokens is not None and max_tokens <= 1:
            raise ValueError("If set, `max_tokens` must be greater than 1. Received: "
                             f"max_tokens={max_tokens}")
        if pad_to_max_tokens and max_tokens is None:
            raise ValueError("If pad_to_max_tokens is True, must set `max_tokens`. Received: "
                             f"max_tokens={max_tokens}")
        if num_oov_indices < 0:
            raise ValueError("`num_oov_indices` must be greater than or equal to 0. Received: "
                             f"num_oov_indices={num_oov_indices}")
        if output_mode not in _MODES:
            raise ValueError(f"Unknown value for argument `output_mode` of "
                             f"{type(self).__name__}: {output_mode!r}. Allowed values: {_MODES}")
        if invert and output_mode != "int":
            raise ValueError("`output_mode` must be `'int'` when `invert` is true. Received: "
                             f"output_mode={output_mode}")
        if sparse:
            raise NotImplementedError(f"{type(self).__name__}: sparse=True is not supported by "
                                      "tapeflow (no sparse tensors).")
        if idf_weights is not None and output_mode != "tf_idf":
            raise ValueError("`idf_weights` should only be set if `output_mode` is `'tf_idf'`. "
                             f"Received: idf_weights={idf_weights} and output_mode={output_mode}")
        if output_mode == "tf_idf" and vocabulary is not None and idf_weights is None:
            raise ValueError("When specifying the `vocabulary` argument, in TF-IDF output mode, "
                             "the `idf_weights` argument must also be provided.")
        self.max_tokens, self.num_oov_indices = max_tokens, int(num_oov_indices)
        self.mask_token, self.oov_token, self.invert = mask_token, oov_token, bool(invert)
        self.output_mode, self.pad_to_max_tokens, self.sparse = output_mode, bool(
            pad_to_max_tokens), False
        self.input_vocabulary = vocabulary
        self._tokens, self._index, self.idf_weights = [], {}, None
        if vocabulary is not None:
            self.set_vocabulary(vocabulary, idf_weights)

    # -- the vocabulary ---------------------------------------------------------------------

    def _oov_start_index(self):
        return 1 if self.mask_token is not None and self.output_mode == "int" else 0

    def _token_start_index(self):
        return self._oov_start_index() + self.num_oov_indices

    def vocabulary_size(self):
        """The number of indices: mask and OOV indices included."""
        return self._token_start_index() + len(self._tokens)

    def get_vocabulary(self, include_special_tokens=True):
        """The token of each index, in index order."""
        special = ([self.mask_token] * self._oov_start_index()
                   + [self.oov_token] * self.num_oov_indices)
        return (special if include_special_tokens else []) + list(self._tokens)

    def set_vocabulary(self, vocabulary, idf_weights=None):
        """Set the tokens (a list, an array, a tensor or a file of one token per line),
        with or without the leading special tokens, and for 'tf_idf' their weights.

        Raises:
            ValueError: for an empty or repeated vocabulary, special tokens out of
                place, more than `max_tokens`, or idf_weights of another length.
        """
        if isinstance(vocabulary, (str, os.PathLike)):
            if not os.path.exists(vocabulary):
                raise ValueError(f"Vocabulary file {vocabulary} does not exist.")
            with open(vocabulary, encoding="utf-8") as f:
                vocabulary = f.read().splitlines()
            while vocabulary and vocabulary[-1] == "":
                vocabulary.pop()
        values = vocabulary.numpy() if isinstance(vocabulary, Tensor) else vocabulary
        tokens = [self._token(v) for v in np.asarray(values, dtype=object).ravel()]
        if not tokens:
            raise ValueError(f"Cannot set an empty vocabulary. Received: vocabulary={vocabulary}")
        special = ([self.mask_token] * self._oov_start_index()
                   + [self.oov_token] * self.num_oov_indices)
        found_special = tokens[:len(special)] == special
        if found_special:
            tokens = tokens[len(special):]
        repeated = sorted({t for t, n in Counter(tokens).items() if n > 1}, key=str)
        if repeated:
            raise ValueError("The passed vocabulary has at least one repeated term. Please "
                             f"uniquify your dataset. The repeated terms are: {repeated}")
        for token, name in ((self.mask_token, "mask_token"), (self.oov_token, "oov_token")):
            if token is not None and token in tokens and (name == "mask_token" or self.invert):
                raise ValueError(f"Found reserved {name} {token!r} at unexpected location in "
                                 "`vocabulary`. Note that passed `vocabulary` does not need to "
                                 "include the OOV and mask tokens. Either remove all mask and "
                                 "OOV tokens, or include them only at the start of the "
                                 f"vocabulary in precisely this order: {special}.")
        size = len(special) + len(tokens)
        if self.max_tokens is not None and size > self.max_tokens:
            raise ValueError("Attempted to set a vocabulary larger than the maximum vocab size. "
                             f"Received vocabulary size is {size}; `max_tokens` is "
                             f"{self.max_tokens}.")
        self._set_tokens(tokens)
        if self.output_mode == "tf_idf" and idf_weights is not None:
            weights = np.asarray(idf_weights.numpy() if isinstance(idf_weights, Tensor)
                                 else idf_weights, np.float64)
            given = len(tokens) + (len(special) if found_special else 0)
            if weights.ndim != 1 or len(weights) != given:
                raise ValueError("`idf_weights` must be the same length as vocabulary. "
                                 f"len(idf_weights) is {len(weights)}; len(vocabulary) is "
                                 f"{given}")
            front = 0 if found_special else len(special)
            self.idf_weights = self._padded_idf(weights, front, 0 if found_special
                                                else weights.mean())

    def _set_tokens(self, tokens):
        start = self._token_start_index()
        self._tokens = list(tokens)
        self._index = {token: start + i for i, token in enumerate(self._tokens)}

    def _padded_idf(self, weights, front, front_value):
        weights = np.concatenate([np.full(front, front_value), weights])
        if self.pad_to_max_tokens and self.max_tokens is not None:
            weights = np.concatenate([weights, np.zeros(self.max_tokens - len(weights))])
        return weights.astype(np.float32)

    def adapt(self, data, steps=None):
        """Learn the vocabulary from `data` (an array or tensor of tokens, a Dataset or
        batches): tokens by decreasing count, at most `max_tokens` indices in all.

        Raises:
            ValueError: if the layer was given a vocabulary.
        """
        if self.input_vocabulary is not None:
            raise ValueError(f"Cannot adapt layer '{self.name}' after setting a static "
                             "vocabulary via `vocabulary` argument or `set_vocabulary()` "
                             "method.")
        counts, doc_counts, documents = Counter(), Counter(), 0
        for i, batch in enumerate(batches_of(data)):
            if steps is not None and i >= steps:
                break
            rows = batch.reshape(1, -1) if batch.ndim <= 1 else batch.reshape(batch.shape[0], -1)
            for row in rows:
                tokens = [self._token(v) for v in row]
                counts.update(tokens)
                doc_counts.update(set(tokens))
            documents += rows.shape[0]
        for special in (self.mask_token, self.oov_token):
            counts.pop(special, None)
        ordered = sorted(counts.items(), key=lambda item: (item[1], _sort_key(item[0])),
                         reverse=True)
        if self.max_tokens:
            ordered = ordered[:max(self.max_tokens - self._token_start_index(), 0)]
        self._set_tokens([token for token, _ in ordered])
        if self.output_mode == "tf_idf":
            idf = np.log(1 + documents / (1 + np.array([doc_counts[t] for t in self._tokens],
                                                       np.float64)))
            self.idf_weights = self._padded_idf(idf, self._token_start_index(),
                                                idf.mean() if len(idf) else 0.0)

    # -- lookups ----------------------------------------------------------------------------

    def _lookup(self, values):
        """Indices of an object array of tokens, and where the mask token was."""
        flat = [self._token(v) for v in values.ravel()]
        masked = np.array([t == self.mask_token for t in flat], bool) if (
            self.mask_token is not None) else np.zeros(len(flat), bool)
        start, default = self._oov_start_index(), -1
        out = np.empty(len(flat), np.int64)
        missing = []
        for i, token in enumerate(flat):
            index = self._index.get(token, default)
            if index == default and not masked[i]:
                missing.append(token)
                if self.num_oov_indices == 1:
                    index = start
                elif self.num_oov_indices > 1:
                    index = start + self._oov_bucket(token)
            out[i] = index
        if self.num_oov_indices == 0 and missing:
            raise ValueError("When `num_oov_indices=0` all inputs should be in vocabulary, "
                             f"found OOV values {missing[:10]}, consider setting "
                             "`num_oov_indices=1`.")
        out[masked] = 0
        return out.reshape(values.shape), masked.reshape(values.shape)

    def _invert(self, values):
        vocabulary = self.get_vocabulary()
        indices = np.asarray(values, np.int64)
        return np.vectorize(lambda i: vocabulary[i] if 0 <= i < len(vocabulary)
                            else self.oov_token, otypes=[object])(indices)

    def call(self, inputs):
        values = np.asarray(inputs.numpy() if isinstance(inputs, Tensor) else inputs,
                            dtype=object)
        if self.invert:
            return self._output_tokens(self._invert(values))
        if self.output_mode != "int" and not self.pad_to_max_tokens and not self._tokens:
            raise RuntimeError(f"When using `output_mode={self.output_mode}` and "
                               "`pad_to_max_tokens=False`, you must set the layer's vocabulary "
                               "before calling it. Either pass a `vocabulary` argument to the "
                               "layer, or call `adapt` with some sample data.")
        indices, masked = self._lookup(values)
        if self.output_mode == "int":
            return Tensor(indices)
        depth = self.max_tokens if self.pad_to_max_tokens else self.vocabulary_size()
        mode = "count" if self.output_mode == "tf_idf" else self.output_mode
        out = encode_categorical(indices, mode, depth, "float32", ignore=masked)
        if self.output_mode == "tf_idf":
            if self.idf_weights is None:
                raise ValueError("When `output_mode` is `'tf_idf'`, `idf_weights` must be "
                                 "provided.")
            out = Tensor((out.numpy() * self.idf_weights[:depth]).astype(np.float32))
        return out

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return input_shape
        depth = self.max_tokens if self.pad_to_max_tokens else self.vocabulary_size()
        return input_shape[:-1] + (depth,) if input_shape else (depth,)

    def get_config(self):
        config = super().get_config()
        config.update({"max_tokens": self.max_tokens, "num_oov_indices": self.num_oov_indices,
                       "mask_token": self.mask_token, "oov_token": self.oov_token,
                       "vocabulary": self.get_vocabulary(include_special_tokens=False)
                       if self._tokens else None,
                       "idf_weights": None if self.idf_weights is None
                       else self.idf_weights[self._token_start_index():
                                             self.vocabulary_size()].tolist(),
                       "invert": self.invert, "output_mode": self.output_mode,
                       "pad_to_max_tokens": self.pad_to_max_tokens, "sparse": self.sparse})
        return config


def _sort_key(token):
    return token.encode() if isinstance(token, str) else token


class StringLookup(_IndexLookup):
    """Map strings to integer indices (or back, with `invert=True`), as Keras's.

    Args:
        max_tokens: the largest vocabulary size, special tokens included.
        num_oov_indices: indices shared by out-of-vocabulary strings (FarmHash
            buckets when more than one, as TF's to_hash_bucket_fast).
        mask_token: a string mapped to 0 in 'int' mode and ignored otherwise.
        oov_token: the token `get_vocabulary` and `invert` show for OOV indices.
        vocabulary: a list, array or file of tokens, instead of `adapt`.
        output_mode: 'int', 'one_hot', 'multi_hot', 'count' or 'tf_idf'.

    >>> layer = tf.keras.layers.StringLookup(vocabulary=["a", "b", "c", "d"])
    >>> layer([["a", "c", "d"], ["d", "z", "b"]])   # [[1, 3, 4], [4, 0, 2]]
    """

    accepts_text = True  # fit may pass it NumPy string arrays (training/loops.py)

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token="[UNK]",
                 vocabulary=None, idf_weights=None, invert=False, output_mode="int",
                 pad_to_max_tokens=False, sparse=False, encoding="utf-8", **kwargs):
        self.encoding = encoding
        kwargs.pop("vocabulary_dtype", None)
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary,
                         idf_weights, invert, output_mode, pad_to_max_tokens, sparse, **kwargs)

    def _token(self, value):
        if isinstance(value, bytes):
            return value.decode(self.encoding)
        if isinstance(value, np.ndarray) and value.ndim == 0:
            return self._token(value.item())
        return str(value)

    def _oov_bucket(self, token):
        return fingerprint64(token.encode(self.encoding)) % self.num_oov_indices

    def _output_tokens(self, tokens):
        return constant(tokens.astype(str) if tokens.size else np.zeros(tokens.shape, str))

    def get_config(self):
        config = super().get_config()
        config.update({"encoding": self.encoding})
        return config


class IntegerLookup(_IndexLookup):
    """Map integers to indices of a vocabulary (or back, with `invert=True`), as
    Keras's: like StringLookup, with OOV buckets taken modulo num_oov_indices.

    >>> layer = tf.keras.layers.IntegerLookup(vocabulary=[12, 36, 1138, 42])
    >>> layer([[12, 1138, 42], [42, 1000, 36]])   # [[1, 3, 4], [4, 0, 2]]
    """

    def __init__(self, max_tokens=None, num_oov_indices=1, mask_token=None, oov_token=-1,
                 vocabulary=None, vocabulary_dtype="int64", idf_weights=None, invert=False,
                 output_mode="int", sparse=False, pad_to_max_tokens=False, **kwargs):
        if vocabulary_dtype not in ("int32", "int64"):
            raise ValueError("IntegerLookup: `vocabulary_dtype` must be 'int32' or 'int64'. "
                             f"Received: vocabulary_dtype={vocabulary_dtype}")
        if mask_token is not None and int(mask_token) < 0:
            raise ValueError("`mask_token` must be a non-negative integer. Received: "
                             f"mask_token={mask_token}")
        self.vocabulary_dtype = vocabulary_dtype
        super().__init__(max_tokens, num_oov_indices, mask_token, oov_token, vocabulary,
                         idf_weights, invert, output_mode, pad_to_max_tokens, sparse, **kwargs)

    def _token(self, value):
        try:
            return int(value)
        except (TypeError, ValueError):
            raise TypeError(f"IntegerLookup: inputs must be integers, got {value!r}.") from None

    def _oov_bucket(self, token):
        return token % self.num_oov_indices  # floormod, as Keras's default oov_method

    def _output_tokens(self, tokens):
        return Tensor(tokens.astype(self.vocabulary_dtype))

    def get_config(self):
        config = super().get_config()
        config.update({"vocabulary_dtype": self.vocabulary_dtype})
        return config
