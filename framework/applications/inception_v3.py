"""inception_v3.py is `tf.keras.applications.inception_v3`: InceptionV3, ported
layer for layer from Keras 3's keras/src/applications/inception_v3.py (the same
layers in the same order, unnamed convolutions included, so the automatic names
'conv2d_N' match Keras's in a fresh session, and the same weights files)."""

from .. import layers
from ..backend import image_data_format
from . import imagenet_utils
from .common import build_model, check_weights_and_classes, classifier, image_input, pooled

__all__ = ["InceptionV3", "preprocess_input", "decode_predictions"]

_WEIGHTS = "https://storage.googleapis.com/tensorflow/keras-applications/inception_v3/"
_TOP = ("inception_v3_weights_tf_dim_ordering_tf_kernels.h5",
        "9a0d58056eeedaa3f26cb7ebd46da564")
_NOTOP = ("inception_v3_weights_tf_dim_ordering_tf_kernels_notop.h5",
          "bcbd6486424b2319ff4ef7d526e38f63")


def conv2d_bn(x, filters, num_row, num_col, padding="same", strides=(1, 1), name=None):
    """A convolution without bias, a batch norm without scale, and a ReLU."""
    bn_name = None if name is None else f"{name}_bn"
    conv_name = None if name is None else f"{name}_conv"
    bn_axis = 1 if image_data_format() == "channels_first" else 3
    x = layers.Conv2D(filters, (num_row, num_col), strides=strides, padding=padding,
                      use_bias=False, name=conv_name)(x)
    x = layers.BatchNormalization(axis=bn_axis, scale=False, name=bn_name)(x)
    return layers.Activation("relu", name=name)(x)


def _avg_pool_branch(x, filters):
    branch_pool = layers.AveragePooling2D((3, 3), strides=(1, 1), padding="same")(x)
    return conv2d_bn(branch_pool, filters, 1, 1)


def _block_35(x, pool_filters, axis, name):
    """An Inception-A block (35x35): 1x1, 5x5 and double 3x3 branches and a pool."""
    branch1x1 = conv2d_bn(x, 64, 1, 1)
    branch5x5 = conv2d_bn(x, 48, 1, 1)
    branch5x5 = conv2d_bn(branch5x5, 64, 5, 5)
    branch3x3dbl = conv2d_bn(x, 64, 1, 1)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
    branch_pool = _avg_pool_branch(x, pool_filters)
    return layers.concatenate([branch1x1, branch5x5, branch3x3dbl, branch_pool], axis=axis,
                              name=name)


def _block_17(x, filters_7x7, axis, name):
    """An Inception-B block (17x17): factorised 7x7 convolutions."""
    branch1x1 = conv2d_bn(x, 192, 1, 1)
    branch7x7 = conv2d_bn(x, filters_7x7, 1, 1)
    branch7x7 = conv2d_bn(branch7x7, filters_7x7, 1, 7)
    branch7x7 = conv2d_bn(branch7x7, 192, 7, 1)
    branch7x7dbl = conv2d_bn(x, filters_7x7, 1, 1)
    branch7x7dbl = conv2d_bn(branch7x7dbl, filters_7x7, 7, 1)
    branch7x7dbl = conv2d_bn(branch7x7dbl, filters_7x7, 1, 7)
    branch7x7dbl = conv2d_bn(branch7x7dbl, filters_7x7, 7, 1)
    branch7x7dbl = conv2d_bn(branch7x7dbl, 192, 1, 7)
    branch_pool = _avg_pool_branch(x, 192)
    return layers.concatenate([branch1x1, branch7x7, branch7x7dbl, branch_pool], axis=axis,
                              name=name)


