"""What used to make a traced step run eagerly (issue 18, item 6): activations that
picked their branch from the array in Python, the bool casts and logical ops, and
tf.reduce_any/reduce_all (which the Masking layer's mask uses).
Each is traced here with warnings as errors (the eager fallback warns), and the
replay is compared with the eager call, bitwise, on inputs other than the traced
ones. The ops whose result's shape depends on values (tf.where with one
argument, tf.boolean_mask, tf.unique) still fall back, with one warning and
right values: see test_value_shaped_ops_fall_back_with_one_warning."""

import warnings

import numpy as np
import pytest
import tapeflow as tf
from tapeflow.testing import gradcheck

# Kinks of the piecewise functions (0, the thresholds, the caps) and values around them.
_X = np.array([[-3.0, -1.0, -0.25, 0.0, 0.25, 0.5], [1.0, 1.5, 2.0, 5.5, 6.0, 7.0]], np.float32)
_OTHER = np.array([[2.5, -0.5, 0.0, 6.5, -7.0, 0.75], [0.5, -2.0, 3.0, 1.0, -0.0, 4.0]],
                  np.float32)


def _traced_matches_eager(fn, *arguments):
    """Trace `fn` on `arguments` (no fallback warning allowed), then check a replay
    on other values against the eager call, bit for bit; returns the replay's value."""
    traced = tf.function(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the eager fallback is a UserWarning
        first = traced(*arguments)
        others = [tf.constant(np.flip(np.asarray(a), -1).copy()) for a in arguments]
        replayed = traced(*others)
    assert traced.experimental_get_tracing_count() == 1
    np.testing.assert_array_equal(np.asarray(first), np.asarray(fn(*arguments)))
    expected = fn(*others)
    assert np.asarray(replayed).tobytes() == np.asarray(expected).tobytes()
    return replayed


def _leaky(x, slope):
    return np.where(x > 0, x, slope * x)


def _elu(x, alpha):
    return np.where(x >= 0, x, alpha * np.expm1(np.minimum(x, 0)))


def _keras_relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    """Keras's relu from its definition: slope * (x - threshold) below the threshold."""
    out = np.where(x > threshold, x, negative_slope * (x - threshold))
    return out if max_value is None else np.minimum(out, max_value)


_SELU = (1.6732632423543772848170429916717, 1.0507009873554804934193349852946)
K = tf.keras.activations
# name -> (function of a tensor, NumPy reference)
ACTIVATIONS = {
    "keras.leaky_relu": (K.leaky_relu, lambda x: _leaky(x, 0.2)),
    "keras.relu_threshold": (lambda x: K.relu(x, threshold=0.5),
                             lambda x: _keras_relu(x, threshold=0.5)),
    "keras.relu_max_value": (lambda x: K.relu(x, max_value=2.0),
                             lambda x: _keras_relu(x, max_value=2.0)),
    "keras.relu_all": (lambda x: K.relu(x, negative_slope=0.1, max_value=5.0, threshold=1.0),
                       lambda x: _keras_relu(x, 0.1, 5.0, 1.0)),
    "keras.elu_alpha": (lambda x: K.elu(x, alpha=0.5), lambda x: _elu(x, 0.5)),
    "keras.elu": (K.elu, lambda x: _elu(x, 1.0)),
    "keras.selu": (K.selu, lambda x: _SELU[1] * _elu(x, _SELU[0])),
    "keras.relu6": (K.relu6, lambda x: np.clip(x, 0, 6)),
    "keras.hard_sigmoid": (K.hard_sigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    "keras.hard_silu": (K.hard_silu, lambda x: x * np.clip(x + 3, 0, 6) / 6),
    "nn.leaky_relu": (lambda x: tf.nn.leaky_relu(x, alpha=0.3), lambda x: _leaky(x, 0.3)),
    "nn.relu6": (tf.nn.relu6, lambda x: np.clip(x, 0, 6)),
    "nn.elu": (tf.nn.elu, lambda x: _elu(x, 1.0)),
    "nn.selu": (tf.nn.selu, lambda x: _SELU[1] * _elu(x, _SELU[0])),
    "ops.leaky_relu": (tf.keras.ops.leaky_relu, lambda x: _leaky(x, 0.2)),
    "ops.hard_sigmoid": (tf.keras.ops.hard_sigmoid, lambda x: np.clip(x + 3, 0, 6) / 6),
    "ops.relu6": (tf.keras.ops.relu6, lambda x: np.clip(x, 0, 6)),
    "ops.elu": (tf.keras.ops.elu, lambda x: _elu(x, 1.0)),
}


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_traces_and_replays_its_eager_values(name):
    fn, reference = ACTIVATIONS[name]
    replayed = _traced_matches_eager(fn, tf.constant(_X))
    np.testing.assert_allclose(np.asarray(replayed), reference(np.flip(_X, -1)), rtol=1e-6,
                               atol=1e-7)


@pytest.mark.parametrize("name", list(ACTIVATIONS))
def test_activation_gradient_traces_and_replays_its_eager_values(name):
    fn, _ = ACTIVATIONS[name]

    def gradient(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(fn(x) * x)
        return tape.gradient(y, x)

    _traced_matches_eager(gradient, tf.constant(_X))


# Away from the kinks (finite differences straddling one would see a jump).
_SMOOTH = np.array([[-2.3, -0.7, 0.2, 0.8], [1.3, 2.6, 5.4, 6.7]])


@pytest.mark.parametrize("name", [n for n in ACTIVATIONS if n.startswith("keras.")])
@pytest.mark.parametrize("shape", [(2, 4), (0, 4)], ids=["2x4", "size0"])
def test_activation_gradcheck_eager_and_traced(name, shape):
    fn, _ = ACTIVATIONS[name]
    x = _SMOOTH[:shape[0]]
    gradcheck(fn, x, order=2)
    gradcheck(tf.function(fn), x, order=2)


def test_fit_with_leaky_relu_and_elu_layers_is_traced_and_equals_eager():
    def model():
        tf.keras.utils.set_random_seed(3)
        m = tf.keras.Sequential([tf.keras.Input((4,)), tf.keras.layers.Dense(6),
                                 tf.keras.layers.LeakyReLU(0.1), tf.keras.layers.Dense(5),
                                 tf.keras.layers.ELU(0.7), tf.keras.layers.Dense(3),
                                 tf.keras.layers.ReLU(max_value=1.5, threshold=0.1),
                                 tf.keras.layers.Dense(1)])
        return m

    rng = np.random.default_rng(0)
    x = rng.normal(size=(32, 4)).astype(np.float32)
    y = rng.normal(size=(32, 1)).astype(np.float32)
    histories = []
    for eager in (False, True):
        m = model()
        m.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", run_eagerly=eager)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            histories.append(m.fit(x, y, batch_size=8, epochs=3, verbose=0,
                                   shuffle=False).history["loss"])
    assert histories[0] == histories[1]
    assert histories[0][-1] < histories[0][0]


# -- bool casts and logical ops -----------------------------------------------------
LOGICAL = {
    "cast_to_bool": lambda x: tf.cast(x, tf.bool),
    "cast_from_bool": lambda x: tf.cast(x > 0, tf.float32),
    "cast_round_trip_under_tape": lambda x: x * tf.cast(tf.cast(x, tf.bool), x.dtype),
    "logical_and": lambda x: tf.logical_and(x > 0, x < 3),
    "math.logical_or": lambda x: tf.math.logical_or(x > 0, x < -1),
    "logical_not": lambda x: tf.logical_not(x > 0),
    "math.logical_xor": lambda x: tf.math.logical_xor(x > 0, x < 3),
    "operator_and": lambda x: (x > 0) & (x < 3),
    "operator_or": lambda x: (x > 0) | (x < -1),
    "operator_invert": lambda x: ~(x > 0),
    "operator_xor": lambda x: (x > 0) ^ (x < 3),
    "where_of_logical": lambda x: tf.where((x > 0) & ~(x > 5), x, -x),
    "reduce_any": lambda x: tf.reduce_any(x > 2, axis=-1),
    "math.reduce_all": lambda x: tf.math.reduce_all(x > -2, axis=0, keepdims=True),
    "reduce_any_empty_axis": lambda x: tf.reduce_any(x[:, :0] > 0, axis=1),
    "reduce_all_empty_axis": lambda x: tf.reduce_all(x[:, :0] > 0, axis=1),
}


@pytest.mark.parametrize("name", list(LOGICAL))
def test_bool_cast_and_logical_ops_trace_and_replay(name):
    replayed = _traced_matches_eager(LOGICAL[name], tf.constant(_X))
    x = np.flip(_X, -1)
    expected = {"cast_to_bool": x != 0, "logical_not": ~(x > 0),
                "operator_and": (x > 0) & (x < 3), "operator_xor": (x > 0) ^ (x < 3),
                "reduce_any": (x > 2).any(-1), "math.reduce_all": (x > -2).all(0, keepdims=True),
                "reduce_any_empty_axis": [False, False], "reduce_all_empty_axis": [True, True]}
    if name in expected:
        np.testing.assert_array_equal(np.asarray(replayed), expected[name])


def test_logical_mask_in_a_traced_gradient_step():
    """A masked loss, as a padded-sequence model writes it: the gradient is traced too."""
    def step(x, labels):
        with tf.GradientTape() as tape:
            tape.watch(x)
            keep = tf.logical_and(tf.not_equal(labels, 0), tf.logical_not(x < -2))
            loss = tf.reduce_sum(tf.cast(keep, x.dtype) * tf.square(x))
        return tape.gradient(loss, x)

    labels = np.array([[1, 0, 2, 0, 3, 1], [0, 1, 1, 2, 0, 0]], np.int32)
    grad = _traced_matches_eager(step, tf.constant(_X), tf.constant(labels))
    x, flipped = np.flip(_X, -1), np.flip(labels, -1)
    np.testing.assert_array_equal(np.asarray(grad), 2 * x * ((flipped != 0) & ~(x < -2)))


# -- shapes that depend on values ---------------------------------------------------
VALUE_SHAPED = {
    "where_one_argument": lambda x: tf.where(x > 0),
    "boolean_mask": lambda x: tf.boolean_mask(x, x > 0),
    "unique": lambda x: tf.unique(tf.reshape(x, [-1]))[0],
}


@pytest.mark.parametrize("name", list(VALUE_SHAPED))
def test_value_shaped_ops_fall_back_with_one_warning(name):
    """Their result's length is a count of values, which the trace would bake into
    the graph wherever Python reads a shape derived from it (tapeflow's tracer
    guards only the direct result of a value-shaped call): they run eagerly for
    the signature, warning once, with right values on every call."""
    fn = VALUE_SHAPED[name]
    traced = tf.function(fn)
    with pytest.warns(UserWarning, match="runs eagerly"):
        traced(tf.constant(_X))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for values in (_OTHER, -_X):
            np.testing.assert_array_equal(np.asarray(traced(tf.constant(values))),
                                          np.asarray(fn(tf.constant(values))))


# -- VJPs that pick by a comparison (maximum, minimum, abs) ---------------------------
PICKING = {  # name -> (function, its derivative in NumPy, summed over the output)
    "maximum_tie_to_x": (lambda x: tf.maximum(x, tf.zeros_like(x)), lambda x: x >= 0),
    "maximum_of_y": (lambda x: tf.maximum(tf.zeros_like(x), x), lambda x: x > 0),
    "minimum_tie_to_x": (lambda x: tf.minimum(x, tf.fill(x.shape, 0.5)), lambda x: x <= 0.5),
    "minimum_of_y": (lambda x: tf.minimum(tf.fill(x.shape, 0.5), x), lambda x: x < 0.5),
    "abs": (tf.abs, np.sign),
    "clip_by_value": (lambda x: tf.clip_by_value(x, -1.0, 2.0),
                      lambda x: (x >= -1.0) & (x <= 2.0)),
    "softsign": (tf.nn.softsign, lambda x: 1 / (1 + np.abs(x)) ** 2),
}


@pytest.mark.parametrize("name", list(PICKING))
def test_picking_gradients_trace_and_replay(name):
    fn, derivative = PICKING[name]

    def gradient(x):
        with tf.GradientTape() as tape:
            tape.watch(x)
            y = tf.reduce_sum(fn(x))
        return tape.gradient(y, x)

    replayed = _traced_matches_eager(gradient, tf.constant(_X))
    np.testing.assert_allclose(np.asarray(replayed), derivative(np.flip(_X, -1)), rtol=1e-6)


def test_fit_with_binary_crossentropy_is_traced_and_equals_eager():
    """Keras's binary cross-entropy clips its probabilities (maximum and minimum)."""
    rng = np.random.default_rng(1)
    x = rng.normal(size=(24, 3)).astype(np.float32)
    y = (rng.random((24, 1)) > 0.5).astype(np.float32)
    histories = []
    for eager in (False, True):
        tf.keras.utils.set_random_seed(2)
        m = tf.keras.Sequential([tf.keras.Input((3,)), tf.keras.layers.Dense(4, "softsign"),
                                 tf.keras.layers.Dense(1, "sigmoid")])
        m.compile(optimizer="adam", loss="binary_crossentropy", run_eagerly=eager)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            histories.append(m.fit(x, y, batch_size=8, epochs=2, verbose=0,
                                   shuffle=False).history["loss"])
    assert histories[0] == histories[1]


# -- tf.one_hot and tf.math.count_nonzero: ops, not NumPy on the indices ---------------
_INDICES = np.array([[0, 2, 5, -1], [1, 1, 3, 0]], np.int32)  # 5, -1 and 3 (depth 3) are out


def _one_hot_reference(indices, depth, on=1.0, off=0.0, axis=-1):
    """TF's rule from its docs: on where index == k, else off (out-of-range rows all off)."""
    out = np.where(indices[..., None] == np.arange(depth), on, off).astype(np.float32)
    return np.moveaxis(out, -1, axis)


ONE_HOT = {  # name -> (function of the indices, reference of the flipped indices)
    "default": (lambda i: tf.one_hot(i, 3), lambda i: _one_hot_reference(i, 3)),
    "on_off_values": (lambda i: tf.one_hot(i, 4, on_value=2.5, off_value=-1.0),
                      lambda i: _one_hot_reference(i, 4, 2.5, -1.0)),
    "axis_0": (lambda i: tf.one_hot(i, 3, axis=0), lambda i: _one_hot_reference(i, 3, axis=0)),
    "axis_1": (lambda i: tf.one_hot(i, 6, axis=1), lambda i: _one_hot_reference(i, 6, axis=1)),
    "depth_0": (lambda i: tf.one_hot(i, 0), lambda i: np.zeros((2, 4, 0), np.float32)),
    "keras_ops": (lambda i: tf.keras.ops.one_hot(i, 3), lambda i: _one_hot_reference(i, 3)),
}


@pytest.mark.parametrize("name", list(ONE_HOT))
def test_one_hot_traces_and_replays(name):
    fn, reference = ONE_HOT[name]
    replayed = _traced_matches_eager(fn, tf.constant(_INDICES))
    np.testing.assert_array_equal(np.asarray(replayed), reference(np.flip(_INDICES, -1)))


def test_one_hot_dtype_follows_on_value_as_tf():
    """TF: without dtype, the dtype of on_value (or off_value) when one is given."""
    out = tf.one_hot([1, 3], 3, on_value=5, off_value=-1)
    assert out.dtype == tf.int32
    np.testing.assert_array_equal(np.asarray(out), [[-1, 5, -1], [-1, -1, -1]])
    assert tf.one_hot([0], 2, off_value=tf.constant(0.5, tf.float64)).dtype == tf.float64


def test_one_hot_has_no_gradient_for_its_values():
    on = tf.Variable(2.0)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.one_hot([0, 1], 3, on_value=on, off_value=0.0))
    assert tape.gradient(y, on) is None  # TF's OneHot is not differentiable


