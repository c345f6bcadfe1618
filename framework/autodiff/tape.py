"""tape.py computes gradients: GradientTape (which pushes itself on the
recording stack of core/record.py while its context is open) and the
backward walk, which calls each recorded op's registered VJPs. It knows
nothing about layers."""

import contextlib
import enum
import sys
import logging

import numpy as np

from ..core import nest
from ..core import record as _record
from ..core import tensor as _tensor
from ..core.sites import mark, site_of, user_site
from ..core.tensor import Tensor, Variable, convert_to_tensor, scalar
from ..ops import shape as _shape_ops
from ..ops.math import add, identity
from ..ops.shape import unbroadcast
from . import explain as _explain
from . import memory as _memory

__all__ = ["GradientTape", "UnconnectedGradients"]

_log = logging.getLogger("tapeflow")

# `convert_to_tensor(variable)` is a differentiable read, as TF's ReadVariableOp:
# a copy recorded as `identity`, so a tape watches the Variable and the gradient
# reaches it. Core cannot import ops, so the read is installed from here; no tape
# can record before this module is loaded.
_tensor._read_variable = identity

class UnconnectedGradients(enum.Enum):
    """What `gradient` returns for a source the target does not depend on."""

    NONE = "none"
    ZERO = "zero"


_warned = set()


def _warn_once(key, message):
    if key not in _warned:
        _warned.add(key)
        _log.warning(message)


def _unconnected_mode(value):
    if isinstance(value, UnconnectedGradients):
        return value
    try:
        return UnconnectedGradients(value)
    except ValueError:
        raise ValueError(f"Unknown value for unconnected_gradients: {value!r}; expected "
                         "'none' or 'zero' (tf.UnconnectedGradients.NONE or .ZERO).") from None


