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


# -- MaxPooling3D / AveragePooling3D ---------------------------------------------------------

def _reference_pool(x, pool, strides, padding, kind):
    """Plain NumPy pooling of (N, D, H, W, C), with TF's 'SAME' padding rule."""
    spatial = x.shape[1:4]
    if padding == "same":
        out = [-(-n // s) for n, s in zip(spatial, strides)]
        before = [max((o - 1) * s + k - n, 0) // 2
                  for o, s, k, n in zip(out, strides, pool, spatial)]
    else:
        out = [(n - k) // s + 1 for n, k, s in zip(spatial, pool, strides)]
        before = [0, 0, 0]
    result = np.zeros((x.shape[0], *out, x.shape[4]), np.float64)
    for index in np.ndindex(*out):
        lo = [i * s - b for i, s, b in zip(index, strides, before)]
        sl = tuple(slice(max(l, 0), min(l + k, n)) for l, k, n in zip(lo, pool, spatial))
        window = x[:, sl[0], sl[1], sl[2], :].reshape(x.shape[0], -1, x.shape[4])
        result[(slice(None), *index)] = (window.max(1) if kind == "max" else window.mean(1))
    return result


X = (np.arange(240) % 7 - 3.0).astype(np.float32).reshape(2, 5, 4, 3, 2) * 0.5 + np.linspace(
    0, 0.3, 240, dtype=np.float32).reshape(2, 5, 4, 3, 2)
# TF 2.21: float(tf.reduce_sum(tf.keras.layers.<cls>(**kwargs)(X))) for each case.
POOL_CASES = [
    (dict(pool_size=2), 26.053556442260742, 1.0764122009277344),
    (dict(pool_size=(2, 3, 2), strides=(1, 2, 1)), 53.00334930419922, 5.054497718811035),
    (dict(pool_size=(3, 2, 2), strides=2, padding="same"), 74.8179931640625, 7.938458442687988),
    (dict(pool_size=2, strides=(2, 1, 3), padding="same"), 75.48619842529297,
     10.944822311401367),
]


@pytest.mark.parametrize("kwargs, tf_max_sum, tf_avg_sum", POOL_CASES)
def test_pool3d_values_equal_tfs(kwargs, tf_max_sum, tf_avg_sum):
    pool = np.broadcast_to(kwargs["pool_size"], 3)
    strides = np.broadcast_to(kwargs.get("strides", pool), 3)
    padding = kwargs.get("padding", "valid")
    for cls, kind, tf_sum in ((L.MaxPooling3D, "max", tf_max_sum),
                              (L.AveragePooling3D, "avg", tf_avg_sum)):
        out = check_layer(cls(**kwargs), input_data=X)
        expected = _reference_pool(X.astype(np.float64), pool, strides, padding, kind)
        np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)
        assert float(np.sum(out.numpy())) == pytest.approx(tf_sum, rel=1e-6)
        assert cls(**kwargs).compute_output_shape(X.shape) == out.shape


def test_pool3d_channels_first_defaults_and_errors():
    y = L.MaxPooling3D(data_format="channels_first")(X.transpose(0, 4, 1, 2, 3))
    assert y.shape == (2, 2, 2, 2, 1) and float(np.sum(y.numpy())) == pytest.approx(
        26.053556442260742, rel=1e-6)  # TF's
    assert L.MaxPooling3D().pool_size == (2, 2, 2)
    assert L.MaxPool3D is L.MaxPooling3D and L.AvgPool3D is L.AveragePooling3D
    with pytest.raises(TypeError, match="pool_size"):
        L.AveragePooling3D()
    assert L.AveragePooling3D(2)(np.zeros((0, 4, 4, 4, 2), np.float32)).shape == (0, 2, 2, 2, 2)
    assert L.MaxPooling3D(3, strides=2)(np.zeros((1, 2, 5, 5, 1), np.float32)).shape == (
        1, 0, 2, 2, 1)


@pytest.mark.parametrize("shape", [(1, 3, 4, 3, 2), (0, 2, 2, 2, 1)])
@pytest.mark.parametrize("padding", ["valid", "same"])
def test_pool3d_second_order_gradients(shape, padding):
    x = RNG.standard_normal(shape)
    for cls in (L.MaxPooling3D, L.AveragePooling3D):
        layer = cls(pool_size=2, strides=(1, 2, 1), padding=padding, dtype="float64")
        gradcheck(lambda t, layer=layer: layer(t) ** 2, x, order=2)
