"""tf.image: values against NumPy references and hand-computed cases from TF's
formulas (tensorflow/python/ops/image_ops_impl.py), float64 gradchecks (first
and second order) for every differentiable op, TF's ValueErrors for bad ranks,
sizes and arguments, and tf.random's seeding rules for the random ops."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.core.errors import InvalidArgumentError
from tapeflow.testing.gradients import gradcheck

_rng = np.random.default_rng(0)


def _r(*shape):
    return _rng.standard_normal(shape)


HWC = np.arange(2 * 3 * 2, dtype=np.float32).reshape(2, 3, 2)   # H=2, W=3, C=2
NHWC = np.arange(2 * 3 * 4 * 1, dtype=np.float32).reshape(2, 3, 4, 1)


# ---- geometry: values ------------------------------------------------------------

@pytest.mark.parametrize("image", [HWC, NHWC], ids=["HWC", "NHWC"])
def test_flips_transpose_and_rot90_match_numpy(image):
    h = image.ndim - 3
    np.testing.assert_array_equal(tf.image.flip_left_right(image).numpy(),
                                  np.flip(image, h + 1))
    np.testing.assert_array_equal(tf.image.flip_up_down(image).numpy(), np.flip(image, h))
    np.testing.assert_array_equal(tf.image.transpose(image).numpy(),
                                  np.swapaxes(image, h, h + 1))
    for k in range(-5, 6):
        np.testing.assert_array_equal(tf.image.rot90(image, k).numpy(),
                                      np.rot90(image, k, axes=(h, h + 1)))


def test_rot90_is_counter_clockwise():
    image = np.array([[1, 2], [3, 4]], np.float32)[..., None]
    # TF's docstring: a quarter turn counter-clockwise moves the top-right corner top-left.
    np.testing.assert_array_equal(tf.image.rot90(image)[..., 0].numpy(), [[2, 4], [1, 3]])


def test_crop_and_pad_to_bounding_box():
    crop = tf.image.crop_to_bounding_box(NHWC, 1, 2, 2, 1)
    np.testing.assert_array_equal(crop.numpy()[..., 0], [[[6], [10]], [[18], [22]]])
    padded = tf.image.pad_to_bounding_box(HWC, 1, 0, 4, 5)
    assert padded.shape == (4, 5, 2) and padded.dtype == tf.float32
    expected = np.zeros((4, 5, 2), np.float32)
    expected[1:3, 0:3] = HWC
    np.testing.assert_array_equal(padded.numpy(), expected)


def test_central_crop_uses_tf_offsets():
    # 3x4 at 0.5: top = int((3 - 1.5) / 2) = 0, left = int((4 - 2) / 2) = 1.
    out = tf.image.central_crop(NHWC[0], 0.5)
    np.testing.assert_array_equal(out.numpy()[..., 0], [[1, 2], [5, 6], [9, 10]])
    # 5x5 at 0.33: border int((5 - 1.65) / 2) = 1 on each side -> 3x3.
    five = np.arange(25.0).reshape(1, 5, 5, 1)
    np.testing.assert_array_equal(tf.image.central_crop(five, 0.33).numpy(), five[:, 1:4, 1:4])
    np.testing.assert_array_equal(tf.image.central_crop(five, 1.0).numpy(), five)


def test_resize_with_crop_or_pad_centres_with_the_extra_at_the_end():
    image = NHWC[0]                           # 3x4
    out = tf.image.resize_with_crop_or_pad(image, 5, 2).numpy()[..., 0]
    # height 3 -> 5: pad 1 on top, 1 below; width 4 -> 2: crop offset (4 - 2) // 2 = 1.
    np.testing.assert_array_equal(out, [[0, 0], [1, 2], [5, 6], [9, 10], [0, 0]])
    out = tf.image.resize_with_crop_or_pad(image, 2, 7).numpy()[..., 0]
    # height 3 -> 2: crop offset (3 - 2) // 2 = 0; width 4 -> 7: pad 3 // 2 = 1 left, 2 right.
    np.testing.assert_array_equal(out, [[0, 0, 1, 2, 3, 0, 0], [0, 4, 5, 6, 7, 0, 0]])


def test_integer_images_keep_their_dtype():
    image = np.arange(12, dtype=np.uint8).reshape(2, 3, 2)
    for fn in (tf.image.flip_left_right, tf.image.rot90, tf.image.transpose,
               lambda x: tf.image.pad_to_bounding_box(x, 1, 1, 4, 5),
               lambda x: tf.image.resize_with_crop_or_pad(x, 1, 1)):
        assert fn(image).dtype == tf.uint8


# ---- geometry: random ops ------------------------------------------------------------

def test_random_flip_of_a_batch_flips_each_image_by_its_own_draw():
    batch = _r(64, 2, 3, 1)
    tf.random.set_seed(5)
    out = tf.image.random_flip_left_right(batch).numpy()
    flipped = [np.array_equal(o, np.flip(b, 1)) for o, b in zip(out, batch)]
    kept = [np.array_equal(o, b) for o, b in zip(out, batch)]
    assert all(f != k for f, k in zip(flipped, kept))   # each image is one or the other
    assert 16 < sum(flipped) < 48
    # The draws are tf.random.uniform's: flip where round(u) == 1.
    tf.random.set_seed(5)
    u = tf.random.uniform([64]).numpy()
    assert flipped == list(np.round(u) == 1)


def test_random_flip_of_one_image_uses_one_draw():
    image = _r(2, 3, 1)
    tf.random.set_seed(1)
    out = tf.image.random_flip_up_down(image).numpy()
    tf.random.set_seed(1)
    u = float(tf.random.uniform([]).numpy())
    np.testing.assert_array_equal(out, np.flip(image, 0) if u < 0.5 else image)


def test_random_flip_with_an_op_seed_repeats_after_set_seed():
    batch = _r(16, 2, 3, 1)
    tf.random.set_seed(3)
    first = [tf.image.random_flip_left_right(batch, seed=7).numpy() for _ in range(2)]
    tf.random.set_seed(3)
    second = [tf.image.random_flip_left_right(batch, seed=7).numpy() for _ in range(2)]
    np.testing.assert_array_equal(first[0], second[0])
    np.testing.assert_array_equal(first[1], second[1])
    assert not np.array_equal(first[0], first[1])   # successive calls differ, as in TF


def test_random_crop_takes_a_window_at_tf_offset():
    value = np.arange(5 * 6 * 2, dtype=np.float64).reshape(5, 6, 2)
    tf.random.set_seed(11)
    out = tf.image.random_crop(value, [3, 2, 2], seed=4).numpy()
    tf.random.set_seed(11)
    draws = tf.random.uniform([3], 0, 2**31 - 1, dtype=tf.int32, seed=4).numpy()
    o = draws.astype(np.int64) % np.array([3, 5, 1])
    np.testing.assert_array_equal(out, value[o[0]:o[0] + 3, o[1]:o[1] + 2, o[2]:o[2] + 2])
    offsets = set()
    for _ in range(40):
        crop = tf.image.random_crop(value, [3, 2, 2]).numpy()
        offsets.add((int(crop[0, 0, 0]) // 12, int(crop[0, 0, 0]) % 12 // 2))
    assert len(offsets) > 5   # the window moves


def test_random_crop_rejects_a_size_larger_than_the_value():
    with pytest.raises(InvalidArgumentError, match="Need value.shape >= size"):
        tf.image.random_crop(np.zeros((2, 3, 1)), [3, 3, 1])
    with pytest.raises(InvalidArgumentError, match="size must be a vector of 3 ints"):
        tf.image.random_crop(np.zeros((2, 3, 1)), [2, 3])


# ---- geometry: errors ---------------------------------------------------------------

@pytest.mark.parametrize("fn", [tf.image.flip_left_right, tf.image.flip_up_down,
                                tf.image.rot90, tf.image.transpose,
                                tf.image.random_flip_left_right,
                                lambda x: tf.image.central_crop(x, 0.5),
                                lambda x: tf.image.resize_with_crop_or_pad(x, 2, 2)])
def test_geometric_ops_reject_bad_ranks_and_empty_images(fn):
    with pytest.raises(ValueError, match=r"must be at least three-dimensional"):
        fn(np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"must have either 3 or 4 dimensions"):
        fn(np.zeros((1, 1, 3, 4, 1)))
    with pytest.raises(ValueError, match=r"inner 3 dims of 'image.shape' must be > 0"):
        fn(np.zeros((3, 0, 1)))


def test_an_empty_batch_is_allowed():
    assert tf.image.flip_left_right(np.zeros((0, 2, 3, 1))).shape == (0, 2, 3, 1)
    assert tf.image.rot90(np.zeros((0, 2, 3, 1))).shape == (0, 3, 2, 1)


@pytest.mark.parametrize("args, message", [
    ((-1, 0, 1, 1), "offset_height must be >= 0."),
    ((0, -1, 1, 1), "offset_width must be >= 0."),
    ((0, 0, 0, 1), "target_height must be > 0."),
    ((0, 0, 1, 0), "target_width must be > 0."),
    ((1, 0, 2, 1), "height must be >= target \\+ offset."),
    ((0, 2, 1, 2), "width must be >= target \\+ offset."),
])
def test_crop_to_bounding_box_errors(args, message):
    with pytest.raises(ValueError, match=message):
        tf.image.crop_to_bounding_box(HWC, *args)


@pytest.mark.parametrize("args, message", [
    ((-1, 0, 4, 4), "offset_height must be >= 0"),
    ((0, -1, 4, 4), "offset_width must be >= 0"),
    ((3, 0, 4, 4), "height must be <= target - offset"),
    ((0, 2, 4, 4), "width must be <= target - offset"),
])
def test_pad_to_bounding_box_errors(args, message):
    with pytest.raises(ValueError, match=message):
        tf.image.pad_to_bounding_box(HWC, *args)


def test_central_crop_and_resize_with_crop_or_pad_errors():
    for fraction in (0.0, -0.5, 1.5):
        with pytest.raises(ValueError, match=r"central_fraction must be within \(0, 1\]"):
            tf.image.central_crop(HWC, fraction)
    with pytest.raises(ValueError, match="target_width must be > 0."):
        tf.image.resize_with_crop_or_pad(HWC, 2, 0)
    with pytest.raises(ValueError, match="target_height must be > 0."):
        tf.image.resize_with_crop_or_pad(HWC, 0, 2)
    with pytest.raises(TypeError, match="`k` must be a scalar integer"):
        tf.image.rot90(HWC, 1.5)


# ---- geometry: gradients ------------------------------------------------------------

GEOMETRY_GRADIENTS = {
    "flip_left_right": (tf.image.flip_left_right, _r(2, 3, 2)),
    "flip_up_down": (tf.image.flip_up_down, _r(2, 2, 3, 1)),
    "rot90": (lambda x: tf.image.rot90(x, 1) * tf.image.rot90(x, 3), _r(2, 2, 2, 1)),
    "rot90_k2": (lambda x: tf.image.rot90(x, 2) * x, _r(2, 3, 1)),
    "transpose": (lambda x: tf.image.transpose(x) * tf.image.transpose(x), _r(1, 2, 3, 2)),
    "crop_to_bounding_box": (lambda x: tf.image.crop_to_bounding_box(x, 1, 0, 1, 2) ** 2,
                             _r(2, 3, 1)),
    "pad_to_bounding_box": (lambda x: tf.image.pad_to_bounding_box(x * x, 1, 1, 4, 4),
                            _r(1, 2, 3, 1)),
    "central_crop": (lambda x: tf.image.central_crop(x, 0.5) ** 2, _r(4, 4, 1)),
    "resize_with_crop_or_pad": (lambda x: tf.image.resize_with_crop_or_pad(x * x, 2, 5),
                                _r(1, 3, 3, 1)),
    "random_flip_left_right": (lambda x: tf.image.random_flip_left_right(x, seed=1) * x,
                               _r(6, 2, 2, 1)),
    "random_crop": (lambda x: tf.image.random_crop(x, [2, 2, 1], seed=2) ** 2, _r(3, 3, 1)),
}


@pytest.mark.parametrize("name", sorted(GEOMETRY_GRADIENTS))
def test_geometric_gradients(name):
    fn, x = GEOMETRY_GRADIENTS[name]

    def seeded(t):  # the random ops draw the same values on every call of fn
        tf.random.set_seed(0)
        return fn(t)

    gradcheck(seeded, x, order=2)


def test_flip_gradient_of_an_empty_batch_is_an_empty_tensor():
    x = tf.Variable(np.zeros((0, 2, 3, 1)))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.image.flip_left_right(x))
    assert tape.gradient(y, x).shape == (0, 2, 3, 1)


def test_random_flip_gradient_goes_to_the_flipped_positions():
    x = tf.Variable(np.arange(6.0).reshape(1, 1, 6, 1))
    tf.random.set_seed(0)
    flipped = bool(np.round(tf.random.uniform([1]).numpy())[0] == 1)
    weights = tf.constant(np.arange(6.0).reshape(1, 1, 6, 1))
    tf.random.set_seed(0)
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.image.random_flip_left_right(x) * weights)
    expected = np.arange(6.0)[::-1] if flipped else np.arange(6.0)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy().ravel(), expected)


# ---- colour: convert_image_dtype --------------------------------------------------

@pytest.mark.parametrize("values, src, dst, saturate, expected", [
    ([0, 128, 255], np.uint8, np.float32, False, [0.0, 128 / 255, 1.0]),
    ([0.5, 1.0, 0.0], np.float32, np.uint8, False, [127, 255, 0]),       # x * 255.5, truncated
    ([-0.1, 1.2, 0.999], np.float32, np.uint8, True, [0, 255, 255]),
    ([0, 128, 255], np.uint8, np.int16, False, [0, 16384, 32640]),       # x * (32768 // 256)
    ([32767, 256, 127], np.int16, np.uint8, False, [255, 2, 0]),         # x // 128
    ([-1, 127], np.int8, np.uint8, True, [0, 254]),                      # saturate, then * 2
    ([0.25, 0.75], np.float64, np.float16, False, [0.25, 0.75]),
    ([1.0, 0.5], np.float32, np.int32, True, [2147483520, 1073741824]),  # largest float32 below 2**31
])
def test_convert_image_dtype_follows_tf_scale_rules(values, src, dst, saturate, expected):
    out = tf.image.convert_image_dtype(np.array(values, src), dst, saturate=saturate)
    assert out.dtype == tf.as_dtype(dst)
    np.testing.assert_allclose(out.numpy().astype(np.float64), expected, rtol=1e-7)


def test_convert_image_dtype_of_the_same_dtype_is_identity_and_float_casts_have_gradients():
    x = tf.Variable(np.array([0.25, 0.5], np.float64))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.image.convert_image_dtype(x, tf.float32) * 2.0)
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 2.0])
    np.testing.assert_array_equal(tf.image.convert_image_dtype(x, tf.float64).numpy(), x.numpy())


def test_convert_image_dtype_rejects_non_numeric_dtypes():
    with pytest.raises(AttributeError, match="dtype must be either floating point or integer"):
        tf.image.convert_image_dtype(np.zeros(3, np.float32), tf.bool)
    with pytest.raises(AttributeError, match="image dtype must be either floating point"):
        tf.image.convert_image_dtype(np.zeros(3, bool), tf.float32)


# ---- colour: adjustments ------------------------------------------------------------

def test_adjust_brightness_of_uint8_converts_and_saturates():
    x = np.array([[[0, 128, 250]]], np.uint8)
    # (x / 255 + 0.1) * 255.5, truncated, clipped: 0.1 * 255.5 = 25.55; (128/255 + .1) -> 153.
    np.testing.assert_array_equal(tf.image.adjust_brightness(x, 0.1).numpy(), [[[25, 153, 255]]])
    floats = np.array([0.2, 0.9], np.float32)
    out = tf.image.adjust_brightness(floats, 0.3)
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), [0.5, 1.2], rtol=1e-6)   # floats are not clipped


def test_adjust_contrast_scales_around_each_channels_mean():
    x = np.array([[[0.0, 1.0], [2.0, 5.0]], [[4.0, 3.0], [6.0, 7.0]]])   # 2x2, 2 channels
    out = tf.image.adjust_contrast(x, 2.0).numpy()
    # channel 0 mean 3: 0 -> -3, 2 -> 1, 4 -> 5, 6 -> 9; channel 1 mean 4: 1 -> -2, 5 -> 6, ...
    np.testing.assert_allclose(out[..., 0], [[-3, 1], [5, 9]])
    np.testing.assert_allclose(out[..., 1], [[-2, 6], [2, 10]])
    batch = _r(3, 4, 5, 2)
    mean = batch.mean(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(tf.image.adjust_contrast(batch, 0.3).numpy(),
                               (batch - mean) * 0.3 + mean, rtol=1e-12)
    u8 = np.array([[[10], [250]]], np.uint8)
    # mean 130/255; (x - m) * 3 + m clipped to [0, 1) -> 0 and 255.
    np.testing.assert_array_equal(tf.image.adjust_contrast(u8, 3.0).numpy().ravel(), [0, 255])
    with pytest.raises(ValueError, match="must be at least three-dimensional"):
        tf.image.adjust_contrast(np.zeros((2, 2)), 2.0)


def test_adjust_gamma():
    x = np.array([0.25, 0.5, 1.0])
    np.testing.assert_allclose(tf.image.adjust_gamma(x, 2.0, 3.0).numpy(), [0.1875, 0.75, 3.0])
    np.testing.assert_array_equal(tf.image.adjust_gamma(np.array([0, 255], np.uint8), 0.5).numpy(),
                                  [0, 255])
    with pytest.raises(ValueError, match="Gamma should be a non-negative real number"):
        tf.image.adjust_gamma(x, -1.0)


def test_grayscale_conversions():
    rgb = np.array([[[1.0, 0.0, 0.0], [0.2, 0.4, 0.6]]])
    gray = tf.image.rgb_to_grayscale(rgb)
    assert gray.shape == (1, 2, 1)
    np.testing.assert_allclose(gray.numpy().ravel(), [0.2989, 0.2989 * .2 + .587 * .4 + .114 * .6])
    u8 = np.array([[[0, 128, 255]]], np.uint8)
    # 0.5870 * 128/255 + 0.1140 = 0.40865 -> * 255.5 = 104.4 -> 104 (no saturation needed)
    np.testing.assert_array_equal(tf.image.rgb_to_grayscale(u8).numpy(), [[[104]]])
    back = tf.image.grayscale_to_rgb(gray)
    np.testing.assert_array_equal(back.numpy(), np.repeat(gray.numpy(), 3, axis=-1))
    with pytest.raises(ValueError, match="Last dimension of a grayscale image should be size 1"):
        tf.image.grayscale_to_rgb(rgb)
    with pytest.raises(ValueError, match="must be at least two-dimensional"):
        tf.image.grayscale_to_rgb(np.zeros(1))
    with pytest.raises(ValueError, match="last dimension of 'images' must be 3"):
        tf.image.rgb_to_grayscale(np.zeros((2, 2, 4)))


def test_per_image_standardization_matches_tf_docstring():
    image = np.arange(1, 13, dtype=np.int32).reshape(2, 2, 3)
    out = tf.image.per_image_standardization(image)
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy().ravel()[:6],
                               [-1.593255, -1.3035723, -1.0138896, -0.7242068, -0.4345241,
                                -0.14484136], rtol=1e-6)
    # A uniform image: stddev 0 is replaced by 1 / sqrt(N), so the result is 0, not NaN.
    np.testing.assert_array_equal(tf.image.per_image_standardization(np.ones((2, 2, 3))).numpy(),
                                  np.zeros((2, 2, 3)))
    batch = _r(2, 3, 3, 2)
    mean = batch.mean(axis=(1, 2, 3), keepdims=True)
    std = batch.std(axis=(1, 2, 3), keepdims=True)
    np.testing.assert_allclose(tf.image.per_image_standardization(batch).numpy(),
                               (batch - mean) / std, rtol=1e-12)


def test_random_brightness_and_contrast_draw_tf_uniform():
    x = _r(2, 3, 3)
    tf.random.set_seed(2)
    out = tf.image.random_brightness(x, 0.4, seed=9).numpy()
    tf.random.set_seed(2)
    delta = float(tf.random.uniform([], -0.4, 0.4, seed=9).numpy())
    np.testing.assert_allclose(out, x + delta, rtol=1e-12)
    assert -0.4 <= delta < 0.4 and delta != 0
    tf.random.set_seed(2)
    out = tf.image.random_contrast(x, 0.5, 1.5, seed=9).numpy()
    tf.random.set_seed(2)
    factor = float(tf.random.uniform([], 0.5, 1.5, seed=9).numpy())
    np.testing.assert_allclose(out, tf.image.adjust_contrast(x, factor).numpy(), rtol=1e-12)
    with pytest.raises(ValueError, match="upper must be > lower"):
        tf.image.random_contrast(x, 1.0, 1.0)
    with pytest.raises(ValueError, match="lower must be non-negative"):
        tf.image.random_contrast(x, -1.0, 1.0)
    with pytest.raises(ValueError, match="max_delta must be non-negative"):
        tf.image.random_brightness(x, -0.1)


# ---- HSV ---------------------------------------------------------------------------

def test_rgb_to_hsv_matches_colorsys_and_round_trips():
    import colorsys
    rgb = _rng.uniform(size=(2, 4, 5, 3))
    rgb[0, 0, 0] = [0.5, 0.5, 0.5]         # grey: hue 0, saturation 0
    rgb[0, 0, 1] = [0.0, 0.0, 0.0]         # black
    rgb[0, 0, 2] = [0.8, 0.8, 0.2]         # a tie between R and G: R wins, as in TF
    hsv = tf.image.rgb_to_hsv(rgb).numpy()
    expected = np.array([colorsys.rgb_to_hsv(*p) for p in rgb.reshape(-1, 3)]).reshape(rgb.shape)
    np.testing.assert_allclose(hsv, expected, atol=1e-12)
    np.testing.assert_allclose(tf.image.hsv_to_rgb(hsv).numpy(), rgb, atol=1e-12)
    primaries = np.array([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]])
    np.testing.assert_allclose(tf.image.rgb_to_hsv(primaries).numpy(),
                               [[0, 1, 1], [1 / 3, 1, 1], [2 / 3, 1, 1]], atol=1e-12)
    with pytest.raises(TypeError, match="must be a float tensor"):
        tf.image.rgb_to_hsv(np.zeros((1, 3), np.uint8))
    with pytest.raises(ValueError, match="last dimension of 'images' must be 3"):
        tf.image.hsv_to_rgb(np.zeros((2, 2)))


def test_adjust_saturation_and_hue():
    import colorsys
    rgb = _rng.uniform(size=(3, 4, 3))
    hsv = np.array([colorsys.rgb_to_hsv(*p) for p in rgb.reshape(-1, 3)])
    sat = hsv.copy()
    sat[:, 1] = np.clip(sat[:, 1] * 1.7, 0, 1)
    expected = np.array([colorsys.hsv_to_rgb(*p) for p in sat]).reshape(rgb.shape)
    np.testing.assert_allclose(tf.image.adjust_saturation(rgb, 1.7).numpy(), expected, atol=1e-12)
    hue = hsv.copy()
    hue[:, 0] = np.mod(hue[:, 0] - 0.7, 1.0)
    expected = np.array([colorsys.hsv_to_rgb(*p) for p in hue]).reshape(rgb.shape)
    np.testing.assert_allclose(tf.image.adjust_hue(rgb, -0.7).numpy(), expected, atol=1e-12)
    u8 = np.array([[[200, 100, 50]]], np.uint8)
    assert tf.image.adjust_hue(u8, 0.0).dtype == tf.uint8
    np.testing.assert_array_equal(tf.image.adjust_saturation(u8, 0.0).numpy(), [[[200] * 3]])
    with pytest.raises(ValueError, match=r"delta must be in the interval \[-1, 1\]"):
        tf.image.adjust_hue(rgb, 1.5)
    with pytest.raises(ValueError, match="max_delta must be <= 0.5"):
        tf.image.random_hue(rgb, 0.6)
    with pytest.raises(ValueError, match="upper must be > lower"):
        tf.image.random_saturation(rgb, 2.0, 1.0)
    tf.random.set_seed(4)
    out = tf.image.random_hue(rgb, 0.2, seed=1).numpy()
    tf.random.set_seed(4)
    delta = float(tf.random.uniform([], -0.2, 0.2, seed=1).numpy())
    np.testing.assert_allclose(out, tf.image.adjust_hue(rgb, delta).numpy(), atol=1e-12)


# ---- filters -----------------------------------------------------------------------

def test_total_variation_by_hand():
    image = np.array([[1.0, 3.0], [4.0, 0.0]])[..., None]
    # down: |4 - 1| + |0 - 3| = 6; across: |3 - 1| + |0 - 4| = 6.
    out = tf.image.total_variation(image)
    assert out.shape == () and float(out.numpy()) == 12.0
    batch = np.stack([image, 2 * image])
    np.testing.assert_array_equal(tf.image.total_variation(batch).numpy(), [12.0, 24.0])
    with pytest.raises(ValueError, match="'images' must be either 3 or 4-dimensional."):
        tf.image.total_variation(np.zeros((2, 2)))


def test_image_gradients_by_hand():
    image = np.arange(1.0, 10.0).reshape(1, 3, 3, 1)   # TF's docstring example
    dy, dx = tf.image.image_gradients(image)
    np.testing.assert_array_equal(dy.numpy()[0, ..., 0], [[3, 3, 3], [3, 3, 3], [0, 0, 0]])
    np.testing.assert_array_equal(dx.numpy()[0, ..., 0], [[1, 1, 0], [1, 1, 0], [1, 1, 0]])
    with pytest.raises(ValueError, match="image_gradients expects a 4D tensor"):
        tf.image.image_gradients(np.zeros((3, 3, 1)))


def _sobel_reference(image):
    padded = np.pad(image, [(0, 0), (1, 1), (1, 1), (0, 0)], mode="reflect")
    kernels = [np.array([[-1, -2, -1], [0, 0, 0], [1, 2, 1]]),
               np.array([[-1, 0, 1], [-2, 0, 2], [-1, 0, 1]])]
    n, h, w, c = image.shape
    out = np.zeros((n, h, w, c, 2))
    for k, kernel in enumerate(kernels):
        for i in range(3):
            for j in range(3):
                out[..., k] += kernel[i, j] * padded[:, i:i + h, j:j + w]
    return out


def test_sobel_edges():
    ramp = np.tile(np.arange(4.0), (4, 1)).reshape(1, 4, 4, 1)   # increases across
    out = tf.image.sobel_edges(ramp).numpy()
    assert out.shape == (1, 4, 4, 1, 2)
    np.testing.assert_array_equal(out[..., 0], np.zeros((1, 4, 4, 1)))
    # interior columns: (2 - 0) * (1 + 2 + 1) = 8; REFLECT pads 0 1 2 3 as 1 0 1 2 3 2, so
    # both edge columns see equal neighbours: 0.
    np.testing.assert_array_equal(out[0, :, :, 0, 1], [[0, 8, 8, 0]] * 4)
    image = _r(2, 5, 4, 3)
    np.testing.assert_allclose(tf.image.sobel_edges(image).numpy(), _sobel_reference(image),
                               rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="sobel_edges expects a 4D tensor"):
        tf.image.sobel_edges(np.zeros((3, 3, 1)))


# ---- colour and filters: gradients ----------------------------------------------------

def _rgb(*shape):
    return _rng.uniform(0.05, 0.95, size=shape)


COLOR_GRADIENTS = {
    "adjust_brightness": (lambda x: tf.image.adjust_brightness(x * x, 0.2), _r(2, 2, 1)),
    "adjust_contrast": (lambda x: tf.image.adjust_contrast(x, 1.7) ** 2, _r(1, 2, 3, 2)),
    "adjust_gamma": (lambda x: tf.image.adjust_gamma(x, 1.5, 2.0), _rgb(2, 2, 1)),
    "rgb_to_grayscale": (lambda x: tf.image.rgb_to_grayscale(x) ** 2, _r(2, 2, 3)),
    "grayscale_to_rgb": (lambda x: tf.image.grayscale_to_rgb(x * x), _r(2, 2, 1)),
    "convert_image_dtype": (lambda x: tf.image.convert_image_dtype(x * x, tf.float64),
                            _r(2, 2, 1)),
    "per_image_standardization": (tf.image.per_image_standardization, _r(2, 2, 2, 1)),
    "rgb_to_hsv": (tf.image.rgb_to_hsv, _rgb(2, 2, 3)),
    "hsv_to_rgb": (tf.image.hsv_to_rgb, np.array([[0.1, 0.3, 0.6], [0.45, 0.8, 0.5],
                                                  [0.9, 0.2, 0.7]])),
    "adjust_saturation": (lambda x: tf.image.adjust_saturation(x, 0.6), _rgb(2, 2, 3)),
    "adjust_hue": (lambda x: tf.image.adjust_hue(x, 0.13), _rgb(2, 2, 3)),
    "total_variation": (tf.image.total_variation, _r(2, 3, 3, 1)),
    "image_gradients": (lambda x: tf.concat(tf.image.image_gradients(x * x), axis=-1),
                        _r(1, 3, 2, 2)),
    "sobel_edges": (lambda x: tf.image.sobel_edges(x * x), _r(1, 3, 4, 2)),
    "random_brightness": (lambda x: tf.image.random_brightness(x * x, 0.5, seed=3),
                          _r(2, 2, 1)),
}


@pytest.mark.parametrize("name", sorted(COLOR_GRADIENTS))
def test_color_and_filter_gradients(name):
    fn, x = COLOR_GRADIENTS[name]

    def seeded(t):
        tf.random.set_seed(0)
        return fn(t)

    gradcheck(seeded, x, order=2)


def test_empty_batches_pass_through_the_colour_ops():
    empty = np.zeros((0, 2, 2, 3))
    for fn in (tf.image.rgb_to_hsv, tf.image.hsv_to_rgb, tf.image.rgb_to_grayscale,
               lambda x: tf.image.adjust_contrast(x, 2.0), tf.image.total_variation,
               tf.image.per_image_standardization, tf.image.sobel_edges):
        out = fn(empty)
        assert out.shape[0] == 0


def test_sobel_edges_needs_two_rows_and_columns_to_reflect():
    with pytest.raises(InvalidArgumentError, match="height and width of at least 2"):
        tf.image.sobel_edges(np.zeros((1, 1, 4, 1)))


# ---- resize --------------------------------------------------------------------------

SQUARE = np.array([[1.0, 2.0], [3.0, 4.0]])[None, :, :, None]     # 1x2x2x1


def _keys(x):  # Keys cubic, a = -0.5, for |x| < 2
    x = abs(x)
    return (1.5 * x - 2.5) * x * x + 1 if x < 1 else ((-0.5 * x + 2.5) * x - 4) * x + 2


def test_resize_bilinear_2x2_to_4x4_by_hand():
    # Half-pixel centres: output i samples input (i + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25,
    # clamped at the edges: a row [1, 2] becomes [1, 1.25, 1.75, 2].
    out = tf.image.resize(SQUARE, [4, 4])
    assert out.shape == (1, 4, 4, 1) and out.dtype == tf.float64
    row = np.array([1.0, 1.25, 1.75, 2.0])
    np.testing.assert_allclose(out.numpy()[0, ..., 0], np.stack([row, row + 0.5, row + 1.5,
                                                                 row + 2.0]), rtol=1e-7)
    # Upsampling is the same with antialias (the kernel widens only when downsampling).
    np.testing.assert_allclose(tf.image.resize(SQUARE, [4, 4], antialias=True).numpy(),
                               out.numpy(), rtol=1e-7)


def test_resize_nearest_uses_floor_of_half_pixel_centres_and_keeps_dtype():
    image = np.arange(1, 5, dtype=np.uint8).reshape(2, 2, 1)
    out = tf.image.resize(image, [4, 3], method="nearest")
    assert out.dtype == tf.uint8
    # rows floor((i + 0.5) * 0.5) = 0 0 1 1, columns floor((j + 0.5) * 2 / 3) = 0 1 1.
    np.testing.assert_array_equal(out.numpy()[..., 0], [[1, 2, 2], [1, 2, 2], [3, 4, 4],
                                                        [3, 4, 4]])


def test_resize_bicubic_by_hand():
    # Output 0 samples -0.25: taps at -2, -1 (outside, dropped), 0 (distance 0.25), 1 (1.25),
    # renormalised; Keys a = -0.5, as TF 2.
    w0, w1 = _keys(0.25), _keys(1.25)
    w0, w1 = w0 / (w0 + w1), w1 / (w0 + w1)
    out = tf.image.resize(np.array([1.0, 2.0]).reshape(1, 2, 1), [1, 4], method="bicubic")
    assert out.numpy()[0, 0, 0] == pytest.approx(w0 * 1 + w1 * 2, rel=1e-7)
    # Output 1 samples 0.25: taps at -1 (dropped), 0, 1, 2 (dropped).
    a, b = _keys(0.25), _keys(0.75)
    assert out.numpy()[0, 1, 0] == pytest.approx((a * 1 + b * 2) / (a + b), rel=1e-7)
    np.testing.assert_allclose(out.numpy()[0, :, 0], 3 - out.numpy()[0, ::-1, 0], rtol=1e-7)


def test_resize_area_averages_the_covered_cells():
    image = np.arange(16.0).reshape(4, 4, 1)
    np.testing.assert_allclose(tf.image.resize(image, [2, 2], "area").numpy()[..., 0],
                               [[2.5, 4.5], [10.5, 12.5]])
    row = np.array([3.0, 6.0, 9.0]).reshape(1, 3, 1)
    # 3 -> 2: each output cell covers 1.5 input cells: (3 + 0.5 * 6) / 1.5, (0.5 * 6 + 9) / 1.5.
    np.testing.assert_allclose(tf.image.resize(row, [1, 2], "area").numpy().ravel(), [4.0, 8.0])


def test_resize_antialias_widens_the_triangle_when_downsampling():
    image = np.arange(16.0).reshape(4, 4, 1)
    # 4 -> 2: output 0 samples 1.0 with a triangle of radius 2: inputs 0, 1, 2 weigh
    # 0.75, 0.75, 0.25 (normalised by 1.75): 1D value (0.75 + 0.5) / 1.75 = 5 / 7.
    one_d = 5 / 7
    out = tf.image.resize(image, [2, 2], antialias=True).numpy()[..., 0]
    np.testing.assert_allclose(out[0, 0], 4 * one_d + one_d, rtol=1e-7)
    np.testing.assert_allclose(out, 15 - out[::-1, ::-1], rtol=1e-7)
    # Without antialias it samples between the two middle cells of each pair.
    np.testing.assert_allclose(tf.image.resize(image, [2, 2]).numpy()[..., 0],
                               [[2.5, 4.5], [10.5, 12.5]], rtol=1e-7)


@pytest.mark.parametrize("method", ["bilinear", "nearest", "bicubic", "area", "lanczos3",
                                    "lanczos5", "gaussian", "mitchellcubic"])
def test_resize_to_the_same_size_is_the_identity_and_constants_stay_constant(method):
    image = _r(2, 5, 4, 3)
    if method not in ("gaussian", "mitchellcubic"):   # these two smooth: 8/9 at 0 for Mitchell
        np.testing.assert_allclose(tf.image.resize(image, [5, 4], method).numpy(), image,
                                   atol=1e-6)
    constant = np.full((1, 5, 7, 2), 0.3)
    for size in ([3, 2], [9, 11]):
        for antialias in (False, True):
            out = tf.image.resize(constant, size, method, antialias=antialias).numpy()
            assert out.shape == (1, *size, 2)
            np.testing.assert_allclose(out, 0.3, rtol=1e-6)


def test_resize_lanczos3_matches_the_kernel_formula():
    row = np.array([0.0, 1.0, 4.0, 9.0, 16.0]).reshape(1, 5, 1)
    out = tf.image.resize(row, [1, 3], "lanczos3", antialias=False).numpy().ravel()
    # 5 -> 3: output j samples (j + 0.5) * 5 / 3 in pixel units, taps within radius 3.
    inv = 5 / 3

    def lanczos(x):
        x = abs(x)
        return 1.0 if x <= 1e-3 else (0.0 if x > 3 else 3 * np.sin(np.pi * x) * np.sin(np.pi * x / 3)
                                      / (np.pi ** 2 * x * x))

    for j in range(3):
        s = (j + 0.5) * inv
        taps = [(k, lanczos(k + 0.5 - s)) for k in range(5)]
        total = sum(w for _, w in taps)
        assert out[j] == pytest.approx(sum(w * row.ravel()[k] for k, w in taps) / total, rel=1e-5)


def test_resize_preserve_aspect_ratio_and_dtypes():
    image = np.zeros((10, 20, 3), np.uint8)
    out = tf.image.resize(image, [5, 5], preserve_aspect_ratio=True)
    assert out.shape == (2, 5, 3) and out.dtype == tf.float32   # 0.25 * 10 = 2.5 rounds to 2
    assert tf.image.resize(image, [30, 30], preserve_aspect_ratio=True).shape == (15, 30, 3)
    assert tf.image.resize(np.zeros((2, 2, 1), np.float16), [3, 3]).dtype == tf.float32
    u8 = np.array([[0, 255]], np.uint8).reshape(1, 2, 1)
    np.testing.assert_allclose(tf.image.resize(u8, [1, 4]).numpy().ravel(),
                               [0, 63.75, 191.25, 255])  # values, not rescaled


def test_resize_errors():
    with pytest.raises(ValueError, match="'images' must have either 3 or 4 dimensions."):
        tf.image.resize(np.zeros((2, 2)), [3, 3])
    with pytest.raises(ValueError, match="must be a 1-D Tensor of 2 elements"):
        tf.image.resize(SQUARE, [3, 3, 3])
    with pytest.raises(ValueError, match="'size' must be a 1-D int32 Tensor"):
        tf.image.resize(SQUARE, [1.5, 2.0])
    with pytest.raises(ValueError, match="Resize method is not implemented: cubic"):
        tf.image.resize(SQUARE, [3, 3], method="cubic")
    with pytest.raises(InvalidArgumentError, match="output dimensions must be positive"):
        tf.image.resize(SQUARE, [0, 3])


def test_resize_with_pad():
    image = np.ones((10, 20, 1))
    out = tf.image.resize_with_pad(image, 8, 8).numpy()[..., 0]
    # ratio max(20 / 8, 10 / 8) = 2.5 -> 4x8, padded by floor((8 - 4) / 2) = 2 on top.
    expected = np.zeros((8, 8))
    expected[2:6] = 1
    np.testing.assert_allclose(out, expected)
    batch = tf.image.resize_with_pad(np.ones((2, 3, 3, 1), np.uint8), 4, 6, method="nearest")
    assert batch.shape == (2, 4, 6, 1) and batch.dtype == tf.uint8
    np.testing.assert_array_equal(batch.numpy()[0, ..., 0].sum(axis=0), [0, 4, 4, 4, 4, 0])
    with pytest.raises(ValueError, match="target_height must be > 0."):
        tf.image.resize_with_pad(image, 0, 8)
    with pytest.raises(ValueError, match="must have either 3 or 4 dimensions"):
        tf.image.resize_with_pad(np.ones((3, 3)), 4, 4)


RESIZE_GRADIENTS = {
    "bilinear_up": (lambda x: tf.image.resize(x * x, [5, 3]), _r(1, 2, 2, 2)),
    "bilinear_antialias_down": (lambda x: tf.image.resize(x * x, [2, 2], antialias=True),
                                _r(5, 4, 1)),
    "nearest": (lambda x: tf.image.resize(x * x, [3, 5], "nearest"), _r(2, 3, 1)),
    "bicubic": (lambda x: tf.image.resize(x * x, [4, 3], "bicubic"), _r(3, 2, 1)),
    "area": (lambda x: tf.image.resize(x * x, [2, 3], "area"), _r(1, 3, 4, 1)),
    "lanczos3": (lambda x: tf.image.resize(x * x, [2, 3], "lanczos3", antialias=True),
                 _r(4, 5, 1)),
    "resize_with_pad": (lambda x: tf.image.resize_with_pad(x * x, 4, 4), _r(2, 3, 1)),
}


@pytest.mark.parametrize("name", sorted(RESIZE_GRADIENTS))
def test_resize_gradients(name):
    fn, x = RESIZE_GRADIENTS[name]
    gradcheck(fn, x, order=2)


def test_resize_of_an_empty_batch():
    assert tf.image.resize(np.zeros((0, 2, 2, 1)), [3, 3]).shape == (0, 3, 3, 1)
    x = tf.Variable(np.zeros((0, 2, 2, 1)))
    with tf.GradientTape() as tape:
        y = tf.reduce_sum(tf.image.resize(x, [3, 3], "bicubic"))
    assert tape.gradient(y, x).shape == (0, 2, 2, 1)


# ---- extract_patches -------------------------------------------------------------------

def test_extract_patches_tf_docstring_example():
    images = np.arange(1, 101, dtype=np.float32).reshape(1, 10, 10, 1)
    out = tf.image.extract_patches(images, [1, 3, 3, 1], [1, 5, 5, 1], [1, 1, 1, 1], "VALID")
    assert out.shape == (1, 2, 2, 9)
    np.testing.assert_array_equal(out.numpy()[0, 0], [[1, 2, 3, 11, 12, 13, 21, 22, 23],
                                                      [6, 7, 8, 16, 17, 18, 26, 27, 28]])
    np.testing.assert_array_equal(out.numpy()[0, 1, 1], [56, 57, 58, 66, 67, 68, 76, 77, 78])
    # rates 2 dilate the 3x3 patch to a 5x5 extent: its taps are every other pixel.
    out = tf.image.extract_patches(images, [1, 3, 3, 1], [1, 5, 5, 1], [1, 2, 2, 1], "VALID")
    np.testing.assert_array_equal(out.numpy()[0, 0, 0], [1, 3, 5, 21, 23, 25, 41, 43, 45])


def test_extract_patches_same_padding_and_channel_order():
    images = np.arange(2 * 3 * 3 * 2, dtype=np.float64).reshape(2, 3, 3, 2)
    out = tf.image.extract_patches(images, [1, 2, 2, 1], [1, 2, 2, 1], [1, 1, 1, 1], "SAME")
    # out = ceil(3 / 2) = 2; padding (1 * 2 + 2 - 3) = 1, all after: the last patch row and
    # column see zeros.
    assert out.shape == (2, 2, 2, 8)
    np.testing.assert_array_equal(out.numpy()[0, 0, 0], np.concatenate(
        [images[0, 0, 0], images[0, 0, 1], images[0, 1, 0], images[0, 1, 1]]))
    np.testing.assert_array_equal(out.numpy()[1, 1, 1], np.concatenate(
        [images[1, 2, 2], [0, 0], [0, 0], [0, 0]]))


def test_extract_patches_errors():
    images = np.zeros((1, 4, 4, 1))
    with pytest.raises(ValueError, match="must be 4-D"):
        tf.image.extract_patches(images[0], [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(InvalidArgumentError, match="ksizes field must specify 4 dimensions"):
        tf.image.extract_patches(images, [2, 2], [1, 1, 1, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(InvalidArgumentError, match="Only support strides across space"):
        tf.image.extract_patches(images, [1, 2, 2, 1], [2, 1, 1, 1], [1, 1, 1, 1], "VALID")
    with pytest.raises(ValueError, match="padding must be 'VALID' or 'SAME'"):
        tf.image.extract_patches(images, [1, 2, 2, 1], [1, 1, 1, 1], [1, 1, 1, 1], "FULL")
    # A patch larger than the image: no VALID positions, an empty result as in TF.
    assert tf.image.extract_patches(images, [1, 5, 5, 1], [1, 1, 1, 1], [1, 1, 1, 1],
                                    "VALID").shape == (1, 0, 0, 25)


@pytest.mark.parametrize("padding", ["VALID", "SAME"])
def test_extract_patches_gradients(padding):
    gradcheck(lambda x: tf.image.extract_patches(x * x, [1, 2, 2, 1], [1, 2, 1, 1],
                                                 [1, 1, 2, 1], padding), _r(1, 4, 4, 2), order=2)
