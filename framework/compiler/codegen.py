"""codegen.py writes a traced Graph (graph.py) as the source of one Python
function for Numba: straight-line code for the ops, `while` loops for LOOP
nodes, in-place writes for assignments and optimizer updates (lowering.py
says how each node is written). native.py compiles and runs it.

The slots' dtypes and shapes come from a probe (`Probe`, a real run of the
graph through executor.run_arrays' observer). A 0-d slot is a scalar in the
generated code, wrapped in its dtype's constructor so that Numba's integer
and float promotion rules never widen it (int32 + int32 stays int32, as in
NumPy); a 0-d Variable is passed as a 1-element view of its array, so the
code writes through to it. Constants and per-call scalars (a learning rate)
are parameters, never literals, so the source depends only on the graph's
structure and dtypes, and one cached compilation serves every process.
"""

import numpy as np

from .graph import CALL, LOOP, OP, SlotRef
from .lowering import (EXPRESSIONS, FLOAT_ONLY, INEXACT, ORDERED_SUMS, Unlowerable,
                       effect_lowering, reduction_expression, unbroadcast_expression)

__all__ = ["Probe", "Source", "generate"]

_NUMERIC_KINDS = "biuf"
MAX_NODES = 2000  # Numba compiles ~1000 scalar nodes a second: more would not pay


class Probe:
    """The (dtype, shape) of every slot of every graph it observed; a slot whose
    type changed between runs (a loop body's iterations) is recorded as None."""

    def __init__(self):
        self.types = {}  # id(graph) -> {slot: (dtype, shape) or None}

    def __call__(self, graph, values):
        seen = self.types.setdefault(id(graph), {})
        for slot, value in enumerate(values):
            if value is None:
                continue
            kind = (value.dtype, value.shape) if hasattr(value, "dtype") else None
            if slot in seen and seen[slot] != kind:
                kind = None
            seen[slot] = kind


class Source:
    """The generated function: its text, and what its parameters are filled from."""

    def __init__(self, text, inputs, variables, constants, per_call, outputs):
        self.text = text
        self.inputs = inputs  # per top-level input slot: whether it is passed as a scalar
        self.variables = variables  # the Variables passed, in order
        self.constants = constants  # the constant values passed, in order
        self.per_call = per_call  # functions giving a scalar at each call
        self.outputs = outputs  # (slot, dtype, scalar) per returned value
        # whether its sums add in NumPy's order only for C-contiguous arrays (lowering.py)
        self.ordered = any(marker in text for marker in ORDERED_SUMS)


def generate(graph, probe, name="graph_function", exact=True):
    """The Source of `graph` as a Numba function, or raise Unlowerable. `exact`:
    its code must give the executor's bits (native.py's check), so that what no
    generated loop can repeat is not lowered (a bias gradient's sum on BLAS)."""
    if _size(graph) > MAX_NODES:
        raise Unlowerable(f"more than {MAX_NODES} nodes (Numba's compile time grows with the "
                          "code; a Python loop over a constant unrolls, a tf.range loop does not)")
    emitter = _Emitter(probe, exact)
    params = [f"a{i}" for i in range(len(graph.inputs))]
    names = emitter.graph(graph, params)
    structure, slots, leaves = graph.outputs
    outputs, returned = [], []
    for slot in slots:
        if slot is None:
            continue
        dtype, shape = emitter.type_of(graph, slot)
        outputs.append((slot, dtype, shape == ()))
        returned.append(names[slot])
    for reads in emitter.per_call_reads:
        if reads is not None and id(reads) in emitter.assigned:
            raise Unlowerable("a learning rate assigned inside the function")
    header = params + [n for n, _ in emitter.variable_params] + \
        [n for n, _ in emitter.constants] + [n for n, _ in emitter.per_call_functions]
    body = emitter.lines + ["    return (" + "".join(r + ", " for r in returned) + ")"]
    text = "\n".join([f"def {name}({', '.join(header)}):"] + body) + "\n"
    inputs = [emitter.type_of(graph, slot)[1] == () for slot in graph.inputs]
    return Source(text, inputs, [v for _, v in emitter.variable_params],
                  [c for _, c in emitter.constants], [f for _, f in emitter.per_call_functions], outputs)


def _size(graph):
    """Nodes in `graph` and the graphs nested in its loops."""
    count = 0
    for node in graph.nodes:
        count += 1
        if node[0] == LOOP:
            count += _size(node[1].cond) + _size(node[1].body)
    return count


