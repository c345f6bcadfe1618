"""The process is left as it was found: `import tapeflow` and a fit that runs
Numba kernels leave os.environ, Numba's config, the user's own Numba
functions and the interpreter's exit as they were. What tapeflow does change
for speed is listed by tf.config.experimental.get_process_settings() and
turned off by TAPEFLOW_PROCESS_TUNING=0. Checked in fresh subprocesses: this
process imported tapeflow long ago."""

import json
import os
import shutil
import subprocess
import sys

import pytest

import tapeflow as tf
from tapeflow.runtime import settings as _settings

# The variables the tests control; removed from the subprocesses' environment
# unless a test sets them.
_CONTROLLED = ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "OPENBLAS_THREAD_TIMEOUT", "NUMBA_CACHE_DIR",
               "TAPEFLOW_PROCESS_TUNING", "TAPEFLOW_BLAS_TUNING", "TAPEFLOW_MALLOC_TUNING",
               "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_",
               "MALLOC_MMAP_MAX_", "GLIBC_TUNABLES", "NUMBA_CACHE_LOCATOR_CLASSES")

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="reads /proc/self/maps and glibc's OpenMP runtime")

# Helpers every probe starts with: what libgomp and OpenBLAS went by, read
# from the libraries themselves.
_HELPERS = """
import ctypes, json, os, sys

def libgomp_settings():
    # {'OMP_WAIT_POLICY': ..., 'GOMP_SPINCOUNT': ...} as the loaded libgomp reports them
    from tapeflow.runtime import openmp
    paths = [p for p in openmp.loaded_runtimes() if "libgomp" in p]
    if not paths or not hasattr(ctypes.CDLL(paths[0]), "omp_display_env"):
        return None
    r, w = os.pipe()
    saved = os.dup(2)
    os.dup2(w, 2)
    try:
        ctypes.CDLL(paths[0]).omp_display_env(1)  # libgomp prints to stderr
        ctypes.CDLL(None).fflush(None)
    finally:
        os.dup2(saved, 2)
        os.close(w)
    text = os.read(r, 1 << 16).decode()
    found = {}
    for line in text.splitlines():
        name, _, value = line.strip().partition(" = ")
        if name in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT"):
            found[name] = value.strip("'")
    return found

def openblas_timeouts(paths):
    # numba's import loads scipy, and scipy its own OpenBLAS, which tapeflow
    # does not call: only the libraries loaded at `import tapeflow` count.
    from tapeflow.runtime import openblas
    return [e[2]() for e in map(openblas._entry_points, paths) if e is not None]
"""

# A small Conv2D + Dense model fit for one epoch with Adam: conv, GEMM,
# elementwise, softmax and optimizer kernels.
_CONV_FIT = """
x = np.random.default_rng(0).random((64, 12, 12, 3), dtype=np.float32)
y = np.random.default_rng(1).integers(0, 4, 64)
model = tf.keras.Sequential([tf.keras.layers.Conv2D(8, 3, activation="relu"),
                             tf.keras.layers.Flatten(), tf.keras.layers.Dense(4)])
"""
# The same with Dense layers only: quicker to compile into an empty cache. Its kernels
# are started first: a fit this short runs NumPy's formulas (runtime/kernel_start.py).
_DENSE_FIT = """
from tapeflow.runtime import kernel_start
kernel_start.start()
x = np.random.default_rng(0).random((64, 5), dtype=np.float32)
y = np.random.default_rng(1).integers(0, 4, 64)
model = tf.keras.Sequential([tf.keras.layers.Dense(8, activation="relu"), tf.keras.layers.Dense(4)])
"""

_FIT_PROBE = _HELPERS + """
before = dict(os.environ)
import numpy as np
import tapeflow as tf
from tapeflow.runtime.openblas import loaded_openblas_paths
blas_at_import = loaded_openblas_paths()
tf.random.set_seed(0)
MODEL
model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, batch_size=32, epochs=1, verbose=0)
after = dict(os.environ)
import numba
print(json.dumps({
    "changed": sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k)),
    "kernels_ran": sorted(m for m in sys.modules if m.startswith("tapeflow.kernels.")),
    "numba_cache_dir": numba.config.CACHE_DIR,
    "layer": numba.threading_layer(),
    "libgomp": libgomp_settings(),
    "openblas": openblas_timeouts(blas_at_import),
    "blas_names": [os.path.basename(p) for p in blas_at_import],  # NumPy's, for its records
    "settings": [s._asdict() for s in tf.config.experimental.get_process_settings()],
}))
"""


