"""vgg16.py is `tf.keras.applications.vgg16` (the model is built in vgg.py)."""

from .vgg import VGG16, decode_predictions, preprocess_input

__all__ = ["VGG16", "preprocess_input", "decode_predictions"]
