"""The public `tf.image` namespace: re-exports only. Geometric ops are in
geometry.py, colour ops in color.py; all take HWC or NHWC images, as TF does."""

from .geometry import *  # noqa: F401,F403

from . import geometry as _geometry

__all__ = list(_geometry.__all__)
