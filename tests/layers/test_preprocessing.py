"""Keras's preprocessing layers: values from Keras's docstrings, the affine
layers against a line-by-line port of TF's ImageProjectiveTransformV3 kernel
(the op Keras's TF backend calls), randomness active in training only and
repeatable with a seed, and every layer through check_layer and Dataset.map."""

import math
import warnings

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.layers.preprocessing_affine import affine_transform, rotation_matrices
from tapeflow.layers.preprocessing_hashing import fingerprint64
from tapeflow.testing import gradcheck
from tapeflow.testing.layers import check_layer

layers = tf.keras.layers
ADAPT = np.array([[0., 7., 4.], [2., 9., 6.], [0., 7., 4.], [2., 9., 6.]], np.float32)


# -- Normalization ------------------------------------------------------------------------------


def test_normalization_keras_docstring_examples():
    layer = layers.Normalization(axis=None)
    layer.adapt(np.array([1., 2., 3., 4., 5.], np.float32))
    np.testing.assert_allclose(layer(np.array([1., 2., 3.], np.float32)).numpy(),
                               [-1.4142135, -0.70710677, 0.], rtol=1e-6)
    layer = layers.Normalization(axis=-1)
    layer.adapt(ADAPT)
    np.testing.assert_allclose(layer(np.array([[0., 7., 4.]], np.float32)).numpy(),
                               [[-1., -1., -1.]])
    layer = layers.Normalization(mean=3., variance=2.)
    np.testing.assert_allclose(layer(np.array([[1.], [2.], [3.]], np.float32)).numpy(),
                               [[-1.4142135], [-0.70710677], [0.]], rtol=1e-6)
    layer = layers.Normalization(axis=-1, invert=True)
    layer.adapt(ADAPT)
    np.testing.assert_allclose(layer(np.array([[1., 2., 3.]], np.float32)).numpy(),
                               [[2., 10., 8.]])


def test_normalization_weights_as_keras():
    layer = layers.Normalization()
    layer.adapt(ADAPT)
    assert [w.name.split(":")[0] for w in layer.weights] == ["mean", "variance", "count"]
    assert not layer.trainable_weights and layer.count.numpy() == 4
    np.testing.assert_allclose(layer.adapt_mean.numpy(), [1., 8., 5.])
    np.testing.assert_allclose(layer.adapt_variance.numpy(), [1., 1., 1.])
    assert layers.Normalization(mean=1.0, variance=1.0).weights == []


def test_normalization_adapts_from_batches_and_datasets_like_arrays():
    data = np.random.default_rng(0).normal(3.0, 2.0, (50, 4)).astype(np.float32)
    reference = layers.Normalization()
    reference.adapt(data)
    for source in (tf.data.Dataset.from_tensor_slices(data).batch(7),
                   tf.data.Dataset.from_tensor_slices((data, np.zeros(50))).batch(16),
                   [data[:20], data[20:]],
                   tf.data.Dataset.from_tensor_slices(data)):  # unbatched: batched by 128
        layer = layers.Normalization()
        layer.adapt(source)
        np.testing.assert_allclose(layer.adapt_mean.numpy(), reference.adapt_mean.numpy(),
                                   rtol=1e-5)
        np.testing.assert_allclose(layer.adapt_variance.numpy(),
                                   reference.adapt_variance.numpy(), rtol=1e-5)
    np.testing.assert_allclose(reference.adapt_mean.numpy(), data.mean(0), rtol=1e-5)
    np.testing.assert_allclose(reference.adapt_variance.numpy(), data.var(0), rtol=1e-5)


def test_normalization_axes():
    images = np.random.default_rng(1).random((6, 2, 2, 3)).astype(np.float32)
    layer = layers.Normalization(axis=(1, 3))
    layer.adapt(images)
    assert layer.adapt_mean.shape == (2, 3)
    np.testing.assert_allclose(layer.adapt_mean.numpy(), images.mean(axis=(0, 2)), rtol=1e-5)
    out = layer(images).numpy()
    np.testing.assert_allclose(out.mean(axis=(0, 2)), 0, atol=1e-5)


