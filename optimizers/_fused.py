"""_fused.py: the update machinery shared by the built-in optimizers. Each one
states its slots, its per-step scalar coefficients, a NumPy formula (the
reference, also used for tiny variables and until the kernels start:
runtime/kernel_start.py) and the name of its fused Numba kernel in
tapeflow.kernels.optimizers, which runs everything else."""

import numpy as np

from ..core.tensor import Tensor
from ..runtime import kernel_start

from .optimizer import Optimizer

__all__ = []

# Variables up to this size take the NumPy formula even once the kernels have
# started: a scalar update then costs about as much as a kernel call.
NUMPY_MAX_SIZE = 16
# A larger slot on the NumPy formulas' path (before the kernels start) is flushed
# (flush_small) at every FLUSH_PERIOD-th step only: flushing at each cost W7's
# model 20% of its step there. From the floor, a slot that decays by 0.35 or more
# a step needs 16 steps to reach the subnormals; one below the floor costs only
# until the next flush.
FLUSH_PERIOD = 16

_EMPTY = {}


def _empty(dtype):
    array = _EMPTY.get(dtype)
    if array is None:
        array = _EMPTY[dtype] = np.empty(0, dtype)
    return array


def slot_floor(dtype):
    """Below it a decaying slot is zero: the smallest normal number of `dtype` times
    2**24 in float32 (2**53 in float64), as in the kernels (kernels/optimizers.py's
    docstring: x86's slow subnormals, TF's flushed threads). Zero (nothing flushed)
    for float16, whose arithmetic runs in float32 (no subnormal there) and whose
    normal range starts at 6e-5, where an Adam step still moves a weight."""
    dtype = np.dtype(dtype)
    if dtype.itemsize < 4:
        return dtype.type(0)
    info = np.finfo(dtype)
    return dtype.type(info.tiny / info.epsneg)


def flush_small(*slots):
    """Zero (+0.0, as the kernels), in place, the values of decaying slots below
    their `slot_floor`. A product by the mask, then + 0 for the sign of a negative
    value's zero: assigning zero through the mask took 10x longer, as most of a
    slot can be zero and so below the floor."""
    for slot in slots:
        np.multiply(slot, np.abs(slot) >= slot_floor(slot.dtype), out=slot)
        slot += 0


class FusedOptimizer(Optimizer):
    """A built-in optimizer: `update_step` dispatches to a kernel or the NumPy formula.

    Subclasses define `_slot_specs()`, `_coefficients(lr, step)` (floats, cast
    to each variable's dtype once per step), `_kernel_name()`,
    `_kernel_slots(slots, dtype)` and `_numpy_update(p, g, slots, coefs, decay)`.
    """

    _fuses_weight_decay = True

    def _coefficients(self, lr, step):
        raise NotImplementedError

    def _kernel_name(self):
        raise NotImplementedError

    def _kernel_slots(self, slots, dtype):
        return slots

    def _numpy_update(self, p, g, slots, coefs, decay):
        raise NotImplementedError

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if type(self).update_step is FusedOptimizer.update_step:
            self._array_update = self._update_array

    def __setattr__(self, name, value):
        # The scalar coefficients are cached per (dtype, learning rate); a changed
        # hyperparameter (`opt.momentum = 0.5`) must not reuse them.
        if name[0] != "_" and "_coef_cache" in self.__dict__:
            self._coef_cache.clear()
        object.__setattr__(self, name, value)

    def update_step(self, gradient, variable, learning_rate):
        """One in-place update of `variable` and its slots (see the class docstring)."""
        g = gradient._value if isinstance(gradient, Tensor) else np.asarray(gradient)
        self._update_array(g, variable, learning_rate)

    def _update_array(self, g, variable, learning_rate):
        p = variable._value
        dtype = p.dtype
        cached = self._coef_cache.get((dtype, learning_rate))
        if cached is None:
            cached = self._step_coefficients(dtype, learning_rate)
        coefs, decay = cached  # decay: a zero of the variable's dtype
        if self.weight_decay:
            decay = dtype.type(self._decay_coef(variable, learning_rate))
        slot_vars = self._slots[self._index[id(variable)]]
        slots = [s._value for s in slot_vars] if slot_vars else slot_vars
        if not self._runs_kernel(p) or not kernel_start.use_kernel(p.size):
            self._numpy_update(p, g, slots, coefs, decay)
            return
        from ..kernels import optimizers as _k
        flat_g = np.ascontiguousarray(g).reshape(-1)
        if not flat_g.flags.writeable:  # (a broadcast gradient) a second, read-only
            flat_g = flat_g.copy()      # compile of the kernel may round differently
        flat_slots = [s.reshape(-1) for s in self._kernel_slots(slots, dtype)]
        _k.run(self._kernel_name(), p.reshape(-1), flat_g, flat_slots, coefs + (decay,))

    @staticmethod
    def _kernel_threads(name, size):
        """The threads an update by kernel `name` of `size` elements runs on."""
        from ..kernels import optimizers as _k
        return _k.threads_for(name, size)

    _slot_floor = staticmethod(slot_floor)  # for compiler/lowering.py

    @staticmethod
    def _flush_period(size):
        """Every how many steps the NumPy formulas flush a slot of `size` elements."""
        return 1 if size <= NUMPY_MAX_SIZE else FLUSH_PERIOD

    def _flush_small(self, *slots):
        """flush_small on the NumPy formulas' path, at the steps `_flush_period` says."""
        step = getattr(self, "_step", None)
        if step is None:
            step = int(self._iterations._value)
        if step % self._flush_period(slots[0].size) == 0:
            flush_small(*slots)

    @staticmethod
    def _runs_kernel(p):
        """Whether an update of the array `p` runs the fused kernel (else the NumPy
        formulas) once the kernels have started (runtime/kernel_start.py);
        compiler/lowering.py asks, so that generated code, which runs only after
        they have, does as eager. Not for float16 (Numba has no float16 arrays)."""
        return p.size > NUMPY_MAX_SIZE and p.flags.c_contiguous and p.dtype.itemsize >= 4

    def _step_coefficients(self, dtype, learning_rate):
        step = getattr(self, "_step", None)
        if step is None:
            step = int(self._iterations._value)
        coefs = tuple(dtype.type(c) for c in self._coefficients(learning_rate, step))
        cached = self._coef_cache[(dtype, learning_rate)] = (coefs, dtype.type(0))
        return cached


def apply_decay(p, decay):
    """Keras 3's decoupled weight decay `p -= p * (weight_decay * lr)`, in place."""
    if decay:
        p -= p * decay
