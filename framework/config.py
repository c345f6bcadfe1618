"""tf.config: the process and its devices, under TF's names.

tapeflow runs on one CPU: `list_physical_devices` gives one CPU and no GPU,
and the device functions check their arguments and raise TF's errors. The
thread settings (`tf.config.threading`) are honoured by tapeflow's Numba
kernels and NumPy's OpenBLAS; `run_functions_eagerly` and
`experimental.enable_op_determinism` are flags stored in runtime/settings.py.
`tf.config.experimental.get_process_settings()` lists what tapeflow changed
in the process for speed (glibc malloc thresholds, OpenBLAS's worker timeout,
OpenMP's spin, the kernels' and BLAS's thread counts) and what the user asked
for, each applied or skipped and why; TAPEFLOW_PROCESS_TUNING=0 turns the
speed tunings off. `tf.config.experimental.get_kernel_choices()` shows which
kernels the calibration picked on this machine (runtime/calibration.py).
"""

import collections
import operator
import threading as _threading
import types

import numpy as np

from .runtime import calibration as _calibration
from .runtime import openblas as _openblas
from .runtime import openmp as _openmp  # noqa: F401 -- registers OpenMP's pending settings
from .runtime.settings import ProcessSetting, get_process_settings, set_user_setting, user_setting

__all__ = ["PhysicalDevice", "LogicalDevice", "LogicalDeviceConfiguration",
           "list_physical_devices", "list_logical_devices", "get_visible_devices",
           "set_visible_devices", "get_logical_device_configuration",
           "set_logical_device_configuration", "run_functions_eagerly", "functions_run_eagerly",
           "experimental_run_functions_eagerly", "experimental_functions_run_eagerly",
           "threading", "experimental"]


class PhysicalDevice(collections.namedtuple("PhysicalDevice", ["name", "device_type"])):
    """A device of the machine, as TF names it: `name` ('/physical_device:CPU:0')
    and `device_type` ('CPU')."""
    __slots__ = ()


class LogicalDevice(collections.namedtuple("LogicalDevice", ["name", "device_type"])):
    """A device the runtime places work on: `name` ('/device:CPU:0') and
    `device_type` ('CPU')."""
    __slots__ = ()


class LogicalDeviceConfiguration(collections.namedtuple(
        "LogicalDeviceConfiguration",
        ["memory_limit", "experimental_priority", "experimental_device_ordinal"])):
    """How a physical device is split into logical devices (TF's fields; on
    the CPU every field must stay None, as in TF)."""
    __slots__ = ()

    def __new__(cls, memory_limit=None, experimental_priority=None,
                experimental_device_ordinal=None):
        return super().__new__(cls, memory_limit, experimental_priority,
                               experimental_device_ordinal)


_CPU = PhysicalDevice(name="/physical_device:CPU:0", device_type="CPU")
_PHYSICAL = (_CPU,)
_lock = _threading.Lock()
# Device state as TF keeps it: visible devices and logical configurations may
# change until the runtime is initialized, which list_logical_devices does.
_devices = {"visible": [_CPU], "logical": {}, "initialized": False}


def _reset_devices():
    """Back to the state at import (for tests)."""
    with _lock:
        _devices.update(visible=[_CPU], logical={}, initialized=False)


def _check_device(device):
    if device not in _PHYSICAL:
        raise ValueError(f"Unrecognized device: {device!r} (tapeflow's only device is {_CPU!r}, "
                         "from tf.config.list_physical_devices())")


def list_physical_devices(device_type=None):
    """The devices of the machine: `[PhysicalDevice(name='/physical_device:CPU:0',
    device_type='CPU')]`; with `device_type` only those of that type (TF
    compares exactly: 'GPU' gives [], as does 'cpu').

    >>> tf.config.list_physical_devices('GPU')
    []
    """
    return [d for d in _PHYSICAL if device_type is None or d.device_type == device_type]


def list_logical_devices(device_type=None):
    """The logical devices: '/device:CPU:0', or one per LogicalDeviceConfiguration
    set for the CPU ('/device:CPU:0', '/device:CPU:1', ...; all run on the same
    CPU in tapeflow). As in TF, this initializes the runtime: visible devices
    and logical configurations cannot change afterwards (RuntimeError)."""
    with _lock:
        _devices["initialized"] = True
        devices = []
        for physical in _devices["visible"]:
            count = len(_devices["logical"].get(physical) or [None])
            devices += [LogicalDevice(f"/device:{physical.device_type}:{i}", physical.device_type)
                        for i in range(count)]
    return [d for d in devices if device_type is None or d.device_type == device_type]


