"""resnet.py holds ResNet50/101/152 and their V2 (pre-activation) variants
(`tf.keras.applications.resnet`, `resnet50`, `resnet_v2`), ported layer for
layer from Keras 3's keras/src/applications/resnet.py and resnet_v2.py: the
same layer names, shapes and weights files."""

from .. import layers
from ..backend import image_data_format
from . import imagenet_utils
from .common import build_model, check_weights_and_classes, classifier, image_input, pooled

__all__ = ["ResNet", "ResNet50", "ResNet101", "ResNet152", "ResNet50V2", "ResNet101V2",
           "ResNet152V2", "preprocess_input", "decode_predictions"]

BASE_WEIGHTS_PATH = "https://storage.googleapis.com/tensorflow/keras-applications/resnet/"
WEIGHTS_HASHES = {  # weights name -> (hash with the top, hash without)
    "resnet50": ("2cb95161c43110f7111970584f804107", "4d473c1dd8becc155b73f8504c6f6626"),
    "resnet101": ("f1aeb4b969a6efcfb50fad2f0c20cfc5", "88cf7a10940856eca736dc7b7e228a21"),
    "resnet152": ("100835be76be38e30d865e96f2aaae62", "ee4c566cf9a93f14d82f913c2dc6dd0c"),
    "resnet50v2": ("3ef43a0b657b3be2300d5770ece849e0", "fac2f116257151a9d068a22e544a4917"),
    "resnet101v2": ("6343647c601c52e1368623803854d971", "c0ed64b8031c3730f411d2eb4eea35b5"),
    "resnet152v2": ("a49b44d1979771252814e80f8ec446f9", "ed17cf2e0169df9d443503ef94b23b33"),
}
_EPSILON = 1.001e-5


def _bn_axis():
    return 3 if image_data_format() == "channels_last" else 1


def _bn(name):
    return layers.BatchNormalization(axis=_bn_axis(), epsilon=_EPSILON, name=name)


