"""imagenet_utils.py is `tf.keras.applications.imagenet_utils`: the input
preprocessing every ImageNet model shares (modes 'caffe', 'tf', 'torch'), the
decoding of a (samples, 1000) prediction into class names, and Keras's checks of
an application's input shape. Ported from Keras 3's
keras/src/applications/imagenet_utils.py, messages included.
"""

import json
import warnings

import numpy as np

from .. import activations
from ..api.array_ops import cast
from ..backend import floatx, image_data_format
from ..core.tensor import Tensor, constant
from ..utils import get_file

__all__ = ["preprocess_input", "decode_predictions", "obtain_input_shape", "correct_pad",
           "validate_activation"]

CLASS_INDEX = None  # {"0": ["n01440764", "tench"], ...}, read on first use
CLASS_INDEX_PATH = ("https://storage.googleapis.com/download.tensorflow.org/"
                    "data/imagenet_class_index.json")
_CLASS_INDEX_HASH = "c2c37ea517e94d9795004a39431a14cb"

_MODE_MEAN_STD = {
    "torch": ([0.485, 0.456, 0.406], [0.229, 0.224, 0.225]),
    "caffe": ([103.939, 116.779, 123.68], None),  # of the BGR channels
}


def preprocess_input(x, data_format=None, mode="caffe"):
    """A batch of images (values in [0, 255]) scaled as the ImageNet weights expect.

    mode 'caffe': RGB to BGR, then each channel zero-centred by ImageNet's mean,
    without scaling; 'tf': scaled to [-1, 1]; 'torch': scaled to [0, 1], then each
    channel normalised by ImageNet's mean and standard deviation.

    As Keras: a float NumPy array is changed in place (and returned); an integer
    array is converted to `floatx()` first. A Tensor or a symbolic Keras tensor
    gives a new tensor (so `preprocess_input(inputs)` works inside a functional
    model); an integer Tensor is cast to `floatx()` first (Keras would fail).

    Raises:
        ValueError: for an unknown `mode` or `data_format`.
    """
    if mode not in {"caffe", "tf", "torch"}:
        raise ValueError("Expected mode to be one of `caffe`, `tf` or `torch`. "
                         f"Received: mode={mode}")
    if data_format is None:
        data_format = image_data_format()
    elif data_format not in {"channels_first", "channels_last"}:
        raise ValueError("Expected data_format to be one of `channels_first` or "
                         f"`channels_last`. Received: data_format={data_format}")
    if isinstance(x, np.ndarray):
        return _preprocess_numpy_input(x, data_format, mode)
    if not hasattr(x, "shape"):  # a list of pixel values: as Keras's tensor path does
        x = constant(np.asarray(x, dtype=floatx()))
    return _preprocess_tensor_input(x, data_format, mode)


def _preprocess_numpy_input(x, data_format, mode):
    if not issubclass(x.dtype.type, np.floating):
        x = x.astype(floatx(), copy=False)
    if mode == "tf":
        x /= 127.5
        x -= 1.0
        return x
    mean, std = _MODE_MEAN_STD[mode]
    if mode == "torch":
        x /= 255.0
    elif data_format == "channels_first":  # 'RGB'->'BGR'
        x = x[::-1, ...] if x.ndim == 3 else x[:, ::-1, ...]
    else:
        x = x[..., ::-1]
    for channel in range(3):
        index = _channel_index(x.ndim, data_format, channel)
        x[index] -= mean[channel]
        if std is not None:
            x[index] /= std[channel]
    return x


def _channel_index(ndim, data_format, channel):
    if data_format == "channels_last":
        return (Ellipsis, channel)
    return (channel,) if ndim == 3 else (slice(None), channel)


def _preprocess_tensor_input(x, data_format, mode):
    """The same with tensor operators only, so that a Keras tensor records layers."""
    if isinstance(x, Tensor) and not x.dtype.is_floating:
        x = cast(x, floatx())
    if mode == "tf":
        return x / 127.5 - 1.0
    mean, std = _MODE_MEAN_STD[mode]
    if mode == "torch":
        x = x / 255.0
    elif data_format == "channels_first":
        x = x[::-1] if len(x.shape) == 3 else x[:, ::-1]
    else:
        x = x[..., ::-1]
    channel_shape = (3,) if data_format == "channels_last" else (3, 1, 1)
    x = x - np.reshape(np.array(mean), channel_shape).astype(_numpy_dtype(x))
    if std is not None:
        x = x / np.reshape(np.array(std), channel_shape).astype(_numpy_dtype(x))
    return x


def _numpy_dtype(x):
    dtype = x.dtype
    return getattr(dtype, "as_numpy_dtype", dtype)


