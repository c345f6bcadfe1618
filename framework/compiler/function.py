"""function.py holds `tapeflow.function`, tapeflow's `tf.function`: it traces the
Python function once per input signature (signature.py's keys, TF's rules;
each a ConcreteFunction, concrete.py) into a graph (tracing.py) and replays the
graph on later calls (executor.py)
without running the Python function, so Python side effects happen while
tracing only, as in TF; `tf.print`, assignments and random draws run at every
call. `tf.config.run_functions_eagerly(True)` runs the Python function instead.

Where tapeflow differs from TF, and why:
- It traces with the call's real values, not symbolic tensors: the first call
  of a signature runs eagerly while recording (so it prints values, not
  `Tensor("x:0")`). A signature with None dims (input_signature,
  reduce_retracing) is traced once per concrete shape it meets (counted once,
  as TF; Python side effects run at each of these traces), because shapes read
  in Python are baked into a graph.
- What a graph cannot replay (a traced tensor's value used in Python: a
  Python `if` on a tensor, `.numpy()`, `float()`, NumPy on it, public
  functions computing on values outside an op that tracing.py does not
  replay whole; a tf.cond whose branch not taken has an effect) makes that
  signature run eagerly, with one warning naming the function, the reason and
  the user's line. Values are then right; only the speed differs. A profiler
  (cProfile) active while tracing makes that call run eagerly; the next call,
  profiled or not, traces again.
- AutoGraph (autograph=True, TF's default; compiler/autograph/) turns `if`,
  `while` and `for` on a Tensor condition or iterable, with break, continue and
  return, into tf.cond/tf.while_loop before tracing: one branch node
  (branches.py) or loop node (loops.py) each, so a 1000-step tf.range loop is
  traced once. The user's functions it calls are converted too, as in TF.
- Running the first call is the trace, so a tensor leaked from it (stored in
  a global) stays a usable eager tensor, and an op whose result is unused
  still raises there (TF prunes it before running). A first trace that
  created Variables runs the function again, as TF traces it twice: on values,
  dry (stopped at its first effect), so only Variables created before any
  assignment, tf.print or optimizer step raise TF's ValueError at once.
- A Variable passed as an argument is keyed by identity (another Variable
  retraces); TF keys it by shape and dtype.
- `get_concrete_function` with TensorSpecs traces at the first call, not at once.
"""

import collections
import functools
import inspect
import warnings
import weakref

from ..core import nest
from ..core.tensor_spec import TensorSpec
from . import signature as _sig
from .autograph.conversion import converted_lazily, weakly_bound
from .concrete import ConcreteFunction, _run_eagerly
from .tracing import current_trace

__all__ = ["ConcreteFunction", "Function", "function"]

_RETRACE_WARNING_AFTER = 5  # TF's FREQUENT_TRACING_WARNING_THRESHOLD


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_compile=None, **unused_options):
    """Trace `func` into a graph per input signature, as `tf.function` does.

    >>> @tf.function
    ... def f(x):
    ...     return x * x

    `jit_compile`: True runs each traced graph as one generated Numba function
    from its third call (compiler/native.py: probed, then checked against the
    executor, then trusted), warning once when a graph cannot be lowered
    (TF raises for XLA; tapeflow keeps the replay, whose values are the same);
    False never compiles; None (TF's default) compiles a graph once replaying
    it has cost what a compile costs, or at once when Numba's disk cache already
    holds its code. `experimental_compile` is the old name of `jit_compile`.
    """
    def decorate(fn):
        return Function(fn, input_signature=input_signature, reduce_retracing=reduce_retracing,
                        jit_compile=experimental_compile if jit_compile is None
                        else jit_compile, autograph=autograph)

    return decorate if func is None else decorate(func)