class GradientTape:
    """Record operations for automatic differentiation, as `tf.GradientTape`.

    Ops run inside the context are recorded when one of their inputs is
    watched: by `watch`, or, for trainable Variables, by being read while
    `watch_accessed_variables=True`. `gradient` walks the records backwards.
    Tapes nest: a gradient computed inside an outer tape's context is itself
    recorded there, which gives higher-order derivatives.

    Args:
        persistent: allow more than one call of `gradient`/`jacobian`.
        watch_accessed_variables: watch trainable Variables read in the context.

    >>> x = tf.constant(3.0)
    >>> with tf.GradientTape() as g:
    ...     g.watch(x)
    ...     y = x * x
    >>> g.gradient(y, x)  # 6.0
    """

    # For GradientTape.explain and memory_report, made on first use (core/record.py,
    # layers/base.py): a step that cuts no path and calls no layer pays for none.
    _notes = None        # [(kind, name, input ids, user site)]: paths cut
    _cut_ids = None      # {id of a tensor computed from a cut: its note's index}
    _layer_spans = None  # [(first record, end, layer name)]

    def __init__(self, persistent=False, watch_accessed_variables=True):
        self._persistent = bool(persistent)
        self._watch_accessed = bool(watch_accessed_variables)
        self._records = []
        self._tracked = set()       # ids of watched tensors and of recorded outputs
        self._watched = {}          # id -> watched tensor, keeps them alive
        self._released = False
        self._active = False        # recording now (on its thread's stack, or paused)
        self._stack = None          # the stack of the thread that entered the context
        self._entered_at = None     # a mark of the user's line that opened the context
        self._exited = False        # the context has closed (explain's after_context)

    # -- recording ----------------------------------------------------------
    @property
    def _is_recording(self):
        return self._active

    def __enter__(self):
        if self._is_recording:
            raise ValueError("This GradientTape is already recording; it cannot be "
                             "entered twice.")
        self._stack = _record.push(self)
        self._active = True
        self._entered_at = mark(sys._getframe(1))
        if _memory.any_large[0]:
            _memory.check_outliving(self)
        return self

    def __exit__(self, *exc_info):
        self._pop()
        self._exited = True
        if self._persistent:
            _memory.watch_persistent(self)
        return False

    @property
    def _enter_site(self):
        """The user's line that opened the context (a Site, for messages)."""
        return site_of(self._entered_at)

    def _pop(self):
        """Leave the recording stack; the position it had there (None if a pause hid it)."""
        self._active = False
        return _record.pop(self, self._stack)

    def _watch_one(self, tensor):
        self._tracked.add(id(tensor))
        self._watched[id(tensor)] = tensor

    def watch(self, tensor):
        """Ensure `tensor` (a Tensor, Variable or nested structure of them) is traced.

        Raises:
            ValueError: if it meets something that is not a Tensor or Variable.
        """
        self._check_usable()
        for leaf in nest.flatten(tensor):
            if not isinstance(leaf, Tensor):
                raise ValueError(f"Passed in object {leaf!r} of type {type(leaf).__name__!r}, "
                                 "not tf.Tensor or tf.Variable; only tensors and variables "
                                 "can be watched.")
            if leaf._value.dtype.kind not in "fc":
                _log.warning("The dtype of the watched tensor must be floating (e.g. "
                             "tf.float32), got %r", leaf.dtype)
                continue
            self._watch_one(leaf)

    @contextlib.contextmanager
    def stop_recording(self):
        """Temporarily stop recording ops on this tape.

        Raises:
            RuntimeError: if the tape is not currently recording.
        """
        if not self._is_recording:
            raise RuntimeError("Trying to stop recording a tape which is not recording.")
        position = self._pop()
        _record.add_note(self, ("pause", "stop_recording", (), user_site()))
        try:
            yield
        finally:
            if position is not None:  # else record.paused() puts it back at its end
                _record.insert(self, self._stack, position)
            self._active = True

    def reset(self):
        """Clear everything recorded, as if the context were exited and re-entered."""
        self._records = []
        self._tracked = set()
        self._watched = {}
        self._released = False
        self._notes = self._cut_ids = self._layer_spans = None

    def watched_variables(self):
        """The Variables this tape watches, in order of creation."""
        found = [t for t in self._watched.values() if isinstance(t, Variable)]
        return tuple(sorted(found, key=lambda v: v._uid))

    # -- debugging ----------------------------------------------------------
    def explain(self, target, source):
        """Why the gradient of `target` with respect to `source` is what it is.

        Not in TF. Returns an `Explanation` (autodiff/explain.py): `str()` is a
        short paragraph naming the cause and the user's line (a source never
        watched, an integer dtype, `trainable=False`, a value that left the tape
        through `.numpy()` or NumPy, `stop_gradient` or an op with no gradient,
        a target computed after the context closed or under `stop_recording`,
        no path at all); for a connected source, the chain of ops. Ask before
        `gradient` on a non-persistent tape, which drops its records there.
        """
        return _explain.explain(self, target, source)

    def memory_report(self):
        """What this tape holds alive: records and bytes per op and per layer.

        Not in TF. Returns a `MemoryReport` (autodiff/memory.py) whose `str()`
        is a table; its totals count each array once, however many records
        share it.
        """
        return _memory.report(self)

    # -- gradients ----------------------------------------------------------
    def _check_usable(self):
        if self._released:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one "
                               "set of gradients (or jacobians)")

    def _begin_backward(self):
        self._check_usable()
        if self._is_recording:
            if self._persistent:
                _warn_once("in_context", "Calling GradientTape.gradient on a persistent tape inside its "
                             "context records the gradient computation on the tape too; do it "
                             "only to take higher-order derivatives.")
            else:
                self._pop()  # as TF: the tape stops recording, then differentiates

    def _read_target(self, target):
        """A target as a Tensor. A Variable target is read on this tape, as TF does,
        so `gradient(v, v)` is ones wherever the tape watches (or would watch) `v`."""
        if type(target) is not Variable:
            return _as_target(target)
        self._check_usable()
        if self._is_recording:
            return convert_to_tensor(target)
        stack = _record.push(self)  # recording again for the one read
        try:
            return convert_to_tensor(target)
        finally:
            _record.pop(self, stack)

    def _finish_backward(self):
        if not self._persistent:
            self._records = None
            self._tracked = set()
            self._released = True  # watched_variables() still answers, as in TF

    def gradient(self, target, sources, output_gradients=None,
                 unconnected_gradients=UnconnectedGradients.NONE):
        """The gradient of `target` with respect to each of `sources`.

        Args:
            target: a Tensor or nested structure of Tensors; several targets are
                summed, and a non-scalar target is differentiated as its sum.
            sources: a Tensor, Variable or nested structure of them.
            output_gradients: one upstream gradient per target (default ones).
            unconnected_gradients: 'none' (None for an unconnected source) or
                'zero' (zeros of the source's shape).

        Returns:
            Gradients in the structure of `sources`, each with its source's
            shape and dtype, or None.

        Raises:
            RuntimeError: on a second call of a non-persistent tape.
            ValueError: for an unknown `unconnected_gradients` or a source that
                is not a Tensor or Variable.
        """
        mode = _unconnected_mode(unconnected_gradients)
        self._begin_backward()
        if type(target) is Tensor:
            targets = [target]
        else:
            targets = [self._read_target(t) for t in nest.flatten(target)]
        single = isinstance(sources, Tensor)
        flat_sources = [sources] if single else _check_sources(sources)
        if output_gradients is None:
            seeds = [None] * len(targets)
        else:
            seeds = nest.flatten(output_gradients)
            if len(seeds) != len(targets):
                raise ValueError(f"output_gradients has {len(seeds)} entries but there are "
                                 f"{len(targets)} targets; give one per target.")
        seed_tensors = []
        for t, seed in zip(targets, seeds):
            if t._value.dtype.kind not in "fc":
                seed_tensors.append(None)  # an integer, boolean or string target: no gradient
            elif seed is None:
                value = t._value
                seed_tensors.append(scalar(1, value.dtype) if value.ndim == 0
                                    else Tensor(np.ones(value.shape, value.dtype)))
            else:
                seed = convert_to_tensor(seed, dtype=t.dtype)
                if seed.shape != t.shape:
                    raise ValueError(f"output_gradients entry of shape {tuple(seed.shape)} does "
                                     f"not match its target's shape {tuple(t.shape)}.")
                seed_tensors.append(seed)
        grads = _backward(self._records, self._tracked, targets, seed_tensors, flat_sources,
                          batch_ndim=0)
        result = [_finish(grads.get(id(s)), s, mode, ()) for s in flat_sources]
        for r in result:  # a None gradient: why, for the optimizer's warning (explain.py)
            if r is None and targets:
                _explain.remember_unconnected(self, targets, flat_sources, result)
                break
        self._finish_backward()
        # The structure of `sources`, empty ones included (`gradient(x, [])` is []).
        return result[0] if single else nest.pack_sequence_as(sources, result)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE,
                 parallel_iterations=None, experimental_use_pfor=True):
        """The full Jacobian of `target` with respect to each of `sources`.

        One vectorised backward walk over a batch of cotangents (the rows of
        the identity), not a Python loop over the target's elements.

        Returns:
            For each source, a tensor of shape `target.shape + source.shape`
            (or None / zeros where unconnected), in the structure of `sources`.

        Raises:
            RuntimeError: with `experimental_use_pfor=False` on a
                non-persistent tape (as TF).
        """
        mode = _unconnected_mode(unconnected_gradients)
        if not experimental_use_pfor and not self._persistent:
            raise RuntimeError("GradientTape must be created with persistent=True to compute "
                               "the jacobian with experimental_use_pfor=False.")
        self._begin_backward()
        target = self._read_target(target)
        flat_sources = _check_sources(sources)
        n = target._value.size
        seed = Tensor(np.eye(n, dtype=target._value.dtype).reshape((n,) + target._value.shape))
        grads = _backward(self._records, self._tracked, [target], [seed], flat_sources,
                          batch_ndim=1)
        self._finish_backward()
        result = []
        for s in flat_sources:
            g = _finish(grads.get(id(s)), s, mode, (n,))
            if g is not None:
                g = _reshape(g, tuple(target._value.shape) + tuple(s._value.shape))
            result.append(g)
        return nest.pack_sequence_as(sources, result)

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per-example Jacobians: `result[i] = jacobian(target[i], source[i])`.

        Assumes `target[i]` depends only on `source[i]` (as TF does). Computed
        with one backward walk over `prod(target.shape[1:])` cotangents.

        Returns:
            A tensor of shape `[b] + target.shape[1:] + source.shape[1:]`.

        Raises:
            ValueError: if a rank is below 2 or the first dimensions differ.
            RuntimeError: with `experimental_use_pfor=False` on a non-persistent tape.
        """
        mode = _unconnected_mode(unconnected_gradients)
        if not experimental_use_pfor and not self._persistent:
            raise RuntimeError("GradientTape must be created with persistent=True to compute "
                               "the batch jacobian with experimental_use_pfor=False.")
        target = self._read_target(target)
        if not isinstance(source, Tensor):
            raise ValueError(f"batch_jacobian source must be a Tensor or Variable, got "
                             f"{type(source).__name__}.")
        t_shape, s_shape = tuple(target._value.shape), tuple(source._value.shape)
        if len(t_shape) < 2 or len(s_shape) < 2:
            raise ValueError(f"batch_jacobian needs target and source of rank at least 2; got "
                             f"target shape {t_shape} and source shape {s_shape}.")
        if t_shape[0] != s_shape[0]:
            raise ValueError(f"Need first dimension of target shape {t_shape} and source shape "
                             f"{s_shape} to match.")
        self._begin_backward()
        b, inner = t_shape[0], t_shape[1:]
        m = int(np.prod(inner, dtype=np.int64))
        eye = np.eye(m, dtype=target._value.dtype).reshape((m, 1) + inner)
        # A read-only broadcast view: the first VJP makes a new array from it anyway.
        seed = Tensor(np.broadcast_to(eye, (m,) + t_shape))
        grads = _backward(self._records, self._tracked, [target], [seed], [source], batch_ndim=1)
        self._finish_backward()
        g = _finish(grads.get(id(source)), source, mode, (m,))
        if g is None:
            return None
        g = _shape_ops.transpose(g, perm=(1, 0) + tuple(range(2, g.ndim)))
        return _reshape(g, (b,) + inner + s_shape[1:])


def _as_target(t):
    if isinstance(t, Tensor):
        return t
    return convert_to_tensor(t)


def _check_sources(sources):
    flat = nest.flatten(sources)
    for s in flat:
        if not isinstance(s, Tensor):
            raise ValueError(f"gradient sources must be Tensors or Variables, got "
                             f"{type(s).__name__}: {s!r}.")
    return flat


def _reshape(g, shape):
    return g if tuple(g._value.shape) == shape else _shape_ops.reshape(g, shape=shape)


def _finish(grad, source, mode, batch_shape):
    """Apply TF's rules for unconnected and non-differentiable sources."""
    if source._value.dtype.kind not in "fc":
        return None  # integer sources never have a gradient
    if grad is None and mode is UnconnectedGradients.ZERO:
        return Tensor(np.zeros(batch_shape + source._value.shape, source._value.dtype))
    return grad




