"""Size-0 tensors: every op and its gradient (first and second order, float64) on
shapes with a 0 dimension, size-0 broadcast partners included, through the public
wrappers; and the values TF documents for empty inputs (sum 0, prod 1, max -inf)."""

import warnings

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.ops import math as _m
from tapeflow.ops.registry import all_ops
from tapeflow.testing.gradients import EMPTY_BINARY_SHAPES, EMPTY_UNARY_SHAPES, Case, ops_used

from case_modules import all_cases


def _rand(shape, low=-2.0, high=2.0, seed=0):
    return np.random.default_rng(seed).uniform(low, high, shape)


UNARY = {
    "negative": tf.negative, "square": tf.square, "sqrt": tf.sqrt, "rsqrt": tf.math.rsqrt,
    "reciprocal": tf.math.reciprocal, "exp": tf.exp, "expm1": tf.math.expm1,
    "log": tf.math.log, "log1p": tf.math.log1p, "abs": tf.abs, "sin": tf.sin, "cos": tf.cos,
    "tan": tf.tan, "sinh": tf.sinh, "cosh": tf.cosh, "asin": tf.asin, "acos": tf.acos,
    "atan": tf.atan, "tanh": tf.tanh, "sigmoid": tf.sigmoid, "erf": tf.math.erf,
    "erfc": tf.math.erfc, "softplus": tf.math.softplus, "softsign": tf.math.softsign,
    "log_sigmoid": tf.math.log_sigmoid, "relu": tf.math.relu, "relu6": tf.math.relu6,
    "leaky_relu": tf.math.leaky_relu, "elu": tf.math.elu, "selu": tf.math.selu,
    "gelu": tf.math.gelu, "silu": tf.math.silu, "identity": tf.identity,
    "sign": lambda x: tf.sign(x) * x,
    "cast": lambda x: _m.cast(x, dtype=np.dtype(np.float64)) * x,
}

BINARY = {
    "add": tf.add, "subtract": tf.subtract, "multiply": tf.multiply, "divide": tf.divide,
    "divide_no_nan": tf.math.divide_no_nan, "pow": tf.pow, "maximum": tf.maximum,
    "minimum": tf.minimum, "squared_difference": tf.math.squared_difference,
    "floormod": tf.math.floormod,
}

REDUCTIONS = {"reduce_sum": tf.reduce_sum, "reduce_mean": tf.reduce_mean,
              "reduce_max": tf.reduce_max, "reduce_min": tf.reduce_min,
              "reduce_prod": tf.reduce_prod, "reduce_logsumexp": tf.reduce_logsumexp}
REDUCTION_AXES = [((0,), None, False), ((0,), 0, True), ((2, 0), 1, False), ((2, 0), 0, False),
                  ((0, 3), 0, False), ((0, 3), 1, True), ((0, 3), None, True),
                  ((2, 0, 3), (0, 2), False)]

_EMPTY_INDEX = np.zeros((0,), np.int64)

CASES = []
for _name, _fn in UNARY.items():
    for _shape in EMPTY_UNARY_SHAPES:
        CASES.append(Case(f"{_name}{_shape}", _fn, _rand(_shape, 0.5, 0.9)))
for _name, _fn in BINARY.items():
    for _sx, _sy in EMPTY_BINARY_SHAPES:
        CASES.append(Case(f"{_name}{_sx}{_sy}", _fn, _rand(_sx, 0.5, 2), _rand(_sy, 0.5, 2)))
for _name, _fn in REDUCTIONS.items():
    for _shape, _axis, _keep in REDUCTION_AXES:
        CASES.append(Case(f"{_name}{_shape}axis={_axis},keepdims={_keep}",
                          lambda x, f=_fn, a=_axis, k=_keep: f(x, axis=a, keepdims=k),
                          _rand(_shape)))
for _shape, _axis in [((0,), 0), ((2, 0), 1), ((0, 3), 0), ((0, 3), 1)]:
    for _exclusive in (False, True):
        for _reverse in (False, True):
            _tag = f"{_shape}axis={_axis},exclusive={_exclusive},reverse={_reverse}"
            CASES.append(Case(f"cumsum{_tag}", lambda x, a=_axis, e=_exclusive, r=_reverse:
                              tf.cumsum(x, axis=a, exclusive=e, reverse=r), _rand(_shape)))
            CASES.append(Case(f"cumprod{_tag}", lambda x, a=_axis, e=_exclusive, r=_reverse:
                              tf.math.cumprod(x, axis=a, exclusive=e, reverse=r), _rand(_shape)))