def _block_8(x, axis, i):
    """An Inception-C block (8x8): split 1x3 / 3x1 convolutions."""
    branch1x1 = conv2d_bn(x, 320, 1, 1)
    branch3x3 = conv2d_bn(x, 384, 1, 1)
    branch3x3_1 = conv2d_bn(branch3x3, 384, 1, 3)
    branch3x3_2 = conv2d_bn(branch3x3, 384, 3, 1)
    branch3x3 = layers.concatenate([branch3x3_1, branch3x3_2], axis=axis, name=f"mixed9_{i}")
    branch3x3dbl = conv2d_bn(x, 448, 1, 1)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 384, 3, 3)
    branch3x3dbl_1 = conv2d_bn(branch3x3dbl, 384, 1, 3)
    branch3x3dbl_2 = conv2d_bn(branch3x3dbl, 384, 3, 1)
    branch3x3dbl = layers.concatenate([branch3x3dbl_1, branch3x3dbl_2], axis=axis)
    branch_pool = _avg_pool_branch(x, 192)
    return layers.concatenate([branch1x1, branch3x3, branch3x3dbl, branch_pool], axis=axis,
                              name=f"mixed{9 + i}")


def InceptionV3(include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
                input_shape=None, pooling=None, classes=1000,
                classifier_activation="softmax", name="inception_v3"):
    """InceptionV3 (Szegedy et al., CVPR 2016), as `tf.keras.applications.InceptionV3`.

    Args:
        include_top: whether to include the classifier ('avg_pool', 'predictions').
        weights: None, 'imagenet' or the path of a weights file.
        input_tensor: a Keras tensor (`tf.keras.Input`) to use as the image input.
        input_shape: the image shape when `include_top` is False or `weights`
            is not 'imagenet' (at least 75x75); (299, 299, 3) otherwise.
        pooling: None, 'avg' or 'max' when `include_top` is False.
        classes: the number of classes (1000 with ImageNet's classifier).
        classifier_activation: the activation of 'predictions'.
        name: the model's name.

    Returns:
        A functional `Model`; inputs through `inception_v3.preprocess_input` ('tf' mode).
    """
    check_weights_and_classes(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=299, min_size=75, data_format=image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = image_input(input_tensor, input_shape)
    axis = 1 if image_data_format() == "channels_first" else 3

    x = conv2d_bn(img_input, 32, 3, 3, strides=(2, 2), padding="valid")
    x = conv2d_bn(x, 32, 3, 3, padding="valid")
    x = conv2d_bn(x, 64, 3, 3)
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = conv2d_bn(x, 80, 1, 1, padding="valid")
    x = conv2d_bn(x, 192, 3, 3, padding="valid")
    x = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)

    x = _block_35(x, 32, axis, "mixed0")
    x = _block_35(x, 64, axis, "mixed1")
    x = _block_35(x, 64, axis, "mixed2")

    # mixed 3: 17 x 17 x 768
    branch3x3 = conv2d_bn(x, 384, 3, 3, strides=(2, 2), padding="valid")
    branch3x3dbl = conv2d_bn(x, 64, 1, 1)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3)
    branch3x3dbl = conv2d_bn(branch3x3dbl, 96, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = layers.concatenate([branch3x3, branch3x3dbl, branch_pool], axis=axis, name="mixed3")

    x = _block_17(x, 128, axis, "mixed4")
    x = _block_17(x, 160, axis, "mixed5")
    x = _block_17(x, 160, axis, "mixed6")
    x = _block_17(x, 192, axis, "mixed7")

    # mixed 8: 8 x 8 x 1280
    branch3x3 = conv2d_bn(x, 192, 1, 1)
    branch3x3 = conv2d_bn(branch3x3, 320, 3, 3, strides=(2, 2), padding="valid")
    branch7x7x3 = conv2d_bn(x, 192, 1, 1)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 1, 7)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 7, 1)
    branch7x7x3 = conv2d_bn(branch7x7x3, 192, 3, 3, strides=(2, 2), padding="valid")
    branch_pool = layers.MaxPooling2D((3, 3), strides=(2, 2))(x)
    x = layers.concatenate([branch3x3, branch7x7x3, branch_pool], axis=axis, name="mixed8")

    x = _block_8(x, axis, 0)
    x = _block_8(x, axis, 1)

    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        x = classifier(x, classes, classifier_activation, weights)
    else:
        x = pooled(x, pooling)
    file_name, file_hash = _TOP if include_top else _NOTOP
    return build_model(img_input, input_tensor, x, name, weights,
                       (file_name, _WEIGHTS + file_name, file_hash))


def preprocess_input(x, data_format=None):
    """Images in [0, 255] scaled to [-1, 1], as InceptionV3's weights expect ('tf' mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
