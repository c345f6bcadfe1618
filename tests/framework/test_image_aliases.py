"""tf.image's names for tf.io's image codecs (TF exposes them in both namespaces)."""

import numpy as np
import pytest

import tapeflow as tf


@pytest.mark.parametrize("name", ["decode_image", "decode_png", "decode_jpeg", "decode_gif",
                                  "decode_bmp", "encode_png", "encode_jpeg", "is_jpeg"])
def test_image_codecs_are_io_codecs(name):
    assert getattr(tf.image, name) is getattr(tf.io, name)


def test_png_round_trip_through_tf_image():
    pytest.importorskip("PIL")
    pixels = np.arange(12, dtype=np.uint8).reshape(2, 2, 3)
    decoded = tf.image.decode_image(tf.image.encode_png(tf.constant(pixels)))
    np.testing.assert_array_equal(decoded.numpy(), pixels)


def test_io_imported_before_image_has_no_import_cycle():
    import subprocess
    import sys
    code = "import tapeflow.io, tapeflow.image as i; assert i.decode_png is tapeflow.io.decode_png"
    subprocess.run([sys.executable, "-c", code], check=True)
