"""images.py: tf.io's image codecs (decode_png/jpeg/gif/bmp/image, encode_png/
jpeg) through Pillow, an optional extra (`pip install tapeflow[image]`), loaded
on first use. Shapes, dtypes, channel rules and errors are TF's; pixel values
of a decoded PNG, GIF or BMP are exact, a decoded JPEG may differ from TF's by
a level or two (both use libjpeg, with different IDCT and upsampling choices)."""

import io
import struct
import zlib

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor
from .files import one_byte_string, string_tensor, tf_type_name

__all__ = ["decode_png", "decode_jpeg", "decode_gif", "decode_bmp", "decode_image",
           "encode_png", "encode_jpeg", "is_jpeg"]

_UNKNOWN = ("Unknown image file format. One of JPEG, JPEG XL, PNG, GIF, BMP, WebP required. "
            "[Op:{op}]")
_MODES = {1: "L", 2: "LA", 3: "RGB", 4: "RGBA"}


def _pillow():
    try:
        from PIL import Image
    except ImportError:
        raise ImportError("tf.io's image encoders and decoders need Pillow, an optional "
                          "dependency of tapeflow: pip install tapeflow[image]") from None
    return Image


def _open(contents, op, draft_gray=False):
    data = one_byte_string(contents, "contents")
    Image = _pillow()
    try:
        image = Image.open(io.BytesIO(data))
        if draft_gray and image.format == "JPEG":
            image.draft("L", image.size)  # libjpeg's own gray output (its Y), as TF's
        image.load()
    except Exception:  # Pillow raises several types for data it cannot read
        raise InvalidArgumentError(_UNKNOWN.format(op=op)) from None
    return image


def _check_channels(channels, op, allowed=(0, 1, 3, 4)):
    channels = 0 if channels is None else int(channels)
    if channels not in allowed:
        raise InvalidArgumentError(f"`channels` must be 0, 1, 3 or 4 but got {channels} "
                                   f"[Op:{op}]")
    return channels


def _stored_channels(image):
    """The channels TF's decoders give with channels=0: as the file stores them."""
    if image.mode == "P":
        return 4 if "transparency" in image.info else 3
    return {1: 1, 2: 2, 3: 3, 4: 4}.get(len(image.getbands()), 3)


def _pixels(image, channels, dtype):
    """An (H, W, C) array of `image` (one frame) with `channels` (0: as stored)."""
    channels = channels or _stored_channels(image)
    if image.mode.startswith("I") and channels == 1:  # 16-bit grayscale
        wide = np.asarray(image).astype(np.uint16)
        array = wide if dtype == np.uint16 else (wide >> 8).astype(np.uint8)
        return array[..., None]
    if channels in (1, 2) and len(image.getbands()) >= 3 or image.mode == "P" and channels < 3:
        array = _to_gray(np.asarray(image.convert("RGB")))
        if channels == 2:
            alpha = np.asarray(image.convert("RGBA"))[..., 3:]
            array = np.concatenate([array, alpha], axis=-1)
    else:
        array = np.asarray(image.convert(_MODES[channels]))
    if array.ndim == 2:
        array = array[..., None]
    if dtype == np.uint16:  # 8-bit data widened as TF does (x * 257)
        array = array.astype(np.uint16) * np.uint16(257)
    return array


def _to_gray(rgb):
    """libpng's rgb_to_gray in TF's PNG decoder: 0.299 R + 0.587 G + 0.114 B in 15-bit
    fixed point, truncated (Pillow's convert("L") rounds, one level off in places)."""
    rgb = rgb.astype(np.uint32)
    gray = (9797 * rgb[..., 0] + 19234 * rgb[..., 1] + 3737 * rgb[..., 2]) >> 15
    return gray.astype(np.uint8)[..., None]


def _is_16_bit_color_png(contents):
    data = one_byte_string(contents, "contents")
    return data[:8] == b"\x89PNG\r\n\x1a\n" and data[24:25] == b"\x10" and data[25] in (2, 4, 6)


def _decode(contents, channels, dtype, op, expand_animations=False):
    image = _open(contents, op, draft_gray=channels == 1)
    if dtype == np.uint16 and _is_16_bit_color_png(contents):
        raise NotImplementedError("Decoding a 16-bit color PNG to uint16: Pillow reads those "
                                  "at 8 bits per sample. Decode with dtype=tf.uint8 (the high "
                                  "byte, as TF), or use a 16-bit reader such as imageio.")
    if expand_animations and getattr(image, "n_frames", 1) > 1:
        frames = []
        for index in range(image.n_frames):
            image.seek(index)
            frames.append(_pixels(image, 3 if channels == 0 else channels, dtype))
        return np.stack(frames)
    return _pixels(image, channels, dtype)


