"""vgg.py holds VGG16 and VGG19 (`tf.keras.applications.vgg16` / `vgg19`), ported
layer for layer from Keras 3's keras/src/applications/vgg16.py and vgg19.py:
the same layer names, shapes and weights files."""

from .. import layers
from ..backend import image_data_format
from . import imagenet_utils
from .common import build_model, check_weights_and_classes, classifier, image_input, pooled

__all__ = ["VGG16", "VGG19", "preprocess_input", "decode_predictions"]

_WEIGHTS = "https://storage.googleapis.com/tensorflow/keras-applications/"
# name -> (convolutions per block, hash with the top, hash without)
_VARIANTS = {
    "vgg16": ((2, 2, 3, 3, 3), "64373286793e3c8b2b4e3219cbf3544b",
              "6d6bbae143d832006294945121d1f1fc"),
    "vgg19": ((2, 2, 4, 4, 4), "cbe5617147190e668d6c5d5026f83318",
              "253f8cb515780f3b799900260a226db6"),
}


def _vgg(variant, include_top, weights, input_tensor, input_shape, pooling, classes,
         classifier_activation, name):
    check_weights_and_classes(weights, include_top, classes)
    input_shape = imagenet_utils.obtain_input_shape(
        input_shape, default_size=224, min_size=32, data_format=image_data_format(),
        require_flatten=include_top, weights=weights)
    img_input = image_input(input_tensor, input_shape)
    convs_per_block, top_hash, notop_hash = _VARIANTS[variant]
    x = img_input
    for block, (filters, convs) in enumerate(zip((64, 128, 256, 512, 512), convs_per_block), 1):
        for conv in range(1, convs + 1):
            x = layers.Conv2D(filters, (3, 3), activation="relu", padding="same",
                              name=f"block{block}_conv{conv}")(x)
        x = layers.MaxPooling2D((2, 2), strides=(2, 2), name=f"block{block}_pool")(x)
    if include_top:
        x = layers.Flatten(name="flatten")(x)
        x = layers.Dense(4096, activation="relu", name="fc1")(x)
        x = layers.Dense(4096, activation="relu", name="fc2")(x)
        x = classifier(x, classes, classifier_activation, weights)
    else:
        x = pooled(x, pooling)
    file_name = f"{variant}_weights_tf_dim_ordering_tf_kernels" + (
        ".h5" if include_top else "_notop.h5")
    return build_model(img_input, input_tensor, x, name, weights,
                       (file_name, f"{_WEIGHTS}{variant}/{file_name}",
                        top_hash if include_top else notop_hash))


def VGG16(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,  # noqa: N802
          pooling=None, classes=1000, classifier_activation="softmax", name="vgg16"):
    """The VGG16 model (Simonyan & Zisserman, ICLR 2015), as `tf.keras.applications.VGG16`.

    Args:
        include_top: whether to include the 3 fully-connected layers on top.
        weights: None (random initialization), 'imagenet' (downloaded through
            `tf.keras.utils.get_file`) or the path of a weights file.
        input_tensor: a Keras tensor (`tf.keras.Input`) to use as the image input.
        input_shape: the image shape when `include_top` is False (at least
            32x32); (224, 224, 3) otherwise.
        pooling: None, 'avg' or 'max': the global pooling after the last
            convolutional block when `include_top` is False.
        classes: the number of classes (1000 with ImageNet's classifier).
        classifier_activation: the activation of the 'predictions' layer
            (None or 'softmax' with pretrained weights).
        name: the model's name.

    Returns:
        A functional `Model`. Inputs are expected through `vgg16.preprocess_input`.
    """
    return _vgg("vgg16", include_top, weights, input_tensor, input_shape, pooling, classes,
                classifier_activation, name)


def VGG19(include_top=True, weights="imagenet", input_tensor=None, input_shape=None,  # noqa: N802
          pooling=None, classes=1000, classifier_activation="softmax", name="vgg19"):
    """The VGG19 model, as `tf.keras.applications.VGG19`; arguments as `VGG16`."""
    return _vgg("vgg19", include_top, weights, input_tensor, input_shape, pooling, classes,
                classifier_activation, name)


def preprocess_input(x, data_format=None):
    """Images in [0, 255] as VGG's weights expect: RGB to BGR, each channel
    zero-centred by ImageNet's mean, without scaling ('caffe' mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="caffe")


decode_predictions = imagenet_utils.decode_predictions
