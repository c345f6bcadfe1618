"""optimizers.py holds the fused optimizer updates: one pass over memory per
variable, in place on the flat (raveled, contiguous) variable and its slots.
Scalar coefficients arrive already cast to the variable's dtype, so float32
stays float32. The formulas and their NumPy references live in tapeflow.optimizers.

Every kernel takes `decay` (weight decay times learning rate, 0 for none) and
applies Keras 3's decoupled decay `p -= p * decay` before the update.

A slot that decays (a momentum, a moving average: every slot but Adagrad's and
Ftrl's accumulators) is zeroed once it falls below the smallest normal number
times 2**24 (2e-31 in float32: `_floor`, `_flushed`). Under a zero gradient (a
dead ReLU unit, a pixel that is rarely lit) Adam's momentum shrinks by beta_1 a
step and goes subnormal after about 700 steps, and arithmetic on subnormals takes
a microcode assist on x86: W2's Adam update went 0.24 -> 2.8 ms, its fit 2.5 ->
5.2 ms a step, with two thirds of its first kernel's momentum subnormal. Zeroing
only the subnormal results still left a 2x slower update: a slot a few steps
above the smallest normal makes the decay's products (`(x - avg) * (1 - beta)`)
subnormal. Above the floor none is, as 1 - beta >= 2**-24 for any beta < 1 in
float32 (2**-53 in float64). TF runs its kernels with subnormals flushed (FTZ/DAZ
on its threads), as XLA does, so its slots never hold one either; where TF's keep
a value under the floor, tapeflow's hold zero: either moves a weight by less than
1e-20 of an Adam step.
"""

import numpy as np

# runtime.jit first: it imports numba after registering the kernels' cache locator.
from ..runtime.jit import FASTMATH, kernel_threads, njit, prange, serial_and_parallel  # noqa: I001
from ..runtime.blas_pool import get_num_threads, set_num_threads  # noqa: E402
from ..runtime import calibration  # noqa: E402

__all__ = ["KERNELS", "UPDATE_SIZES", "run", "threads_for"]

# From which size an update runs on all the kernel threads is the 'updates'
# decision, measured on the running machine (`_measure_updates`): the Adam kernel
# on one thread against all, each call after a threaded BLAS product as in a step,
# at each of UPDATE_SIZES. Variables below the smallest never ask for it (toy
# programs measure nothing) unless it is forced (runtime.calibration.force).
# Entering a parallel region costs a scheduler time slice (~12 ms) whenever another
# process holds a core (at 4k elements 12 ms against 14 us serial on a busy 2-core
# machine), so all threads must win by _UPDATE_MARGIN, a 1.25x gain, at a size and
# every larger one. The constant it replaces (2**19, from a 2-core Zen 5) kept W2's
# updates on one thread; on a Zen 4 the decision is 2**14 or 2**16 (1.25-1.3x
# there), W2's Adam update of its first layer runs on two threads (151 -> 89 us in
# cache) and its fit 1.08x faster (paired).
UPDATE_SIZES = (1 << 14, 1 << 16, 1 << 18)
_UPDATE_MARGIN = 0.2


# The steps the updates share, inlined into each kernel's loop (numba's IR inlining,
# so the parallel compile still sees one flat loop body to vectorise).
_inline = njit(inline="always")


@_inline
def _decayed(p, i, decay):
    """p[i] after Keras 3's decoupled weight decay."""
    pi = p[i]
    if decay != 0:
        pi = pi - pi * decay
    return pi


@_inline
def _floor(p):
    """Below it a decaying slot is zero (the module docstring), in p's dtype: the
    smallest normal number over the smallest 1 - beta (2**-24 in float32)."""
    info = np.finfo(p.dtype)
    return p.dtype.type(info.tiny / info.epsneg)


@_inline
def _flushed(x, floor):
    """x, or zero where |x| < floor (the module docstring); NaN stays NaN."""
    return floor - floor if abs(x) < floor else x


@_inline
def _moment(avg, i, x, one_minus_beta, floor):
    """avg[i] = beta * avg[i] + (1 - beta) * x, as avg + (x - avg) * (1 - beta)."""
    a = _flushed(avg[i] + (x - avg[i]) * one_minus_beta, floor)
    avg[i] = a
    return a


@_inline
def _leaky(avg, i, x, rho, one_minus_rho, floor):
    """avg[i] = rho * avg[i] + (1 - rho) * x, RMSprop's and Adadelta's form."""
    a = _flushed(rho * avg[i] + one_minus_rho * x, floor)
    avg[i] = a
    return a


def _sgd(p, g, lr, decay):
    for i in prange(p.size):
        p[i] = _decayed(p, i, decay) - g[i] * lr