def _fit_probe(model):
    return _FIT_PROBE.replace("MODEL", model)


def _run(code, *args, env=None, cwd=None):
    """The JSON a fresh interpreter prints last running `code`, with the
    controlled variables only as given in `env`."""
    run_env = {k: v for k, v in os.environ.items() if k not in _CONTROLLED}
    run_env.update(env or {})
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=run_env, cwd=cwd, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def _settings_by_name(report):
    """{name: record}. Where SciPy's OpenBLAS loaded beside NumPy's (Numba's first
    compile imports SciPy where it is installed), a setting has one record per
    library, 'name[library]': NumPy's library's counts under the plain name."""
    found = {}
    for setting in report["settings"]:
        name, _, library = setting["name"].partition("[")
        if not library or library[:-1] in report.get("blas_names", ()):
            found[name] = setting
    return found


@linux_only
def test_import_and_a_conv_fit_leave_the_environment_as_it_was():
    report = _run(_fit_probe(_CONV_FIT))
    assert report["changed"] == []
    assert {"tapeflow.kernels.conv", "tapeflow.kernels.optimizers"} <= set(report["kernels_ran"])
    assert report["numba_cache_dir"] == ""  # Numba's config as without tapeflow
    # ... while libgomp and OpenBLAS still run with tapeflow's settings.
    if report["layer"] == "omp" and report["libgomp"] is not None:
        assert report["libgomp"] == {"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": "10000"}
    settings = _settings_by_name(report)
    if report["openblas"]:  # the import's 2**20, or the 'blas_spin' decision once applied
        assert set(report["openblas"]) == {settings["openblas.thread_timeout"]["value"]}
        assert settings["openblas.thread_timeout"]["value"] in (20, 10)
    applied = {name: s["applied"] for name, s in settings.items()}
    assert applied["openmp.OMP_WAIT_POLICY"] is applied["openmp.GOMP_SPINCOUNT"] is True


@linux_only
def test_the_users_own_settings_stay_and_are_the_ones_in_effect(tmp_path):
    user = {"OMP_WAIT_POLICY": "ACTIVE", "OPENBLAS_THREAD_TIMEOUT": "24",
            "NUMBA_CACHE_DIR": str(tmp_path / "my-numba-cache")}
    report = _run(_fit_probe(_DENSE_FIT), env=user)
    assert report["changed"] == []
    assert report["numba_cache_dir"] == user["NUMBA_CACHE_DIR"]
    # tapeflow's kernels went to the user's cache directory, as Numba put them.
    cached = [f for _, _, files in os.walk(tmp_path / "my-numba-cache") for f in files]
    assert any(f.endswith(".nbi") for f in cached), cached
    if report["layer"] == "omp" and report["libgomp"] is not None:
        # ACTIVE with no spin count: libgomp's own 30e9 spins, not tapeflow's 10000
        assert report["libgomp"]["OMP_WAIT_POLICY"] == "ACTIVE"
        assert report["libgomp"]["GOMP_SPINCOUNT"] != "10000"
    if report["openblas"]:
        assert set(report["openblas"]) == {24}
    by_name = _settings_by_name(report)
    assert by_name["openmp.OMP_WAIT_POLICY"]["applied"] is False
    assert by_name["openmp.OMP_WAIT_POLICY"]["before"] == "ACTIVE"
    assert "your own OMP_WAIT_POLICY=ACTIVE" in by_name["openmp.OMP_WAIT_POLICY"]["reason"]
    assert by_name["openmp.GOMP_SPINCOUNT"]["applied"] is False
    assert by_name["openblas.thread_timeout"] == {
        "name": "openblas.thread_timeout", "value": 20, "before": "24", "applied": False,
        "reason": "your own OPENBLAS_THREAD_TIMEOUT wins"}


_USER_MODULE = """
import numba

@numba.njit(cache=True)
def add_one(x):
    return x + 1
"""

