"""tf.keras.applications against real Keras: every model's parameter count, and
for the documented models every layer (name, class, parameter count, and the
order Keras lists them in), equal those Keras 3.15.1 reports in
keras_reference.json (see its "_about"); the arguments Keras checks, with
Keras's messages; the weights: a file path, 'imagenet' through a monkeypatched
`get_file` (offline: a clear OSError), and the Keras submodule names.

Models are built once at the smallest input Keras allows (the parameter counts
of all but VGG's classifier do not depend on it); the 224x224 VGG builds and the
big variants are marked slow.
"""

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import applications
from tapeflow.applications import common, imagenet_utils

REFERENCE = json.loads((Path(__file__).parent / "keras_reference.json").read_text())
KERAS = REFERENCE["models"]
EXTRA = REFERENCE["extra"]

# keras.io/api/applications rounds these to 138.4M, 143.7M, 25.6M, 25.6M, 3.5M,
# 22.9M, 8.1M, 5.3M, 23.9M and 4.3M; the exact integers are real Keras's count_params().
DOCUMENTED = {"VGG16": 138_357_544, "VGG19": 143_667_240, "ResNet50": 25_636_712,
              "ResNet50V2": 25_613_800, "MobileNetV2": 3_538_984, "Xception": 22_910_480,
              "DenseNet121": 8_062_504, "EfficientNetB0": 5_330_571, "InceptionV3": 23_851_784,
              "MobileNet": 4_253_864}
SMALL = {"VGG16": 32, "VGG19": 32, "Xception": 71, "InceptionV3": 75}  # others: 32
FAST = ["VGG16", "ResNet50", "ResNet50V2", "MobileNet", "MobileNetV2", "Xception", "DenseNet121",
        "EfficientNetB0", "InceptionV3"]
SLOW = ["ResNet101", "ResNet152", "ResNet101V2", "ResNet152V2", "DenseNet169", "DenseNet201"] + [
    f"EfficientNetB{i}" for i in range(1, 8)]

_built = {}


def small_model(name):
    """`name` with weights=None and the classifier, at its smallest input, built
    once in a fresh session (so unnamed layers get Keras's automatic names)."""
    if name not in _built:
        tf.keras.backend.clear_session()
        size = SMALL.get(name, 32)
        _built[name] = getattr(applications, name)(weights=None, input_shape=(size, size, 3))
    return _built[name]


def output_shape(model):
    return tuple(tf.nest.flatten(model.outputs)[0].shape)


def describe(layers_):
    return [[layer.name, type(layer).__name__, layer.count_params()] for layer in layers_]


# -- architecture ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", FAST)
def test_layers_equal_keras(name):
    """Every layer's name, class and parameter count, in Keras's order, the
    InputLayer first."""
    keras_layers = KERAS[name]["layers"]
    model = small_model(name)
    expected_name = {"MobileNetV2": "mobilenetv2_1.00_32", "MobileNet": "mobilenet_1.00_32"}
    assert model.name == expected_name.get(name, KERAS[name]["name"])  # named by input size
    if name == "VGG16":  # fc1's input is 1x1x512 at 32x32, 7x7x512 at 224x224
        keras_layers = [row if row[0] != "fc1" else ["fc1", "Dense", 512 * 4096 + 4096]
                        for row in keras_layers]
    assert describe(model.layers) == keras_layers
    mine = describe(model.layers)
    assert sorted(mine) == sorted(keras_layers)
    assert mine[:3] == keras_layers[:3] and mine[-2:] == keras_layers[-2:]


@pytest.mark.parametrize("name", [n for n in FAST if n != "VGG16"] + ["VGG19"])
def test_parameter_count_equals_keras(name):
    model = small_model(name)
    expected = EXTRA["VGG16_32"]["total"] if name == "VGG16" else KERAS[name]["total"]
    if name == "VGG19":  # the classifier's input is 1x1x512 instead of 7x7x512
        expected -= (7 * 7 - 1) * 512 * 4096
    assert model.count_params() == expected
    if name in DOCUMENTED:
        assert KERAS[name]["total"] == DOCUMENTED[name]


@pytest.mark.slow
@pytest.mark.parametrize("name", ["VGG16", "VGG19"])
def test_vgg_default_size_parameter_count(name):
    model = getattr(applications, name)(weights=None)
    assert model.count_params() == DOCUMENTED[name]
    assert output_shape(model) == (None, 1000)


@pytest.mark.slow
@pytest.mark.parametrize("name", SLOW)
def test_large_variants_equal_keras(name):
    model = small_model(name)
    assert model.count_params() == KERAS[name]["total"]
    assert model.name == KERAS[name]["name"]
    names = [layer.name for layer in model.layers]
    assert names[:4] == KERAS[name]["first"][1:] and names[-5:] == KERAS[name]["last"]
    del _built[name]


@pytest.mark.parametrize("name", FAST + ["VGG19"])
def test_forward_pass_gives_probabilities(name):
    size = SMALL.get(name, 32)
    images = np.random.default_rng(0).uniform(0, 255, (2, size, size, 3)).astype("float32")
    out = small_model(name)(images).numpy()
    assert out.shape == (2, 1000) and np.all(np.isfinite(out))
    np.testing.assert_allclose(out.sum(axis=1), 1.0, rtol=1e-5)


