"""preprocessing_text.py holds Keras's TextVectorization: standardize each
text (lowercase, strip punctuation), split it into tokens (whitespace or
characters), optionally add n-grams, then look the tokens up in a vocabulary
(a StringLookup with mask '' and OOV '[UNK]', as Keras builds it) and encode
them: padded index sequences ('int') or bags of tokens ('multi_hot',
'count', 'tf_idf'). Host-side string work: no gradient."""

import re

import numpy as np

from ..core.tensor import Tensor, constant
from .base import Layer
from .preprocessing import batches_of
from .preprocessing_lookup import StringLookup

__all__ = ["TextVectorization"]

# Keras's DEFAULT_STRIP_REGEX.
_PUNCTUATION = re.compile(r'[!"#$%&()\*\+,-\./:;<=>?@\[\\\]^_`{|}~\']')
_STANDARDIZE = (None, "lower_and_strip_punctuation", "lower", "strip_punctuation")
_SPLIT = (None, "whitespace", "character")


def _texts(values):
    """An object array of Python strings from strings, bytes or a string Tensor."""
    values = np.asarray(values.numpy() if isinstance(values, Tensor) else values, dtype=object)
    return np.vectorize(lambda v: v.decode("utf-8") if isinstance(v, bytes) else str(v),
                        otypes=[object])(values) if values.size else values


