"""resnet50.py is `tf.keras.applications.resnet50` (the model is built in resnet.py)."""

from .resnet import ResNet50, decode_predictions, preprocess_input

__all__ = ["ResNet50", "preprocess_input", "decode_predictions"]
