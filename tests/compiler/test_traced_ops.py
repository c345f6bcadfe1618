"""Every op test module's gradcheck cases (tests/framework/test_ops_*.py
GRADCHECK_CASES) run inside a traced function: the replay, on new input
values, must give the eager values bitwise. A case whose public function
computes outside an op must fall back to eager (with the warning), never
replay a frozen value."""

import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import tapeflow as tf

_FRAMEWORK_TESTS = Path(__file__).resolve().parent.parent / "framework"


def _cases():
    if str(_FRAMEWORK_TESTS) not in sys.path:  # the op tests import their kernel references
        sys.path.append(str(_FRAMEWORK_TESTS))
    cases = []
    for path in sorted(_FRAMEWORK_TESTS.glob("test_ops_*.py")):
        if "GRADCHECK_CASES" not in path.read_text(encoding="utf-8"):
            continue
        spec = importlib.util.spec_from_file_location(f"_traced_cases_{path.stem}", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        cases += [(path.stem, case) for case in module.GRADCHECK_CASES]
    return cases[::3]  # a third of them: every family, most shapes


_CASES = _cases()


def _inputs(case, seed):
    """The case's float64 inputs, moved a little (new values, same signature)."""
    rng = np.random.default_rng(seed)
    out = []
    for x in case.inputs:
        x = np.asarray(x, np.float64)
        out.append(tf.constant(x + rng.uniform(-1e-3, 1e-3, x.shape) if x.size else x))
    return out


@pytest.mark.parametrize(("module", "case"), _CASES, ids=[f"{m}:{c.name}" for m, c in _CASES])
def test_traced_case_matches_eager_bitwise(module, case):
    traced = tf.function(case.fn)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = traced(*_inputs(case, 0))
    np.testing.assert_array_equal(first.numpy(), case.fn(*_inputs(case, 0)).numpy())
    for seed in (1, 2):  # replays (or eager calls, after a fallback)
        got = traced(*_inputs(case, seed))
        want = case.fn(*_inputs(case, seed))
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    assert traced.experimental_get_tracing_count() == 1
    assert all("runs eagerly" in str(w.message) for w in caught)


def test_most_cases_are_replayed_not_run_eagerly():
    fallbacks = []
    for module, case in _CASES:
        traced = tf.function(case.fn)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            traced(*_inputs(case, 0))
        if caught:
            fallbacks.append(f"{module}:{case.name}")
    assert len(fallbacks) <= len(_CASES) // 4, fallbacks
