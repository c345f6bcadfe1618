"""imagenet_utils: preprocess_input's three modes (values computed by hand,
and equal to real Keras 3.15.1's on the same array), on NumPy arrays (in place,
as Keras), Tensors and symbolic inputs; each family's mode; decode_predictions
with a local class index; correct_pad and obtain_input_shape."""

import json

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import applications
from tapeflow.applications import imagenet_utils

PIXELS = np.array([[[[0., 127.5, 255.], [10., 20., 30.]]]], dtype="float32")  # (1, 1, 2, 3)
CAFFE_MEAN_BGR = np.array([103.939, 116.779, 123.68])
TORCH_MEAN, TORCH_STD = np.array([0.485, 0.456, 0.406]), np.array([0.229, 0.224, 0.225])
EXPECTED = {
    "caffe": PIXELS[..., ::-1] - CAFFE_MEAN_BGR,
    "tf": PIXELS / 127.5 - 1.0,
    "torch": (PIXELS / 255.0 - TORCH_MEAN) / TORCH_STD,
}
# real Keras's output on PIXELS, for the record of the hand-computed values above
KERAS_OUTPUT = {
    "caffe": [[151.061, 10.721, -123.68], [-73.939, -96.779, -113.68]],
    "tf": [[-1.0, 0.0, 1.0], [-0.9215686, -0.8431373, -0.7647059]],
    "torch": [[-2.117904, 0.1964286, 2.64], [-1.9466565, -1.6855742, -1.2815686]],
}


@pytest.mark.parametrize("mode", ["caffe", "tf", "torch"])
def test_modes_on_numpy_arrays(mode):
    x = PIXELS.copy()
    out = imagenet_utils.preprocess_input(x, mode=mode)
    np.testing.assert_allclose(out, EXPECTED[mode], rtol=1e-6, atol=1e-5)
    np.testing.assert_allclose(out[0, 0], KERAS_OUTPUT[mode], rtol=1e-6, atol=1e-5)
    assert out.dtype == np.float32
    assert np.shares_memory(out, x)  # Keras writes over a float array


@pytest.mark.parametrize("mode", ["caffe", "tf", "torch"])
def test_modes_on_tensors_and_integer_arrays(mode):
    out = imagenet_utils.preprocess_input(tf.constant(PIXELS), mode=mode)
    assert isinstance(out, tf.Tensor) and out.dtype == tf.float32
    np.testing.assert_allclose(out.numpy(), EXPECTED[mode], rtol=1e-6, atol=1e-4)
    ints = np.array([[[[0, 128, 255]]]], dtype="uint8")
    out = imagenet_utils.preprocess_input(ints, mode=mode)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, imagenet_utils.preprocess_input(
        ints.astype("float32"), mode=mode))