for _sx, _sy, _ta, _tb in [((2, 3, 0), (0, 4), False, False), ((0, 3), (3, 4), False, False),
                           ((2, 0), (0, 4), False, False), ((0, 2), (0, 4), True, False),
                           ((2, 3), (0, 3), False, True), ((0, 2, 3), (3, 4), False, False),
                           ((2, 3), (0, 3, 4), False, False), ((2, 0, 3), (2, 3, 4), False, False),
                           ((2, 2, 0), (2, 0, 4), False, False), ((0, 3), (0, 3, 4), False, False)]:
    CASES.append(Case(f"matmul{_sx}{_sy}ta={_ta},tb={_tb}",
                      lambda a, b, ta=_ta, tb=_tb: tf.matmul(a, b, transpose_a=ta,
                                                             transpose_b=tb),
                      _rand(_sx), _rand(_sy)))
for _shape, _axis in [((4, 0), -1), ((0, 3), -1), ((0, 3), 0), ((2, 0, 3), 1), ((0,), 0)]:
    CASES.append(Case(f"softmax{_shape}axis={_axis}",
                      lambda x, a=_axis: tf.nn.softmax(x, axis=a), _rand(_shape)))
    CASES.append(Case(f"log_softmax{_shape}axis={_axis}",
                      lambda x, a=_axis: tf.nn.log_softmax(x, axis=a), _rand(_shape)))
for _shape in [(0, 3), (2, 0), (2, 0, 3)]:
    CASES.append(Case(f"softmax_cross_entropy{_shape}",
                      lambda y, z: tf.nn.softmax_cross_entropy_with_logits(y, z),
                      _rand(_shape, 0, 1), _rand(_shape)))
CASES.append(Case("sparse_softmax_cross_entropy(0, 3)",
                  lambda z: tf.nn.sparse_softmax_cross_entropy_with_logits(_EMPTY_INDEX, z),
                  _rand((0, 3))))
