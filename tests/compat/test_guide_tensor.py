"""Introduction to Tensors.

Source: https://www.tensorflow.org/guide/tensor
(github.com/tensorflow/docs, site/en/guide/tensor.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf`; the page is split into one test per section (basics,
shapes, indexing, reshaping, dtypes, broadcasting, tf.convert_to_tensor, ragged,
string and sparse tensors) so that one missing API does not hide the rest; what the
page prints is asserted (the values and text TF 2.21 prints for it). No other change.
"""

import numpy as np
import pytest

import tapeflow as tf


def _eq(tensor, expected, dtype=None):
    np.testing.assert_array_equal(np.asarray(tensor), np.asarray(expected))
    if dtype is not None:
        assert tensor.dtype == dtype, (tensor.dtype, dtype)


def test_basics():
    rank_0_tensor = tf.constant(4)
    print(rank_0_tensor)
    assert str(rank_0_tensor) == "tf.Tensor(4, shape=(), dtype=int32)"

    rank_1_tensor = tf.constant([2.0, 3.0, 4.0])
    print(rank_1_tensor)
    assert str(rank_1_tensor) == "tf.Tensor([2. 3. 4.], shape=(3,), dtype=float32)"

    rank_2_tensor = tf.constant([[1, 2],
                                 [3, 4],
                                 [5, 6]], dtype=tf.float16)
    print(rank_2_tensor)
    assert str(rank_2_tensor) == ("tf.Tensor(\n[[1. 2.]\n [3. 4.]\n [5. 6.]], "
                                  "shape=(3, 2), dtype=float16)")

    rank_3_tensor = tf.constant([
      [[0, 1, 2, 3, 4],
       [5, 6, 7, 8, 9]],
      [[10, 11, 12, 13, 14],
       [15, 16, 17, 18, 19]],
      [[20, 21, 22, 23, 24],
       [25, 26, 27, 28, 29]],])
    print(rank_3_tensor)
    _eq(rank_3_tensor, np.arange(30).reshape(3, 2, 5), tf.int32)

    as_array = np.array(rank_2_tensor)
    assert as_array.dtype == np.float16
    _eq(as_array, [[1, 2], [3, 4], [5, 6]])
    assert rank_2_tensor.numpy().dtype == np.float16

    a = tf.constant([[1, 2],
                     [3, 4]])
    b = tf.constant([[1, 1],
                     [1, 1]]) # Could have also said `tf.ones([2,2], dtype=tf.int32)`

    print(tf.add(a, b), "\n")
    print(tf.multiply(a, b), "\n")
    print(tf.matmul(a, b), "\n")
    _eq(tf.add(a, b), [[2, 3], [4, 5]], tf.int32)
    _eq(tf.multiply(a, b), [[1, 2], [3, 4]], tf.int32)
    _eq(tf.matmul(a, b), [[3, 3], [7, 7]], tf.int32)

    print(a + b, "\n") # element-wise addition
    print(a * b, "\n") # element-wise multiplication
    print(a @ b, "\n") # matrix multiplication
    _eq(a + b, [[2, 3], [4, 5]])
    _eq(a * b, [[1, 2], [3, 4]])
    _eq(a @ b, [[3, 3], [7, 7]])

    c = tf.constant([[4.0, 5.0], [10.0, 1.0]])

    # Find the largest value
    print(tf.reduce_max(c))
    # Find the index of the largest value
    print(tf.math.argmax(c))
    # Compute the softmax
    print(tf.nn.softmax(c))
    _eq(tf.reduce_max(c), 10.0, tf.float32)
    _eq(tf.math.argmax(c), [1, 0], tf.int64)
    np.testing.assert_allclose(tf.nn.softmax(c).numpy(),
                               [[2.6894143e-01, 7.3105854e-01],
                                [9.9987662e-01, 1.2339458e-04]], rtol=1e-6)


def test_convert_to_tensor():
    _eq(tf.convert_to_tensor([1,2,3]), [1, 2, 3], tf.int32)
    _eq(tf.reduce_max([1,2,3]), 3, tf.int32)
    # NumPy's int64 stays int64 (TF keeps the array's dtype).
    _eq(tf.reduce_max(np.array([1,2,3])), 3, tf.int64)


