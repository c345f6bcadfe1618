"""function.py holds `tapeflow.function`, tapeflow's `tf.function`: it traces the
Python function once per input signature (signature.py's keys, TF's rules)
into a graph (tracing.py) and replays the graph on later calls (executor.py)
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
  the user's line. Values are then right; only the speed differs.
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

import numpy as np

from ..core import nest
from ..core import record as _record
from ..debugging.numerics import check_numerics_enabled
from ..core.tensor import Tensor, Variable, convert_to_tensor
from ..core.tensor_spec import TensorSpec
from ..ops.math import identity as _identity
from ..runtime.settings import user_setting
from . import signature as _sig
from .autograph.conversion import converted_lazily, weakly_bound
from .executor import run_tensors
from .native import Tier
from .tracing import Trace, current_trace, retrace_dry, tracing

__all__ = ["ConcreteFunction", "Function", "function"]

_RETRACE_WARNING_AFTER = 5  # TF's FREQUENT_TRACING_WARNING_THRESHOLD
_EAGER = "eager"  # a concrete key whose trace could not be replayed


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


def _run_eagerly():
    """Whether tf.config.run_functions_eagerly(True) is in effect, or the NaN finder
    (tf.debugging.enable_check_numerics): its checks live in Op.__call__, which a
    replay does not call, so traced functions run eagerly while it is on."""
    return user_setting("run_functions_eagerly") or check_numerics_enabled()


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


class ConcreteFunction:
    """One traced signature: callable with matching arguments; its graphs per shape."""

    def __init__(self, owner, key, general):
        self._function = owner
        self._key = key
        self._general = general
        self._graphs = {}  # concrete key -> Graph or _EAGER
        self._output_specs = None
        # A graph of a signature with None dims whose trace read no argument's
        # shape in Python: it runs for every shape the signature accepts.
        self._any_shape = None

    @property
    def structured_input_signature(self):
        parameters = self._function._parameters
        kinds = {n: p.kind for n, p in parameters.items()} if parameters else {}
        args, kwargs = [], {}
        for name, leaf in self._key:
            if kinds.get(name) == inspect.Parameter.KEYWORD_ONLY:
                kwargs[name] = _sig.spec_of_key(leaf)
            else:
                args.append(_sig.spec_of_key(leaf))
        return tuple(args), kwargs

    @property
    def structured_outputs(self):
        return self._output_specs

    @property
    def inputs(self):
        return [s for s in nest.flatten(list(self.structured_input_signature[0]))
                if isinstance(s, TensorSpec)]

    @property
    def outputs(self):
        return [s for s in nest.flatten(self._output_specs) if isinstance(s, TensorSpec)]

    @property
    def function(self):
        return self._function

    @property
    def function_type(self):
        """TF's FunctionType: str() `(a: TensorSpec(...)) -> TensorSpec(...)`."""
        parameters = self._function._parameters or {}
        graphs = [g for g in self._graphs.values() if g is not _EAGER]
        return _sig.function_type(self._key, {n: p.kind for n, p in parameters.items()},
                                  self._output_specs if self._graphs else _sig.UNTRACED,
                                  graphs[-1].variables if graphs else [])

    def pretty_printed_signature(self, verbose=True):  # noqa: FBT002 -- TF's signature
        return repr(self.function_type) if verbose else str(self.function_type)

    def __repr__(self):
        args, kwargs = self.structured_input_signature
        return f"ConcreteFunction {self._function._name}{args + tuple(kwargs.items())}"

    def __str__(self):
        return f"ConcreteFunction {self.pretty_printed_signature()}"

    @property
    def graph(self):
        """The last graph traced for this signature (`as_graph_def()` lists its nodes);
        ValueError before a TensorSpec signature's first call or when it runs eagerly."""
        graphs = [g for g in self._graphs.values() if g is not _EAGER]
        if not graphs:
            why = "runs eagerly" if self._graphs else "is traced at its first call"
            raise ValueError(f"ConcreteFunction {self._function._name} has no graph: it {why}.")
        graphs[-1].input_names = _sig.tensor_names(self._key)
        return graphs[-1]

    @property
    def inference_fn(self):
        """TF's AtomicFunction: the graph called with the flat tensor arguments."""
        return lambda *tensors: self._call_flat(tensors, TypeError(
            f"{self._function._name}: inference_fn takes the "
            f"{_sig.tensor_count(self._key)} tensor arguments only."))

    def _call_flat(self, tensors, error):
        """A call with the flat signature: the tensor arguments only, in order."""
        if len(tensors) != _sig.tensor_count(self._key):
            raise error
        values = _sig.fill_key(self._key, [convert_to_tensor(t) for t in tensors])
        key = _sig.call_key([n for n, _ in self._key], values)
        if not _sig.matches(self._key, key):
            raise error
        return self._call_bound(values, key, cache_fast=False)

    def __call__(self, *args, **kwargs):
        function = self._function
        try:
            names, values = function._bind(*self._with_frozen(args, kwargs))
        except TypeError as error:
            if kwargs or _run_eagerly():
                raise
            return self._call_flat(args, error)  # TF's flat signature: the tensors only
        key = _sig.call_key(names, values)
        if not _sig.matches(self._key, key):
            raise _sig.mismatch(f"ConcreteFunction {function._name}", self._key, key)
        if _run_eagerly():
            return function._python_function(*args, **kwargs)
        return self._call_bound(values, key, cache_fast=False)

    def _with_frozen(self, args, kwargs):
        """The call's arguments plus the Python values this function was traced
        with for the parameters the call leaves out (TF's concrete functions keep
        them as constants)."""
        parameters = self._function._parameters
        if parameters is None:
            return args, kwargs
        given = set(list(parameters)[:len(args)]) | set(kwargs)
        kwargs = dict(kwargs)
        for name, leaf in self._key:
            if name not in given and leaf[0] == "P" and name in parameters and \
                    parameters[name].kind != inspect.Parameter.POSITIONAL_ONLY:
                kwargs[name] = leaf[2]
        return args, kwargs

    # -- running -------------------------------------------------------------------
    def _call_bound(self, values, key, cache_fast):
        graph = self._graphs.get(key)
        if graph is None:
            if self._any_shape is None:
                return self._trace(values, key, cache_fast)
            graph = self._graphs[key] = self._any_shape
            fast_key = _sig.fast_key(values) if cache_fast else None
            if fast_key is not None:
                self._function._fast[fast_key] = (self, graph)
        if graph is _EAGER:
            return nest.map_structure(_as_output, self._call_python(values))
        return self._run(graph, [t for t in nest.flatten(values) if type(t) is Tensor])

    def _run(self, graph, tensors):
        if _record._recording and _record.current_tapes():
            values = run_tensors(graph, tensors)
            wrap = _same
        else:
            tier = graph.tier
            if tier is None:
                function = self._function
                tier = graph.tier = Tier(graph, function._jit_compile, function._name)
            run = tier.run_keeping if graph.taped else tier.run
            values = run([t._value for t in tensors])
            wrap = _wrap
        structure, slots, leaves = graph.outputs
        flat = [leaf if slot is None else wrap(values[slot]) if leaf is None
                else _wrap(np.copy(_value_of(values[slot])))  # a Variable's value, copied
                for slot, leaf in zip(slots, leaves)]
        return nest.pack_sequence_as(structure, flat) if nest.is_nested(structure) else flat[0]

    def _trace(self, values, key, cache_fast):
        function = self._function
        first = not any(c._graphs for c in function._concrete)
        trace = Trace(function._name, may_create_variables=first)
        # New Tensor objects for the arguments: a closure over a tensor also passed
        # as an argument (or one tensor passed twice) must not read the placeholder.
        values = nest.map_structure(_fresh if _record.current_tapes() else _fresh_unrecorded,
                                    _sig.placeholders(self._key, values))  # (TraceTypes')
        with tracing(trace):
            for leaf in nest.flatten(values):
                if type(leaf) is Tensor:
                    trace.add_input(leaf)
            raw = self._call_python(values)
        if trace.created_variables:  # TF traces it again, refusing new Variables
            retrace_dry(function._name, self._call_python,
                        nest.map_structure(_fresh_unrecorded, values))
        outputs = self._outputs(trace, raw)
        result = nest.map_structure(_as_output, raw)
        if trace.problem is not None:
            self._graphs[key] = _EAGER
            warnings.warn(f"tapeflow.function: {function._name} runs eagerly for this input "
                          f"signature: {trace.problem}. Values are right; only speed is lost "
                          "(see tapeflow.compiler.function's docstring).", stacklevel=4)
            return result
        graph = trace.graph
        graph.outputs = outputs
        graph.prune()
        self._graphs[key] = graph
        if self._general and not trace.shape_dependent:
            self._any_shape = graph
        if self._output_specs is None:
            self._output_specs = nest.map_structure(_spec_of, result)
        fast_key = _sig.fast_key(values) if cache_fast else None
        if fast_key is not None:
            function._fast[fast_key] = (self, graph)
        return result

    def _call_python(self, values):
        parameters = self._function._parameters
        if parameters is None:
            return self._function._traced_function(*values)
        args, kwargs = [], {}
        for (name, p), value in zip(parameters.items(), values):
            if p.kind == p.VAR_POSITIONAL:
                args.extend(value)
            elif p.kind == p.VAR_KEYWORD:
                kwargs.update(value)
            elif p.kind == p.KEYWORD_ONLY:
                kwargs[name] = value
            else:
                args.append(value)
        return self._function._traced_function(*args, **kwargs)

    @staticmethod
    def _outputs(trace, result):
        slots, leaves = [], []
        for leaf in nest.flatten(result):
            if isinstance(leaf, Tensor):
                slot = trace.slot(leaf)
                slots.append(slot)
                # An array that is a Variable's own (the Variable returned) is copied
                # at the end of each call; _COPY marks it.
                leaves.append(_COPY if type(leaf) is Variable else None)
            else:
                slots.append(None)
                leaves.append(_as_output(leaf))
        return result, slots, leaves


_COPY = object()


def _value_of(value):
    return value._value if isinstance(value, Tensor) else value


def _as_output(value):
    """Return values become Tensors, as TF's (numbers, bools, arrays); None and
    other objects are returned as they are."""
    if isinstance(value, (bool, int, float, complex, np.ndarray, np.generic)):
        return convert_to_tensor(value)
    if type(value) is Variable:  # a Variable returned: its value now, as TF's read
        return _wrap(_value_of(value).copy())
    return value


def _spec_of(value):
    return TensorSpec(value.shape, value.dtype) if isinstance(value, Tensor) else value


_new_tensor = object.__new__


def _wrap(array):
    tensor = _new_tensor(Tensor)
    tensor._value = array
    return tensor


def _same(value):
    return value


def _fresh(value):
    """A new Tensor for an argument, through an identity op, so that the tapes
    recording around the call see the trace's ops depend on the argument."""
    return _identity(value) if type(value) is Tensor else value


def _fresh_unrecorded(value):
    return _wrap(value._value) if type(value) is Tensor else value