def test_normalization_errors():
    with pytest.raises(ValueError, match="both `mean` and `variance`"):
        layers.Normalization(mean=1.0)
    with pytest.raises(ValueError, match="same shape"):
        layers.Normalization(mean=[1.0, 2.0], variance=1.0)
    layer = layers.Normalization()
    layer.adapt(ADAPT)
    with pytest.raises(ValueError, match=r"incompatible shape, data.shape=\(2, 4\)"):
        layer.adapt(np.zeros((2, 4)))
    with pytest.raises(ValueError, match=r"`axis` values must be in the range"):
        layers.Normalization(axis=3)(np.zeros((2, 3)))
    with pytest.raises(ValueError, match="empty iterable"):
        layers.Normalization().adapt([])


def test_normalization_in_a_model_and_through_check_layer():
    layer = layers.Normalization(mean=[1.0, 2.0, 3.0], variance=[4.0, 1.0, 0.25])
    out = check_layer(layer, input_data=np.array([[3., 2., 4.]], np.float32),
                      expected_output=np.array([[1., 0., 2.]], np.float32))
    assert out.dtype == tf.float32
    norm = layers.Normalization()
    norm.adapt(ADAPT)
    model = tf.keras.Sequential([tf.keras.Input((3,)), norm, layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(ADAPT, np.ones((4, 1)), epochs=1, verbose=0)
    again = layers.deserialize(layers.serialize(norm))
    assert again.axis == (-1,) and again.invert is False


# -- Rescaling, CategoryEncoding, Discretization ------------------------------------------------


def test_rescaling():
    out = layers.Rescaling(1.0 / 127.5, offset=-1)(np.array([0, 255], np.uint8))
    assert out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), [-1.0, 1.0])
    check_layer(layers.Rescaling(2.0, 0.5), input_shape=(2, 3),
                expected_output_shape=(2, 3))


def test_category_encoding_keras_docstring_examples():
    one_hot = layers.CategoryEncoding(num_tokens=4, output_mode="one_hot")
    np.testing.assert_array_equal(one_hot([3, 2, 0, 1]).numpy(), np.eye(4)[[3, 2, 0, 1]])
    assert one_hot(np.array([[1], [2]])).shape == (2, 4)
    multi = layers.CategoryEncoding(num_tokens=4, output_mode="multi_hot")
    np.testing.assert_array_equal(multi([[0, 1], [0, 0], [1, 2], [3, 1]]).numpy(),
                                  [[1, 1, 0, 0], [1, 0, 0, 0], [0, 1, 1, 0], [0, 1, 0, 1]])
    count = layers.CategoryEncoding(num_tokens=4, output_mode="count")
    weights = np.array([[.1, .2], [.1, .1], [.2, .3], [.4, .2]])
    np.testing.assert_allclose(count([[0, 1], [0, 0], [1, 2], [3, 1]],
                                     count_weights=weights).numpy(),
                               [[.1, .2, 0, 0], [.2, 0, 0, 0], [0, .2, .3, 0], [0, .2, 0, .4]],
                               rtol=1e-6)
    assert count([[0, 0, 2]]).numpy().tolist() == [[2, 0, 1, 0]]


def test_category_encoding_errors():
    with pytest.raises(ValueError, match="num_tokens must be set"):
        layers.CategoryEncoding()
    with pytest.raises(ValueError, match="output_mode"):
        layers.CategoryEncoding(3, output_mode="tf_idf")
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_tokens=3"):
        layers.CategoryEncoding(3)([[0, 3]])
    with pytest.raises(ValueError, match="count_weights"):
        layers.CategoryEncoding(3, output_mode="one_hot")([0], count_weights=[1.0])


