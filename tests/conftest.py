"""The suite runs tapeflow's kernels from its first test. A program starts them
only once its ops' NumPy formulas have done some work (runtime/kernel_start.py),
so without this, which tests ran before decided whether an op's test ran its
kernel or its formula. tests/framework/test_kernel_start.py tests the phase
before the start, in fresh processes and with the start undone.

`function_cache` gives a test its own cache of compiled graphs; `spy` records
which kernel (and which of its one-thread and all-threads variants) an op ran."""

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


@pytest.fixture
def spy(monkeypatch):
    """spy(module, name) -> a list that records each call of that kernel: for a
    (one thread, all threads) pair the index of the variant called, else the
    call's arguments."""
    def install(module, name):
        calls = []
        original = getattr(module, name)

        def wrap(fn, index=None):
            def called(*args):
                calls.append(args if index is None else index)
                return fn(*args)
            return called
        patched = tuple(wrap(f, i) for i, f in enumerate(original)) \
            if isinstance(original, tuple) else wrap(original)
        monkeypatch.setattr(module, name, patched)
        return calls
    return install
