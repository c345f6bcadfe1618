"""preprocessing_hashing.py holds Keras's Hashing layer, over FarmHash's
Fingerprint64 (tapeflow/strings/farmhash.py, the function behind
tf.strings.to_hash_bucket_fast), so that tapeflow assigns every string the bin
TF and Keras assign it (a vocabulary hashed by one is read by the other)."""

import numpy as np

from ..core.tensor import Tensor
from ..strings.farmhash import fingerprint64 as _fingerprint64
from .base import Layer
from .preprocessing import encode_categorical

__all__ = ["Hashing", "fingerprint64"]


def fingerprint64(data):
    """FarmHash Fingerprint64 of bytes (or a str, as UTF-8), an unsigned 64-bit int
    (tf.strings' implementation, which equals TF's and Google's)."""
    return _fingerprint64(data.encode() if isinstance(data, str) else bytes(data))


def _as_bytes(value):
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (int, np.integer)):
        return str(int(value)).encode()  # TF hashes tf.strings.as_string of integers
    raise TypeError(f"Hashing: inputs must be strings or integers, got {type(value).__name__} "
                    f"({value!r}).")


class Hashing(Layer):
    """Hash strings (or integers, through their decimal text) into `num_bins` bins
    with FarmHash Fingerprint64, as tf.strings.to_hash_bucket_fast: bin
    fingerprint % num_bins; with `mask_value`, that value goes to bin 0 and the
    others to 1 + fingerprint % (num_bins - 1).

    Args:
        num_bins: the number of bins, mask bin included.
        mask_value: a value mapped to bin 0, or None.
        salt: not supported (Keras then uses SipHash); raises NotImplementedError.
        output_mode: 'int' (int64 bins), 'one_hot', 'multi_hot' or 'count'.

    >>> tf.keras.layers.Hashing(num_bins=3)([['A'], ['B'], ['C'], ['D'], ['E']])
    ... # [[1], [0], [1], [1], [2]], Keras's docstring example
    """

    accepts_text = True  # fit may pass it NumPy string arrays (training/loops.py)

    def __init__(self, num_bins, mask_value=None, salt=None, output_mode="int", sparse=False,
                 **kwargs):
        kwargs.setdefault("autocast", False)
        if output_mode == "binary":
            output_mode = "multi_hot"
        dtype = kwargs.pop("dtype", None) or ("int64" if output_mode == "int" else "float32")
        super().__init__(dtype=dtype, **kwargs)
        if num_bins is None or num_bins <= 0:
            raise ValueError("The `num_bins` for `Hashing` cannot be `None` or non-positive "
                             f"values. Received: num_bins={num_bins}.")
        if output_mode not in ("int", "one_hot", "multi_hot", "count"):
            raise ValueError(f"Unknown value for `output_mode`: {output_mode}. Expected one of "
                             "'int', 'one_hot', 'multi_hot', 'count'.")
        if salt is not None:
            raise NotImplementedError("Hashing: `salt` selects SipHash "
                                      "(tf.strings.to_hash_bucket_strong), which tapeflow does "
                                      "not implement; leave salt=None for FarmHash.")
        if sparse:
            raise NotImplementedError("Hashing: sparse=True is not supported by tapeflow.")
        self.num_bins, self.mask_value, self.salt = int(num_bins), mask_value, None
        self.output_mode, self.sparse = output_mode, False

    def _bin(self, value):
        if self.mask_value is not None and _as_bytes(value) == _as_bytes(self.mask_value):
            return 0
        digest = fingerprint64(_as_bytes(value))
        if self.mask_value is None:
            return digest % self.num_bins
        return 1 + digest % (self.num_bins - 1)

    def call(self, inputs):
        values = np.asarray(inputs.numpy() if isinstance(inputs, Tensor) else inputs,
                            dtype=object)
        bins = np.vectorize(self._bin, otypes=[np.int64])(values) if values.size else (
            np.zeros(values.shape, np.int64))
        return encode_categorical(bins, self.output_mode, self.num_bins, self.dtype)

    def compute_output_shape(self, input_shape):
        input_shape = tuple(input_shape)
        if self.output_mode == "int":
            return input_shape
        if self.output_mode == "one_hot" and input_shape and input_shape[-1] != 1:
            return input_shape + (self.num_bins,)
        return input_shape[:-1] + (self.num_bins,) if input_shape else (self.num_bins,)

    def get_config(self):
        config = super().get_config()
        config.update({"num_bins": self.num_bins, "mask_value": self.mask_value,
                       "salt": self.salt, "output_mode": self.output_mode,
                       "sparse": self.sparse})
        return config
