"""densenet.py is `tf.keras.applications.densenet`: DenseNet121/169/201, ported
layer for layer from Keras 3's keras/src/applications/densenet.py (the same
layer names, unnamed stem paddings included, and the same weights files)."""

from .. import layers
from ..backend import image_data_format
from . import imagenet_utils
from .common import build_model, check_weights_and_classes, classifier, image_input, pooled

__all__ = ["DenseNet121", "DenseNet169", "DenseNet201", "preprocess_input",
           "decode_predictions"]

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/densenet/"
# dense blocks -> (weights name, hash with the top, hash without)
_WEIGHTS = {
    (6, 12, 24, 16): ("densenet121", "9d60b8095a5708f2dcce2bca79d332c7",
                      "30ee3e1110167f948a6b9946edeeb738"),
    (6, 12, 32, 32): ("densenet169", "d699b8f76981ab1b30698df4c175e90b",
                      "b8c4d4c20dd625c148057b9ff1c1176b"),
    (6, 12, 48, 32): ("densenet201", "1ceb130c1ea1b78c3bf6114dbdfd8807",
                      "c13680b51ded0fb44dff2d8f86ac8bb1"),
}
_EPSILON = 1.001e-5


def _bn(name):
    axis = 3 if image_data_format() == "channels_last" else 1
    return layers.BatchNormalization(axis=axis, epsilon=_EPSILON, name=name)


def dense_block(x, blocks, name):
    """`blocks` conv blocks, each adding 32 channels."""
    for i in range(blocks):
        x = conv_block(x, 32, name=f"{name}_block{i + 1}")
    return x


def transition_block(x, reduction, name):
    """Batch norm, ReLU, a 1x1 convolution to `reduction` of the channels, 2x2 average pooling."""
    axis = 3 if image_data_format() == "channels_last" else 1
    x = _bn(f"{name}_bn")(x)
    x = layers.Activation("relu", name=f"{name}_relu")(x)
    x = layers.Conv2D(int(x.shape[axis] * reduction), 1, use_bias=False,
                      name=f"{name}_conv")(x)
    return layers.AveragePooling2D(2, strides=2, name=f"{name}_pool")(x)


def conv_block(x, growth_rate, name):
    """A bottleneck (1x1 then 3x3 convolution) whose `growth_rate` channels are
    concatenated to its input."""
    axis = 3 if image_data_format() == "channels_last" else 1
    x1 = _bn(f"{name}_0_bn")(x)
    x1 = layers.Activation("relu", name=f"{name}_0_relu")(x1)
    x1 = layers.Conv2D(4 * growth_rate, 1, use_bias=False, name=f"{name}_1_conv")(x1)
    x1 = _bn(f"{name}_1_bn")(x1)
    x1 = layers.Activation("relu", name=f"{name}_1_relu")(x1)
    x1 = layers.Conv2D(growth_rate, 3, padding="same", use_bias=False,
                       name=f"{name}_2_conv")(x1)
    return layers.Concatenate(axis=axis, name=f"{name}_concat")([x, x1])


def DenseNet(blocks, include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
             input_shape=None, pooling=None, classes=1000, classifier_activation="softmax",
             name="densenet"):
    """A DenseNet with `blocks` conv blocks in its four dense blocks; the other
    arguments as `DenseNet121`.

    Raises:
        ValueError: with the 'channels_first' image data format (as Keras), or
            for Keras's other invalid arguments.
    """
    if image_data_format() == "channels_first":
        raise ValueError("DenseNet does not support the `channels_first` image data format. "
                         "Switch to `channels_last` by editing your local config file at "
                         "~/.keras/keras.json")
    check_weights_and_classes(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32, data_format=image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = image_input(input_tensor, input_shape)

    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)))(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=False, name="conv1_conv")(x)
    x = _bn("conv1_bn")(x)
    x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)))(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1")(x)
    for stage, count in enumerate(blocks):
        x = dense_block(x, count, name=f"conv{stage + 2}")
        if stage < 3:
            x = transition_block(x, 0.5, name=f"pool{stage + 2}")
    x = _bn("bn")(x)
    x = layers.Activation("relu", name="relu")(x)

    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        x = classifier(x, classes, classifier_activation, weights)
    else:
        x = pooled(x, pooling, avg_name="avg_pool", max_name="max_pool")
    imagenet_file = None
    if weights == "imagenet":
        if tuple(blocks) not in _WEIGHTS:
            raise ValueError("weights_path undefined")
        weights_name, top_hash, notop_hash = _WEIGHTS[tuple(blocks)]
        file_name = f"{weights_name}_weights_tf_dim_ordering_tf_kernels" + (
            ".h5" if include_top else "_notop.h5")
        imagenet_file = (file_name, BASE_WEIGHTS_PATH + file_name,
                         top_hash if include_top else notop_hash)
    return build_model(img_input, input_tensor, x, name, weights, imagenet_file)


def DenseNet121(include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
                input_shape=None, pooling=None, classes=1000,
                classifier_activation="softmax", name="densenet121"):
    """DenseNet121 (Huang et al., CVPR 2017), as `tf.keras.applications.DenseNet121`.

    Args:
        include_top: whether to include the classifier ('avg_pool', 'predictions').
        weights: None, 'imagenet' or the path of a weights file.
        input_tensor: a Keras tensor (`tf.keras.Input`) to use as the image input.
        input_shape: the image shape when `include_top` is False or `weights`
            is not 'imagenet' (at least 32x32); (224, 224, 3) otherwise.
        pooling: None, 'avg' or 'max' when `include_top` is False.
        classes: the number of classes (1000 with ImageNet's classifier).
        classifier_activation: the activation of 'predictions'.
        name: the model's name.

    Returns:
        A functional `Model`; inputs through `densenet.preprocess_input` ('torch' mode).
    """
    return DenseNet([6, 12, 24, 16], include_top, weights, input_tensor, input_shape, pooling,
                    classes, classifier_activation, name=name)


def DenseNet169(include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
                input_shape=None, pooling=None, classes=1000,
                classifier_activation="softmax", name="densenet169"):
    """DenseNet169, as `tf.keras.applications.DenseNet169`; arguments as `DenseNet121`."""
    return DenseNet([6, 12, 32, 32], include_top, weights, input_tensor, input_shape, pooling,
                    classes, classifier_activation, name=name)


def DenseNet201(include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
                input_shape=None, pooling=None, classes=1000,
                classifier_activation="softmax", name="densenet201"):
    """DenseNet201, as `tf.keras.applications.DenseNet201`; arguments as `DenseNet121`."""
    return DenseNet([6, 12, 48, 32], include_top, weights, input_tensor, input_shape, pooling,
                    classes, classifier_activation, name=name)


def preprocess_input(x, data_format=None):
    """Images in [0, 255] as DenseNet's weights expect: scaled to [0, 1], then each
    channel normalised by ImageNet's mean and standard deviation ('torch' mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="torch")


decode_predictions = imagenet_utils.decode_predictions