COUNT_NONZERO = {
    "all": (lambda x: tf.math.count_nonzero(x), lambda x: np.int64(np.count_nonzero(x))),
    "axis_keepdims_int32": (
        lambda x: tf.math.count_nonzero(x, axis=1, keepdims=True, dtype=tf.int32),
        lambda x: np.count_nonzero(x, axis=1, keepdims=True).astype(np.int32)),
    "of_a_comparison": (lambda x: tf.math.count_nonzero(x > 1, axis=0),
                        lambda x: np.count_nonzero(x > 1, axis=0).astype(np.int64)),
}


@pytest.mark.parametrize("name", list(COUNT_NONZERO))
def test_count_nonzero_traces_and_replays(name):
    fn, reference = COUNT_NONZERO[name]
    x = np.where(_X > 0.3, _X, 0.0).astype(np.float32)
    replayed = _traced_matches_eager(fn, tf.constant(x))
    expected = reference(np.flip(x, -1))
    assert np.asarray(replayed).dtype == expected.dtype
    np.testing.assert_array_equal(np.asarray(replayed), expected)


def test_count_nonzero_of_strings_counts_the_non_empty():
    assert int(tf.math.count_nonzero(tf.constant([b"a", b"", b"c"]))) == 2


# -- pow's and floormod's gradients: comparisons as ops -----------------------------
def _gradients(fn):
    def both(x, y):
        with tf.GradientTape() as tape:
            tape.watch([x, y])
            z = tf.reduce_sum(fn(x, y))
        return tape.gradient(z, [x, y])
    return both