def test_discretization_keras_docstring_examples():
    data = np.array([[-1.5, 1.0, 3.4, .5], [0.0, 3.0, 1.3, 0.0]])
    fixed = layers.Discretization(bin_boundaries=[0., 1., 2.])
    assert fixed(data).numpy().tolist() == [[0, 2, 3, 1], [1, 3, 2, 1]]
    assert fixed(data).dtype == tf.int64
    learned = layers.Discretization(num_bins=4, epsilon=0.01)
    learned.adapt(data)
    assert learned(data).numpy().tolist() == [[0, 2, 3, 2], [1, 3, 3, 1]]
    again = layers.Discretization.from_config(learned.get_config())
    assert again(data).numpy().tolist() == [[0, 2, 3, 2], [1, 3, 3, 1]]
    hot = layers.Discretization(bin_boundaries=[0.0], output_mode="one_hot")
    np.testing.assert_array_equal(hot(np.array([-1.0, 2.0])).numpy(), [[1, 0], [0, 1]])
    with pytest.raises(ValueError, match="adapt"):
        layers.Discretization()(data)


# -- the affine layers against TF's kernel ------------------------------------------------------


def _map_reference(coord, length, mode):
    """TF's MapCoordinate<mode>, one coordinate at a time as the C++ does it."""
    if mode == "constant":
        return coord
    if mode == "nearest":
        return min(max(coord, 0.0), length - 1.0)
    if length <= 1:
        return 0.0
    if mode == "reflect":
        if coord < 0:
            period = 2 * length
            coord = period * int(-coord / period) + coord
            coord = coord + period if coord < -length else -coord - 1
        elif coord > length - 1:
            period = 2 * length
            coord -= period * int(coord / period)
            if coord >= length:
                coord = period - coord - 1
    else:  # wrap
        if coord < 0:
            coord += length * (int(-coord / (length - 1)) + 1)
        elif coord > length - 1:
            coord -= length * int(coord / (length - 1))
    return min(max(coord, 0.0), length - 1.0)


def _projective_reference(images, transform, interpolation, mode, fill):
    """ImageProjectiveTransformV3 for one transform, pixel by pixel."""
    batch, height, width, channels = images.shape
    out = np.zeros_like(images, dtype=np.float64)

    def read(b, y, x, c):
        return images[b, y, x, c] if 0 <= y < height and 0 <= x < width else fill

    a0, a1, a2, b0, b1, b2, c0, c1 = np.float32(transform)
    for b in range(batch):
        for oy in range(height):
            for ox in range(width):
                k = c0 * ox + c1 * oy + 1
                for c in range(channels):
                    if k == 0:
                        out[b, oy, ox, c] = fill
                        continue
                    x = _map_reference(float((a0 * ox + a1 * oy + a2) / k), width, mode)
                    y = _map_reference(float((b0 * ox + b1 * oy + b2) / k), height, mode)
                    if interpolation == "nearest":
                        def half_away(v):
                            return int(math.copysign(math.floor(abs(v) + 0.5), v))
                        out[b, oy, ox, c] = read(b, half_away(y), half_away(x), c)
                        continue
                    y0, x0 = math.floor(y), math.floor(x)
                    top = (x0 + 1 - x) * read(b, y0, x0, c) + (x - x0) * read(b, y0, x0 + 1, c)
                    bottom = ((x0 + 1 - x) * read(b, y0 + 1, x0, c)
                              + (x - x0) * read(b, y0 + 1, x0 + 1, c))
                    out[b, oy, ox, c] = (y0 + 1 - y) * top + (y - y0) * bottom
    return out


@pytest.mark.parametrize("mode", ["reflect", "wrap", "nearest", "constant"])
@pytest.mark.parametrize("interpolation", ["nearest", "bilinear"])
def test_affine_transform_matches_tf_kernel(mode, interpolation):
    rng = np.random.default_rng(3)
    images = rng.random((2, 5, 7, 2)).astype(np.float32)
    transforms = [rotation_matrices([37.0], 5, 7)[0],
                  [1.3, 0.2, -2.5, -0.4, 0.8, 3.1, 0.0, 0.0],
                  [0.5, 0.0, 8.2, 0.0, 2.0, -9.7, 0.0, 0.0],
                  [1.0, 0.1, 0.5, 0.2, 1.0, 0.5, 0.05, -0.02]]
    for transform in transforms:
        expected = _projective_reference(images, transform, interpolation, mode, 0.5)
        got = affine_transform(images, transform, interpolation, mode, fill_value=0.5)
        np.testing.assert_allclose(got.numpy(), expected, rtol=1e-5, atol=1e-5)


