"""arrays.py holds Keras's NumPy helpers for labels and sequences:
`to_categorical`, `normalize` and `pad_sequences` (Keras 2's, which Keras 3
keeps as `keras.utils.pad_sequences`)."""

import numpy as np

from ..core.tensor import Tensor

__all__ = ["to_categorical", "normalize", "pad_sequences"]


def to_categorical(x, num_classes=None):
    """One-hot encode integer labels, as `tf.keras.utils.to_categorical` (float32).

    Raises:
        ValueError: for negative labels or labels >= num_classes.
    """
    x = np.asarray(x.numpy() if isinstance(x, Tensor) else x, dtype=np.int64)
    if x.ndim > 1 and x.shape[-1] == 1:
        x = x.reshape(x.shape[:-1])
    if x.size and x.min() < 0:
        raise ValueError(f"to_categorical: labels must be non-negative, got {x.min()}.")
    num_classes = int(x.max()) + 1 if num_classes is None else int(num_classes)
    if x.size and x.max() >= num_classes:
        raise ValueError(f"to_categorical: label {x.max()} is out of range for "
                         f"num_classes={num_classes}.")
    out = np.zeros(x.shape + (num_classes,), np.float32)
    np.put_along_axis(out, x[..., None], 1.0, axis=-1)
    return out


def normalize(x, axis=-1, order=2):
    """x divided by its `order`-norm along `axis`; all-zero slices stay zero.

    A NumPy array (or list) gives a NumPy array, as in Keras 2.
    """
    x = np.asarray(x.numpy() if isinstance(x, Tensor) else x)
    norm = np.atleast_1d(np.linalg.norm(x, order, axis))
    norm[norm == 0] = 1
    return x / np.expand_dims(norm, axis)


def pad_sequences(sequences, maxlen=None, dtype="int32", padding="pre", truncating="pre",
                  value=0.0):
    """Pad (or cut) a list of sequences to one length, as Keras's pad_sequences.

    Args:
        sequences: a list of sequences (lists or arrays; their items may be
            arrays of one common shape).
        maxlen: the length of the result; the longest sequence's by default.
        dtype: the result's dtype ('int32'; object for variable-length strings).
        padding: 'pre' or 'post': pad before or after each sequence.
        truncating: 'pre' or 'post': drop values from the start or the end of
            sequences longer than `maxlen`.
        value: the padding value.

    Returns:
        A NumPy array of shape `(len(sequences), maxlen) + item_shape`.

    Raises:
        ValueError: for a non-iterable entry, an unknown `padding` or
            `truncating`, a string `value` with a non-string dtype, or items
            whose shapes differ.

    >>> pad_sequences([[1], [2, 3], [4, 5, 6]]).tolist()
    [[0, 0, 1], [0, 2, 3], [4, 5, 6]]
    """
    if not hasattr(sequences, "__len__"):
        raise ValueError("`sequences` must be iterable.")
    if padding not in ("pre", "post"):
        raise ValueError(f'Padding type "{padding}" not understood')
    if truncating not in ("pre", "post"):
        raise ValueError(f'Truncating type "{truncating}" not understood')
    lengths, sample_shape = [], None
    for x in sequences:
        try:
            lengths.append(len(x))
        except TypeError as error:
            raise ValueError("`sequences` must be a list of iterables. Found non-iterable: "
                             f"{x}") from error
        if sample_shape is None and len(x):  # the first non-empty sequence sets it
            sample_shape = np.asarray(x).shape[1:]
    sample_shape = sample_shape or ()
    if maxlen is None:
        maxlen = max(lengths) if lengths else 0
    is_text = np.issubdtype(np.dtype(dtype), np.str_)
    if isinstance(value, str) and dtype is not object and not is_text:
        raise ValueError(f"`dtype` {dtype} is not compatible with `value`'s type: "
                         f"{type(value)}\nYou should set `dtype=object` for variable length "
                         "strings.")
    out = np.full((len(sequences), maxlen) + sample_shape, value, dtype=dtype)
    for i, seq in enumerate(sequences):
        if not len(seq) or not maxlen:
            continue
        kept = np.asarray(seq[-maxlen:] if truncating == "pre" else seq[:maxlen], dtype=dtype)
        if kept.shape[1:] != sample_shape:
            raise ValueError(f"Shape of sample {kept.shape[1:]} of sequence at position {i} "
                             f"is different from expected shape {sample_shape}")
        if padding == "post":
            out[i, :len(kept)] = kept
        else:
            out[i, -len(kept):] = kept
    return out
