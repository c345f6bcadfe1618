"""Elementwise ops and activations: gradients (first and second order) over the shared
shape lists, values against NumPy, and TF's documented corner behaviour."""

import math

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.ops import math as _m
from tapeflow.testing.gradients import BINARY_SHAPES, UNARY_SHAPES, Case


def _rand(shape, low=-2.0, high=2.0, seed=0, away_from=None):
    """Uniform values; with `away_from`, none closer than 0.1 to those points."""
    values = np.random.default_rng(seed).uniform(low, high, shape)
    for point in away_from or ():
        close = np.abs(values - point) < 0.1
        values = np.where(close, point + 0.1 * np.sign(values - point + 1e-12) + 0.05, values)
    return values


# name -> (function, low, high, kinks to stay away from)
UNARY = {
    "negative": (tf.negative, -2, 2, ()),
    "square": (tf.square, -2, 2, ()),
    "sqrt": (tf.sqrt, 0.5, 3, ()),
    "rsqrt": (tf.math.rsqrt, 0.5, 3, ()),
    "reciprocal": (tf.math.reciprocal, 0.5, 3, ()),
    "exp": (tf.exp, -2, 2, ()),
    "expm1": (tf.math.expm1, -2, 2, ()),
    "log": (tf.math.log, 0.5, 3, ()),
    "log1p": (tf.math.log1p, -0.5, 3, ()),
    "abs": (tf.abs, -2, 2, (0,)),
    "sin": (tf.sin, -3, 3, ()),
    "cos": (tf.cos, -3, 3, ()),
    "tan": (tf.tan, -1.2, 1.2, ()),
    "sinh": (tf.sinh, -2, 2, ()),
    "cosh": (tf.cosh, -2, 2, ()),
    "asin": (tf.asin, -0.8, 0.8, ()),
    "acos": (tf.acos, -0.8, 0.8, ()),
    "atan": (tf.atan, -3, 3, ()),
    "tanh": (tf.tanh, -2, 2, ()),
    "sigmoid": (tf.sigmoid, -4, 4, ()),
    "erf": (tf.math.erf, -2.5, 2.5, ()),
    "erfc": (tf.math.erfc, -2.5, 2.5, ()),
    "softplus": (tf.math.softplus, -4, 4, ()),
    "softsign": (tf.math.softsign, -2, 2, (0,)),
    "log_sigmoid": (tf.math.log_sigmoid, -4, 4, ()),
    "relu": (tf.math.relu, -2, 2, (0,)),
    "relu6": (tf.math.relu6, -2, 8, (0, 6)),
    "leaky_relu": (tf.math.leaky_relu, -2, 2, (0,)),
    "elu": (tf.math.elu, -2, 2, (0,)),
    "selu": (tf.math.selu, -2, 2, (0,)),
    "gelu": (tf.math.gelu, -3, 3, ()),
    "gelu_tanh": (lambda x: tf.math.gelu(x, approximate=True), -3, 3, ()),
    "silu": (tf.math.silu, -3, 3, ()),
    "swish_beta": (lambda x: tf.math.swish(x, beta=1.5), -3, 3, ()),
}

BINARY = {
    "add": (tf.add, (-2, 2), (-2, 2)),
    "subtract": (tf.subtract, (-2, 2), (-2, 2)),
    "multiply": (tf.multiply, (-2, 2), (-2, 2)),
    "divide": (tf.divide, (-2, 2), (0.5, 2)),
    "divide_no_nan": (tf.math.divide_no_nan, (-2, 2), (0.5, 2)),
    "pow": (tf.pow, (0.5, 2), (-1.5, 1.5)),
    "maximum": (tf.maximum, (-2, 2), (-2, 2)),
    "minimum": (tf.minimum, (-2, 2), (-2, 2)),
    "squared_difference": (tf.math.squared_difference, (-2, 2), (-2, 2)),
    "floormod": (tf.math.floormod, (0.1, 5), (1.3, 1.7)),
}

