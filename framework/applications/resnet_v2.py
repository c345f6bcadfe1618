"""resnet_v2.py is `tf.keras.applications.resnet_v2`: the V2 models (built in
resnet.py) with their own preprocessing, 'tf' mode as in Keras."""

from . import imagenet_utils
from .resnet import ResNet50V2, ResNet101V2, ResNet152V2

__all__ = ["ResNet50V2", "ResNet101V2", "ResNet152V2", "preprocess_input",
           "decode_predictions"]


def preprocess_input(x, data_format=None):
    """Images in [0, 255] scaled to [-1, 1], as the V2 weights expect ('tf' mode)."""
    return imagenet_utils.preprocess_input(x, data_format=data_format, mode="tf")


decode_predictions = imagenet_utils.decode_predictions
