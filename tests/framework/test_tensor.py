"""Tensor, Variable and conversion: TF's dtype rules, reprs and Python protocol."""

import io
import pickle

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.core.errors import InvalidArgumentError


def test_python_values_take_tf_default_dtypes():
    assert tf.constant(1.5).dtype == tf.float32
    assert tf.constant(2).dtype == tf.int32
    assert tf.constant(True).dtype == tf.bool
    assert tf.constant([[1.0, 2.0]]).dtype == tf.float32
    assert tf.constant(2**40).dtype == tf.int64
    assert tf.convert_to_tensor(np.zeros(2)).dtype == tf.float64  # NumPy keeps its dtype
    assert tf.constant(1, dtype=tf.float32).numpy() == np.float32(1.0)


def test_dtype_objects_compare_like_tf():
    assert tf.float32 == np.float32 and tf.float32 == "float32"
    assert tf.as_dtype("float64") is tf.float64
    assert repr(tf.int64) == "tf.int64"
    assert tf.float16.is_floating and tf.int32.is_integer and not tf.bool.is_floating
    with pytest.raises(TypeError, match="Cannot convert"):
        tf.as_dtype("float99")


def test_mixing_float32_and_float64_names_both_dtypes():
    a = tf.constant([1.0, 2.0])
    b = tf.constant([1.0, 2.0], dtype=tf.float64)
    with pytest.raises(InvalidArgumentError, match="float32 tensor but is a float64"):
        a + b
    with pytest.raises(InvalidArgumentError, match="float32.*float64"):
        tf.multiply(a, b)


def test_python_scalars_take_the_tensors_dtype():
    x = tf.constant([1.0, 2.0], dtype=tf.float64)
    assert (x * 2).dtype == tf.float64
    assert (2.5 - x).numpy().tolist() == [1.5, 0.5]
    n = tf.constant([1, 2])
    assert (n * 3).dtype == tf.int32
    with pytest.raises(TypeError, match="0.5"):
        n * 0.5


def test_convert_to_tensor_checks_requested_dtype():
    x = tf.constant(1.0)
    assert tf.convert_to_tensor(x) is x
    with pytest.raises(ValueError, match="requested dtype float64 for Tensor with dtype float32"):
        tf.convert_to_tensor(x, dtype=tf.float64)
    assert tf.convert_to_tensor([1, 2], dtype_hint=tf.float32).dtype == tf.float32


def test_constant_with_shape():
    assert tf.constant(0.5, shape=(2, 3)).numpy().tolist() == [[0.5] * 3] * 2
    assert tf.constant([1, 2, 3, 4], shape=[2, 2]).shape == (2, 2)
    with pytest.raises(TypeError, match="unsupported shape"):
        tf.constant([1, 2, 3], shape=(2, 2))


def test_reprs_match_tf():
    assert str(tf.constant(8.0)) == "tf.Tensor(8.0, shape=(), dtype=float32)"
    assert repr(tf.constant(8.0)) == "<tf.Tensor: shape=(), dtype=float32, numpy=8.0>"
    assert str(tf.constant([1.0, 2.0])) == "tf.Tensor([1. 2.], shape=(2,), dtype=float32)"
    assert str(tf.constant([[1, 2], [3, 4]])) == ("tf.Tensor(\n[[1 2]\n [3 4]], shape=(2, 2), "
                                                  "dtype=int32)")
    assert repr(tf.constant(3)) == "<tf.Tensor: shape=(), dtype=int32, numpy=3>"
    v = tf.Variable(1.0, name="x")
    assert repr(v) == "<tf.Variable 'x:0' shape=() dtype=float32, numpy=1.0>"
    assert repr(tf.Variable([1.0, 2.0])) == ("<tf.Variable 'Variable:0' shape=(2,) "
                                             "dtype=float32, numpy=array([1., 2.], "
                                             "dtype=float32)>")


def test_shape_dtype_ndim_and_numpy():
    t = tf.constant([[1.0, 2.0, 3.0]])
    assert t.shape == (1, 3) and t.shape.as_list() == [1, 3] and t.shape.rank == 2
    assert t.ndim == 2 and t.dtype == tf.float32
    assert isinstance(t.numpy(), np.ndarray) and np.asarray(t).shape == (1, 3)
    assert isinstance(tf.constant(2.0).numpy(), np.float32)


