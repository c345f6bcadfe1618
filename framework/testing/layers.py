"""layers.py holds `check_layer`, the one shared check every layer's tests
run (docs/STYLE.md): output shape, weight counts, config round trip, float64
gradient checks with respect to the inputs and the weights, and a training
step that lowers a loss. It imports tapeflow.layers lazily (it sits above it)."""

import contextlib

import numpy as np

from . import gradients as testing
from ..api.array_ops import cast
from ..math import add, reduce_mean, square, subtract
from ..autodiff.tape import GradientTape
from ..core.tensor import Tensor, Variable

__all__ = ["check_layer", "functional_call"]


def _random_inputs(input_shape, input_dtype, rng):
    def one(shape, dtype):
        shape = tuple(2 if d is None else d for d in shape)
        if np.dtype(dtype).kind in "iu":
            return rng.integers(0, 10, shape).astype(dtype)
        return rng.standard_normal(shape).astype(dtype)
    if _is_multi(input_shape):
        dtypes = input_dtype if isinstance(input_dtype, (list, tuple)) else [input_dtype] * len(
            input_shape)
        return [one(s, d) for s, d in zip(input_shape, dtypes)]
    return one(input_shape, input_dtype)


def _is_multi(shape):
    return isinstance(shape, list) and shape and isinstance(shape[0], (list, tuple))


def _as_list(data):
    return list(data) if isinstance(data, list) else [data]


def _call(layer, inputs, multi, **kwargs):
    return layer(list(inputs) if multi else inputs[0], **kwargs)


@contextlib.contextmanager
def _substituted(layer, mapping):
    """Within the block, attributes (and list/dict items) of `layer` and its
    sublayers holding a Variable in `mapping` (by id) hold its replacement."""
    undo = []
    for sub in layer._flatten_layers():
        for name, value in list(vars(sub).items()):
            if isinstance(value, Variable) and id(value) in mapping:
                undo.append((object.__setattr__, sub, name, value))
                object.__setattr__(sub, name, mapping[id(value)])
            elif isinstance(value, list):
                for i, item in enumerate(value):
                    if isinstance(item, Variable) and id(item) in mapping:
                        undo.append((list.__setitem__, value, i, item))
                        list.__setitem__(value, i, mapping[id(item)])
            elif isinstance(value, dict):
                for key, item in list(value.items()):
                    if isinstance(item, Variable) and id(item) in mapping:
                        undo.append((dict.__setitem__, value, key, item))
                        dict.__setitem__(value, key, mapping[id(item)])
    try:
        yield
    finally:
        for setter, target, key, value in reversed(undo):
            setter(target, key, value)


def functional_call(layer, weights, *args, **kwargs):
    """Call `layer` with its trainable variables replaced by the Tensors `weights`
    (same order as `layer.trainable_variables`), so that gradients flow to them.

    Works for layers that read their weights from attributes (or lists and
    dicts held in attributes), which every tapeflow layer does.
    """
    variables = layer.trainable_variables
    if len(weights) != len(variables):
        raise ValueError(f"functional_call: layer {layer.name!r} has {len(variables)} "
                         f"trainable variables, got {len(weights)} values.")
    with _substituted(layer, {id(v): w for v, w in zip(variables, weights)}):
        return layer(*args, **kwargs)


def _shapes_match(expected, actual):
    expected, actual = tuple(expected), tuple(actual)
    return len(expected) == len(actual) and all(e is None or e == a
                                               for e, a in zip(expected, actual))


def check_layer(layer, input_shape=None, *, input_data=None, input_dtype="float32",
                expected_output_shape=None, expected_num_trainable_weights=None,
                expected_num_non_trainable_weights=None, expected_output=None,
                training=True, gradcheck=True, gradcheck_training=False, order=1,
                check_inputs_gradient=True, run_training_step=True, check_config=True,
                seed=0, rtol=1e-6, atol=1e-6):
    """The shared layer check: shape, weights, config, gradients and a training step.

    1. Calls the (unbuilt) layer in inference mode on `input_data` (or random
       data of `input_shape`; a list of shapes for several inputs) and checks
       the output shape against `expected_output_shape` and against
       `layer.compute_output_shape`, and the output against `expected_output`.
    2. Checks the numbers of trainable and non-trainable weights.
    3. Rebuilds the layer from `get_config()`, copies the weights over, and
       checks that it gives the same output.
    4. Builds a float64 copy and runs `tapeflow.testing.gradcheck` with respect
       to the float inputs and, through `functional_call`, every trainable
       weight (`training=gradcheck_training`, to `order`).
    5. With trainable weights, takes one gradient step on a mean squared error
       (plus `layer.losses`) in mode `training` and checks the loss went down
       for some step size in 1e-1 ... 1e-4.

    Returns:
        The output of the first call (step 1).

    Raises:
        AssertionError: naming the step that failed.
    """
    rng = np.random.default_rng(seed)
    if input_data is None:
        if input_shape is None:
            raise ValueError("check_layer needs input_shape or input_data.")
        input_data = _random_inputs(input_shape, input_dtype, rng)
    multi = isinstance(input_data, list)
    inputs = _as_list(input_data)
    output = _call(layer, inputs, multi, training=False)
    if not isinstance(output, Tensor):
        raise AssertionError(f"check_layer: {layer.name} returned {type(output).__name__}, "
                             "expected one Tensor.")
    if expected_output_shape is not None and not _shapes_match(expected_output_shape,
                                                               output.shape):
        raise AssertionError(f"check_layer: {layer.name} output shape {tuple(output.shape)}, "
                             f"expected {tuple(expected_output_shape)}.")
    shapes = [tuple(np.shape(x)) for x in inputs]
    computed = layer.compute_output_shape(shapes if multi else shapes[0])
    if not _shapes_match(computed, output.shape):
        raise AssertionError(f"check_layer: {layer.name}.compute_output_shape gives "
                             f"{tuple(computed)}, the call gives {tuple(output.shape)}.")
    if expected_output is not None:
        np.testing.assert_allclose(output.numpy(), expected_output, rtol=1e-5, atol=1e-6,
                                   err_msg=f"check_layer: {layer.name} output values")
    for expected, actual, what in ((expected_num_trainable_weights,
                                    len(layer.trainable_weights), "trainable"),
                                   (expected_num_non_trainable_weights,
                                    len(layer.non_trainable_weights), "non-trainable")):
        if expected is not None and expected != actual:
            raise AssertionError(f"check_layer: {layer.name} has {actual} {what} weights, "
                                 f"expected {expected}.")
    if check_config:
        _check_config(layer, inputs, multi, output)
    if gradcheck:
        _check_gradients(layer, inputs, multi, gradcheck_training, order,
                         check_inputs_gradient, rtol, atol)
    if run_training_step and layer.trainable_weights:
        _check_training_step(layer, inputs, multi, training, rng)
    return output


