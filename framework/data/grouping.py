"""grouping.py holds the transformations that gather elements by a key:
group_by_window, bucket_by_sequence_length (NLP tutorials batch sentences of
similar lengths with it) and unique, in TF's order of outputs."""

import numpy as np

from ..core import dtypes
from ..core.errors import InvalidArgumentError
from . import structure
from .structure import UNKNOWN

__all__ = ["Grouping"]


def _int_of(value, what):
    array = structure.to_component(value)
    if np.ndim(array) != 0 or array.dtype.kind not in "iu":
        raise TypeError(f"{what} must return an integer scalar tensor; got "
                        f"{structure.spec_of(array)}.")
    return int(array)


def _bucket_shape(spec, filler):
    if spec.shape.rank is None:
        return None
    return [filler if d is None else d for d in spec.shape]


class Grouping:
    """group_by_window, bucket_by_sequence_length and unique (a mixin of Dataset)."""

    def group_by_window(self, key_func, reduce_func, window_size=None, window_size_func=None,
                        name=None):
        """Group elements by `key_func(element)` (an int64 scalar); each time a
        group holds `window_size` (or `window_size_func(key)`) elements, yield the
        elements of `reduce_func(key, window_dataset)`. At the end, the groups
        left are reduced in increasing key order, as TF.

        Raises:
            ValueError: unless exactly one of window_size and window_size_func is
                given (TF's message).
        """
        if (window_size is None) == (window_size_func is None):
            raise ValueError("Either the `window_size` argument or the `window_size_func` "
                             "argument must be specified.")
        sizes = {}

        def size_of(key):
            if key not in sizes:
                size = int(window_size) if window_size_func is None else \
                    _int_of(window_size_func(structure.to_tensors(np.int64(key))),
                            "window_size_func")
                if size <= 0:
                    raise InvalidArgumentError(f"Window size must be greater than zero, but "
                                               f"got {size}.")
                sizes[key] = size
            return sizes[key]

        def reduced(key, window):
            dataset = reduce_func(structure.to_tensors(np.int64(key)),
                                  self._from_elements(window, self.element_spec))
            if not hasattr(dataset, "_iterate"):
                raise TypeError(f"`reduce_func` must return a `tf.data.Dataset` object; got "
                                f"{type(dataset).__name__}.")
            return dataset._iterate()

        def iterate():
            groups = {}
            for element in self._iterate():
                key = _int_of(structure.call_unpacked(key_func, element), "key_func")
                group = groups.setdefault(key, [])
                group.append(element)
                if len(group) == size_of(key):
                    del groups[key]
                    yield from reduced(key, group)
            for key in sorted(groups):
                yield from reduced(key, groups[key])

        def spec():
            first = next(self._iterate(), None)
            if first is None:
                return self.element_spec
            key = _int_of(structure.call_unpacked(key_func, first), "key_func")
            return reduce_func(structure.to_tensors(np.int64(key)),
                               self._from_elements([first], self.element_spec)).element_spec

        return self._derive(iterate, UNKNOWN, spec, "_GroupByWindowDataset")

    def bucket_by_sequence_length(self, element_length_func, bucket_boundaries,
                                  bucket_batch_sizes, padded_shapes=None, padding_values=None,
                                  pad_to_bucket_boundary=False, no_padding=False,
                                  drop_remainder=False, name=None):
        """Batch elements of similar length together: an element of length L goes
        to the bucket i with boundaries[i-1] <= L < boundaries[i], and each bucket
        is padded-batched by its own `bucket_batch_sizes[i]` (TF's composition
        of group_by_window and padded_batch).

        Raises:
            ValueError: if len(bucket_batch_sizes) != len(bucket_boundaries) + 1.
            tf.errors.InvalidArgumentError: with `pad_to_bucket_boundary`, for an
                element not shorter than the last boundary (TF's message).
        """
        boundaries = [int(b) for b in bucket_boundaries]
        batch_sizes = [int(b) for b in bucket_batch_sizes]
        if len(batch_sizes) != len(boundaries) + 1:
            raise ValueError(f"`len(bucket_batch_sizes)` must equal `len(bucket_boundaries) + "
                             f"1` but `len(bucket_batch_sizes)={len(batch_sizes)}` and "
                             f"`len(bucket_boundaries)={len(boundaries)}`.")
        edges = [-2**31] + boundaries + [2**31 - 1]

        def bucket_of(*element):
            length = _int_of(element_length_func(*element), "element_length_func")
            return np.int64(next(i for i in range(len(batch_sizes))
                                 if edges[i] <= length < edges[i + 1]))

        def batched(bucket, window):
            bucket = int(bucket)
            if no_padding:
                return window.batch(batch_sizes[bucket], drop_remainder=drop_remainder)
            filler = None
            if pad_to_bucket_boundary:
                if bucket >= len(boundaries):
                    raise InvalidArgumentError("When pad_to_bucket_boundary=True, elements "
                                               "must have length < bucket_boundaries[-1].")
                filler = boundaries[bucket] - 1
            shapes = padded_shapes
            if shapes is None:
                shapes = structure.map_structure(lambda s: _bucket_shape(s, filler),
                                                 window.element_spec)
            return window.padded_batch(batch_sizes[bucket], shapes, padding_values,
                                       drop_remainder=drop_remainder)

        return self.group_by_window(
            bucket_of, batched, window_size_func=lambda bucket: np.int64(batch_sizes[int(bucket)]))

    def unique(self, name=None):
        """The elements in order of first appearance, each once. Elements must be
        single tensors of int32, int64 or string (as TF)."""
        spec = self.element_spec
        allowed = (dtypes.int32, dtypes.int64, dtypes.string)
        if structure.flatten(spec) != [spec]:
            raise TypeError(f"`tf.data.Dataset.unique` only supports elements that are one "
                            f"tensor; got {spec}.")
        if getattr(spec, "dtype", None) not in allowed:
            raise TypeError(f"`tf.data.Dataset.unique` does not support type {spec.dtype!r} -- "
                            "only `tf.int32`, `tf.int64`, and `tf.string` are supported.")

        def iterate():
            seen = set()
            for element in self._iterate():
                array = np.asarray(element)
                key = (array.shape, tuple(array.reshape(-1).tolist()))
                if key not in seen:
                    seen.add(key)
                    yield element

        return self._derive(iterate, UNKNOWN, lambda: spec, "_UniqueDataset")
