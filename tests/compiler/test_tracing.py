"""tapeflow.function's tracing: TF's retracing rules and counts (the cases and
printed lines of TF's tf.function guide, site/en/guide/function.ipynb), replay
without the Python function, effects at every call, Variables by reference,
what falls back to eager, and the swaps being undone after a trace."""

import warnings

import numpy as np
import pytest
import tapeflow as tf
from tapeflow.compiler import signature as sig
from tapeflow.compiler import tracing
from tapeflow.core.tensor import Tensor, Variable
from tapeflow.ops.registry import Op


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


# -- TF's guide ------------------------------------------------------------------
def test_guide_usage_add_and_gradient_and_nesting():
    @tf.function
    def add(a, b):
        return a + b

    np.testing.assert_array_equal(add(tf.ones([2, 2]), tf.ones([2, 2])).numpy(), [[2, 2], [2, 2]])
    v = tf.Variable(1.0)
    with tf.GradientTape() as tape:
        result = add(v, 1.0)
    assert float(tape.gradient(result, v)) == 1.0

    @tf.function
    def dense_layer(x, w, b):
        return add(tf.matmul(x, w), b)

    np.testing.assert_array_equal(
        dense_layer(tf.ones([3, 2]), tf.ones([2, 2]), tf.ones([2])).numpy(), np.full((3, 2), 3.0))


def test_guide_double_traces_once_per_dtype(capsys):
    @tf.function
    def double(a):
        print("Tracing with", a)
        return a + a

    assert int(double(tf.constant(1))) == 2
    assert float(double(tf.constant(1.1))) == pytest.approx(2.2)
    assert double(tf.constant("a")).numpy() == b"aa"
    assert double(tf.constant("b")).numpy() == b"bb"  # no 'Tracing with' for this one
    out = capsys.readouterr().out
    assert out.count("Tracing with") == 3
    assert double.experimental_get_tracing_count() == 3

    double_strings = double.get_concrete_function(tf.constant("a"))
    assert double_strings(tf.constant("a")).numpy() == b"aa"
    assert double_strings(a=tf.constant("b")).numpy() == b"bb"
    with pytest.raises(tf.errors.InvalidArgumentError, match="string tensor"):
        double_strings(tf.constant(1))
    assert double_strings.structured_input_signature == (
        (tf.TensorSpec([], tf.string),), {})
    assert double_strings.structured_outputs == tf.TensorSpec([], tf.string)
    assert double_strings.inputs == [tf.TensorSpec([], tf.string)]
    assert double_strings.outputs == [tf.TensorSpec([], tf.string)]
    assert double.python_function(tf.constant(2)).numpy() == 4  # the undecorated function
    assert double.experimental_get_tracing_count() == 3  # the string trace was reused


