"""Max, average and global pooling layers: values against NumPy window loops
(including 'same' averages over the real cells only), gradients (check_layer)
and bad input."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.layers import check_layer
from tapeflow.layers.pooling import (AveragePooling1D, AveragePooling2D,
                                     GlobalAveragePooling1D, GlobalAveragePooling2D,
                                     GlobalMaxPooling1D, GlobalMaxPooling2D, MaxPooling1D,
                                     MaxPooling2D)

RNG = np.random.default_rng(1)


def np_pool2d(x, pool, strides, padding, reduce):
    """Window reduction over the real (non-padding) cells of each window."""
    n, h, w, c = x.shape
    if padding == "same":
        ho, wo = -(-h // strides[0]), -(-w // strides[1])
        pt = max((ho - 1) * strides[0] + pool[0] - h, 0) // 2
        pl = max((wo - 1) * strides[1] + pool[1] - w, 0) // 2
    else:
        ho, wo = (h - pool[0]) // strides[0] + 1, (w - pool[1]) // strides[1] + 1
        pt = pl = 0
    out = np.zeros((n, ho, wo, c))
    for i in range(ho):
        for j in range(wo):
            r0, c0 = i * strides[0] - pt, j * strides[1] - pl
            window = x[:, max(r0, 0):r0 + pool[0], max(c0, 0):c0 + pool[1]]
            out[:, i, j] = reduce(window, axis=(1, 2))
    return out


@pytest.mark.parametrize("cls,reduce", [(MaxPooling2D, np.max), (AveragePooling2D, np.mean)])
@pytest.mark.parametrize("pool,strides,padding", [
    (2, None, "valid"), (2, None, "same"), (3, 1, "same"), ((2, 3), (1, 2), "valid"),
    (3, 2, "same")])
def test_pooling2d_values(cls, reduce, pool, strides, padding):
    layer = cls(pool, strides=strides, padding=padding)
    x = RNG.standard_normal((2, 5, 7, 3)).astype(np.float32)
    out = check_layer(layer, input_data=x, expected_num_trainable_weights=0)
    pool2 = (pool,) * 2 if isinstance(pool, int) else pool
    st = pool2 if strides is None else ((strides,) * 2 if isinstance(strides, int) else strides)
    np.testing.assert_allclose(out.numpy(), np_pool2d(x, pool2, st, padding, reduce),
                               rtol=1e-5, atol=1e-6)


def test_max_pooling_default_pool_size():
    layer = MaxPooling2D()
    assert layer.pool_size == (2, 2) and layer.strides == (2, 2)
    assert MaxPooling1D().pool_size == (2,)
    x = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    np.testing.assert_array_equal(layer(x).numpy()[0, :, :, 0], [[5, 7], [13, 15]])


def test_average_pooling_has_no_default_pool_size():
    with pytest.raises(TypeError, match="pool_size"):
        AveragePooling2D()
    with pytest.raises(TypeError, match="pool_size"):
        AveragePooling1D()


def test_average_pooling_same_excludes_padding():
    x = np.ones((1, 3, 3, 1), np.float32)
    out = AveragePooling2D(2, strides=1, padding="same")(x)
    np.testing.assert_allclose(out.numpy(), np.ones((1, 3, 3, 1)))  # not diluted by zeros


@pytest.mark.parametrize("cls,reduce", [(MaxPooling1D, np.max), (AveragePooling1D, np.mean)])
@pytest.mark.parametrize("padding", ["valid", "same"])
def test_pooling1d_values(cls, reduce, padding):
    layer = cls(3, strides=2, padding=padding)
    x = RNG.standard_normal((2, 8, 3)).astype(np.float32)
    out = check_layer(layer, input_data=x)
    expected = np_pool2d(x[:, None], (1, 3), (1, 2), padding, reduce)[:, 0]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("keepdims", [False, True])
def test_global_pooling_values(keepdims):
    x2 = RNG.standard_normal((2, 3, 4, 5)).astype(np.float32)
    x1 = RNG.standard_normal((2, 6, 5)).astype(np.float32)
    for cls, x, reduce, axes in ((GlobalAveragePooling2D, x2, np.mean, (1, 2)),
                                 (GlobalMaxPooling2D, x2, np.max, (1, 2)),
                                 (GlobalAveragePooling1D, x1, np.mean, (1,)),
                                 (GlobalMaxPooling1D, x1, np.max, (1,))):
        out = check_layer(cls(keepdims=keepdims), input_data=x)
        np.testing.assert_allclose(out.numpy(), reduce(x, axis=axes, keepdims=keepdims),
                                   rtol=1e-5, atol=1e-6)


def test_global_pooling_channels_first():
    x = RNG.standard_normal((2, 5, 3, 4)).astype(np.float32)
    out = GlobalAveragePooling2D(data_format="channels_first")(x)
    np.testing.assert_allclose(out.numpy(), x.mean(axis=(2, 3)), rtol=1e-5)


def test_global_average_pooling1d_mask():
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    mask = np.array([[True, True, False, False], [True, True, True, True]])
    out = GlobalAveragePooling1D()(x, mask=mask)
    np.testing.assert_allclose(out.numpy()[0], x[0, :2].mean(axis=0), rtol=1e-5)
    np.testing.assert_allclose(out.numpy()[1], x[1].mean(axis=0), rtol=1e-5)
    # The mask of Embedding(mask_zero=True) arrives by itself.
    ids = np.array([[3, 1, 0, 0]])
    emb = tf.keras.layers.Embedding(5, 3, mask_zero=True)
    pooled = GlobalAveragePooling1D()(emb(ids))
    np.testing.assert_allclose(pooled.numpy()[0], emb(ids).numpy()[0, :2].mean(axis=0),
                               rtol=1e-5)


def test_pooling_bad_input():
    with pytest.raises(ValueError, match="padding.*'valid', 'same'"):
        MaxPooling2D(padding="full")
    with pytest.raises(ValueError, match="pool_size"):
        MaxPooling2D(pool_size=0)
    layer = MaxPooling2D(name="pool_a")
    with pytest.raises(ValueError, match=r'"pool_a".*expected ndim=4, found ndim=3'):
        layer(np.zeros((2, 4, 4), np.float32))
    with pytest.raises(ValueError, match=r'"global_max_pooling1d.*expected ndim=3'):
        GlobalMaxPooling1D()(np.zeros((2, 4, 4, 1), np.float32))