CASES += [
    Case("reshape(0,3)->(3,0)", lambda x: tf.reshape(x, (3, 0)), _rand((0, 3))),
    Case("reshape(0,3)->(-1,3)", lambda x: tf.reshape(x, (-1, 3)), _rand((0, 3))),
    Case("reshape(2,0)->(-1,)", lambda x: tf.reshape(x, (-1,)), _rand((2, 0))),
    Case("transpose(0,3)", tf.transpose, _rand((0, 3))),
    Case("transpose(2,0,3)", lambda x: tf.transpose(x, (2, 0, 1)), _rand((2, 0, 3))),
    Case("broadcast_to(0,1)->(0,3)", lambda x: tf.broadcast_to(x, (0, 3)), _rand((0, 1))),
    Case("broadcast_to(3,)->(0,3)", lambda x: tf.broadcast_to(x, (0, 3)), _rand((3,))),
    Case("broadcast_to(1,3)->(2,0,3)", lambda x: tf.broadcast_to(x, (2, 0, 3)),
         _rand((1, 3))),
    Case("broadcast_to(2,1)->(2,0)", lambda x: tf.broadcast_to(x, (2, 0)), _rand((2, 1))),
    Case("getitem[1:1]", lambda x: x[1:1], _rand((3, 2))),
    Case("getitem[:, 0:0]", lambda x: x[:, 0:0], _rand((3, 2))),
    Case("getitem(0,3)[:, 1]", lambda x: x[:, 1], _rand((0, 3))),
    Case("getitem[empty index]", lambda x: tf.gather(x, _EMPTY_INDEX), _rand((3, 2))),
    Case("getitem[bool none]", lambda x: tf.boolean_mask(x, np.zeros(3, bool)), _rand((3, 2))),
    Case("concat(0,3)+(2,3)", lambda a, b: tf.concat([a, b], axis=0), _rand((0, 3)),
         _rand((2, 3))),
    Case("concat(2,0)+(2,3)", lambda a, b: tf.concat([a, b], axis=1), _rand((2, 0)),
         _rand((2, 3))),
    Case("concat(0,3)+(0,2)", lambda a, b: tf.concat([a, b], axis=1), _rand((0, 3)),
         _rand((0, 2))),
    Case("gather[] axis 0", lambda x: tf.gather(x, _EMPTY_INDEX), _rand((3, 4))),
    Case("gather[] axis 1", lambda x: tf.gather(x, np.zeros((2, 0), np.int64), axis=1),
         _rand((3, 4))),
    Case("gather from (0,3) axis 1", lambda x: tf.gather(x, np.array([2, 0]), axis=1),
         _rand((0, 3))),
    Case("gather[] from (0,3)", lambda x: tf.gather(x, _EMPTY_INDEX), _rand((0, 3))),
    Case("tensor_scatter_nd_max(2,0)", lambda x, u: tf.tensor_scatter_nd_max(
        x, np.zeros((0, 1), int), u), _rand((2, 0)), _rand((0, 0))),
    Case("where(0,3)", lambda x, y: tf.where(np.zeros((0, 3), bool), x, y), _rand((0, 3)),
         _rand((3,))),
    Case("where(2,0)", lambda x, y: tf.where(np.zeros((2, 1), bool), x, y), _rand((2, 0)),
         _rand(())),
    Case("einsum ij,jk->ik (2,0)(0,3)", lambda a, b: tf.einsum("ij,jk->ik", a, b),
         _rand((2, 0)), _rand((0, 3))),
    Case("einsum ij->j (0,3)", lambda a: tf.einsum("ij->j", a), _rand((0, 3))),
    Case("einsum bij,bjk->bik (0,2,3)(0,3,2)", lambda a, b: tf.einsum("bij,bjk->bik", a, b),
         _rand((0, 2, 3)), _rand((0, 3, 2))),
    Case("inv(0,2,2)", tf.linalg.inv, _rand((0, 2, 2))),
    Case("inv(0,0)", tf.linalg.inv, _rand((0, 0))),
    Case("det(0,2,2)", tf.linalg.det, _rand((0, 2, 2))),
    Case("det(0,0)", tf.linalg.det, _rand((0, 0))),
    Case("slogdet(0,2,2)", lambda x: tf.linalg.slogdet(x)[1], _rand((0, 2, 2))),
    Case("slogdet(0,0)", lambda x: tf.linalg.slogdet(x)[1], _rand((0, 0))),
    Case("solve(0,2,2)(0,2,1)", tf.linalg.solve, _rand((0, 2, 2)), _rand((0, 2, 1))),
    Case("solve(2,2)(2,0)", tf.linalg.solve, _rand((2, 2)) + 3 * np.eye(2), _rand((2, 0))),
    Case("solve(0,0)(0,3)", tf.linalg.solve, _rand((0, 0)), _rand((0, 3))),
    Case("conv2d batch 0", lambda x, w: tf.nn.conv2d(x, w, 1, "SAME"), _rand((0, 5, 5, 2)),
         _rand((3, 3, 2, 4))),
    Case("conv2d in-channels 0", lambda x, w: tf.nn.conv2d(x, w, 1, "VALID"),
         _rand((1, 4, 4, 0)), _rand((3, 3, 0, 2))),
    Case("conv2d out-channels 0", lambda x, w: tf.nn.conv2d(x, w, 1, "SAME"),
         _rand((1, 4, 4, 2)), _rand((3, 3, 2, 0))),
    Case("conv2d_bias_activation batch 0",
         lambda x, w, b: tf.nn.conv2d_bias_activation(x, w, b, 1, "SAME", activation="relu"),
         _rand((0, 4, 4, 2)), _rand((3, 3, 2, 3)), _rand((3,))),
    Case("max_pool2d batch 0", lambda x: tf.nn.max_pool2d(x, 2, 2, "VALID"),
         _rand((0, 4, 4, 2))),
    Case("max_pool2d channels 0", lambda x: tf.nn.max_pool2d(x, 2, 2, "SAME"),
         _rand((1, 4, 4, 0))),
    Case("avg_pool2d batch 0", lambda x: tf.nn.avg_pool2d(x, 2, 2, "SAME"),
         _rand((0, 4, 4, 2))),
    Case("avg_pool2d channels 0", lambda x: tf.nn.avg_pool2d(x, 2, 1, "VALID"),
         _rand((1, 4, 4, 0))),
    # A window wider than the input by less than one stride: TF's output size is 0.
    Case("conv2d VALID output 0", lambda x, w: tf.nn.conv2d(x, w, 1, "VALID"),
         _rand((1, 2, 2, 2)), _rand((3, 3, 2, 2))),
    Case("conv2d height 0", lambda x, w: tf.nn.conv2d(x, w, 1, "SAME"), _rand((1, 0, 3, 2)),
         _rand((3, 3, 2, 2))),
    Case("conv2d_bias_activation VALID output 0",
         lambda x, w, b: tf.nn.conv2d_bias_activation(x, w, b, 1, "VALID", activation="relu"),
         _rand((1, 2, 2, 2)), _rand((3, 3, 2, 3)), _rand((3,))),
    Case("max_pool2d VALID output 0", lambda x: tf.nn.max_pool2d(x, 3, 1, "VALID"),
         _rand((1, 2, 2, 2))),
    Case("avg_pool2d height 0", lambda x: tf.nn.avg_pool2d(x, 2, 2, "SAME"),
         _rand((1, 0, 3, 2))),
]


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_gradcheck_on_empty(case):
    case.check()