def test_include_top_false_and_pooling_shapes():
    for pooling, shape in ((None, (None, 1, 1, 2048)), ("avg", (None, 2048)),
                           ("max", (None, 2048))):
        model = applications.ResNet50(weights=None, include_top=False, pooling=pooling,
                                      input_shape=(32, 32, 3))
        assert output_shape(model) == shape
        assert model.count_params() == KERAS["ResNet50"]["notop_avg"]["total"]
        assert model.layers[-1].name == {None: "conv5_block3_out", "avg": "avg_pool",
                                         "max": "max_pool"}[pooling]
    tf.keras.backend.clear_session()
    model = applications.MobileNetV2(weights=None, include_top=False, input_shape=(96, 96, 3))
    reference = EXTRA["MobileNetV2_96_notop"]
    assert (model.name, model.count_params()) == (reference["name"], reference["total"])
    assert output_shape(model)[1:] == tuple(reference["output_shape"])
    model = applications.VGG16(weights=None, include_top=False, input_shape=(None, None, 3),
                               pooling="avg")
    assert output_shape(model) == (None, 512)
    assert model.layers[-1].name.startswith("global_average_pooling2d")
    assert model(np.zeros((1, 40, 48, 3), "float32")).shape == (1, 512)


def test_mobilenet_v2_alpha_widths_and_names():
    for alpha in (0.35, 1.4):
        model = applications.MobileNetV2(weights=None, alpha=alpha, input_shape=(32, 32, 3))
        reference = EXTRA[f"MobileNetV2_alpha{alpha}"]
        assert model.count_params() == reference["total"]
        assert model.name == f"mobilenetv2_{alpha:0.2f}_32"


def test_mobilenet_width_and_depth_multipliers():
    model = applications.MobileNet(weights=None, alpha=0.25, depth_multiplier=2,
                                   input_shape=(32, 32, 3))
    reference = EXTRA["MobileNet_alpha0.25_dm2_32"]
    assert (model.name, model.count_params()) == (reference["name"], reference["total"])
    with pytest.raises(ValueError, match="depth multiplier must be 1"):
        applications.MobileNet(depth_multiplier=2)


def test_classes_and_classifier_activation():
    model = applications.VGG16(weights=None, input_shape=(32, 32, 3), classes=10,
                               classifier_activation=None)
    out = model(np.ones((2, 32, 32, 3), "float32")).numpy()
    assert out.shape == (2, 10)
    assert not np.allclose(out.sum(axis=1), 1.0)  # logits, no softmax


def test_input_tensor_is_traced_back_to_its_input():
    inputs = tf.keras.Input(shape=(32, 32, 3))
    scaled = tf.keras.layers.Rescaling(1 / 255.0)(inputs)
    model = applications.VGG16(weights=None, include_top=False, input_tensor=scaled)
    assert model.inputs is inputs or tf.nest.flatten(model.inputs) == [inputs]
    assert isinstance(model.layers[0], tf.keras.layers.InputLayer)
    assert model.layers[0].output is inputs and model.layers[1].name.startswith("rescaling")
    assert model(np.zeros((1, 32, 32, 3), "float32")).shape == (1, 1, 1, 512)
    with pytest.raises(ValueError, match="`input_tensor` must be a KerasTensor"):
        applications.VGG16(weights=None, include_top=False,
                           input_tensor=tf.zeros((1, 32, 32, 3)))


# -- argument checks (Keras's messages) -------------------------------------------------------


@pytest.mark.parametrize("kwargs, message", [
    (dict(weights="no_such_file.h5"), r"The `weights` argument should be either `None`"),
    (dict(weights="imagenet", classes=10), r"`classes` should be 1000.  Received classes=10"),
    (dict(weights="imagenet", input_shape=(32, 32, 3)),
     r"`input_shape` should be \(224, 224, 3\)"),
    (dict(weights=None, include_top=False, input_shape=(31, 64, 3)),
     r"Input size must be at least 32x32; Received: input_shape=\(31, 64, 3\)"),
    (dict(weights=None, input_shape=(None, None, 3)), r"you should specify a static"),
    (dict(weights=None, include_top=False, input_shape=(32, 32)),
     r"`input_shape` must be a tuple of three integers"),
    (dict(weights="imagenet", include_top=False, input_shape=(32, 32, 1)),
     r"The input must have 3 channels"),
])
def test_invalid_arguments_raise_keras_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        applications.ResNet50(**kwargs)


def test_minimum_sizes_per_family():
    with pytest.raises(ValueError, match="at least 75x75"):
        applications.InceptionV3(weights=None, include_top=False, input_shape=(74, 74, 3))
    with pytest.raises(ValueError, match="at least 71x71"):
        applications.Xception(weights=None, include_top=False, input_shape=(70, 70, 3))


def test_classifier_activation_is_checked_against_pretrained_weights(tmp_path):
    weights_file = tmp_path / "w.npz"
    weights_file.write_bytes(b"")
    with pytest.raises(ValueError, match="Only `None` and `softmax` activations are allowed"):
        applications.MobileNetV2(weights=str(weights_file), input_shape=(32, 32, 3),
                                 alpha=0.35, classifier_activation="relu")