class TextVectorization(Layer):
    """Turn texts into token indices or bags of tokens, as Keras's TextVectorization.

    Args:
        max_tokens: the largest vocabulary, '' and '[UNK]' included ('[UNK]'
            only, outside 'int' mode).
        standardize: 'lower_and_strip_punctuation' (default), 'lower',
            'strip_punctuation', None, or a callable on a string Tensor.
        split: 'whitespace' (default), 'character', None, or a callable
            returning a list of tokens per text.
        ngrams: None, n (all n-grams up to n) or a tuple of n-gram sizes, joined by ' '.
        output_mode: 'int', 'multi_hot', 'count' or 'tf_idf'.
        output_sequence_length: in 'int' mode, pad or cut every sequence to
            this length (else padded to the longest of the batch).
        vocabulary, idf_weights: a given vocabulary (list or file) instead of `adapt`.

    Raises:
        ValueError: for unknown options, as Keras.

    >>> layer = tf.keras.layers.TextVectorization(output_sequence_length=4)
    >>> layer.adapt(["foo bar", "bar baz", "baz bada boom"])
    >>> layer([["foo qux bar"], ["qux baz"]])   # [[4, 1, 3, 0], [1, 2, 0, 0]]
    """

    accepts_text = True  # fit may pass it NumPy string arrays (training/loops.py)

    def __init__(self, max_tokens=None, standardize="lower_and_strip_punctuation",
                 split="whitespace", ngrams=None, output_mode="int", output_sequence_length=None,
                 pad_to_max_tokens=False, vocabulary=None, idf_weights=None, sparse=False,
                 ragged=False, encoding="utf-8", name=None, **kwargs):
        output_mode = {"binary": "multi_hot", "tf-idf": "tf_idf"}.get(output_mode, output_mode)
        kwargs.setdefault("autocast", False)
        kwargs["dtype"] = kwargs.get("dtype") or ("int64" if output_mode == "int" else "float32")
        super().__init__(name=name, **kwargs)
        if not (standardize in _STANDARDIZE or callable(standardize)):
            raise ValueError(f"`standardize` must be one of {_STANDARDIZE} or a callable. "
                             f"Received: standardize={standardize}")
        if not (split in _SPLIT or callable(split)):
            raise ValueError(f"`split` must be one of {_SPLIT} or a callable. Received: "
                             f"split={split}")
        if output_mode not in ("int", "multi_hot", "count", "tf_idf"):
            raise ValueError("`output_mode` must be one of 'int', 'multi_hot', 'count', "
                             f"'tf_idf'. Received: output_mode={output_mode}")
        if ngrams is not None and not (isinstance(ngrams, int) and ngrams > 0 or isinstance(
                ngrams, tuple) and all(isinstance(n, int) and n > 0 for n in ngrams)):
            raise ValueError("`ngrams` must be None, an integer, or a tuple of integers. "
                             f"Received: ngrams={ngrams}")
        if output_sequence_length is not None and output_mode != "int":
            raise ValueError("`output_sequence_length` must not be set if `output_mode` is not "
                             f"'int'. Received output_sequence_length={output_sequence_length}.")
        if ragged:
            raise NotImplementedError("TextVectorization: ragged=True is not supported by "
                                      "tapeflow; use output_sequence_length or padding.")
        if sparse:
            raise NotImplementedError("TextVectorization: sparse=True is not supported by "
                                      "tapeflow.")
        self.standardize, self.split, self.encoding = standardize, split, encoding
        self.ngrams = tuple(range(1, ngrams + 1)) if isinstance(ngrams, int) else ngrams
        self._ngrams_arg = ngrams
        self.output_mode, self.output_sequence_length = output_mode, output_sequence_length
        self.max_tokens, self.pad_to_max_tokens = max_tokens, pad_to_max_tokens
        self.sparse, self.ragged = False, False
        self._lookup_layer = StringLookup(max_tokens=max_tokens, vocabulary=vocabulary,
                                          idf_weights=idf_weights, mask_token="",
                                          output_mode=output_mode,
                                          pad_to_max_tokens=pad_to_max_tokens,
                                          encoding=encoding)

    # -- text to tokens ---------------------------------------------------------------------

    def _standardize(self, texts):
        if callable(self.standardize):
            return _texts(self.standardize(constant(texts.astype(str))))
        if self.standardize in ("lower", "lower_and_strip_punctuation"):
            texts = np.vectorize(str.lower, otypes=[object])(texts) if texts.size else texts
        if self.standardize in ("strip_punctuation", "lower_and_strip_punctuation"):
            texts = np.vectorize(lambda t: _PUNCTUATION.sub("", t),
                                 otypes=[object])(texts) if texts.size else texts
        return texts

    def _tokens(self, texts):
        """A list of token lists, one per text."""
        if callable(self.split):
            out = self.split(constant(texts.astype(str)))
            out = out.to_list() if hasattr(out, "to_list") else out
            tokens = [[t.decode() if isinstance(t, bytes) else str(t) for t in row]
                      for row in (out.numpy() if isinstance(out, Tensor) else out)]
        elif self.split == "whitespace":
            tokens = [t.split() for t in texts]
        elif self.split == "character":
            tokens = [list(t) for t in texts]
        else:
            tokens = [[t] for t in texts]
        if self.ngrams is None:
            return tokens
        return [[" ".join(row[i:i + n]) for n in self.ngrams for i in range(len(row) - n + 1)]
                for row in tokens]

    def _preprocess(self, inputs):
        texts = _texts(inputs)
        if texts.ndim == 2 and texts.shape[-1] == 1:
            texts = texts[:, 0]
        if texts.ndim > 1:
            raise ValueError("TextVectorization expects one string per example: a tensor of "
                             f"shape (batch,) or (batch, 1). Received shape {texts.shape}.")
        return texts, self._tokens(self._standardize(texts.reshape(-1)))

    # -- vocabulary -------------------------------------------------------------------------

    def adapt(self, data, batch_size=None, steps=None):
        """Learn the vocabulary (and IDF weights) from texts: an array, a Dataset or batches."""
        rows = []
        for i, batch in enumerate(batches_of(data)):
            if steps is not None and i >= steps:
                break
            rows.extend(self._preprocess(batch)[1])
        width = max((len(r) for r in rows), default=0)
        padded = np.array([r + [""] * (width - len(r)) for r in rows], dtype=object)
        self._lookup_layer.adapt(padded.reshape(len(rows), width) if rows else
                                 np.zeros((0, 0), object))

    def get_vocabulary(self, include_special_tokens=True):
        return self._lookup_layer.get_vocabulary(include_special_tokens)

    def vocabulary_size(self):
        return self._lookup_layer.vocabulary_size()

    def set_vocabulary(self, vocabulary, idf_weights=None):
        self._lookup_layer.set_vocabulary(vocabulary, idf_weights)

    # -- calling -----------------------------------------------------------------------------

    def call(self, inputs):
        texts, rows = self._preprocess(inputs)
        length = self.output_sequence_length
        width = length if length is not None else max((len(r) for r in rows), default=0)
        grid = np.full((len(rows), width), "", dtype=object)
        for i, row in enumerate(rows):
            row = row[:width]
            grid[i, :len(row)] = row
        out = self._lookup_layer(grid)
        if texts.ndim == 0:
            return out[0]
        return out

    def compute_output_shape(self, input_shape):
        batch = tuple(input_shape)[:1]
        if self.output_mode == "int":
            return batch + (self.output_sequence_length,)
        depth = self.max_tokens if self.pad_to_max_tokens else self.vocabulary_size()
        return batch + (depth,)

    def get_config(self):
        config = super().get_config()
        config.update({"max_tokens": self.max_tokens, "standardize": self.standardize
                       if not callable(self.standardize) else None,
                       "split": self.split if not callable(self.split) else None,
                       "ngrams": self._ngrams_arg, "output_mode": self.output_mode,
                       "output_sequence_length": self.output_sequence_length,
                       "pad_to_max_tokens": self.pad_to_max_tokens,
                       "vocabulary": self._lookup_layer.get_config()["vocabulary"],
                       "idf_weights": self._lookup_layer.get_config()["idf_weights"],
                       "sparse": self.sparse, "ragged": self.ragged, "encoding": self.encoding})
        return config
