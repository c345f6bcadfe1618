"""tf.Module (framework/module.py): names and their validation, name scopes and the
Variable names made in them, `with_name_scope`, the discovery of variables and
submodules in TF's order, and Keras layers being Modules. The classes and printed
values of TF's "Introduction to modules" guide and custom-training tutorial are
ported as they are."""

import copy
import pickle
import threading
from collections import namedtuple

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing import gradcheck


# -- TF's "Introduction to modules" guide -------------------------------------------

class SimpleModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.a_variable = tf.Variable(5.0, name="train_me")
        self.non_trainable_variable = tf.Variable(5.0, trainable=False, name="do_not_train_me")

    def __call__(self, x):
        return self.a_variable * x + self.non_trainable_variable


class Dense(tf.Module):
    def __init__(self, in_features, out_features, name=None):
        super().__init__(name=name)
        self.w = tf.Variable(tf.random.normal([in_features, out_features]), name="w")
        self.b = tf.Variable(tf.zeros([out_features]), name="b")

    def __call__(self, x):
        y = tf.matmul(x, self.w) + self.b
        return tf.nn.relu(y)


class SequentialModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = Dense(in_features=3, out_features=3)
        self.dense_2 = Dense(in_features=3, out_features=2)

    def __call__(self, x):
        x = self.dense_1(x)
        return self.dense_2(x)


class FlexibleDenseModule(tf.Module):
    def __init__(self, out_features, name=None):
        super().__init__(name=name)
        self.is_built = False
        self.out_features = out_features

    def __call__(self, x):
        if not self.is_built:
            self.w = tf.Variable(tf.random.normal([x.shape[-1], self.out_features]), name="w")
            self.b = tf.Variable(tf.zeros([self.out_features]), name="b")
            self.is_built = True
        y = tf.matmul(x, self.w) + self.b
        return tf.nn.relu(y)


class MySequentialModule(tf.Module):
    def __init__(self, name=None):
        super().__init__(name=name)
        self.dense_1 = FlexibleDenseModule(out_features=3)
        self.dense_2 = FlexibleDenseModule(out_features=2)

    def __call__(self, x):
        x = self.dense_1(x)
        return self.dense_2(x)


def _relu_dense(x, module):
    return np.maximum(x @ module.w.numpy() + module.b.numpy(), 0.0)


def test_simple_module_prints_tfs_variable_lists():
    simple_module = SimpleModule(name="simple")
    assert simple_module.name == "simple"
    assert float(simple_module(tf.constant(5.0))) == 30.0
    # The guide's printed output, character for character.
    assert str(simple_module.trainable_variables) == (
        "(<tf.Variable 'train_me:0' shape=() dtype=float32, numpy=5.0>,)")
    assert str(simple_module.variables) == (
        "(<tf.Variable 'train_me:0' shape=() dtype=float32, numpy=5.0>, "
        "<tf.Variable 'do_not_train_me:0' shape=() dtype=float32, numpy=5.0>)")
    assert simple_module.non_trainable_variables == (simple_module.non_trainable_variable,)


def test_sequential_module_submodules_and_variables_in_tfs_order():
    my_model = SequentialModule(name="the_model")
    x = np.array([[2.0, 2.0, 2.0]], np.float32)
    result = my_model(tf.constant(x))
    expected = _relu_dense(_relu_dense(x, my_model.dense_1), my_model.dense_2)
    assert result.shape == (1, 2) and result.dtype == tf.float32
    np.testing.assert_allclose(result.numpy(), expected, rtol=1e-6)
    assert my_model.submodules == (my_model.dense_1, my_model.dense_2)
    # "for var in my_model.variables: print(var)": each Dense's b then w.
    assert [(v.name, v.shape) for v in my_model.variables] == [
        ("b:0", (3,)), ("w:0", (3, 3)), ("b:0", (2,)), ("w:0", (3, 2))]
    assert [v is u for v, u in zip(my_model.variables, (
        my_model.dense_1.b, my_model.dense_1.w, my_model.dense_2.b, my_model.dense_2.w))] == [
        True] * 4
    assert str(my_model.variables[0]) == (
        "<tf.Variable 'b:0' shape=(3,) dtype=float32, numpy=array([0., 0., 0.], dtype=float32)>")
    assert my_model.dense_1.name == "dense" and my_model.name == "the_model"


def test_flexible_modules_collect_variables_made_on_first_call():
    my_model = MySequentialModule(name="the_model")
    assert my_model.variables == () and len(my_model.submodules) == 2
    x = np.array([[2.0, 2.0, 2.0]], np.float32)
    result = my_model(tf.constant(x))
    assert result.shape == (1, 2)
    np.testing.assert_allclose(
        result.numpy(), _relu_dense(_relu_dense(x, my_model.dense_1), my_model.dense_2),
        rtol=1e-6)
    assert [v.shape for v in my_model.trainable_variables] == [(3,), (3, 3), (2,), (3, 2)]