GRADCHECK_CASES = []
for _name, (_fn, _lo, _hi, _kinks) in UNARY.items():
    for _shape in UNARY_SHAPES:
        GRADCHECK_CASES.append(Case(f"{_name}{_shape}", _fn, _rand(_shape, _lo, _hi, 1, _kinks)))
for _name, (_fn, (_xl, _xh), (_yl, _yh)) in BINARY.items():
    for _sx, _sy in BINARY_SHAPES:
        GRADCHECK_CASES.append(Case(f"{_name}{_sx}{_sy}", _fn, _rand(_sx, _xl, _xh, 2),
                                    _rand(_sy, _yl, _yh, 3)))
for _sc, _sx, _sy in [((2, 3), (2, 3), (2, 3)), ((2, 1), (1, 3), ()), ((3,), (2, 3), (2, 1))]:
    _cond = np.random.default_rng(4).uniform(size=_sc) > 0.5
    GRADCHECK_CASES.append(Case(f"where{_sc}{_sx}{_sy}", lambda x, y, c=_cond: tf.where(c, x, y),
                                _rand(_sx, seed=5), _rand(_sy, seed=6)))
GRADCHECK_CASES += [
    Case("clip_by_value", lambda t: tf.clip_by_value(t, -0.5, 0.7),
         np.array([-1.0, -0.3, 0.2, 0.69, 0.9])),
    Case("clip_by_value_tensor_bounds", lambda t, lo, hi: tf.clip_by_value(t, lo, hi),
         np.array([[-1.0, 0.1, 2.0]]), np.array(-0.5), np.array([0.5, 0.6, 0.7])),
    Case("add_n", lambda a, b, c: tf.add_n([a, b, c]), _rand((2, 3), seed=7),
         _rand((2, 3), seed=8), _rand((2, 3), seed=9)),
    # The cast primitive between equal dtypes: a float32 round trip would defeat the
    # float64 finite differences.
    Case("cast", lambda x: _m.cast(x, dtype=np.dtype(np.float64)) * x, _rand((3,))),
    Case("identity", tf.identity, _rand((2, 3))),
    # sign's gradient is zeros (TF); times x, the product's gradient is sign(x).
    Case("sign", lambda x: tf.sign(x) * x, np.array([-1.5, -0.5, 0.4, 2.0])),
]


@pytest.mark.parametrize("case", GRADCHECK_CASES, ids=repr)
def test_gradcheck(case):
    case.check()


# -- values against NumPy ------------------------------------------------------
NUMPY_UNARY = {
    "sqrt": np.sqrt, "exp": np.exp, "expm1": np.expm1, "log": np.log, "log1p": np.log1p,
    "sin": np.sin, "cos": np.cos, "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "tanh": np.tanh,
    "abs": np.abs, "square": np.square, "negative": np.negative,
    "rsqrt": lambda x: 1 / np.sqrt(x), "reciprocal": lambda x: 1 / x,
    "sigmoid": lambda x: 1 / (1 + np.exp(-x)),
    "softplus": lambda x: np.log1p(np.exp(x)),
    "softsign": lambda x: x / (1 + np.abs(x)),
    "log_sigmoid": lambda x: -np.log1p(np.exp(-x)),
    "relu": lambda x: np.maximum(x, 0),
    "relu6": lambda x: np.clip(x, 0, 6),
    "leaky_relu": lambda x: np.where(x > 0, x, 0.2 * x),
    "elu": lambda x: np.where(x > 0, x, np.expm1(x)),
    "selu": lambda x: 1.0507009873554805 * np.where(x > 0, x, 1.6732632423543772 * np.expm1(x)),
    "erf": np.vectorize(math.erf), "erfc": np.vectorize(math.erfc),
    "gelu": lambda x: 0.5 * x * (1 + np.vectorize(math.erf)(x / math.sqrt(2))),
    "gelu_tanh": lambda x: 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi)
                                                  * (x + 0.044715 * x ** 3))),
    "silu": lambda x: x / (1 + np.exp(-x)),
    "swish_beta": lambda x: x / (1 + np.exp(-1.5 * x)),
}


