"""philox.py is TF's counter-based generator for the stateless random ops,
ported to NumPy uint32 arithmetic so that `tf.random.stateless_*` give TF's
exact values: Philox-4x32-10 (philox_random.h), the seed scrambling of
StatelessRandomGetKeyCounter, and the sample transforms of
random_distributions.h (uniform by mantissa bits, Box-Muller normals,
truncated normals by rejection with 256 reserved samples per output).

Each function takes the (key, counter) of `key_counter(seed)` and returns a
NumPy array; nothing here is a Tensor.
"""

import math

import numpy as np

_W32 = np.array([0x9E3779B9, 0xBB67AE85], np.uint64)  # key increments per round
_M4x32A, _M4x32B = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
_LOW32 = np.uint64(0xFFFFFFFF)
_RESERVED_SAMPLES = 256  # random_op_cpu.h's kReservedSamplesPerOutput


def philox(counters, key):
    """Philox-4x32-10 of each row of `counters` ((n, 4) uint32) under `key` ((2,) uint32)."""
    c = [counters[:, i].astype(np.uint64) for i in range(4)]
    k = np.asarray(key, np.uint64).copy()
    for round_ in range(10):
        if round_:
            k = (k + _W32) & _LOW32
        p0, p1 = _M4x32A * c[0], _M4x32B * c[2]  # < 2**64: exact in uint64
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k[0], p1 & _LOW32,
             (p0 >> np.uint64(32)) ^ c[3] ^ k[1], p0 & _LOW32]
    return np.stack(c, axis=1).astype(np.uint32)


def _counters(counter, start, count):
    """Rows counter+start ... counter+start+count-1 (128-bit additions), as Philox's Skip."""
    return _counters_at(counter, np.arange(start, start + count, dtype=np.uint64))


def _counters_at(counter, steps):
    """Rows counter+step for each uint64 of `steps`."""
    low = np.uint64(counter[0]) | np.uint64(counter[1]) << np.uint64(32)
    high = np.uint64(counter[2]) | np.uint64(counter[3]) << np.uint64(32)
    with np.errstate(over="ignore"):
        new_low = low + steps
        new_high = high + (new_low < low).astype(np.uint64)
    return np.stack([new_low & _LOW32, new_low >> np.uint64(32), new_high & _LOW32,
                     new_high >> np.uint64(32)], axis=1).astype(np.uint32)


def key_counter(seed0, seed1):
    """TF's (key, counter) for the seed pair: the seeds, mixed by one Philox call."""
    seed0, seed1 = int(seed0) & 0xFFFFFFFFFFFFFFFF, int(seed1) & 0xFFFFFFFFFFFFFFFF
    counter = np.array([[seed0 & 0xFFFFFFFF, seed0 >> 32, seed1 & 0xFFFFFFFF, seed1 >> 32]],
                       np.uint32)
    mix = philox(counter, np.array([0x3EC8F720, 0x02461E29], np.uint32))[0]
    return mix[:2].copy(), np.array([0, 0, mix[2], mix[3]], np.uint32)


def bits(key, counter, calls, start=0):
    """The uint32 outputs of `calls` consecutive Philox calls from counter+start, flat."""
    return philox(_counters(counter, start, calls), key).reshape(-1)