def test_guide_input_signature(capsys):
    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def next_collatz(x):
        print("Tracing with", x)
        return tf.where(x % 2 == 0, x // 2, 3 * x + 1)

    np.testing.assert_array_equal(_quiet(next_collatz, tf.constant([1, 2])).numpy(), [4, 1])
    with pytest.raises(TypeError, match=r"shape \(2, 2\)"):
        next_collatz(tf.constant([[1, 2], [3, 4]]))
    with pytest.raises(TypeError, match="float32"):
        next_collatz(tf.constant([1.0, 2.0]))
    assert next_collatz.input_signature == (tf.TensorSpec([None], tf.int32),)

    @tf.function(input_signature=(tf.TensorSpec(shape=[None], dtype=tf.int32),))
    def g(x):
        print("Tracing with", x)
        return x

    capsys.readouterr()
    np.testing.assert_array_equal(g(tf.constant([1, 2, 3])).numpy(), [1, 2, 3])
    np.testing.assert_array_equal(g(tf.constant([1, 2, 3, 4, 5])).numpy(), [1, 2, 3, 4, 5])
    assert capsys.readouterr().out.count("Tracing with") == 1  # "No retrace!"
    assert g.experimental_get_tracing_count() == 1


def test_guide_reduce_retracing(capsys):
    @tf.function(reduce_retracing=True)
    def g(x):
        print("Tracing with", x)
        return x

    for n in (3, 5, 7, 9):
        np.testing.assert_array_equal(g(tf.constant(list(range(1, n + 1)))).numpy(),
                                      np.arange(1, n + 1))
    # "Traces once", "Traces again, but more generalized", "No more tracing!"
    assert g.experimental_get_tracing_count() == 2
    assert capsys.readouterr().out.count("Tracing with") == 2


def test_guide_python_arguments_retrace_tensors_do_not(capsys):
    def train_one_step():
        pass

    @tf.function
    def train(num_steps):
        print("Tracing with num_steps = ", num_steps)
        tf.print("Executing with num_steps = ", num_steps, output_stream="stdout")
        for _ in tf.range(num_steps):
            train_one_step()

    train(num_steps=10)
    train(num_steps=20)
    out = capsys.readouterr().out
    assert out.splitlines() == ["Tracing with num_steps =  10", "Executing with num_steps =  10",
                                "Tracing with num_steps =  20", "Executing with num_steps =  20"]
    _quiet(train, num_steps=tf.constant(10))
    _quiet(train, num_steps=tf.constant(20))
    assert train.experimental_get_tracing_count() == 3
    assert "Executing with num_steps =  20" in capsys.readouterr().out


def test_guide_new_function_objects_do_not_share_traces(capsys):
    def f():
        print("Tracing!")
        tf.print("Executing", output_stream="stdout")

    tf.function(f)()
    tf.function(f)()
    assert capsys.readouterr().out.splitlines() == ["Tracing!", "Executing"] * 2


def test_guide_concrete_function_keeps_python_arguments():
    @tf.function
    def pow(a, b):
        return a ** b

    square = pow.get_concrete_function(a=tf.TensorSpec(None, tf.float32), b=2)
    assert float(square(tf.constant(10.0))) == 100.0
    with pytest.raises(TypeError, match="'b'"):
        square(tf.constant(10.0), b=3)


# -- replay --------------------------------------------------------------------------
def test_python_side_effects_run_while_tracing_only_tf_print_every_call(capsys):
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        tf.print("x is", x, output_stream="stdout")
        return x * 2.0 + 1.0

    assert [float(f(tf.constant(v))) for v in (1.0, 2.0, 3.0)] == [3.0, 5.0, 7.0]
    assert calls == [1]
    assert capsys.readouterr().out.splitlines() == ["x is 1", "x is 2", "x is 3"]


def test_replay_runs_no_python_function_and_no_op_dispatch():
    @tf.function
    def f(x, y):
        return tf.reduce_sum(tf.nn.relu(tf.matmul(x, y)) + 1.0, axis=1)

    x, y = tf.ones([2, 3]), tf.ones([3, 4])
    f(x, y)
    seen = []
    original = Op.__call__

    def counting(self, *inputs, **attrs):
        seen.append(self.name)
        return original(self, *inputs, **attrs)

    Op.__call__ = counting
    try:
        out = f(x * 2.0, y)
    finally:
        Op.__call__ = original
    assert seen == ["multiply"]  # the x * 2.0 above; the replay dispatches nothing
    np.testing.assert_array_equal(out.numpy(), [28.0, 28.0])


def test_variables_are_read_and_assigned_by_reference():
    v = tf.Variable(1.0)

    @tf.function
    def f(x):
        v.assign_add(x)
        return v * 2.0

    assert float(f(tf.constant(1.0))) == 4.0
    assert float(f(tf.constant(1.0))) == 6.0
    v.assign(10.0)
    assert float(f(tf.constant(0.5))) == 21.0
    assert float(v) == 10.5
    assert f.experimental_get_tracing_count() == 1


def test_returned_variable_is_a_copy_of_its_value():
    v = tf.Variable([1.0, 2.0])

    @tf.function
    def f():
        return v

    first = f()
    second = f()
    v.assign([5.0, 6.0])
    assert type(second) is Tensor
    np.testing.assert_array_equal(second.numpy(), [1.0, 2.0])
    np.testing.assert_array_equal(f().numpy(), [5.0, 6.0])
    np.testing.assert_array_equal(first.numpy(), [1.0, 2.0])


def test_return_values_become_tensors_and_structure_is_kept():
    @tf.function
    def f(x):
        return {"y": x + 1.0, "n": 3, "none": None, "pair": (x, 2.5)}

    for value in (1.0, 2.0):
        out = f(tf.constant(value))
        assert float(out["y"]) == value + 1 and float(out["pair"][0]) == value
        assert isinstance(out["n"], Tensor) and int(out["n"]) == 3
        assert out["none"] is None and float(out["pair"][1]) == 2.5


def test_same_tensor_twice_is_not_confused_with_two_tensors():
    @tf.function
    def f(x, y):
        return x * 2.0 + y

    a = tf.constant([1.0, 2.0])
    np.testing.assert_array_equal(f(a, a).numpy(), [3.0, 6.0])
    np.testing.assert_array_equal(f(tf.constant([3.0, 4.0]), a).numpy(), [7.0, 10.0])
    assert f.experimental_get_tracing_count() == 1  # one trace, as TF's

    @tf.function
    def g(x):
        return x * 2.0 + a  # a closure over the tensor first passed as x

    np.testing.assert_array_equal(g(a).numpy(), [3.0, 6.0])
    np.testing.assert_array_equal(g(tf.constant([3.0, 4.0])).numpy(), [7.0, 10.0])


def test_methods_and_keras_layers():
    class Scaler(tf.Module):
        def __init__(self, k):
            super().__init__()
            self.k = tf.Variable(k)

        @tf.function
        def __call__(self, x):
            return x * self.k

    a, b = Scaler(2.0), Scaler(3.0)
    assert float(a(tf.constant(1.0))) == 2.0 and float(b(tf.constant(1.0))) == 3.0
    assert float(a(tf.constant(4.0))) == 8.0
    assert a.__call__.experimental_get_tracing_count() == 1

    import gc
    import weakref

    gone = weakref.ref(b)
    del b
    gc.collect()
    assert gone() is None  # the Function cached for the instance does not keep it alive

    layer = tf.keras.layers.Dense(2, kernel_initializer="ones", bias_initializer="zeros")
    traced = tf.function(layer)
    np.testing.assert_array_equal(traced(tf.ones([1, 3])).numpy(), [[3.0, 3.0]])
    layer.kernel.assign(np.full((3, 2), 2.0, np.float32))
    np.testing.assert_array_equal(traced(tf.ones([1, 3])).numpy(), [[6.0, 6.0]])
    assert traced.python_function is layer


def test_run_functions_eagerly_runs_python_every_call():
    calls = []

    @tf.function
    def f(x):
        calls.append(1)
        return x + 1.0

    f(tf.constant(1.0))
    tf.config.run_functions_eagerly(True)
    try:
        assert float(f(tf.constant(2.0))) == 3.0
        assert float(f(tf.constant(2.0))) == 3.0
    finally:
        tf.config.run_functions_eagerly(False)
    assert len(calls) == 3
    f(tf.constant(5.0))
    assert len(calls) == 3


def test_retrace_warning_names_the_argument_and_shapes():
    @tf.function
    def f(x):
        return x + 1.0

    for n in range(1, 5):
        f(tf.zeros([n, 10]))
    with pytest.warns(UserWarning, match=r"argument 'x': shape \(4, 10\) -> \(5, 10\)"):
        f(tf.zeros([5, 10]))
    assert f.experimental_get_tracing_count() == 5


def test_retrace_warning_names_the_leaf_that_changed_in_a_nested_argument():
    # fit's train_step takes data = (x, y): the warning names data[1] and how it changed.
    @tf.function
    def train_step(data):
        x, y = data
        return tf.reduce_sum(x) + tf.cast(tf.reduce_sum(y), tf.float32)

    for n in (128, 64, 48, 40):
        train_step((tf.zeros([n, 3]), tf.zeros([n], tf.int32)))
    with pytest.warns(UserWarning) as caught:
        train_step((tf.zeros([32, 3]), tf.zeros([32], tf.int32)))
    message = str(caught[0].message)
    assert "The last retrace: argument 'data'[0]: shape (40, 3) -> (32, 3)." in message

    @tf.function
    def g(data):
        return data["y"]

    for i in range(4):
        g({"x": tf.zeros([2]), "y": tf.zeros([i + 1], tf.int32)})
    with pytest.warns(UserWarning, match=r"argument 'data'\['y'\]: dtype int32 -> int64"):
        g({"x": tf.zeros([2]), "y": tf.zeros([4], tf.int64)})
    assert sig.describe_change(sig.call_key(["d"], [(1, [tf.zeros([2])])]),
                               sig.call_key(["d"], [(1, [tf.zeros([2]), 2])])) == \
        "argument 'd'[1]: list of 1 -> list of 2"
    assert sig.describe_change(sig.call_key(["d"], [(1, 2)]), sig.call_key(["d"], [(1, 3)])) \
        == "argument 'd'[1]: 2 -> 3"


def test_variable_created_at_every_call_raises_tf_error_at_the_first_call():
    # TF traces a function that created Variables a second time, refusing new ones.
    @tf.function
    def f(x):
        v = tf.Variable(1.0)
        return v + x

    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        f(tf.constant(1.0))


def test_variable_created_once_is_kept_and_a_retrace_may_not_create_one():
    class Count(tf.Module):
        def __init__(self):
            self.count = None

        @tf.function
        def __call__(self, x):
            if self.count is None:
                self.count = tf.Variable(0.0)
            return self.count.assign_add(x)

    c = Count()
    assert float(c(tf.constant(1.0))) == 1.0
    assert float(c(tf.constant(2.0))) == 3.0  # replayed: the first call's Variable
    c.count = None
    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        c(tf.constant([1.0, 2.0]))


def test_a_second_optimizer_on_a_retrace_raises_tf_error():
    # Its slots are created inside its apply (an effect): on a retrace, refused as in TF.
    @tf.function
    def step(w, optimizer):
        with tf.GradientTape() as tape:
            loss = tf.square(w)
        optimizer.apply_gradients(zip(tape.gradient(loss, [w]), [w]))

    w = tf.Variable(2.0)
    step(w, tf.keras.optimizers.Adam(learning_rate=0.1))
    with pytest.raises(ValueError, match="singleton tf.Variables created on the first call"):
        step(w, tf.keras.optimizers.Adam(learning_rate=0.1))
    np.testing.assert_allclose(w.numpy(), 1.9, rtol=1e-6)


def test_first_call_retraced_dry_stops_at_its_first_effect():
    calls = []

    @tf.function
    def f(x, v=[]):  # noqa: B006 -- the Variable is made once, then reused
        calls.append(1)
        if not v:
            v.append(tf.Variable(0.0))
        v[0].assign_add(x)
        tf.print("after")
        return v[0] * 2.0

    assert float(f(tf.constant(1.0))) == 2.0
    assert len(calls) == 2  # traced, then traced again dry (as TF), stopped at assign_add
    assert float(f(tf.constant(1.0))) == 4.0  # the assign ran once per call
    assert len(calls) == 2


# -- what cannot be traced: eager with one warning, right values -----------------
def _if_numpy(x):
    return x + 1.0 if x.numpy() > 0 else x - 1.0


def _if_tensor(x):
    return x + 1.0 if x > 0 else x - 1.0


def _float_of(x):
    return x * float(x)


def _numpy_on(x):
    return tf.constant(np.sin(x)) + 1.0


def _argmax(x):
    return tf.math.argmax(tf.reshape(x, [-1])) + 1


def _cast_int(x):
    return tf.cast(x * 3.0, tf.int32)


def _numpy_random(x):
    return x + tf.constant(np.random.default_rng().normal(), tf.float32)


@pytest.mark.parametrize("fn", [_if_numpy, _if_tensor, _float_of, _numpy_on],
                         ids=lambda f: f.__name__)
def test_untraceable_runs_eagerly_with_one_warning(fn):
    traced = tf.function(fn, autograph=False)  # (AutoGraph would convert _if_tensor's if)
    with pytest.warns(UserWarning, match=rf"{fn.__name__} runs eagerly .*test_tracing.py"):
        first = traced(tf.constant(0.7))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for value in (-1.3, 2.1):
            np.testing.assert_array_equal(traced(tf.constant(value)).numpy(),
                                          fn(tf.constant(value)).numpy())
    np.testing.assert_array_equal(first.numpy(), fn(tf.constant(0.7)).numpy())


@pytest.mark.parametrize("fn", [_argmax, _cast_int], ids=lambda f: f.__name__)
def test_functions_computing_outside_ops_replay_whole(fn):
    """tf.math.argmax and tf.cast to integers compute on values outside the ops:
    they are recorded as calls replayed whole, not frozen."""
    traced = tf.function(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for value in (0.7, -1.3, 2.1):
            np.testing.assert_array_equal(traced(tf.constant([value, 0.5])).numpy(),
                                          fn(tf.constant([value, 0.5])).numpy())
    assert traced.experimental_get_tracing_count() == 1


def test_shape_of_a_range_of_a_traced_limit_is_untraceable():
    @tf.function(autograph=False)
    def f(n):
        total = tf.constant(0)
        for i in tf.range(n):  # AutoGraph makes this a loop; without, it runs eagerly
            total += i
        return total

    with pytest.warns(UserWarning, match="shape depends on values"):
        assert int(f(tf.constant(4))) == 6
    assert int(f(tf.constant(5))) == 10


def test_shapes_derived_from_a_range_of_a_traced_limit_are_not_frozen():
    """tf.range(n) * 1.0 (and its cast) has n's length at every call: reading
    its shape in Python (tf.shape, .shape) must not bake the trace's n in."""
    @tf.function(autograph=False)
    def f(n):
        r = tf.cast(tf.range(n), tf.float32) * 1.0
        return tf.reduce_mean(r), tf.shape(r), tf.zeros([r.shape[0]])

    with pytest.warns(UserWarning, match="shape depends on values"):
        mean, shape, zeros = f(tf.constant(4))
    assert (float(mean), shape.numpy().tolist(), zeros.shape) == (1.5, [4], (4,))
    mean, shape, zeros = f(tf.constant(7))
    assert (float(mean), shape.numpy().tolist(), zeros.shape) == (3.0, [7], (7,))


def test_a_reduction_of_a_range_keeps_a_traced_signature():
    @tf.function(autograph=False)
    def g(n):
        return tf.reduce_sum(tf.cast(tf.range(n), tf.float32) * 2.0)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert [float(g(tf.constant(k))) for k in (3, 5)] == [6.0, 20.0]
    assert g.experimental_get_tracing_count() == 1


def test_numpy_random_is_drawn_once_while_tracing_as_in_tf():
    traced = tf.function(_numpy_random)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert float(traced(tf.constant(0.0))) == float(traced(tf.constant(0.0)))


def test_tf_random_draws_are_fresh_at_every_call():
    @tf.function
    def f(x):
        return x + tf.random.normal([3])

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a, b = f(tf.zeros([3])), f(tf.zeros([3]))
    assert not np.array_equal(a.numpy(), b.numpy())


def test_swaps_are_undone_after_tracing():
    plain_call, plain_init = Op.__call__, Variable.__init__

    @tf.function
    def f(x):
        return x * 2.0

    f(tf.constant(1.0))
    assert Op.__call__ is plain_call and Variable.__init__ is plain_init
    assert type(Tensor.__dict__["_value"]).__name__ == "member_descriptor"
    assert tracing.current_trace() is None

    @tf.function
    def broken(x):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        broken(tf.constant(1.0))
    assert Op.__call__ is plain_call and tracing.current_trace() is None


def test_nested_arguments_keywords_and_python_objects_by_identity():
    @tf.function
    def f(inputs, scale=1.0, *, shift):
        return inputs["a"] * scale + inputs["b"][0] + shift

    def call(a, scale, shift):
        return float(f({"a": tf.constant(a), "b": [tf.constant(1.0)]}, scale, shift=shift))

    assert [call(2.0, 3.0, 1.0), call(5.0, 3.0, 1.0)] == [8.0, 17.0]
    assert f.experimental_get_tracing_count() == 1
    assert call(2.0, 4.0, 1.0) == 10.0  # a new Python value: a new trace
    assert f.experimental_get_tracing_count() == 2

    @tf.function
    def get_mixed_flavor(fruit_a, fruit_b):  # TF's guide: objects are traced by identity
        return fruit_a.flavor + fruit_b.flavor

    class Apple:
        flavor = tf.constant([1, 2])

    class Mango:
        flavor = tf.constant([3, 4])

    apple, mango = Apple(), Mango()
    np.testing.assert_array_equal(get_mixed_flavor(apple, mango).numpy(), [4, 6])
    get_mixed_flavor(apple, mango)
    assert get_mixed_flavor.experimental_get_tracing_count() == 1
    get_mixed_flavor(Apple(), Mango())  # new objects: "Traces a new concrete function"
    assert get_mixed_flavor.experimental_get_tracing_count() == 2


def test_tracing_in_one_thread_leaves_other_threads_eager():
    import threading

    started, release = threading.Event(), threading.Event()

    @tf.function
    def slow(x):
        started.set()
        release.wait(5)
        return x * 2.0

    result = {}
    worker = threading.Thread(target=lambda: result.setdefault("y", slow(tf.constant(1.0))))
    worker.start()
    assert started.wait(5)
    try:  # the worker is tracing now: this thread's ops run eagerly, unrecorded
        v = tf.Variable(3.0)
        assert float(v * 2.0 + 1.0) == 7.0
        assert float(tf.reduce_sum(tf.constant([1.0, 2.0]))) == 3.0
    finally:
        release.set()
        worker.join(5)
    assert float(result["y"]) == 2.0
    graph = next(iter(slow._concrete[0]._graphs.values()))
    assert graph.op_count() == 1  # only the worker's multiply
    assert float(slow(tf.constant(4.0))) == 8.0
