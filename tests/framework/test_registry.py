"""Every registered differentiable op is reached by some gradient-check case.

Test modules list their cases in `GRADCHECK_CASES`; this test runs each case's
function once on a tape (cheap: no finite differences) and collects the ops
recorded, including those of the backward pass. An op that no case reaches
has no numerical gradient check, which docs/STYLE.md does not allow.
"""

import importlib.util
from pathlib import Path

import tapeflow  # noqa: F401 -- registers the ops
import tapeflow.layers  # noqa: F401 -- and any the layers define
from tapeflow.ops.registry import all_ops
from tapeflow.testing.gradients import ops_used

TESTS = Path(__file__).resolve().parents[1]


def _case_modules():
    for path in sorted(TESTS.rglob("test_*.py")):
        if "GRADCHECK_CASES" in path.read_text(encoding="utf-8") and path.name != Path(
                __file__).name:
            spec = importlib.util.spec_from_file_location(f"_cases_{path.stem}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            yield module


def test_every_differentiable_op_has_a_gradcheck_case():
    reached = set()
    for module in _case_modules():
        for case in module.GRADCHECK_CASES:
            reached |= ops_used(case.fn, *case.inputs)
    differentiable = {name for name, op in all_ops().items() if op.differentiable}
    missing = sorted(differentiable - reached)
    assert not missing, f"ops with no gradcheck case: {missing}"


def test_every_differentiable_op_has_a_vjp():
    missing = sorted(name for name, op in all_ops().items()
                     if op.differentiable and op.vjps is None)
    assert not missing, f"differentiable ops without VJPs: {missing}"
