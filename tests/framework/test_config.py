"""tf.config: one CPU and no GPU under TF's names, reprs and errors; the
thread settings honoured by the Numba kernels and OpenBLAS (set before or
after the first kernel, os.environ untouched); run_functions_eagerly;
enable_op_determinism with two fits giving bit-identical weights."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import config as _config
from tapeflow.compiler import function as _function
from tapeflow.runtime import jit as _jit
from tapeflow.runtime import openblas as _openblas
from tapeflow.runtime import settings as _settings

CPU = tf.config.PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")


@pytest.fixture(autouse=True)
def _restore_settings():
    yield
    tf.config.threading.set_intra_op_parallelism_threads(0)
    tf.config.threading.set_inter_op_parallelism_threads(0)
    tf.config.run_functions_eagerly(False)
    _config._disable_op_determinism()
    _config._reset_devices()


def _blas_threads():
    entries = [_openblas._thread_entry_points(p) for p in _openblas.loaded_openblas_paths()]
    return [getter() for setter, getter in filter(None, entries)]


# Devices ---------------------------------------------------------------------

def test_one_cpu_and_no_gpu_with_tf_reprs():
    devices = tf.config.list_physical_devices()
    assert devices == [CPU]
    assert repr(devices[0]) == "PhysicalDevice(name='/physical_device:CPU:0', device_type='CPU')"
    assert devices[0].name == "/physical_device:CPU:0" and devices[0].device_type == "CPU"
    assert tf.config.list_physical_devices("CPU") == [CPU]
    assert tf.config.list_physical_devices("GPU") == []
    assert tf.config.list_physical_devices("cpu") == []  # TF compares exactly
    assert tf.config.experimental.list_physical_devices("GPU") == []
    logical = tf.config.list_logical_devices()
    assert repr(logical) == "[LogicalDevice(name='/device:CPU:0', device_type='CPU')]"
    assert tf.config.list_logical_devices("GPU") == []
    assert tf.config.get_visible_devices() == [CPU]
    assert tf.config.get_visible_devices("GPU") == []


def test_set_visible_devices_accepts_the_cpu_and_rejects_the_rest():
    tf.config.set_visible_devices(CPU)
    tf.config.set_visible_devices([CPU], "CPU")
    tf.config.set_visible_devices([], "GPU")  # the usual "hide every GPU": nothing to hide
    assert tf.config.get_visible_devices() == [CPU]
    gpu = tf.config.PhysicalDevice("/physical_device:GPU:0", "GPU")
    with pytest.raises(ValueError, match=r"Unrecognized device: PhysicalDevice\(name='/physical"
                                         r"_device:GPU:0'"):
        tf.config.set_visible_devices([gpu], "GPU")
    with pytest.raises(ValueError, match="Unrecognized device.*device_type='GPU'"):
        tf.config.set_visible_devices([CPU], "GPU")
    with pytest.raises(ValueError, match="Unrecognized device: 'CPU:0'"):
        tf.config.set_visible_devices("CPU:0")
    with pytest.raises(ValueError, match="cannot hide"):
        tf.config.set_visible_devices([], "CPU")
    assert tf.config.get_visible_devices() == [CPU]


def test_logical_cpu_devices_until_the_runtime_is_initialized():
    assert tf.config.get_logical_device_configuration(CPU) is None
    two = [tf.config.LogicalDeviceConfiguration(), tf.config.LogicalDeviceConfiguration()]
    tf.config.set_logical_device_configuration(CPU, two)
    assert tf.config.get_logical_device_configuration(CPU) == two
    assert [d.name for d in tf.config.list_logical_devices("CPU")] == ["/device:CPU:0",
                                                                       "/device:CPU:1"]
    tf.config.set_logical_device_configuration(CPU, two)  # the same: allowed
    with pytest.raises(RuntimeError, match="cannot be modified after being initialized"):
        tf.config.set_logical_device_configuration(CPU, two[:1])
    assert tf.config.experimental.VirtualDeviceConfiguration is tf.config.LogicalDeviceConfiguration


def test_logical_device_configuration_checks_its_arguments():
    assert tf.config.LogicalDeviceConfiguration(memory_limit=100)._fields == (
        "memory_limit", "experimental_priority", "experimental_device_ordinal")
    with pytest.raises(ValueError, match="Setting memory_limit on CPU virtual devices"):
        tf.config.set_logical_device_configuration(
            CPU, [tf.config.LogicalDeviceConfiguration(memory_limit=100)])
    with pytest.raises(ValueError, match="LogicalDeviceConfiguration objects, got 2"):
        tf.config.set_logical_device_configuration(CPU, [2])
    with pytest.raises(ValueError, match="Unrecognized device: None"):
        tf.config.get_logical_device_configuration(None)
    assert tf.config.get_logical_device_configuration(CPU) is None


def test_memory_growth_is_for_gpus_only_as_in_tf():
    for gpu in tf.config.list_physical_devices("GPU"):  # TF programs' loop: a no-op here
        tf.config.experimental.set_memory_growth(gpu, True)
    with pytest.raises(ValueError, match="Cannot set memory growth on non-GPU and non-Pluggable"):
        tf.config.experimental.set_memory_growth(CPU, True)
    with pytest.raises(ValueError, match="Cannot get memory growth on non-GPU"):
        tf.config.experimental.get_memory_growth(CPU)
    with pytest.raises(ValueError, match="Unrecognized device: 'GPU:0'"):
        tf.config.experimental.set_memory_growth("GPU:0", True)


def test_device_details_are_empty_for_the_cpu():
    assert tf.config.experimental.get_device_details(CPU) == {}
    with pytest.raises(ValueError, match="device must be a tf.config.PhysicalDevice, but got: "
                                         "'/physical_device:CPU:0'"):
        tf.config.experimental.get_device_details("/physical_device:CPU:0")
    with pytest.raises(ValueError, match="must be one obtained from calling"):
        tf.config.experimental.get_device_details(tf.config.PhysicalDevice("/x:TPU:0", "TPU"))


# Threads ---------------------------------------------------------------------

def test_thread_settings_default_to_zero_and_are_checked():
    threading = tf.config.threading
    assert threading.get_intra_op_parallelism_threads() == 0
    assert threading.get_inter_op_parallelism_threads() == 0
    threading.set_inter_op_parallelism_threads(np.int64(3))
    assert threading.get_inter_op_parallelism_threads() == 3
    assert type(threading.get_inter_op_parallelism_threads()) is int
    with pytest.raises(ValueError, match="set_intra_op_parallelism_threads: num_threads must be "
                                         ">= 0.*got -1"):
        threading.set_intra_op_parallelism_threads(-1)
    with pytest.raises(TypeError, match="num_threads must be an int, got float 1.5"):
        threading.set_inter_op_parallelism_threads(1.5)
    with pytest.raises(TypeError, match="got bool True"):
        threading.set_intra_op_parallelism_threads(True)
    assert threading.get_intra_op_parallelism_threads() == 0


def test_default_kernel_threads_follow_the_affinity(monkeypatch):
    from tapeflow.runtime import calibration
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    import numba
    expected = min(usable, numba.config.NUMBA_NUM_THREADS)
    with calibration.forced(threads="many"):
        assert _jit.kernel_threads() == _jit._DEFAULT_THREADS == expected
    with calibration.forced(threads="one"):
        assert _jit.kernel_threads() == 1


def test_intra_op_setting_after_the_first_kernel_limits_the_kernels(monkeypatch):
    from tapeflow.kernels import elementwise
    from tapeflow.runtime import calibration
    monkeypatch.setitem(calibration._forced, "threads", "many")  # not the machine's load
    observed = []
    real = _jit._run_on
    monkeypatch.setattr(_jit, "_run_on", lambda threads, kernel, args:
                        observed.append(threads) or real(threads, kernel, args))
    g, y = np.array([1.0, -2.0, 3.0]), np.array([1.0, -1.0, 0.0])
    out = elementwise.relu_backward[1](g, y, np.empty(3))
    np.testing.assert_array_equal(out, [1.0, 0.0, 0.0])
    tf.config.threading.set_intra_op_parallelism_threads(1)
    elementwise.relu_backward[1](g, y, np.empty(3))
    tf.config.threading.set_intra_op_parallelism_threads(64)  # above the default: the default
    elementwise.relu_backward[1](g, y, np.empty(3))
    tf.config.threading.set_intra_op_parallelism_threads(0)
    elementwise.relu_backward[1](g, y, np.empty(3))
    default = _jit._DEFAULT_THREADS
    assert observed == [default, 1, default, default]


def test_intra_op_setting_limits_openblas_and_is_recorded():
    before = _blas_threads()
    if not before:
        pytest.skip("no OpenBLAS with openblas_set_num_threads loaded")
    environ = dict(os.environ)
    tf.config.threading.set_intra_op_parallelism_threads(1)
    assert _blas_threads() == [1] * len(before)
    recorded = [s for s in tf.config.experimental.get_process_settings()
                if s.name.startswith("openblas.num_threads")]
    assert [(s.value, s.applied) for s in recorded] == [(1, True)] * len(before)
    assert "tf.config.threading.set_intra_op_parallelism_threads" in recorded[0].reason
    tf.config.threading.set_intra_op_parallelism_threads(0)
    assert _blas_threads() == before
    assert dict(os.environ) == environ


_BEFORE_FIRST_KERNEL = """
import json, os, sys
environ = dict(os.environ)
import numpy as np
import tapeflow as tf
tf.config.threading.set_intra_op_parallelism_threads(1)
assert "numba" not in sys.modules
from tapeflow.runtime import jit, openblas
from tapeflow.kernels import elementwise
import numba
observed = []
real = jit._run_on
jit._run_on = lambda threads, kernel, args: observed.append(threads) or real(threads, kernel, args)
elementwise.relu_backward[1](np.ones(4), np.ones(4), np.empty(4))
blas = [e[1]() for e in map(openblas._thread_entry_points, openblas.loaded_openblas_paths()) if e]
print(json.dumps({"observed": observed, "numba_threads": numba.get_num_threads(), "blas": blas,
                  "environ_kept": dict(os.environ) == environ}))