def test_about_shapes():
    rank_4_tensor = tf.zeros([3, 2, 4, 5])
    print("Type of every element:", rank_4_tensor.dtype)
    print("Number of axes:", rank_4_tensor.ndim)
    print("Shape of tensor:", rank_4_tensor.shape)
    print("Elements along axis 0 of tensor:", rank_4_tensor.shape[0])
    print("Elements along the last axis of tensor:", rank_4_tensor.shape[-1])
    print("Total number of elements (3*2*4*5): ", tf.size(rank_4_tensor).numpy())
    assert repr(rank_4_tensor.dtype) == "tf.float32"
    assert rank_4_tensor.ndim == 4
    assert str(rank_4_tensor.shape) == "(3, 2, 4, 5)"
    assert rank_4_tensor.shape[0] == 3 and rank_4_tensor.shape[-1] == 5
    assert tf.size(rank_4_tensor).numpy() == 120

    _eq(tf.rank(rank_4_tensor), 4, tf.int32)
    _eq(tf.shape(rank_4_tensor), [3, 2, 4, 5], tf.int32)
    # What the page prints: "Type of every element: <dtype: 'float32'>".
    assert str(rank_4_tensor.dtype) == "<dtype: 'float32'>"


def test_indexing():
    rank_1_tensor = tf.constant([0, 1, 1, 2, 3, 5, 8, 13, 21, 34])
    print(rank_1_tensor.numpy())
    print("First:", rank_1_tensor[0].numpy())
    print("Second:", rank_1_tensor[1].numpy())
    print("Last:", rank_1_tensor[-1].numpy())
    assert (rank_1_tensor[0].numpy(), rank_1_tensor[1].numpy(),
            rank_1_tensor[-1].numpy()) == (0, 1, 34)

    print("Everything:", rank_1_tensor[:].numpy())
    print("Before 4:", rank_1_tensor[:4].numpy())
    print("From 4 to the end:", rank_1_tensor[4:].numpy())
    print("From 2, before 7:", rank_1_tensor[2:7].numpy())
    print("Every other item:", rank_1_tensor[::2].numpy())
    print("Reversed:", rank_1_tensor[::-1].numpy())
    _eq(rank_1_tensor[:], [0, 1, 1, 2, 3, 5, 8, 13, 21, 34])
    _eq(rank_1_tensor[:4], [0, 1, 1, 2])
    _eq(rank_1_tensor[4:], [3, 5, 8, 13, 21, 34])
    _eq(rank_1_tensor[2:7], [1, 2, 3, 5, 8])
    _eq(rank_1_tensor[::2], [0, 1, 3, 8, 21])
    _eq(rank_1_tensor[::-1], [34, 21, 13, 8, 5, 3, 2, 1, 1, 0])

    rank_2_tensor = tf.constant([[1, 2],
                                 [3, 4],
                                 [5, 6]], dtype=tf.float16)
    print(rank_2_tensor.numpy())
    print(rank_2_tensor[1, 1].numpy())
    assert rank_2_tensor[1, 1].numpy() == 4.0

    print("Second row:", rank_2_tensor[1, :].numpy())
    print("Second column:", rank_2_tensor[:, 1].numpy())
    print("Last row:", rank_2_tensor[-1, :].numpy())
    print("First item in last column:", rank_2_tensor[0, -1].numpy())
    print("Skip the first row:")
    print(rank_2_tensor[1:, :].numpy(), "\n")
    _eq(rank_2_tensor[1, :], [3.0, 4.0])
    _eq(rank_2_tensor[:, 1], [2.0, 4.0, 6.0])
    _eq(rank_2_tensor[-1, :], [5.0, 6.0])
    _eq(rank_2_tensor[0, -1], 2.0)
    _eq(rank_2_tensor[1:, :], [[3.0, 4.0], [5.0, 6.0]])

    rank_3_tensor = tf.constant(np.arange(30, dtype=np.int32).reshape(3, 2, 5))
    print(rank_3_tensor[:, :, 4])
    _eq(rank_3_tensor[:, :, 4], [[4, 9], [14, 19], [24, 29]], tf.int32)


