"""The suite runs tapeflow's kernels from its first test. A program starts them
only once its ops' NumPy formulas have done some work (runtime/kernel_start.py),
so without this, which tests ran before decided whether an op's test ran its
kernel or its formula. tests/framework/test_kernel_start.py tests the phase
before the start, in fresh processes and with the start undone.

`function_cache` gives a test its own cache of compiled graphs."""

import pytest

from tapeflow.runtime import kernel_start

kernel_start.start()


@pytest.fixture
def function_cache(tmp_path, monkeypatch):
    """Compiled graphs go to a cache directory of the test's own, and the process
    starts with none loaded and no compile or replay measured (compiler/native.py)."""
    from tapeflow.compiler import native
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setattr(native, "_loaded", {})
    monkeypatch.setattr(native, "_spent", {})
    monkeypatch.setattr(native, "_compile_seconds", [])
