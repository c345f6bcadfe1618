"""timeseries.py is `keras.utils.timeseries_dataset_from_array`: sliding
windows over an array as a tf.data Dataset, cut when iterated (a window is a
slice of the array, so the windows are never all in memory at once)."""

import numpy as np

from ..core.tensor import Tensor
from ..data import Dataset

__all__ = ["timeseries_dataset_from_array"]


def timeseries_dataset_from_array(data, targets, sequence_length, sequence_stride=1,
                                  sampling_rate=1, batch_size=128, shuffle=False, seed=None,
                                  start_index=None, end_index=None):
    """Windows of `sequence_length` time steps (every `sampling_rate`-th row of
    `data`), starting every `sequence_stride` rows, batched; with `targets`,
    the target of a window is `targets[start]`, the row its window starts at.

    >>> data = np.arange(100)
    >>> ds = timeseries_dataset_from_array(data[:-10], data[10:], sequence_length=10)
    >>> x, y = next(iter(ds))   # x[0] = [0, 1, ..., 9], y[0] = 10

    Raises:
        ValueError: for a non-positive rate, stride or length, indices outside
            the data, or targets of another length.
    """
    data = np.asarray(data.numpy() if isinstance(data, Tensor) else data)
    if targets is not None:
        targets = np.asarray(targets.numpy() if isinstance(targets, Tensor) else targets)
        if len(targets) != len(data):
            raise ValueError("Expected data and targets to have the same number of time steps "
                             f"(axis 0) but got data.shape[0]={len(data)} and "
                             f"targets.shape[0]={len(targets)}")
    for name, value in (("sequence_length", sequence_length), ("sampling_rate", sampling_rate),
                        ("sequence_stride", sequence_stride)):
        if int(value) <= 0:
            raise ValueError(f"`{name}` must be higher than 0. Received: {name}={value}")
    start_index = 0 if start_index is None else int(start_index)
    end_index = len(data) if end_index is None else int(end_index)
    if not 0 <= start_index < len(data):
        raise ValueError("`start_index` must be 0 or greater and lower than the length of "
                         f"data. Received: start_index={start_index} for data of length "
                         f"{len(data)}")
    if not start_index < end_index <= len(data):
        raise ValueError("`end_index` must be higher than `start_index` and not more than the "
                         f"length of data. Received: start_index={start_index}, and "
                         f"end_index={end_index}")
    num_sequences = end_index - start_index - (sequence_length - 1) * sampling_rate
    if targets is not None:
        num_sequences = min(num_sequences, len(targets))
    starts = np.arange(0, max(num_sequences, 0), sequence_stride, dtype=np.int64) + start_index
    if shuffle:
        np.random.RandomState(np.random.randint(1e6) if seed is None else seed).shuffle(starts)
    span = sequence_length * sampling_rate

    def window(start):
        start = int(start.numpy())
        return Tensor(data[start:start + span:sampling_rate])

    def window_and_target(start):
        return window(start), Tensor(targets[int(start.numpy())])

    dataset = Dataset.from_tensor_slices(starts).map(
        window if targets is None else window_and_target)
    if shuffle:
        dataset = dataset.shuffle(buffer_size=batch_size * 8 if batch_size else 1024, seed=seed)
    return dataset if batch_size is None else dataset.batch(batch_size)
