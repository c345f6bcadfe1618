"""`tapeflow.keras` is a package like `keras`: every submodule imports by dotted
path and is the very module `tf.keras.X` names (no second copy of a module,
so no second copy of its classes), plus Keras 3's `ops` and `random` and
`mixed_precision`. Values are NumPy's or hand-computed."""

import importlib
import subprocess
import sys

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing import gradcheck

ALIASES = ["layers", "models", "optimizers", "losses", "metrics", "callbacks", "initializers",
           "regularizers", "constraints", "activations", "datasets", "backend"]


@pytest.mark.parametrize("name", ALIASES)
def test_each_alias_is_the_module_itself(name):
    dotted = importlib.import_module(f"tapeflow.keras.{name}")
    assert dotted is importlib.import_module(f"tapeflow.{name}") is getattr(tf.keras, name)
    assert dotted.__spec__.name == f"tapeflow.{name}"  # its own spec, not the alias's


def test_keras_utils_is_tapeflow_utils_plus_the_dataset_builders():
    import tapeflow.utils
    from tapeflow.keras.utils import image_dataset_from_directory, pad_sequences
    assert pad_sequences is tapeflow.utils.pad_sequences
    assert all(getattr(tf.keras.utils, n) is getattr(tapeflow.utils, n)
               for n in tapeflow.utils.__all__)
    assert image_dataset_from_directory.__module__ == "tapeflow.utils.directory_datasets"
    assert callable(tf.keras.utils.timeseries_dataset_from_array)


def test_layers_do_not_load_tf_data_in_a_fresh_process():
    code = ("import sys, tapeflow as tf\n"
            "import tapeflow.utils\n"
            "tf.keras.layers.RandomFlip, tapeflow.utils.pad_sequences\n"
            "print('tapeflow.data' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False"]


def test_the_import_forms_programs_use():
    from tapeflow.keras.layers import Dense
    from tapeflow.keras.models import Model, Sequential
    from tapeflow.keras.datasets import mnist
    from tapeflow.keras import backend as K
    from tapeflow.keras.callbacks import EarlyStopping
    from tapeflow import keras
    import tapeflow.keras.optimizers.schedules
    import tapeflow.keras.layers as layers_module
    assert Dense is tf.keras.layers.Dense and Model is tf.keras.Model
    assert Sequential is tf.keras.Sequential and EarlyStopping is tf.keras.callbacks.EarlyStopping
    assert mnist is sys.modules["tapeflow.datasets.mnist"] and K is tf.keras.backend
    assert keras is tf.keras and layers_module is tf.keras.layers
    assert (tapeflow.keras.optimizers.schedules is tf.keras.optimizers.schedules
            is sys.modules["tapeflow.optimizers.schedules"])
    assert (tf.keras.optimizers.schedules.ExponentialDecay
            is importlib.import_module("tapeflow.optimizers.schedules").ExponentialDecay)


def test_submodules_of_aliases_are_not_loaded_twice():
    import tapeflow.keras.layers.core as core
    assert core is sys.modules["tapeflow.layers.core"]
    assert core.Dense is tf.keras.layers.Dense


def test_a_missing_submodule_is_a_module_not_found_error():
    with pytest.raises(ModuleNotFoundError, match="tapeflow.keras.layers.no_such_module"):
        importlib.import_module("tapeflow.keras.layers.no_such_module")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tapeflow.keras.no_such_namespace")
    with pytest.raises(AttributeError, match="no_such_thing"):
        tf.keras.no_such_thing


