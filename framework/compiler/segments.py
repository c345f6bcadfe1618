"""segments.py compiles the lowerable parts of a graph that does not lower
whole (a matmul, a convolution or an optimizer without a lowering in it).

`split` cuts the graph's top-level nodes into maximal runs, in program order,
of nodes that lower one by one (lowering.py); each run of two nodes or more
(one node fused gains nothing), or an optimizer's update (one node, an update
per Variable), becomes a small graph of its own, generated as
one Numba function by codegen.py: its inputs are the slots it reads from
outside, its outputs the slots read after it or returned. The result is a
copy of the graph in which each run is one SEGMENT node; the executor's
run_arrays replays it, calling a Segment as it calls a loop (`run`), and the
nodes that do not lower as today.

A Segment keeps native.py's rules: its first run checks the compiled code
on copies of the Variables it writes against the executor's replay of its
nodes, and only code that agrees, and that one timed call finds no slower
than the replay (whose ops may run threaded or fused kernels), is trusted;
otherwise, or when Numba cannot compile it, its nodes are replayed. An error raised by
trusted code is raised again by the replay, so the message is the executor's.
"""

import threading
import time

import numpy as np

from . import codegen
from .executor import run_arrays
from .graph import CALL, LOOP, OP, Graph, reads, writes
from .lowering import Unlowerable, effect_lowering, lower_optimizer_apply

__all__ = ["SEGMENT", "Segment", "split"]

SEGMENT = 4  # (SEGMENT, segment, in_slots, out_slots): a run of nodes compiled as one
MIN_NODES = 2
_CHECK, _TRUSTED, _REPLAYED = "check", "trusted", "replayed"


class Segment:
    """One run of nodes as a Numba function; `graph` is the run as a graph of its own."""

    __slots__ = ("agree", "compiled", "due", "graph", "lock", "module", "on_compile",
                 "out_slots", "pays", "reason", "source", "state")

    def __init__(self, graph, source, module, agree, on_compile, pays=None):
        self.graph = graph
        self.source = source
        self.module = module
        self.agree = agree
        self.on_compile = on_compile
        self.pays = pays
        self.out_slots = graph.outputs[1]
        self.compiled = self.reason = None
        self.state = _CHECK
        # Code in the disk cache is checked at once; other code once replaying it has
        # cost what compiling it would (`pays`): a ConvLSTM's step holds a dozen
        # segments of 5-D arrays, 10 s or more each to compile cold.
        self.due = pays is None or module.compiled_already()
        self.lock = threading.Lock()

    @property
    def op_names(self):
        return [node[1].name if node[0] == OP else getattr(node[1], "__qualname__", "call")
                for node in self.graph.nodes]

    def run(self, runner, inputs, truth):
        """The output arrays (the executor's loop protocol: `runner` and `truth` unused)."""
        if self.state is _TRUSTED:
            variables = [v._value for v in self.source.variables]
            if not runs_on(self.source, inputs, variables):
                return self._replay(inputs)
            try:
                results = self.compiled(*arguments(self.source, inputs, variables))
            except Exception:  # the replay raises the executor's own error for it
                return self._replay(inputs)
            return [np.asarray(value, dtype) if scalar else value
                    for (_, dtype, scalar), value in zip(self.source.outputs, results)]
        if self.state is _CHECK:
            if not self.due:
                start = time.perf_counter()
                outputs = self._replay(inputs)
                self.due = self.pays(self.module.stem, time.perf_counter() - start)
                return outputs  # (checked at the next call: an update must run once)
            with self.lock:
                if self.state is _CHECK:
                    return self._check(inputs)
            return self.run(runner, inputs, truth)
        return self._replay(inputs)

    def _replay(self, inputs):
        values = run_arrays(self.graph, inputs)
        return [values[slot] for slot in self.out_slots]

    def _check(self, inputs):
        source = self.source
        if not runs_on(source, inputs, [v._value for v in source.variables]):
            return self._replay(inputs)  # checked at a later call, on C-ordered arrays
        copies = [np.array(v._value, copy=True) for v in source.variables]
        cached = self.module.compiled_already()
        try:
            start = time.perf_counter()
            self.compiled = self.module.function()
            mine = self.compiled(*arguments(source, inputs, copies))
            if not cached:
                self.on_compile(time.perf_counter() - start)
        except Exception as error:  # Numba's typing error, or an op's error the replay raises
            self.state, self.reason = _REPLAYED, f"{type(error).__name__}: {error}"
            return self._replay(inputs)
        start = time.perf_counter()
        outputs = self._replay(inputs)
        replayed = time.perf_counter() - start
        finals = [v._value for v in source.variables]
        mine = [np.asarray(value, dtype) if scalar else value
                for (_, dtype, scalar), value in zip(source.outputs, mine)]
        if not all(self.agree(a, b) for a, b in zip(mine + copies, outputs + finals)):
            self.state, self.reason = _REPLAYED, "its compiled code disagreed with the executor"
            return outputs
        compiled = self._time_compiled(inputs)
        if compiled > replayed:  # the replay's own kernels (threaded, fused) win here
            self.state, self.reason = _REPLAYED, (
                f"its compiled code was slower than the replay ({compiled * 1e6:.0f} us "
                f"against {replayed * 1e6:.0f} us)")
        else:
            self.state = _TRUSTED
        return outputs

    def _time_compiled(self, inputs):
        """Seconds of one call of the compiled code, on copies of the Variables."""
        copies = [np.array(v._value, copy=True) for v in self.source.variables]
        start = time.perf_counter()
        self.compiled(*arguments(self.source, inputs, copies))
        return time.perf_counter() - start