def test_affine_transform_on_transposed_and_sliced_images_and_its_gradient():
    base = np.random.default_rng(4).random((6, 3, 8, 2)).astype(np.float32)
    view = base.transpose(0, 2, 1, 3)[::2]  # (3, 8, 3, 2), not contiguous
    transform = [1.1, -0.3, 0.4, 0.25, 0.9, -0.6, 0.0, 0.0]
    np.testing.assert_allclose(affine_transform(view, transform, "bilinear", "reflect").numpy(),
                               _projective_reference(view, transform, "bilinear", "reflect", 0),
                               rtol=1e-5, atol=1e-5)
    for mode in ("reflect", "constant"):
        gradcheck(lambda x: affine_transform(x, transform, "bilinear", mode, fill_value=0.3),
                  np.random.default_rng(5).random((2, 3, 4, 1)), order=2)
    gradcheck(lambda x: affine_transform(x, transform, "bilinear", "wrap"),
              np.zeros((1, 2, 3, 0)), order=1)  # no channels


def test_affine_layers_trace_and_draw_anew_at_each_call():
    """The sampling plan is ops (ops/image.py): a traced step replays it on each
    call's newly drawn transforms, without running eagerly (it warned and ran
    eagerly when the plan was NumPy on the traced transforms)."""
    images = np.random.default_rng(6).random((3, 6, 5, 2)).astype(np.float32)
    for layer in (layers.RandomRotation(0.3, seed=1), layers.RandomZoom(0.4, seed=2),
                  layers.RandomTranslation(0.3, 0.3, seed=3)):
        step = tf.function(lambda x, layer=layer: layer(x, training=True))
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # a fallback to eager warns
            outputs = [step(images).numpy() for _ in range(3)]
        assert step.experimental_get_tracing_count() == 1
        assert not np.array_equal(outputs[1], outputs[2]), layer.name  # new transforms
        assert outputs[2].shape == images.shape


def test_affine_transform_makes_its_sampling_plan_once(monkeypatch):
    """projective_taps and projective_weights share one plan of the same transforms."""
    from tapeflow.ops import image
    made = []
    real = image._make_plan
    monkeypatch.setattr(image, "_make_plan", lambda *a: made.append(1) or real(*a))
    images = np.random.default_rng(8).random((2, 4, 5, 1)).astype(np.float32)
    transforms = rotation_matrices([10.0, -20.0], 4, 5)
    first = affine_transform(images, transforms).numpy()
    assert len(made) == 1
    np.testing.assert_array_equal(affine_transform(images, transforms * 1.0).numpy(), first)
    assert len(made) == 1  # the same transforms: the plan kept
    affine_transform(images, rotation_matrices([11.0, -20.0], 4, 5))
    assert len(made) == 2  # new transforms: a new plan


def test_affine_transform_names_transforms_of_a_wrong_shape():
    images = np.zeros((2, 3, 3, 1), np.float32)
    with pytest.raises(ValueError, match=r"transforms of shape \(3, 8\) for a batch of 2"):
        affine_transform(images, np.zeros((3, 8)))
    with pytest.raises(ValueError, match=r"transforms of shape \(7,\) for a batch of 2"):
        affine_transform(images, np.zeros(7))
    one = affine_transform(images + 1, np.eye(3).ravel()[:8])  # one transform for all
    np.testing.assert_array_equal(one.numpy(), images + 1)


def test_rotation_by_a_quarter_turn_is_rot90():
    images = np.arange(2 * 4 * 4, dtype=np.float32).reshape(2, 4, 4, 1)
    out = layers.RandomRotation((0.25, 0.25))(images).numpy()
    np.testing.assert_allclose(out, np.rot90(images, k=1, axes=(1, 2)), atol=1e-4)
    # a negative factor turns clockwise
    out = layers.RandomRotation((-0.25, -0.25))(images).numpy()
    np.testing.assert_allclose(out, np.rot90(images, k=-1, axes=(1, 2)), atol=1e-4)