def test_channels_first():
    x = np.arange(12, dtype="float32").reshape(1, 3, 2, 2)
    expected = x[:, ::-1] - CAFFE_MEAN_BGR.reshape(1, 3, 1, 1)
    np.testing.assert_allclose(imagenet_utils.preprocess_input(
        x.copy(), data_format="channels_first"), expected, rtol=1e-6)
    np.testing.assert_allclose(imagenet_utils.preprocess_input(
        tf.constant(x), data_format="channels_first").numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(imagenet_utils.preprocess_input(
        x[0].copy(), data_format="channels_first", mode="torch"),
        (x[0] / 255.0 - TORCH_MEAN.reshape(3, 1, 1)) / TORCH_STD.reshape(3, 1, 1), rtol=1e-6)


def test_inside_a_functional_model():
    inputs = tf.keras.Input(shape=(1, 2, 3))
    outputs = applications.vgg16.preprocess_input(inputs)
    model = tf.keras.Model(inputs, outputs)
    np.testing.assert_allclose(model(PIXELS).numpy(), EXPECTED["caffe"], rtol=1e-6, atol=1e-4)


def test_each_family_uses_keras_mode():
    modes = {"vgg16": "caffe", "vgg19": "caffe", "resnet": "caffe", "resnet50": "caffe",
             "resnet_v2": "tf", "mobilenet": "tf", "mobilenet_v2": "tf", "xception": "tf",
             "inception_v3": "tf", "densenet": "torch"}
    for module, mode in modes.items():
        out = getattr(applications, module).preprocess_input(PIXELS.copy())
        np.testing.assert_allclose(out, EXPECTED[mode], rtol=1e-6, atol=1e-5, err_msg=module)
    x = PIXELS.copy()
    assert applications.efficientnet.preprocess_input(x) is x  # the model scales itself


def test_bad_mode_and_data_format():
    with pytest.raises(ValueError, match="Expected mode to be one of `caffe`, `tf` or `torch`"):
        imagenet_utils.preprocess_input(PIXELS.copy(), mode="keras")
    with pytest.raises(ValueError, match="Expected data_format to be one of `channels_first`"):
        imagenet_utils.preprocess_input(PIXELS.copy(), data_format="NHWC")


@pytest.fixture
def class_index(tmp_path, monkeypatch):
    index = {str(i): [f"n{i:08d}", f"class_{i}"] for i in range(1000)}
    path = tmp_path / "imagenet_class_index.json"
    path.write_text(json.dumps(index))
    calls = []

    def fake_get_file(fname, origin, cache_subdir, file_hash):
        calls.append((fname, origin, cache_subdir, file_hash))
        return str(path)

    monkeypatch.setattr(imagenet_utils, "get_file", fake_get_file)
    monkeypatch.setattr(imagenet_utils, "CLASS_INDEX", None)
    return calls


def test_decode_predictions(class_index):
    preds = np.zeros((2, 1000), "float32")
    preds[0, [7, 500, 999]] = [0.2, 0.5, 0.3]
    preds[1, [1, 2]] = [0.9, 0.1]
    decoded = applications.resnet50.decode_predictions(preds, top=3)
    assert [[(a, b) for a, b, _ in row] for row in decoded] == [
        [("n00000500", "class_500"), ("n00000999", "class_999"), ("n00000007", "class_7")],
        [("n00000001", "class_1"), ("n00000002", "class_2"), decoded[1][2][:2]]]
    assert [score for _, _, score in decoded[0]] == pytest.approx([0.5, 0.3, 0.2])
    assert len(applications.vgg16.decode_predictions(tf.constant(preds))[0]) == 5
    assert class_index == [("imagenet_class_index.json", imagenet_utils.CLASS_INDEX_PATH,
                            "models", "c2c37ea517e94d9795004a39431a14cb")]  # read once


def test_decode_predictions_rejects_other_shapes(class_index):
    with pytest.raises(ValueError, match=r"\(samples, 1000\)\)\. Received array with shape: "
                                         r"\(2, 10\)"):
        imagenet_utils.decode_predictions(np.zeros((2, 10)))


def test_correct_pad():
    assert imagenet_utils.correct_pad(tf.keras.Input(shape=(32, 32, 3)), 3) == ((0, 1), (0, 1))
    assert imagenet_utils.correct_pad(tf.keras.Input(shape=(33, 32, 3)), 3) == ((1, 1), (0, 1))
    assert imagenet_utils.correct_pad(tf.keras.Input(shape=(32, 32, 3)), 5) == ((1, 2), (1, 2))
    assert imagenet_utils.correct_pad(tf.keras.Input(shape=(None, None, 3)), 3) == (
        (0, 1), (0, 1))


def test_obtain_input_shape_defaults():
    shape = imagenet_utils.obtain_input_shape
    assert shape(None, 224, 32, "channels_last", require_flatten=False) == (None, None, 3)
    assert shape(None, 224, 32, "channels_last", require_flatten=True) == (224, 224, 3)
    assert shape(None, 299, 75, "channels_first", require_flatten=True,
                 weights="imagenet") == (3, 299, 299)
    with pytest.warns(UserWarning, match="usually expects 1 or 3 input channels"):
        assert shape((64, 64, 4), 224, 32, "channels_last", False) == (64, 64, 4)
