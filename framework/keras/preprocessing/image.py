"""`keras.preprocessing.image`: image arrays and files (tapeflow.utils.images)."""

from ...utils.images import array_to_img, img_to_array, load_img, save_img

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img"]