@pytest.mark.parametrize("name", sorted(NUMPY_UNARY))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_unary_values_match_numpy(name, dtype):
    fn, lo, hi, _ = UNARY[name]
    x = _rand((4, 5), lo, hi, seed=11).astype(dtype)
    out = fn(tf.constant(x))
    assert out.dtype == dtype
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(out.numpy(), NUMPY_UNARY[name](x.astype(np.float64)),
                               rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_values_match_numpy(name):
    reference = {"add": np.add, "subtract": np.subtract, "multiply": np.multiply,
                 "divide": np.divide, "divide_no_nan": np.divide, "pow": np.power,
                 "maximum": np.maximum, "minimum": np.minimum, "floormod": np.mod,
                 "squared_difference": lambda a, b: (a - b) ** 2}[name]
    fn, (xl, xh), (yl, yh) = BINARY[name]
    x, y = _rand((2, 3), xl, xh, 12), _rand((3,), yl, yh, 13)
    np.testing.assert_allclose(fn(tf.constant(x), tf.constant(y)).numpy(), reference(x, y),
                               rtol=1e-12)


def test_erf_is_float64_accurate():
    x = np.concatenate([np.linspace(-7, 7, 14001), np.logspace(-300, 1, 500),
                        -np.logspace(-12, 0.5, 300), [1.5, 1.4999999, 3.0]])
    ref = np.array([math.erf(v) for v in x])
    ref_c = np.array([math.erfc(v) for v in x])
    got = tf.math.erf(tf.constant(x)).numpy()
    got_c = tf.math.erfc(tf.constant(x)).numpy()
    nonzero = ref != 0
    assert np.max(np.abs(got - ref)[nonzero] / np.abs(ref[nonzero])) < 1e-12
    assert np.all(got[~nonzero] == 0)
    assert np.max(np.abs(got_c - ref_c) / ref_c) < 1e-12
    limits = tf.math.erf(tf.constant([np.inf, -np.inf, 40.0, np.nan])).numpy()
    np.testing.assert_array_equal(limits[:3], [1.0, -1.0, 1.0])
    assert np.isnan(limits[3])


# -- numerical stability ---------------------------------------------------------
def test_activations_do_not_overflow_in_float32():
    x = tf.constant([-1e4, -100.0, 0.0, 100.0, 1e4], dtype=tf.float32)
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # a warning fails
        np.testing.assert_allclose(tf.sigmoid(x).numpy(), [0, 0, 0.5, 1, 1], atol=1e-30)
        np.testing.assert_allclose(tf.math.softplus(x).numpy(), [0, 3.7200760e-44, 0.6931472,
                                                                 100, 1e4], rtol=1e-6, atol=1e-38)
        np.testing.assert_allclose(tf.math.log_sigmoid(x).numpy(),
                                   [-1e4, -100, -0.6931472, -3.7200760e-44, 0], rtol=1e-6,
                                   atol=1e-38)
        np.testing.assert_allclose(tf.math.log1p(tf.constant([1e4, 1e-10])).numpy(),
                                   [9.21044036697651, 1e-10], rtol=1e-6)
        np.testing.assert_allclose(tf.math.expm1(tf.constant([-1e4, 1e-10])).numpy(),
                                   [-1, 1e-10], rtol=1e-6)
        for fn in (tf.math.elu, tf.math.selu, tf.math.gelu, tf.math.silu, tf.math.softsign):
            assert np.all(np.isfinite(fn(x).numpy()))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.math.softplus(x) + tf.sigmoid(x))
    grad = tape.gradient(y, x).numpy()
    np.testing.assert_allclose(grad, [0, 0, 0.75, 1, 1], atol=1e-6)


# -- TF's corner behaviour ---------------------------------------------------------
def _grad(fn, x):
    x = tf.constant(np.asarray(x, np.float64))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = fn(x)
    return tape.gradient(y, x)


