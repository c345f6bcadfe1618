"""concrete.py holds `ConcreteFunction`, one traced input signature of a
`tapeflow.function` (function.py): its trace (tracing.py), the graphs it keeps
per concrete shape, and their replay (executor.py, native.py's tiers); TF's
ConcreteFunction API (graph, inputs, outputs, structured signatures) on top.
A signature whose trace cannot be replayed runs the Python function eagerly
(function.py's docstring says when and why)."""

import inspect
import warnings

import numpy as np

from ..core import nest
from ..core import record as _record
from ..core.tensor import Tensor, Variable, convert_to_tensor
from ..core.tensor_spec import TensorSpec
from ..debugging.numerics import check_numerics_enabled
from ..ops.math import identity as _identity
from ..runtime.settings import user_setting
from . import signature as _sig
from .executor import run_tensors
from .native import Tier
from .tracing import Trace, retrace_dry, tracing

__all__ = ["ConcreteFunction"]

_EAGER = "eager"  # a concrete key whose trace could not be replayed


def _run_eagerly():
    """Whether tf.config.run_functions_eagerly(True) is in effect, or the NaN finder
    (tf.debugging.enable_check_numerics): its checks live in Op.__call__, which a
    replay does not call, so traced functions run eagerly while it is on."""
    return user_setting("run_functions_eagerly") or check_numerics_enabled()


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
            if not trace.passing:  # (a call under a profiler runs eagerly; the next traces)
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
