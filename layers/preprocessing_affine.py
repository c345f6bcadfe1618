"""preprocessing_affine.py holds the Keras layers that move pixels by an affine
map: RandomRotation, RandomZoom and RandomTranslation, and `affine_transform`,
which applies one as TF's ImageProjectiveTransformV3 does (the kernel Keras's
TF backend calls): each output pixel (x, y) reads the input at
(a0 x + a1 y + a2, b0 x + b1 y + b2), mapped into the image by `fill_mode`
and sampled nearest or bilinearly. The sampling plan (indices and weights) is
ops/image.py's; the images go through `gather`, so the result is differentiable
in them.
"""

import numpy as np

from ..api.array_ops import broadcast_to, cast, expand_dims, reshape
from ..api.indexing_ops import gather
from ..core.tensor import as_tensor
from ..math import add, multiply
from ..ops.image import FILL_MODES, INTERPOLATIONS, projective_taps, projective_weights
from ..random import draw
from .preprocessing_image import ImagePreprocessingLayer, factor_range

__all__ = ["affine_transform", "RandomRotation", "RandomZoom", "RandomTranslation"]

def affine_transform(images, transforms, interpolation="bilinear", fill_mode="constant",
                     fill_value=0.0):
    """Apply a projective transform per image, as TF's ImageProjectiveTransformV3.

    Args:
        images: (batch, height, width, channels).
        transforms: (batch, 8) or (8,): [a0, a1, a2, b0, b1, b2, c0, c1], mapping
            output (x, y) to input ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k),
            k = c0 x + c1 y + 1 (pixel indices; x along the width).
        interpolation: 'nearest' or 'bilinear'.
        fill_mode: 'reflect', 'wrap', 'nearest' or 'constant' (reads outside the
            image give `fill_value`).

    Returns:
        The transformed images, of the input's shape and dtype.

    Raises:
        ValueError: for an unknown mode, or transforms of the wrong shape.
    """
    if fill_mode not in FILL_MODES or interpolation not in INTERPOLATIONS:
        raise ValueError(f"affine_transform: fill_mode must be one of {FILL_MODES} and "
                         f"interpolation one of {INTERPOLATIONS}. Received: "
                         f"fill_mode={fill_mode!r}, interpolation={interpolation!r}")
    images = as_tensor(images)
    batch, height, width, channels = images.shape
    transforms = as_tensor(transforms)
    if transforms.shape.num_elements() % 8 or transforms.shape.num_elements() // 8 not in (
            1, batch):
        raise ValueError(f"affine_transform: transforms of shape {tuple(transforms.shape)} "
                         f"for a batch of {batch} images (8 numbers per image, or 8 for all).")
    transforms = broadcast_to(reshape(cast(transforms, "float32"), (-1, 8)), (batch, 8))
    plan = dict(height=height, width=width, interpolation=interpolation, fill_mode=fill_mode)
    index = projective_taps(transforms, **plan)  # the sampling plan: ops, so traced steps
    weights = projective_weights(transforms, dtype=images.dtype.as_numpy_dtype, **plan)
    flat = reshape(images, (batch * height * width, channels))
    out = None
    for tap in range(index.shape[0]):
        read = reshape(gather(flat, reshape(index[tap], (-1,))), (batch, height, width, channels))
        term = multiply(read, expand_dims(weights[tap], -1))
        out = term if out is None else add(out, term)
    if fill_value:
        out = add(out, multiply(expand_dims(weights[-1], -1), fill_value))
    return out


def _layer_transforms(rng, layer, batch, height, width):
    """The layer's random transforms, drawn through random.draw (a traced step draws anew)."""
    return layer._transforms(batch, height, width, rng)


