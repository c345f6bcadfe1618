"""branches.py makes tf.cond, tf.case and tf.switch_case met while tracing,
with a predicate or index computed from the function's inputs, one SWITCH node
of the graph: every branch is traced into a graph of its own, and the
executor runs the one the predicate picks at each call. control_flow.py
calls it.

The branch taken runs for real (its effects happen: this call takes it). The
others are traced "dry" first, on the same values: they may compute (NumPy's
warnings silenced) and run Python, as TF traces both branches, but an effect
(an assignment, tf.print, a random draw, a loop) stops them before it runs,
and the function then runs eagerly for this signature, as before. So does a
GradientTape recording around the branch inside the function.
"""

import contextlib

import numpy as np

from ..core import nest
from ..core.tensor import Tensor, convert_to_tensor
from .graph import SWITCH
from .tracing import DryEffect, Trace, nested, raw_value, resume_profile

__all__ = ["BranchDtypeError", "BranchStructureError", "Switch", "traced_switch"]


class BranchStructureError(ValueError):
    """A branch's outputs do not fit the other's (AutoGraph's "'y' must also be
    initialized in the else branch"): raised even from the branch not taken,
    as TF traces both."""


class BranchDtypeError(TypeError):
    """An output's dtype differs between the branches (TF's TypeError), raised
    even from the branch not taken."""


class Switch:
    """A traced tf.cond/case/switch_case: `select(python values of the selector
    inputs) -> branch index`, and each branch's graph with its output slots.
    The node's inputs are the selector inputs, then each branch's captures."""

    __slots__ = ("branches", "captures", "select", "selectors")

    def __init__(self, select, selectors, branches, captures):
        self.select = select
        self.selectors = selectors
        self.branches = branches  # (graph, output slots) per branch
        self.captures = captures  # how many inputs each branch takes

    def run(self, runner, inputs, to_python):
        k = self.selectors
        index = self.select([to_python(v) for v in inputs[:k]])
        start = k + sum(self.captures[:index])
        graph, slots = self.branches[index]
        values = runner(graph, inputs[start:start + self.captures[index]])
        return [values[s] for s in slots]


def traced_switch(trace, selector_tensors, select, branch_fns):
    """Run a branch choice inside `trace` as one SWITCH node: ("done", result),
    or None when it must run as plain Python (no branch has run then)."""
    if trace.effects or trace.inner_tapes() or not any(
            trace.is_dynamic(t) for t in selector_tensors):
        return None
    index = select([raw_value(t).item() for t in selector_tensors])
    in_slots = [trace.slot(t) for t in selector_tensors]
    traced = [None] * len(branch_fns)
    for i in [j for j in range(len(branch_fns)) if j != index] + [index]:
        outcome = _trace_branch(trace, branch_fns[i], dry=i != index)
        if outcome is None:  # a branch not taken that cannot be traced dry
            return None
        traced[i] = outcome
    result, taken_flat = traced[index][0], traced[index][2]
    if trace.problem is not None:
        return ("done", result)
    structures = [nest.map_structure(lambda _: 0, out) for out, _, _ in traced]
    dtypes = [[t.dtype for t in flat] for _, _, flat in traced]
    if any(s != structures[0] for s in structures) or any(d != dtypes[0] for d in dtypes):
        raise ValueError("true_fn and false_fn arguments to tf.cond must have the same "
                         "number, type, and overall structure of return values (the branches "
                         f"of tf.case/switch_case too); got {structures} with dtypes "
                         f"{[[d.name for d in ds] for ds in dtypes]}.")
    branches, captures = [], []
    for _, sub, flat in traced:
        slots = [sub.slot(t) for t in flat]
        sub.graph.outputs = (None, slots, [None] * len(slots))
        sub.graph.prune()
        branches.append((sub.graph, slots))
        captures.append(len(sub.captures))
        in_slots += [trace.slot(t) for t in sub.captures]
    out_slots = [trace.add_output(t) for t in taken_flat]
    for j, t in enumerate(taken_flat):
        if any(tuple(flat[j].shape) != tuple(t.shape) for _, _, flat in traced):
            trace.value_shaped.add(id(t))  # its shape depends on the branch taken
    trace.graph.nodes.append((SWITCH, Switch(select, len(selector_tensors), branches, captures),
                              in_slots, out_slots))
    return ("done", result)


def _trace_branch(trace, fn, dry):
    """(result, sub-trace, flat result tensors) of one branch, or None for a dry
    branch that has an effect or fails on the values it was not meant for."""
    sub = Trace(trace.name, trace.may_create_variables, parent=trace, dry=dry)
    quiet = np.errstate(all="ignore") if dry else contextlib.nullcontext()
    try:
        with nested(sub), quiet:
            result = nest.map_structure(_as_output, fn())
            flat = nest.flatten(result)
            for t in flat:
                if not isinstance(t, Tensor):
                    sub.untraceable(f"a branch returned {t!r}, not a tensor")
                else:
                    sub.slot(t)
    except DryEffect as effect:
        resume_profile()
        trace.untraceable(f"{effect}: a branch not taken cannot run it while tracing")
        return None
    except Exception as error:
        # A branch not taken that recurses without end is the function's own error,
        # raised as in TF (which traces both branches), not a failure on its values.
        if not dry or isinstance(error, (BranchStructureError, BranchDtypeError,
                                         RecursionError)):
            raise
        trace.untraceable("a branch not taken failed on the values it was traced with")
        return None
    if sub.dry_stopped:  # the DryEffect was caught on its way out: the branch is unusable
        resume_profile()
        trace.untraceable("an effect in a branch not taken was stopped while tracing")
        return None
    return result, sub, flat


def _as_output(value):
    return convert_to_tensor(value) if isinstance(value, (bool, int, float)) else value