def test_custom_training_basics_tutorial_model_trains():
    # TF's "Custom training: basics": the variables print b (0.0) before w (5.0).
    class MyModel(tf.Module):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.w = tf.Variable(5.0)
            self.b = tf.Variable(0.0)

        def __call__(self, x):
            return self.w * x + self.b

    model = MyModel()
    assert str(model.variables) == (
        "(<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=0.0>, "
        "<tf.Variable 'Variable:0' shape=() dtype=float32, numpy=5.0>)")
    assert float(model(3.0)) == 15.0
    x = np.linspace(-2.0, 2.0, 20).astype(np.float32)
    y = 3.0 * x + 2.0
    losses = []
    for _ in range(20):
        with tf.GradientTape() as tape:
            loss = tf.reduce_mean(tf.square(model(x) - y))
        dw, db = tape.gradient(loss, [model.w, model.b])
        if not losses:  # d/dw mean((w x + b - y)^2) at w=5, b=0
            residual = 5.0 * x - y
            np.testing.assert_allclose(float(dw), np.mean(2 * residual * x), rtol=1e-5)
            np.testing.assert_allclose(float(db), np.mean(2 * residual), rtol=1e-5)
        model.w.assign_sub(0.1 * dw)
        model.b.assign_sub(0.1 * db)
        losses.append(float(loss))
    assert losses[-1] < 0.05 * losses[0]
    np.testing.assert_allclose([float(model.w), float(model.b)], [3.0, 2.0], atol=0.3)


def test_a_module_method_is_differentiable_in_float64():
    class Affine(tf.Module):
        @tf.Module.with_name_scope
        def __call__(self, x, w):
            return tf.tanh(tf.matmul(x, w)) * x[:, :1]

    gradcheck(Affine(), np.random.default_rng(0).standard_normal((2, 3)),
              np.random.default_rng(1).standard_normal((3, 2)), order=2)


# -- names ----------------------------------------------------------------------------

@pytest.mark.parametrize("cls_name, expected", [
    ("Module", "module"), ("MyModule", "my_module"), ("MLP", "mlp"),
    ("HTTPServer", "http_server"), ("Conv2D", "conv2_d"), ("already_snake", "already_snake")])
def test_default_name_is_tfs_snake_case_of_the_class(cls_name, expected):
    assert type(cls_name, (tf.Module,), {})().name == expected


@pytest.mark.parametrize("name", ["", "1abc", "a b", "outer/inner", "a-b", "a.b"])
def test_a_name_that_is_no_identifier_raises_value_error(name):
    with pytest.raises(ValueError, match=f"{name!r} is not a valid module name"):
        tf.Module(name=name)


def test_a_name_that_is_no_string_raises_type_error_and_name_is_read_only():
    with pytest.raises(TypeError, match="name=5"):
        tf.Module(name=5)
    module = tf.Module(name="fixed")
    with pytest.raises(AttributeError):
        module.name = "other"
    assert module.name == "fixed"


# -- name scopes ------------------------------------------------------------------------

def test_name_scope_names_the_variables_made_inside_it():
    module = tf.Module(name="my_module")
    assert module.name_scope.name == "my_module/"
    assert tf.Variable(1.0, name="w").name == "w:0"
    with module.name_scope as scope:
        assert scope == "my_module/"
        w = tf.Variable(1.0, name="w")
        unnamed = tf.Variable(2.0)
        with module.name_scope:  # re-entrant: the scope is the module's, not nested again
            again = tf.Variable(3.0, name="again")
    assert (w.name, unnamed.name, again.name) == (
        "my_module/w:0", "my_module/Variable:0", "my_module/again:0")
    assert tf.Variable(1.0, name="w").name == "w:0"


def test_a_module_made_inside_another_scope_keeps_the_full_scope():
    outer = tf.Module(name="outer")
    with outer.name_scope:
        inner = tf.Module(name="inner")
    assert inner.name == "inner" and inner.name_scope.name == "outer/inner/"
    with inner.name_scope:
        assert tf.Variable(0.0, name="v").name == "outer/inner/v:0"


def test_the_scope_is_left_on_an_exception_and_is_per_thread():
    module = tf.Module(name="scoped")
    with pytest.raises(RuntimeError):
        with module.name_scope:
            raise RuntimeError("boom")
    assert tf.Variable(0.0, name="after").name == "after:0"

    names, entered, leave = {}, threading.Event(), threading.Event()

    def inside():
        with module.name_scope:
            names["inside"] = tf.Variable(0.0, name="v").name
            entered.set()
            leave.wait(10)

    thread = threading.Thread(target=inside)
    thread.start()
    entered.wait(10)
    names["outside"] = tf.Variable(0.0, name="v").name
    leave.set()
    thread.join()
    assert names == {"inside": "scoped/v:0", "outside": "v:0"}


