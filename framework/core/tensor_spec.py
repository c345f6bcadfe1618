"""tensor_spec.py owns `tf.TensorSpec`: the description of a tensor (shape,
dtype, name) that `tf.function(input_signature=...)` and Keras take. It knows
shapes and dtypes, not ops; a shape may have unknown (None) dimensions or an
unknown rank (`shape=None`)."""

import numpy as np

from . import dtypes
from .tensor import Tensor, TensorShape, convert_to_tensor

__all__ = ["TensorSpec"]


class _UnknownRankShape:
    """TF's `TensorShape(None)`: a shape whose rank is not known."""

    __slots__ = ()
    rank = ndims = None

    def as_list(self):
        raise ValueError("as_list() is not defined on an unknown TensorShape.")

    def is_fully_defined(self):
        return False

    def is_compatible_with(self, other):
        return True

    def __eq__(self, other):
        return isinstance(other, _UnknownRankShape)

    def __hash__(self):
        return hash(None)

    def __repr__(self):
        return "TensorShape(None)"

    def __str__(self):
        return "<unknown>"

    def __reduce__(self):
        return _UnknownRankShape, ()


def _as_shape(shape):
    if shape is None or isinstance(shape, _UnknownRankShape):
        return _UnknownRankShape()
    if isinstance(shape, Tensor):
        shape = shape._value.tolist()
    if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
        shape = (shape,)  # TF reads a bare int as a rank-1 shape
    try:
        dims = list(shape)
    except TypeError:
        raise TypeError(f"TensorSpec: `shape` must be a list or tuple of ints and None, an "
                        f"int, or None; got {shape!r}.") from None
    for d in dims:
        if d is not None and (isinstance(d, bool) or not isinstance(d, (int, np.integer))):
            raise TypeError(f"TensorSpec: dimension {d!r} of shape {shape!r} must be an int or "
                            "None.")
        if d is not None and d < 0:
            raise ValueError(f"TensorSpec: dimension {d} of shape {shape!r} must be >= 0 (None "
                             "for an unknown size).")
    return TensorShape(None if d is None else int(d) for d in dims)


def _compatible(a, b):
    if isinstance(a, _UnknownRankShape) or isinstance(b, _UnknownRankShape):
        return True
    return len(a) == len(b) and all(x is None or y is None or x == y for x, y in zip(a, b))


class TensorSpec:
    """Describes a tensor: `TensorSpec(shape, dtype=tf.float32, name=None)`, as TF's.

    `None` dimensions match any size, and `shape=None` any rank. Two specs are
    equal when shape, dtype and name are.

    >>> tf.TensorSpec([None, 3]).is_compatible_with(tf.zeros([2, 3]))
    True

    Raises:
        TypeError: for a `shape` that is not a list of ints and None, or a `dtype`
            that is no dtype.
        ValueError: for a negative dimension.
    """

    __slots__ = ("_shape", "_dtype", "_name")

    def __init__(self, shape, dtype=dtypes.float32, name=None):
        self._shape = _as_shape(shape)
        self._dtype = dtypes.as_dtype(dtype)
        if name is not None and not isinstance(name, str):
            raise TypeError(f"TensorSpec: `name` must be a str or None, got {name!r}.")
        self._name = name

    @classmethod
    def from_tensor(cls, tensor, name=None):
        """The spec of `tensor` (its shape and dtype).

        Raises:
            ValueError: if `tensor` is not a Tensor, with TF's message.
        """
        if not isinstance(tensor, Tensor):
            raise ValueError(f"`tensor` should be a tf.Tensor, got {type(tensor).__name__}.")
        return cls(tensor.shape, tensor.dtype, name)

    @classmethod
    def from_spec(cls, spec, name=None):
        """A TensorSpec with `spec`'s shape and dtype, and `name` or `spec`'s name."""
        return cls(spec.shape, spec.dtype, name or spec.name)

    @property
    def shape(self):
        return self._shape

    @property
    def dtype(self):
        return self._dtype

    @property
    def name(self):
        return self._name

    @property
    def value_type(self):
        return Tensor

    def is_compatible_with(self, spec_or_value):
        """True if `spec_or_value` (a TensorSpec, a Tensor or a value convertible to
        one) has this dtype and a shape matching this one's known dimensions."""
        if not isinstance(spec_or_value, (TensorSpec, Tensor)):
            try:
                spec_or_value = convert_to_tensor(spec_or_value)
            except (TypeError, ValueError):
                return False
        if isinstance(spec_or_value, TensorSpec):
            shape = spec_or_value._shape
        else:
            shape = spec_or_value.shape
        return spec_or_value.dtype == self._dtype and _compatible(self._shape, shape)

    def __repr__(self):
        return f"TensorSpec(shape={self._shape}, dtype={self._dtype!r}, name={self._name!r})"

    def __eq__(self, other):
        return (type(self) is type(other) and self._shape == other._shape
                and self._dtype == other._dtype and self._name == other._name)

    def __ne__(self, other):
        return not self == other

    def __hash__(self):
        return hash((self._shape, self._dtype))

    def __reduce__(self):
        return TensorSpec, (None if isinstance(self._shape, _UnknownRankShape) else
                            tuple(self._shape), self._dtype, self._name)
