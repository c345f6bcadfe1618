"""GlobalAveragePooling3D / GlobalMaxPooling3D (layers/pooling.py), as Keras."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.gradients import gradcheck
from tapeflow.testing.layers import check_layer

L = tf.keras.layers
RNG = np.random.default_rng(3)


@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("cls, reduce", [(L.GlobalAveragePooling3D, np.mean),
                                         (L.GlobalMaxPooling3D, np.max)])
def test_values_shapes_and_first_order_gradients(cls, reduce, keepdims):
    x = RNG.standard_normal((2, 3, 4, 2, 5)).astype(np.float32)
    out = check_layer(cls(keepdims=keepdims), input_data=x)
    np.testing.assert_allclose(out.numpy(), reduce(x, axis=(1, 2, 3), keepdims=keepdims),
                               rtol=1e-5, atol=1e-6)
    assert out.shape == ((2, 1, 1, 1, 5) if keepdims else (2, 5))


def test_keras_doc_shapes_and_channels_first():
    # Keras's docs: x = keras.random.normal((2, 4, 5, 4, 3)) -> y.shape == (2, 3).
    x = RNG.standard_normal((2, 4, 5, 4, 3)).astype(np.float32)
    assert L.GlobalAveragePooling3D()(x).shape == (2, 3)
    out = L.GlobalMaxPooling3D(data_format="channels_first")(x)
    np.testing.assert_allclose(out.numpy(), x.max(axis=(2, 3, 4)))
    assert L.GlobalAveragePooling3D().compute_output_shape((None, 4, 5, 4, 3)) == (None, 3)
    assert L.GlobalAvgPool3D is L.GlobalAveragePooling3D
    assert L.GlobalMaxPool3D is L.GlobalMaxPooling3D
    config = L.GlobalMaxPooling3D(keepdims=True).get_config()
    assert config["keepdims"] is True and config["data_format"] == "channels_last"


def test_rank_is_checked():
    with pytest.raises(ValueError, match="ndim"):
        L.GlobalAveragePooling3D()(np.zeros((2, 3, 4, 5), np.float32))


@pytest.mark.parametrize("shape", [(2, 2, 3, 1, 2), (0, 2, 1, 2, 3)])
def test_second_order_gradients(shape):
    x = RNG.standard_normal(shape)
    gradcheck(lambda t: L.GlobalAveragePooling3D(dtype="float64")(t) ** 2, x, order=2)
    gradcheck(lambda t: L.GlobalMaxPooling3D(keepdims=True, dtype="float64")(t) ** 2, x, order=2)
