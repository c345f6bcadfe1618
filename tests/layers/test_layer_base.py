"""Layer base: naming, tracking, freezing, the call context, weights I/O, losses,
input checks, dtype casting, masks and configs."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.layers import InputSpec, Layer

L = tf.keras.layers


@pytest.fixture(autouse=True)
def fresh_names():
    L.reset_name_counters()
    yield


class Block(Layer):
    """A subclassed layer holding sublayers in a list, a dict, a tuple and nested."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.first = L.Dense(2)
        self.stack = [L.Dense(3), L.Dense(4)]
        self.heads = {"b": L.Dense(5), "a": L.Dense(6)}
        self.pair = (L.Dense(7), [L.Dense(8)])
        self.alias = self.first  # the same layer twice: tracked once
        self.scale = tf.Variable(1.0, name="scale")

    def call(self, x):
        x = self.first(x)
        for layer in self.stack:
            x = layer(x)
        x = self.heads["b"](x)
        x = self.heads["a"](x)
        x = self.pair[0](x)
        x = self.pair[1][0](x)
        return x * self.scale


def test_unique_names_per_class():
    assert [L.Dense(1).name for _ in range(3)] == ["dense", "dense_1", "dense_2"]
    assert L.BatchNormalization().name == "batch_normalization"
    assert L.PReLU().name == "p_re_lu"  # Keras's snake_case
    assert L.Dense(1, name="head").name == "head"
    L.reset_name_counters()
    assert L.Dense(1).name == "dense"


def test_bad_name():
    with pytest.raises(ValueError, match="cannot contain"):
        L.Dense(1, name="a/b")


def test_variables_in_lists_and_dicts_exactly_once_in_order():
    block = Block()
    block(np.ones((2, 3), np.float32))
    paths = [v.path for v in block.variables]
    expected_layers = ["dense", "dense_1", "dense_2", "dense_3", "dense_4", "dense_5",
                       "dense_6"]
    expected = ["scale"] + [f"{n}/{w}" for n in expected_layers for w in ("kernel", "bias")]
    assert paths == expected
    assert len({id(v) for v in block.variables}) == len(block.variables) == 15
    assert [v.path for v in block.trainable_variables] == expected
    assert block.weights == block.variables
    assert len(block.submodules) == 7
    assert block.count_params() == 1 + (3*2+2) + (2*3+3) + (3*4+4) + (4*5+5) + (5*6+6) + (
        6*7+7) + (7*8+8)


def test_dict_insertion_order_and_later_appends_are_tracked():
    class Late(Layer):
        def __init__(self):
            super().__init__()
            self.blocks = []
            self.blocks.append(L.Dense(2))
            self.blocks.extend([L.Dense(2)])
            self.table = {}
            self.table["x"] = L.Dense(2)

        def call(self, x):
            for layer in self.blocks:
                x = layer(x)
            return self.table["x"](x)

    layer = Late()
    layer(np.ones((1, 2), np.float32))
    assert [v.path for v in layer.variables] == [
        "dense/kernel", "dense/bias", "dense_1/kernel", "dense_1/bias", "dense_2/kernel",
        "dense_2/bias"]


def test_shared_variable_and_shared_layer_appear_once():
    shared = L.Dense(3)

    class Twice(Layer):
        def __init__(self):
            super().__init__()
            self.a = shared
            self.b = [shared]
            self.c = Wrapper(shared)

        def call(self, x):
            return self.c(self.a(x))

    class Wrapper(Layer):
        def __init__(self, inner):
            super().__init__()
            self.inner = inner
            self.out = L.Dense(3)

        def call(self, x):
            return self.out(x)

    model = Twice()
    model(np.ones((2, 3), np.float32))
    assert len(model.variables) == 4
    assert [v.path for v in model.variables] == ["dense/kernel", "dense/bias",
                                                 "dense_1/kernel", "dense_1/bias"]