# Runs a tapeflow kernel, then the user's cached function from argv[1]'s
# directory; prints where Numba cached it and what os.environ and Numba's
# config look like.
_USER_FUNCTION_PROBE = """
import json, os, sys
before = dict(os.environ)
import numpy as np
import tapeflow
from tapeflow.kernels import elementwise
elementwise.relu_backward[1](np.ones(4), np.ones(4), np.empty(4))
sys.path.insert(0, sys.argv[1])
import user_module
assert user_module.add_one(1) == 2
import numba
kernel = elementwise.relu_backward[1].kernel
kernel = getattr(kernel, "dispatcher", kernel)
print(json.dumps({
    "same_environ": dict(os.environ) == before,
    "numba_cache_dir": numba.config.CACHE_DIR,
    "user_cache": user_module.add_one._cache._cache_path,
    "kernel_cache": kernel._cache._cache_path,
    "tapeflow": os.path.dirname(tapeflow.__file__),
}))
"""


def _user_module(tmp_path):
    folder = tmp_path / "user_code"
    folder.mkdir()
    (folder / "user_module.py").write_text(_USER_MODULE)
    return folder


def test_a_users_cached_function_is_cached_beside_its_source(tmp_path):
    folder = _user_module(tmp_path)
    report = _run(_USER_FUNCTION_PROBE, str(folder))
    assert report["same_environ"] and report["numba_cache_dir"] == ""
    assert report["user_cache"] == str(folder / "__pycache__")
    assert any(f.name.startswith("user_module.add_one") and f.suffix == ".nbi"
               for f in (folder / "__pycache__").iterdir())


def _installed_copy(tmp_path):
    """tapeflow copied into a site-packages folder, as `pip install .` lays it
    out (the subpackages an editable install maps from elsewhere included)."""
    import importlib
    site = tmp_path / "lib" / "site-packages"
    target = site / "tapeflow"
    source = os.path.dirname(tf.__file__)
    ignore = shutil.ignore_patterns("__pycache__")
    shutil.copytree(source, target, ignore=ignore, symlinks=False)
    for sub in ("layers", "optimizers", "datasets"):
        try:
            module = importlib.import_module(f"tapeflow.{sub}")
        except ImportError:
            continue
        folder = os.path.dirname(module.__file__)
        if not (target / sub).exists():
            shutil.copytree(folder, target / sub, ignore=ignore)
    return site


def test_an_installed_copy_caches_its_kernels_in_the_user_cache_only(tmp_path):
    site = _installed_copy(tmp_path)
    folder = _user_module(tmp_path)
    env = {"PYTHONPATH": str(site), "XDG_CACHE_HOME": str(tmp_path / "xdg")}
    report = _run(_USER_FUNCTION_PROBE, str(folder), env=env, cwd=str(tmp_path))
    assert report["tapeflow"] == str(site / "tapeflow")  # the copy was the one imported
    assert report["same_environ"] and report["numba_cache_dir"] == ""
    user_cache = tmp_path / "xdg" / "tapeflow" / "numba"
    assert report["kernel_cache"].startswith(str(user_cache) + os.sep)
    assert any(f.endswith(".nbi") for _, _, files in os.walk(user_cache) for f in files)
    # Nothing beside the installed copy that pip uninstall would leave behind.
    assert not [f for _, _, files in os.walk(site) for f in files if f.endswith((".nbi", ".nbc"))]
    # The user's own function: Numba's default, beside its source.
    assert report["user_cache"] == str(folder / "__pycache__")


_EXIT_PROBE = """
import atexit, gc
import numpy as np
registered = []
real_register = atexit.register
def register(fn, *args, **kwargs):
    registered.append(getattr(fn, "__module__", "") or "")
    return real_register(fn, *args, **kwargs)
atexit.register = register
# Registered first, so it runs last: after any hook tapeflow could have added.
real_register(lambda: print("frozen at exit:", gc.get_freeze_count(), flush=True))
import tapeflow
from tapeflow.kernels import elementwise
elementwise.relu_backward[1](np.ones(4), np.ones(4), np.empty(4))
print("tapeflow hooks:", len([m for m in registered if m.startswith("tapeflow")]), flush=True)
"""