def test_translation_and_zoom_by_hand():
    image = np.arange(9, dtype=np.float32).reshape(1, 3, 3, 1)
    shift = layers.RandomTranslation((1 / 3, 1 / 3), (0, 0), fill_mode="constant",
                                     interpolation="nearest")
    np.testing.assert_array_equal(shift(image)[0, :, :, 0].numpy(),
                                  [[0, 0, 0], [0, 1, 2], [3, 4, 5]])
    reflect = layers.RandomTranslation((0, 0), (-1 / 3, -1 / 3), interpolation="nearest")
    np.testing.assert_array_equal(reflect(image)[0, :, :, 0].numpy(),
                                  [[1, 2, 2], [4, 5, 5], [7, 8, 8]])
    grid = np.arange(16, dtype=np.float32).reshape(1, 4, 4, 1)
    zoom_in = layers.RandomZoom((-0.5, -0.5), interpolation="nearest")(grid)
    np.testing.assert_array_equal(zoom_in[0, :, :, 0].numpy(),
                                  [[5, 5, 6, 6], [5, 5, 6, 6], [9, 9, 10, 10], [9, 9, 10, 10]])
    stretched = layers.RandomZoom((0, 0), width_factor=(1.0, 1.0), fill_mode="constant",
                                  interpolation="nearest")(grid)
    # zoom 2 along the width about x = 1.5: output x reads 2x - 1.5 (x=0 outside -> 0)
    np.testing.assert_array_equal(stretched[0, 0, :, 0].numpy(), [0, 1, 3, 0])


def test_affine_layer_arguments_are_checked():
    with pytest.raises(ValueError, match="factor"):
        layers.RandomRotation(1.5)
    with pytest.raises(ValueError, match=r"\(-1, 1\]"):
        layers.RandomZoom(-1.0)
    with pytest.raises(NotImplementedError, match="fill_mode"):
        layers.RandomRotation(0.1, fill_mode="mirror")
    with pytest.raises(NotImplementedError, match="interpolation"):
        layers.RandomZoom(0.1, interpolation="bicubic")
    with pytest.raises(ValueError, match="rank 3 or 4"):
        layers.RandomRotation(0.1)(np.zeros((4, 4)))


# -- resizing and cropping ----------------------------------------------------------------------


def test_resizing():
    images = np.random.default_rng(7).random((2, 4, 6, 3)).astype(np.float32)
    out = layers.Resizing(3, 5)(images)
    np.testing.assert_allclose(out.numpy(), tf.image.resize(images, (3, 5)).numpy())
    cropped = layers.Resizing(2, 2, crop_to_aspect_ratio=True)(images)
    np.testing.assert_allclose(cropped.numpy(),
                               tf.image.resize(images[:, :, 1:5], (2, 2)).numpy())
    padded = layers.Resizing(6, 6, pad_to_aspect_ratio=True, fill_value=9.0)(images)
    np.testing.assert_allclose(padded.numpy()[:, 0], 9.0)  # a row of padding on top
    as_uint8 = layers.Resizing(2, 3)(np.full((4, 6, 1), 200, np.uint8))
    assert as_uint8.dtype == tf.uint8 and as_uint8.shape == (2, 3, 1)
    assert np.all(as_uint8.numpy() == 200)
    check_layer(layers.Resizing(3, 2), input_shape=(2, 4, 4, 1),
                expected_output_shape=(2, 3, 2, 1))


def test_center_crop():
    images = np.arange(2 * 4 * 6, dtype=np.float32).reshape(2, 4, 6, 1)
    out = layers.CenterCrop(2, 2)(images)
    np.testing.assert_array_equal(out.numpy(), images[:, 1:3, 2:4])
    grown = layers.CenterCrop(8, 8)(images)
    np.testing.assert_allclose(grown.numpy(), tf.image.resize(images[:, :, 1:5], (8, 8)).numpy())
    first = layers.CenterCrop(1, 3, data_format="channels_first")(np.ones((1, 2, 4, 4)))
    assert first.shape == (1, 2, 1, 3)
    check_layer(layers.CenterCrop(2, 3), input_shape=(2, 4, 4, 2),
                expected_output_shape=(2, 2, 3, 2))