def _vjp_case(case):
    """The case's VJP as a function of its inputs and a cotangent: what checks the
    gradient ops (scatter_add, max_pool2d_grad, ...) in their own first argument."""
    cotangent = _rand(case.fn(*[tf.constant(x) for x in case.inputs]).shape, seed=1)

    def vjp(*tensors):
        xs, c = list(tensors[:-1]), tensors[-1]
        with tf.GradientTape() as tape:
            tape.watch(xs)
            y = case.fn(*xs)
        grads = tape.gradient(y, xs, output_gradients=c, unconnected_gradients="zero")
        return tf.add_n([tf.reduce_sum(g * w) for g, w in zip(grads, xs)])

    return Case(f"vjp of {case.name}", vjp, *case.inputs, cotangent, order=1)


# Not reduce_logsumexp of an empty axis: its cotangent reaches the (empty) gradient
# through log's VJP, 1/sum(exp(x)) = 1/0, and 0 * inf is nan -- in TF too, whose
# reduce_logsumexp is the same composite.
VJP_CASES = [_vjp_case(case) for case in CASES if not case.name.startswith("reduce_logsumexp")]


@pytest.mark.parametrize("case", VJP_CASES, ids=repr)
def test_gradcheck_of_the_vjp_on_empty(case):
    case.check()


def test_every_differentiable_op_has_an_empty_case():
    # Here or in any test module's GRADCHECK_CASES, a case with a size-0 input.
    on_empty = [c for c in all_cases() if any(np.size(x) == 0 for x in c.inputs)]
    reached = set()
    for case in CASES + VJP_CASES + on_empty:
        reached |= ops_used(case.fn, *case.inputs)
    differentiable = {name for name, op in all_ops().items() if op.differentiable}
    missing = sorted(differentiable - reached)
    assert not missing, f"ops with no size-0 gradcheck case: {missing}"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CASES, ids=repr)
def test_gradient_of_empty_is_a_tensor_not_none(case, dtype):
    # TF returns an (empty or zero) tensor for a connected input, never None; float32
    # takes the kernels' paths (GEMM, fused cross-entropy) where float64 may not.
    if dtype == np.float32 and case.name.startswith("cast"):
        pytest.skip("the cast case multiplies by a float64 cast: float64 inputs only")
    tensors = [tf.constant(np.asarray(x, dtype)) for x in case.inputs]
    with tf.GradientTape() as tape:
        tape.watch(tensors)
        out = case.fn(*tensors)
    grads = tape.gradient(out, tensors)
    for t, g in zip(tensors, grads):
        assert g is not None
        assert g.shape == t.shape and g.dtype == dtype


@pytest.mark.parametrize("name,fn", [
    ("floor", tf.floor), ("ceil", tf.math.ceil), ("round", tf.round),
    ("stop_gradient", tf.stop_gradient), ("floordiv", lambda x: tf.math.floordiv(x, 2.0)),
    ("sign", tf.sign), ("greater", lambda x: tf.greater(x, 0.0)),
    ("argmax over the non-empty axis", lambda x: tf.argmax(x, axis=1)),
    ("zeros_like", tf.zeros_like)])