def test_mobilenet_v2_checks():
    with pytest.raises(ValueError, match="alpha must be one of `0.35`, `0.50`"):
        applications.MobileNetV2(alpha=0.6)
    inputs = tf.keras.Input(shape=(64, 64, 3))
    with pytest.raises(ValueError, match="input_tensor.shape\\[2\\] must equal input_shape\\[1\\]"):
        applications.MobileNetV2(weights=None, input_tensor=inputs, input_shape=(96, 96, 3))


def test_densenet_refuses_channels_first(monkeypatch):
    # tapeflow's backend accepts only channels_last; Keras's check is kept regardless
    monkeypatch.setattr(applications.densenet, "image_data_format", lambda: "channels_first")
    with pytest.raises(ValueError, match="DenseNet does not support the `channels_first`"):
        applications.DenseNet121(weights=None)


# -- weights ----------------------------------------------------------------------------------


def _small_vgg(weights):
    return applications.VGG16(weights=weights, include_top=False, input_shape=(32, 32, 3))


def _assert_same_weights(a, b):
    assert len(a.weights) == len(b.weights) == 26
    for x, y in zip(a.get_weights(), b.get_weights()):
        np.testing.assert_array_equal(x, y)


def test_weights_from_a_file_path(tmp_path):
    source = _small_vgg(None)
    path = tmp_path / "vgg16_notop.npz"
    source.save_weights(str(path))
    _assert_same_weights(_small_vgg(str(path)), source)


def test_weights_from_a_keras_h5_file(tmp_path):
    pytest.importorskip("h5py")
    source = _small_vgg(None)
    path = tmp_path / "vgg16_notop.weights.h5"
    try:
        source.save_weights(str(path))
    except (ValueError, ImportError) as error:  # tapeflow's .h5 support is optional
        pytest.skip(f"this tapeflow cannot write Keras's .weights.h5: {error}")
    _assert_same_weights(_small_vgg(str(path)), source)


def test_imagenet_weights_go_through_get_file(tmp_path, monkeypatch):
    source = _small_vgg(None)
    path = tmp_path / "cached.npz"
    source.save_weights(str(path))
    calls = []

    def fake_get_file(fname, origin, cache_subdir, file_hash):
        calls.append((fname, origin, cache_subdir, file_hash))
        return str(path)

    monkeypatch.setattr(common, "get_file", fake_get_file)
    _assert_same_weights(_small_vgg("imagenet"), source)
    assert calls == [("vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5",
                      "https://storage.googleapis.com/tensorflow/keras-applications/vgg16/"
                      "vgg16_weights_tf_dim_ordering_tf_kernels_notop.h5",
                      "models", "6d6bbae143d832006294945121d1f1fc")]


def test_imagenet_weights_offline_raise_a_clear_error(monkeypatch):
    def offline(fname, origin, cache_subdir, file_hash):
        raise OSError(f"Could not download {origin} (no network)")

    monkeypatch.setattr(common, "get_file", offline)
    with pytest.raises(OSError, match="mobilenet_v2_weights_tf_dim_ordering_tf_kernels_0.35_96"
                                      "_no_top.h5"):
        applications.MobileNetV2(alpha=0.35, include_top=False, input_shape=(96, 96, 3))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with pytest.raises(OSError, match="kernels_0.35_224_no_top.h5"):
            applications.MobileNetV2(alpha=0.35, include_top=False, input_shape=(64, 80, 3))
    assert any("Weights for input shape (224, 224) will be loaded" in str(w.message)
               for w in caught)
    with pytest.raises(OSError, match="keras-applications/resnet/resnet50v2_weights_tf_dim_"
                                      "ordering_tf_kernels_notop.h5"):
        applications.ResNet50V2(include_top=False, input_shape=(32, 32, 3))


# -- namespaces -------------------------------------------------------------------------------


def test_keras_submodule_names():
    apps = tf.keras.applications
    assert apps.VGG16 is applications.vgg.VGG16
    assert apps.vgg16.VGG16 is apps.VGG16 and apps.vgg19.VGG19 is apps.VGG19
    assert apps.resnet50.ResNet50 is apps.ResNet50 is apps.resnet.ResNet50
    assert apps.resnet_v2.ResNet50V2 is apps.ResNet50V2
    assert apps.mobilenet.MobileNet is apps.MobileNet
    for module in ("mobilenet", "mobilenet_v2", "xception", "densenet", "efficientnet",
                   "inception_v3", "imagenet_utils"):
        assert callable(getattr(apps, module).decode_predictions)
    from tapeflow.keras.applications.vgg16 import preprocess_input
    assert preprocess_input is applications.vgg.preprocess_input
    from tapeflow.keras.applications.efficientnet import EfficientNetB0
    assert EfficientNetB0 is apps.EfficientNetB0
    assert EfficientNetB0.__name__ == "EfficientNetB0"
    assert imagenet_utils.preprocess_input is apps.imagenet_utils.preprocess_input