class Function:
    """What `tf.function` returns: a callable with a cache of traces."""

    def __init__(self, python_function, input_signature=None, reduce_retracing=False,
                 jit_compile=None, name=None, autograph=True):
        self._python_function = python_function
        self._traced_function = converted_lazily(python_function, autograph)  # what traces run
        self._name = name or getattr(python_function, "__name__", type(python_function).__name__)
        self._input_signature = None if input_signature is None else tuple(input_signature)
        self._reduce_retracing = reduce_retracing
        self._jit_compile = jit_compile
        self._concrete = []  # ConcreteFunction per traced signature, oldest first
        self._exact = {}  # signature key -> ConcreteFunction
        self._fast = {}  # (shape, dtype) per positional Tensor argument -> (concrete, graph)
        self._recent = collections.deque(maxlen=_RETRACE_WARNING_AFTER)
        self._warned_at = 0
        self._last_key = None
        self._bound = weakref.WeakKeyDictionary()
        try:
            self._parameters = inspect.signature(python_function).parameters
        except (TypeError, ValueError):
            self._parameters = None
        functools.update_wrapper(self, python_function, updated=())

    @property
    def python_function(self):
        """The Python function; for a method, bound to its instance (made on each
        access: the Function does not keep its instance alive)."""
        return getattr(self._python_function, "bound_method", lambda: self._python_function)()

    @property
    def input_signature(self):
        return self._input_signature

    def experimental_get_tracing_count(self):
        """How many signatures were traced, as TF counts them."""
        return len(self._concrete)

    def pretty_printed_concrete_signatures(self, verbose=True):
        """Each traced signature's parameters, output and captures, oldest first."""
        return "\n\n".join(c.pretty_printed_signature(verbose) for c in self._concrete
                             if c._output_specs is not None)

    def __get__(self, instance, owner):
        """A method: one Function per instance, as TF's (its traces are its own)."""
        if instance is None:
            return self
        try:
            bound = self._bound.get(instance)
        except TypeError:
            bound = None
        if bound is None:
            bound = Function(weakly_bound(self._python_function, instance, owner),
                             self._input_signature, self._reduce_retracing, self._jit_compile,
                             name=self._name)
            bound._traced_function = weakly_bound(self._traced_function, instance, owner)
            try:
                self._bound[instance] = bound
            except TypeError:
                pass
        return bound

    def __repr__(self):
        return f"<tapeflow.function {self._name} (traced {len(self._concrete)} times)>"

    # -- calls -------------------------------------------------------------------
    def __call__(self, *args, **kwargs):
        if not kwargs and self._input_signature is None:
            fast = self._fast.get(_sig.fast_key(args))
            if fast is not None and not _run_eagerly() and current_trace() is None:
                self._recent.append(False)
                return fast[0]._run(fast[1], args)
        if _run_eagerly() or current_trace() is not None:  # inside a trace: inlined
            return (self._python_function if _run_eagerly() else self._traced_function)(
                *args, **kwargs)
        names, values = self._bind(args, kwargs)
        key = _sig.call_key(names, values)
        concrete = self._lookup(key)
        traced = concrete is None
        if traced:
            concrete = self._add_signature(key, names)
        self._recent.append(traced)
        return concrete._call_bound(values, key, cache_fast=not kwargs)

    def _bind(self, args, kwargs):
        return _sig.bind(self._name, self._parameters, self._input_signature, args, kwargs)

    def _lookup(self, key):
        concrete = self._exact.get(key)
        if concrete is not None:
            return concrete
        candidates = [c for c in self._concrete if c._general and _sig.matches(c._key, key)]
        return candidates[-1] if candidates else None

    def _add_signature(self, key, names):
        general = False
        if self._input_signature is not None:
            n = len(self._input_signature)
            key = tuple((name, _sig.leaf_key(spec)) for name, spec in
                        zip(names[:n], self._input_signature)) + key[n:]
            general = True
        elif self._reduce_retracing:
            for other in reversed(self._concrete):
                relaxed = _sig.relax(other._key, key)
                if relaxed is not None and relaxed != key:
                    key, general = relaxed, True
                    break
        concrete = ConcreteFunction(self, key, general or _sig.is_general(key))
        self._concrete.append(concrete)
        self._exact[key] = concrete
        self._warn_if_retracing(key)
        self._last_key = key
        return concrete

    def _warn_if_retracing(self, key):
        count = len(self._concrete)
        recent = sum(self._recent) + 1
        if count >= _RETRACE_WARNING_AFTER and recent >= _RETRACE_WARNING_AFTER - 1 \
                and count >= self._warned_at + _RETRACE_WARNING_AFTER:
            self._warned_at = count
            change = _sig.describe_change(self._last_key, key)
            warnings.warn(
                f"{recent} out of the last {len(self._recent) + 1} calls to {self._name} "
                f"triggered tf.function retracing ({count} traces so far). The last retrace: "
                f"{change or 'a new signature'}. Retracing is expensive: pass tensors rather "
                "than Python numbers, give an input_signature or use reduce_retracing=True.",
                stacklevel=4)

    def get_concrete_function(self, *args, **kwargs):
        """The ConcreteFunction for these arguments (Tensors or TensorSpecs), traced
        now when they are tensors (at its first call when they are specs)."""
        if not args and not kwargs and self._input_signature is not None:
            args = self._input_signature
        names, values = self._bind(args, kwargs)
        key = _sig.call_key(names, values)
        concrete = self._lookup(key) or self._add_signature(key, names)
        flat = nest.flatten(values)
        if not any(isinstance(v, TensorSpec) for v in flat) and not concrete._graphs:
            concrete._call_bound(values, _sig.call_key(names, values), cache_fast=False)
        return concrete
