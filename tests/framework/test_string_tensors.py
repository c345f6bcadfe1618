"""String tensors as first-class values: storage (object arrays of bytes, as
TF's numpy()), conversion errors, the dtype-generic ops that take strings and
TF's errors from those that do not. Expected values are TF 2.21's."""

import io
import pickle

import numpy as np
import pytest
import tapeflow as tf
from tapeflow.core.errors import InvalidArgumentError, UnimplementedError
from tapeflow.core.tensor import Tensor
from tapeflow.ops import math as _m
from tapeflow.ops.registry import STRING_OPS, all_ops


def test_text_becomes_a_string_tensor_of_bytes():
    t = tf.constant("text")
    assert t.dtype == tf.string and t.shape == () and t.numpy() == b"text"
    assert type(t.numpy()) is bytes
    assert repr(t) == "<tf.Tensor: shape=(), dtype=string, numpy=b'text'>"
    assert str(t) == "tf.Tensor(b'text', shape=(), dtype=string)"
    v = tf.constant(["a", "bb"])
    assert repr(v) == ("<tf.Tensor: shape=(2,), dtype=string, numpy=array([b'a', b'bb'], "
                       "dtype=object)>")
    assert str(v) == "tf.Tensor([b'a' b'bb'], shape=(2,), dtype=string)"
    assert tf.constant(list("abc")).numpy().tolist() == [b"a", b"b", b"c"]
    assert tf.constant("é").numpy() == b"\xc3\xa9"  # UTF-8, as TF
    assert str(tf.constant([["a", "b"], ["c", "d"]])) == (
        "tf.Tensor(\n[[b'a' b'b']\n [b'c' b'd']], shape=(2, 2), dtype=string)")


@pytest.mark.parametrize("array", [np.array(["a", "b"]), np.array([b"a", b"b"]),
                                   np.array(["a", b"b"], dtype=object)])
def test_numpy_text_arrays_convert(array):
    t = tf.convert_to_tensor(array)
    assert t.dtype == tf.string
    assert t.numpy().dtype == object and t.numpy().tolist() == [b"a", b"b"]


def test_bytes_keep_their_nul_bytes_and_scalars_of_numpy_types_convert():
    assert tf.constant(b"a\x00").numpy() == b"a\x00"
    assert tf.constant("a\x00b").numpy() == b"a\x00b"
    assert tf.constant(np.str_("ab")).numpy() == b"ab"
    assert tf.constant(np.bytes_(b"ab")).numpy() == b"ab"
    assert tf.constant(["a", b"b"]).numpy().tolist() == [b"a", b"b"]


def test_empty_and_shaped_string_constants():
    empty = tf.constant([], dtype=tf.string)
    assert empty.shape == (0,) and empty.dtype == tf.string
    assert tf.constant("a", shape=[2]).numpy().tolist() == [b"a", b"a"]
    assert tf.constant([""]).numpy().tolist() == [b""]
    assert tf.convert_to_tensor([tf.constant("a"), "b"]).numpy().tolist() == [b"a", b"b"]


def test_bad_text_conversions_raise_tf_errors():
    with pytest.raises(ValueError, match="mixed types"):
        tf.constant(["a", 1])
    with pytest.raises(ValueError, match="Unsupported object type int"):
        tf.convert_to_tensor(np.array([1, 2], dtype=object))
    with pytest.raises(ValueError, match="non-rectangular"):
        tf.constant([["a", "b"], ["c"]])
    with pytest.raises(TypeError, match="Cannot convert 1 to a tensor of dtype string"):
        tf.constant(1, dtype=tf.string)
    with pytest.raises(TypeError, match="Cannot convert '1.0' to a tensor of dtype float32.*"
                                        "to_number"):
        tf.constant("1.0", dtype=tf.float32)
    with pytest.raises(TypeError, match="Expected tensor b'1' with dtype tf.float32, but got "
                                        "dtype tf.string"):
        tf.constant(tf.constant("1"), dtype=tf.float32)


def test_dtype_hint_is_only_a_preference_for_text():
    assert tf.convert_to_tensor("a", dtype_hint=tf.float32).dtype == tf.string
    assert tf.convert_to_tensor([1], dtype_hint=tf.string).dtype == tf.int32


