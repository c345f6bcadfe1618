"""Every registered differentiable op is reached by some gradient-check case.

Test modules list their cases in `GRADCHECK_CASES`; this test runs each case's
function once on a tape (cheap: no finite differences) and collects the ops
recorded, including those of the backward pass. An op that no case reaches
has no numerical gradient check, which docs/STYLE.md does not allow.
"""

import tapeflow  # noqa: F401 -- registers the ops
import tapeflow.layers  # noqa: F401 -- and any the layers define
from tapeflow.ops.registry import all_ops
from tapeflow.testing.gradients import ops_used

from case_modules import all_cases


def test_every_differentiable_op_has_a_gradcheck_case():
    reached = set()
    for case in all_cases():
        reached |= ops_used(case.fn, *case.inputs)
    differentiable = {name for name, op in all_ops().items() if op.differentiable}
    missing = sorted(differentiable - reached)
    assert not missing, f"ops with no gradcheck case: {missing}"


def test_every_differentiable_op_has_a_vjp():
    missing = sorted(name for name, op in all_ops().items()
                     if op.differentiable and op.vjps is None)
    assert not missing, f"differentiable ops without VJPs: {missing}"