def test_new_state_after_build_names_the_fix():
    class Grows(Layer):
        def call(self, x):
            self.extra = tf.Variable(1.0)
            return x

    layer = Grows()
    with pytest.raises(ValueError, match=r"grows.*already built.*`__init__\(\)` or in "
                                         r"`build\(\)`"):
        layer(np.ones((1, 2), np.float32))
    dense = L.Dense(2)
    dense(np.ones((1, 2), np.float32))
    with pytest.raises(ValueError, match="already built"):
        dense.add_weight(shape=(2,), name="late")
    with pytest.raises(ValueError, match="sublayer 'dense_1'"):
        dense.sub = L.Dense(1)


def test_trainable_false_freezes_sublayers_and_variables():
    block = Block()
    block(np.ones((2, 3), np.float32))
    block.trainable = False
    assert block.trainable_variables == []
    assert len(block.non_trainable_variables) == 15
    assert all(not layer.trainable for layer in block.submodules)
    assert block.stack[0].trainable_weights == []
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(block(np.ones((2, 3), np.float32)))
    assert tape.watched_variables() == ()
    block.trainable = True
    assert len(block.trainable_variables) == 15
    del y


def test_bn_moving_stats_stay_non_trainable_after_unfreeze():
    bn = L.BatchNormalization()
    bn(np.ones((2, 3), np.float32))
    bn.trainable = False
    bn.trainable = True
    assert [v.name for v in bn.trainable_weights] == ["gamma:0", "beta:0"]
    assert [v.name for v in bn.non_trainable_weights] == ["moving_mean:0", "moving_variance:0"]


class Recorder(Layer):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.seen = []

    def call(self, x, training=None):
        self.seen.append(training)
        return x


class Outer(Layer):
    def __init__(self):
        super().__init__()
        self.inner = Recorder()
        self.forced = Recorder()
        self.after = Recorder()

    def call(self, x, training=None):
        x = self.inner(x)
        x = self.forced(x, training=False)
        return self.after(x)


def test_training_is_passed_down_when_not_given():
    outer = Outer()
    x = np.ones((1, 2), np.float32)
    outer(x, training=True)
    outer(x, training=False)
    outer(x)
    assert outer.inner.seen == [True, False, None]
    assert outer.forced.seen == [False, False, False]
    assert outer.after.seen == [True, False, None]  # an inner explicit value stays local


def test_training_default_from_call_signature():
    class DefaultsTrue(Layer):
        def call(self, x, training=True):
            self.got = training
            return x
    layer = DefaultsTrue()
    layer(np.ones((1,), np.float32))
    assert layer.got is True
    # An outer call's value wins over the inner default.
    outer = Outer()
    outer.inner = outer.inner  # re-assigning the same layer is fine after build
    outer(np.ones((1, 2), np.float32), training=False)


def test_dropout_inside_subclass_follows_outer_training():
    class Net(Layer):
        def __init__(self):
            super().__init__()
            self.drop = L.Dropout(0.5, seed=1)

        def call(self, x):
            return self.drop(x)

    net = Net()
    x = np.ones((100, 10), np.float32)
    np.testing.assert_array_equal(net(x).numpy(), x)
    trained = net(x, training=True).numpy()
    assert set(np.unique(trained)) <= {0.0, 2.0} and (trained == 0).any()


def test_add_weight_orders_defaults_and_paths():
    class W(Layer):
        def build(self, input_shape):
            self.a = self.add_weight((2, 3), "zeros", name="a")  # Keras 3 order
            self.b = self.add_weight("b", (3,), "ones")  # tf.keras name-first order
            self.c = self.add_weight(shape=(), name="c", trainable=False)
            self.d = self.add_weight("d", (2,), tf.float64)

        def call(self, x):
            return x

    layer = W(name="w")
    layer(np.ones((1, 2), np.float32))
    assert layer.a.shape == (2, 3) and np.all(layer.a.numpy() == 0)
    assert np.all(layer.b.numpy() == 1) and layer.b.dtype == tf.float32
    assert layer.c.trainable is False and layer.c.shape == ()
    assert layer.d.dtype == tf.float64
    assert [v.path for v in layer.weights] == ["w/a", "w/b", "w/d", "w/c"]
    assert layer.a.name == "a:0"


