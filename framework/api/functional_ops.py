"""functional_ops.py holds TF's root-namespace functional helpers: `tf.map_fn`
and the graph-era names that are plain calls in eager code (`tf.group`,
`tf.no_op`, `tf.identity_n`).

map_fn runs `fn` once per row in Python and stacks the results with
`tf.stack`, so its gradient is that of the ops `fn` runs, to any order.
"""

from ..core import dtypes, nest
from ..core.errors import InvalidArgumentError
from ..core.tensor import Tensor, TensorShape, as_tensor, convert_to_tensor
from ..core.tensor_spec import TensorSpec
from ..ragged import ragged_ops
from ..ragged.ragged_tensor import RaggedTensor
from ..ragged.ragged_tensor_spec import RaggedTensorSpec
from .array_ops import concat, identity, reshape, stack, stop_gradient, unstack, zeros

__all__ = ["map_fn", "group", "no_op", "identity_n"]


def group(*inputs, name=None):
    """Eagerly every input has already run: returns None, as TF's eager `tf.group`."""
    return None


def no_op(name=None):
    """Does nothing and returns None (TF's eager `tf.no_op`)."""
    return None


def identity_n(input, name=None):  # noqa: A002 -- TF's name
    """A list of `tf.identity` of each tensor of `input` (gradients pass through)."""
    return [identity(t) for t in input]


def _is_ragged_spec(spec):
    return isinstance(spec, RaggedTensorSpec)


def _as_spec(signature):
    """A TensorSpec or RaggedTensorSpec for one leaf of `fn_output_signature`."""
    if isinstance(signature, TensorSpec) or _is_ragged_spec(signature):
        return signature
    try:
        return TensorSpec(None, dtypes.as_dtype(signature))
    except (TypeError, ValueError):
        raise TypeError(f"map_fn: `fn_output_signature` must be a DType, a TensorSpec or a "
                        f"RaggedTensorSpec (or a nested structure of them), got "
                        f"{signature!r}.") from None


def _leaf_specs(signature):
    # A spec or dtype is a leaf; nest would not descend into them anyway.
    return [_as_spec(s) for s in nest.flatten(signature)]


def _row_spec(elem):
    """The default signature of one row of `elem`: TF's unbatched spec of it."""
    if isinstance(elem, RaggedTensor):
        return RaggedTensorSpec(elem.shape[1:], elem.dtype, ragged_rank=elem.ragged_rank - 1)
    return TensorSpec(None, elem.dtype)


def _first_dimension(elems_flat):
    for t in elems_flat:
        if len(t.shape) < 1:
            raise ValueError("Elements in elems must be 1+ dimensional Tensors, not scalars"
                             if len(elems_flat) == 1 else
                             "All elements in elems must be 1+ dimensional Tensors, not scalars")
    n = elems_flat[0].shape[0]
    for t in elems_flat[1:]:
        if t.shape[0] != n:
            raise ValueError(f"Dimensions {n} and {t.shape[0]} are not compatible (map_fn: "
                             "every tensor of `elems` needs the same size in dimension 0)")
    return n


def _check_result(flat, specs, index, infer_shape, first_shapes):
    if len(flat) != len(specs):
        raise ValueError(f"map_fn: the two structures don't have the same nested structure: "
                         f"fn returned {len(flat)} tensor(s) for element {index}, "
                         f"fn_output_signature describes {len(specs)}.")
    checked = []
    for k, (value, spec) in enumerate(zip(flat, specs)):
        if _is_ragged_spec(spec):
            checked.append(value)
            continue
        if not isinstance(value, Tensor):  # a Python number or array, as TF converts it
            value = convert_to_tensor(value, dtype=spec.dtype)
        if value.dtype != spec.dtype:
            raise InvalidArgumentError(
                f"TensorArray dtype is {spec.dtype.name} but Op is trying to write dtype "
                f"{value.dtype.name} (map_fn: fn's output {k}; pass fn_output_signature= with "
                "fn's output dtypes)")
        if not spec.shape.is_compatible_with(TensorShape(value.shape)):
            raise ValueError(f"Incompatible shape for value ({TensorShape(value.shape)}), "
                             f"expected ({spec.shape}) (map_fn: fn's output {k})")
        if infer_shape and first_shapes[k] is not None and first_shapes[k] != value.shape:
            raise ValueError(f"Incompatible shape for value ({TensorShape(value.shape)}), "
                             f"expected ({TensorShape(first_shapes[k])}) (map_fn: fn's output "
                             f"{k} at element {index}, infer_shape=True)")
        checked.append(value)
    return checked


