"""runtime/malloc: glibc keeps a step's large freed arrays for the next step instead of
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
           if k not in _malloc._USER_SETTINGS + ("TAPEFLOW_MALLOC_TUNING", "TAPEFLOW_PROCESS_TUNING",
                                                "GLIBC_TUNABLES")}
    env.update(extra_env or {})
    out = subprocess.run([sys.executable, "-c", _STEPS, importing], env=env, check=True,
                         capture_output=True, text=True).stdout
    return int(out.split()[-1])


@glibc_only
def test_after_import_freed_arrays_are_reused_without_page_faults():
    untuned = _run("numpy")
    tuned = _run("tapeflow")
    opted_out = _run("tapeflow", {"TAPEFLOW_MALLOC_TUNING": "0"})
    all_off = _run("tapeflow", {"TAPEFLOW_PROCESS_TUNING": "0"})
    assert min(untuned, opted_out, all_off) > 1000, (untuned, opted_out, all_off)  # 5 x 32 MB
    assert tuned < 100, tuned


@glibc_only
def test_tunes_by_default():
    settings = _malloc.tune_malloc(environ={})
    assert [(s.name, s.value, s.applied, s.reason) for s in settings] == [
        ("malloc.M_MMAP_THRESHOLD", 32 << 20, True, "mallopt"),
        ("malloc.M_TRIM_THRESHOLD", 256 << 20, True, "mallopt")]


@pytest.mark.parametrize("environ, reason", [
    ({"TAPEFLOW_MALLOC_TUNING": "0"}, "switched off: TAPEFLOW_MALLOC_TUNING=0"),
    ({"TAPEFLOW_PROCESS_TUNING": "0"}, "switched off: TAPEFLOW_PROCESS_TUNING=0"),
    ({"MALLOC_TRIM_THRESHOLD_": "1000000"}, "your own malloc settings win: MALLOC_TRIM_THRESHOLD_"),
    ({"MALLOC_MMAP_THRESHOLD_": "65536"}, "your own malloc settings win: MALLOC_MMAP_THRESHOLD_"),
    ({"GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1000000"},
     "your own malloc settings win: GLIBC_TUNABLES=glibc.malloc.trim_threshold=1000000"),
])
def test_user_settings_and_switches_win(environ, reason):
    settings = _malloc.tune_malloc(environ=environ)
    assert [(s.applied, s.reason) for s in settings] == [(False, reason)] * 2