def test_random_crop():
    images = np.arange(3 * 5 * 6, dtype=np.float32).reshape(1, 5, 6, 3)
    out = layers.RandomCrop(3, 4, seed=2)(images).numpy()
    windows = [images[:, i:i + 3, j:j + 4] for i in range(3) for j in range(3)]
    assert any(np.array_equal(out, w) for w in windows)
    inference = layers.RandomCrop(3, 4)(images, training=False)
    # Keras's window of aspect 3:4 in 5x6: int(6 * 3 / 4) = 4 rows from row int(1 / 2) = 0
    np.testing.assert_allclose(inference.numpy(),
                               tf.image.resize(images[:, 0:4], (3, 4)).numpy())
    first = [layers.RandomCrop(2, 2, seed=9)(images).numpy() for _ in range(2)]
    np.testing.assert_array_equal(*first)


# -- randomness: training only, seeded ---------------------------------------------------------

RANDOM_LAYERS = [
    lambda seed: layers.RandomFlip(seed=seed),
    lambda seed: layers.RandomRotation(0.2, seed=seed),
    lambda seed: layers.RandomZoom(0.3, seed=seed),
    lambda seed: layers.RandomTranslation(0.2, 0.2, seed=seed),
    lambda seed: layers.RandomContrast(0.5, seed=seed),
    lambda seed: layers.RandomBrightness(0.3, seed=seed),
]


@pytest.mark.parametrize("make", RANDOM_LAYERS)
def test_random_layers_act_in_training_only_and_repeat_with_a_seed(make):
    images = np.random.default_rng(8).random((4, 6, 6, 3)).astype(np.float32) * 200
    layer = make(11)
    np.testing.assert_array_equal(layer(images, training=False).numpy(), images)
    augmented = layer(images).numpy()  # a direct call trains, as in Keras
    assert not np.allclose(augmented, images)
    np.testing.assert_array_equal(make(11)(images).numpy(), augmented)
    model = tf.keras.Sequential([tf.keras.Input((6, 6, 3)), make(11)])
    np.testing.assert_allclose(model.predict(images, verbose=0), images, rtol=1e-6)
    assert not np.allclose(model(images, training=True).numpy(), images)
    back = type(layer).from_config(layer.get_config())
    assert back.get_config() == layer.get_config()


def test_random_flip_and_colour_values():
    images = np.random.default_rng(9).random((16, 3, 4, 1)).astype(np.float32)
    out = layers.RandomFlip("horizontal", seed=1)(images).numpy()
    same = [np.array_equal(o, i) for o, i in zip(out, images)]
    mirrored = [np.array_equal(o, i[:, ::-1]) for o, i in zip(out, images)]
    assert all(s or m for s, m in zip(same, mirrored)) and any(mirrored) and any(same)
    both = layers.RandomFlip(seed=1)(images).numpy()
    assert all(np.array_equal(o, i) or np.array_equal(o, i[::-1, ::-1])
               for o, i in zip(both, images))
    contrast = layers.RandomContrast((0.5, 0.5), value_range=(0, 1), seed=3)(images).numpy()
    for o, i in zip(contrast, images):
        mean = i.mean(axis=(0, 1))
        factor = ((o - mean) / (i - mean)).ravel()
        unclipped = (o > 0) & (o < 1)
        assert np.allclose(factor[unclipped.ravel()], factor[unclipped.ravel()][0], rtol=1e-3)
        assert 0.5 - 1e-4 <= factor[unclipped.ravel()][0] <= 1.5 + 1e-4
    bright = layers.RandomBrightness((0.1, 0.1), value_range=(0, 10))(images).numpy()
    np.testing.assert_allclose(bright, images + 1.0, rtol=1e-6)
    with pytest.raises(ValueError, match="unknown mode"):
        layers.RandomFlip("diagonal")
    with pytest.raises(ValueError, match="factor"):
        layers.RandomContrast(1.5)


