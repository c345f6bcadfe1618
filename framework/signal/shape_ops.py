"""shape_ops.py: tf.signal.frame and tf.signal.overlap_and_add, as gathers and
scatter-adds of sample indices (so their gradients are each other)."""

import numpy as np

from ..api.array_ops import pad
from ..core.args import normalize_axis
from ..core.tensor import Tensor, as_tensor
from ..ops.shape import gather, scatter_add

__all__ = ["frame", "overlap_and_add"]


def _positive_int(value, what, allow_zero=False):
    if isinstance(value, Tensor):
        if value._value.ndim != 0:
            raise ValueError(f"{what} must be a scalar, got shape {tuple(value._value.shape)}.")
        value = value._value
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{what} must be an integer, got {value!r}.")
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{what} must be {'non-negative' if allow_zero else 'positive'}, "
                         f"got {int(value)}.")
    return int(value)


def _frame_indices(num_frames, frame_length, frame_step):
    return (np.arange(num_frames, dtype=np.int64)[:, None] * frame_step
            + np.arange(frame_length, dtype=np.int64)[None, :])


def frame(signal, frame_length, frame_step, pad_end=False, pad_value=0, axis=-1, name=None):
    """Split `signal`'s `axis` into frames of `frame_length`, `frame_step` apart, as
    tf.signal.frame.

    Without `pad_end` only frames that fit are made: 1 + (N - frame_length) //
    frame_step of them (none when N < frame_length); with it, ceil(N / frame_step)
    frames, the end padded with `pad_value`.

    Returns:
        A Tensor of shape `[..., num_frames, frame_length, ...]` in `axis`'s place.

    Raises:
        ValueError: a rank-0 signal, a non-positive frame_step or negative frame_length.
    """
    x = as_tensor(signal)
    if x._value.ndim < 1:
        raise ValueError(f"Shape {tuple(x._value.shape)} must have rank at least 1 "
                         "(tf.signal.frame's signal).")
    frame_length = _positive_int(frame_length, "frame_length", allow_zero=True)
    frame_step = _positive_int(frame_step, "frame_step")
    axis = normalize_axis(axis, x._value.ndim, "frame")[0]
    length = x._value.shape[axis]
    if pad_end:
        num_frames = -(-length // frame_step)
        extra = max(0, frame_length + frame_step * (num_frames - 1) - length)
        if extra:
            paddings = [[0, 0]] * x._value.ndim
            paddings[axis] = [0, extra]
            x = pad(x, paddings, constant_values=pad_value)
    else:
        num_frames = max(0, 1 + (length - frame_length) // frame_step)
    indices = _frame_indices(num_frames, frame_length, frame_step)
    return gather(x, Tensor(indices), axis=axis)


def overlap_and_add(signal, frame_step, name=None):
    """Sum overlapping frames into one signal, as tf.signal.overlap_and_add.

    Args:
        signal: a `[..., frames, frame_length]` Tensor (rank >= 2).
        frame_step: the distance in samples between the starts of two frames.

    Returns:
        A `[..., output_size]` Tensor, output_size = (frames - 1) * frame_step +
        frame_length.

    Raises:
        ValueError: a signal of rank < 2, a non-positive frame_step.
    """
    x = as_tensor(signal)
    if x._value.ndim < 2:
        raise ValueError(f"Shape {tuple(x._value.shape)} must have rank at least 2 "
                         "(tf.signal.overlap_and_add's signal: [..., frames, frame_length]).")
    frame_step = _positive_int(frame_step, "frame_step")
    frames, frame_length = x._value.shape[-2:]
    size = max(0, (frames - 1) * frame_step + frame_length)  # TF: [0, 4] step 2 -> [2]
    indices = _frame_indices(frames, frame_length, frame_step)
    return scatter_add(x, Tensor(indices), axis=x._value.ndim - 2, size=size)