def test_the_string_dtype():
    assert tf.string.as_numpy_dtype is object
    for name in (np.str_, np.bytes_, object, np.dtype("U5"), np.dtype("S3"), "string"):
        assert tf.as_dtype(name) is tf.string
    for python_type in (str, bytes):  # TF refuses the Python types
        with pytest.raises(TypeError, match="tf.string"):
            tf.as_dtype(python_type)
    assert tf.string.size == 0 and not tf.string.is_floating and not tf.string.is_integer
    with pytest.raises(TypeError, match="minimum value of tf.string"):
        tf.string.min
    assert tf.as_dtype(7) is tf.string  # TF's DT_STRING enum


def test_equality_is_elementwise_and_strings_never_equal_numbers():
    t = tf.constant(["a", "b"])
    assert (t == "a").numpy().tolist() == [True, False]
    assert tf.equal(t, tf.constant(["a", "c"])).numpy().tolist() == [True, False]
    assert tf.not_equal(t, "a").numpy().tolist() == [False, True]
    assert bool(tf.constant("a") == tf.constant("a"))
    assert (t == tf.constant(["a", "b", "c"])) is False  # incompatible shapes: unequal
    assert (t == None) is False  # noqa: E711
    with pytest.raises(TypeError, match="Cannot convert 1 to a tensor of dtype string"):
        t == 1
    with pytest.raises(TypeError, match="Cannot convert 1 to a tensor of dtype string"):
        t != 1
    with pytest.raises(TypeError, match="Cannot convert 'a' to a tensor of dtype int32"):
        tf.constant([1, 2]) == "a"
    with pytest.raises(TypeError, match="dtype string"):
        tf.equal(t, 1)


def test_add_concatenates_strings_as_tf():
    out = tf.constant("a") + tf.constant(["b", "c"])
    assert out.dtype == tf.string and out.numpy().tolist() == [b"ab", b"ac"]
    assert ("x" + tf.constant(["b", "c"])).numpy().tolist() == [b"xb", b"xc"]
    scalar = tf.add("a", "b")
    assert scalar.shape == () and scalar.numpy() == b"ab"
    grid = tf.constant([["a"], ["b"]]) + tf.constant(["1", "2"])
    assert grid.numpy().tolist() == [[b"a1", b"a2"], [b"b1", b"b2"]]
    with pytest.raises(InvalidArgumentError, match="int32 tensor but is a string tensor"):
        tf.constant(1) + "a"


@pytest.mark.parametrize("fn", [
    lambda s: s * s, lambda s: s - s, lambda s: s / s, lambda s: -s, lambda s: abs(s),
    lambda s: tf.square(s), lambda s: tf.maximum(s, s), lambda s: tf.minimum(s, s),
    lambda s: tf.reduce_sum(s), lambda s: tf.reduce_max(s), lambda s: tf.reduce_min(s),
    lambda s: tf.reduce_mean(s), lambda s: tf.math.cumsum(s), lambda s: s < s,
    lambda s: tf.greater_equal(s, s), lambda s: tf.logical_and(s, s), lambda s: tf.exp(s),
    lambda s: s @ s,
], ids=["mul", "sub", "div", "neg", "abs", "square", "maximum", "minimum", "reduce_sum",
        "reduce_max", "reduce_min", "reduce_mean", "cumsum", "less", "greater_equal",
        "logical_and", "exp", "matmul"])
def test_arithmetic_on_strings_raises_invalid_argument(fn):
    with pytest.raises(InvalidArgumentError, match="string"):
        fn(tf.constant([["b", "a"], ["c", "d"]]))


def test_numbers_times_a_string_scalar_is_a_type_error():
    with pytest.raises(TypeError, match="Cannot convert 2 to a tensor of dtype string"):
        tf.constant("a") * 2


