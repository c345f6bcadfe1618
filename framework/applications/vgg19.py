"""vgg19.py is `tf.keras.applications.vgg19` (the model is built in vgg.py)."""

from .vgg import VGG19, decode_predictions, preprocess_input

__all__ = ["VGG19", "preprocess_input", "decode_predictions"]