_BASES = np.array([[-2.0, 0.0, 0.5, 1.5], [3.0, -0.5, 2.0, 0.25]], np.float32)
_POWERS = np.array([[2.0, 3.0, 1.5, -1.0], [0.5, 2.0, -2.0, 3.0]], np.float32)


def test_pow_gradient_traces_and_replays_tf_values():
    """d/dy x**y = x**y log x, and 0 where x <= 0 (TF's convention), on every call."""
    dx, dy = _traced_matches_eager(_gradients(tf.pow), tf.constant(_BASES),
                                   tf.constant(_POWERS))
    x, y = np.flip(_BASES, -1).astype(np.float64), np.flip(_POWERS, -1).astype(np.float64)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(np.asarray(dy), np.where(x > 0, x ** y * np.log(np.where(
            x > 0, x, 1)), 0), rtol=1e-6)
        np.testing.assert_allclose(np.asarray(dx), y * x ** (y - 1), rtol=1e-6)


def test_floormod_gradient_traces_and_replays_tf_values():
    """TF's FloorMod gradient: (g, -g * floor(x / y))."""
    x = np.array([[5.5, -3.25, 7.0], [-8.5, 2.5, 0.75]], np.float32)
    y = np.array([[2.0, 1.5, -3.0], [3.0, -0.75, 0.5]], np.float32)
    dx, dy = _traced_matches_eager(_gradients(tf.math.floormod), tf.constant(x), tf.constant(y))
    np.testing.assert_array_equal(np.asarray(dx), np.ones_like(x))
    fx, fy = np.flip(x, -1), np.flip(y, -1)
    np.testing.assert_array_equal(np.asarray(dy), -np.floor(fx / fy))