def _out_dtype(dtype, op, allowed=("uint8", "uint16")):
    d = dtypes.as_dtype(dtype)
    if d.name not in allowed:
        names = ", ".join(allowed)
        raise InvalidArgumentError(f"Value for attr 'dtype' of {tf_type_name(d)} is not in the "
                                   f"list of allowed values: {names} [Op:{op}]")
    return d._np.type


def decode_png(contents, channels=0, dtype=dtypes.uint8, name=None):
    """A PNG (or any still image Pillow reads, as TF's decoder accepts) as a
    `[height, width, channels]` uint8 or uint16 Tensor, as tf.io.decode_png.

    Args:
        channels: 0 (as stored), 1 (grayscale), 3 (RGB) or 4 (RGBA).
        dtype: tf.uint8 or tf.uint16 (8-bit images are scaled by 257).

    Raises:
        InvalidArgumentError: unreadable data, bad channels or dtype (TF's messages).
        ImportError: without Pillow (pip install tapeflow[image]).
    """
    t = _out_dtype(dtype, "DecodePng")
    return Tensor(_decode(contents, _check_channels(channels, "DecodePng"), t, "DecodePng"))


def decode_jpeg(contents, channels=0, ratio=1, fancy_upscaling=True,
                try_recover_truncated=False, acceptable_fraction=1, dct_method="", name=None):
    """A JPEG as a `[height, width, channels]` uint8 Tensor, as tf.io.decode_jpeg.
    `ratio` (1, 2, 4, 8) downscales as TF's; the other tuning arguments are accepted and
    ignored (Pillow's libjpeg defaults; values may differ from TF's by 1-2 levels)."""
    channels = _check_channels(channels, "DecodeJpeg")
    ratio = int(ratio)
    if ratio not in (1, 2, 4, 8):
        raise InvalidArgumentError(f"ratio must be 1, 2, 4, or 8, got {ratio} [Op:DecodeJpeg]")
    image = _open(contents, "DecodeJpeg", draft_gray=channels == 1)
    if ratio > 1:
        image = image.reduce(ratio)  # ceil(size / ratio), as libjpeg's scaled decoding
    return Tensor(_pixels(image, channels, np.uint8))


def decode_gif(contents, name=None):
    """Every frame of a GIF as a `[frames, height, width, 3]` uint8 Tensor, as
    tf.io.decode_gif."""
    image = _open(contents, "DecodeGif")
    frames = []
    for index in range(getattr(image, "n_frames", 1)):
        image.seek(index)
        frames.append(_pixels(image, 3, np.uint8))
    return Tensor(np.stack(frames))


def decode_bmp(contents, channels=0, name=None):
    """A BMP as a `[height, width, channels]` uint8 Tensor, as tf.io.decode_bmp."""
    channels = _check_channels(channels, "DecodeBmp", (0, 3, 4))
    return Tensor(_decode(contents, channels, np.uint8, "DecodeBmp"))


def decode_image(contents, channels=None, dtype=dtypes.uint8, name=None,
                 expand_animations=True):
    """Any of PNG, JPEG, GIF, BMP (and what else Pillow reads), as tf.io.decode_image.

    Returns:
        `[height, width, channels]`, or `[frames, height, width, 3]` for an animated
        GIF when `expand_animations`; in `dtype`: uint8/uint16 as stored, floats
        scaled to [0, 1] by tf.image.convert_image_dtype, as TF.
    """
    channels = _check_channels(channels, "DecodeImage")
    target = dtypes.as_dtype(dtype)
    raw = np.uint16 if target == dtypes.uint16 else np.uint8
    pixels = Tensor(_decode(contents, channels, raw, "DecodeImage", expand_animations))
    return pixels if target._np.type == raw else convert_image_dtype(pixels, target)


def is_jpeg(contents, name=None):
    """Whether `contents` starts with JPEG's magic bytes, as tf.io.is_jpeg."""
    return Tensor(np.bool_(one_byte_string(contents, "contents")[:3] == b"\xff\xd8\xff"))


