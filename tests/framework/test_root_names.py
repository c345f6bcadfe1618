"""The small root names of issue 15: dtypes given as TF DataType enum values."""

import numpy as np
import pytest

import tapeflow as tf

# -- dtypes as DataType enum values (tensorflow/core/framework/types.proto) ---------------
ENUMS = {1: tf.float32, 2: tf.float64, 3: tf.int32, 4: tf.uint8, 5: tf.int16, 6: tf.int8,
         7: tf.string, 8: tf.complex64, 9: tf.int64, 10: tf.bool, 17: tf.uint16,
         18: tf.complex128, 19: tf.float16, 22: tf.uint32, 23: tf.uint64}


@pytest.mark.parametrize("number", sorted(ENUMS))
def test_as_dtype_takes_tf_enum_values_and_as_datatype_enum_gives_them_back(number):
    dtype = tf.as_dtype(number)
    assert dtype.name == ENUMS[number].name
    assert dtype.as_datatype_enum == number
    assert tf.as_dtype(np.int64(number)).name == dtype.name


def test_bfloat16_enum_is_computed_as_float32():
    assert tf.as_dtype(14) == tf.float32  # tapeflow's bfloat16 is float32 (dtypes.py)


def test_the_dtype_argument_of_zeros_takes_an_enum_value():
    assert tf.zeros(1, 1).dtype == tf.float32  # tf.zeros(shape, dtype): 1 is DT_FLOAT
    assert tf.ones([2], 2).numpy().dtype == np.float64
    assert tf.constant([1, 2], dtype=9).dtype == tf.int64


@pytest.mark.parametrize("value, words", [(0, "DT_INVALID"), (20, "DT_RESOURCE"),
                                          (11, "DT_QINT8"), (99, "not a DataType enum"),
                                          (-1, "not a DataType enum")])
def test_unknown_or_unsupported_enum_values_name_themselves(value, words):
    with pytest.raises(TypeError, match=rf"Cannot convert {value} .*{words}"):
        tf.as_dtype(value)


def test_a_bool_is_not_an_enum_value():
    with pytest.raises(TypeError, match="Cannot convert True"):
        tf.as_dtype(True)