def test_copies_keep_the_variables_name_in_any_scope():
    with tf.Module(name="first").name_scope:
        variable = tf.Variable([1.0, 2.0], name="v")
    with tf.Module(name="second").name_scope:
        copies = [copy.deepcopy(variable), pickle.loads(pickle.dumps(variable))]
    assert [c.name for c in copies] == ["first/v:0", "first/v:0"]
    np.testing.assert_array_equal(copies[1].numpy(), [1.0, 2.0])


def test_with_name_scope_matches_tfs_examples():
    class MyModule(tf.Module):
        @tf.Module.with_name_scope
        def __call__(self, x):
            """Multiply by w."""
            if not hasattr(self, "w"):
                self.w = tf.Variable(tf.ones([x.shape[1], 3]))
            return tf.matmul(x, self.w)

    mod = MyModule()
    out = mod(tf.ones([1, 2]))
    np.testing.assert_array_equal(out.numpy(), [[2.0, 2.0, 2.0]])
    assert mod.w.name == "my_module/Variable:0" and mod.w.shape == (2, 3)
    assert MyModule.__call__.__name__ == "__call__"
    assert MyModule.__call__.__doc__ == "Multiply by w."

    class MLP(tf.Module):  # tf.Module's docstring: every variable is 'mlp/...'
        def __init__(self, input_size, sizes, name=None):
            super().__init__(name=name)
            self.layers = []
            with self.name_scope:
                for size in sizes:
                    self.layers.append(Dense(in_features=input_size, out_features=size))
                    input_size = size

        @tf.Module.with_name_scope
        def __call__(self, x):
            for layer in self.layers:
                x = layer(x)
            return x

    module = MLP(input_size=5, sizes=[5, 5])
    assert [v.name for v in module.variables] == ["mlp/b:0", "mlp/w:0", "mlp/b:0", "mlp/w:0"]
    assert module(tf.ones([2, 5])).shape == (2, 5)


# -- discovery -------------------------------------------------------------------------

def test_variables_are_found_by_sorted_attribute_lists_tuples_and_dicts():
    v = {k: tf.Variable(float(i), name=k) for i, k in enumerate("abcdefg")}
    Pair = namedtuple("Pair", ["second", "first"])
    module = tf.Module()
    module.zeta = v["a"]
    module.alpha = [v["b"], (v["c"], {"y": v["d"], "x": v["e"]})]
    module.mid = Pair(second=v["f"], first=v["g"])
    module.again = [v["a"], v["b"]]  # already found under another name: listed once
    module.number, module.text = 3, "not a variable"
    assert [x.name for x in module.variables] == [
        "a:0", "b:0", "c:0", "e:0", "d:0", "f:0", "g:0"]
    # With paths every route is listed, dicts by key, namedtuples by field.
    paths = [(path, x.name) for path, x in module._flatten(
        predicate=lambda x: isinstance(x, tf.Variable), with_path=True)]
    assert paths == [
        (("again", 0), "a:0"), (("again", 1), "b:0"), (("alpha", 0), "b:0"),
        (("alpha", 1, 0), "c:0"), (("alpha", 1, 1, "x"), "e:0"), (("alpha", 1, 1, "y"), "d:0"),
        (("mid", "second"), "f:0"), (("mid", "first"), "g:0"), (("zeta",), "a:0")]


def test_trainable_and_non_trainable_follow_the_variables_flag():
    module = tf.Module()
    module.frozen = tf.Variable(1.0, trainable=False, name="frozen")
    module.child = tf.Module()
    module.child.weight = tf.Variable(2.0, name="weight")
    module.child.stat = tf.Variable(3.0, trainable=False, name="stat")
    assert [v.name for v in module.variables] == ["frozen:0", "stat:0", "weight:0"]
    assert [v.name for v in module.trainable_variables] == ["weight:0"]
    assert [v.name for v in module.non_trainable_variables] == ["frozen:0", "stat:0"]
    module.child.weight.trainable = False
    assert module.trainable_variables == ()


