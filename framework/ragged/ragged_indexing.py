"""ragged_indexing.py gives RaggedTensor `rt[...]` and its elementwise Python
operators, as TF's ragged dispatch does: an operator applies to the flat values,
with a scalar, a RaggedTensor of the same row partition, or a dense tensor that
broadcasts (size 1 along the ragged dimensions). Installed by ragged/__init__."""

import builtins
import operator

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, convert_to_tensor
from ..ops import shape as _s
from .ragged_tensor import RaggedTensor, gather_rows

__all__ = ["getitem", "install", "same_partition"]


def _int(k):
    return int(k._value) if isinstance(k, Tensor) else int(k)


def _is_int(k):
    return isinstance(k, (int, np.integer)) or (isinstance(k, Tensor) and k._value.ndim == 0
                                                and k._value.dtype.kind in "iu")


def _slice(k):
    return builtins.slice(*[None if v is None else _int(v) for v in (k.start, k.stop, k.step)])


def _check_key(k, rt):
    if not (_is_int(k) or isinstance(k, builtins.slice)):
        raise TypeError(f"RaggedTensor indices must be ints or slices; tapeflow does not take "
                        f"{k!r} (shape {rt.shape}). Index the flat_values or use to_tensor().")


def _rest(values, rest):
    """`values[:, *rest]`: the remaining key entries, behind the row axis."""
    if not rest:
        return values
    key = (builtins.slice(None),) + tuple(rest)
    return getitem(values, key) if isinstance(values, RaggedTensor) else values[key]


def getitem(rt, key):
    """`rt[key]`: an int or slice on the rows, then a slice within each row (an
    int only in a uniform dimension, as TF), then anything the values take.
    Differentiable (a gather of values).

    Raises:
        IndexError: for a row index past the last row (InvalidArgumentError before
            the first), as TF.
        ValueError: for an int index into a ragged dimension, as TF.
        TypeError: for Ellipsis, tf.newaxis or tensor indices.
    """
    key = key if isinstance(key, tuple) else (key,)
    if not key:
        return rt
    first, rest = key[0], key[1:]
    _check_key(first, rt)
    n = rt.nrows_int()
    if isinstance(first, builtins.slice):
        rows = gather_rows(rt, np.arange(n)[_slice(first)])
        return _within_rows(rows, rest[0], rest[1:]) if rest else rows
    index = _int(first)
    if index >= n:  # TF's two errors: IndexError above, InvalidArgumentError below
        raise IndexError(f"Row key {index} out of bounds: the RaggedTensor has {n} rows "
                         f"(shape {rt.shape}).")
    if index < -n:
        raise InvalidArgumentError(f"slice index {index} of dimension 0 out of bounds: the "
                                   f"RaggedTensor has {n} rows (shape {rt.shape}).")
    index %= n
    row = gather_rows(rt.values, np.arange(rt._splits[index], rt._splits[index + 1]))
    if not rest:
        return row
    return getitem(row, rest) if isinstance(row, RaggedTensor) else row[rest]


def _within_rows(rt, k, rest):
    _check_key(k, rt)
    splits = rt._splits
    starts, lengths = splits[:-1], np.diff(splits)
    if isinstance(k, builtins.slice):
        k = _slice(k)
        if k.step in (None, 1):  # the common case, vectorized: one bound pair per row
            first, stop = (_bound(b, lengths, d) for b, d in ((k.start, 0), (k.stop, lengths)))
            new_lengths = np.maximum(stop - first, 0)
            begin = np.repeat(starts + first - np.cumsum(new_lengths) + new_lengths,
                              new_lengths)
            idx = begin + np.arange(int(new_lengths.sum()))
        else:
            picked = [range(a, a + n)[k] for a, n in zip(starts.tolist(), lengths.tolist())]
            new_lengths = np.array([len(r) for r in picked], np.int64)
            idx = np.concatenate([np.arange(r.start, r.stop, r.step) for r in picked]) if \
                picked else np.zeros(0, np.int64)
        inner = gather_rows(rt.values, idx.astype(np.int64))
        return RaggedTensor.from_row_lengths(_rest(inner, rest), new_lengths)
    position = _int(k)
    if rt._uniform is None:
        raise ValueError(f"Cannot index into an inner ragged dimension (axis 1 of shape "
                         f"{rt.shape}) with the int {position}, as TF; slice it ([:, i:i+1]) "
                         "or pad it with to_tensor() first.")
    if not -rt._uniform <= position < rt._uniform:
        raise InvalidArgumentError(f"Index {position} is out of range for the uniform "
                                   f"dimension of length {rt._uniform} (shape {rt.shape}).")
    idx = starts + position % rt._uniform
    return _rest(gather_rows(rt.values, idx), rest)


