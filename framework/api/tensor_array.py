"""tensor_array.py owns `tf.TensorArray` with TF's eager semantics (TF's
`_EagerTensorArray`): a Python list of tensors, so reading, stacking and
gathering are ordinary tapeflow ops and gradients flow from the written
tensors to whatever is computed from the array, to any order.

As in eager TF: `write` returns the TensorArray (use it, as graph code must);
writing an index twice replaces the value (graph TF's "already written" error
does not exist eagerly); reading an index never written gives zeros of the
element shape; with `clear_after_read` (the default) a second read of an index
is TF's InvalidArgumentError.
"""

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError, OutOfRangeError
from ..core.tensor import Tensor, TensorShape, convert_to_tensor
from ..core.tensor_spec import TensorSpec
from .array_ops import concat, split, stack, unstack, zeros

__all__ = ["TensorArray"]


def _index(index):
    value = index.numpy() if isinstance(index, Tensor) else index
    if np.ndim(value) != 0 or not np.issubdtype(np.asarray(value).dtype, np.integer):
        raise TypeError(f"TensorArray: an index must be an integer scalar, got {index!r}.")
    return int(value)


def _merge(known, shape):
    """TF's TensorShape.merge_with on `known` (None: unknown rank) and a concrete shape."""
    if known is None:
        return tuple(shape)
    if len(known) != len(shape) or any(k is not None and k != s for k, s in zip(known, shape)):
        raise ValueError(f"Inconsistent shapes: saw {TensorShape(shape)} but expected "
                         f"{TensorShape(known)} ")
    return tuple(shape)


