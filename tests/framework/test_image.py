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