def test_non_differentiable_ops_on_empty(name, fn):
    x = tf.zeros([0, 3])
    assert fn(x).shape == ((0,) if name.startswith("argmax") else (0, 3))
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.cast(fn(x), tf.float32))
    g = tape.gradient(y, x)
    assert g is None or (g.shape == (0, 3) and not np.any(g.numpy()))


# -- values TF documents for empty inputs ------------------------------------------
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_reductions_of_empty_give_the_identity(dtype):
    x = tf.zeros([2, 0], dtype=dtype)
    np.testing.assert_array_equal(tf.reduce_sum(x, axis=1).numpy(), [0, 0])
    np.testing.assert_array_equal(tf.reduce_prod(x, axis=1).numpy(), [1, 1])
    np.testing.assert_array_equal(tf.reduce_max(x, axis=1).numpy(), [-np.inf, -np.inf])
    np.testing.assert_array_equal(tf.reduce_min(x, axis=1).numpy(), [np.inf, np.inf])
    np.testing.assert_array_equal(tf.reduce_logsumexp(x, axis=1).numpy(), [-np.inf, -np.inf])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # TF's nan comes without a warning
        assert np.isnan(tf.reduce_mean(x).numpy())  # 0 / 0, as TF
        np.testing.assert_array_equal(tf.reduce_mean(x, axis=1).numpy(), [np.nan, np.nan])
        assert tf.reduce_mean(x, axis=0).shape == (0,)
    assert tf.reduce_max(x, axis=1).dtype == dtype
    assert tf.reduce_max(x, axis=0).shape == (0,)
    assert tf.reduce_sum(x, axis=0, keepdims=True).shape == (1, 0)


@pytest.mark.parametrize("dtype,lowest,highest", [
    (np.int32, -2 ** 31, 2 ** 31 - 1), (np.int64, -2 ** 63, 2 ** 63 - 1), (bool, False, True)])
def test_extrema_of_empty_non_floats_are_the_dtype_limits(dtype, lowest, highest):
    # TF's Max of an empty int tensor is numeric_limits::lowest(); of bools, False.
    x = tf.constant(np.zeros((0, 2), dtype))
    assert tf.reduce_max(x, axis=0).numpy().tolist() == [lowest, lowest]
    assert tf.reduce_min(x, axis=0).numpy().tolist() == [highest, highest]
    assert tf.reduce_max(x).dtype == dtype


def test_argmax_of_an_empty_axis_raises_as_tf():
    # TF raises InvalidArgumentError ("Reduction axis 1 is empty in shape [2,0]").
    with pytest.raises(tf.errors.InvalidArgumentError, match="empty"):
        tf.argmax(tf.zeros([2, 0]), axis=1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="empty"):
        tf.argmin(tf.zeros([0]))
    # An empty non-reduced axis is fine: an empty result.
    assert tf.argmax(tf.zeros([0, 3]), axis=1).shape == (0,)


def test_reduce_max_of_empty_has_an_empty_gradient():
    v = tf.Variable(tf.zeros([2, 0]))
    for reduce in (tf.reduce_max, tf.reduce_min):
        with tf.GradientTape() as tape:
            y = tf.reduce_sum(reduce(v, axis=1))
        g = tape.gradient(y, v)
        assert g is not None and g.shape == (2, 0) and g.dtype == np.float32


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_family_of_empty(dtype):
    x = tf.zeros([4, 0], dtype=dtype)
    for fn in (tf.nn.softmax, tf.nn.log_softmax):
        out = fn(x)
        assert out.shape == (4, 0) and out.dtype == dtype
    assert tf.nn.softmax(tf.zeros([0, 3], dtype=dtype), axis=0).shape == (0, 3)
    # No classes: each row's cross-entropy is an empty sum, 0.
    loss = tf.nn.softmax_cross_entropy_with_logits(x, x)
    np.testing.assert_array_equal(loss.numpy(), np.zeros(4, dtype))
    assert tf.nn.sparse_softmax_cross_entropy_with_logits(
        np.zeros(0, np.int64), tf.zeros([0, 3], dtype=dtype)).shape == (0,)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matmul_of_empty(dtype):
    # k = 0: an empty sum per entry, zeros (TF).
    out = tf.matmul(tf.zeros([2, 3, 0], dtype=dtype), tf.zeros([0, 4], dtype=dtype))
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.numpy(), np.zeros((2, 3, 4)))
    assert tf.matmul(tf.zeros([0, 3], dtype=dtype), tf.ones([3, 4], dtype=dtype)).shape == (0, 4)
    assert tf.matmul(tf.ones([2, 3], dtype=dtype), tf.zeros([0, 3, 4], dtype=dtype)).shape == (
        0, 2, 4)
    # Mismatched inner sizes still raise with the shapes named, empty or not.
    with pytest.raises((tf.errors.InvalidArgumentError, ValueError), match=r"0.*4|4.*0"):
        tf.matmul(tf.zeros([2, 0]), tf.zeros([4, 3]))


