"""tapeflow: a Keras-style training framework for the CPU with TF 2's API.

`import tapeflow as tf` gives tensors, variables, GradientTape, the op
library under TF's names (`tf.math`, `tf.nn`, `tf.linalg`) and `tf.keras`.
Numba kernels are compiled on first use; importing tapeflow compiles nothing.
"""

__version__ = "0.1.0"

import importlib as _importlib

from .runtime.malloc import tune_malloc as _tune_malloc  # noqa: E402
from .runtime.openblas import tune_openblas as _tune_openblas  # noqa: E402

_tune_malloc()  # large arrays stay in the process between steps: see runtime/malloc.py
_tune_openblas()  # BLAS workers sleep soon after a call, freeing the core: see runtime/openblas.py

from .core import dtypes, errors, nest  # noqa: E402
from .core.dtypes import (  # noqa: E402,A004 -- tf.bool shadows the builtin, as in TF
    DType, as_dtype, bfloat16, bool, complex64, complex128, float16, float32, float64, int8, int16,
    int32, int64, string, uint8, uint16, uint32, uint64)
from .core.tensor import Tensor, TensorShape, Variable, constant, convert_to_tensor  # noqa: E402
from .autodiff.tape import GradientTape, UnconnectedGradients  # noqa: E402
from .api import operators as _operators  # noqa: E402

_operators.install()

from . import linalg, math, random  # noqa: E402
from .api.array_ops import *  # noqa: E402,F401,F403 -- each module's __all__ is its public API
from .api.grid_ops import *  # noqa: E402,F401,F403
from .api.indexing_ops import *  # noqa: E402,F401,F403
from .api.scatter_ops import *  # noqa: E402,F401,F403
from .linalg import einsum, matmul, norm, tensordot  # noqa: E402
from .math import *  # noqa: E402,F401,F403
from .api.printing import print_ as print  # noqa: E402,A001
from . import keras  # noqa: E402


def enable_eager_execution(config=None, device_policy=None, execution_mode=None):
    """A no-op: tapeflow always executes eagerly."""


def executing_eagerly():
    return True