@pytest.mark.parametrize("shape", [(2, None), (-1, 3), "abc", (2.5,)])
def test_add_weight_bad_shape(shape):
    layer = Layer(name="holder")
    with pytest.raises(ValueError, match=r"holder.*weight 'k'.*shape"):
        layer.add_weight(shape=shape, name="k")


def test_add_weight_unknown_initializer():
    with pytest.raises(ValueError, match="Unknown initializer: 'glorot_unifrom'.*glorot_uniform"):
        Layer().add_weight(shape=(2,), initializer="glorot_unifrom")


def test_get_set_weights_and_errors():
    dense = L.Dense(2, name="d")
    with pytest.raises(ValueError, match="not built"):
        dense.set_weights([np.zeros((3, 2))])
    with pytest.raises(ValueError, match="isn't built"):
        dense.count_params()
    dense(np.ones((1, 3), np.float32))
    kernel = np.arange(6, dtype=np.float64).reshape(3, 2)
    dense.set_weights([kernel, np.array([1.0, 2.0])])
    assert dense.kernel.dtype == tf.float32
    np.testing.assert_array_equal(dense.get_weights()[0], kernel)
    with pytest.raises(ValueError, match=r"'d'.*'d/kernel'.*\(3, 2\).*\(2, 3\)"):
        dense.set_weights([np.zeros((2, 3)), np.zeros(2)])
    with pytest.raises(ValueError, match="length 1.*expecting 2"):
        dense.set_weights([kernel])
    np.testing.assert_array_equal(dense.kernel.numpy(), kernel)  # unchanged on error