def get_visible_devices(device_type=None):
    """The physical devices the runtime may use (the CPU), filtered by `device_type`."""
    with _lock:
        return [d for d in _devices["visible"] if device_type is None or d.device_type == device_type]


def set_visible_devices(devices, device_type=None):
    """Choose the physical devices the runtime may use, as TF does.

    Args:
        devices: a PhysicalDevice or a list of them, from list_physical_devices.
        device_type: only devices of this type are configured; others keep
            their visibility.

    Raises:
        ValueError: a device that is not one of list_physical_devices(), or not
            of `device_type` ("Unrecognized device", TF's message); hiding the
            CPU, which tapeflow cannot run without.
        RuntimeError: a change after the runtime was initialized
            (list_logical_devices).
    """
    if not isinstance(devices, list):
        devices = [devices]
    for device in devices:
        _check_device(device)
        if device_type is not None and device.device_type != device_type:
            raise ValueError(f"Unrecognized device: {device!r} (device_type={device_type!r})")
    with _lock:
        visible = [d for d in _devices["visible"]
                   if device_type is not None and d.device_type != device_type]
        visible += [d for d in devices if d not in visible]
        if _CPU not in visible:
            raise ValueError("set_visible_devices: tapeflow runs on the CPU only and cannot hide "
                             f"it; devices={devices!r}, device_type={device_type!r}")
        if visible == _devices["visible"]:
            return
        if _devices["initialized"]:
            raise RuntimeError("Visible devices cannot be modified after being initialized")
        _devices["visible"] = visible


def get_logical_device_configuration(device):
    """The LogicalDeviceConfigurations set for `device`, or None when none was set.

    Raises:
        ValueError: `device` is not one of list_physical_devices().
    """
    _check_device(device)
    with _lock:
        return _devices["logical"].get(device)


def set_logical_device_configuration(device, logical_devices):
    """Split the CPU into logical devices (names only: they share the one CPU).

    Args:
        device: the CPU's PhysicalDevice.
        logical_devices: a list of LogicalDeviceConfiguration(), or None for
            the default of one logical device.

    Raises:
        ValueError: an unknown device; a configuration with memory_limit,
            experimental_priority or experimental_device_ordinal set (TF
            supports none of them on the CPU).
        RuntimeError: a change after the runtime was initialized
            (list_logical_devices).
    """
    _check_device(device)
    for config in logical_devices or []:
        if not isinstance(config, LogicalDeviceConfiguration):
            raise ValueError("logical_devices must hold tf.config.LogicalDeviceConfiguration "
                             f"objects, got {config!r}")
        for field in config._fields:
            if getattr(config, field) is not None:
                raise ValueError(f"Setting {field} on CPU virtual devices is currently not "
                                 f"supported (got {field}={getattr(config, field)!r})")
    with _lock:
        if _devices["logical"].get(device) == logical_devices:
            return
        if _devices["initialized"]:
            raise RuntimeError("Virtual devices cannot be modified after being initialized")
        if logical_devices is None:
            _devices["logical"].pop(device, None)
        else:
            _devices["logical"][device] = list(logical_devices)


def _gpu_only(action, device):
    _check_device(device)
    raise ValueError(f"Cannot {action} memory growth on non-GPU and non-Pluggable devices "
                     f"(got {device!r}; tapeflow has no GPU)")


def get_memory_growth(device):
    """Whether memory growth is on for a GPU. tapeflow has no GPU: the CPU gives
    ValueError (TF's own lookup fails on it too, with a KeyError).

    Raises:
        ValueError: an unknown device, or the CPU.
    """
    _gpu_only("get", device)


def set_memory_growth(device, enable):
    """TF's switch for allocating GPU memory as needed. tapeflow has no GPU and
    allocates host memory as needed anyway, so there is nothing to switch: the
    usual loop `for gpu in tf.config.list_physical_devices('GPU'):
    set_memory_growth(gpu, True)` does nothing (the list is empty), and the CPU
    raises ValueError exactly as in TF ("Cannot set memory growth on non-GPU
    and non-Pluggable devices").

    Raises:
        ValueError: an unknown device, or the CPU.
    """
    _gpu_only("set", device)