def ResNet(stack_fn, preact, use_bias, include_top=True, weights="imagenet",  # noqa: N802
           input_tensor=None, input_shape=None, pooling=None, classes=1000,
           classifier_activation="softmax", name="resnet", weights_name=None):
    """A ResNet (`preact=False`) or ResNetV2 (`preact=True`) around the residual
    stacks `stack_fn(x)` builds; the other arguments as `ResNet50`."""
    check_weights_and_classes(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32, data_format=image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = image_input(input_tensor, input_shape)

    x = layers.ZeroPadding2D(padding=((3, 3), (3, 3)), name="conv1_pad")(img_input)
    x = layers.Conv2D(64, 7, strides=2, use_bias=use_bias, name="conv1_conv")(x)
    if not preact:
        x = _bn("conv1_bn")(x)
        x = layers.Activation("relu", name="conv1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name="pool1_pad")(x)
    x = layers.MaxPooling2D(3, strides=2, name="pool1_pool")(x)
    x = stack_fn(x)
    if preact:
        x = _bn("post_bn")(x)
        x = layers.Activation("relu", name="post_relu")(x)

    if include_top:
        x = layers.GlobalAveragePooling2D(name="avg_pool")(x)
        x = classifier(x, classes, classifier_activation, weights)
    else:
        x = pooled(x, pooling, avg_name="avg_pool", max_name="max_pool")

    suffix = ".h5" if include_top else "_notop.h5"
    file_name = f"{weights_name}_weights_tf_dim_ordering_tf_kernels{suffix}"
    hashes = WEIGHTS_HASHES.get(weights_name, (None, None))
    imagenet_file = (file_name, BASE_WEIGHTS_PATH + file_name, hashes[0 if include_top else 1])
    return build_model(img_input, input_tensor, x, name, weights, imagenet_file)


def residual_block_v1(x, filters, kernel_size=3, stride=1, conv_shortcut=True, name=None):
    """A ResNet V1 bottleneck block: 1x1, kxk, 1x1 (4 * filters) convolutions plus a shortcut."""
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(x)
        shortcut = _bn(f"{name}_0_bn")(shortcut)
    else:
        shortcut = x
    x = layers.Conv2D(filters, 1, strides=stride, name=f"{name}_1_conv")(x)
    x = _bn(f"{name}_1_bn")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.Conv2D(filters, kernel_size, padding="SAME", name=f"{name}_2_conv")(x)
    x = _bn(f"{name}_2_bn")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    x = _bn(f"{name}_3_bn")(x)
    x = layers.Add(name=f"{name}_add")([shortcut, x])
    return layers.Activation("relu", name=f"{name}_out")(x)


def stack_residual_blocks_v1(x, filters, blocks, stride1=2, name=None):
    """`blocks` V1 blocks, the first with a convolution shortcut and stride `stride1`."""
    x = residual_block_v1(x, filters, stride=stride1, name=f"{name}_block1")
    for i in range(2, blocks + 1):
        x = residual_block_v1(x, filters, conv_shortcut=False, name=f"{name}_block{i}")
    return x


def residual_block_v2(x, filters, kernel_size=3, stride=1, conv_shortcut=False, name=None):
    """A ResNet V2 block: batch norm and ReLU before each convolution."""
    preact = _bn(f"{name}_preact_bn")(x)
    preact = layers.Activation("relu", name=f"{name}_preact_relu")(preact)
    if conv_shortcut:
        shortcut = layers.Conv2D(4 * filters, 1, strides=stride, name=f"{name}_0_conv")(preact)
    else:
        shortcut = layers.MaxPooling2D(1, strides=stride)(x) if stride > 1 else x
    x = layers.Conv2D(filters, 1, strides=1, use_bias=False, name=f"{name}_1_conv")(preact)
    x = _bn(f"{name}_1_bn")(x)
    x = layers.Activation("relu", name=f"{name}_1_relu")(x)
    x = layers.ZeroPadding2D(padding=((1, 1), (1, 1)), name=f"{name}_2_pad")(x)
    x = layers.Conv2D(filters, kernel_size, strides=stride, use_bias=False,
                      name=f"{name}_2_conv")(x)
    x = _bn(f"{name}_2_bn")(x)
    x = layers.Activation("relu", name=f"{name}_2_relu")(x)
    x = layers.Conv2D(4 * filters, 1, name=f"{name}_3_conv")(x)
    return layers.Add(name=f"{name}_out")([shortcut, x])


def stack_residual_blocks_v2(x, filters, blocks, stride1=2, name=None):
    """`blocks` V2 blocks, the last with stride `stride1`."""
    x = residual_block_v2(x, filters, conv_shortcut=True, name=f"{name}_block1")
    for i in range(2, blocks):
        x = residual_block_v2(x, filters, name=f"{name}_block{i}")
    return residual_block_v2(x, filters, stride=stride1, name=f"{name}_block{blocks}")


def _v1_stacks(conv3, conv4):
    def stack_fn(x):
        x = stack_residual_blocks_v1(x, 64, 3, stride1=1, name="conv2")
        x = stack_residual_blocks_v1(x, 128, conv3, name="conv3")
        x = stack_residual_blocks_v1(x, 256, conv4, name="conv4")
        return stack_residual_blocks_v1(x, 512, 3, name="conv5")
    return stack_fn


def _v2_stacks(conv3, conv4):
    def stack_fn(x):
        x = stack_residual_blocks_v2(x, 64, 3, name="conv2")
        x = stack_residual_blocks_v2(x, 128, conv3, name="conv3")
        x = stack_residual_blocks_v2(x, 256, conv4, name="conv4")
        return stack_residual_blocks_v2(x, 512, 3, stride1=1, name="conv5")
    return stack_fn


def ResNet50(include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
             input_shape=None, pooling=None, classes=1000, classifier_activation="softmax",
             name="resnet50"):
    """ResNet50 (He et al., CVPR 2015), as `tf.keras.applications.ResNet50`.

    Args:
        include_top: whether to include the classifier ('avg_pool', 'predictions').
        weights: None (random initialization), 'imagenet' (downloaded through
            `tf.keras.utils.get_file`) or the path of a weights file.
        input_tensor: a Keras tensor (`tf.keras.Input`) to use as the image input.
        input_shape: the image shape when `include_top` is False or `weights`
            is not 'imagenet' (at least 32x32); (224, 224, 3) otherwise.
        pooling: None, 'avg' or 'max' when `include_top` is False.
        classes: the number of classes (1000 with ImageNet's classifier).
        classifier_activation: the activation of 'predictions' (None or
            'softmax' with pretrained weights).
        name: the model's name.

    Returns:
        A functional `Model`. Inputs are expected through `resnet.preprocess_input`
        ('caffe' mode); the V2 models through `resnet_v2.preprocess_input` ('tf').
    """
    return ResNet(_v1_stacks(4, 6), False, True, include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation, name, "resnet50")


def ResNet101(include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
              input_shape=None, pooling=None, classes=1000, classifier_activation="softmax",
              name="resnet101"):
    """ResNet101, as `tf.keras.applications.ResNet101`; arguments as `ResNet50`."""
    return ResNet(_v1_stacks(4, 23), False, True, include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation, name, "resnet101")


def ResNet152(include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
              input_shape=None, pooling=None, classes=1000, classifier_activation="softmax",
              name="resnet152"):
    """ResNet152, as `tf.keras.applications.ResNet152`; arguments as `ResNet50`."""
    return ResNet(_v1_stacks(8, 36), False, True, include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation, name, "resnet152")


def ResNet50V2(include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
               input_shape=None, pooling=None, classes=1000, classifier_activation="softmax",
               name="resnet50v2"):
    """ResNet50V2 (He et al., ECCV 2016), as `tf.keras.applications.ResNet50V2`;
    arguments as `ResNet50`."""
    return ResNet(_v2_stacks(4, 6), True, True, include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation, name, "resnet50v2")


def ResNet101V2(include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
                input_shape=None, pooling=None, classes=1000, classifier_activation="softmax",
                name="resnet101v2"):
    """ResNet101V2, as `tf.keras.applications.ResNet101V2`; arguments as `ResNet50`."""
    return ResNet(_v2_stacks(4, 23), True, True, include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation, name, "resnet101v2")


def ResNet152V2(include_top=True, weights="imagenet", input_tensor=None,  # noqa: N802
                input_shape=None, pooling=None, classes=1000, classifier_activation="softmax",
                name="resnet152v2"):
    """ResNet152V2, as `tf.keras.applications.ResNet152V2`; arguments as `ResNet50`."""
    return ResNet(_v2_stacks(8, 36), True, True, include_top, weights, input_tensor,
                  input_shape, pooling, classes, classifier_activation, name, "resnet152v2")


def preprocess_input(x, data_format=None):
    """Images in [0, 255] as ResNet's (V1) weights expect: RGB to BGR, each
    channel zero-centred by ImageNet's mean, without scaling ('caffe' mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


decode_predictions = imagenet_utils.decode_predictions