def _backward(records, tracked, targets, seeds, sources, batch_ndim):
    """Walk `records` backwards from `targets`; return gradients keyed by id.

    Only sources this tape tracks get gradients, and only tensors that depend
    on one: a forward scan marks them first, so VJPs towards inputs that lead
    nowhere are never computed. The seeds carry `batch_ndim` leading axes (a
    batch of cotangents for the Jacobians), kept in front by every VJP.
    """
    source_ids = {id(s) for s in sources if id(s) in tracked and s._value.dtype.kind in "fc"}
    needed = set(source_ids)
    mark = needed.add
    for _, inputs, out, _ in records:
        for x in inputs:
            if id(x) in needed:
                mark(id(out))
                break
    grads = {}
    for t, seed in zip(targets, seeds):
        key = id(t)
        if key in needed and seed is not None:
            prev = grads.get(key)
            grads[key] = seed if prev is None else add(prev, seed)
    for op, inputs, out, attrs in reversed(records):
        key = id(out)
        if key not in needed:
            continue
        g = grads.get(key) if key in source_ids else grads.pop(key, None)
        if g is None:
            continue
        vjps = op.vjps
        if vjps is None:
            raise LookupError(f"No gradient defined for operation '{op.name}'.")
        batch_shape = g._value.shape[:batch_ndim] if batch_ndim else ()
        if op.joint:
            joint = vjps(g, out, [id(x) in needed for x in inputs], *inputs, **attrs)
        for j, x in enumerate(inputs):
            xk = id(x)
            if xk not in needed:
                continue
            gx = joint[j] if op.joint else vjps[j](g, out, *inputs, **attrs)
            if gx is None:
                continue
            want = batch_shape + x._value.shape
            if gx._value.shape != want:
                if not op.broadcasting:
                    raise AssertionError(f"The VJP of {op.name} for input {j} returned shape "
                                         f"{gx._value.shape}; expected {want}.")
                gx = unbroadcast(gx, shape=x._value.shape, batch_ndim=batch_ndim)
            prev = grads.get(xk)
            grads[xk] = gx if prev is None else add(prev, gx)
    return grads