def _sgd_momentum(p, g, m, lr, momentum, decay):
    floor = _floor(p)
    for i in prange(p.size):
        pi = _decayed(p, i, decay)
        mi = _flushed(m[i] * momentum - g[i] * lr, floor)
        m[i] = mi
        p[i] = pi + mi


def _sgd_nesterov(p, g, m, lr, momentum, decay):
    floor = _floor(p)
    for i in prange(p.size):
        pi = _decayed(p, i, decay)
        gl = g[i] * lr
        mi = _flushed(m[i] * momentum - gl, floor)
        m[i] = mi
        p[i] = pi + (mi * momentum - gl)


def _adam(p, g, m, v, alpha, one_minus_b1, one_minus_b2, eps, decay):
    floor = _floor(p)
    for i in prange(p.size):
        pi = _decayed(p, i, decay)
        gi = g[i]
        mi = _moment(m, i, gi, one_minus_b1, floor)
        vi = _moment(v, i, gi * gi, one_minus_b2, floor)
        p[i] = pi - (mi * alpha) / (np.sqrt(vi) + eps)


def _adam_amsgrad(p, g, m, v, vhat, alpha, one_minus_b1, one_minus_b2, eps, decay):
    floor = _floor(p)
    for i in prange(p.size):
        pi = _decayed(p, i, decay)
        gi = g[i]
        mi = _moment(m, i, gi, one_minus_b1, floor)
        hi = max(vhat[i], _moment(v, i, gi * gi, one_minus_b2, floor))
        vhat[i] = hi
        p[i] = pi - (mi * alpha) / (np.sqrt(hi) + eps)


def _adamax(p, g, m, u, lr, one_minus_b1, b2, denom_scale, eps, decay):
    floor = _floor(p)
    for i in prange(p.size):
        pi = _decayed(p, i, decay)
        gi = g[i]
        mi = _moment(m, i, gi, one_minus_b1, floor)
        ui = _flushed(max(b2 * u[i], abs(gi)), floor)
        u[i] = ui
        p[i] = pi - (lr * mi) / (denom_scale * (ui + eps))


def _nadam(p, g, m, v, lr, one_minus_b1, one_minus_b2, c_m, c_g, c_v, eps, decay):
    floor = _floor(p)
    for i in prange(p.size):
        pi = _decayed(p, i, decay)
        gi = g[i]
        mi = _moment(m, i, gi, one_minus_b1, floor)
        vi = _moment(v, i, gi * gi, one_minus_b2, floor)
        m_hat = c_m * mi + c_g * gi
        p[i] = pi - (m_hat * lr) / (np.sqrt(vi * c_v) + eps)


def _rmsprop(p, g, v, lr, rho, one_minus_rho, eps, momentum, centered, use_momentum, decay):
    # momentum, centered and use_momentum are 0 here: _rmsprop_full handles them.
    floor = _floor(p)
    for i in prange(p.size):
        pi = _decayed(p, i, decay)
        gi = g[i]
        vi = _leaky(v, i, gi * gi, rho, one_minus_rho, floor)
        p[i] = pi - (lr * gi) / np.sqrt(vi + eps)


def _rmsprop_full(p, g, v, mom, avg, lr, rho, one_minus_rho, eps, momentum, centered,
                  use_momentum, decay):
    floor = _floor(p)
    for i in prange(p.size):
        pi = _decayed(p, i, decay)
        gi = g[i]
        vi = _leaky(v, i, gi * gi, rho, one_minus_rho, floor)
        if centered:
            ai = _leaky(avg, i, gi, rho, one_minus_rho, floor)
            denom = vi - ai * ai + eps
        else:
            denom = vi + eps
        inc = (lr * gi) / np.sqrt(denom)
        if use_momentum:
            inc = _flushed(momentum * mom[i] + inc, floor)
            mom[i] = inc
        p[i] = pi - inc


def _adagrad(p, g, acc, lr, eps, decay):
    for i in prange(p.size):
        pi = _decayed(p, i, decay)
        gi = g[i]
        ai = acc[i] + gi * gi
        acc[i] = ai
        p[i] = pi - (lr * gi) / np.sqrt(ai + eps)


def _adadelta(p, g, acc_g, acc_dx, lr, rho, one_minus_rho, eps, decay):
    floor = _floor(p)
    for i in prange(p.size):
        pi = _decayed(p, i, decay)
        gi = g[i]
        ag = _leaky(acc_g, i, gi * gi, rho, one_minus_rho, floor)
        dx = -(np.sqrt(acc_dx[i] + eps) * gi) / np.sqrt(ag + eps)
        _leaky(acc_dx, i, dx * dx, rho, one_minus_rho, floor)
        p[i] = pi + lr * dx


