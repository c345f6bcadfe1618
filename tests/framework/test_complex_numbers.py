"""tf.complex and tf.math.real/imag/conj/angle: TF's dtype rules and values, and
gradients through the public names (complex in, real out, as gradcheck needs)."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.gradients import Case

_rng = np.random.default_rng(5)


def _r(*shape):
    return _rng.standard_normal(shape)


def test_complex_dtypes_follow_the_parts():
    assert tf.complex(tf.constant([1.0]), tf.constant([2.0])).dtype == tf.complex64
    z = tf.complex(tf.constant([1.0], tf.float64), tf.constant([2.0], tf.float64))
    assert z.dtype == tf.complex128
    np.testing.assert_array_equal(z.numpy(), [1 + 2j])
    with pytest.raises(TypeError, match="float32 and float64"):
        tf.complex(tf.constant([1.0]), tf.constant([2.0], tf.float64))
    with pytest.raises(TypeError, match="int32"):
        tf.complex(tf.constant([1]), tf.constant([2]))


def test_real_imag_conj_angle_values():
    z = tf.complex(tf.constant([3.0, -1.0]), tf.constant([4.0, 0.0]))
    np.testing.assert_array_equal(tf.math.real(z).numpy(), [3.0, -1.0])
    np.testing.assert_array_equal(tf.math.imag(z).numpy(), [4.0, 0.0])
    np.testing.assert_array_equal(tf.math.conj(z).numpy(), [3 - 4j, -1 + 0j])
    np.testing.assert_allclose(tf.math.angle(z).numpy(), [np.arctan2(4, 3), np.pi], rtol=1e-6)
    assert tf.math.real(z).dtype == tf.math.angle(z).dtype == tf.float32


def test_real_inputs_as_tf():
    x = tf.constant([-2.0, 0.0, 5.0])
    assert tf.math.real(x) is x and tf.math.conj(x) is x
    np.testing.assert_array_equal(tf.math.imag(x).numpy(), [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(tf.math.angle(x).numpy(), np.float32([np.pi, 0.0, 0.0]))


CASES = [
    Case("real(complex)", lambda x, y: tf.math.real(tf.complex(x, y)) * y, _r(2, 3), _r(3)),
    Case("imag(conj(complex))", lambda x, y: tf.math.imag(tf.math.conj(tf.complex(x, y))) * x,
         _r(3), _r(3)),
    Case("complex size-0", lambda x, y: tf.math.real(tf.complex(x, y)), _r(0, 2), _r(2)),
]


@pytest.mark.parametrize("case", CASES, ids=repr)
def test_gradients_to_second_order(case):
    case.check()