def test_gradients_at_kinks_follow_tf():
    at = [0.0, 6.0]
    np.testing.assert_array_equal(_grad(tf.abs, at).numpy(), [0, 1])
    np.testing.assert_array_equal(_grad(tf.math.relu, at).numpy(), [0, 1])
    np.testing.assert_array_equal(_grad(tf.math.relu6, at).numpy(), [0, 0])
    np.testing.assert_allclose(_grad(tf.math.leaky_relu, at).numpy(), [0.2, 1])
    np.testing.assert_allclose(_grad(lambda x: tf.math.leaky_relu(x, alpha=0.1), [-3.0]).numpy(),
                               [0.1])
    np.testing.assert_allclose(_grad(tf.math.elu, at).numpy(), [1, 1])
    np.testing.assert_allclose(_grad(tf.math.softsign, at).numpy(), [1, 1 / 49])


def test_maximum_minimum_give_ties_to_the_first_argument():
    x, y = tf.constant(1.0), tf.constant(1.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch([x, y])
        hi, lo = tf.maximum(x, y), tf.minimum(x, y)
    assert tape.gradient(hi, [x, y])[0].numpy() == 1.0
    assert tape.gradient(hi, [x, y])[1].numpy() == 0.0
    assert tape.gradient(lo, [x, y])[0].numpy() == 1.0


def test_clip_by_value_gradient_passes_inside_and_on_the_bounds():
    t = tf.constant([-2.0, -1.0, 0.0, 1.0, 2.0])
    lo, hi = tf.constant(-1.0), tf.constant(1.0)
    with tf.GradientTape() as tape:
        tape.watch([t, lo, hi])
        y = tf.reduce_sum(tf.clip_by_value(t, lo, hi) * tf.constant([1.0, 2.0, 3.0, 4.0, 5.0]))
    gt, glo, ghi = tape.gradient(y, [t, lo, hi])
    np.testing.assert_array_equal(gt.numpy(), [0, 2, 3, 4, 0])
    assert glo.numpy() == 1.0 and ghi.numpy() == 5.0
    np.testing.assert_array_equal(tf.clip_by_value([-2.0, 0.5, 3.0], 0.0, 1.0).numpy(),
                                  [0.0, 0.5, 1.0])


def test_rounding_ops_have_no_gradient_and_round_half_to_even():
    x = tf.constant([0.5, 1.5, 2.5, -0.5, -1.7])
    np.testing.assert_array_equal(tf.round(x).numpy(), [0, 2, 2, -0, -2])
    np.testing.assert_array_equal(tf.floor(x).numpy(), [0, 1, 2, -1, -2])
    np.testing.assert_array_equal(tf.math.ceil(x).numpy(), [1, 2, 3, -0, -1])
    for fn in (tf.round, tf.floor, tf.math.ceil, lambda v: tf.math.floordiv(v, 2.0)):
        assert _grad(fn, [0.3, 1.2]) is None
    np.testing.assert_array_equal(_grad(tf.sign, [0.3, -1.2]), [0.0, 0.0])  # TF: zeros
    assert tf.round(tf.constant([3])).numpy()[0] == 3


def test_floormod_and_floordiv_follow_python_signs_and_tf_gradient():
    x, y = tf.constant([7.0, -7.0, 7.5]), tf.constant([3.0, 3.0, -2.0])
    np.testing.assert_array_equal(tf.math.floormod(x, y).numpy(), [1.0, 2.0, -0.5])
    np.testing.assert_array_equal((x // y).numpy(), [2.0, -3.0, -4.0])
    np.testing.assert_array_equal((tf.constant([7, -7]) % 3).numpy(), [1, 2])
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        r = tf.math.floormod(x, y)
    gx, gy = tape.gradient(r, [x, y])
    np.testing.assert_array_equal(gx.numpy(), [1, 1, 1])
    np.testing.assert_array_equal(gy.numpy(), [-2, 3, 4])


def test_pow_gradient_in_the_exponent_is_zero_for_nonpositive_base():
    x, y = tf.constant([0.0, -2.0, 2.0]), tf.constant([2.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(y)
        z = tf.pow(x, y)
    np.testing.assert_allclose(tape.gradient(z, y).numpy(), [0.0, 0.0, 8 * np.log(2)])


def test_where_selects_and_returns_indices():
    c = tf.constant([[True, False], [False, True]])
    np.testing.assert_array_equal(tf.where(c, 1.0, -1.0).numpy(), [[1, -1], [-1, 1]])
    idx = tf.where(c)
    assert idx.dtype == tf.int64
    np.testing.assert_array_equal(idx.numpy(), [[0, 0], [1, 1]])
    np.testing.assert_array_equal(tf.where(tf.constant([3, 0, -1])).numpy(), [[0], [2]])
    x = tf.constant([1.0, 2.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.where(c, x, tf.zeros((2, 2)))
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [1.0, 1.0])


def test_divide_no_nan_and_integer_division():
    x, y = tf.constant([1.0, 2.0]), tf.constant([0.0, 4.0])
    np.testing.assert_array_equal(tf.math.divide_no_nan(x, y).numpy(), [0.0, 0.5])
    with tf.GradientTape() as tape:
        tape.watch([x, y])
        z = tf.math.divide_no_nan(x, y)
    gx, gy = tape.gradient(z, [x, y])
    np.testing.assert_array_equal(gx.numpy(), [0.0, 0.25])
    np.testing.assert_array_equal(gy.numpy(), [0.0, -2 / 16])
    q = tf.divide(tf.constant([1, 2]), tf.constant([2, 2]))
    assert q.dtype == tf.float64 and q.numpy().tolist() == [0.5, 1.0]


@pytest.mark.parametrize("dtype, expected", [
    ("uint8", "float32"), ("int8", "float32"), ("uint16", "float32"), ("int16", "float32"),
    ("int32", "float64"), ("uint32", "float64"), ("int64", "float64")])
def test_integer_true_division_takes_tfs_float(dtype, expected):
    # TF's _TRUEDIV_TABLE: 8- and 16-bit integers divide as float32, wider as float64,
    # so that `uint8_images / 255` feeds float32 weights (TF's Core APIs MLP guide).
    images = tf.constant(np.array([[0, 20, 100]], dtype))
    for scaled in (images / 100, tf.math.divide(images, tf.constant(np.array(100, dtype))),
                   tf.math.truediv(images, tf.constant(np.array(100, dtype)))):
        assert scaled.dtype == tf.as_dtype(expected)
        np.testing.assert_allclose(scaled.numpy(), [[0.0, 0.2, 1.0]], rtol=1e-7)
    weights = tf.ones((3, 2), tf.as_dtype(expected))
    assert (images / 100 @ weights).dtype == tf.as_dtype(expected)


def test_is_nan_is_finite_and_add_n():
    x = tf.constant([1.0, np.nan, np.inf, -np.inf])
    assert tf.math.is_nan(x).numpy().tolist() == [False, True, False, False]
    assert tf.math.is_finite(x).numpy().tolist() == [True, False, False, False]
    assert tf.math.is_inf(x).numpy().tolist() == [False, False, True, True]
    total = tf.add_n([tf.constant([1.0, 2.0]), [3.0, 4.0], np.array([5.0, 6.0], np.float32)])
    assert total.numpy().tolist() == [9.0, 12.0]


def test_activation_names_and_exports():
    from tapeflow import math as tf_math
    for name in tf_math.NN_ACTIVATIONS:
        assert callable(getattr(tf.math, name))
    for name in ("relu6", "leaky_relu", "elu", "selu", "gelu", "silu", "swish", "softsign"):
        assert name not in tf_math.__all__
    for name in ("add", "reduce_logsumexp", "clip_by_value", "where", "add_n", "cumsum"):
        assert getattr(tf, name) is getattr(tf.math, name)
    assert tf.math.gelu(tf.constant(1.0)).numpy() == pytest.approx(0.8413447460685429, 1e-6)
    assert tf.math.gelu(tf.constant(1.0), approximate=True).numpy() == pytest.approx(
        0.8411920071, 1e-6)


def test_python_scalars_take_the_tensor_dtype():
    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    assert (2 * x).dtype == tf.float64
    assert tf.maximum(x, 1.5).numpy().tolist() == [1.5, 2.0]
    assert tf.pow(tf.constant([2, 3]), 2).numpy().tolist() == [4, 9]
