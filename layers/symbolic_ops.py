"""symbolic_ops.py lets TF's functions take the functional API's symbolic
tensors, as Keras does: `tf.concat([a, b], axis=1)` or `tf.reduce_mean(x,
axis=1)` on KerasTensors records an op node (a Lambda layer kept out of
`model.layers`, as Python operators between layers already do) that runs the
function on the real tensors. The functions reach it through api/dispatch.py
(the elementwise tf.math functions, the reductions, concat, stack, tile,
reverse, gather, embedding_lookup); it is registered when the layers load."""

from .. import math as _math
from ..api import array_ops as _array_ops
from ..api import dispatch as _dispatch
from ..api import indexing_ops as _indexing_ops
from ..core import nest
from ..nn import embedding_lookup as _embedding_lookup
from .keras_tensor import KerasTensor

__all__ = ["symbolic_op"]


def symbolic_op(fn, args, kwargs):
    """`fn(*args, **kwargs)` with KerasTensors among its arguments, as an op node."""
    structure = (list(args), dict(kwargs))
    symbolic = [leaf for leaf in nest.flatten(structure) if isinstance(leaf, KerasTensor)]

    def run(tensors):
        supply = iter(tensors)
        call_args, call_kwargs = nest.map_structure(
            lambda v: next(supply) if isinstance(v, KerasTensor) else v, structure)
        return fn(*call_args, **call_kwargs)

    layer = KerasTensor._operator_layer(run, name=None)
    layer._is_lambda_op = True  # an op node, not a user layer (kept out of .layers)
    return layer(symbolic)


def _register():
    _dispatch.register("elementwise", KerasTensor,
                       lambda fn, *args, **kwargs: symbolic_op(fn, args, kwargs))
    functions = {"reduce_sum": _math.reduce_sum, "reduce_mean": _math.reduce_mean,
                 "reduce_max": _math.reduce_max, "reduce_min": _math.reduce_min,
                 "concat": _array_ops.concat, "stack": _array_ops.stack,
                 "tile": _array_ops.tile, "reverse": _array_ops.reverse,
                 "gather": _indexing_ops.gather, "embedding_lookup": _embedding_lookup}
    for key, fn in functions.items():
        _dispatch.register(key, KerasTensor,
                           lambda *args, _fn=fn, **kwargs: symbolic_op(_fn, args, kwargs))


_register()