def test_keras_submodules_load_lazily_in_a_fresh_process():
    code = ("import sys, tapeflow\n"
            "print(sorted(m for m in sys.modules if m.startswith('tapeflow.keras.')))\n"
            "from tapeflow.keras.layers import Dense\n"
            "import tapeflow.layers\n"
            "print(tapeflow.keras.layers is tapeflow.layers)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.splitlines()
    assert out == ["[]", "True"]


def test_preprocessing_namespaces():
    from tapeflow.keras.preprocessing.sequence import pad_sequences
    from tapeflow.keras.preprocessing.text import Tokenizer
    from tapeflow.keras.preprocessing import image
    assert pad_sequences is tf.keras.utils.pad_sequences
    assert image.img_to_array is tf.keras.utils.img_to_array
    assert Tokenizer is tf.keras.preprocessing.text.Tokenizer


# -- keras.ops -------------------------------------------------------------------------------

ops = importlib.import_module("tapeflow.keras.ops")


def test_ops_reductions_and_shapes_as_numpy():
    x = np.arange(6.0).reshape(2, 3)
    assert ops.mean(x).numpy() == 2.5
    np.testing.assert_allclose(ops.sum(x, axis=0).numpy(), [3.0, 5.0, 7.0])
    np.testing.assert_allclose(ops.max(x, axis=1, keepdims=True).numpy(), [[2.0], [5.0]])
    assert ops.argmax(np.array([[1, 9], [7, 2]])).numpy() == 1  # the flattened index
    assert ops.argmax(np.array([[1, 9], [7, 2]]), axis=0).dtype == tf.int32
    assert ops.shape(x) == (2, 3) and ops.ndim(x) == 2
    assert ops.concatenate([x, x]).shape == (4, 3)  # axis=0 by default
    assert ops.stack([x, x], axis=1).shape == (2, 2, 3)
    assert [p.shape[0] for p in ops.split(np.arange(10.0), [3, 5])] == [3, 2, 5]
    np.testing.assert_allclose(ops.take_along_axis(x, np.array([[2], [0]]), axis=1).numpy(),
                               [[2.0], [3.0]])
    assert ops.tile(np.array([1, 2]), 2).numpy().tolist() == [1, 2, 1, 2]


def test_ops_creation_and_dtypes_follow_keras3():
    assert ops.arange(3).dtype == tf.int32 and ops.arange(0, 1, 0.5).dtype == tf.float32
    assert ops.convert_to_tensor(1.5).dtype == tf.float32
    assert ops.convert_to_tensor(np.float64(1.5)).dtype == tf.float64
    assert ops.zeros((2,)).dtype == tf.float32 and ops.ones((2,), "int32").dtype == tf.int32
    np.testing.assert_array_equal(ops.one_hot(np.array([0, 2]), 3).numpy(),
                                  [[1, 0, 0], [0, 0, 1]])
    np.testing.assert_allclose(ops.eye(2, k=1).numpy(), [[0, 1], [0, 0]])


def test_ops_elementwise_values():
    x = tf.constant([-2.0, 0.5, 3.0])
    np.testing.assert_allclose(ops.clip(x, -1, 1).numpy(), [-1.0, 0.5, 1.0])
    np.testing.assert_allclose(ops.where(x > 0, x, 0).numpy(), [0.0, 0.5, 3.0])
    rows, = ops.where(np.array([True, False, True]))
    assert rows.numpy().tolist() == [0, 2]
    np.testing.assert_allclose(ops.softmax(np.log(np.array([1.0, 3.0]))).numpy(), [0.25, 0.75])
    np.testing.assert_allclose(ops.hard_sigmoid(x).numpy(), [1 / 6, 3.5 / 6, 1.0], rtol=1e-6)
    np.testing.assert_allclose(ops.leaky_relu(x).numpy(), [-0.4, 0.5, 3.0])
    assert ops.add(x, 1).dtype == tf.float32  # a Python number takes x's dtype


def test_ops_dot_is_numpy_dot():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(60.0).reshape(4, 3, 5)
    np.testing.assert_allclose(ops.dot(a, b).numpy(), np.dot(a, b))
    np.testing.assert_allclose(ops.dot(a, np.ones(3)).numpy(), np.dot(a, np.ones(3)))
    np.testing.assert_allclose(ops.matmul(a, a.T).numpy(), a @ a.T)


@pytest.mark.parametrize("fn, shapes", [
    (lambda x: ops.take_along_axis(x, np.array([[2, 0], [1, 1]]), axis=1), [(2, 3)]),
    (lambda x, y: ops.dot(x, y), [(2, 3), (4, 3, 2)]),
    (lambda x: ops.clip(x, -0.5, 0.5), [(3, 4)]),
    (lambda x, y: ops.where(x > 0, x, y), [(2, 3), (2, 3)]),
    (lambda x: ops.logsumexp(x, axis=1), [(2, 3)]),
    (lambda x: ops.hard_sigmoid(x), [(2, 3)]),
    (lambda x: ops.take(x, np.array([4, 0])), [(2, 3)]),
    (lambda x: ops.mean(x, axis=(0, 1)), [(2, 0)]),
])
def test_ops_composites_are_differentiable_twice(fn, shapes):
    rng = np.random.default_rng(0)
    gradcheck(fn, *[rng.standard_normal(s) + 0.1 for s in shapes], order=2)


def test_ops_where_needs_both_branches():
    with pytest.raises(ValueError, match="x1.*x2"):
        ops.where(np.array([True]), 1.0)


# -- keras.random and mixed_precision --------------------------------------------------------

random = importlib.import_module("tapeflow.keras.random")


def test_random_seeds_as_keras3():
    a, b = random.normal((3,), seed=7), random.normal((3,), seed=7)
    np.testing.assert_array_equal(a.numpy(), b.numpy())  # an int seed is stateless
    gen1, gen2 = random.SeedGenerator(5), random.SeedGenerator(5)
    first, second = random.uniform((3,), seed=gen1), random.uniform((3,), seed=gen1)
    assert not np.array_equal(first.numpy(), second.numpy())
    np.testing.assert_array_equal(first.numpy(), random.uniform((3,), seed=gen2).numpy())
    ints = random.randint((1000,), 2, 5, seed=1).numpy()
    assert ints.dtype == np.int32 and set(ints.tolist()) == {2, 3, 4}
    assert random.normal((2, 2)).dtype == tf.float32
    with pytest.raises(ValueError, match="seed"):
        random.normal((2,), seed="abc")


def test_random_dropout_and_shuffle():
    x = np.ones((1000,), np.float32)
    out = random.dropout(x, 0.25, seed=3).numpy()
    assert set(np.unique(out).tolist()) <= {0.0, float(np.float32(1 / 0.75))}
    assert 0.2 < (out == 0).mean() < 0.3
    shuffled = random.shuffle(np.arange(10), seed=1).numpy()
    assert sorted(shuffled.tolist()) == list(range(10))


def test_mixed_precision_runs_float32_only():
    mp = tf.keras.mixed_precision
    mp.set_global_policy("float32")
    assert mp.global_policy().name == "float32"
    policy = mp.Policy("mixed_float16")
    assert (policy.compute_dtype, policy.variable_dtype) == ("float16", "float32")
    with pytest.raises(NotImplementedError, match="mixed_float16"):
        mp.set_global_policy("mixed_float16")
    with pytest.raises(ValueError, match="float17"):
        mp.Policy("float17")


def test_the_tf_2_3_path_of_the_preprocessing_layers():
    from tapeflow.keras.layers.experimental import preprocessing
    assert preprocessing.Rescaling is tf.keras.layers.Rescaling
    assert tf.keras.layers.experimental.preprocessing.RandomFlip is tf.keras.layers.RandomFlip
    assert preprocessing.Normalization is tf.keras.layers.Normalization


def test_keras_saving_namespace():
    from tapeflow.keras.saving import register_keras_serializable
    assert register_keras_serializable is tf.keras.utils.register_keras_serializable
    assert tf.keras.saving.load_model is tf.keras.models.load_model
    assert tf.keras.saving.get_registered_object is tf.keras.utils.get_registered_object
