"""mobilenet_v2.py is `tf.keras.applications.mobilenet_v2`: MobileNetV2, ported
layer for layer from Keras 3's keras/src/applications/mobilenet_v2.py (the same
layer names, the width multiplier `alpha`, the weights files per size)."""

import warnings

from .. import layers
from ..backend import image_data_format
from . import imagenet_utils
from .common import build_model, check_weights_and_classes, classifier, image_input, pooled

__all__ = ["MobileNetV2", "preprocess_input", "decode_predictions"]

BASE_WEIGHT_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/mobilenet_v2/"
_SIZES = (96, 128, 160, 192, 224)  # the input sizes with ImageNet weights
# (filters, stride, expansion) of the 17 inverted residual blocks
_BLOCKS = ((16, 1, 1), (24, 2, 6), (24, 1, 6), (32, 2, 6), (32, 1, 6), (32, 1, 6),
           (64, 2, 6), (64, 1, 6), (64, 1, 6), (64, 1, 6), (96, 1, 6), (96, 1, 6),
           (96, 1, 6), (160, 2, 6), (160, 1, 6), (160, 1, 6), (320, 1, 6))


def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet",  # noqa: N802
                input_tensor=None, pooling=None, classes=1000,
                classifier_activation="softmax", name=None):
    """MobileNetV2 (Sandler et al., CVPR 2018), as `tf.keras.applications.MobileNetV2`.

    Args:
        input_shape: the image shape (at least 32x32); by default that of
            `input_tensor`, else (224, 224, 3).
        alpha: the width multiplier: < 1 narrows every layer, > 1 widens it
            (ImageNet weights exist for 0.35, 0.5, 0.75, 1.0, 1.3 and 1.4).
        include_top: whether to include the classifier.
        weights: None, 'imagenet' or the path of a weights file.
        input_tensor: a Keras tensor (`tf.keras.Input`) to use as the image input.
        pooling: None, 'avg' or 'max' when `include_top` is False.
        classes: the number of classes (1000 with ImageNet's classifier).
        classifier_activation: the activation of 'predictions'.
        name: the model's name, `mobilenetv2_{alpha:0.2f}_{rows}` by default.

    Returns:
        A functional `Model`; inputs through `mobilenet_v2.preprocess_input`.

    Raises:
        ValueError: for Keras's invalid arguments, among them an `alpha`
            without ImageNet weights, or an `input_shape` unlike `input_tensor`'s.
    """
    check_weights_and_classes(weights, include_top, classes)
    channels_first = image_data_format() == "channels_first"
    if input_tensor is not None:
        image_input(input_tensor, None)  # a Keras tensor, or Keras's error
    if input_shape is not None and input_tensor is not None:
        if channels_first and input_tensor.shape[1] != input_shape[1]:
            raise ValueError("input_shape[1] must equal shape(input_tensor)[1] when "
                             "`image_data_format` is `channels_first`; Received "
                             f"`input_tensor.shape={input_tensor.shape}`, "
                             f"`input_shape={input_shape}`")
        if not channels_first and input_tensor.shape[2] != input_shape[1]:
            raise ValueError("input_tensor.shape[2] must equal input_shape[1]; Received "
                             f"`input_tensor.shape={input_tensor.shape}`, "
                             f"`input_shape={input_shape}`")
    if input_shape is None and input_tensor is not None:
        shape = tuple(input_tensor.shape)
        rows, cols = shape[2:4] if channels_first else shape[1:3]
    elif input_shape is not None:
        rows, cols = input_shape[1:3] if channels_first else input_shape[:2]
    else:
        rows = cols = None
    default_size = rows if rows == cols and rows in _SIZES else 224
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=default_size, min_size=32,
        data_format=image_data_format(), require_flatten=include_top, weights=weights)
    rows, cols = input_shape[1:3] if channels_first else input_shape[:2]
    if weights == "imagenet":
        if alpha not in [0.35, 0.50, 0.75, 1.0, 1.3, 1.4]:
            raise ValueError("If imagenet weights are being loaded, alpha must be one of "
                             "`0.35`, `0.50`, `0.75`, `1.0`, `1.3` or `1.4` only; "
                             f"Received `alpha={alpha}`")
        if rows != cols or rows not in _SIZES:
            rows = 224
            warnings.warn("`input_shape` is undefined or non-square, or `rows` is not in "
                          "[96, 128, 160, 192, 224]. Weights for input shape (224, 224) will "
                          "be loaded as the default.", stacklevel=2)
    img_input = image_input(input_tensor, input_shape)
    channel_axis = 1 if channels_first else -1

    x = layers.Conv2D(_make_divisible(32 * alpha, 8), kernel_size=3, strides=(2, 2),
                      padding="same", use_bias=False, name="Conv1")(img_input)
    x = _batch_norm(channel_axis, "bn_Conv1")(x)
    x = layers.ReLU(6.0, name="Conv1_relu")(x)
    for block_id, (filters, stride, expansion) in enumerate(_BLOCKS):
        x = _inverted_res_block(x, filters=filters, alpha=alpha, stride=stride,
                                expansion=expansion, block_id=block_id)
    last_block_filters = _make_divisible(1280 * alpha, 8) if alpha > 1.0 else 1280
    x = layers.Conv2D(last_block_filters, kernel_size=1, use_bias=False, name="Conv_1")(x)
    x = _batch_norm(channel_axis, "Conv_1_bn")(x)
    x = layers.ReLU(6.0, name="out_relu")(x)

    if include_top:
        x = layers.GlobalAveragePooling2D()(x)
        x = classifier(x, classes, classifier_activation, weights)
    else:
        x = pooled(x, pooling)
    if name is None:
        name = f"mobilenetv2_{alpha:0.2f}_{rows}"
    file_name = ("mobilenet_v2_weights_tf_dim_ordering_tf_kernels_"
                 f"{float(alpha)}_{rows}{'' if include_top else '_no_top'}.h5")
    return build_model(img_input, input_tensor, x, name, weights,
                       (file_name, BASE_WEIGHT_PATH + file_name, None))