def test_linalg_of_empty_matrices():
    # det of a 0x0 matrix is the empty product, 1 (TF and NumPy agree).
    assert tf.linalg.det(tf.zeros([0, 0], tf.float64)).numpy() == 1.0
    assert tf.linalg.slogdet(tf.zeros([0, 0], tf.float64))[1].numpy() == 0.0
    assert tf.linalg.inv(tf.zeros([0, 0])).shape == (0, 0)
    assert tf.linalg.det(tf.zeros([0, 2, 2])).shape == (0,)


def test_reshape_of_empty():
    x = tf.zeros([0, 3])
    assert tf.reshape(x, [2, -1]).shape == (2, 0)
    assert tf.reshape(x, [-1]).shape == (0,)
    # With a 0 among the given sizes any -1 fits; TF raises rather than guess.
    with pytest.raises(tf.errors.InvalidArgumentError,
                       match=r"cannot infer the missing input size for an empty tensor.*"
                             r"\[0, 3\].*\[-1, 0\]"):
        tf.reshape(x, [-1, 0])
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"0 values.*\[4, 1\] has 4"):
        tf.reshape(x, [4, 1])


def test_window_output_sizes_follow_tf():
    # TF: (size - span + stride) / stride, truncated toward 0; negative only raises.
    x = tf.zeros([1, 2, 2, 1])
    assert tf.nn.conv2d(x, tf.zeros([3, 3, 1, 4]), 1, "VALID").shape == (1, 0, 0, 4)
    assert tf.nn.conv2d(x, tf.zeros([5, 5, 1, 4]), 2, "VALID").shape == (1, 0, 0, 4)
    assert tf.nn.max_pool2d(x, 3, 1, "VALID").shape == (1, 0, 0, 1)
    assert tf.nn.avg_pool2d(tf.zeros([1, 0, 3, 1]), 2, 2, "SAME").shape == (1, 0, 2, 1)
    with pytest.raises(tf.errors.InvalidArgumentError, match="would be negative.*input size 2"):
        tf.nn.conv2d(x, tf.zeros([4, 4, 1, 4]), 1, "VALID")  # (2 - 4 + 1) / 1 = -1
    with pytest.raises(tf.errors.InvalidArgumentError, match="MaxPool.*would be negative"):
        tf.nn.max_pool2d(x, 4, 1, "VALID")


def test_gather_with_no_indices():
    params = tf.constant(np.arange(12.0).reshape(3, 4))
    assert tf.gather(params, np.zeros(0, np.int64)).shape == (0, 4)
    assert tf.gather(params, np.zeros((2, 0), np.int64), axis=1).shape == (3, 2, 0)
    v = tf.Variable(params)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.gather(v, np.zeros(0, np.int64)))
    np.testing.assert_array_equal(tape.gradient(y, v).numpy(), np.zeros((3, 4)))


def test_binary_gradients_with_an_empty_broadcast_partner():
    x, y = tf.Variable(tf.ones([2, 0])), tf.Variable(tf.ones([0]))
    with tf.GradientTape() as tape:
        z = tf.reduce_sum(tf.math.squared_difference(x, y))
    gx, gy = tape.gradient(z, [x, y])
    assert gx.shape == (2, 0) and gy.shape == (0,)
    s = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        z = tf.reduce_sum(tf.multiply(tf.ones([0, 3]), s))
    assert tape.gradient(z, s).numpy() == 0.0  # an empty sum of contributions


