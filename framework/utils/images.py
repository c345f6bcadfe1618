"""images.py converts between NumPy image arrays and Pillow images, as
`keras.utils.array_to_img` / `img_to_array` / `load_img` / `save_img`. Pillow
is optional: it is imported when an image is made or read, and its absence is
an ImportError that says so."""

import numpy as np

from ..core.tensor import Tensor

__all__ = ["array_to_img", "img_to_array", "load_img", "save_img", "aspect_crop_box"]

_INTERPOLATION = ("nearest", "bilinear", "bicubic", "hamming", "box", "lanczos")


def _pillow():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("Could not import PIL.Image. The use of `array_to_img`, "
                          "`load_img` and `save_img` requires Pillow: pip install pillow"
                          ) from None
    return Image


def _data_format(data_format):
    data_format = data_format or "channels_last"
    if data_format not in ("channels_first", "channels_last"):
        raise ValueError(f"Invalid data_format: {data_format}")
    return data_format


def array_to_img(x, data_format=None, scale=True, dtype=None):
    """A Pillow image of a 3-D array (height, width, channels) with 1, 3 or 4 channels.

    With `scale`, values are shifted and scaled to span [0, 255], as Keras does.

    Raises:
        ValueError: for an array that is not 3-D or has another number of channels.
    """
    image = _pillow()
    x = np.asarray(x.numpy() if isinstance(x, Tensor) else x, dtype=dtype or "float32")
    if x.ndim != 3:
        raise ValueError(f"Expected image array to have rank 3 (single image). Got array "
                         f"with shape: {x.shape}")
    if _data_format(data_format) == "channels_first":
        x = x.transpose(1, 2, 0)
    if scale:
        x = x - np.min(x)
        x_max = np.max(x)
        if x_max != 0:
            x /= x_max
        x *= 255
    channels = x.shape[2]
    if channels == 4:
        return image.fromarray(x.astype("uint8"), "RGBA")
    if channels == 3:
        return image.fromarray(x.astype("uint8"), "RGB")
    if channels == 1:
        if np.max(x) > 255:  # 32-bit signed integer grayscale
            return image.fromarray(x[:, :, 0].astype("int32"), "I")
        return image.fromarray(x[:, :, 0].astype("uint8"), "L")
    raise ValueError(f"Unsupported channel number: {channels}")


def img_to_array(img, data_format=None, dtype=None):
    """The image as a float32 array (height, width, channels); grayscale gets one channel.

    Raises:
        ValueError: for an image that is not 2-D or 3-D.
    """
    x = np.asarray(img, dtype=dtype or "float32")
    if x.ndim == 2:
        x = x[:, :, None]
    elif x.ndim != 3:
        raise ValueError(f"Unsupported image shape: {x.shape}")
    if _data_format(data_format) == "channels_first":
        x = x.transpose(2, 0, 1)
    return x


def aspect_crop_box(height, width, target_height, target_width):
    """(top, left, height, width) of the largest centred window of an image of
    (height, width) with the aspect ratio target_height:target_width, as Keras
    crops before resizing (`crop_to_aspect_ratio`, CenterCrop, RandomCrop)."""
    crop_height = max(min(height, int(width * target_height / target_width)), 1)
    crop_width = max(min(width, int(height * target_width / target_height)), 1)
    return (int((height - crop_height) / 2), int((width - crop_width) / 2), crop_height,
            crop_width)


def load_img(path, color_mode="rgb", target_size=None, interpolation="nearest",
             keep_aspect_ratio=False):
    """Read an image file into a Pillow image.

    Args:
        color_mode: 'grayscale', 'rgb' or 'rgba'.
        target_size: (height, width) to resize to, or None.
        interpolation: Pillow's filter: 'nearest', 'bilinear', 'bicubic', ...
        keep_aspect_ratio: crop the centre to the target's aspect ratio first.

    Raises:
        ValueError: for an unknown `color_mode` or `interpolation`.
    """
    image = _pillow()
    if color_mode not in ("grayscale", "rgb", "rgba"):
        raise ValueError('color_mode must be "grayscale", "rgb", or "rgba"')
    with open(path, "rb") as f:
        img = image.open(f)
        img.load()
    mode = {"grayscale": ("L", "I;16", "I"), "rgb": ("RGB",), "rgba": ("RGBA",)}[color_mode]
    if img.mode not in mode:
        img = img.convert(mode[0])
    if target_size is not None:
        width_height = (target_size[1], target_size[0])
        if img.size != width_height:
            if interpolation not in _INTERPOLATION:
                raise ValueError(f"Invalid interpolation method {interpolation} specified. "
                                 f"Supported methods are {', '.join(_INTERPOLATION)}")
            resample = getattr(image.Resampling, interpolation.upper())
            if keep_aspect_ratio:
                width, height = img.size
                crop_height = min(height, width * target_size[0] // target_size[1])
                crop_width = min(width, height * target_size[1] // target_size[0])
                top, left = (height - crop_height) // 2, (width - crop_width) // 2
                img = img.crop((left, top, left + crop_width, top + crop_height))
            img = img.resize(width_height, resample)
    return img


def save_img(path, x, data_format=None, file_format=None, scale=True, **kwargs):
    """Write an image array to a file (the format from the name unless given)."""
    img = array_to_img(x, data_format=data_format, scale=scale)
    if img.mode == "RGBA" and (file_format == "jpg" or str(path).lower().endswith(
            (".jpg", ".jpeg"))):
        img = img.convert("RGB")  # JPEG has no alpha channel
    img.save(path, format="jpeg" if file_format == "jpg" else file_format, **kwargs)