# Positive bases (finite differences of x**y need them) and mods away from the jumps.
_GRAD_SHAPES = [((2, 3), (2, 3)), ((2, 1), (1, 3)), ((2, 3), ()), ((0, 3), (3,))]


@pytest.mark.parametrize("shapes", _GRAD_SHAPES, ids=str)
def test_pow_and_floormod_gradcheck_eager_and_traced(shapes):
    rng = np.random.default_rng(4)
    a = rng.uniform(0.5, 2.0, shapes[0])
    b = rng.uniform(0.5, 2.0, shapes[1])
    for fn in (tf.pow, tf.function(tf.pow)):
        gradcheck(fn, a, b, order=2)
    x = np.floor(rng.uniform(-5, 5, shapes[0])) + 0.5  # x / 2.0 is never a whole number
    y = np.full(shapes[1], 2.0)
    for fn in (tf.math.floormod, tf.function(tf.math.floormod)):
        gradcheck(fn, x, y, order=2)


# -- BatchNormalization's moving statistics: ops and an assign, not NumPy ------------
def _normalized_model(masked):
    tf.keras.utils.set_random_seed(4)
    L = tf.keras.layers
    if masked:
        return tf.keras.Sequential([tf.keras.Input((5,), dtype="int32"),
                                    L.Embedding(6, 3, mask_zero=True),
                                    L.BatchNormalization(momentum=0.9),
                                    L.GlobalAveragePooling1D(), L.Dense(1)])
    return tf.keras.Sequential([tf.keras.Input((4,)), L.Dense(3),
                                L.BatchNormalization(momentum=0.9), L.Dense(1)])