# -- random shapes with zeros (hypothesis) -----------------------------------------
hypothesis = pytest.importorskip("hypothesis")
st = hypothesis.strategies

_DIMS = st.sampled_from([0, 0, 1, 2, 3])
_SHAPES = st.lists(_DIMS, min_size=0, max_size=3).map(tuple)


@st.composite
def _broadcast_pair(draw):
    """A shape and a partner that broadcasts with it: leading axes dropped, and
    some axes set to 1 on one side (a size-0 axis meets 1 or 0)."""
    shape = draw(_SHAPES)
    partner = list(shape[draw(st.integers(0, len(shape))):])
    for i in range(len(partner)):
        if draw(st.booleans()):
            partner[i] = 1
    pair = (shape, tuple(partner))
    return pair[::-1] if draw(st.booleans()) else pair


_SETTINGS = hypothesis.settings(max_examples=40, deadline=None, derandomize=True,
                                suppress_health_check=list(hypothesis.HealthCheck))


@_SETTINGS
@hypothesis.given(name=st.sampled_from(sorted(BINARY)), shapes=_broadcast_pair())
def test_binary_ops_over_random_shapes(name, shapes):
    sx, sy = shapes
    x, y = _rand(sx, 0.5, 2, seed=1), _rand(sy, 0.5, 2, seed=2)
    out = BINARY[name](tf.constant(x), tf.constant(y))
    assert out.shape == np.broadcast_shapes(sx, sy)
    Case(name, BINARY[name], x, y).check()


@_SETTINGS
@hypothesis.given(name=st.sampled_from(["reduce_sum", "reduce_max", "reduce_min", "reduce_prod",
                                        "reduce_mean"]),
                  shape=_SHAPES, data=st.data())
def test_reductions_over_random_shapes(name, shape, data):
    axes = tuple(sorted(data.draw(st.sets(st.integers(0, max(len(shape) - 1, 0)),
                                          max_size=len(shape)))))
    axis = axes if axes else None
    keepdims = data.draw(st.booleans())
    x = _rand(shape, seed=3)
    reference = {"reduce_sum": np.sum, "reduce_prod": np.prod,
                 "reduce_max": lambda a, **k: np.max(a, initial=-np.inf, **k),
                 "reduce_min": lambda a, **k: np.min(a, initial=np.inf, **k),
                 "reduce_mean": np.mean}[name]
    with np.errstate(invalid="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the mean of nothing: nan, as TF
        expected = reference(x, axis=axis, keepdims=keepdims)
        out = REDUCTIONS[name](tf.constant(x), axis=axis, keepdims=keepdims)
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
        Case(name, lambda t: REDUCTIONS[name](t, axis=axis, keepdims=keepdims), x).check()


@_SETTINGS
@hypothesis.given(batch=_SHAPES.map(lambda s: s[:1]), m=_DIMS, k=_DIMS, n=_DIMS,
                  which=st.sampled_from(["both", "left", "right"]))
def test_matmul_over_random_shapes(batch, m, k, n, which):
    sa = (batch if which != "right" else ()) + (m, k)
    sb = (batch if which != "left" else ()) + (k, n)
    a, b = _rand(sa, seed=4), _rand(sb, seed=5)
    np.testing.assert_allclose(tf.matmul(tf.constant(a), tf.constant(b)).numpy(),
                               np.matmul(a, b), rtol=1e-12)
    Case("matmul", tf.matmul, a, b).check()


@_SETTINGS
@hypothesis.given(shape=st.lists(_DIMS, min_size=1, max_size=3).map(tuple), data=st.data())
def test_softmax_over_random_shapes(shape, data):
    axis = data.draw(st.integers(-len(shape), len(shape) - 1))
    x = _rand(shape, seed=6)
    for fn in (tf.nn.softmax, tf.nn.log_softmax):
        assert fn(tf.constant(x), axis=axis).shape == shape
        Case("softmax", lambda t, f=fn: f(t, axis=axis), x).check()


def test_logsumexp_of_empty_is_minus_inf_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(
            tf.reduce_logsumexp(tf.zeros([2, 0]), axis=1).numpy(), [-np.inf, -np.inf])
