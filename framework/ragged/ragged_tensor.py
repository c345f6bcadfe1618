"""ragged_tensor.py holds `tf.RaggedTensor`: `values` (a Tensor of any dtype,
or another RaggedTensor for more ragged dimensions) cut into rows by int64
`row_splits`, with TF's factories, conversions to and from dense and sparse
tensors, and its repr. Indexing and operators are ragged_indexing.py; the
`tf.ragged` functions ragged_ops.py. Gradients flow through the flat values."""

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, TensorShape, as_tensor
from ..ops import math as _m
from ..ops import shape as _s
from ..sparse.sparse_tensor import SparseTensor, fill_value

__all__ = ["RaggedTensor"]


def _int64_vector(value, what):
    array = np.asarray(value._value if isinstance(value, Tensor) else value)
    if array.size == 0:
        array = array.astype(np.int64)
    if array.ndim != 1 or array.dtype.kind not in "iu":
        raise ValueError(f"RaggedTensor: {what} must be a 1-D integer vector, got "
                         f"{array.dtype} of shape {list(array.shape)}.")
    return array.astype(np.int64)


def _values(values):
    return values if isinstance(values, (Tensor, RaggedTensor)) else as_tensor(values)


def _nvals(values):
    return values.nrows_int() if isinstance(values, RaggedTensor) else (
        values._value.shape[0] if values._value.ndim else None)


def gather_rows(values, rows):
    """Rows `rows` (int array) of a Tensor or RaggedTensor (gather: differentiable)."""
    if isinstance(values, Tensor):
        return _s.gather(values, Tensor(np.asarray(rows, np.int64)), axis=0)
    splits = values._splits
    lengths = (splits[1:] - splits[:-1])[rows]
    starts = splits[:-1][rows]
    inner = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths) + \
        np.arange(int(lengths.sum()))
    new_splits = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    return RaggedTensor(gather_rows(values._values, inner), new_splits, _checked=True,
                        _uniform=values._uniform)