def _batch_norm(axis, name):
    return layers.BatchNormalization(axis=axis, epsilon=1e-3, momentum=0.999, name=name)


def _inverted_res_block(inputs, expansion, stride, alpha, filters, block_id):
    """Expand (1x1), depthwise 3x3, project (1x1, linear); a residual Add when the
    shape allows it."""
    channel_axis = 1 if image_data_format() == "channels_first" else -1
    in_channels = inputs.shape[channel_axis]
    pointwise_filters = _make_divisible(int(filters * alpha), 8)
    x = inputs
    prefix = f"block_{block_id}_"
    if block_id:
        x = layers.Conv2D(expansion * in_channels, kernel_size=1, padding="same",
                          use_bias=False, activation=None, name=f"{prefix}expand")(x)
        x = _batch_norm(channel_axis, f"{prefix}expand_BN")(x)
        x = layers.ReLU(6.0, name=f"{prefix}expand_relu")(x)
    else:
        prefix = "expanded_conv_"
    if stride == 2:
        x = layers.ZeroPadding2D(padding=imagenet_utils.correct_pad(x, 3),
                                 name=f"{prefix}pad")(x)
    x = layers.DepthwiseConv2D(kernel_size=3, strides=stride, activation=None, use_bias=False,
                               padding="same" if stride == 1 else "valid",
                               name=f"{prefix}depthwise")(x)
    x = _batch_norm(channel_axis, f"{prefix}depthwise_BN")(x)
    x = layers.ReLU(6.0, name=f"{prefix}depthwise_relu")(x)
    x = layers.Conv2D(pointwise_filters, kernel_size=1, padding="same", use_bias=False,
                      activation=None, name=f"{prefix}project")(x)
    x = _batch_norm(channel_axis, f"{prefix}project_BN")(x)
    if in_channels == pointwise_filters and stride == 1:
        return layers.Add(name=f"{prefix}add")([inputs, x])
    return x


def _make_divisible(v, divisor, min_value=None):
    """`v` rounded to a multiple of `divisor`, never below 90% of `v`."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def preprocess_input(x, data_format=None):
    """Images in [0, 255] scaled to [-1, 1], as MobileNetV2's weights expect ('tf' mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