def test_no_registered_op_outside_string_ops_computes_on_strings():
    """An op the registry does not list as string-capable must refuse strings, never
    compute something from them (NumPy would order or concatenate bytes)."""
    for namespace in ("nn", "image", "signal", "sparse", "ragged", "linalg"):
        getattr(tf, namespace)  # load every module that registers ops
    s = Tensor(np.array([b"b", b"a"], dtype=object))
    attrsets = [{}, {"axis": 0}, {"axis": None}, {"dtype": np.dtype(np.float32)},
                {"shape": (2,)}, {"perm": (0,)}, {"indices": np.array([0]), "axis": 0}]
    computed = []
    for name, op in sorted(all_ops().items()):
        if name in STRING_OPS:
            continue
        for n in (1, 2, 3):
            for attrs in attrsets:
                try:
                    op(*([s] * n), **attrs)
                except Exception:  # noqa: BLE001 -- any refusal will do; success will not
                    continue
                computed.append((name, n, attrs))
    assert not computed


def test_casts_between_strings_and_numbers_are_unimplemented_as_tf():
    with pytest.raises(UnimplementedError, match="Cast string to float is not supported.*"
                                                 "to_number"):
        _m.cast(tf.constant("1"), dtype=np.dtype(np.float32))
    with pytest.raises(UnimplementedError, match="Cast float to string.*as_string"):
        _m.cast(tf.constant(1.0), dtype=np.dtype(object))
    assert _m.cast(tf.constant("1"), dtype=np.dtype(object)).numpy() == b"1"
    assert tf.cast(tf.constant("1"), tf.string).numpy() == b"1"


def test_shape_ops_move_strings():
    s = tf.constant(["a", "b", "c", "d"])
    assert tf.gather(s, [2, 0]).numpy().tolist() == [b"c", b"a"]
    assert tf.gather(s, 1).numpy() == b"b" and tf.gather(s, 1).shape == ()
    assert tf.reshape(s, [2, 2]).numpy().tolist() == [[b"a", b"b"], [b"c", b"d"]]
    assert tf.concat([s[:1], s[3:]], 0).numpy().tolist() == [b"a", b"d"]
    assert tf.stack([tf.constant("a"), "b"]).numpy().tolist() == [b"a", b"b"]
    assert s[1:3].numpy().tolist() == [b"b", b"c"]
    assert s[1].numpy() == b"b" and s[1].dtype == tf.string
    assert s[::-1].numpy().tolist() == [b"d", b"c", b"b", b"a"]
    assert s[None].shape == (1, 4)
    assert tf.shape(s).numpy().tolist() == [4] and int(tf.size(s)) == 4
    assert int(tf.rank(s)) == 1
    assert tf.transpose(tf.constant([["a", "b"]])).numpy().tolist() == [[b"a"], [b"b"]]
    assert tf.tile(s[:2], [2]).numpy().tolist() == [b"a", b"b", b"a", b"b"]
    assert tf.expand_dims(tf.constant("a"), 0).numpy().tolist() == [b"a"]
    assert tf.squeeze(tf.constant([["a"]])).numpy() == b"a"
    assert tf.reverse(s[:2], [0]).numpy().tolist() == [b"b", b"a"]
    assert tf.broadcast_to(tf.constant("a"), [2]).numpy().tolist() == [b"a", b"a"]
    assert tf.boolean_mask(s[:2], [True, False]).numpy().tolist() == [b"a"]
    assert [t.numpy() for t in tf.unstack(s[:2])] == [b"a", b"b"]
    assert [t.numpy().tolist() for t in tf.split(s, 2)] == [[b"a", b"b"], [b"c", b"d"]]
    assert tf.gather_nd(s, [[1]]).numpy().tolist() == [b"b"]
    assert tf.identity(tf.constant("a")).numpy() == b"a"
    assert [t.numpy() for t in s[:2]] == [b"a", b"b"]  # iteration over the first axis


def test_unique_where_and_fill_take_strings():
    y, idx = tf.unique(tf.constant(["a", "b", "a"]))
    assert y.numpy().tolist() == [b"a", b"b"] and idx.numpy().tolist() == [0, 1, 0]
    picked = tf.where([True, False], tf.constant(["a", "b"]), tf.constant(["c", "d"]))
    assert picked.numpy().tolist() == [b"a", b"d"]
    assert tf.fill([2], "x").numpy().tolist() == [b"x", b"x"]