def _stack_results(column, spec, n):
    """The per-element results of one output stacked along a new axis 0."""
    if _is_ragged_spec(spec):  # rows of different lengths: their concatenation, cut by length
        if not all(isinstance(v, Tensor) for v in column):
            return ragged_ops.stack(list(column), axis=0)
        rows = [v if len(v.shape) else reshape(v, (1,)) for v in column]
        lengths = convert_to_tensor([v.shape[0] for v in rows], dtype=dtypes.int64)
        values = concat(rows, axis=0) if rows else zeros((0,), dtype=spec.dtype)
        return RaggedTensor.from_row_lengths(values, lengths)
    if n == 0:  # TF's empty TensorArray: (0,) + the signature's shape when fully known
        known = spec.shape.rank is not None and spec.shape.is_fully_defined()
        return zeros((0,) + (tuple(spec.shape.as_list()) if known else ()), dtype=spec.dtype)
    return stack(list(column), axis=0)


def map_fn(fn, elems, dtype=None, parallel_iterations=None, back_prop=True, swap_memory=False,
           infer_shape=True, name=None, fn_output_signature=None):
    """`fn` applied to each row of `elems` (unstacked on axis 0), the results stacked.

    `elems` may be a tensor or a nested structure of tensors with the same first
    dimension; `fn` gets the same structure of rows. Without
    `fn_output_signature` (or its deprecated alias `dtype`), `fn` must return the
    structure and dtypes of `elems`, as in TF. A RaggedTensor in `elems` is cut into
    its rows (Tensors), and its results are stacked into a RaggedTensor again. A `RaggedTensorSpec` leaf lets
    `fn` return rows of different lengths, stacked into a RaggedTensor.
    `parallel_iterations` and `swap_memory` are accepted and ignored (one CPU
    thread runs the calls in order); `back_prop=False` stops the gradient.

    Raises:
        ValueError: scalar elems, differing first dimensions, a result structure
            or shape that does not match the signature (TF's messages).
        InvalidArgumentError: a result dtype other than the signature's.
    """
    if not callable(fn):
        raise TypeError(f"map_fn: `fn` must be callable, got {fn!r}.")
    if dtype is not None and fn_output_signature is not None:
        raise ValueError("map_fn: pass only one of `dtype` (deprecated) and "
                         "`fn_output_signature`.")
    if fn_output_signature is None:
        fn_output_signature = dtype
    elems_flat = [t if isinstance(t, RaggedTensor) else as_tensor(t)
                  for t in nest.flatten(elems)]
    if not elems_flat:
        raise ValueError("map_fn: `elems` must be a tensor or a non-empty structure of tensors.")
    n = _first_dimension(elems_flat)
    if fn_output_signature is None:  # elems' dtypes (and raggedness); shapes left unknown
        fn_output_signature = nest.map_structure(_row_spec,
                                                 nest.pack_sequence_as(elems, elems_flat))
    specs = _leaf_specs(fn_output_signature)
    rows = [[t[i] for i in range(n)] if isinstance(t, RaggedTensor) else unstack(t, axis=0)
            for t in elems_flat]
    columns = [[] for _ in specs]
    first_shapes = [None] * len(specs)
    for i in range(n):
        result = fn(nest.pack_sequence_as(elems, [r[i] for r in rows]))
        flat = _check_result(nest.flatten(result), specs, i, infer_shape, first_shapes)
        for k, value in enumerate(flat):
            columns[k].append(value)
            if first_shapes[k] is None and isinstance(value, Tensor):
                first_shapes[k] = value.shape
    outputs = [_stack_results(c, s, n) for c, s in zip(columns, specs)]
    if not back_prop:
        outputs = [stop_gradient(o) if isinstance(o, Tensor) else o for o in outputs]
    return nest.pack_sequence_as(fn_output_signature, outputs)