def _lion(p, g, m, lr, b1, one_minus_b1, b2, one_minus_b2, decay):
    floor = _floor(p)
    for i in prange(p.size):
        pi = _decayed(p, i, decay)
        gi = g[i]
        mi = m[i]
        c = mi * b1 + gi * one_minus_b1
        # sign(c) without a float64 literal; c == 0 gives 0 and NaN stays NaN.
        if c > 0:
            pi = pi - lr
        elif c < 0:
            pi = pi + lr
        else:
            pi = pi - c * lr
        p[i] = pi
        m[i] = _flushed(mi * b2 + gi * one_minus_b2, floor)


def _ftrl(p, g, acc, lin, lr, neg_lr_power, l1, two_l2, two_shrinkage, is_sqrt, decay):
    for i in prange(p.size):
        pi = _decayed(p, i, decay)
        gi = g[i]
        ai = acc[i]
        new_ai = ai + gi * gi
        if is_sqrt != 0:  # the default power -0.5: sqrt vectorises, pow does not
            new_pow = np.sqrt(new_ai)
            old_pow = np.sqrt(ai)
        else:
            new_pow = new_ai ** neg_lr_power
            old_pow = ai ** neg_lr_power
        li = lin[i] + ((gi + two_shrinkage * pi) - ((new_pow - old_pow) / lr) * pi)
        lin[i] = li
        quadratic = new_pow / lr + two_l2
        clipped = min(max(li, -l1), l1)
        p[i] = (clipped - li) / quadratic
        acc[i] = new_ai


KERNELS = {}
for _fn in (_sgd, _sgd_momentum, _sgd_nesterov, _adam, _adam_amsgrad, _adamax, _nadam,
            _rmsprop, _rmsprop_full, _adagrad, _adadelta, _lion, _ftrl):
    KERNELS[_fn.__name__[1:]] = serial_and_parallel(_fn, fastmath=FASTMATH)
del _fn
# Plain SGD vectorises serially and is bound by memory bandwidth: a second
# thread gains nothing and loses a lot when the machine is busy.
KERNELS["sgd"] = (KERNELS["sgd"][0], KERNELS["sgd"][0])
# Each kernel's compiled function as a module attribute (`adam`, `sgd_momentum`),
# for the code compiler/lowering.py generates, which sets the thread count that
# `threads_for` gives (Numba resolves a module's attributes, not a dict's items).
for _name, (_one_thread, _) in KERNELS.items():
    globals()[_name] = _one_thread.kernel
del _name, _one_thread, _


def _on_all_threads(name, size):
    """Whether kernel `name` updates `size` elements on all the kernel threads."""
    serial, parallel = KERNELS[name]
    return parallel is not serial and calibration.parallel_at("updates", size, UPDATE_SIZES[0])


def _measure_updates(repeats=9, budget=0.02):
    """(the smallest of UPDATE_SIZES from which all threads win there and at every
    larger size, or "one"; the median seconds per size and candidate)."""
    threads = kernel_threads()
    if threads < 2:
        return "one", {"threads": threads}
    serial, parallel = KERNELS["adam"]
    product = np.ones((96, 96), np.float32)  # 96**3 multiply-adds: OpenBLAS threads it
    coefs = tuple(np.float32(c) for c in (1e-3, 0.1, 1e-3, 1e-7, 0.0))

    def timings_at(size):
        p, g, m, v = (np.full(size, 0.5, np.float32) for _ in range(4))
        return calibration.time_calls(
            {"one": lambda: serial(p, g, m, v, *coefs),
             "many": lambda: parallel(p, g, m, v, *coefs)},
            repeats=repeats, before=lambda: product @ product, budget=budget)

    start, details = calibration.smallest_parallel_size(UPDATE_SIZES, timings_at,
                                                        _UPDATE_MARGIN)
    return start, {"threads": threads, **details}


calibration.register("updates", _measure_updates, version=1)


def run(name, p, g, slots, coefs):
    """Run kernel `name` on flat contiguous arrays: `p`, `g`, then `slots`, then `coefs`."""
    serial, parallel = KERNELS[name]
    (parallel if _on_all_threads(name, p.size) else serial)(p, g, *slots, *coefs)


@njit(cache=True, nogil=True)
def set_threads(count):
    """Set Numba's thread count to `count` from compiled code (the code
    compiler/lowering.py generates), returning the count before."""
    before = get_num_threads()
    set_num_threads(np.int32(count))
    return before


def threads_for(name, size):
    """The threads `run` gives kernel `name` on `size` elements."""
    return kernel_threads() if _on_all_threads(name, size) else 1
