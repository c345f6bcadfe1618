"""generator.py owns `tf.random.Generator`: TF's counter-based generator with
its state as TF keeps it, a (3,) int64 Variable `[counter_low, counter_high,
key]` of the Philox algorithm, so `Generator.from_seed(s)` gives TF's values
(the draws are philox.py's, as the stateless ops'). Each draw of n values
advances the 128-bit counter by 256 * n, as TF's kernels reserve 256 samples
per output.
"""

import numpy as np

from ..core import dtypes
from ..core.tensor import Tensor, Variable
from . import philox
from ._checks import shape as checked_shape
from .stateless import (check_float_dtype, check_uniform_dtype, scaled_from, uniform_from)

__all__ = ["Generator"]

_MASK64 = (1 << 64) - 1
_PHILOX = 1  # TF's Algorithm.PHILOX
_RESERVED_PER_OUTPUT = 256


def _as_uint64(value):
    return int(value) & _MASK64


def _seed_state(seed):
    """TF's `_make_1d_state(3, seed)`: an int's 64-bit words (low first), zero-padded."""
    if isinstance(seed, Tensor):
        seed = seed.numpy().tolist()
    words = []
    if isinstance(seed, (list, tuple, np.ndarray)):
        words = [_as_uint64(v) for v in np.ravel(seed)]
    else:
        seed = int(seed)
        if seed < 0:
            seed &= _MASK64
        while True:
            words.append(seed & _MASK64)
            seed >>= 64
            if not seed:
                break
    if len(words) > 3:
        raise ValueError(f"tf.random.Generator: a seed of more than 3 64-bit words was given "
                         f"({len(words)}); the Philox state holds 3.")
    return words + [0] * (3 - len(words))


def _check_alg(alg):
    if alg not in (None, _PHILOX, 3, "philox", "auto_select") and getattr(
            alg, "value", alg) not in (_PHILOX, 3):
        raise ValueError(f"tf.random.Generator: tapeflow implements the Philox algorithm "
                         f"only, got alg={alg!r}.")


class Generator:
    """A random number generator with TF's Philox state (`tf.random.Generator`).

    >>> g = Generator.from_seed(1)
    >>> g.normal([2, 3])  # TF's values: [[0.43842274, -0.53439844, -0.07710262], ...]
    """

    def __init__(self, copy_from=None, state=None, alg=None):
        _check_alg(alg)
        if copy_from is not None:
            state = copy_from.state.numpy()
        elif state is None:
            raise ValueError("When `copy_from` is None, argument `state` can't be None.")
        words = [_as_uint64(v) for v in np.ravel(state.numpy() if isinstance(state, Tensor)
                                                  else state)]
        if len(words) != 3:
            raise ValueError(f"tf.random.Generator: the Philox state has 3 int64 words, got "
                             f"{len(words)}.")
        self._state_var = Variable(np.array(words, np.uint64).view(np.int64), trainable=False,
                                   name="StateVar")

    @classmethod
    def from_seed(cls, seed, alg=None):
        return cls(state=_seed_state(seed), alg=alg)

    @classmethod
    def from_non_deterministic_state(cls, alg=None):
        return cls(state=[int(v) for v in np.random.default_rng().integers(
            0, 2**63, size=3, dtype=np.int64)], alg=alg)

    @classmethod
    def from_key_counter(cls, key, counter, alg):
        return cls(state=[*np.ravel(counter).tolist(), int(np.ravel(key)[0])], alg=alg)

    @classmethod
    def from_state(cls, state, alg):
        return cls(state=state, alg=alg)

    # -- state ---------------------------------------------------------------------------

    @property
    def state(self):
        return self._state_var

    @property
    def algorithm(self):
        return _PHILOX

    @property
    def key(self):
        return Tensor(self._state_var._value[2:3].copy().reshape(()))

    def reset(self, state):
        words = [_as_uint64(v) for v in np.ravel(state.numpy() if isinstance(state, Tensor)
                                                  else state)]
        self._state_var.assign(np.array(words, np.uint64).view(np.int64))

    def reset_from_seed(self, seed):
        self.reset(_seed_state(seed))

    def reset_from_key_counter(self, key, counter):
        self.reset([*np.ravel(counter).tolist(), int(np.ravel(key)[0])])

    def _key_counter_and_advance(self, size):
        low, high, key = (int(v) for v in self._state_var._value.view(np.uint64))
        key_words = np.array([key & 0xFFFFFFFF, key >> 32], np.uint32)
        counter = np.array([low & 0xFFFFFFFF, low >> 32, high & 0xFFFFFFFF, high >> 32],
                           np.uint32)
        self.skip(size)
        return key_words, counter

    def skip(self, delta):
        """Advance the counter as `delta` draws of one value would (256 samples each)."""
        low, high, key = (int(v) for v in self._state_var._value.view(np.uint64))
        total = ((high << 64) | low) + int(delta) * _RESERVED_PER_OUTPUT
        total &= (1 << 128) - 1
        self._state_var.assign(np.array([total & _MASK64, total >> 64, key], np.uint64)
                               .view(np.int64))

    # -- draws ---------------------------------------------------------------------------

    def _float(self, draw, op_name, shape, mean, stddev, dtype):
        d = check_float_dtype(dtype, mean, op_name)
        shape = checked_shape(shape, op_name)
        key, counter = self._key_counter_and_advance(int(np.prod(shape, dtype=np.int64)))
        return scaled_from(draw, key, counter, shape, mean, stddev, d)

    def normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        return self._float(philox.normal, "StatefulStandardNormalV2", shape, mean, stddev, dtype)

    def truncated_normal(self, shape, mean=0.0, stddev=1.0, dtype=dtypes.float32, name=None):
        return self._float(philox.truncated_normal, "StatefulTruncatedNormal", shape, mean,
                           stddev, dtype)

    def uniform(self, shape, minval=0, maxval=None, dtype=dtypes.float32, name=None):
        d = check_uniform_dtype(dtype)
        shape = checked_shape(shape, "StatefulUniform")
        if d.is_integer and (minval is None) != (maxval is None):
            uniform_from(None, None, shape, minval, maxval, d)  # raises TF's ValueError
        key, counter = self._key_counter_and_advance(int(np.prod(shape, dtype=np.int64)))
        return uniform_from(key, counter, shape, minval, maxval, d)

    def uniform_full_int(self, shape, dtype=dtypes.uint64, name=None):
        return self.uniform(shape, minval=None, maxval=None, dtype=dtype)

    def make_seeds(self, count=1):
        """(2, count) int64 seeds for the stateless ops: new keys over zeros, as TF."""
        keys = self.uniform_full_int([int(count)], dtype=dtypes.int64)._value
        return Tensor(np.stack([keys, np.zeros_like(keys)]))

    def split(self, count=1):
        """`count` new Generators keyed by fresh draws of this one (which advances)."""
        keys = self.uniform_full_int([int(count)], dtype=dtypes.int64)._value
        return [Generator(state=[0, 0, int(k)]) for k in keys]

    def binomial(self, shape, counts, probs, dtype=dtypes.int32, name=None):
        raise NotImplementedError("tf.random.Generator.binomial is not implemented in "
                                  "tapeflow; use tf.random.stateless_uniform and compare "
                                  "with probs for Bernoulli draws.")