def _groups(size, per_call):
    return -(-size // per_call)


def _to_float(x):
    """Uint32ToFloat: a float32 in [0, 1) from the low 23 bits."""
    return ((x & np.uint32(0x7FFFFF)) | np.uint32(127 << 23)).view(np.float32) - np.float32(1)


def _to_double(x0, x1):
    """Uint64ToDouble: a float64 in [0, 1) from 20 bits of x0 and all of x1."""
    man = (x0.astype(np.uint64) & np.uint64(0xFFFFF)) << np.uint64(32) | x1.astype(np.uint64)
    return (man | np.uint64(1023 << 52)).view(np.float64) - 1.0


def _to_half(x):
    """Uint16ToHalf: a float16 in [0, 1) from the low 10 bits."""
    man = (x & np.uint32(0x3FF)).astype(np.uint16) | np.uint16(15 << 10)
    return man.view(np.float16) - np.float16(1)


def uniform(key, counter, size, np_dtype):
    """UniformDistribution of a float dtype: [0, 1)."""
    if np_dtype == np.float64:
        x = bits(key, counter, _groups(size, 2))
        return _to_double(x[0::2], x[1::2])[:size]
    x = bits(key, counter, _groups(size, 4))[:size]
    return _to_half(x) if np_dtype == np.float16 else _to_float(x).astype(np_dtype)


def uniform_int(key, counter, size, np_dtype, lo, hi):
    """UniformDistribution of int32/int64: lo + bits % (hi - lo)."""
    if np.dtype(np_dtype).itemsize == 8:
        x = bits(key, counter, _groups(size, 2)).astype(np.uint64)
        draws = (x[0::2] | x[1::2] << np.uint64(32))[:size]
        span = np.uint64((int(hi) - int(lo)) & 0xFFFFFFFFFFFFFFFF)
        return (np.uint64(int(lo) & 0xFFFFFFFFFFFFFFFF) + draws % span).view(np.int64)
    draws = bits(key, counter, _groups(size, 4))[:size]
    span = np.uint32((int(hi) - int(lo)) & 0xFFFFFFFF)
    return (np.uint32(int(lo) & 0xFFFFFFFF) + draws % span).view(np.int32)


def full_int(key, counter, size, np_dtype):
    """UniformFullIntDistribution: the bits themselves, of a 32- or 64-bit integer dtype."""
    if np.dtype(np_dtype).itemsize == 8:
        x = bits(key, counter, _groups(size, 2)).astype(np.uint64)
        return (x[0::2] | x[1::2] << np.uint64(32))[:size].view(np_dtype)
    return bits(key, counter, _groups(size, 4))[:size].view(np_dtype)


_LIBM = {}


def _libm(name):
    """C's float function `name` (logf, sinf, cosf) from the C library, or None."""
    if name not in _LIBM:
        import ctypes  # only when a value lies on a rounding tie: see _float_function
        try:
            function = getattr(ctypes.CDLL("libm.so.6"), name)
            function.restype, function.argtypes = ctypes.c_float, [ctypes.c_float]
        except (OSError, AttributeError):
            function = None
        _LIBM[name] = function
    return _LIBM[name]


# How far (in ulps) from a rounding tie glibc's float functions were seen to round
# the other way than the correctly rounded value (logf: 0.205, sinf/cosf: 0.05 in
# 10**5 draws), with a margin.
_TIE_WIDTH = {"logf": 0.3, "sinf": 0.08, "cosf": 0.08}


def _float_function(numpy_function, c_name, x):
    """float32 `c_name(x)` as glibc's, which TF calls (logf, sincosf): the correctly
    rounded value from float64, except near a rounding tie, where glibc's own
    answer (one ulp off in ~0.5% of draws) is asked for through ctypes."""
    exact = numpy_function(x.astype(np.float64))
    rounded = exact.astype(np.float32)
    ulp = np.spacing(np.abs(rounded)).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        offset = np.abs(exact - rounded.astype(np.float64)) / ulp
    near_tie = np.nonzero(np.abs(offset - 0.5) < _TIE_WIDTH[c_name])[0]
    c_function = _libm(c_name) if near_tie.size else None
    if c_function is not None:
        rounded[near_tie] = list(map(c_function, x[near_tie].tolist()))
    return rounded


def _box_muller_float(x0, x1):
    """BoxMullerFloat: two float32 normals from two uint32s (float32 arithmetic, as TF's)."""
    u1 = np.maximum(_to_float(x0), np.float32(1.0e-7))
    v1 = (2.0 * np.pi * _to_float(x1).astype(np.float64)).astype(np.float32)
    u2 = np.sqrt(np.float32(-2.0) * _float_function(np.log, "logf", u1))
    return _float_function(np.sin, "sinf", v1) * u2, _float_function(np.cos, "cosf", v1) * u2


def _c_double(function, x):
    """`function` (Python's math: the C library's, as TF's) of each float64 of `x`:
    NumPy's own vectorized log/sin/cos differ from it in the last bit now and then."""
    return np.fromiter(map(function, x.tolist()), np.float64, count=x.size)


def _box_muller_double(x0, x1, x2, x3):
    """BoxMullerDouble: two float64 normals from four uint32s."""
    u1 = np.maximum(_to_double(x0, x1), 1.0e-7)
    v1 = 2 * np.pi * _to_double(x2, x3)
    u2 = np.sqrt(-2.0 * _c_double(math.log, u1))
    return _c_double(math.sin, v1) * u2, _c_double(math.cos, v1) * u2


def _interleave(first, second):
    out = np.empty(first.shape[:-1] + (2 * first.shape[-1],), first.dtype)
    out[..., 0::2], out[..., 1::2] = first, second
    return out


def normal(key, counter, size, np_dtype):
    """NormalDistribution: standard normals (float16 ones are float32 ones rounded, as TF)."""
    if np_dtype == np.float64:
        x = bits(key, counter, _groups(size, 2)).reshape(-1, 4)
        return _interleave(*_box_muller_double(x[:, 0], x[:, 1], x[:, 2], x[:, 3]))[:size]
    x = bits(key, counter, _groups(size, 4))
    return _interleave(*_box_muller_float(x[0::2], x[1::2]))[:size].astype(np_dtype)


def _truncated_group(key, counter, group, per_group, double):
    """One group of TruncatedNormalDistribution: draws from its reserved samples until
    `per_group` values lie within 2 standard deviations."""
    skip = group * per_group * _RESERVED_SAMPLES // 4
    kept, calls = [], 0
    while len(kept) < per_group:
        x = bits(key, counter, 1, skip + calls)  # one call: 4 uint32s, in order
        calls += 1
        if double:
            pairs = [_box_muller_double(*(x[i:i + 1] for i in range(4)))]
        else:
            pairs = [_box_muller_float(x[0:1], x[1:2]), _box_muller_float(x[2:3], x[3:4])]
        for f0, f1 in pairs:
            for value in (f0[0], f1[0]):
                if abs(value) < 2.0 and len(kept) < per_group:
                    kept.append(value)
    return kept


def truncated_normal(key, counter, size, np_dtype):
    """TruncatedNormalDistribution: standard normals redrawn outside [-2, 2]. Each group
    of outputs reads its own reserved samples; two Philox calls per group are drawn
    at once, the rare group that needs more goes on one call at a time."""
    double = np_dtype == np.float64
    per_group = 2 if double else 4
    groups = _groups(size, per_group)
    skip = per_group * _RESERVED_SAMPLES // 4
    starts = np.arange(groups, dtype=np.uint64) * np.uint64(skip)
    counters = np.concatenate([_counters_at(counter, starts + np.uint64(i)) for i in (0, 1)])
    x = philox(counters, key).reshape(2, groups, 4).transpose(1, 0, 2).reshape(groups, 8)
    if double:
        pairs = [_box_muller_double(x[:, 4 * i], x[:, 4 * i + 1], x[:, 4 * i + 2],
                                    x[:, 4 * i + 3]) for i in (0, 1)]
    else:
        pairs = [_box_muller_float(x[:, 2 * i], x[:, 2 * i + 1]) for i in range(4)]
    candidates = np.stack([v for pair in pairs for v in pair], axis=1)
    accepted = np.abs(candidates) < 2.0
    rank = np.cumsum(accepted, axis=1)
    out = np.empty((groups, per_group), candidates.dtype)
    short = rank[:, -1] < per_group
    good = ~short
    rows, cols = np.nonzero(accepted[good] & (rank[good] <= per_group))
    out[good] = candidates[good][rows, cols].reshape(-1, per_group)
    for group in np.nonzero(short)[0]:
        out[group] = _truncated_group(key, counter, int(group), per_group, double)
    return out.reshape(-1)[:size].astype(np_dtype)


def multinomial(key, counter, logits, num_samples):
    """StatelessMultinomial on the CPU: for each row, `num_samples` class indices found by
    binary search of RandDouble() * total in the unnormalized CDF of exp(logits - max)."""
    x = np.asarray(logits, np.float64)
    rows, classes = x.shape
    draws = bits(key, counter, _groups(2 * rows * num_samples, 4))
    doubles = _to_double(draws[0::2], draws[1::2])[:rows * num_samples]
    doubles = doubles.reshape(rows, num_samples)
    out = np.empty((rows, num_samples), np.int64)
    for b in range(rows):
        finite = np.isfinite(x[b])
        top = x[b][finite].max() if finite.any() else np.finfo(np.float64).min
        cdf = np.cumsum(np.where(finite, np.exp(x[b] - top), 0.0))
        total = cdf[-1] if classes else 0.0
        out[b] = np.searchsorted(cdf, doubles[b] * total, side="right")
    return out