class _Emitter:
    def __init__(self, probe, exact=True):
        self.probe = probe
        self.exact = exact
        self.lines = []
        self.depth = 1
        self.graph_count = 0
        self.variable_params = []  # (name, Variable)
        self.variable_names = {}  # id(Variable) -> name
        self.constants = []  # (name, value)
        self.per_call_functions = []  # (name, function)
        self.per_call_reads = []  # the Variable each per-call scalar reads, or None
        self.assigned = set()  # ids of Variables the code writes
        self.scopes = []  # (graph, names, prefix) of the graphs being written, innermost last
        self.locals = {}  # (prefix, slot) -> its local's name, numbered in order of writing

    # -- helpers the lowerings call ---------------------------------------------
    def line(self, text):
        self.lines.append("    " * self.depth + text)

    @staticmethod
    def ctor(dtype):
        dtype = np.dtype(dtype)
        return "np.bool_" if dtype.kind == "b" else f"np.{dtype.name}"

    def type_of(self, graph, slot):
        kind = self.probe.types.get(id(graph), {}).get(slot)
        if kind is None:
            raise Unlowerable("a value whose dtype or shape changes between runs, or a slot "
                              "the probe never saw")
        dtype, shape = kind
        if dtype.kind not in _NUMERIC_KINDS:
            raise Unlowerable(f"a {dtype} value")
        return kind

    def is_slot(self, leaf):
        return type(leaf) is SlotRef

    def variable_of(self, leaf):
        return leaf.variable if type(leaf) is SlotRef else None

    def dtype_of(self, leaf):
        return self.type_of(self.scopes[-1][0], leaf.slot)[0]

    def variable(self, variable, write=False):
        """The parameter holding `variable`'s array (a 1-element view when 0-d);
        `write`: the caller writes to it."""
        name = self.variable_names.get(id(variable))
        if name is None:
            if variable._value.dtype.kind not in _NUMERIC_KINDS:
                raise Unlowerable(f"a {variable._value.dtype} Variable")
            name = self.variable_names[id(variable)] = f"v{len(self.variable_params)}"
            self.variable_params.append((name, variable))
        if write:
            self.assigned.add(id(variable))
        return name

    def constant(self, value):
        name = f"c{len(self.constants)}"
        self.constants.append((name, value))
        return name

    def scalar_constant(self, name):
        """The value of `name` when it is a 0-d constant parameter, else None (in a
        loop's body too: a captured constant keeps its name)."""
        for constant, value in self.constants:
            if constant == name:
                value = np.asarray(value)
                return value[()] if value.shape == () else None
        return None

    def per_call(self, function, reads=None):
        name = f"p{len(self.per_call_functions)}"
        self.per_call_functions.append((name, function))
        self.per_call_reads.append(reads)
        return name

    def value(self, leaf, dtype=None):
        """The expression for a template leaf: a slot's name, or a typed constant."""
        if type(leaf) is SlotRef:
            return self.scopes[-1][1][leaf.slot]
        if isinstance(leaf, (bool, int, float, np.generic, np.ndarray)) and dtype is not None:
            value = np.asarray(leaf, dtype=dtype)
            return self.constant(value[()] if value.ndim == 0 else value)
        raise Unlowerable(f"an argument {type(leaf).__name__} that is not a tensor or number")

    def local(self, prefix, slot):
        """The local holding `slot` of the graph written under `prefix`: numbered in
        the order the code writes them, not by slot, so that the same computation
        traced at other slots (a layer called at each step of a loop) is the same
        text, whose compiled module the disk cache then has already."""
        name = self.locals.get((prefix, slot))
        if name is None:
            name = self.locals[(prefix, slot)] = f"{prefix}_{len(self.locals)}"
        return name

    def bind(self, slot, expression, convert=False):
        graph, names, prefix = self.scopes[-1]
        dtype, shape = self.type_of(graph, slot)
        name = self.local(prefix, slot)
        if shape == ():
            self.line(f"{name} = {self.ctor(dtype)}({expression})")
        elif convert:
            self.line(f"{name} = ({expression}).astype({self.ctor(dtype)})")
        else:
            self.line(f"{name} = {expression}")
        names[slot] = name

    def refresh_variables(self):
        """After a write, the 0-d Variables' values are read again (arrays alias)."""
        for graph, names, prefix in self.scopes:
            self._read_variables(graph, names, prefix)

    # -- graphs -------------------------------------------------------------------
    def graph(self, graph, input_names):
        prefix = f"g{self.graph_count}"
        self.graph_count += 1
        names = {}
        for slot, name in zip(graph.inputs, input_names):
            names[slot] = name
            self.type_of(graph, slot)
        for slot, value in graph.constants:
            dtype, shape = self.type_of(graph, slot)
            names[slot] = self.constant(np.asarray(value)[()] if shape == () else value)
        self.scopes.append((graph, names, prefix))
        self._read_variables(graph, names, prefix)
        for node in graph.nodes:
            if node[0] == OP:
                self._op(graph, node)
            elif node[0] == CALL:
                lowering = effect_lowering(node[1])
                if lowering is None:
                    raise Unlowerable(f"the call {getattr(node[1], '__qualname__', node[1])}")
                args, kwargs = node[5]
                lowering(self, node[1], args, kwargs, node[4])
            elif node[0] == LOOP:
                self._loop(node)
            else:
                raise Unlowerable("a tf.cond / tf.case / tf.switch_case")
        self.scopes.pop()
        return names

    def _read_variables(self, graph, names, prefix):
        for slot, variable in graph.variables:
            name = self.variable(variable)
            if variable._value.ndim == 0:
                names[slot] = self.local(prefix, slot)
                self.line(f"{names[slot]} = {name}[0]")
            else:
                names[slot] = name

    def _op(self, graph, node):
        _, op, slots, attrs, out_slot, _ = node
        dtype, shape = self.type_of(graph, out_slot)
        names = self.scopes[-1][1]
        arguments = [names[s] for s in slots]
        scalars = [self.scalar_constant(name) for name in arguments]
        if scalars and all(value is not None for value in scalars) and shape == ():
            try:  # folded with the executor's own op (a gradient's exponent, 2.0 - 1)
                value = op.forward(*[np.asarray(v) for v in scalars], **attrs)
            except Exception:  # noqa: BLE001 -- the op's own error: generated as it is
                value = None
            if isinstance(value, (np.ndarray, np.generic)) and np.shape(value) == ():
                names[out_slot] = self.constant(np.asarray(value)[()])
                return
        kinds = [self.type_of(graph, s) for s in slots]
        template = EXPRESSIONS.get(op.name)
        if template is not None and not attrs:
            if op.name in FLOAT_ONLY and dtype.kind != "f":
                raise Unlowerable(f"{op.name} on {dtype}")
            if op.name in INEXACT and self.exact and dtype.kind in "fc":
                template = EXACT_POWERS.get(_exponent(scalars, dtype)) if op.name == "pow" \
                    else None
                if template is None:
                    raise Unlowerable(f"{op.name} where the code must give the executor's "
                                      "bits (Numba's and NumPy's round differently)")
            expression = template.format(*arguments, t=self.ctor(dtype))
        elif op.name == "unbroadcast":
            expression = unbroadcast_expression(arguments[0], attrs, kinds[0][1], dtype,
                                                self.exact)
        else:
            expression = reduction_expression(op.name, arguments[0], attrs, len(kinds[0][1]),
                                              kinds[0][0]) \
                if len(slots) == 1 and kinds[0][1] != () else None
        if expression is None:
            raise Unlowerable(f"the op {op.name}" + (f" with {attrs}" if attrs else ""))
        if op.view and shape != ():
            expression = f"({expression}).copy()"
        self.bind(out_slot, expression)

    def _loop(self, node):
        _, loop, in_slots, out_slots = node
        graph, names, prefix = self.scopes[-1]
        n, c = loop.count, loop.count + loop.cond_captures
        carried = []
        for i, slot in enumerate(in_slots[:n]):
            dtype, shape = self.type_of(graph, slot)
            body_kind = self.type_of(loop.body, loop.body_outs[i])
            if body_kind != (dtype, shape):
                raise Unlowerable("a loop variable whose dtype or shape changes")
            name = f"{prefix}_loop{len(self.lines)}_{i}"
            self.line(f"{name} = {names[slot]}")
            carried.append(name)
        counter = None
        if loop.limit is not None:
            counter = f"{prefix}_count{len(self.lines)}"
            self.line(f"{counter} = 0")
        self.line("while True:")
        self.depth += 1
        if counter is not None:
            self.line(f"if {counter} >= {int(loop.limit)}:")
            self.line("    break")
        if loop.cond_slot is None:
            if not loop.cond_constant:
                self.line("break")
        else:
            cond_names = self.graph(loop.cond, carried + [names[s] for s in in_slots[n:c]])
            self.line(f"if not {cond_names[loop.cond_slot]}:")
            self.line("    break")
        body_names = self.graph(loop.body, carried + [names[s] for s in in_slots[c:]])
        following = [body_names[s] for s in loop.body_outs]
        if carried:
            self.line(", ".join(carried) + " = " + ", ".join(following))
        if counter is not None:
            self.line(f"{counter} += 1")
        self.depth -= 1
        for slot, name in zip(out_slots, carried):
            names[slot] = name
        self.refresh_variables()


# x ** e where NumPy takes a short way for e (its fast_scalar_power), whose bits
# generated code gives too; any other exponent is lowered only under jit_compile=True.
EXACT_POWERS = {2.0: "{0} * {0}", 1.0: "{0} * {t}(1)", 0.5: "np.sqrt({0})",
                -1.0: "{t}(1) / {0}"}


def _exponent(scalars, dtype):
    """A pow's exponent when it is a 0-d constant of `dtype` (NumPy's short ways
    are for floats of the base's dtype), else None."""
    if len(scalars) != 2 or scalars[1] is None or np.asarray(scalars[1]).dtype != dtype:
        return None
    return float(scalars[1])