def decode_predictions(preds, top=5):
    """The `top` classes of each prediction as (class_name, class_description, score).

    Args:
        preds: a batch of predictions, shape (samples, 1000).
        top: how many top guesses to return per sample.

    Returns:
        One list of tuples per sample, best first.

    Raises:
        ValueError: if `preds` is not of shape (samples, 1000).
        OSError: if the class index is not cached and cannot be downloaded.
    """
    global CLASS_INDEX
    preds = preds.numpy() if hasattr(preds, "numpy") else np.asarray(preds)
    if len(preds.shape) != 2 or preds.shape[1] != 1000:
        raise ValueError("`decode_predictions` expects a batch of predictions (i.e. a 2D array "
                         f"of shape (samples, 1000)). Received array with shape: {preds.shape}")
    if CLASS_INDEX is None:
        fpath = get_file("imagenet_class_index.json", CLASS_INDEX_PATH, cache_subdir="models",
                         file_hash=_CLASS_INDEX_HASH)
        with open(fpath) as f:
            CLASS_INDEX = json.load(f)
    results = []
    for pred in preds:
        top_indices = pred.argsort()[-top:][::-1]
        result = [tuple(CLASS_INDEX[str(i)]) + (pred[i],) for i in top_indices]
        result.sort(key=lambda x: x[2], reverse=True)
        results.append(result)
    return results


def obtain_input_shape(input_shape, default_size, min_size, data_format, require_flatten,
                       weights=None):
    """The model's input shape: `input_shape` checked, or the default one.

    Raises:
        ValueError: for a shape that is not 3 integers, too small, without 3
            channels for ImageNet weights, other than the default with ImageNet
            weights and the classifier on top, or not static with the classifier.
    """
    channels_first = data_format == "channels_first"
    if weights != "imagenet" and input_shape and len(input_shape) == 3:
        channels = input_shape[0] if channels_first else input_shape[-1]
        if channels not in {1, 3}:
            warnings.warn("This model usually expects 1 or 3 input channels. However, it was "
                          f"passed an input_shape with {channels} input channels.",
                          stacklevel=3)
        default_shape = ((channels, default_size, default_size) if channels_first
                         else (default_size, default_size, channels))
    else:
        default_shape = ((3, default_size, default_size) if channels_first
                         else (default_size, default_size, 3))
    if weights == "imagenet" and require_flatten:
        if input_shape is not None and tuple(input_shape) != default_shape:
            raise ValueError("When setting `include_top=True` and loading `imagenet` weights, "
                             f"`input_shape` should be {default_shape}.  "
                             f"Received: input_shape={input_shape}")
        return default_shape
    if input_shape:
        if len(input_shape) != 3:
            raise ValueError("`input_shape` must be a tuple of three integers.")
        channels = input_shape[0] if channels_first else input_shape[-1]
        rows, cols = input_shape[1:] if channels_first else input_shape[:2]
        if channels != 3 and weights == "imagenet":
            raise ValueError(f"The input must have 3 channels; Received "
                             f"`input_shape={input_shape}`")
        if (rows is not None and rows < min_size) or (cols is not None and cols < min_size):
            raise ValueError(f"Input size must be at least {min_size}x{min_size}; Received: "
                             f"input_shape={input_shape}")
    elif require_flatten:
        input_shape = default_shape
    else:
        input_shape = (3, None, None) if channels_first else (None, None, 3)
    if require_flatten and None in input_shape:
        raise ValueError("If `include_top` is True, you should specify a static `input_shape`. "
                         f"Received: input_shape={input_shape}")
    return input_shape


def correct_pad(inputs, kernel_size):
    """The ((top, bottom), (left, right)) zero padding before a strided 'valid'
    convolution that makes it match TF's 'same' on an even-sized input."""
    img_dim = 2 if image_data_format() == "channels_first" else 1
    input_size = tuple(inputs.shape)[img_dim:img_dim + 2]
    if isinstance(kernel_size, int):
        kernel_size = (kernel_size, kernel_size)
    if input_size[0] is None:
        adjust = (1, 1)
    else:
        adjust = (1 - input_size[0] % 2, 1 - input_size[1] % 2)
    correct = (kernel_size[0] // 2, kernel_size[1] // 2)
    return ((correct[0] - adjust[0], correct[0]), (correct[1] - adjust[1], correct[1]))


def validate_activation(classifier_activation, weights):
    """Pretrained weights allow only a softmax or a linear classifier.

    Raises:
        ValueError: for another activation with `weights` set.
    """
    if weights is None:
        return
    classifier_activation = activations.get(classifier_activation)
    if classifier_activation not in {activations.get("softmax"), activations.get(None)}:
        raise ValueError("Only `None` and `softmax` activations are allowed for the "
                         "`classifier_activation` argument when using pretrained weights, "
                         "with `include_top=True`; Received: "
                         f"classifier_activation={classifier_activation}")