def test_layers_in_dataset_map_and_check_layer():
    images = np.random.default_rng(10).random((6, 8, 8, 3)).astype(np.float32)
    augment = tf.keras.Sequential([layers.RandomFlip("horizontal", seed=1),
                                   layers.RandomRotation(0.1, seed=2), layers.Rescaling(2.0)])
    dataset = tf.data.Dataset.from_tensor_slices(images).batch(3).map(
        lambda x: augment(x, training=True))
    batches = [b.numpy() for b in dataset]
    assert [b.shape for b in batches] == [(3, 8, 8, 3)] * 2
    for layer in (layers.RandomRotation(0.1), layers.RandomZoom(0.2), layers.RandomFlip(),
                  layers.RandomContrast(0.2), layers.RandomTranslation(0.1, 0.1)):
        check_layer(layer, input_shape=(2, 5, 5, 2), expected_output_shape=(2, 5, 5, 2))


# -- Hashing -------------------------------------------------------------------------------------

# Google's FarmHash Fingerprint64 (the C++ library, through pyfarmhash), one per code path.
FINGERPRINTS = {"": 0x9ae16a3b2f90404f, "a": 0xb3454265b6df75e3, "abcd": 0x1a5502de4a1f8101,
                "hello world": 0x588fb7478bd6b01b, "x" * 17: 0x9ce745a1f3812fa5,
                "y" * 40: 0x3d596369a03cfde,
                "The quick brown fox jumps over the lazy dog, twice: the quick brown fox.":
                0x85b70666e9207e58}


def test_fingerprint64_is_farmhash():
    assert {s: fingerprint64(s) for s in FINGERPRINTS} == FINGERPRINTS


def test_fingerprint64_against_the_c_library_on_every_length():
    farmhash = pytest.importorskip("farmhash")
    rng = np.random.default_rng(0)
    for n in list(range(0, 200)) + [255, 256, 257, 1000]:
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        assert fingerprint64(data) == farmhash.fingerprint64(data), n


def test_hashing_keras_docstring_examples():
    inputs = [["A"], ["B"], ["C"], ["D"], ["E"]]
    out = layers.Hashing(num_bins=3)(inputs)
    assert out.dtype == tf.int64 and out.numpy().ravel().tolist() == [1, 0, 1, 1, 2]
    masked = layers.Hashing(num_bins=3, mask_value="")([["A"], ["B"], [""], ["C"], ["D"]])
    assert masked.numpy().ravel().tolist() == [1, 1, 0, 2, 2]
    assert layers.Hashing(num_bins=3)(np.array([[1], [2]])).numpy().ravel().tolist() == (
        [fingerprint64("1") % 3, fingerprint64("2") % 3])
    hot = layers.Hashing(num_bins=3, output_mode="one_hot")(["A", "B"])
    np.testing.assert_array_equal(hot.numpy(), [[0, 1, 0], [1, 0, 0]])
    with pytest.raises(NotImplementedError, match="salt"):
        layers.Hashing(3, salt=133)
    with pytest.raises(ValueError, match="num_bins"):
        layers.Hashing(0)
    again = layers.deserialize(layers.serialize(layers.Hashing(5, mask_value="x")))
    assert (again.num_bins, again.mask_value) == (5, "x")


def test_normalization_exposes_mean_and_variance_in_the_broadcast_shape():
    layer = layers.Normalization(axis=-1)
    assert layer.mean is None
    layer.adapt(ADAPT)
    assert layer.mean.shape == (1, 3) and layer.variance.shape == (1, 3)
    np.testing.assert_allclose(layer.mean.numpy(), [[1., 8., 5.]])
    given = layers.Normalization(mean=[1.0, 2.0], variance=[4.0, 9.0])
    given.build((None, 2))
    np.testing.assert_allclose(given.variance.numpy(), [[4.0, 9.0]])
