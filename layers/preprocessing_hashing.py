"""preprocessing_hashing.py holds Keras's Hashing layer and the hash it needs:
FarmHash's Fingerprint64 (farmhashna::Hash64), the function behind
tf.strings.to_hash_bucket_fast, ported to Python so that tapeflow assigns every
string the bin TF and Keras assign it (a vocabulary hashed by one is read by
the other)."""

import numpy as np

from ..core.tensor import Tensor
from .base import Layer
from .preprocessing import encode_categorical

__all__ = ["Hashing", "fingerprint64"]

_MASK = (1 << 64) - 1
_K0, _K1, _K2 = 0xc3a5c85c97cb3127, 0xb492b66fbe98f273, 0x9ae16a3b2f90404f


def _fetch64(data, i):
    return int.from_bytes(data[i:i + 8], "little")


def _fetch32(data, i):
    return int.from_bytes(data[i:i + 4], "little")


def _rotate(value, shift):
    return value if shift == 0 else ((value >> shift) | (value << (64 - shift))) & _MASK


def _shift_mix(value):
    return value ^ (value >> 47)


def _hash_len16(u, v, mul):
    a = ((u ^ v) * mul) & _MASK
    a ^= a >> 47
    b = ((v ^ a) * mul) & _MASK
    b ^= b >> 47
    return (b * mul) & _MASK


def _hash_len0to16(s, n):
    if n >= 8:
        mul = _K2 + n * 2
        a = (_fetch64(s, 0) + _K2) & _MASK
        b = _fetch64(s, n - 8)
        c = (_rotate(b, 37) * mul + a) & _MASK
        d = ((_rotate(a, 25) + b) * mul) & _MASK
        return _hash_len16(c, d, mul)
    if n >= 4:
        mul = _K2 + n * 2
        return _hash_len16((n + (_fetch32(s, 0) << 3)) & _MASK, _fetch32(s, n - 4), mul)
    if n > 0:
        y = s[0] + (s[n >> 1] << 8)
        z = n + (s[n - 1] << 2)
        return (_shift_mix(((y * _K2) ^ (z * _K0)) & _MASK) * _K2) & _MASK
    return _K2


def _hash_len17to32(s, n):
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K1) & _MASK
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _MASK
    d = (_fetch64(s, n - 16) * _K2) & _MASK
    return _hash_len16((_rotate((a + b) & _MASK, 43) + _rotate(c, 30) + d) & _MASK,
                       (a + _rotate((b + _K2) & _MASK, 18) + c) & _MASK, mul)


def _hash_len33to64(s, n):
    mul = _K2 + n * 2
    a = (_fetch64(s, 0) * _K2) & _MASK
    b = _fetch64(s, 8)
    c = (_fetch64(s, n - 8) * mul) & _MASK
    d = (_fetch64(s, n - 16) * _K2) & _MASK
    y = (_rotate((a + b) & _MASK, 43) + _rotate(c, 30) + d) & _MASK
    z = _hash_len16(y, (a + _rotate((b + _K2) & _MASK, 18) + c) & _MASK, mul)
    e = (_fetch64(s, 16) * mul) & _MASK
    f = _fetch64(s, 24)
    g = ((y + _fetch64(s, n - 32)) * mul) & _MASK
    h = ((z + _fetch64(s, n - 24)) * mul) & _MASK
    return _hash_len16((_rotate((e + f) & _MASK, 43) + _rotate(g, 30) + h) & _MASK,
                       (e + _rotate((f + a) & _MASK, 18) + g) & _MASK, mul)


def _weak_hash_len32_with_seeds(s, i, a, b):
    w, x, y, z = (_fetch64(s, i + k) for k in (0, 8, 16, 24))
    a = (a + w) & _MASK
    b = _rotate((b + a + z) & _MASK, 21)
    c = a
    a = (a + x + y) & _MASK
    b = (b + _rotate(a, 44)) & _MASK
    return (a + z) & _MASK, (b + c) & _MASK


def fingerprint64(data):
    """FarmHash Fingerprint64 of bytes (or a str, as UTF-8), an unsigned 64-bit int."""
    s = data.encode() if isinstance(data, str) else bytes(data)
    n = len(s)
    if n <= 16:
        return _hash_len0to16(s, n)
    if n <= 32:
        return _hash_len17to32(s, n)
    if n <= 64:
        return _hash_len33to64(s, n)
    seed = 81
    x = seed
    y = (seed * _K1 + 113) & _MASK
    z = (_shift_mix((y * _K2 + 113) & _MASK) * _K2) & _MASK
    v, w = (0, 0), (0, 0)
    x = (x * _K2 + _fetch64(s, 0)) & _MASK
    end = ((n - 1) // 64) * 64
    last64 = end + ((n - 1) & 63) - 63
    i = 0
    while True:
        x = (_rotate((x + y + v[0] + _fetch64(s, i + 8)) & _MASK, 37) * _K1) & _MASK
        y = (_rotate((y + v[1] + _fetch64(s, i + 48)) & _MASK, 42) * _K1) & _MASK
        x ^= w[1]
        y = (y + v[0] + _fetch64(s, i + 40)) & _MASK
        z = (_rotate((z + w[0]) & _MASK, 33) * _K1) & _MASK
        v = _weak_hash_len32_with_seeds(s, i, (v[1] * _K1) & _MASK, (x + w[0]) & _MASK)
        w = _weak_hash_len32_with_seeds(s, i + 32, (z + w[1]) & _MASK,
                                        (y + _fetch64(s, i + 16)) & _MASK)
        z, x = x, z
        i += 64
        if i == end:
            break
    mul = _K1 + ((z & 0xff) << 1)
    i = last64
    w = ((w[0] + ((n - 1) & 63)) & _MASK, w[1])
    v = ((v[0] + w[0]) & _MASK, v[1])
    w = ((w[0] + v[0]) & _MASK, w[1])
    x = (_rotate((x + y + v[0] + _fetch64(s, i + 8)) & _MASK, 37) * mul) & _MASK
    y = (_rotate((y + v[1] + _fetch64(s, i + 48)) & _MASK, 42) * mul) & _MASK
    x ^= (w[1] * 9) & _MASK
    y = (y + v[0] * 9 + _fetch64(s, i + 40)) & _MASK
    z = (_rotate((z + w[0]) & _MASK, 33) * mul) & _MASK
    v = _weak_hash_len32_with_seeds(s, i, (v[1] * mul) & _MASK, (x + w[0]) & _MASK)
    w = _weak_hash_len32_with_seeds(s, i + 32, (z + w[1]) & _MASK,
                                    (y + _fetch64(s, i + 16)) & _MASK)
    z, x = x, z
    return _hash_len16((_hash_len16(v[0], w[0], mul) + _shift_mix(y) * _K0 + z) & _MASK,
                       (_hash_len16(v[1], w[1], mul) + x) & _MASK, mul)


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