class TensorArray:
    """A list of tensors of one dtype, written and read by index (eager TF's TensorArray).

    Args:
        dtype: the elements' dtype.
        size: the initial number of elements.
        dynamic_size: whether writes past the end grow the array (default False).
        clear_after_read: whether a read empties its index (default True, as TF).
        infer_shape: whether the first written shape fixes the element shape.
        element_shape: the elements' shape, if known (None dims allowed).
        tensor_array_name, flow, colocate_with_first_write_call, name: accepted
            for TF's signature; eagerly they change nothing.

    Raises:
        ValueError: for `handle=` (TF: not supported eagerly) or a missing `size`.
        InvalidArgumentError, OutOfRangeError: from the methods, with TF's messages.
    """

    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None,
                 tensor_array_name=None, handle=None, flow=None, infer_shape=True,
                 element_shape=None, colocate_with_first_write_call=True, name=None):
        if handle is not None:
            raise ValueError("TensorArray handles are not supported when eager execution is "
                             "enabled.")
        if size is None:
            raise ValueError("Size must be declared for TensorArrays when eager execution is "
                             "enabled.")
        self._dtype = dtypes.as_dtype(dtype)
        size = _index(size)
        if size < 0:
            raise InvalidArgumentError(f"TensorArray size must be >= 0, got {size}.")
        self._dynamic_size = bool(dynamic_size)
        self._clear_after_read = True if clear_after_read is None else bool(clear_after_read)
        self._infer_shape = infer_shape
        spec_shape = TensorSpec(element_shape, self._dtype).shape
        self._element_shape = None if spec_shape.rank is None else tuple(spec_shape)
        self._tensors = [None] * size
        self._previously_read = set()

    # -- properties -----------------------------------------------------------------------

    @property
    def dtype(self):
        return self._dtype

    @property
    def dynamic_size(self):
        return self._dynamic_size

    @property
    def element_shape(self):
        return TensorSpec(self._element_shape, self._dtype).shape

    @property
    def handle(self):
        return None  # eager TF has no handle either

    @property
    def flow(self):
        return None

    def size(self, name=None):
        return convert_to_tensor(len(self._tensors), dtype=dtypes.int32)

    def identity(self):
        return self

    def close(self, name=None):
        del self._tensors[:]

    def __repr__(self):
        return (f"<TensorArray dtype={self._dtype.name} size={len(self._tensors)} "
                f"element_shape={self.element_shape}>")

    # -- writing --------------------------------------------------------------------------

    def _value(self, value):
        value = value if isinstance(value, Tensor) else convert_to_tensor(
            value, dtype_hint=self._dtype)
        if value.dtype != self._dtype:
            raise InvalidArgumentError(f"TensorArray dtype is {self._dtype.name} but Op is "
                                       f"trying to write dtype {value.dtype.name} ")
        return value

    def _write(self, index, value):
        if index < 0:
            raise OutOfRangeError(f"Writing to negative indices (index {index}) is not allowed.")
        size = len(self._tensors)
        if index >= size:
            if not self._dynamic_size:
                raise OutOfRangeError(f"Tried to write to index {index} but array is not "
                                      f"resizeable and size is: {size} ")
            self._tensors.extend([None] * (index - size + 1))
        merged = _merge(self._element_shape, value.shape)
        if self._infer_shape:
            self._element_shape = merged
        self._tensors[index] = value

    def write(self, index, value, name=None):
        """Stores `value` at `index`; returns this TensorArray."""
        self._write(_index(index), self._value(value))
        return self

    def unstack(self, value, name=None):
        """The rows of `value` become the elements; returns this TensorArray."""
        value = self._value(value)
        if len(value.shape) == 0:
            raise ValueError(f"TensorArray.unstack: `value` must be at least a vector, got "
                             f"shape {tuple(value.shape)}.")
        if value.shape[0] > len(self._tensors) and not self._dynamic_size:
            raise ValueError(f"Cannot unstack {value.shape[0]} tensors into a TensorArray of "
                             f"static size {len(self._tensors)} ")
        rows = unstack(value, axis=0)
        if rows:
            self._element_shape = _merge(self._element_shape, rows[0].shape)
        self._tensors = list(rows)
        return self

    def scatter(self, indices, value, name=None):
        """Row i of `value` is written at `indices[i]`; returns this TensorArray."""
        value = self._value(value)
        indices = [_index(i) for i in np.asarray(
            indices.numpy() if isinstance(indices, Tensor) else indices).reshape(-1)]
        if len(value.shape) == 0 or value.shape[0] != len(indices):
            raise InvalidArgumentError(f"TensorArray.scatter: expected value's first dimension "
                                       f"to equal len(indices) = {len(indices)}, got shape "
                                       f"{tuple(value.shape)}.")
        for index, row in zip(indices, unstack(value, axis=0)):
            self._write(index, row)
        return self

    def split(self, value, lengths, name=None):
        """`value` cut along axis 0 into pieces of `lengths`; returns this TensorArray."""
        value = self._value(value)
        lengths = np.asarray(lengths.numpy() if isinstance(lengths, Tensor) else lengths)
        if lengths.ndim != 1:
            raise InvalidArgumentError(f"Expected lengths to be a vector, received shape: "
                                       f"{list(lengths.shape)} ")
        if len(value.shape) == 0:
            raise InvalidArgumentError(f"Expected value to be at least a vector, but received "
                                       f"shape: {list(value.shape)} ")
        if int(lengths.sum()) != value.shape[0]:
            raise InvalidArgumentError(
                f"Expected sum of lengths to be equal to values.shape[0], but sum of lengths "
                f"is {int(lengths.sum())} and value's shape is: {list(value.shape)} ")
        if not self._dynamic_size and len(lengths) != len(self._tensors):
            raise InvalidArgumentError(
                f"TensorArray's size is not equal to the size of lengths ({len(self._tensors)} "
                f"vs. {len(lengths)}), and the TensorArray is not marked as dynamically "
                "resizeable.")
        self._tensors = list(split(value, [int(n) for n in lengths], axis=0)) if len(
            lengths) else []
        return self

    # -- reading --------------------------------------------------------------------------

    def _at(self, index):
        """The element at `index`, zeros of the element shape where none was written."""
        value = self._tensors[index]
        if value is None:
            shape = self._element_shape
            if shape is None or any(d is None for d in shape):
                raise ValueError(
                    f"Cannot convert a partially known TensorShape {self.element_shape} to a "
                    f"Tensor (TensorArray: index {index} was never written, and zeros need a "
                    "known element_shape).")
            value = self._tensors[index] = zeros(shape, dtype=self._dtype)
        return value

    def read(self, index, name=None):
        """The element at `index` (zeros if never written)."""
        index = _index(index)
        if index < 0:
            raise OutOfRangeError(f"Reading from negative indices (index {index}) is not "
                                  "allowed.")
        if index >= len(self._tensors):
            raise OutOfRangeError(f"Tried to read from index {index} but array size is: "
                                  f"{len(self._tensors)} ")
        if self._tensors[index] is None and index in self._previously_read:
            raise InvalidArgumentError(
                f"Could not read index {index} twice because it was cleared after a previous "
                "read (perhaps try setting clear_after_read = false?)")
        value = self._at(index)
        if self._clear_after_read:
            self._tensors[index] = None
            self._previously_read.add(index)
        return value

    def stack(self, name=None):
        """All elements stacked on a new axis 0."""
        if not self._tensors:
            shape = self._element_shape
            known = shape is not None and all(d is not None for d in shape)
            return zeros((0,) + (shape if known else ()), dtype=self._dtype)
        return stack([self._at(i) for i in range(len(self._tensors))], axis=0)

    def gather(self, indices, name=None):
        """The elements at `indices`, stacked."""
        indices = np.asarray(indices.numpy() if isinstance(indices, Tensor) else indices)
        picked = []
        for i in indices.reshape(-1):
            i = _index(i)
            if not 0 <= i < len(self._tensors):
                raise OutOfRangeError(f"TensorArray.gather: index {i} is out of range for an "
                                      f"array of size {len(self._tensors)}.")
            picked.append(self._at(i))
        if not picked:
            return self._empty_like_stack()
        return stack(picked, axis=0)

    def _empty_like_stack(self):
        return TensorArray(self._dtype, 0, element_shape=self._element_shape).stack()

    def concat(self, name=None):
        """All elements concatenated along axis 0."""
        if not self._tensors:
            shape = self._element_shape
            rest = shape[1:] if shape and all(d is not None for d in shape[1:]) else ()
            return zeros((0,) + tuple(rest), dtype=self._dtype)
        return concat([self._at(i) for i in range(len(self._tensors))], axis=0)

    def grad(self, source, flow=None, name=None):
        raise NotImplementedError("TensorArray.grad: tapeflow's GradientTape differentiates "
                                  "through read/stack/gather directly; use tape.gradient.")
