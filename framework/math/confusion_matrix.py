"""confusion_matrix.py: tf.math.confusion_matrix, the counts (optionally
weighted) of each (label, prediction) pair; not differentiable."""

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor

__all__ = ["confusion_matrix"]


def confusion_matrix(labels, predictions, num_classes=None, weights=None, dtype=dtypes.int32,
                     name=None):
    """The (num_classes, num_classes) matrix whose [i, j] counts the examples with label
    i predicted as j (summing `weights` when given), as tf.math.confusion_matrix.
    `num_classes` defaults to one more than the largest label or prediction.

    Raises:
        InvalidArgumentError: for negative entries, entries >= num_classes, or labels and
            predictions of different shapes.
    """
    y = np.asarray(as_tensor(labels)._value).reshape(-1)
    p = np.asarray(as_tensor(predictions)._value).reshape(-1)
    if y.shape != p.shape:
        raise InvalidArgumentError(f"confusion_matrix: labels and predictions must have the "
                                   f"same number of entries, got {y.size} and {p.size}.")
    if y.dtype.kind not in "iu" or p.dtype.kind not in "iu":
        y, p = y.astype(np.int64), p.astype(np.int64)
    if y.size and (y.min() < 0 or p.min() < 0):
        raise InvalidArgumentError("confusion_matrix: labels and predictions must be "
                                   "non-negative.")
    n = int(num_classes) if num_classes is not None else (
        int(max(y.max(initial=-1), p.max(initial=-1))) + 1)
    if y.size and (y.max() >= n or p.max() >= n):
        raise InvalidArgumentError(f"confusion_matrix: labels and predictions must be < "
                                   f"num_classes={n}; the largest is "
                                   f"{int(max(y.max(), p.max()))}.")
    np_dtype = dtypes.as_dtype(dtype)._np
    w = np.ones(y.size) if weights is None else np.asarray(
        as_tensor(weights)._value, np.float64).reshape(-1)
    out = np.zeros((n, n), np.float64)
    np.add.at(out, (y, p), w)
    return Tensor(out.astype(np_dtype))
