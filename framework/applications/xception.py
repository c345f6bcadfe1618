"""xception.py is `tf.keras.applications.xception`: Xception, ported layer for
layer from Keras 3's keras/src/applications/xception.py (the same layer names,
the unnamed residual convolutions included, and the same weights files)."""

from .. import layers
from ..backend import image_data_format
from . import imagenet_utils
from .common import build_model, check_weights_and_classes, classifier, image_input, pooled

__all__ = ["Xception", "preprocess_input", "decode_predictions"]

_WEIGHTS = "https://storage.googleapis.com/tensorflow/keras-applications/xception/"
_TOP = ("xception_weights_tf_dim_ordering_tf_kernels.h5", "0a58e3b7378bc2990ea3b43d5981f1f6")
_NOTOP = ("xception_weights_tf_dim_ordering_tf_kernels_notop.h5",
          "b0042744bf5b25fce3cb969f33bebb97")


def Xception(include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
             input_shape=None, pooling=None, classes=1000, classifier_activation="softmax",
             name="xception"):
    """Xception (Chollet, CVPR 2017), as `tf.keras.applications.Xception`.

    Args:
        include_top: whether to include the classifier ('avg_pool', 'predictions').
        weights: None, 'imagenet' or the path of a weights file.
        input_tensor: a Keras tensor (`tf.keras.Input`) to use as the image input.
        input_shape: the image shape when `include_top` is False or `weights`
            is not 'imagenet' (at least 71x71); (299, 299, 3) otherwise.
        pooling: None, 'avg' or 'max' when `include_top` is False.
        classes: the number of classes (1000 with ImageNet's classifier).
        classifier_activation: the activation of 'predictions'.
        name: the model's name.

    Returns:
        A functional `Model`; inputs through `xception.preprocess_input` ('tf' mode).
    """
    check_weights_and_classes(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=299, min_size=71, data_format=image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = image_input(input_tensor, input_shape)
    axis = 1 if image_data_format() == "channels_first" else -1

    def bn(name=None):
        return layers.BatchNormalization(axis=axis, name=name)

    def sepconv(filters, name):
        return layers.SeparableConv2D(filters, (3, 3), padding="same", use_bias=False,
                                      name=name)

    def shortcut(x, filters):
        residual = layers.Conv2D(filters, (1, 1), strides=(2, 2), padding="same",
                                 use_bias=False)(x)
        return bn()(residual)

    x = layers.Conv2D(32, (3, 3), strides=(2, 2), use_bias=False, name="block1_conv1")(img_input)
    x = bn("block1_conv1_bn")(x)
    x = layers.Activation("relu", name="block1_conv1_act")(x)
    x = layers.Conv2D(64, (3, 3), use_bias=False, name="block1_conv2")(x)
    x = bn("block1_conv2_bn")(x)
    x = layers.Activation("relu", name="block1_conv2_act")(x)

    # Entry flow: blocks 2-4 halve the size, with a strided 1x1 convolution shortcut.
    for block, filters in ((2, 128), (3, 256), (4, 728)):
        residual = shortcut(x, filters)
        if block > 2:
            x = layers.Activation("relu", name=f"block{block}_sepconv1_act")(x)
        x = sepconv(filters, f"block{block}_sepconv1")(x)
        x = bn(f"block{block}_sepconv1_bn")(x)
        x = layers.Activation("relu", name=f"block{block}_sepconv2_act")(x)
        x = sepconv(filters, f"block{block}_sepconv2")(x)
        x = bn(f"block{block}_sepconv2_bn")(x)
        x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same",
                                name=f"block{block}_pool")(x)
        x = layers.add([x, residual])

    # Middle flow: 8 blocks of 3 separable convolutions with an identity shortcut.
    for i in range(8):
        residual = x
        prefix = f"block{i + 5}"
        for conv in (1, 2, 3):
            x = layers.Activation("relu", name=f"{prefix}_sepconv{conv}_act")(x)
            x = sepconv(728, f"{prefix}_sepconv{conv}")(x)
            x = bn(f"{prefix}_sepconv{conv}_bn")(x)
        x = layers.add([x, residual])

    # Exit flow.
    residual = shortcut(x, 1024)
    x = layers.Activation("relu", name="block13_sepconv1_act")(x)
    x = sepconv(728, "block13_sepconv1")(x)
    x = bn("block13_sepconv1_bn")(x)
    x = layers.Activation("relu", name="block13_sepconv2_act")(x)
    x = sepconv(1024, "block13_sepconv2")(x)
    x = bn("block13_sepconv2_bn")(x)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2), padding="same", name="block13_pool")(x)
    x = layers.add([x, residual])
    x = sepconv(1536, "block14_sepconv1")(x)
    x = bn("block14_sepconv1_bn")(x)
    x = layers.Activation("relu", name="block14_sepconv1_act")(x)
    x = sepconv(2048, "block14_sepconv2")(x)
    x = bn("block14_sepconv2_bn")(x)
    x = layers.Activation("relu", name="block14_sepconv2_act")(x)

    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        x = classifier(x, classes, classifier_activation, weights)
    else:
        x = pooled(x, pooling)
    file_name, file_hash = _TOP if include_top else _NOTOP
    return build_model(img_input, input_tensor, x, name, weights,
                       (file_name, _WEIGHTS + file_name, file_hash))


def preprocess_input(x, data_format=None):
    """Images in [0, 255] scaled to [-1, 1], as Xception's weights expect ('tf' mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