def runs_on(source, arrays, variables):
    """Whether `source`'s code may run on these arrays: on any, unless its sums add
    in NumPy's order for C-contiguous arrays only (lowering.ORDERED_SUMS: NumPy adds
    a view in another order), when each must be C-contiguous, else the call replays."""
    if not source.ordered:
        return True
    return all(a.flags.c_contiguous for a in arrays if isinstance(a, np.ndarray)) and \
        all(a.flags.c_contiguous for a in variables)


def arguments(source, arrays, variables):
    """The generated function's arguments: inputs (0-d ones as scalars), Variables'
    arrays (0-d ones as 1-element views), constants, per-call scalars."""
    args = [a[()] if scalar else a for a, scalar in zip(arrays, source.inputs)]
    args += [a.reshape(1) if a.ndim == 0 else a for a in variables]
    args += source.constants
    args += [f() for f in source.per_call]
    return args


def split(graph, probe, module, agree, on_compile, pays=None, exact=True):
    """A copy of `graph` with each run of lowerable nodes as one SEGMENT node, or
    None when no run has MIN_NODES nodes. `module(source)` gives the file of a
    Source (native._Module), `agree(mine, theirs)` the check's comparison,
    `on_compile(seconds)` is told each compile's time, `pays(stem, seconds)` each
    replay's of a segment whose code is not compiled yet, and says whether
    compiling it pays now (None: compile at the first run, as jit_compile=True);
    `exact`: its code must give the executor's bits (codegen.generate)."""
    nodes = graph.nodes
    last_read = {}
    for index, node in enumerate(nodes):
        for slot in reads(node):
            last_read[slot] = index
    last_read.update((slot, len(nodes)) for slot in graph.outputs[1] if slot is not None)
    runs, current = [], []
    for index, node in enumerate(nodes):
        if _lowers(graph, probe, node, exact):
            current.append(index)
            continue
        runs.append(current)
        current = []
    runs.append(current)
    runs = [run for run in runs if len(run) >= MIN_NODES or run and _is_update(nodes[run[0]])]
    segments = {}
    for run in runs:
        sub = _subgraph(graph, [nodes[i] for i in run],
                        lambda slot, end=run[-1]: last_read.get(slot, -1) > end)
        try:
            source = codegen.generate(sub, _probe_for(sub, graph, probe), name="graph_function",
                                      exact=exact)
        except Unlowerable:
            continue  # nodes that lower alone but not together: replayed
        segment = Segment(sub, source, module(source), agree, on_compile, pays)
        segments[run[0]] = (run, segment)
    if not segments:
        return None
    partial = Graph()
    partial.size, partial.constants, partial.inputs = graph.size, graph.constants, graph.inputs
    partial.variables, partial.outputs = graph.variables, graph.outputs
    index = 0
    while index < len(nodes):
        if index in segments:
            run, segment = segments[index]
            partial.nodes.append((SEGMENT, segment, segment.graph.inputs, segment.out_slots))
            index = run[-1] + 1
        else:
            partial.nodes.append(nodes[index])
            index += 1
    return partial


def segments_of(partial):
    """The Segments of a graph `split` returned, in program order."""
    return [node[1] for node in partial.nodes if node[0] == SEGMENT]


def _is_update(node):
    """An optimizer's update: one node, but an update per Variable (worth a segment)."""
    return node[0] == CALL and effect_lowering(node[1]) is lower_optimizer_apply


def _lowers(graph, probe, node, exact):
    if node[0] not in (OP, CALL, LOOP):  # a branch choice never lowers
        return False
    sub = _subgraph(graph, [node], lambda slot: True)
    try:
        codegen.generate(sub, _probe_for(sub, graph, probe), exact=exact)
    except Unlowerable:
        return False
    return True


def _subgraph(graph, nodes, needed_later):
    """`nodes` as a graph of their own over the same slot numbers."""
    variables = dict(graph.variables)
    constants = dict((slot, value) for slot, value in graph.constants)
    written, inputs, read = set(), [], set()
    sub = Graph()
    sub.size = graph.size
    for node in nodes:
        for slot in reads(node):
            if slot in written or slot in read:
                continue
            read.add(slot)
            if slot in variables:
                sub.variables.append((slot, variables[slot]))
            elif slot in constants:
                sub.constants.append((slot, constants[slot]))
            else:
                inputs.append(slot)
        written.update(writes(node))
    sub.inputs = inputs
    sub.nodes = list(nodes)
    outputs = [slot for node in nodes for slot in writes(node) if needed_later(slot)]
    sub.outputs = (None, outputs, [None] * len(outputs))
    return sub


def _probe_for(sub, graph, probe):
    """The parent's probe, with the subgraph's slots typed as the parent's."""
    view = codegen.Probe()
    view.types = dict(probe.types)
    view.types[id(sub)] = probe.types.get(id(graph), {})
    return view
