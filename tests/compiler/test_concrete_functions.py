"""What a traced signature shows of itself, as TF's ConcreteFunction: its
FunctionType and pretty-printed signatures, its graph's nodes, its flat
signature (the tensors only) and inference_fn; and the effects TF runs at every
call that tapeflow records whole (tf.py_function)."""

import warnings

import numpy as np
import pytest

import tapeflow as tf


def _spec(dtype, shape="()"):
    return f"TensorSpec(shape={shape}, dtype=tf.{dtype}, name=None)"


def test_pretty_printed_concrete_signatures_lists_each_trace_oldest_first():
    @tf.function
    def f(x, n):
        return x * n

    f(tf.constant(1.0), 2)
    f(tf.constant([1, 2]), [1, -1])
    assert f.pretty_printed_concrete_signatures() == (
        "Input Parameters:\n"
        f"  x (POSITIONAL_OR_KEYWORD): {_spec('float32')}\n"
        "  n (POSITIONAL_OR_KEYWORD): Literal[2]\n"
        f"Output Type:\n  {_spec('float32')}\nCaptures:\n  None\n\n"
        "Input Parameters:\n"
        f"  x (POSITIONAL_OR_KEYWORD): {_spec('int32', '(2,)')}\n"
        "  n (POSITIONAL_OR_KEYWORD): List[Literal[1], Literal[-1]]\n"
        f"Output Type:\n  {_spec('int32', '(2,)')}\nCaptures:\n  None")


def test_function_type_str_and_concrete_function_str():
    @tf.function
    def f(a, *, scale):
        return a * scale

    concrete = f.get_concrete_function(tf.constant([1.0, 2.0]), scale=3.0)
    assert str(concrete.function_type) == (
        f"(a: {_spec('float32', '(2,)')}, scale: Literal[3.0]) -> {_spec('float32', '(2,)')}")
    assert str(concrete).startswith("ConcreteFunction Input Parameters:\n")
    assert "  scale (KEYWORD_ONLY): Literal[3.0]\n" in str(concrete)
    assert concrete.pretty_printed_signature(verbose=False) == str(concrete.function_type)


def test_captured_variables_are_listed_as_captures():
    v = tf.Variable(2.0)

    @tf.function
    def f(x):
        return x * v

    concrete = f.get_concrete_function(tf.constant(1.0))
    assert repr(concrete.function_type).endswith(
        f"Captures:\n  {id(v)}: TensorSpec(shape=(), dtype=tf.resource, name=None)")


def test_a_spec_signature_shows_its_output_once_called():
    @tf.function
    def f(x):
        return tf.cast(x, tf.int32)

    concrete = f.get_concrete_function(tf.TensorSpec([None], tf.float32))
    assert str(concrete.function_type).endswith("-> Unknown (traced at its first call)")
    with pytest.raises(ValueError, match="has no graph: it is traced at its first call"):
        concrete.graph  # noqa: B018
    concrete(tf.constant([1.5]))
    # The output's shape is the first call's (TF infers (None,)): signature.function_type.
    assert str(concrete.function_type).endswith(f"-> {_spec('int32', '(1,)')}")


def test_graph_def_names_nodes_as_tf():
    @tf.function
    def f(x, pair):
        y = x + pair[0]
        return y + pair[1], tf.constant(3.0) * y

    concrete = f.get_concrete_function(tf.constant(1.0), [tf.constant(2.0), tf.constant(4.0)])
    nodes = [(n.name, n.op, n.input) for n in concrete.graph.as_graph_def().node]
    assert nodes == [
        ("x", "Placeholder", []), ("pair", "Placeholder", []), ("pair_1", "Placeholder", []),
        ("Const", "Const", []),
        ("add", "add", ["x", "pair"]), ("add_1", "add", ["add", "pair_1"]),
        ("multiply", "multiply", ["Const", "add"]),
        ("Identity", "Identity", ["add_1"]), ("Identity_1", "Identity", ["multiply"])]
    assert 'node {\n  name: "add"\n  op: "add"\n  input: "x"\n  input: "pair"\n}\n' in str(
        concrete.graph.as_graph_def())


def test_flat_signature_takes_the_tensors_only():
    class Model:
        weight, bias = 2.0, 5.0

    def evaluate(model, x):
        return model.weight * x + model.bias

    model = Model()
    concrete = tf.function(evaluate).get_concrete_function(model, tf.constant(10.0))
    assert float(concrete(tf.constant(1.0))) == 7.0  # the model is the traced one
    assert float(concrete.inference_fn(tf.constant(2.0))) == 9.0
    with pytest.raises(TypeError, match="too many positional arguments"):
        concrete(tf.constant(1.0), tf.constant(2.0), tf.constant(3.0))
    with pytest.raises(TypeError, match="inference_fn takes the 1 tensor arguments only"):
        concrete.inference_fn()


def test_py_function_runs_at_every_call():
    calls = []

    def plus(x, y):
        calls.append(float(x))
        return x + y

    @tf.function
    def f(x):
        return tf.py_function(plus, [x, tf.constant(1.0)], Tout=tf.float32) * 2.0

    assert [float(f(tf.constant(v))) for v in (1.0, 2.0, 3.0)] == [4.0, 6.0, 8.0]
    assert calls == [1.0, 2.0, 3.0]
    assert f.experimental_get_tracing_count() == 1


def test_nested_untraceable_reason_names_the_site_once():
    @tf.function
    def f(x):
        return tf.cond(x > 0, lambda: x + float(x), lambda: x)

    with pytest.warns(UserWarning) as record:
        np.testing.assert_allclose(f(tf.constant(2.0)).numpy(), 4.0)
    message = str(record[0].message)
    assert message.count("test_concrete_functions.py:") == 1, message


def test_integer_reduce_mean_is_traced_and_replays_tf_truncated_mean():
    @tf.function
    def f(x):
        return tf.reduce_mean(x * x), tf.reduce_mean(tf.cast(x, tf.float32))

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no eager fallback
        assert [v.numpy() for v in f(tf.constant([1, 2, -4]))] == [7, -1 / 3]
        ints, floats = f(tf.constant([3, 3, 4]))
    assert ints.numpy() == 11 and ints.dtype == tf.int32
    np.testing.assert_allclose(floats.numpy(), 10 / 3, rtol=1e-6)
    assert f.experimental_get_tracing_count() == 1
