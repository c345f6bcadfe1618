"""tensor_shape.py owns `tf.TensorShape`: a tuple of dimensions (None where
unknown) with TF's helpers, and the reading of anything TF takes as a shape.
It knows nothing about tensors' values."""

import builtins

import numpy as np

__all__ = ["TensorShape", "shape_dims"]


class TensorShape(tuple):
    """A tuple of dimensions with TF's helpers (`as_list`, `rank`)."""

    __slots__ = ()

    @property
    def rank(self):
        return len(self)

    ndims = rank

    def as_list(self):
        return list(self)

    def num_elements(self):
        return int(np.prod(self, dtype=np.int64))

    def is_fully_defined(self):
        return all(d is not None for d in self)

    def is_compatible_with(self, other):
        """Whether `other` (dims, None for unknown) could describe the same tensor."""
        other = shape_dims(other)
        return other is None or (len(other) == len(self) and all(
            a is None or b is None or a == b for a, b in zip(self, other)))

    def merge_with(self, other):
        """The more specific of the two shapes; ValueError if they are not compatible."""
        if not self.is_compatible_with(other):
            raise ValueError(f"Shapes {self} and {tuple(shape_dims(other))} are not compatible")
        other = shape_dims(other)
        return self if other is None else TensorShape(
            a if a is not None else b for a, b in zip(self, other))

    def __repr__(self):
        return f"TensorShape({list(self)})"

    def __str__(self):
        return tuple.__repr__(self)


def shape_dims(shape):
    """`shape` (a TensorShape, list, tuple or int; None for an unknown rank) as a
    tuple of ints and None, with TF's TypeError for anything else."""
    if shape is None or getattr(shape, "rank", 0) is None:
        return None
    if hasattr(shape, "__array__") and not isinstance(shape, (tuple, list)):
        shape = np.asarray(shape).tolist()  # a Tensor or ndarray of dimensions
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, builtins.bool):
        return (int(shape),)
    try:
        dims = tuple(shape)
    except TypeError:
        dims = (shape,)
    if isinstance(shape, (str, bytes)) or any(
            d is not None and (isinstance(d, builtins.bool) or not isinstance(d, (int, np.integer)))
            for d in dims):
        raise TypeError(f"Failed to convert {shape!r} to a shape: a shape is a dimension "
                        "(e.g. 10) or a list of dimensions (e.g. [1, 10, None]).")
    return tuple(None if d is None else int(d) for d in dims)
