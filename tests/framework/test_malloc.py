"""_malloc: glibc keeps a step's large freed arrays for the next step instead of
trimming them back to the kernel (which made every step fault its pages in
again); the user's own malloc settings win."""

import os
import subprocess
import sys
import textwrap

import pytest

from tapeflow.runtime import malloc as _malloc

glibc_only = pytest.mark.skipif(_malloc._glibc() is None, reason="needs glibc's mallopt")

# Rounds of a training step's pattern: several 8 MB arrays made, filled, freed
# together. Prints the page faults of the rounds after the first.
_STEPS = textwrap.dedent("""
    import resource, sys
    import numpy as np
    if sys.argv[1] == "tapeflow":
        import tapeflow
    def step():
        arrays = [np.ones(2 << 20, np.float32) for _ in range(4)]
        return sum(float(a[-1]) for a in arrays)
    step()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(5):
        step()
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
""")


def _run(importing, extra_env=None):
    env = {k: v for k, v in os.environ.items()
           if k not in _malloc._USER_SETTINGS + ("TAPEFLOW_MALLOC_TUNING", "GLIBC_TUNABLES")}
    env.update(extra_env or {})
    out = subprocess.run([sys.executable, "-c", _STEPS, importing], env=env, check=True,
                         capture_output=True, text=True).stdout
    return int(out.split()[-1])


@glibc_only
def test_after_import_freed_arrays_are_reused_without_page_faults():
    untuned = _run("numpy")
    tuned = _run("tapeflow")
    opted_out = _run("tapeflow", {"TAPEFLOW_MALLOC_TUNING": "0"})
    assert untuned > 1000 and opted_out > 1000, (untuned, opted_out)  # 5 rounds x 32 MB
    assert tuned < 100, tuned


@glibc_only
def test_tunes_by_default():
    assert _malloc.tune_malloc(environ={}) is True


@pytest.mark.parametrize("environ", [
    {"TAPEFLOW_MALLOC_TUNING": "0"},
    {"MALLOC_TRIM_THRESHOLD_": "1000000"},
    {"MALLOC_MMAP_THRESHOLD_": "65536"},
    {"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1000000"},
])
def test_user_settings_win(environ):
    assert _malloc.tune_malloc(environ=environ) is False