def test_submodules_are_direct_ones_first_then_each_ones_own():
    a, b, c = tf.Module(), tf.Module(), tf.Module()
    a.b = b
    b.c = c
    assert list(a.submodules) == [b, c] and list(b.submodules) == [c]
    assert list(c.submodules) == []
    root, x, y, x_child, y_child = (tf.Module(name=n) for n in ("root", "x", "y", "xc", "yc"))
    x.child, y.child = x_child, y_child
    root.items = {"second": y, "first": x}
    root.shared = x  # the same module under two names is listed once
    assert [m.name for m in root.submodules] == ["x", "y", "xc", "yc"]
    assert [m.name for m in root._flatten(recursive=False, predicate=
                                         lambda m: isinstance(m, tf.Module))] == ["x", "y"]
    a.c_again = a  # a cycle ends
    assert list(a.submodules) == [b, c]
    assert len(list(a._flatten(with_path=True))) > 0


def test_ignored_properties_and_traversal_key():
    class Cached(tf.Module):
        _TF_MODULE_IGNORED_PROPERTIES = tf.Module._TF_MODULE_IGNORED_PROPERTIES | {"_cache"}

        def __init__(self):
            super().__init__()
            self.b_weight = tf.Variable(1.0, name="b_weight")
            self.a_weight = tf.Variable(2.0, name="a_weight")
            self._cache = [tf.Variable(3.0, name="cached")]

    module = Cached()
    assert [v.name for v in module.variables] == ["a_weight:0", "b_weight:0"]
    reverse = module._flatten(predicate=lambda x: isinstance(x, tf.Variable),
                              attribute_traversal_key=lambda key: (key != "b_weight", key))
    assert [v.name for v in reverse] == ["b_weight:0", "a_weight:0"]


def test_a_dict_with_unsortable_keys_names_the_property():
    module = tf.Module()
    module.table = {1: tf.Variable(1.0), "one": tf.Variable(2.0)}
    with pytest.raises(ValueError, match="Error processing property 'table'"):
        module.variables


# -- Keras layers and models are Modules -----------------------------------------------

def test_keras_layers_and_models_are_modules():
    dense = tf.keras.layers.Dense(2, name="dense_module_test")
    model = tf.keras.Sequential([tf.keras.layers.Dense(3), dense])
    assert isinstance(dense, tf.Module) and isinstance(model, tf.Module)
    model.build((None, 4))
    assert model.submodules[-1] is dense and dense.submodules == ()
    assert isinstance(model.variables, list)
    assert [v.shape for v in model.trainable_variables] == [(4, 3), (3,), (3, 2), (2,)]
    assert dense.name == "dense_module_test"
    with dense.name_scope as scope:
        assert scope == "dense_module_test/"
        assert tf.Variable(0.0, name="w").name == "dense_module_test/w:0"


def test_a_layers_submodules_in_tfs_order_and_its_weights_in_keras_order():
    class Inner(tf.keras.layers.Layer):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.child = tf.keras.layers.Dense(1, name="inner_child")

        def call(self, x):
            return self.child(x)

    class Block(tf.keras.layers.Layer):
        def __init__(self):
            super().__init__()
            self.zeta = Inner(name="zeta_inner")
            self.alpha = tf.keras.layers.Dense(2, name="alpha_dense")

        @tf.Module.with_name_scope
        def call(self, x):
            return self.alpha(x) + self.zeta(x)

    block = Block()
    block(tf.ones([1, 3]))
    assert [m.name for m in block.submodules] == ["zeta_inner", "alpha_dense", "inner_child"]
    # Keras's order is kept: assignment order, not the attributes' names.
    assert [v.shape for v in block.trainable_variables] == [(3, 1), (1,), (3, 2), (2,)]
    assert block.trainable_variables[0] is block.zeta.child.kernel


def test_a_layer_name_keeps_the_keras_rules():
    assert tf.keras.layers.Dense(1, name="not-an-identifier").name == "not-an-identifier"
    with pytest.raises(ValueError, match="cannot contain the character `/`"):
        tf.keras.layers.Dense(1, name="a/b")


# -- what checkpoints and SavedModel use (framework/train/, framework/saved_model/) ----------

def test_constructor_arguments_are_kept_but_never_walked():
    from tapeflow.module import init_arguments

    class WithArgs(tf.Module):
        def __init__(self, v, scale=1.0, name=None):
            super().__init__(name=name)
            self.w = tf.Variable(v * scale)

    assert init_arguments(WithArgs(3, scale=[2.0], name="m")) == ((3,), {"scale": [2.0],
                                                                        "name": "m"})
    assert init_arguments(tf.Module()) == ((), {})
    given = tf.Variable(9.0)
    m = WithArgs(given, scale=2.0, name="m")
    assert init_arguments(m) is None  # a Variable (an array, a model) is not held on to
    # the argument Variable is not one of the module's: only attributes are walked
    assert [v.numpy() for v in m.variables] == [18.0]
    assert [name for name, _ in m._checkpoint_dependencies()] == ["w"]
    assert [path for path, _ in m._flatten(with_path=True)] == [("_name",), ("_name_scope",),
                                                                ("w",)]