def test_strings_never_take_part_in_gradients():
    s = tf.constant(["a", "b"])
    x = tf.constant(2.0)
    with tf.GradientTape(persistent=True) as tape:
        tape.watch(x)
        tape.watch(s)  # TF warns and watches; a string source still gets no gradient
        y = tf.where(tf.equal(s, "a"), x * 2.0, x * 3.0)
        total = tf.reduce_sum(y)
        tf.gather(s, [1])
    assert float(tape.gradient(total, x)) == 5.0
    assert tape.gradient(y, s) is None


def test_string_variables_hold_and_assign_text():
    v = tf.Variable(["a", "b"])
    assert v.dtype == tf.string and v.trainable  # TF: trainable, but never differentiated
    assert repr(tf.Variable("abc")) == ("<tf.Variable 'Variable:0' shape=() dtype=string, "
                                        "numpy=b'abc'>")
    assert tf.Variable("abc").numpy() == b"abc"
    v.assign(["c", "é"])
    assert v.numpy().tolist() == [b"c", "é".encode()]
    with pytest.raises(ValueError, match=r"shape \(1,\).*shape \(2,\)"):
        v.assign(["c"])
    with pytest.raises(InvalidArgumentError, match="AssignAddVariableOp.*DT_STRING"):
        v.assign_add(["c", "d"])
    with pytest.raises(TypeError, match="dtype string"):
        v.assign([1, 2])
    with pytest.raises(TypeError, match="dtype float32"):
        tf.Variable([1.0, 2.0]).assign(["1", "2"])


def test_string_tensors_print_and_pickle():
    stream = io.StringIO()
    tf.print(tf.constant(["a", "b"]), tf.constant("x"), output_stream=stream)
    tf.print(tf.constant([["a", "b"]]), output_stream=stream)
    assert stream.getvalue() == '["a" "b"] "x"\n[["a" "b"]]\n'
    back = pickle.loads(pickle.dumps(tf.constant(["a", "é"])))
    assert back.dtype == tf.string and back.numpy().tolist() == [b"a", "é".encode()]


def test_dtype_str_and_repr_are_tfs():
    assert str(tf.string) == "<dtype: 'string'>" and repr(tf.string) == "tf.string"
    assert str(tf.float32) == "<dtype: 'float32'>" and f"{tf.int64}" == "<dtype: 'int64'>"


def test_string_ops_keep_their_own_errors():
    from tapeflow.ops import shape as _s
    a, b = tf.constant([["a"]]), tf.constant([["b", "c"]])
    with pytest.raises(ValueError) as raised:
        _s.concat(a, b, axis=0)  # unchecked primitive: NumPy's shape error, not "no kernel"
    assert "no kernel for strings" not in str(raised.value)


def test_zeros_and_pad_of_strings_hold_empty_strings_as_tf():
    s = tf.constant(["a", "bb"])
    assert tf.zeros([2], tf.string).numpy().tolist() == [b"", b""]
    assert tf.zeros_like(s).numpy().tolist() == [b"", b""]
    assert tf.pad(s, [[1, 1]]).numpy().tolist() == [b"", b"a", b"bb", b""]
    assert tf.pad(s, [[0, 1]], constant_values="-").numpy().tolist() == [b"a", b"bb", b"-"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="OnesLike"):
        tf.ones_like(s)


def test_casts_between_strings_and_numbers_are_unimplemented_as_tf():
    with pytest.raises(tf.errors.UnimplementedError, match="Cast string to float"):
        tf.cast(tf.constant(["1"]), tf.float32)
    with pytest.raises(tf.errors.UnimplementedError, match="Cast int32 to string"):
        tf.cast(tf.constant([1]), tf.string)


def test_gradient_of_a_string_or_integer_target_is_none():
    x = tf.Variable(1.0)
    with tf.GradientTape(persistent=True) as tape:
        text = tf.constant("a")
        count = tf.constant(3)
        doubled = x * 2.0
    assert tape.gradient(text, x) is None
    assert tape.gradient(count, x) is None
    assert tape.gradient([text, doubled], x).numpy() == 2.0


@pytest.mark.parametrize("op", [tf.argmax, tf.argmin, tf.sort, tf.argsort])
def test_ordering_ops_refuse_strings_as_tf(op):
    with pytest.raises(tf.errors.InvalidArgumentError, match="string"):
        op(tf.constant(["b", "a"]))
