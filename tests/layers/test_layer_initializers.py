"""tf.keras.initializers, regularizers, constraints and activations: values,
statistics, seeds, lookup by name and the errors for unknown names."""

import math

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing import gradcheck

I = tf.keras.initializers
R = tf.keras.regularizers
C = tf.keras.constraints
A = tf.keras.activations


def test_compute_fans_and_receptive_field():
    assert I.compute_fans(()) == (1, 1)
    assert I.compute_fans((5,)) == (5, 5)
    assert I.compute_fans((3, 4)) == (3, 4)
    assert I.compute_fans((3, 3, 8, 16)) == (72, 144)  # Conv2D kernel (kh, kw, in, out)


@pytest.mark.parametrize("name,limit", [
    ("glorot_uniform", lambda fi, fo: math.sqrt(6 / (fi + fo))),
    ("he_uniform", lambda fi, fo: math.sqrt(6 / fi)),
    ("lecun_uniform", lambda fi, fo: math.sqrt(3 / fi)),
])
def test_uniform_variance_scaling_limits(name, limit):
    values = I.get(name)((3, 3, 20, 40), dtype="float64").numpy()
    bound = limit(180, 360)
    assert values.dtype == np.float64
    assert np.abs(values).max() <= bound and np.abs(values).max() > 0.95 * bound
    assert values.std() == pytest.approx(bound / math.sqrt(3), rel=0.05)


@pytest.mark.parametrize("name,std", [("glorot_normal", math.sqrt(2 / 300)),
                                      ("he_normal", math.sqrt(2 / 100)),
                                      ("lecun_normal", math.sqrt(1 / 100))])
def test_truncated_normal_variance_scaling(name, std):
    values = I.get(name)((100, 200)).numpy()
    assert values.dtype == np.float32
    assert values.std() == pytest.approx(std, rel=0.05)
    assert np.abs(values).max() <= 2 * std / 0.87962566103423978 + 1e-6


def test_simple_initializers():
    assert np.all(I.Zeros()((2, 3)).numpy() == 0) and np.all(I.get("ones")((2,)).numpy() == 1)
    np.testing.assert_array_equal(I.Constant(3.0)((2,)).numpy(), [3.0, 3.0])
    np.testing.assert_array_equal(I.Identity(gain=2.0)((2, 3)).numpy(), 2 * np.eye(2, 3))
    uniform = I.get("uniform")((1000,)).numpy()
    assert -0.05 <= uniform.min() and uniform.max() < 0.05
    normal = I.RandomNormal(mean=1.0, stddev=0.1)((5000,)).numpy()
    assert normal.mean() == pytest.approx(1.0, abs=0.01)
    truncated = I.TruncatedNormal(stddev=1.0)((5000,)).numpy()
    assert np.abs(truncated).max() <= 2.0


@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (6, 2), (2, 3, 4)])
def test_orthogonal(shape):
    q = I.Orthogonal(gain=2.0, seed=1)(shape, dtype="float64").numpy()
    flat = q.reshape(-1, shape[-1])
    if flat.shape[0] >= flat.shape[1]:
        np.testing.assert_allclose(flat.T @ flat, 4 * np.eye(flat.shape[1]), atol=1e-10)
    else:
        np.testing.assert_allclose(flat @ flat.T, 4 * np.eye(flat.shape[0]), atol=1e-10)
    with pytest.raises(ValueError, match="rank >= 2"):
        I.Orthogonal()((3,))


def test_seeds():
    a = I.GlorotUniform(seed=3)((4, 4)).numpy()
    np.testing.assert_array_equal(a, I.GlorotUniform(seed=3)((4, 4)).numpy())
    assert not np.array_equal(a, I.GlorotUniform(seed=4)((4, 4)).numpy())
    tf.random.set_seed(11)
    b = I.GlorotUniform()((4, 4)).numpy()
    tf.random.set_seed(11)
    np.testing.assert_array_equal(b, I.GlorotUniform()((4, 4)).numpy())
    tf.random.set_seed(None)


def test_get_and_serialize():
    assert isinstance(I.get("GlorotUniform"), I.GlorotUniform)
    assert I.get(None) is None
    init = I.VarianceScaling(scale=2.0, mode="fan_out", distribution="uniform", seed=1)
    clone = I.get(I.serialize(init))
    assert clone.get_config() == init.get_config()
    with pytest.raises(ValueError, match="Unknown initializer: 'glorot'.*'glorot_uniform'"):
        I.get("glorot")
    with pytest.raises(ValueError, match="mode"):
        I.VarianceScaling(mode="fan")


def test_regularizers():
    w = tf.constant([[1.0, -2.0], [3.0, 0.0]])
    assert float(R.L1(0.1)(w)) == pytest.approx(0.6)
    assert float(R.L2()(w)) == pytest.approx(0.14)  # default 0.01
    assert float(R.l1_l2(l1=0.1, l2=0.2)(w)) == pytest.approx(0.6 + 2.8)
    assert float(R.get("l1")(w)) == pytest.approx(0.06)
    assert R.get({"class_name": "L2", "config": {"l2": 0.5}}).l2 == 0.5
    with pytest.raises(ValueError, match="Unknown regularizer: 'l3'.*'l1'"):
        R.get("l3")
    with pytest.raises(ValueError, match="non-negative"):
        R.L2(-1.0)
    gradcheck(lambda x: R.L1L2(0.3, 0.7)(x), np.array([[0.5, -1.5], [2.0, 0.3]]))


