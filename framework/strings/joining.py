"""joining.py: the tf.strings functions that make one string of several:
join (elementwise across tensors), reduce_join (along axes), format (a
template filled with tensors printed as tf.print prints them) and ngrams."""

import numpy as np

from ..api.printing import format_value
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, as_tensor
from ..ragged.ragged_indexing import same_partition
from ..ragged.ragged_tensor import RaggedTensor
from .text import OBJECT, string_array, tensor_of

__all__ = ["join", "reduce_join", "format", "ngrams"]


def _separator(separator, op):
    if isinstance(separator, str):
        return separator.encode("utf-8")
    if isinstance(separator, bytes):
        return separator
    raise TypeError(f"Expected string for argument 'separator' not {separator!r} [Op:{op}]")


def join(inputs, separator="", name=None):
    """Concatenate the strings of `inputs` elementwise with `separator` between
    them, as tf.strings.join: every input has one shape, or is a scalar.

    >>> tf.strings.join(["abc", "def"]).numpy()
    b'abcdef'

    Raises:
        InvalidArgumentError: if two non-scalar inputs differ in shape.
    """
    sep = _separator(separator, "StringJoin")
    ragged = [x for x in inputs if isinstance(x, RaggedTensor)] if isinstance(
        inputs, (list, tuple)) else []
    if ragged:  # RaggedTensors of one row partition: their flat values joined (TF's dispatch)
        first = ragged[0]
        if len(ragged) != len(inputs) or not all(same_partition(first, r) for r in ragged):
            raise InvalidArgumentError("tf.strings.join of RaggedTensors needs every input "
                                       "ragged with the same row partition [Op:StringJoin]")
        return first.with_flat_values(join([r.flat_values for r in ragged], separator))
    if isinstance(inputs, Tensor):
        inputs = [inputs[i] for i in range(len(inputs))]
    arrays = [string_array(x, f"inputs[{i}]") for i, x in enumerate(inputs)]
    shapes = [a.shape for a in arrays if a.ndim]
    for shape in shapes[1:]:
        if shape != shapes[0]:
            raise InvalidArgumentError(f"Input shapes do not match: {list(shapes[0])} vs. "
                                       f"{list(shape)} [Op:StringJoin]")
    shape = shapes[0] if shapes else ()
    columns = [np.broadcast_to(a, shape).reshape(-1) for a in arrays]
    out = np.empty(shape, OBJECT)
    out.reshape(-1)[:] = [sep.join(row) for row in zip(*columns)] if columns else b""
    return tensor_of(out)


def _axes(axis, ndim):
    if axis is None:
        return list(range(ndim - 1, -1, -1))  # TF: the last axis varies fastest
    axes = [axis] if isinstance(axis, (int, np.integer)) else list(np.asarray(
        getattr(axis, "_value", axis)).reshape(-1))
    out = []
    for a in axes:
        if not -ndim <= int(a) < ndim:
            raise InvalidArgumentError(f"Invalid reduction dimension {int(a)} for input with "
                                       f"{ndim} dimension(s) [Op:ReduceJoin]")
        if int(a) % ndim in out:
            raise InvalidArgumentError(f"Duplicate reduction dimension {int(a)} [Op:ReduceJoin]")
        out.append(int(a) % ndim)
    return out


def reduce_join(inputs, axis=None, keepdims=False, separator="", name=None):
    """Join the strings along `axis` (an int, a list, or None for all) with
    `separator` between them, as tf.strings.reduce_join. With several axes the
    first listed varies fastest, as in TF; an empty axis joins to b''.

    >>> tf.strings.reduce_join([["abc", "123"], ["def", "456"]], axis=-1,
    ...                        separator=".").numpy()
    array([b'abc.123', b'def.456'], dtype=object)

    Raises:
        InvalidArgumentError: for an axis out of range or given twice (TF raises
            OutOfRangeError for the first).
    """
    sep = _separator(separator, "ReduceJoin")
    array = string_array(inputs)
    axes = _axes(axis, array.ndim)
    for a in axes:  # one axis at a time, keeping it as size 1
        moved = np.moveaxis(array, a, -1)
        rows = moved.reshape(int(np.prod(moved.shape[:-1], dtype=np.int64)), moved.shape[-1])
        joined = np.empty(len(rows), OBJECT)
        joined[:] = [sep.join(row) for row in rows]
        array = np.moveaxis(joined.reshape(moved.shape[:-1] + (1,)), -1, a)
    if not keepdims:
        array = array.reshape([d for i, d in enumerate(array.shape) if i not in axes])
    return tensor_of(array)