def test_python_protocol():
    t = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert len(t) == 2
    rows = list(t)
    assert [r.numpy().tolist() for r in rows] == [[1.0, 2.0], [3.0, 4.0]]
    assert float(tf.constant(2.5)) == 2.5 and int(tf.constant(7)) == 7
    assert bool(tf.constant(1.0)) and not bool(tf.constant(0.0))
    assert [10, 20, 30][tf.constant(1)] == 20
    with pytest.raises(ValueError, match="ambiguous"):
        bool(t)
    with pytest.raises(TypeError, match="Scalar tensor has no"):
        len(tf.constant(1.0))
    with pytest.raises(ValueError, match="single-element"):
        float(t)
    with pytest.raises(TypeError):
        hash(t)
    assert {t.ref(): 1}[t.ref()] == 1 and t.ref().deref() is t


def test_operators():
    a = tf.constant([1.0, 2.0, 4.0])
    b = tf.constant([2.0, 2.0, 2.0])
    assert (a + b).numpy().tolist() == [3.0, 4.0, 6.0]
    assert (a - b).numpy().tolist() == [-1.0, 0.0, 2.0]
    assert (a * b).numpy().tolist() == [2.0, 4.0, 8.0]
    assert (a / b).numpy().tolist() == [0.5, 1.0, 2.0]
    assert (a ** 2).numpy().tolist() == [1.0, 4.0, 16.0]
    assert (2.0 ** a).numpy().tolist() == [2.0, 4.0, 16.0]
    assert (-a).numpy().tolist() == [-1.0, -2.0, -4.0]
    assert abs(-a).numpy().tolist() == [1.0, 2.0, 4.0]
    assert (a > b).numpy().tolist() == [False, False, True]
    assert (a == b).numpy().tolist() == [False, True, False]
    assert (a != b).numpy().tolist() == [True, False, True]
    assert (a // b).numpy().tolist() == [0.0, 1.0, 2.0]
    assert (np.ones(3, np.float32) + a).numpy().tolist() == [2.0, 3.0, 5.0]
    m = tf.constant([[1.0, 2.0], [3.0, 4.0]])
    assert (m @ m).numpy().tolist() == [[7.0, 10.0], [15.0, 22.0]]
    assert m.T.numpy().tolist() == [[1.0, 3.0], [2.0, 4.0]]
    assert (tf.constant(7) / tf.constant(2)).numpy() == 3.5  # TF's truediv
    assert (a == None) is False  # noqa: E711


def test_indexing_and_slicing():
    t = tf.constant(np.arange(12.0).reshape(3, 4))
    assert t[1].numpy().tolist() == [4.0, 5.0, 6.0, 7.0]
    assert t[-1, ::-2].numpy().tolist() == [11.0, 9.0]
    assert t[:, tf.constant(2)].numpy().tolist() == [2.0, 6.0, 10.0]
    assert t[..., None].shape == (3, 4, 1)
    with pytest.raises(InvalidArgumentError, match=r"out of range for a tensor of shape \[3, 4\]"):
        t[5]


def test_variable_assign_rules():
    v = tf.Variable([1.0, 2.0], name="w")
    assert v.name == "w:0" and v.trainable
    v.assign([3.0, 4.0])
    v.assign_add(tf.constant([1.0, 1.0]))
    v.assign_sub([0.5, 0.5])
    assert v.numpy().tolist() == [3.5, 4.5]
    with pytest.raises(ValueError, match=r"shape \(3,\) to variable 'w:0' of shape \(2,\)"):
        v.assign([1.0, 2.0, 3.0])
    with pytest.raises(TypeError, match="float64 value to variable 'w:0' of dtype float32"):
        v.assign(tf.constant([1.0, 2.0], dtype=tf.float64))
    assert tf.Variable(lambda: tf.ones((2,))).shape == (2,)
    assert tf.Variable(1.0, dtype=tf.float64).dtype == tf.float64
    assert not tf.Variable(1.0, trainable=False).trainable


def test_a_variable_holds_its_value_in_c_order():
    # The kernels that update Variables in place are compiled for C order: an
    # F-ordered initial value (Orthogonal's, an LSTM's recurrent kernel) is copied
    # into one, with its values.
    fortran = np.asfortranarray(np.arange(12.0).reshape(3, 4))
    v = tf.Variable(fortran)
    assert v._value.flags.c_contiguous and v._value.flags.owndata
    np.testing.assert_array_equal(v.numpy(), fortran)
    recurrent = tf.keras.initializers.Orthogonal(seed=1)((4, 16))
    assert not recurrent._value.flags.c_contiguous  # (the initializer's own layout)
    assert tf.Variable(recurrent)._value.flags.c_contiguous


def test_reads_of_a_variable_do_not_change_with_it():
    v = tf.Variable([1.0, 2.0])
    snapshot = tf.identity(v)
    view = tf.reshape(v, (2, 1))
    value = v.numpy()
    v.assign([5.0, 6.0])
    assert snapshot.numpy().tolist() == [1.0, 2.0]
    assert view.numpy().tolist() == [[1.0], [2.0]]
    assert value.tolist() == [1.0, 2.0]


def test_variables_and_tensors_pickle():
    v = pickle.loads(pickle.dumps(tf.Variable([1.0, 2.0], name="kept", trainable=False)))
    assert v.name == "kept:0" and not v.trainable and v.numpy().tolist() == [1.0, 2.0]
    t = pickle.loads(pickle.dumps(tf.constant([[1, 2]])))
    assert t.numpy().tolist() == [[1, 2]] and t.dtype == tf.int32


def test_creation_ops():
    assert tf.ones((2, 3)).numpy().sum() == 6.0 and tf.ones((2,)).dtype == tf.float32
    assert tf.zeros([2], dtype=tf.int64).dtype == tf.int64
    assert tf.fill((2, 2), 7).numpy().tolist() == [[7, 7], [7, 7]]
    assert tf.range(5).numpy().tolist() == [0, 1, 2, 3, 4] and tf.range(5).dtype == tf.int32
    assert tf.range(1.0, 2.0, 0.5).numpy().tolist() == [1.0, 1.5]
    assert tf.shape(tf.ones((2, 5))).numpy().tolist() == [2, 5]
    assert tf.size(tf.ones((2, 5))).numpy() == 10 and tf.rank(tf.ones((2, 5))).numpy() == 2
    assert tf.cast(tf.constant([1.7, -1.7]), tf.int32).numpy().tolist() == [1, -1]


def test_tf_print_formats_like_tf():
    out = io.StringIO()
    tf.print(tf.constant(0.0), output_stream=out)
    tf.print(tf.Variable(0.99999857), output_stream=out)
    tf.print("x:", tf.constant([1.5, 2.0]), tf.constant(3), output_stream=out)
    tf.print(tf.range(10), output_stream=out)
    assert out.getvalue().splitlines() == ["0", "0.999998569", "x: [1.5 2] 3",
                                           "[0 1 2 ... 7 8 9]"]


def test_eager_helpers():
    assert tf.enable_eager_execution() is None and tf.executing_eagerly()
    assert isinstance(tf.__version__, str)


def test_equal_constants_are_distinct_sources():
    a, c = tf.constant(1.0), tf.constant(1.0)
    assert a is not c and tf.convert_to_tensor(1.0) is not tf.convert_to_tensor(1.0)
    with tf.GradientTape() as tape:
        tape.watch([a, c])
        y = 3.0 * a + 5.0 * c
    assert [g.numpy() for g in tape.gradient(y, [a, c])] == [3.0, 5.0]


# -- Tensor methods of TF 2's eager tensor (values and messages from TF 2.21) --

def test_set_shape_checks_compatibility_and_names_both_shapes():
    t = tf.constant([[1, 2, 3]])
    for fits in ([1, 3], (1, 3), [None, 3], None, tf.TensorShape([1, None])):
        assert t.set_shape(fits) is None
    assert t.shape == (1, 3) and t.get_shape() == tf.TensorShape([1, 3])
    with pytest.raises(ValueError, match=r"Tensor's shape \(1, 3\) is not compatible with "
                                         r"supplied shape \(2, 3\)"):
        t.set_shape([2, 3])
    with pytest.raises(ValueError, match=r"supplied shape \(3,\)"):
        t.set_shape([3])
    with pytest.raises(TypeError, match="Failed to convert 'ab' to a shape"):
        t.set_shape("ab")


def test_tensor_shape_compatibility_and_merge():
    shape = tf.TensorShape([1, None])
    assert shape.is_compatible_with([1, 3]) and not shape.is_compatible_with([2, 3])
    assert not shape.is_compatible_with([1]) and shape.is_compatible_with(None)
    assert shape.merge_with([1, 3]) == tf.TensorShape([1, 3])
    with pytest.raises(ValueError, match=r"Shapes \(1, None\) and \(2, 3\) are not compatible"):
        shape.merge_with([2, 3])


def test_format_is_numpys_format_of_the_value():
    assert f"{tf.constant(1.5):.2f}" == "1.50"
    assert f"{tf.constant(7):03d}" == "007"
    assert f"{tf.constant(1.5)}" == "1.5" and f"{tf.constant(True)}" == "True"
    assert f"{tf.constant([1, 2])}" == "[1 2]"
    assert f"{tf.constant([[1.5, 2]])}" == "[[1.5 2. ]]"
    assert f"{tf.constant('ab')}" == "b'ab'"
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{tf.constant([1.5]):.2f}"
    v = tf.Variable(1.5)
    assert f"{v}" == repr(v) and f"{v:.1f}" == "1.5"


def test_truth_value_length_iteration_and_index_rules():
    assert bool(tf.constant([1])) and not bool(tf.constant([], tf.int32))
    assert bool(tf.constant("a")) and not bool(tf.constant(""))
    with pytest.raises(ValueError, match="truth value of a tensor with more than one element"):
        bool(tf.constant([1, 2]))
    with pytest.raises(TypeError, match="Scalar tensor has no `len\\(\\)`"):
        len(tf.constant(1))
    with pytest.raises(TypeError, match="Cannot iterate over a scalar tensor"):
        iter(tf.constant(1))
    assert len(tf.constant([[1, 2, 3]])) == 1
    assert [int(x) for x in tf.constant([4, 5])] == [4, 5]
    assert [1, 2, 3][tf.constant(1)] == 2 and [1, 2][tf.constant(1, tf.uint8)] == 2
    assert list(range(tf.constant(3, tf.int64))) == [0, 1, 2]
    for bad in (tf.constant(1.0), tf.constant([1]), tf.constant(True)):
        with pytest.raises(TypeError, match="rank-0 integer"):
            [1, 2, 3][bad]


def test_tensors_are_unhashable_and_ref_is_the_key():
    t, v = tf.constant(1), tf.Variable(1.0)
    with pytest.raises(TypeError, match=r"Tensor is unhashable. Instead, use tensor.ref\(\) "
                                        "as the key."):
        hash(t)
    with pytest.raises(TypeError, match="Tensor is unhashable"):
        t in {1}
    with pytest.raises(TypeError, match=r"Variable is unhashable. Instead, use variable.ref\(\)"):
        {v: 1}
    keys = {t.ref(): "t", v.ref(): "v"}
    assert keys[t.ref()] == "t" and keys[v.ref()] == "v"
    assert t.ref() != tf.constant(1).ref()  # identity, not value
    assert t.ref().deref() is t and v.ref().deref() is v
    assert repr(t.ref()).startswith("<Reference wrapping <tf.Tensor: shape=()")


@pytest.mark.parametrize("value, match", [
    (None, r"Attempt to convert a value \(None\) with an unsupported type \(<class 'NoneType'>\)"),
    ({"a": 1}, r"unsupported type \(<class 'dict'>\)"),
    ([None], r"Attempt to convert a value \(None\)"),
    ([1, None], "mixed types to Tensor: None"),
    (np.array([None], dtype=object), "Failed to convert a NumPy array to a Tensor"),
])
def test_values_neither_numbers_nor_text_raise_tfs_value_error(value, match):
    with pytest.raises(ValueError, match=match):
        tf.constant(value)