def _check_config(layer, inputs, multi, output):
    config = layer.get_config()
    clone = type(layer).from_config(config)
    if clone.get_config() != config:
        raise AssertionError(f"check_layer: {layer.name} config does not round-trip:\n "
                             f"{config}\n {clone.get_config()}")
    _call(clone, inputs, multi, training=False)
    clone.set_weights(layer.get_weights())
    np.testing.assert_allclose(_call(clone, inputs, multi, training=False).numpy(),
                               output.numpy(), rtol=1e-6, atol=1e-6,
                               err_msg=f"check_layer: {layer.name} rebuilt from its config")


def _float64_copy(layer, inputs, multi):
    config = dict(layer.get_config(), dtype="float64")
    config.pop("name", None)
    clone = type(layer).from_config(config)
    _call(clone, [_to64(x) for x in inputs], multi, training=False)
    clone.set_weights([w.astype(np.float64) if w.dtype.kind == "f" else w
                       for w in layer.get_weights()])
    return clone


def _to64(x):
    x = np.asarray(x)
    return x.astype(np.float64) if x.dtype.kind == "f" else x


def _check_gradients(layer, inputs, multi, training, order, check_inputs, rtol, atol):
    clone = _float64_copy(layer, inputs, multi)
    inputs64 = [_to64(x) for x in inputs]
    float_positions = [i for i, x in enumerate(inputs64) if x.dtype.kind == "f"]
    variables = clone.trainable_variables
    n_in = len(float_positions) if check_inputs else 0

    def fn(*tensors):
        xs = list(inputs64)
        for position, t in zip(float_positions[:n_in], tensors[:n_in]):
            xs[position] = t
        xs = [x if isinstance(x, Tensor) else Tensor(x) for x in xs]
        return functional_call(clone, list(tensors[n_in:]), list(xs) if multi else xs[0],
                               training=training)

    points = [inputs64[i] for i in float_positions[:n_in]] + [v.numpy() for v in variables]
    if not points:
        return
    try:
        testing.gradcheck(fn, *points, order=order, rtol=rtol, atol=atol)
    except AssertionError as error:
        names = [f"input {i}" for i in float_positions[:n_in]] + [v.path for v in variables]
        raise AssertionError(f"check_layer: {layer.name} gradient check failed (arguments in "
                             f"order: {names}): {error}") from None


def _loss(layer, inputs, multi, training, target):
    out = _call(layer, [Tensor(np.asarray(x)) for x in inputs], multi, training=training)
    loss = reduce_mean(square(subtract(out, cast(target, out.dtype))))
    for extra in layer.losses:
        loss = add(loss, cast(extra, loss.dtype))
    return loss


def _check_training_step(layer, inputs, multi, training, rng):
    out = _call(layer, inputs, multi, training=False)
    target = Tensor(rng.standard_normal(tuple(out.shape)).astype(out.numpy().dtype))
    variables = layer.trainable_weights
    start = [v.numpy().copy() for v in variables]
    state = [v.numpy().copy() for v in layer.non_trainable_weights]

    def restore():
        for v, value in zip(variables, start):
            v.assign(value)
        for v, value in zip(layer.non_trainable_weights, state):
            v.assign(value)

    with GradientTape() as tape:
        before = _loss(layer, inputs, multi, training, target)
    grads = tape.gradient(before, variables)
    missing = [v.path for v, g in zip(variables, grads) if g is None]
    if missing:
        raise AssertionError(f"check_layer: {layer.name} has no gradient for {missing}.")
    restore()
    before = float(_loss(layer, inputs, multi, training, target))
    for lr in (1e-1, 1e-2, 1e-3, 1e-4):
        restore()
        for v, g in zip(variables, grads):
            v.assign_sub((lr * g.numpy()).astype(v.numpy().dtype))
        after = float(_loss(layer, inputs, multi, training, target))
        if after < before:
            restore()
            return
    restore()
    raise AssertionError(f"check_layer: a gradient step did not lower the loss of "
                         f"{layer.name} ({before}) for any step size.")