# Names a training script may never touch load on first access, so that
# `import tapeflow` pays only for what every program uses (docs/BENCHMARKS.md W5):
# layers import tf.nn themselves, a bare GradientTape program never needs it.
# name -> module (relative to tapeflow), or (module, attribute) for a member of one.
_LAZY = {
    # issue 18: control flow (compiler/control_flow.py) and AutoGraph (compiler/autograph/)
    "autograph": "compiler.autograph",
    "cond": ("compiler.control_flow", "cond"),
    "while_loop": ("compiler.control_flow", "while_loop"),
    "case": ("compiler.control_flow", "case"),
    "switch_case": ("compiler.control_flow", "switch_case"),
    # issue 15 item 6: tf.strings
    "strings": "strings",
    "as_string": ("strings", "as_string"),
    "config": "config",
    "data": "data",
    # issue 15 item 9: checkpoints and SavedModel
    "train": "train",
    "saved_model": "saved_model",
    "nn": "nn",
    "testing": "testing",
    "test": "testing",
    # issue 15 item 2: custom gradients
    "custom_gradient": ("autodiff.custom_gradient", "custom_gradient"),
    "recompute_grad": ("autodiff.custom_gradient", "recompute_grad"),
    # issue 15 item 5: tf.image
    "image": "image",
    # issue 15 item 3: the small root names (tf.newaxis is a constant below)
    "version": "version",
    "TensorSpec": ("core.tensor_spec", "TensorSpec"),
    "SparseTensorSpec": ("data.composite", "SparseTensorSpec"),  # tf.data's spec of a SparseTensor
    "clip_by_norm": ("api.clip_ops", "clip_by_norm"),
    "clip_by_global_norm": ("api.clip_ops", "clip_by_global_norm"),
    "optimizers": "optimizers",
    "losses": "losses",
    "metrics": "metrics",
    "initializers": "initializers",
    "zeros_initializer": ("initializers", "zeros_initializer"),
    "ones_initializer": ("initializers", "ones_initializer"),
    "constant_initializer": ("initializers", "constant_initializer"),
    "random_uniform_initializer": ("initializers", "random_uniform_initializer"),
    "random_normal_initializer": ("initializers", "random_normal_initializer"),
    "glorot_uniform_initializer": ("initializers", "glorot_uniform_initializer"),
    "glorot_normal_initializer": ("initializers", "glorot_normal_initializer"),
    # issue 22: tf.debugging (assertions, check numerics); TF 2's root assertions
    "debugging": "debugging",
    "assert_equal": ("debugging.asserts", "assert_equal"),
    "assert_greater": ("debugging.asserts", "assert_greater"),
    "assert_less": ("debugging.asserts", "assert_less"),
    "assert_rank": ("debugging.asserts", "assert_rank"),
    # issue 21: tf.distribute over MPI (mpi4py is imported only when a strategy is made)
    "distribute": "distribute",
    # tf.experimental (what tapeflow has of it: the ragged guide's shapes)
    "experimental": "experimental",
    # tf.audio (the simple audio tutorial's WAV files)
    "audio": "audio",
    # tf.py_function / tf.numpy_function (the tf.data guide's decoders)
    "py_function": ("api.py_func", "py_function"),
    "numpy_function": ("api.py_func", "numpy_function"),
    # tf.function (the tracer loads on first use: a program without it never pays)
    "function": ("compiler.function", "function"),
    # tf.Module (issue 15)
    "Module": ("module", "Module"),
    # issue 15 item 8: tf.summary (TensorBoard event files)
    "summary": "summary",
    # issue 15 item 8: tf.sparse and tf.ragged
    "sparse": "sparse",
    "SparseTensor": ("sparse.sparse_tensor", "SparseTensor"),
    "edit_distance": ("sparse.edit_distance", "edit_distance"),  # issue 15/16: CTC OCR
    "ragged": "ragged",
    "RaggedTensor": ("ragged.ragged_tensor", "RaggedTensor"),
    "RaggedTensorSpec": ("ragged.ragged_tensor_spec", "RaggedTensorSpec"),
    # issue 15 item 8: tf.device (every op runs on the CPU)
    "device": ("api.device", "device"),
    "DeviceSpec": ("api.device", "DeviceSpec"),
    # issue 15 item 8: tf.signal
    "signal": "signal",
    # issue 15 item 8: tf.io (image codecs need the optional Pillow)
    "io": "io",
    # issue 15 (the inventory): map_fn, TensorArray, graph-era no-ops
    "map_fn": ("api.functional_ops", "map_fn"),
    "group": ("api.functional_ops", "group"),
    "no_op": ("api.functional_ops", "no_op"),
    "identity_n": ("api.functional_ops", "identity_n"),
    "TensorArray": ("api.tensor_array", "TensorArray"),
    # issue 15 (the inventory): tf.compat's text helpers, tf.is_tensor, tf.get_logger
    "compat": "api.compat",
    "is_tensor": ("api.introspection", "is_tensor"),
    "get_logger": ("api.introspection", "get_logger"),
    # issue 15: tf.lookup (static tables; FarmHash buckets as TF's)
    "lookup": "lookup",
    # tf.types.experimental's tracing protocol and tf.init_scope (the tf.function guide)
    "types": "compiler.tf_types",
    "init_scope": ("compiler.init_scope", "init_scope"),
}


newaxis = None  # x[:, tf.newaxis], as NumPy's

def __getattr__(name):
    target = _LAZY.get(name)
    if target is None:
        from .api.missing_names import missing_name  # only on this error path
        raise missing_name(name, __dir__())
    module_name, attribute = (target, None) if isinstance(target, str) else target
    value = _importlib.import_module(f"{__name__}.{module_name}")
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