def test_manipulating_shapes():
    # Shape returns a `TensorShape` object that shows the size along each axis
    x = tf.constant([[1], [2], [3]])
    print(x.shape)
    assert x.shape == (3, 1)
    # You can convert this object into a Python list, too
    print(x.shape.as_list())
    assert x.shape.as_list() == [3, 1]

    # You can reshape a tensor to a new shape.
    # Note that you're passing in a list
    reshaped = tf.reshape(x, [1, 3])
    print(x.shape)
    print(reshaped.shape)
    assert reshaped.shape == (1, 3)

    rank_3_tensor = tf.constant([
      [[0, 1, 2, 3, 4],
       [5, 6, 7, 8, 9]],
      [[10, 11, 12, 13, 14],
       [15, 16, 17, 18, 19]],
      [[20, 21, 22, 23, 24],
       [25, 26, 27, 28, 29]],])
    # A `-1` passed in the `shape` argument says "Whatever fits".
    print(tf.reshape(rank_3_tensor, [-1]))
    _eq(tf.reshape(rank_3_tensor, [-1]), np.arange(30))

    print(tf.reshape(rank_3_tensor, [3*2, 5]), "\n")
    print(tf.reshape(rank_3_tensor, [3, -1]))
    _eq(tf.reshape(rank_3_tensor, [3*2, 5]), np.arange(30).reshape(6, 5))
    _eq(tf.reshape(rank_3_tensor, [3, -1]), np.arange(30).reshape(3, 10))

    # Bad examples: don't do this

    # You can't reorder axes with reshape.
    print(tf.reshape(rank_3_tensor, [2, 3, 5]), "\n")
    _eq(tf.reshape(rank_3_tensor, [2, 3, 5]), np.arange(30).reshape(2, 3, 5))

    # This is a mess
    print(tf.reshape(rank_3_tensor, [5, 6]), "\n")
    _eq(tf.reshape(rank_3_tensor, [5, 6]), np.arange(30).reshape(5, 6))

    # This doesn't work at all
    caught = None
    try:
      tf.reshape(rank_3_tensor, [7, -1])
    except Exception as e:
      print(f"{type(e).__name__}: {e}")
      caught = e
    # TF: "InvalidArgumentError: ... Input to reshape is a tensor with 30 values, but
    # the requested shape requires a multiple of 7 [Op:Reshape]"
    assert isinstance(caught, tf.errors.InvalidArgumentError), caught
    assert "30" in str(caught) and "7" in str(caught), caught


def test_dtypes():
    the_f64_tensor = tf.constant([2.2, 3.3, 4.4], dtype=tf.float64)
    the_f16_tensor = tf.cast(the_f64_tensor, dtype=tf.float16)
    # Now, cast to an uint8 and lose the decimal precision
    the_u8_tensor = tf.cast(the_f16_tensor, dtype=tf.uint8)
    print(the_u8_tensor)
    assert str(the_u8_tensor) == "tf.Tensor([2 3 4], shape=(3,), dtype=uint8)"


def test_broadcasting():
    x = tf.constant([1, 2, 3])

    y = tf.constant(2)
    z = tf.constant([2, 2, 2])
    # All of these are the same computation
    print(tf.multiply(x, 2))
    print(x * y)
    print(x * z)
    for product in (tf.multiply(x, 2), x * y, x * z):
      _eq(product, [2, 4, 6], tf.int32)

    # These are the same computations
    x = tf.reshape(x,[3,1])
    y = tf.range(1, 5)
    print(x, "\n")
    print(y, "\n")
    print(tf.multiply(x, y))
    _eq(y, [1, 2, 3, 4], tf.int32)
    _eq(tf.multiply(x, y), [[1, 2, 3, 4], [2, 4, 6, 8], [3, 6, 9, 12]], tf.int32)

    x_stretch = tf.constant([[1, 1, 1, 1],
                             [2, 2, 2, 2],
                             [3, 3, 3, 3]])

    y_stretch = tf.constant([[1, 2, 3, 4],
                             [1, 2, 3, 4],
                             [1, 2, 3, 4]])

    print(x_stretch * y_stretch)  # Again, operator overloading
    _eq(x_stretch * y_stretch, [[1, 2, 3, 4], [2, 4, 6, 8], [3, 6, 9, 12]])

    print(tf.broadcast_to(tf.constant([1, 2, 3]), [3, 3]))
    _eq(tf.broadcast_to(tf.constant([1, 2, 3]), [3, 3]), [[1, 2, 3]] * 3, tf.int32)


def test_ragged_tensors():
    ragged_list = [
        [0, 1, 2, 3],
        [4, 5],
        [6, 7, 8],
        [9]]

    caught = None
    try:
      tensor = tf.constant(ragged_list)
    except Exception as e:
      print(f"{type(e).__name__}: {e}")
      caught = e
    # TF: "ValueError: Can't convert non-rectangular Python sequence to Tensor."
    assert isinstance(caught, ValueError), caught

    ragged_tensor = tf.ragged.constant(ragged_list)
    print(ragged_tensor)
    assert str(ragged_tensor) == "<tf.RaggedTensor [[0, 1, 2, 3], [4, 5], [6, 7, 8], [9]]>"

    print(ragged_tensor.shape)
    assert ragged_tensor.shape.as_list() == [4, None]
    assert str(ragged_tensor.shape) == "(4, None)"