def format(template, inputs, placeholder="{}", summarize=3, name=None):  # noqa: A001
    """`template` with each `placeholder` replaced by the next of `inputs`, printed
    as tf.print prints it (summarising axes longer than 2 * `summarize`), as
    tf.strings.format.

    >>> tf.strings.format("x = {}", [tf.constant([1, 2])]).numpy()
    b'x = [1 2]'

    Raises:
        ValueError: if the number of placeholders and of inputs differ.
    """
    if not isinstance(inputs, (list, tuple)):
        inputs = [inputs]
    pieces = str(template).split(placeholder)
    if len(pieces) - 1 != len(inputs):
        raise ValueError(f"The template expects {len(pieces) - 1} tensors, but the inputs "
                         f"only has {len(inputs)}. Please ensure the number of placeholders "
                         "in template matches inputs length.")
    values = [format_value(v if isinstance(v, Tensor) else as_tensor(v), summarize)
              for v in inputs]
    text = pieces[0] + "".join(v + p for v, p in zip(values, pieces[1:]))
    return tensor_of(np.asarray(text.encode("utf-8"), OBJECT))


def ngrams(data, ngram_width, separator=" ", pad_values=None, padding_width=None,
           preserve_short_sequences=False, name=None):
    """The n-grams of the last axis of `data` (a string Tensor or RaggedTensor),
    joined with `separator`, as tf.strings.ngrams: `ngram_width` an int or a list
    of widths (all of the first width, then the next); `pad_values` (one string,
    or a (left, right) pair) with `padding_width` pads each row (default: width - 1).

    >>> tf.strings.ngrams(["A", "B", "C", "D"], 2).numpy()
    array([b'A B', b'B C', b'C D'], dtype=object)
    """
    widths = [int(ngram_width)] if np.ndim(ngram_width) == 0 else [int(w) for w in ngram_width]
    if any(w < 1 for w in widths):
        raise InvalidArgumentError(f"ngram_width must be >= 1, got {widths}.")
    sep = _separator(separator, "StringNGrams")
    if pad_values is None:
        left = right = None
    elif isinstance(pad_values, (str, bytes)):
        left = right = _separator(pad_values, "StringNGrams")
    else:
        left, right = (_separator(p, "StringNGrams") for p in pad_values)

    def grams(row):
        out = []
        for w in widths:
            pad = 0 if left is None else (w - 1 if padding_width is None else
                                          min(int(padding_width), w - 1))
            padded = [left] * pad + list(row) + [right] * pad
            out += [sep.join(padded[i:i + w]) for i in range(len(padded) - w + 1)]
        if not out and preserve_short_sequences and len(row):
            out = [sep.join(row)]
        return out

    if isinstance(data, RaggedTensor):
        if isinstance(data.values, RaggedTensor):
            return data.with_values(ngrams(data.values, ngram_width, separator, pad_values,
                                           padding_width, preserve_short_sequences))
        values, splits = string_array(data.values), data.row_splits.numpy()
        rows = [grams(values[splits[i]:splits[i + 1]]) for i in range(len(splits) - 1)]
        flat = np.empty(sum(len(r) for r in rows), OBJECT)
        flat[:] = [g for r in rows for g in r]
        return RaggedTensor.from_row_lengths(tensor_of(flat), [len(r) for r in rows])
    array = string_array(data)
    if array.ndim == 0:
        raise ValueError("tf.strings.ngrams: data must have rank at least 1, got a scalar.")
    rows = [grams(r) for r in array.reshape(-1, array.shape[-1])]
    out = np.empty((len(rows), len(rows[0]) if rows else 0), OBJECT)
    for i, r in enumerate(rows):
        out[i, :] = r
    return tensor_of(out.reshape(array.shape[:-1] + (out.shape[1],)))
