"""png.py encodes uint8 images as PNG files with zlib and struct alone (no imaging
library), for `tf.summary.image`: 8-bit grayscale, grayscale+alpha, RGB or RGBA,
every row stored unfiltered. It knows nothing about tensors or summaries."""

import struct
import zlib

import numpy as np

__all__ = ["encode_png"]

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type


def _chunk(kind, data):
    return (struct.pack(">I", len(data)) + kind + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))


def encode_png(image, compression=6):
    """The PNG file of a uint8 array of shape [height, width, channels] (1 to 4 channels).

    Raises:
        ValueError: for another rank, dtype or channel count, or a side of 0 pixels
            (PNG has no empty images).
    """
    image = np.asarray(image)
    if image.ndim != 3 or image.dtype != np.uint8 or image.shape[-1] not in _COLOR_TYPES \
            or 0 in image.shape[:2]:
        raise ValueError(f"encode_png takes a uint8 image of shape [height, width, channels] "
                         f"with 1 to 4 channels and no empty side; got dtype {image.dtype} "
                         f"and shape {image.shape}.")
    height, width, channels = image.shape
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOR_TYPES[channels], 0, 0, 0)
    rows = np.zeros((height, 1 + width * channels), dtype=np.uint8)  # filter byte 0: none
    rows[:, 1:] = image.reshape(height, width * channels)
    return (_SIGNATURE + _chunk(b"IHDR", header)
            + _chunk(b"IDAT", zlib.compress(rows.tobytes(), compression))
            + _chunk(b"IEND", b""))
