"""graph.py holds what a trace records: a flat list of nodes over numbered
slots (one slot per value), in program order. The recorder is tracing.py, the
runners executor.py; this module only stores nodes and prunes dead ones.

A slot holds an ndarray while the graph runs. Slots are filled from the call's
tensor arguments (`inputs`), from Variables read by reference when the call
starts (`variables`: so assignments and optimizer updates between calls are
seen), from constants captured at trace time (`constants`), or by nodes.
"""

from ..core import nest

__all__ = ["CALL", "OP", "Graph", "GraphDef", "NodeDef", "SlotRef", "reads", "writes"]

OP = 0  # (OP, op, input_slots, attrs, out_slot, copy_views)
# (CALL, function, fill_args, fill_kwargs, outputs, template): an effect, run whole;
# fill_* build its arguments from the slots (executor.filler), outputs are (leaf index,
# slot) pairs, template is [args, kwargs] with SlotRefs (what lowering.py reads)
CALL = 1
# (LOOP, loop, in_slots, out_slots): a tf.while_loop (control_flow.Loop: its condition's
# and body's graphs), run until the condition is False
LOOP = 2
# (SWITCH, switch, in_slots, out_slots): tf.cond/case/switch_case (branches.Switch)
SWITCH = 3


class SlotRef:
    """Where a Tensor stood in an effect's arguments: the value of slot `slot`;
    `variable` is the Variable itself when the value is one (the effect may assign it)."""

    __slots__ = ("slot", "variable")

    def __init__(self, slot, variable=None):
        self.slot = slot
        self.variable = variable


class Graph:
    """One trace: slots, nodes, and where the result comes from."""

    def __init__(self):
        self.size = 0  # number of slots
        self.constants = []  # (slot, ndarray) captured at trace time
        self.inputs = []  # slot of each flat tensor argument, in order
        self.variables = []  # (slot, Variable) read by reference at every call
        self.nodes = []
        self.outputs = None  # (structure, [slot or None per leaf], [python leaf or None])
        self.shape_dependent = False  # Python read an input's shape while tracing
        self.templates = []  # each CALL node's [args, kwargs] with SlotRefs, for pruning
        self.tier = None  # native.Tier: replayed or compiled (set at the first replay)
        self.taped = False  # a GradientTape recorded while tracing: its backward is in the graph

    def new_slot(self):
        self.size += 1
        return self.size - 1

    def prune(self):
        """Drop op nodes whose results nothing uses, as TF prunes unused ops.
        Effects (CALL nodes: assignments, tf.print, random draws) always stay."""
        live = {slot for slot in self.outputs[1] if slot is not None}
        live.update(leaf.slot for leaf in nest.flatten(self.templates) if type(leaf) is SlotRef)
        kept = []
        for node in reversed(self.nodes):
            if node[0] == OP:
                if node[4] not in live:
                    continue
                live.update(node[2])
            elif node[0] in (LOOP, SWITCH):
                live.update(node[2])
            kept.append(node)
        kept.reverse()
        self.nodes = kept
        self.constants = [(s, v) for s, v in self.constants if s in live]

    def as_graph_def(self):
        """A GraphDef listing this graph's nodes, as TF's `graph.as_graph_def()`."""
        names = getattr(self, "input_names", None) or [f"arg{i}" for i in range(len(self.inputs))]
        return GraphDef(self, names)

    def op_count(self):
        return sum(1 for node in self.nodes if node[0] == OP)



class NodeDef:
    """One node of `GraphDef`: its name, op and the names of its inputs."""

    __slots__ = ("input", "name", "op")

    def __init__(self, name, op, inputs):
        self.name, self.op, self.input = name, op, list(inputs)

    def __str__(self):
        inputs = "".join(f'  input: "{i}"\n' for i in self.input)
        return f'node {{\n  name: "{self.name}"\n  op: "{self.op}"\n{inputs}}}\n'


class GraphDef:
    """What `ConcreteFunction.graph.as_graph_def()` gives: `node`, a NodeDef per
    placeholder, constant, Variable read, node and output, named as TF names
    them (the argument's name; `add`, `add_1`, ...; `Const`; `Identity`). It
    describes tapeflow's graph, which holds the ops a trace kept (pruned), so
    its nodes are not TF's GraphDef node for node."""

    def __init__(self, graph, input_names):
        self.node = []
        self._names = {}
        names = {}  # slot -> node name

        def add(name, op, inputs):
            count = self._names.get(name, 0)
            self._names[name] = count + 1
            node = NodeDef(name if count == 0 else f"{name}_{count}", op, inputs)
            self.node.append(node)
            return node.name

        for slot, name in zip(graph.inputs, input_names):
            names[slot] = add(name, "Placeholder", [])
        for slot, _ in graph.constants:
            names[slot] = add("Const", "Const", [])
        for slot, variable in graph.variables:
            names[slot] = add("ReadVariableOp", "ReadVariableOp", [])
        for node in graph.nodes:
            if node[0] == OP:
                names[node[4]] = add(node[1].name, node[1].name, [names[s] for s in node[2]])
                continue
            op = getattr(node[1], "__name__", "call") if node[0] == CALL else \
                "While" if node[0] == LOOP else "Case"
            name = add(op, op, [names[s] for s in reads(node) if s in names])
            for slot in writes(node):
                names[slot] = name
        for slot in graph.outputs[1]:
            if slot is not None:
                add("Identity", "Identity", [names.get(slot, "")])

    def __str__(self):
        return "".join(str(node) for node in self.node)


def reads(node):
    """The slots a top-level node reads."""
    if node[0] == CALL:
        return [leaf.slot for leaf in nest.flatten(node[5]) if type(leaf) is SlotRef]
    return list(node[2])


def writes(node):
    """The slots a top-level node fills."""
    if node[0] == OP:
        return [node[4]]
    if node[0] == CALL:
        return [slot for _, slot in node[4]]
    return list(node[3])