def _image_input(image, op, allowed):
    """The pixels of `image` as an ndarray of an allowed dtype; Python lists of ints
    convert to uint8 as TF's do."""
    if not isinstance(image, (Tensor, np.ndarray)):
        value = np.asarray(image)
        if value.dtype.kind in "iu" and value.size and (value.min() < 0 or value.max() > 255):
            raise InvalidArgumentError(f"image values must be in [0, 255] for uint8, got "
                                       f"[{value.min()}, {value.max()}] [Op:{op}]")
        image = value.astype(np.uint8) if value.dtype.kind in "iub" else value
    x = as_tensor(image)
    if x.dtype.name not in allowed:
        names = ", ".join(allowed)
        raise InvalidArgumentError(f"Value for attr 'T' of {tf_type_name(x.dtype)} is not in "
                                   f"the list of allowed values: {names} [Op:{op}]; use "
                                   "tf.image.convert_image_dtype(image, tf.uint8) first.")
    if x._value.ndim != 3:
        raise InvalidArgumentError(f"images must be rank 3 [height, width, channels], got "
                                   f"shape {list(x._value.shape)} [Op:{op}]")
    return x._value


def _png_bytes(pixels, compression):
    """A 16-bit PNG written directly (Pillow writes 16-bit PNGs in grayscale only):
    signature, IHDR, one zlib IDAT of unfiltered big-endian rows, IEND."""
    height, width, channels = pixels.shape
    color_type = {1: 0, 2: 4, 3: 2, 4: 6}[channels]

    def chunk(kind, payload):
        body = kind + payload
        return struct.pack(">I", len(payload)) + body + struct.pack(">I", zlib.crc32(body))

    rows = np.ascontiguousarray(pixels.astype(">u2")).reshape(height, -1).view(np.uint8)
    raw = np.concatenate([np.zeros((height, 1), np.uint8), rows], axis=1).tobytes()
    level = int(compression)
    header = struct.pack(">IIBBBBB", width, height, 16, color_type, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw, 6 if level < 0 else min(level, 9)))
            + chunk(b"IEND", b""))


def encode_png(image, compression=-1, name=None):
    """A `[height, width, channels]` uint8/uint16 image (1-4 channels) as a scalar
    string Tensor of PNG bytes, as tf.io.encode_png (`compression` 0-9, -1: default)."""
    pixels = _image_input(image, "EncodePng", ("uint8", "uint16"))
    channels = pixels.shape[-1]
    if channels not in (1, 2, 3, 4):
        raise InvalidArgumentError(f"image must have 1, 2, 3, or 4 channels, got "
                                   f"{list(pixels.shape)} [Op:EncodePng]")
    if pixels.dtype == np.uint16:
        return string_tensor(_png_bytes(pixels, compression))
    Image = _pillow()
    picture = Image.fromarray(pixels[..., 0] if channels == 1 else pixels)
    buffer = io.BytesIO()
    level = int(compression)
    picture.save(buffer, format="PNG", compress_level=6 if level < 0 else min(level, 9))
    return string_tensor(buffer.getvalue())


def encode_jpeg(image, format="", quality=95, progressive=False, optimize_size=False,
                chroma_downsampling=True, density_unit="in", x_density=300, y_density=300,
                xmp_metadata="", name=None):
    """A `[height, width, channels]` uint8 image (1 or 3 channels) as a scalar string
    Tensor of JPEG bytes, as tf.io.encode_jpeg (bytes differ from TF's encoder)."""
    pixels = _image_input(image, "EncodeJpeg", ("uint8",))
    if pixels.shape[-1] not in (1, 3):
        raise InvalidArgumentError(f"image must have 1 or 3 channels, got "
                                   f"{list(pixels.shape)} [Op:EncodeJpeg]")
    Image = _pillow()
    picture = Image.fromarray(pixels[..., 0] if pixels.shape[-1] == 1 else pixels)
    buffer = io.BytesIO()
    dpi = (int(x_density), int(y_density)) if density_unit == "in" else None
    picture.save(buffer, format="JPEG", quality=int(quality), progressive=bool(progressive),
                 optimize=bool(optimize_size), subsampling=2 if chroma_downsampling else 0,
                 **({"dpi": dpi} if dpi else {}))
    return string_tensor(buffer.getvalue())


# Last, not first: tf.image re-exports these codecs (image/__init__ imports this
# module), so when tf.io is imported first, tf.image must find them defined.
from ..image.color import convert_image_dtype  # noqa: E402
