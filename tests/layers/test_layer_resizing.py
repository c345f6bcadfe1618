"""UpSampling2D (nearest, bilinear), ZeroPadding1D/2D and Cropping1D/2D: values
against NumPy, gradients (check_layer) and bad input."""

import numpy as np
import pytest

from tapeflow.testing.layers import check_layer
from tapeflow.layers.resizing import (Cropping1D, Cropping2D, UpSampling2D, ZeroPadding1D,
                                      ZeroPadding2D)

RNG = np.random.default_rng(2)


def np_bilinear(x, sh, sw):
    """TF's resize_bilinear with half_pixel_centers=True, one output cell at a time."""
    n, h, w, c = x.shape
    out = np.zeros((n, h * sh, w * sw, c))
    for i in range(h * sh):
        for j in range(w * sw):
            y = (i + 0.5) / sh - 0.5
            xx = (j + 0.5) / sw - 0.5
            y0, x0 = int(np.floor(y)), int(np.floor(xx))
            fy, fx = y - y0, xx - x0
            ys = [min(max(y0, 0), h - 1), min(max(y0 + 1, 0), h - 1)]
            xs = [min(max(x0, 0), w - 1), min(max(x0 + 1, 0), w - 1)]
            out[:, i, j] = ((1 - fy) * ((1 - fx) * x[:, ys[0], xs[0]] + fx * x[:, ys[0], xs[1]])
                            + fy * ((1 - fx) * x[:, ys[1], xs[0]] + fx * x[:, ys[1], xs[1]]))
    return out


@pytest.mark.parametrize("size", [2, (2, 3), (1, 2)])
def test_upsampling_nearest(size):
    x = RNG.standard_normal((2, 3, 4, 2)).astype(np.float32)
    sh, sw = (size, size) if isinstance(size, int) else size
    out = check_layer(UpSampling2D(size), input_data=x, expected_output_shape=(2, 3 * sh,
                                                                                  4 * sw, 2))
    np.testing.assert_array_equal(out.numpy(), x.repeat(sh, axis=1).repeat(sw, axis=2))


@pytest.mark.parametrize("size", [2, (3, 2)])
def test_upsampling_bilinear(size):
    x = RNG.standard_normal((2, 3, 4, 2)).astype(np.float32)
    sh, sw = (size, size) if isinstance(size, int) else size
    out = check_layer(UpSampling2D(size, interpolation="bilinear"), input_data=x)
    np.testing.assert_allclose(out.numpy(), np_bilinear(x, sh, sw), rtol=1e-5, atol=1e-6)


def test_upsampling_bilinear_documented_values():
    # tf.image.resize([[0, 1, 2], [3, 4, 5]], (4, 6), 'bilinear'): half-pixel, clamped edges.
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 3, 1)
    out = UpSampling2D(2, interpolation="bilinear")(x).numpy()[0, :, :, 0]
    np.testing.assert_allclose(out[0], [0, 0.25, 0.75, 1.25, 1.75, 2], rtol=1e-6)
    np.testing.assert_allclose(out[:, 0], [0, 0.75, 2.25, 3], rtol=1e-6)


def test_upsampling_channels_first():
    x = RNG.standard_normal((1, 2, 3, 3)).astype(np.float32)
    out = UpSampling2D(2, data_format="channels_first")(x)
    np.testing.assert_array_equal(out.numpy(), x.repeat(2, axis=2).repeat(2, axis=3))


@pytest.mark.parametrize("padding,pads", [(1, ((1, 1), (1, 1))), ((2, 0), ((2, 2), (0, 0))),
                                          (((1, 0), (0, 2)), ((1, 0), (0, 2)))])
def test_zero_padding2d(padding, pads):
    x = RNG.standard_normal((2, 3, 2, 2)).astype(np.float32)
    out = check_layer(ZeroPadding2D(padding), input_data=x)
    np.testing.assert_array_equal(out.numpy(), np.pad(x, ((0, 0),) + pads + ((0, 0),)))


@pytest.mark.parametrize("cropping,crops", [(1, ((1, 1), (1, 1))), ((1, 0), ((1, 1), (0, 0))),
                                            (((0, 1), (2, 0)), ((0, 1), (2, 0)))])
def test_cropping2d(cropping, crops):
    x = RNG.standard_normal((2, 4, 5, 2)).astype(np.float32)
    out = check_layer(Cropping2D(cropping), input_data=x)
    (t, b), (l, r) = crops
    np.testing.assert_array_equal(out.numpy(), x[:, t:4 - b, l:5 - r])


def test_padding_and_cropping_1d():
    x = RNG.standard_normal((2, 5, 3)).astype(np.float32)
    out = check_layer(ZeroPadding1D((1, 2)), input_data=x)
    np.testing.assert_array_equal(out.numpy(), np.pad(x, ((0, 0), (1, 2), (0, 0))))
    out = check_layer(Cropping1D((1, 2)), input_data=x)
    np.testing.assert_array_equal(out.numpy(), x[:, 1:3])
    assert Cropping1D().cropping == ((1, 1),)


def test_resizing_bad_input():
    with pytest.raises(ValueError, match="interpolation"):
        UpSampling2D(interpolation="bicubic")
    with pytest.raises(ValueError, match="size"):
        UpSampling2D(0)
    with pytest.raises(ValueError, match="padding"):
        ZeroPadding2D((1, 2, 3))
    with pytest.raises(ValueError, match="padding"):
        ZeroPadding2D(-1)
    with pytest.raises(ValueError, match=r"'crop_a'.*leaves nothing.*\(1, 2, 4, 1\)"):
        Cropping2D(1, name="crop_a")(np.zeros((1, 2, 4, 1), np.float32))
    with pytest.raises(ValueError, match=r'"up_a".*expected ndim=4'):
        UpSampling2D(name="up_a")(np.zeros((2, 3, 3), np.float32))