def test_input_spec_errors_name_layer_and_shapes():
    dense = L.Dense(2, name="proj")
    dense(np.ones((4, 3), np.float32))
    with pytest.raises(ValueError, match=r'layer "proj".*axis -1.*value 3.*\(4, 5\)'):
        dense(np.ones((4, 5), np.float32))
    with pytest.raises(ValueError, match=r'layer "proj".*min_ndim=2, found ndim=1'):
        L.Dense(2, name="proj")(np.ones((4,), np.float32))
    bn = L.BatchNormalization(name="bn")
    bn(np.ones((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match=r'"bn".*expected ndim=3, found ndim=2'):
        bn(np.ones((2, 4), np.float32))

    class Spec(Layer):
        def __init__(self):
            super().__init__(name="spec")
            self.input_spec = InputSpec(shape=(None, 3), dtype="float32")

        def call(self, x):
            return x
    with pytest.raises(ValueError, match=r'"spec".*expected shape=\(None, 3\)'):
        Spec()(np.ones((2, 4), np.float32))


def test_dtype_sets_variables_and_casts_float_inputs():
    dense = L.Dense(2, dtype="float64")
    out = dense(np.ones((1, 3), np.float32))
    assert dense.dtype == "float64" and dense.kernel.dtype == tf.float64
    assert out.dtype == tf.float64
    out32 = L.Dense(2)(tf.constant(np.ones((1, 3), np.float64)))
    assert out32.dtype == tf.float32
    emb = L.Embedding(5, 2)
    assert emb(np.array([[1, 2]], np.int64)).dtype == tf.float32  # ints are not cast to float
    with pytest.raises(ValueError, match="mixed"):
        L.Dense(2, dtype="mixed_float16")


def test_losses_weight_and_activity_regularization():
    dense = L.Dense(2, kernel_regularizer=tf.keras.regularizers.L2(0.1),
                    bias_regularizer="l1", activity_regularizer=tf.keras.regularizers.L1(0.5),
                    bias_initializer="ones")
    x = np.ones((1, 3), np.float32)
    out = dense(x)
    losses = [float(v) for v in dense.losses]
    kernel = dense.kernel.numpy()
    assert losses == pytest.approx([0.5 * np.abs(out.numpy()).sum(),
                                    0.1 * (kernel ** 2).sum(), 0.01 * 2.0], rel=1e-5)
    dense(x)  # activity losses are replaced by each outermost call, not accumulated
    assert len(dense.losses) == 3
    dense.trainable = False
    assert len(dense.losses) == 1  # frozen weights are not regularized (Keras 3)


def test_losses_of_sublayers_and_add_loss():
    class Net(Layer):
        def __init__(self):
            super().__init__()
            self.d = L.Dense(2, kernel_regularizer="l2")

        def call(self, x):
            self.add_loss(tf.constant(3.0))
            return self.d(x)

    net = Net()
    net(np.ones((1, 2), np.float32))
    assert len(net.losses) == 2 and float(net.losses[0]) == 3.0
    net(np.ones((1, 2), np.float32))
    assert len(net.losses) == 2
    with tf.GradientTape() as tape:
        total = tf.add(net(np.ones((1, 2), np.float32))[0, 0], net.losses[1])
    assert tape.gradient(total, net.d.kernel) is not None


def test_config_round_trip_and_auto_config():
    dense = L.Dense(3, activation="relu", use_bias=False, kernel_initializer="he_normal",
                    kernel_regularizer=tf.keras.regularizers.L1L2(0.1, 0.2),
                    kernel_constraint="max_norm", name="d")
    config = dense.get_config()
    assert config["activation"] == "relu" and config["units"] == 3
    clone = L.Dense.from_config(config)
    assert clone.get_config() == config
    assert isinstance(clone.kernel_initializer, tf.keras.initializers.HeNormal)

    class Simple(Layer):
        def __init__(self, units, scale=2.0, **kwargs):
            super().__init__(**kwargs)
            self.units, self.scale_ = units, scale

        def call(self, x):
            return x

    simple = Simple(4, name="s")
    assert simple.get_config() == {"name": "s", "trainable": True, "dtype": "float32",
                                   "units": 4}
    assert Simple.from_config(simple.get_config()).units == 4

    class Opaque(Layer):
        def __init__(self, fn, **kwargs):
            super().__init__(**kwargs)
            self.fn = fn

    with pytest.raises(NotImplementedError, match="must override `get_config"):
        Opaque(lambda x: x).get_config()


def test_unknown_constructor_keyword():
    with pytest.raises(ValueError, match="Unrecognized keyword arguments passed to Dense"):
        L.Dense(2, unitz=3)


def test_input_shape_argument_is_recorded():
    assert L.Dense(2, input_shape=(3,))._input_shape_arg == (3,)
    assert L.Dense(2, input_dim=4)._input_shape_arg == (4,)


def test_missing_super_init():
    class Broken(Layer):
        def __init__(self):
            self.x = 1

        def call(self, x):
            return x
    with pytest.raises(RuntimeError, match="super"):
        Broken()(np.ones(1, np.float32))


def test_build_with_several_named_shapes():
    class TwoInputs(Layer):
        def build(self, query_shape, value_shape):
            self.shapes = (tuple(query_shape), tuple(value_shape))

        def call(self, query, value):
            return query

    layer = TwoInputs()
    layer(np.ones((2, 3), np.float32), np.ones((2, 5, 4), np.float32))
    assert layer.shapes == ((2, 3), (2, 5, 4))
    assert layer.built


def test_masks_propagate_to_layers_that_accept_them():
    class Seen(Layer):
        def call(self, x, mask=None):
            self.mask = mask
            return x

    emb = L.Embedding(10, 3, mask_zero=True)
    dense = L.Dense(3)
    seen = Seen()
    ids = np.array([[1, 2, 0], [3, 0, 0]])
    out = seen(dense(emb(ids)))
    expected = ids != 0
    np.testing.assert_array_equal(L.get_keras_mask(out).numpy(), expected)
    np.testing.assert_array_equal(seen.mask.numpy(), expected)
    assert L.get_keras_mask(L.Embedding(10, 3)(ids)) is None


def test_compute_output_shape_default_runs_the_layer():
    class Doubles(Layer):
        def call(self, x):
            return tf.concat([x, x], axis=-1)
    assert Doubles().compute_output_shape((None, 3)) == (None, 6)


def test_repr_and_non_layer_attributes_untouched():
    layer = L.Dense(2, name="d")
    layer.note = [1, 2]
    assert layer.note == [1, 2] and "Dense name=d, built=False" in repr(layer)
    with L.no_tracking():
        layer.ref = L.Dense(1)
    assert layer.submodules == ()


def test_layer_input_and_output_are_the_first_symbolic_call():
    """Keras's `layer.output` / `model.input`, as the functional API guide uses them to
    build a feature extractor from another model's layers."""
    inputs = tf.keras.Input((4,), name="x")
    hidden = tf.keras.layers.Dense(3, name="hidden")
    h = hidden(inputs)
    out = tf.keras.layers.Dense(2, name="out")(h)
    model = tf.keras.Model(inputs, out)
    assert hidden.input is inputs and hidden.output is h
    assert model.input is inputs and model.output is out
    extractor = tf.keras.Model(model.input, [layer.output for layer in model.layers])
    given, first, second = extractor(np.ones((1, 4), np.float32))  # the InputLayer's first
    assert given.shape == (1, 4) and first.shape == (1, 3) and second.shape == (1, 2)
    with pytest.raises(AttributeError, match="'fresh' has no inbound nodes"):
        tf.keras.layers.Dense(1, name="fresh").output


def test_tf_functions_on_symbolic_tensors_record_op_nodes():
    """tf.concat, tf.reduce_mean, tf.math.exp ... on KerasTensors between layers, as Keras
    wraps TF ops in the functional API: the model runs them on the real tensors, and they
    are not among model.layers (as Python operators between layers)."""
    a, b = tf.keras.Input((3,), name="a"), tf.keras.Input((3,), name="b")
    joined = tf.concat([a, b], axis=1)
    mean = tf.reduce_mean(joined, axis=1, keepdims=True)
    extra = tf.math.exp(mean) + tf.add(a, 1.0)[:, :1]
    model = tf.keras.Model([a, b], tf.keras.layers.Dense(2, name="head")(
        tf.concat([joined, extra], axis=1)))
    assert [layer.name for layer in model.layers] == ["a", "b", "head"]
    x = np.ones((2, 3), np.float32)
    cat = np.concatenate([x, 2 * x], axis=1)
    feats = np.concatenate([cat, np.exp(cat.mean(1, keepdims=True)) + 2.0], axis=1)
    head = model.get_layer("head")
    np.testing.assert_allclose(model([x, 2 * x]).numpy(),
                               feats @ head.kernel.numpy() + head.bias.numpy(), rtol=1e-6)
    with pytest.raises(ValueError, match="unsupported type"):
        tf.linalg.det(a)  # a function without the dispatch still says what it got


@pytest.mark.parametrize("make, shape", [
    (lambda: tf.keras.layers.Dense(3), (2, 5)),
    (lambda: tf.keras.layers.Conv2D(4, 3), (2, 8, 8, 3)),
    (lambda: tf.keras.layers.LSTM(4), (2, 6, 3)),
    (lambda: tf.keras.layers.BatchNormalization(), (2, 5)),
])
def test_build_by_hand_then_call_builds_once(make, shape):
    """Keras 3's build wrapper marks a layer built when build returns: a call
    after `layer.build(shape)` reuses its weights (it made a second set before)."""
    layer = make()
    layer.build(shape)
    assert layer.built
    before = [id(v) for v in layer.weights]
    layer(np.zeros(shape, np.float32))
    assert [id(v) for v in layer.weights] == before


def test_a_subclass_may_add_weights_after_calling_its_parents_build():
    class Scaled(tf.keras.layers.Dense):
        def build(self, input_shape):
            super().build(input_shape)  # the parent's build does not lock the state yet
            self.scale = self.add_weight(name="scale", shape=(), initializer="ones")

    layer = Scaled(2, kernel_initializer="ones")
    out = layer(np.ones((1, 3), np.float32))
    assert [v.name.split(":")[0] for v in layer.weights] == ["kernel", "bias", "scale"]
    np.testing.assert_array_equal(out.numpy(), [[3.0, 3.0]])
    with pytest.raises(ValueError, match="already built and cannot track a new"):
        layer.extra = tf.Variable(1.0)  # after the outermost build returned: locked