def test_string_tensors():
    # Tensors can be strings, too here is a scalar string.
    scalar_string_tensor = tf.constant("Gray wolf")
    print(scalar_string_tensor)
    assert str(scalar_string_tensor) == "tf.Tensor(b'Gray wolf', shape=(), dtype=string)"
    assert scalar_string_tensor.dtype == tf.string

    # If you have three string tensors of different lengths, this is OK.
    tensor_of_strings = tf.constant(["Gray wolf",
                                     "Quick brown fox",
                                     "Lazy dog"])
    # Note that the shape is (3,). The string length is not included.
    print(tensor_of_strings)
    assert str(tensor_of_strings) == ("tf.Tensor([b'Gray wolf' b'Quick brown fox' "
                                      "b'Lazy dog'], shape=(3,), dtype=string)")

    party = tf.constant("🥳👍")
    assert party.numpy() == "🥳👍".encode("utf-8")

    # You can use split to split a string into a set of tensors
    print(tf.strings.split(scalar_string_tensor, sep=" "))
    _eq(tf.strings.split(scalar_string_tensor, sep=" "), [b"Gray", b"wolf"], tf.string)

    # ...but it turns into a `RaggedTensor` if you split up a tensor of strings,
    # as each string might be split into a different number of parts.
    print(tf.strings.split(tensor_of_strings))
    split = tf.strings.split(tensor_of_strings)
    assert isinstance(split, tf.RaggedTensor)
    assert split.to_list() == [[b"Gray", b"wolf"], [b"Quick", b"brown", b"fox"],
                               [b"Lazy", b"dog"]]
    assert str(split) == ("<tf.RaggedTensor [[b'Gray', b'wolf'], [b'Quick', b'brown', "
                          "b'fox'], [b'Lazy', b'dog']]>")

    text = tf.constant("1 10 100")
    print(tf.strings.to_number(tf.strings.split(text, " ")))
    _eq(tf.strings.to_number(tf.strings.split(text, " ")), [1.0, 10.0, 100.0], tf.float32)

    byte_strings = tf.strings.bytes_split(tf.constant("Duck"))
    byte_ints = tf.io.decode_raw(tf.constant("Duck"), tf.uint8)
    print("Byte strings:", byte_strings)
    print("Bytes:", byte_ints)
    _eq(byte_strings, [b"D", b"u", b"c", b"k"], tf.string)
    _eq(byte_ints, [68, 117, 99, 107], tf.uint8)

    # Or split it up as unicode and then decode it
    unicode_bytes = tf.constant("アヒル 🦆")
    unicode_char_bytes = tf.strings.unicode_split(unicode_bytes, "UTF-8")
    unicode_values = tf.strings.unicode_decode(unicode_bytes, "UTF-8")

    print("\nUnicode bytes:", unicode_bytes)
    print("\nUnicode chars:", unicode_char_bytes)
    print("\nUnicode values:", unicode_values)
    assert unicode_bytes.numpy() == "アヒル 🦆".encode("utf-8")
    _eq(unicode_char_bytes, [c.encode("utf-8") for c in "アヒル 🦆"], tf.string)
    _eq(unicode_values, [12450, 12498, 12523, 32, 129414], tf.int32)


def test_sparse_tensors():
    # Sparse tensors store values by index in a memory-efficient manner
    sparse_tensor = tf.sparse.SparseTensor(indices=[[0, 0], [1, 2]],
                                           values=[1, 2],
                                           dense_shape=[3, 4])
    print(sparse_tensor, "\n")

    # You can convert sparse tensors to dense
    print(tf.sparse.to_dense(sparse_tensor))
    _eq(tf.sparse.to_dense(sparse_tensor), [[1, 0, 0, 0], [0, 0, 2, 0], [0, 0, 0, 0]],
        tf.int32)
    # What TF prints for `print(sparse_tensor)`:
    assert str(sparse_tensor) == (
        "SparseTensor(indices=tf.Tensor(\n[[0 0]\n [1 2]], shape=(2, 2), dtype=int64), "
        "values=tf.Tensor([1 2], shape=(2,), dtype=int32), "
        "dense_shape=tf.Tensor([3 4], shape=(2,), dtype=int64))")