def get_device_details(device):
    """Details of a physical device as a dict; TF gives details for GPUs only,
    so the CPU gives {}.

    Raises:
        ValueError: `device` is not a PhysicalDevice from list_physical_devices().
    """
    if not isinstance(device, PhysicalDevice):
        raise ValueError(f"device must be a tf.config.PhysicalDevice, but got: {device!r}")
    if device not in _PHYSICAL:
        raise ValueError("The PhysicalDevice must be one obtained from calling "
                         f"`tf.config.list_physical_devices`, but got: {device!r}")
    return {}


def _check_threads(num_threads, function):
    try:
        if isinstance(num_threads, bool):
            raise TypeError
        num_threads = operator.index(num_threads)  # ints and NumPy integers
    except TypeError:
        raise TypeError(f"{function}: num_threads must be an int, got "
                        f"{type(num_threads).__name__} {num_threads!r}") from None
    if num_threads < 0:
        raise ValueError(f"{function}: num_threads must be >= 0 (0: the system picks), "
                         f"got {num_threads}")
    return num_threads


def get_intra_op_parallelism_threads():
    """The threads one op may use; 0 (the default) means the system picks.

    Returns:
        The number last given to set_intra_op_parallelism_threads, else 0.
    """
    return user_setting("intra_op_parallelism_threads")


def set_intra_op_parallelism_threads(num_threads):
    """Limit the threads one op uses: tapeflow's parallel Numba kernels use at
    most `num_threads` (below their default, the cores of the process's CPU
    affinity, runtime/jit.py `kernel_threads`), and every loaded OpenBLAS (NumPy's matmuls) is set to
    `num_threads` threads through `openblas_set_num_threads` (os.environ is not
    touched; listed by tf.config.experimental.get_process_settings()). 0 gives
    both back their default.

    Unlike TF, which raises RuntimeError once its runtime is initialized, the
    setting may be changed at any time: kernels read it at every call.

    Args:
        num_threads: a non-negative int; 0 means the system picks.

    Raises:
        TypeError: `num_threads` is not an int. ValueError: it is negative.
    """
    num_threads = _check_threads(num_threads, "set_intra_op_parallelism_threads")
    set_user_setting("intra_op_parallelism_threads", num_threads)
    _openblas.set_num_threads(num_threads)


def get_inter_op_parallelism_threads():
    """The threads for running independent ops side by side; 0 (the default)
    means the system picks.

    Returns:
        The number last given to set_inter_op_parallelism_threads, else 0.
    """
    return user_setting("inter_op_parallelism_threads")


def set_inter_op_parallelism_threads(num_threads):
    """Store the number of threads for running independent ops concurrently.

    Stored and returned by get_inter_op_parallelism_threads, with no effect:
    TF's inter-op pool runs the independent nodes of a graph side by side, and
    tapeflow builds no graph. Its ops run eagerly, one after the other in the
    calling Python thread, so there is never a second op ready to be scheduled
    (tf.function is eager too). Threads the user starts run their ops
    concurrently whatever this says.

    Args:
        num_threads: a non-negative int; 0 means the system picks.

    Raises:
        TypeError: `num_threads` is not an int. ValueError: it is negative.
    """
    num_threads = _check_threads(num_threads, "set_inter_op_parallelism_threads")
    set_user_setting("inter_op_parallelism_threads", num_threads)


threading = types.SimpleNamespace(
    get_intra_op_parallelism_threads=get_intra_op_parallelism_threads,
    set_intra_op_parallelism_threads=set_intra_op_parallelism_threads,
    get_inter_op_parallelism_threads=get_inter_op_parallelism_threads,
    set_inter_op_parallelism_threads=set_inter_op_parallelism_threads,
)


def run_functions_eagerly(run_eagerly):
    """Have every `tf.function` run its Python function eagerly (True) or as a
    compiled function (False, the default), as TF's switch does.

    tapeflow.function runs eagerly today whatever the flag says; the compiled
    path that a later change adds reads this flag (runtime/settings.py) at each
    call and must run the Python function itself while it is True.

    Args:
        run_eagerly: a bool.

    Raises:
        TypeError: `run_eagerly` is not a bool.
    """
    if not isinstance(run_eagerly, (bool, np.bool_)):
        raise TypeError(f"run_functions_eagerly: run_eagerly must be a bool, got "
                        f"{type(run_eagerly).__name__} {run_eagerly!r}")
    set_user_setting("run_functions_eagerly", bool(run_eagerly))


