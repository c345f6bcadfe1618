"""The test modules that define gradient-check cases (a top-level
`GRADCHECK_CASES = [...]`), loaded once: test_registry checks that every
differentiable op is reached by some case, test_empty_tensors that every one
is reached by a case on size-0 inputs. Not a test module itself."""

import functools
import importlib.util
import re
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
_DEFINES_CASES = re.compile(r"^GRADCHECK_CASES\s*[:=]", re.MULTILINE)


@functools.lru_cache(maxsize=None)
def case_modules():
    """Every module under tests/ that assigns GRADCHECK_CASES at its top level."""
    modules = []
    for path in sorted(TESTS.rglob("test_*.py")):
        if _DEFINES_CASES.search(path.read_text(encoding="utf-8")):
            spec = importlib.util.spec_from_file_location(f"_cases_{path.stem}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            modules.append(module)
    return tuple(modules)


def all_cases():
    return [case for module in case_modules() for case in module.GRADCHECK_CASES]