"""

_AFFINITY_PROBE = """
import os
os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
from tapeflow.runtime import jit
print(jit.kernel_threads())
"""


def _run(code):
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def test_intra_op_setting_before_the_first_kernel_limits_kernels_and_blas():
    out = json.loads(_run(_BEFORE_FIRST_KERNEL))
    assert out["observed"] == [1] and out["numba_threads"] == 1
    assert all(n == 1 for n in out["blas"])
    assert out["environ_kept"] is True


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this OS")
def test_kernels_take_one_thread_when_the_affinity_allows_one_cpu():
    assert _run(_AFFINITY_PROBE).split() == ["1"]


# Functions and determinism ---------------------------------------------------

def test_run_functions_eagerly_is_stored_for_tf_function():
    assert tf.config.functions_run_eagerly() is False
    calls = []

    @tf.function
    def f(x):
        calls.append(x)
        return x * 2

    tf.config.run_functions_eagerly(True)
    assert tf.config.functions_run_eagerly() is True and _function._run_eagerly() is True
    assert tf.config.experimental_functions_run_eagerly() is True
    assert float(f(tf.constant(3.0))) == 6.0
    tf.config.run_functions_eagerly(False)
    assert _function._run_eagerly() is False
    assert float(f(tf.constant(4.0))) == 8.0
    assert len(calls) == 2
    with pytest.raises(TypeError, match="run_eagerly must be a bool, got str 'yes'"):
        tf.config.run_functions_eagerly("yes")
    assert tf.config.functions_run_eagerly() is False


def _fit_weights(seed=0):
    tf.keras.utils.set_random_seed(seed)
    rng = np.random.default_rng(seed)
    x = rng.random((64, 12, 12, 3), dtype=np.float32)
    y = rng.integers(0, 4, 64)
    model = tf.keras.Sequential([tf.keras.layers.Conv2D(8, 3, activation="relu"),
                                 tf.keras.layers.MaxPooling2D(),
                                 tf.keras.layers.Flatten(),
                                 tf.keras.layers.Dense(32, activation="relu"),
                                 tf.keras.layers.Dense(4)])
    model.compile(optimizer=tf.keras.optimizers.Adam(1e-2),
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
    model.fit(x, y, batch_size=32, epochs=2, verbose=0)
    return model.get_weights()


def _assert_bit_identical(first, second):
    assert len(first) == len(second) == 6
    for a, b in zip(first, second):
        assert a.dtype == b.dtype and a.tobytes() == b.tobytes()


def test_op_determinism_two_fits_give_bit_identical_weights():
    assert _config._op_determinism_enabled() is False
    tf.config.experimental.enable_op_determinism()
    assert _config._op_determinism_enabled() is True
    first, second = _fit_weights(), _fit_weights()
    _assert_bit_identical(first, second)
    assert not np.array_equal(first[0], _fit_weights(seed=1)[0])  # the fit did depend on seeds


def test_kernel_results_do_not_depend_on_the_thread_count():
    from tapeflow.kernels import conv
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 10, 10, 3)).astype(np.float32)
    g = rng.standard_normal((16, 8, 8, 8)).astype(np.float32)
    kernel = conv.conv2d_backward_filter[1]

    def filter_gradient():
        partial = np.empty((2, 3, 3, 3, 8), np.float32)
        bias = np.empty((2, 8), np.float64)
        kernel(x, g, partial, 1, 1, 1, 1, 0, 0, g, False, bias)
        return partial.sum(axis=0), bias.sum(axis=0)

    two = filter_gradient()
    tf.config.threading.set_intra_op_parallelism_threads(1)
    one = filter_gradient()
    assert one[0].tobytes() == two[0].tobytes() and one[1].tobytes() == two[1].tobytes()
    reference = np.einsum("nhwc,nhwo->co", x[:, :8, :8], g)  # tap (0, 0)
    np.testing.assert_allclose(one[0][0, 0], reference, rtol=1e-4, atol=1e-4)