def _bound(bound, lengths, default):
    """A slice bound in each row, Python's rules: negative from the end, clipped."""
    if bound is None:
        return np.broadcast_to(default, lengths.shape).astype(np.int64)
    at = lengths + bound if bound < 0 else np.full(lengths.shape, bound, np.int64)
    return np.clip(at, 0, lengths)


def same_partition(a, b):
    sa, sb = a.nested_row_splits, b.nested_row_splits
    return len(sa) == len(sb) and all(np.array_equal(x._value, y._value)
                                      for x, y in zip(sa, sb))


def _dense_at_values(rt, y):
    """A dense operand gathered to one row per flat value: its dims along the
    ragged dimensions must be 1 (or nrows for the first), the rest broadcast."""
    flat = rt.flat_values
    k = rt.ragged_rank + 1
    rank = k + flat._value.ndim - 1
    if y._value.ndim > rank:
        raise InvalidArgumentError(f"Unable to broadcast a dense shape "
                                   f"{list(y._value.shape)} to the RaggedTensor shape "
                                   f"{rt.shape}: the dense operand has the larger rank.")
    shape = (1,) * (rank - y._value.ndim) + y._value.shape
    lead = shape[:k]
    if lead[0] not in (1, rt.nrows_int()) or any(d != 1 for d in lead[1:]):
        raise InvalidArgumentError(f"Unable to broadcast: dense shape {list(y._value.shape)} "
                                   f"against RaggedTensor shape {rt.shape}; a dense operand "
                                   f"must have size 1 along the ragged dimensions.")
    coords = rt._coordinates() * (np.asarray(lead) > 1)
    lin = np.ravel_multi_index(tuple(coords.T), lead) if coords.size else \
        np.zeros(coords.shape[0], np.int64)
    rows = _s.reshape(y, shape=(int(np.prod(lead)),) + shape[k:])
    return _s.gather(rows, Tensor(lin), axis=0)


def apply_elementwise(fn, rt, other):
    """`fn(rt, other)` on the flat values, `other` matched to them."""
    flat = rt.flat_values
    if isinstance(other, RaggedTensor):
        if not same_partition(rt, other):
            splits = [[s.numpy().tolist() for s in t.nested_row_splits] for t in (rt, other)]
            raise InvalidArgumentError(f"Inputs must have identical ragged splits: shapes "
                                       f"{rt.shape} and {other.shape}, row splits "
                                       f"{splits[0]} and {splits[1]}.")
        return rt.with_flat_values(fn(flat, other.flat_values))
    if type(other) in (int, float, bool):
        return rt.with_flat_values(fn(flat, other))
    y = other if isinstance(other, Tensor) else convert_to_tensor(
        other, dtype_hint=flat._value.dtype)
    if y._value.ndim >= flat._value.ndim:
        y = _dense_at_values(rt, y)
    return rt.with_flat_values(fn(flat, y))


def _binary(fn):
    def forward(self, other):
        return apply_elementwise(fn, self, other)

    def reflected(self, other):
        return apply_elementwise(lambda a, b: fn(b, a), self, other)

    return forward, reflected


def install():
    """Give RaggedTensor `[]` and the elementwise operators."""
    RaggedTensor.__getitem__ = getitem
    for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "or", "xor"):
        forward, reflected = _binary(getattr(operator, name + ("_" if name in (
            "and", "or") else "")))
        setattr(RaggedTensor, f"__{name}__", forward)
        setattr(RaggedTensor, f"__r{name}__", reflected)
    for name in ("lt", "le", "gt", "ge"):
        setattr(RaggedTensor, f"__{name}__", _binary(getattr(operator, name))[0])
    RaggedTensor.__neg__ = lambda self: self.with_flat_values(-self.flat_values)
    RaggedTensor.__abs__ = lambda self: self.with_flat_values(abs(self.flat_values))
    RaggedTensor.__invert__ = lambda self: self.with_flat_values(~self.flat_values)