def test_constraints():
    w = tf.constant([[3.0, 0.1], [4.0, -0.1]])
    max_norm = C.MaxNorm(2.0)(w).numpy()  # column norms 5 and ~0.14
    np.testing.assert_allclose(max_norm[:, 0], [1.2, 1.6], rtol=1e-5)
    np.testing.assert_allclose(max_norm[:, 1], [0.1, -0.1], rtol=1e-5)
    np.testing.assert_allclose(C.get("non_neg")(w).numpy(), [[3.0, 0.1], [4.0, 0.0]])
    unit = C.UnitNorm(axis=0)(w).numpy()
    np.testing.assert_allclose(np.linalg.norm(unit, axis=0), [1.0, 1.0], rtol=1e-5)
    mm = C.MinMaxNorm(min_value=1.0, max_value=2.0)(w).numpy()
    np.testing.assert_allclose(np.linalg.norm(mm, axis=0), [2.0, 1.0], rtol=1e-5)
    with pytest.raises(ValueError, match="Unknown constraint: 'maxnorm'.*'max_norm'"):
        C.get("maxnorm")


def _np_softplus(x):
    return np.logaddexp(0, x)


def _erf(x):
    return np.vectorize(math.erf)(x)


REFERENCES = {
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.2 * x),
    "elu": lambda x: np.where(x >= 0, x, np.expm1(x)),
    "selu": lambda x: 1.0507009873554805 * np.where(x >= 0, x,
                                                    1.6732632423543772 * np.expm1(x)),
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "hard_sigmoid": lambda x: np.clip(x + 3, 0, 6) / 6,
    "hard_silu": lambda x: x * np.clip(x + 3, 0, 6) / 6,
    "tanh": np.tanh,
    "softplus": _np_softplus,
    "softsign": lambda x: x / (1 + np.abs(x)),
    "swish": lambda x: x / (1 + np.exp(-x)),
    "silu": lambda x: x / (1 + np.exp(-x)),
    "mish": lambda x: x * np.tanh(_np_softplus(x)),
    "exponential": np.exp,
    "linear": lambda x: x,
    "softmax": lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True),
    "log_softmax": lambda x: x - np.log(np.exp(x).sum(-1, keepdims=True)),
    "gelu": lambda x: 0.5 * x * (1 + _erf(x / math.sqrt(2))),
}

# Points away from the kinks (0, +-3, 6), so finite differences are valid.
POINTS = np.array([[-7.3, -3.7, -1.2, -0.4], [0.3, 1.1, 2.6, 6.8]])


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_activation_values_and_gradients(name):
    fn = A.get(name)
    if name == "gelu" and not hasattr(tf.math, "erf") and not hasattr(tf.nn, "gelu"):
        pytest.skip("exact gelu needs tf.math.erf from the op library")
    out = fn(tf.constant(POINTS.astype(np.float32)))
    np.testing.assert_allclose(out.numpy(), REFERENCES[name](POINTS), rtol=1e-5, atol=1e-6)
    for shape in [(), (3,), (2, 3)]:
        if name in ("softmax", "log_softmax") and shape == ():
            continue
        x = np.random.default_rng(0).standard_normal(shape) * 2 + 0.05
        gradcheck(fn, x)


def test_gelu_approximate():
    x = POINTS
    expected = 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x ** 3)))
    np.testing.assert_allclose(A.gelu(tf.constant(x), approximate=True).numpy(), expected,
                               rtol=1e-6)
    gradcheck(lambda t: A.gelu(t, approximate=True), x)


def test_relu_with_parameters_and_get():
    x = tf.constant([-2.0, 0.5, 3.0, 8.0])
    np.testing.assert_allclose(A.relu(x, negative_slope=0.1, max_value=5.0,
                                      threshold=1.0).numpy(), [-0.3, -0.05, 3.0, 5.0],
                               rtol=1e-6)
    assert A.get(None) is A.linear and A.get(np.tanh) is np.tanh
    assert A.serialize(A.get("relu")) == "relu"
    with pytest.raises(ValueError, match="Unknown activation function: 'reluu'.*'relu'"):
        A.get("reluu")


def test_softplus_is_stable_and_gradient_at_zero_is_half():
    x = tf.constant([-1000.0, 0.0, 1000.0])
    np.testing.assert_allclose(A.softplus(x).numpy(), [0.0, math.log(2), 1000.0], rtol=1e-6)
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(A.softplus(x))
    np.testing.assert_allclose(tape.gradient(y, x).numpy(), [0.0, 0.5, 1.0])


def test_a_function_initializer_is_saved_as_keras_stores_functions(tmp_path):
    """`kernel_initializer=tf.random.normal` (TF's basics guide): get_config stores the
    function by module and name, and a saved model loads it back; a function tapeflow
    does not define is never looked up in other modules."""
    model = tf.keras.Sequential([tf.keras.Input((2,)),
                                 tf.keras.layers.Dense(1, kernel_initializer=tf.random.normal)])
    spec = model.layers[0].get_config()["kernel_initializer"]
    assert spec == {"module": "tapeflow.random", "class_name": "function", "config": "normal",
                    "registered_name": "function"}
    assert tf.keras.initializers.deserialize(spec) is tf.random.normal
    model.save(tmp_path / "m.keras")
    loaded = tf.keras.models.load_model(tmp_path / "m.keras")
    assert loaded.layers[0].kernel_initializer is tf.random.normal
    with pytest.raises(ValueError, match="found again only among tapeflow's own"):
        tf.keras.initializers.deserialize({"module": "os", "class_name": "function",
                                           "config": "system"})