class RaggedTensor:
    """A tensor whose rows differ in length, as tf.RaggedTensor: row i of the
    result is `values[row_splits[i]:row_splits[i + 1]]`.

    Build one with `tf.ragged.constant` or the `from_*` factories, not the
    constructor. `values` may itself be a RaggedTensor (`ragged_rank` > 1); the
    values may be of any dtype, strings included. `uniform_row_length` (from
    `from_uniform_row_length`) is kept as a shape entry, not a ragged one.

    >>> print(tf.RaggedTensor.from_row_splits([3, 1, 4, 1, 5], [0, 4, 4, 5]))
    <tf.RaggedTensor [[3, 1, 4, 1], [], [5]]>
    """

    __slots__ = ("_values", "_splits", "_uniform")

    def __init__(self, values, row_splits, _checked=False, _uniform=None):
        if not _checked:
            raise ValueError("RaggedTensor constructor is private; please use one of the "
                             "factory methods instead (e.g., RaggedTensor.from_row_lengths())")
        self._values = values
        self._splits = row_splits
        self._uniform = _uniform

    # ---- factories -------------------------------------------------------------------
    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True):
        """Rows `values[row_splits[i]:row_splits[i+1]]`.

        Raises:
            InvalidArgumentError: if the splits do not start at 0, decrease, or do
                not end at the number of values.
        """
        values = _values(values)
        splits = _int64_vector(row_splits, "row_splits")
        n = _nvals(values)
        if n is None:
            raise ValueError("RaggedTensor: values must have rank at least 1, got a scalar.")
        if validate and (splits.size == 0 or splits[0] != 0 or (np.diff(splits) < 0).any()
                         or splits[-1] != n):
            raise InvalidArgumentError(f"Arguments to from_row_splits do not form a valid "
                                       f"RaggedTensor: row_splits {splits.tolist()} must start "
                                       f"at 0, never decrease and end at nvals = {n}.")
        return cls(values, splits, _checked=True)

    @classmethod
    def from_row_lengths(cls, values, row_lengths, name=None, validate=True):
        """Rows of `row_lengths[i]` consecutive values each."""
        lengths = _int64_vector(row_lengths, "row_lengths")
        if (lengths < 0).any():
            raise InvalidArgumentError(f"Arguments to from_row_lengths do not form a valid "
                                       f"RaggedTensor: negative row length in "
                                       f"{lengths.tolist()}.")
        return cls.from_row_splits(values, np.concatenate([[0], np.cumsum(lengths)]),
                                   validate=validate)

    @classmethod
    def from_row_starts(cls, values, row_starts, name=None, validate=True):
        starts = _int64_vector(row_starts, "row_starts")
        return cls.from_row_splits(values, np.append(starts, _nvals(_values(values))),
                                   validate=validate)

    @classmethod
    def from_row_limits(cls, values, row_limits, name=None, validate=True):
        return cls.from_row_splits(values, np.concatenate([[0], _int64_vector(
            row_limits, "row_limits")]), validate=validate)

    @classmethod
    def from_value_rowids(cls, values, value_rowids, nrows=None, name=None, validate=True):
        """Value j goes to row `value_rowids[j]` (sorted); `nrows` adds empty rows."""
        ids = _int64_vector(value_rowids, "value_rowids")
        rows = int(ids[-1]) + 1 if nrows is None and ids.size else int(nrows or 0)
        if validate and ((np.diff(ids) < 0).any() or (ids.size and (ids[0] < 0 or
                                                                      ids[-1] >= rows))):
            raise InvalidArgumentError(f"Arguments to from_value_rowids do not form a valid "
                                       f"RaggedTensor: value_rowids {ids.tolist()} must be "
                                       f"sorted and in [0, nrows = {rows}).")
        return cls.from_row_lengths(values, np.bincount(ids, minlength=rows), validate=validate)

    @classmethod
    def from_uniform_row_length(cls, values, uniform_row_length, nrows=None, validate=True,
                                name=None):
        """Rows of `uniform_row_length` values each: a uniform (not ragged) dimension."""
        values = _values(values)
        length, n = int(uniform_row_length), _nvals(values)
        rows = (n // length if length else int(nrows or 0)) if nrows is None else int(nrows)
        if validate and length * rows != n:
            raise InvalidArgumentError(f"uniform_row_length {length} times nrows {rows} must "
                                       f"equal the number of values {n}.")
        return cls(values, np.arange(rows + 1, dtype=np.int64) * length, _checked=True,
                   _uniform=length)

    @classmethod
    def from_nested_row_splits(cls, flat_values, nested_row_splits, name=None, validate=True):
        result = _values(flat_values)
        for splits in reversed(list(nested_row_splits)):
            result = cls.from_row_splits(result, splits, validate=validate)
        return result

    @classmethod
    def from_nested_row_lengths(cls, flat_values, nested_row_lengths, name=None,
                                validate=True):
        result = _values(flat_values)
        for lengths in reversed(list(nested_row_lengths)):
            result = cls.from_row_lengths(result, lengths, validate=validate)
        return result

    @classmethod
    def from_nested_value_rowids(cls, flat_values, nested_value_rowids, nested_nrows=None,
                                 name=None, validate=True):
        ids = list(nested_value_rowids)
        nrows = [None] * len(ids) if nested_nrows is None else list(nested_nrows)
        result = _values(flat_values)
        for rowids, rows in reversed(list(zip(ids, nrows))):
            result = cls.from_value_rowids(result, rowids, rows, validate=validate)
        return result

    @classmethod
    def from_tensor(cls, tensor, lengths=None, padding=None, ragged_rank=1, name=None,
                    row_splits_dtype=None):
        """The rows of a dense tensor, each cut at `lengths[i]`, or before its
        trailing `padding` entries; the values are gathered (differentiable).

        Raises:
            ValueError: if both lengths and padding are given, or the tensor's
                rank is not above `ragged_rank`.
        """
        x = as_tensor(tensor)
        if lengths is not None and padding is not None:
            raise ValueError("Specify argument `lengths` or `padding`, but not both.")
        rank = int(ragged_rank)
        if not 0 < rank < x._value.ndim:
            raise ValueError(f"ragged_rank must be in [1, {x._value.ndim - 1}] for a tensor of "
                             f"shape {list(x._value.shape)}, got {ragged_rank}.")
        shape = x._value.shape
        if lengths is None and padding is None:  # TF: uniform partitions, nothing cut
            inner = _s.reshape(x, shape=(int(np.prod(shape[:rank + 1])),) + shape[rank + 1:])
            for j in reversed(range(rank)):
                inner = cls.from_uniform_row_length(inner, shape[j + 1],
                                                    nrows=int(np.prod(shape[:j + 1])))
            return inner
        if rank > 1:
            raise NotImplementedError("tapeflow's RaggedTensor.from_tensor takes lengths or "
                                      "padding with ragged_rank=1 only.")
        rows, width = shape[:2]
        if lengths is not None:
            row_lengths = _int64_vector(lengths, "lengths")
            if row_lengths.shape != (rows,) or (row_lengths < 0).any() or \
                    (row_lengths > width).any():
                raise InvalidArgumentError(f"lengths {row_lengths.tolist()} must hold {rows} "
                                           f"lengths in [0, {width}].")
        else:
            pad = np.asarray(as_tensor(padding)._value)
            is_pad = (x._value == pad).reshape(rows, width, -1).all(axis=2)
            kept = ~is_pad[:, ::-1]
            row_lengths = np.where(kept.any(axis=1), width - np.argmax(kept, axis=1), 0)
        keep = (np.arange(width) < row_lengths[:, None]).reshape(-1)
        flat = _s.reshape(x, shape=(rows * width,) + x._value.shape[2:])
        return cls.from_row_lengths(gather_rows(flat, np.flatnonzero(keep)), row_lengths)

    @classmethod
    def from_sparse(cls, st_input, name=None, row_splits_dtype=None):
        """The rows of a rank-2 SparseTensor whose values fill each row from the left.

        Raises:
            ValueError: for another rank, or indices that are not ragged-right.
        """
        shape = tuple(int(d) for d in st_input.dense_shape._value)
        ind = st_input.indices._value
        if len(shape) != 2:
            raise ValueError(f"rank(st_input) must be 2, got shape {list(shape)}.")
        lengths = np.bincount(ind[:, 0], minlength=shape[0]) if ind.size else \
            np.zeros(shape[0], np.int64)
        splits = np.concatenate([[0], np.cumsum(lengths)])
        if (np.diff(ind[:, 0]) < 0).any() or not np.array_equal(
                ind[:, 1], np.arange(ind.shape[0]) - splits[ind[:, 0]]):
            raise ValueError("SparseTensor is not right-ragged: its indices must be sorted "
                             "and fill each row from column 0 with no gap.")
        return cls.from_row_splits(st_input.values, splits)

    # ---- structure ---------------------------------------------------------------------
    values = property(lambda self: self._values, doc="The concatenated rows.")
    row_splits = property(lambda self: Tensor(self._splits), doc="int64: where rows start.")
    uniform_row_length = property(
        lambda self: None if self._uniform is None else Tensor(np.int64(self._uniform)))

    @property
    def flat_values(self):
        """The innermost values: a Tensor with no ragged dimension."""
        values = self._values
        while isinstance(values, RaggedTensor):
            values = values._values
        return values

    @property
    def nested_row_splits(self):
        out, rt = [], self
        while isinstance(rt, RaggedTensor):
            out.append(rt.row_splits)
            rt = rt._values
        return tuple(out)

    @property
    def ragged_rank(self):
        return len(self.nested_row_splits)

    @property
    def dtype(self):
        return self.flat_values.dtype

    @property
    def row_splits_dtype(self):
        return self.row_splits.dtype

    @property
    def shape(self):
        """TensorShape with None for each ragged dimension, as TF."""
        inner = self._values.shape
        return TensorShape((self.nrows_int(), self._uniform) + tuple(inner[1:]))

    def get_shape(self):
        return self.shape

    @property
    def ndim(self):
        return len(self.shape)

    def nrows_int(self):
        return int(self._splits.size - 1)

    def nrows(self, out_type=None, name=None):
        return Tensor(np.int64(self.nrows_int()))

    def row_lengths(self, axis=1, name=None):
        """int64 lengths of the rows (axis 1), or of the rows of the values (axis > 1)."""
        if axis == 1:
            return Tensor(np.diff(self._splits))
        if not isinstance(self._values, RaggedTensor) or axis < 1:
            raise ValueError(f"axis {axis} is not a ragged dimension of shape {self.shape}.")
        return self.with_values(self._values.row_lengths(axis - 1))

    def row_starts(self, name=None):
        return Tensor(self._splits[:-1])

    def row_limits(self, name=None):
        return Tensor(self._splits[1:])

    def value_rowids(self, name=None):
        return Tensor(np.repeat(np.arange(self.nrows_int()), np.diff(self._splits)))

    def nested_row_lengths(self, name=None):
        return tuple(Tensor(np.diff(s._value)) for s in self.nested_row_splits)

    def bounding_shape(self, axis=None, name=None, out_type=None):
        """int64 [nrows, longest row, ...]: the shape `to_tensor` pads to."""
        lengths = np.diff(self._splits)
        inner = self._values.bounding_shape()._value if isinstance(
            self._values, RaggedTensor) else np.asarray(self._values._value.shape, np.int64)
        shape = np.concatenate([[self.nrows_int(), lengths.max() if lengths.size else 0],
                                inner[1:]]).astype(np.int64)
        return Tensor(shape if axis is None else shape[axis])

    def with_values(self, new_values):
        return RaggedTensor(_values(new_values), self._splits, _checked=True,
                            _uniform=self._uniform)

    def with_flat_values(self, new_values):
        if isinstance(self._values, RaggedTensor):
            return self.with_values(self._values.with_flat_values(new_values))
        new_values = _values(new_values)
        if _nvals(new_values) != _nvals(self._values):
            raise ValueError(f"with_flat_values: {_nvals(new_values)} rows given for "
                             f"{_nvals(self._values)} values.")
        return self.with_values(new_values)

    def _coordinates(self):
        """For each row of the flat values, its index in every ragged dimension:
        an int64 (nflat, ragged_rank + 1) array (row, position, position, ...)."""
        levels, rt = [], self
        while isinstance(rt, RaggedTensor):
            levels.append(rt._splits)
            rt = rt._values
        ids = np.arange(rt._value.shape[0])
        coords = []
        for splits in reversed(levels):
            row_of = np.repeat(np.arange(splits.size - 1), np.diff(splits))
            rows = row_of[ids]
            coords.insert(0, ids - splits[rows])
            ids = rows
        coords.insert(0, ids)
        return np.stack(coords, axis=1).astype(np.int64)

    # ---- conversions -------------------------------------------------------------------
    def to_tensor(self, default_value=None, name=None, shape=None):
        """The dense tensor, rows padded with `default_value` (0, or b'' for
        strings) to the bounding shape, or cut or padded to `shape` (None
        entries: the bounding size). Differentiable w.r.t. the values.

        Raises:
            ValueError: if `shape` has another rank or changes a uniform inner dim.
        """
        flat = self.flat_values
        k = self.ragged_rank + 1
        bound = [int(d) for d in self.bounding_shape()._value]
        if shape is not None:
            want = list(shape.as_list() if hasattr(shape, "as_list") else shape)
            if len(want) != len(bound) or any(w is not None and i >= k and int(w) != bound[i]
                                               for i, w in enumerate(want)):
                raise ValueError(f"to_tensor: shape {want} must have rank {len(bound)} and "
                                 f"keep the uniform dimensions {bound[k:]}.")
            bound = [b if w is None else int(w) for b, w in zip(bound, want)]
        coords = self._coordinates()
        keep = np.flatnonzero((coords < np.asarray(bound[:k])).all(axis=1))
        cells = int(np.prod(bound[:k], dtype=np.int64))
        lin = np.ravel_multi_index(tuple(coords[keep].T), bound[:k]) if keep.size else \
            np.zeros(0, np.int64)
        if flat._value.dtype.kind not in "biufc":  # strings: no gradient
            dense = np.full((cells,) + flat._value.shape[1:], fill_value(flat, default_value),
                            flat._value.dtype)
            dense[lin] = flat._value[keep]
            return Tensor(dense.reshape(bound))
        placed = _s.scatter_add(gather_rows(flat, keep), Tensor(lin), axis=0, size=cells)
        dense = _s.reshape(placed, shape=tuple(bound))
        fill = fill_value(flat, default_value)
        if fill != 0:
            border = np.ones(cells, flat._value.dtype)
            border[lin] = 0
            border = np.broadcast_to(border.reshape((cells,) + (1,) * (len(bound) - k)) * fill,
                                     (cells,) + tuple(bound[k:]))
            dense = _m.add(dense, Tensor(np.ascontiguousarray(border).reshape(bound)))
        return dense

    def to_sparse(self, name=None):
        """A SparseTensor of the same values at their (row, position, ...) indices."""
        flat = self.flat_values
        inner = flat._value.shape[1:]
        coords = self._coordinates()
        if inner:
            grid = np.stack(np.unravel_index(np.arange(int(np.prod(inner))), inner), axis=1)
            coords = np.concatenate([np.repeat(coords, len(grid), axis=0),
                                     np.tile(grid, (len(coords), 1))], axis=1)
        values = _s.reshape(flat, shape=(flat._value.size,))
        return SparseTensor(coords, values, self.bounding_shape())

    def to_list(self):
        """Nested Python lists (bytes for strings), as TF."""
        inner = self._values.to_list() if isinstance(self._values, RaggedTensor) else \
            self._values._value.tolist()
        return [inner[a:b] for a, b in zip(self._splits[:-1], self._splits[1:])]

    def numpy(self):
        """A NumPy object array of the rows (each an array), as TF."""
        values = self._values.numpy() if isinstance(self._values, RaggedTensor) else \
            self._values._value
        rows = np.empty(self.nrows_int(), dtype=object)
        for i, (a, b) in enumerate(zip(self._splits[:-1], self._splits[1:])):
            rows[i] = values[a:b]
        return rows

    def __repr__(self):
        return f"<tf.RaggedTensor {self.to_list()}>"

    __str__ = __repr__

    def __bool__(self):
        raise TypeError("RaggedTensor may not be used as a boolean.")

    def __array__(self, dtype=None, copy=None):
        # Reached when a RaggedTensor is handed to a function that takes dense tensors.
        raise TypeError(f"A RaggedTensor of shape {self.shape} cannot be converted to a dense "
                        "Tensor: use rt.to_tensor(), or tf.ragged.map_flat_values(op, rt) to "
                        "apply an op to its values (tapeflow's tf.math functions do not take "
                        "RaggedTensors yet; its operators +, -, *, / ... do).")

    def __iter__(self):
        return (self[i] for i in range(self.nrows_int()))

    def consumers(self):
        return []