@pytest.mark.parametrize("masked", [False, True], ids=["dense", "masked_sequence"])
def test_fit_with_batch_normalization_is_traced_and_equals_eager(masked):
    """The histories and the moving statistics after fit equal run_eagerly=True's;
    after one step from zeros and ones they are Keras's rule, moving * momentum +
    batch moment * (1 - momentum), the moments of the Dense layer's output."""
    rng = np.random.default_rng(5)
    if masked:
        x = rng.integers(0, 6, size=(16, 5))
        x[:, 3:] = 0
    else:
        x = rng.normal(size=(16, 4)).astype(np.float32)
    y = rng.normal(size=(16, 1)).astype(np.float32)
    results = []
    for eager in (False, True):
        model = _normalized_model(masked)
        features = np.asarray(model.layers[0](x)).astype(np.float64)
        model.compile(optimizer=tf.keras.optimizers.SGD(0.05), loss="mse", run_eagerly=eager)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            history = model.fit(x, y, batch_size=16, epochs=1, verbose=0, shuffle=False)
        norm = model.layers[1]
        results.append((history.history["loss"], norm.moving_mean.numpy(),
                        norm.moving_variance.numpy()))
    assert results[0][0] == results[1][0]
    for traced, eager in zip(results[0][1:], results[1][1:]):
        assert traced.tobytes() == eager.tobytes()
    if not masked:
        np.testing.assert_allclose(results[0][1], 0.1 * features.mean(0), rtol=1e-5)
        np.testing.assert_allclose(results[0][2], 0.9 + 0.1 * features.var(0), rtol=1e-5)


def test_a_profiler_active_while_tracing_is_named_as_the_cause():
    # cProfile replaces the profile hook that records effects: the function runs
    # eagerly under it (values right), and the warning says why, not what the
    # effect's Python then did (a fit's non-finite check read the loss).
    import sys
    v = tf.Variable(1.0)

    @tf.function
    def step(x):
        v.assign_add(x)
        return v * 2.0

    sys.setprofile(lambda frame, event, arg: None)
    try:
        with pytest.warns(UserWarning, match=r"a profiler \(cProfile, or another"):
            out = step(tf.constant(1.0))
    finally:
        sys.setprofile(None)
    assert float(out) == 4.0 and float(v) == 2.0
    # The profiler is gone: the next call traces, and the one after replays the graph.
    (concrete,) = step._concrete
    assert list(concrete._graphs) == []  # nothing kept for the signature: it traces again
    assert float(step(tf.constant(1.0))) == 6.0
    (graph,) = concrete._graphs.values()
    assert graph != "eager" and graph.nodes
    assert float(step(tf.constant(1.0))) == 8.0 and float(v) == 4.0
    assert step.experimental_get_tracing_count() == 1