def functions_run_eagerly():
    """Whether run_functions_eagerly(True) is in effect (False by default)."""
    return user_setting("run_functions_eagerly")


# TF's deprecated names for the two, still exported by TF 2.
experimental_run_functions_eagerly = run_functions_eagerly
experimental_functions_run_eagerly = functions_run_eagerly


def enable_op_determinism():
    """Make ops give bit-identical results when run again on the same inputs
    and machine, as TF's switch does.

    tapeflow's CPU ops are deterministic already, so this only records the
    request (`_op_determinism_enabled()`): every parallel Numba kernel has each
    loop iteration write its own output cells (no atomic or racing adds), and
    the kernels that reduce across threads (the bias gradient in
    kernels/elementwise.py, the convolution filter and bias gradients in
    kernels/conv.py) sum into one partial result per batch chunk, with a
    fixed chunk count (2 for the parallel variant, chosen by size, never by
    thread count) added in a fixed order afterwards, so the results do not
    depend on the thread count either. Scatter-adds (embedding gradients) run
    serially. OpenBLAS splits a product among its threads the same way for a
    given thread count. tf.data pipelines run in order. It also starts
    tapeflow's kernels at the next op that has a NumPy formula as well
    (runtime/kernel_start.py): before they start, a few ops run NumPy formulas
    whose last bits may differ, and a run resumed in a new process would begin
    on them where the straight run had the kernels.

    As in TF, set the seeds too (`tf.keras.utils.set_random_seed(1)` or
    `tf.random.set_seed(1)`), so that random initial weights and shuffles repeat.
    Unlike TF, a random op run with no seed at all does not raise RuntimeError
    yet ("Random ops require a seed to be set when determinism is enabled"):
    tapeflow.random would have to check `_op_determinism_enabled()`.
    """
    set_user_setting("op_determinism", True)


def _op_determinism_enabled():
    return user_setting("op_determinism")


def _disable_op_determinism():
    set_user_setting("op_determinism", False)


def get_kernel_choices():
    """Which kernels tapeflow runs on this machine, as measured here (a
    tapeflow extension; TF has no equivalent): {'machine': the CPU model, usable
    cores and library versions the decisions were measured for, 'decisions':
    {'gemm': {shape class: 'tapeflow' or 'blas'}, 'gemm MxKxN': the same for
    a large product measured by its own shape, 'threads': 'many' or 'one',
    'updates': the elements from which an optimizer update runs on all threads,
    'pools': the same for a pooling, 'conv': direct or im2col per window class},
    'details': the timings behind them, 'forced': decisions set with
    tapeflow.runtime.calibration.force}. Makes every decision not made yet:
    read from the user cache directory, else measured (well under a second),
    which loads the kernels, and so starts them: every later op that has a
    NumPy formula runs its kernel (runtime/kernel_start.py). See
    runtime/calibration.py."""
    from .kernels import gemm  # noqa: F401 -- registers 'gemm'; its runtime.jit 'threads'
    from .kernels import optimizers  # noqa: F401 -- registers 'updates'
    from .kernels import pool  # noqa: F401 -- registers 'pools'
    return _calibration.decide_all()


# tf.config.experimental: add further functions to the namespace below.
experimental = types.SimpleNamespace(
    get_process_settings=get_process_settings,
    get_kernel_choices=get_kernel_choices,
    ProcessSetting=ProcessSetting,
    list_physical_devices=list_physical_devices,
    list_logical_devices=list_logical_devices,
    get_visible_devices=get_visible_devices,
    set_visible_devices=set_visible_devices,
    get_memory_growth=get_memory_growth,
    set_memory_growth=set_memory_growth,
    get_device_details=get_device_details,
    get_virtual_device_configuration=get_logical_device_configuration,
    set_virtual_device_configuration=set_logical_device_configuration,
    VirtualDeviceConfiguration=LogicalDeviceConfiguration,
    enable_op_determinism=enable_op_determinism,
)
