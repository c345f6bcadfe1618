"""image.py holds the sampling plan of TF's ImageProjectiveTransformV3 (the kernel
behind Keras's affine image layers, layers/preprocessing_affine.py) as ops: from
a batch of transforms, where each output pixel reads (`projective_taps`) and with
which weights (`projective_weights`). Ops, so that a traced training step replays
them on each step's newly drawn transforms (computed in NumPy on a traced tensor,
they made the whole step run eagerly). Not differentiable: TF registers no
gradient for the transforms; the images' gradient flows through `gather`."""

import numpy as np

from .registry import defop

__all__ = ["FILL_MODES", "INTERPOLATIONS", "projective_taps", "projective_weights"]

FILL_MODES = ("reflect", "wrap", "constant", "nearest")
INTERPOLATIONS = ("nearest", "bilinear")


def _map_coordinates(coord, length, fill_mode):
    """TF's MapCoordinate: an input coordinate outside [0, length - 1] brought back
    in by reflection ('reflect': d c b a | a b c d | d c b a), wrapping or
    clamping ('nearest'); 'constant' leaves it (the read gives the fill value)."""
    if fill_mode == "constant":
        return coord
    if length <= 1:
        return np.zeros_like(coord)
    coord = coord.copy()
    low, high = coord < 0, coord > length - 1
    if fill_mode == "reflect":
        period = 2 * length
        c = coord[low]
        c = period * np.trunc(-c / period) + c
        coord[low] = np.where(c < -length, c + period, -c - 1)
        c = coord[high]
        c = c - period * np.trunc(c / period)
        coord[high] = np.where(c >= length, period - c - 1, c)
    elif fill_mode == "wrap":
        size = length - 1
        coord[low] += length * (np.trunc(-coord[low] / size) + 1)
        coord[high] -= length * np.trunc(coord[high] / size)
    return np.clip(coord, 0, length - 1)


def _round_half_away(values):
    return np.sign(values) * np.floor(np.abs(values) + 0.5)  # C's std::round


def _taps(x, y, interpolation):
    """[(row, column, weight)] of the input pixels an output pixel reads."""
    if interpolation == "nearest":
        return [(_round_half_away(y), _round_half_away(x), np.ones_like(x))]
    y0, x0 = np.floor(y), np.floor(x)
    y1, x1 = y0 + 1, x0 + 1
    return [(y0, x0, (y1 - y) * (x1 - x)), (y0, x1, (y1 - y) * (x - x0)),
            (y1, x0, (y - y0) * (x1 - x)), (y1, x1, (y - y0) * (x - x0))]


# The last plan made, (key, taps): the two ops ask for the same one in a row.
_last_plan = [None]


def _plan(transforms, height, width, interpolation, fill_mode):
    """[(row, column, weight, inside)] per tap, for transforms (batch, 8): [a0, a1,
    a2, b0, b1, b2, c0, c1], mapping output (x, y) to input ((a0 x + a1 y + a2) / k,
    (b0 x + b1 y + b2) / k), k = c0 x + c1 y + 1 (pixel indices; x along the
    width); `inside`: the tap reads the image and the projection is finite. Made
    once for `projective_taps` and `projective_weights` of the same transforms."""
    transforms = np.asarray(transforms, np.float32)
    key = (transforms.tobytes(), transforms.shape, height, width, interpolation, fill_mode)
    last = _last_plan[0]
    if last is not None and last[0] == key:
        return last[1]
    taps = _make_plan(transforms, height, width, interpolation, fill_mode)
    _last_plan[0] = (key, taps)  # one assignment: a thread reads the old or the new
    return taps


def _make_plan(transforms, height, width, interpolation, fill_mode):
    transforms = transforms[:, :, None, None]
    grid_y, grid_x = np.meshgrid(np.arange(height, dtype=np.float32),
                                 np.arange(width, dtype=np.float32), indexing="ij")
    a0, a1, a2, b0, b1, b2, c0, c1 = (transforms[:, i] for i in range(8))
    projection = c0 * grid_x + c1 * grid_y + 1
    infinite = projection == 0  # TF returns the fill value there
    projection = np.where(infinite, 1, projection)
    x = _map_coordinates((a0 * grid_x + a1 * grid_y + a2) / projection, width, fill_mode)
    y = _map_coordinates((b0 * grid_x + b1 * grid_y + b2) / projection, height, fill_mode)
    taps = []
    for rows, cols, weight in _taps(x, y, interpolation):
        inside = (rows >= 0) & (rows < height) & (cols >= 0) & (cols < width) & ~infinite
        taps.append((rows, cols, weight, inside))
    return taps


@defop(differentiable=False)
def projective_taps(transforms, height, width, interpolation, fill_mode):
    """(taps, batch, height, width) int64: the row of the images flattened to
    (batch * height * width, channels) that each tap of each output pixel reads
    (0 where it reads outside: its weight is 0 there)."""
    batch = transforms.shape[0]
    first_pixel = (np.arange(batch) * height * width)[:, None, None]
    taps = _plan(transforms, height, width, interpolation, fill_mode)
    return np.stack([first_pixel + np.where(inside, rows * width + cols, 0).astype(np.int64)
                     for rows, cols, _, inside in taps]).reshape(
                         (len(taps), batch, height, width))


@defop(differentiable=False)
def projective_weights(transforms, height, width, interpolation, fill_mode, dtype):
    """(taps + 1, batch, height, width) of `dtype`: each tap's weight (0 where it
    reads outside), then the weight of the fill value (the outside taps' sum)."""
    taps = _plan(transforms, height, width, interpolation, fill_mode)
    fill = np.zeros((transforms.shape[0], height, width), np.float64)
    weights = []
    for _, _, weight, inside in taps:
        weights.append(np.where(inside, weight, 0))
        fill += np.where(inside, 0, weight)
    return np.stack(weights + [fill]).astype(dtype)