def test_exit_is_left_alone():
    done = subprocess.run([sys.executable, "-c", _EXIT_PROBE], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["tapeflow hooks: 0", "frozen at exit: 0"]


_SETTINGS_PROBE = _HELPERS + """
import numpy as np
import tapeflow as tf
from tapeflow.runtime.openblas import loaded_openblas_paths
blas_at_import = loaded_openblas_paths()
pending = [s._asdict() for s in tf.config.experimental.get_process_settings()]
from tapeflow.kernels import elementwise
elementwise.relu_backward[1](np.ones(4), np.ones(4), np.empty(4))
import numba
from tapeflow.runtime import blas_pool
print(json.dumps({
    "pending": pending,
    "settings": [s._asdict() for s in tf.config.experimental.get_process_settings()],
    "layer": numba.threading_layer(),
    "libgomp": libgomp_settings(),
    "openblas": openblas_timeouts(blas_at_import),
    "blas_names": [os.path.basename(p) for p in blas_at_import],
    "blas_pool": blas_pool.why_not_installable(),
    "blas_spin": tf.config.experimental.get_kernel_choices()["decisions"]["blas_spin"],
}))
"""

_NAMES = ["malloc.M_MMAP_THRESHOLD", "malloc.M_TRIM_THRESHOLD", "openblas.thread_timeout",
          "openmp.OMP_WAIT_POLICY", "openmp.GOMP_SPINCOUNT", "openblas.threads_callback"]


@linux_only
def test_get_process_settings_lists_each_setting_applied_with_its_values():
    report = _run(_SETTINGS_PROBE)
    settings = _settings_by_name(report)
    if len(report["openblas"]) != 1:
        pytest.skip("needs NumPy on one pthreads OpenBLAS: the names below assume it")
    assert list(settings) == _NAMES
    pending = {s["name"]: s for s in report["pending"]}
    assert settings["malloc.M_MMAP_THRESHOLD"] == {
        "name": "malloc.M_MMAP_THRESHOLD", "value": 32 << 20, "before": None, "applied": True,
        "reason": "mallopt"}
    assert settings["malloc.M_TRIM_THRESHOLD"]["value"] == 256 << 20
    # 2**20 ticks at import; the first kernel applies the measured 'blas_spin' decision.
    assert pending["openblas.thread_timeout"]["value"] == 20
    spin = {"long": 20, "short": 10}[report["blas_spin"]]
    assert settings["openblas.thread_timeout"]["value"] == spin
    # What it replaced: the import's 2**20 that the decision shortened; for the long
    # spin, OpenBLAS's default (a decision from the cache) or the short spin the
    # measurement in this process tried last before putting the long one back.
    before = settings["openblas.thread_timeout"]["before"]
    assert before == 20 if spin == 10 else before in (28, 10)
    assert settings["openblas.thread_timeout"]["applied"] is True
    assert settings["openmp.OMP_WAIT_POLICY"]["value"] == "PASSIVE"
    assert settings["openmp.GOMP_SPINCOUNT"]["value"] == "10000"
    callback = settings["openblas.threads_callback"]  # BLAS's jobs on Numba's pool
    assert callback["applied"] is not report["blas_pool"], (callback, report["blas_pool"])
    assert all(s["applied"] for s in report["settings"] if s is not callback), report["settings"]
    # Before the first kernel, OpenMP's pair is pending.
    assert pending["openmp.GOMP_SPINCOUNT"]["applied"] is False
    assert pending["openmp.GOMP_SPINCOUNT"]["reason"].startswith("pending")


@linux_only
def test_one_switch_turns_every_setting_off():
    report = _run(_SETTINGS_PROBE, env={"TAPEFLOW_PROCESS_TUNING": "0"})
    assert report["settings"]
    for setting in report["settings"]:
        assert setting["applied"] is False
        assert setting["reason"] == "switched off: TAPEFLOW_PROCESS_TUNING=0", setting
    assert {s["name"] for s in report["settings"]} >= {
        "malloc.M_MMAP_THRESHOLD", "openblas.thread_timeout", "openmp.GOMP_SPINCOUNT"}
    # The libraries run with their own defaults.
    if report["openblas"]:
        assert 20 not in report["openblas"]
    if report["layer"] == "omp" and report["libgomp"] is not None:
        # libgomp shows an unset policy as PASSIVE; its spin count of 300,000 tells
        assert report["libgomp"]["GOMP_SPINCOUNT"] == "300000"


@linux_only
@pytest.mark.parametrize("env, skipped, reason", [
    ({"TAPEFLOW_MALLOC_TUNING": "0"}, ["malloc.M_MMAP_THRESHOLD", "malloc.M_TRIM_THRESHOLD"],
     "switched off: TAPEFLOW_MALLOC_TUNING=0"),
    ({"MALLOC_TRIM_THRESHOLD_": "1000000"}, ["malloc.M_MMAP_THRESHOLD", "malloc.M_TRIM_THRESHOLD"],
     "your own malloc settings win: MALLOC_TRIM_THRESHOLD_"),
    ({"TAPEFLOW_BLAS_TUNING": "0"}, ["openblas.thread_timeout", "openblas.threads_callback"],
     "switched off: TAPEFLOW_BLAS_TUNING=0"),
    ({"GOMP_SPINCOUNT": "2k"}, ["openmp.GOMP_SPINCOUNT"], "your own GOMP_SPINCOUNT=2k wins"),
])
def test_finer_switches_and_the_users_settings_skip_their_part(env, skipped, reason):
    report = _run(_SETTINGS_PROBE, env=env)
    settings = _settings_by_name(report)
    for name in skipped:
        assert settings[name]["applied"] is False and settings[name]["reason"] == reason
    others = [s for name, s in settings.items() if name not in skipped]
    assert others and all(s["applied"] for s in others if s["name"].startswith("malloc")
                          or s["name"].startswith("openmp")), others
    if "GOMP_SPINCOUNT" in env and report["libgomp"] is not None:
        # the user's spin count, with tapeflow's passive policy: libgomp read both
        assert report["libgomp"] == {"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": "2000"}


def test_scoped_environ_sets_then_restores_exactly():
    environ = {"KEEP": "1", "CHANGE": "old"}
    with _settings.scoped_environ({"CHANGE": "new", "ADD": "x"}, environ):
        assert environ == {"KEEP": "1", "CHANGE": "new", "ADD": "x"}
    assert environ == {"KEEP": "1", "CHANGE": "old"}  # ADD absent again, not ""
    with pytest.raises(RuntimeError):
        with _settings.scoped_environ({"CHANGE": "new", "ADD": "x"}, environ):
            raise RuntimeError("the library failed to load")
    assert environ == {"KEEP": "1", "CHANGE": "old"}


def test_scoped_environ_reaches_the_c_environment_and_leaves_it_clean():
    import ctypes
    getenv = ctypes.CDLL(None).getenv
    getenv.restype = ctypes.c_char_p
    name = "TAPEFLOW_TEST_SCOPED_VARIABLE"
    assert name not in os.environ
    with _settings.scoped_environ({name: "inside"}):
        assert getenv(name.encode()) == b"inside"  # what a native library reads
    assert name not in os.environ and getenv(name.encode()) is None


def test_the_switch_is_read_never_written():
    assert _settings.skip_reason({}) == ""
    assert _settings.skip_reason({"TAPEFLOW_PROCESS_TUNING": "0"}, "TAPEFLOW_BLAS_TUNING") == \
        "switched off: TAPEFLOW_PROCESS_TUNING=0"
    assert _settings.skip_reason({"TAPEFLOW_BLAS_TUNING": "0"}, "TAPEFLOW_BLAS_TUNING") == \
        "switched off: TAPEFLOW_BLAS_TUNING=0"
    assert _settings.skip_reason({"TAPEFLOW_PROCESS_TUNING": "1"}, "TAPEFLOW_BLAS_TUNING") == ""


def test_config_namespace():
    settings = tf.config.experimental.get_process_settings()
    assert settings and all(isinstance(s, tf.config.experimental.ProcessSetting)
                            for s in settings)
    assert {"malloc.M_MMAP_THRESHOLD", "openmp.GOMP_SPINCOUNT"} <= {s.name for s in settings}
    assert set(settings[0]._asdict()) == {"name", "value", "before", "applied", "reason"}