class _AffineLayer(ImagePreprocessingLayer):
    """A random affine map per image in training; the images unchanged otherwise."""

    def __init__(self, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(seed=seed, data_format=data_format, **kwargs)
        if fill_mode not in FILL_MODES:
            raise NotImplementedError(f"Unknown `fill_mode` {fill_mode}. Expected of one "
                                      f"{FILL_MODES}.")
        if interpolation not in INTERPOLATIONS:
            raise NotImplementedError(f"Unknown `interpolation` {interpolation}. Expected of "
                                      f"one {INTERPOLATIONS}.")
        self.fill_mode, self.interpolation, self.fill_value = fill_mode, interpolation, fill_value

    def call(self, inputs, training=True):
        images, restore = self._as_batch(inputs)
        if not training:
            return restore(images)
        _, height, width, _ = images.shape
        matrices = draw(_layer_transforms, self, self, images.shape[0], height, width)
        return restore(affine_transform(images, matrices, self.interpolation, self.fill_mode,
                                        self.fill_value))

    def get_config(self):
        config = super().get_config()
        config.update({"fill_mode": self.fill_mode, "interpolation": self.interpolation,
                       "fill_value": self.fill_value})
        return config


def rotation_matrices(angles_degrees, height, width):
    """Keras's rotation about the image centre ((width - 1) / 2, (height - 1) / 2):
    a positive angle turns the image counter-clockwise."""
    theta = np.asarray(angles_degrees, np.float64) * np.pi / 180.0
    cos, sin = np.cos(theta), np.sin(theta)
    cx, cy = 0.5 * (width - 1), 0.5 * (height - 1)
    zeros = np.zeros_like(theta)
    return np.stack([cos, -sin, cx - cx * cos + cy * sin, sin, cos, cy - cx * sin - cy * cos,
                     zeros, zeros], axis=1)


class RandomRotation(_AffineLayer):
    """In training, rotate each image by a random angle in
    [lower * 360, upper * 360] degrees (`factor` f gives [-f, f]; positive is
    counter-clockwise), filling by `fill_mode` ('reflect' by default).

    Raises:
        ValueError: for a factor outside [-1, 1].
        NotImplementedError: for an unknown fill_mode or interpolation (as Keras).
    """

    def __init__(self, factor, fill_mode="reflect", interpolation="bilinear", seed=None,
                 fill_value=0.0, data_format=None, **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.factor = factor_range(factor, "factor", -1.0, 1.0, self.name)

    def _transforms(self, batch, height, width, rng):
        angles = rng.uniform(self.factor[0] * 360.0, self.factor[1] * 360.0, size=batch)
        return rotation_matrices(angles, height, width)

    def get_config(self):
        config = super().get_config()
        config.update({"factor": self.factor})
        return config


def _open_factor(factor, name, layer):
    """Zoom factors lie in (-1, 1] (a zoom of 1 + f must stay positive)."""
    lower, upper = factor_range(factor, name, -1.0, 1.0, layer)
    if lower <= -1.0:
        raise ValueError(f"Layer {layer!r}: `{name}` must be in (-1, 1]. Received: "
                         f"{name}={factor}")
    return lower, upper


class RandomZoom(_AffineLayer):
    """In training, zoom each image about its centre by 1 + f per axis, f uniform
    in the factor's range: a positive f zooms out, a negative one in. Without
    `width_factor` both axes take the same zoom.

    Raises:
        ValueError: for a factor outside (-1, 1].
    """

    def __init__(self, height_factor, width_factor=None, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._height_range = _open_factor(height_factor, "height_factor", self.name)
        self._width_range = (None if width_factor is None
                             else _open_factor(width_factor, "width_factor", self.name))

    def _transforms(self, batch, height, width, rng):
        zoom_y = 1.0 + rng.uniform(*self._height_range, size=batch)
        zoom_x = zoom_y if self._width_range is None else 1.0 + rng.uniform(
            *self._width_range, size=batch)
        zeros = np.zeros(batch)
        return np.stack([zoom_x, zeros, (width - 1) / 2.0 * (1.0 - zoom_x), zeros, zoom_y,
                         (height - 1) / 2.0 * (1.0 - zoom_y), zeros, zeros], axis=1)

    def get_config(self):
        config = super().get_config()
        config.update({"height_factor": self.height_factor, "width_factor": self.width_factor})
        return config


class RandomTranslation(_AffineLayer):
    """In training, shift each image by (factor * height, factor * width) pixels,
    each factor uniform in its range ([-f, f] for a number f, within [-1, 1]);
    a positive shift moves the content down / right."""

    def __init__(self, height_factor, width_factor, fill_mode="reflect",
                 interpolation="bilinear", seed=None, fill_value=0.0, data_format=None,
                 **kwargs):
        super().__init__(fill_mode, interpolation, seed, fill_value, data_format, **kwargs)
        self.height_factor, self.width_factor = height_factor, width_factor
        self._height_range = factor_range(height_factor, "height_factor", -1.0, 1.0, self.name)
        self._width_range = factor_range(width_factor, "width_factor", -1.0, 1.0, self.name)

    def _transforms(self, batch, height, width, rng):
        dy = rng.uniform(*self._height_range, size=batch) * height
        dx = rng.uniform(*self._width_range, size=batch) * width
        zeros, ones = np.zeros(batch), np.ones(batch)
        return np.stack([ones, zeros, -dx, zeros, ones, -dy, zeros, zeros], axis=1)

    def get_config(self):
        config = super().get_config()
        config.update({"height_factor": self.height_factor, "width_factor": self.width_factor})
        return config
