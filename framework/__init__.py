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
from .api.indexing_ops import *  # noqa: E402,F401,F403
from .compiler.function import function  # noqa: E402
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
    "config": "config",
    "data": "data",
    "nn": "nn",
    "testing": "testing",
    # issue 15 item 2: custom gradients
    "custom_gradient": ("autodiff.custom_gradient", "custom_gradient"),
    "recompute_grad": ("autodiff.custom_gradient", "recompute_grad"),
    # issue 15 item 5: tf.image
    "image": "image",
    "test": "testing",
    # issue 15 item 3: the small root names (tf.newaxis is a constant below)
    "version": "version",
    "TensorSpec": ("core.tensor_spec", "TensorSpec"),
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
    # tf.Module (issue 15)
    "Module": ("module", "Module"),
}


newaxis = None  # x[:, tf.newaxis], as NumPy's

# A missing name's AttributeError says what to do instead (tests/framework/test_root_names.py).
# TF 1 names TF 2 dropped: name -> (what it was, what to use).
_GRAPH_MODE = "TF 1 graph mode, and tapeflow runs eagerly like TF 2"
_TF1_NAMES = {
    "Session": (_GRAPH_MODE, "call the function directly; x.numpy() is a tensor's value"),
    "placeholder": (_GRAPH_MODE, "pass the values as arguments to a Python function "
                    "(tf.function's input_signature takes tf.TensorSpec)"),
    "global_variables_initializer": (_GRAPH_MODE, "drop the call: a tf.Variable holds "
                                     "its value from creation"),
    "get_variable": (_GRAPH_MODE, "create a tf.Variable, or a weight in a Keras layer "
                     "with add_weight"),
    "contrib": ("TF 1's contrib, removed in TF 2", "use its TF 2 replacement"),
}
for _alias, _name in (("InteractiveSession", "Session"), ("placeholder_with_default",
                      "placeholder"), ("initialize_all_variables", "global_variables_initializer"),
                      ("local_variables_initializer", "global_variables_initializer"),
                      ("variable_scope", "get_variable"), ("reset_default_graph", "Session")):
    _TF1_NAMES[_alias] = _TF1_NAMES[_name]
# TF 2's root namespace (the tf.* names of its API reference): a name here that
# tapeflow lacks is "not implemented yet"; any other missing name may be a misspelling.
_TF2_NAMES = frozenset("""
    audio autodiff autograph bitwise compat config data debugging distribute dtypes errors
    experimental feature_column graph_util image io keras linalg lite lookup math mlir nest
    nn profiler quantization queue ragged random raw_ops saved_model sets signal sparse
    strings summary sysconfig test tpu train types version xla Assert CriticalSection DType
    DeviceSpec GradientTape Graph IndexedSlices IndexedSlicesSpec Module Operation
    OptionalSpec RaggedTensor RaggedTensorSpec RegisterGradient SparseTensor SparseTensorSpec
    Tensor TensorArray TensorArraySpec TensorShape TensorSpec TypeSpec UnconnectedGradients
    Variable VariableAggregation VariableSynchronization abs acos acosh add add_n argmax
    argmin argsort as_dtype as_string asin asinh assert_equal assert_greater assert_less
    assert_rank atan atan2 atanh batch_to_space bitcast boolean_mask broadcast_dynamic_shape
    broadcast_static_shape broadcast_to case cast clip_by_global_norm clip_by_norm
    clip_by_value complex concat cond constant constant_initializer control_dependencies
    convert_to_tensor cos cosh cumsum custom_gradient device divide dynamic_partition
    dynamic_stitch edit_distance einsum ensure_shape equal executing_eagerly exp
    expand_dims extract_volume_patches eye fill fingerprint floor foldl foldr function
    gather gather_nd get_current_name_scope get_logger get_static_value grad_pass_through
    gradients greater greater_equal group guarantee_const hessians histogram_fixed_width
    histogram_fixed_width_bins identity identity_n import_graph_def init_scope
    inside_function is_symbolic_tensor is_tensor less less_equal linspace load_library
    load_op_library logical_and logical_not logical_or make_ndarray make_tensor_proto map_fn
    matmul maximum meshgrid minimum multiply name_scope negative
    newaxis no_gradient no_op nondifferentiable_batch_function norm not_equal
    numpy_function one_hot ones ones_initializer ones_like pad parallel_stack pow print
    py_function random_normal_initializer random_uniform_initializer
    range rank realdiv recompute_grad reduce_all reduce_any reduce_logsumexp reduce_max
    reduce_mean reduce_min reduce_prod reduce_sum register_tensor_conversion_function repeat
    required_space_to_batch_paddings reshape reverse reverse_sequence roll round
    saturate_cast scalar_mul scan scatter_nd searchsorted sequence_mask shape shape_n
    sigmoid sign sin sinh size slice sort space_to_batch space_to_batch_nd split sqrt square
    squeeze stack stop_gradient strided_slice subtract switch_case tan tanh
    tensor_scatter_nd_add tensor_scatter_nd_max tensor_scatter_nd_min tensor_scatter_nd_sub
    tensor_scatter_nd_update tensordot tile timestamp transpose truediv truncatediv
    truncatemod tuple type_spec_from_value unique unique_with_counts unravel_index unstack
    variable_creator_scope vectorized_map where while_loop zeros zeros_initializer zeros_like
    double half qint8 qint16 qint32 quint8 quint16 resource variant
""".split())


def _missing(name):
    """The AttributeError for a root name tapeflow does not have."""
    message = f"module 'tapeflow' has no attribute {name!r}"
    if name.startswith("_"):
        return AttributeError(message)
    if name in _TF1_NAMES:
        what, instead = _TF1_NAMES[name]
        return AttributeError(f"{message}: tf.{name} is {what}: {instead}.")
    if name in _TF2_NAMES:
        return AttributeError(f"{message}: tf.{name} is not implemented in tapeflow yet "
                              "(tests/compat/API_COVERAGE.md lists what is).")
    import difflib  # only on this error path: most programs never pay for it

    known = [n for n in __dir__() if not n.startswith("_")] + list(_TF1_NAMES)
    close = difflib.get_close_matches(name, known, n=3, cutoff=0.75)
    if close:
        message += "; did you mean " + " or ".join(f"tf.{n}" for n in close) + "?"
    return AttributeError(message)


def __getattr__(name):
    target = _LAZY.get(name)
    if target is None:
        raise _missing(name)
    module_name, attribute = (target, None) if isinstance(target, str) else target
    value = _importlib.import_module(f"{__name__}.{module_name}")
    if attribute is not None:
        value = getattr(value, attribute)
    globals()[name] = value
    return value


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
