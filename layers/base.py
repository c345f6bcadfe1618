"""base.py owns `Layer`: lazy building, the call protocol, weights, losses and
config. Attribute tracking is variable_tracking.py's (a mixin), the steps of a
call are calling.py's, add_weight's and set_weights' argument checks are
weight_creation.py's. It re-exports InputSpec, the mask and tracking helpers
and reset_name_counters; concrete layers live in the sibling modules."""

import inspect

import numpy as np

from ..core import dtypes, nest
from ..core import record as _record
from . import calling as _calling
from . import keras_tensor as _symbolic
from . import weight_creation as _weights
from .. import regularizers as _regularizers
from ..metrics.base import Mean as _Mean
from ..metrics.base import Metric as _Metric
from .. import constraints as _constraints
from ..module import Module, _NameScope
from ..core.tensor import Tensor, Variable, convert_to_tensor
from .input_spec import InputSpec, _assert_input_compatibility
from .layer_utils import (_call_signature, _check_weight_shape, _standardize_dtype,
                          _to_snake_case, _uniquify, reset_name_counters)
from .serialization import register as _register_class
from .tracking import (_Builds, _context, _masks, building, clear_losses, get_keras_mask,
                       no_tracking, own_losses, set_keras_mask)
from .variable_tracking import VariableTracking

__all__ = ["Layer", "InputSpec", "reset_name_counters", "get_keras_mask", "set_keras_mask",
           "no_tracking"]


class Layer(VariableTracking, Module):
    """The base of every layer: state, building, tracking and the call protocol.

    A subclass stores its configuration in `__init__`, creates its weights in
    `build(input_shape)` with `add_weight`, and computes in
    `call(inputs, training=None, mask=None)`. Calling the layer builds it on
    first use (from the shape of the first argument), checks `input_spec`,
    casts float inputs to the layer's dtype, resolves `training` (an outer
    layer's value reaches inner calls that do not pass one) and records the
    activity-regularization loss (divided by the batch size, as Keras does).

    Assigning a Variable, a Layer, or a (nested) list, tuple or dict of them as
    an attribute tracks it (VariableTracking): `variables` lists the layer's
    own trainable then non-trainable variables, then each sublayer's, in
    assignment order, each variable once. Adding new state once the layer is
    built raises ValueError.

    A layer is a `tf.Module`: `name_scope`, `with_name_scope` and `submodules`
    work as a Module's, but `variables` keeps Keras's order above (a list), and
    a name need only be a string without '/'.

    Args:
        trainable: whether the layer's weights are updated by training.
        name: the layer's name; by default the snake_case class name made
            unique ('dense', 'dense_1', ...).
        dtype: the dtype of the weights and of the computation ('float32').
        activity_regularizer: a regularizer applied to the outputs.
        autocast: cast float inputs to the layer's dtype (True).
        input_shape, input_dim, batch_size, batch_input_shape: recorded for
            a Sequential model's first layer (`_input_shape_arg`).
    """

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        setattr_ = object.__setattr__
        setattr_(self, "_tracked_trainable", [])
        setattr_(self, "_tracked_non_trainable", [])
        setattr_(self, "_tracked_layers", [])
        setattr_(self, "_tracked_ids", set())
        setattr_(self, "_weight_regularizers", [])
        setattr_(self, "built", False)
        setattr_(self, "_layer_initialized", False)
        setattr_(self, "_auto_config", _auto_config(cls, args, kwargs))
        return self

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        _register_class(cls)  # tapeflow's own classes are rebuilt from configs by name
        _calling.wrap_build(cls)  # a build called by hand leaves the layer built, as in Keras 3

    def __init__(self, *, activity_regularizer=None, trainable=True, dtype=None,
                 autocast=True, name=None, **kwargs):
        input_shape = kwargs.pop("input_shape", None)
        input_dim = kwargs.pop("input_dim", None)
        batch_size = kwargs.pop("batch_size", None)
        batch_input_shape = kwargs.pop("batch_input_shape", None)
        for legacy in ("input_length", "weights", "dynamic"):
            kwargs.pop(legacy, None)
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to "
                             f"{type(self).__name__}: {kwargs}")
        if name is None:
            name = _uniquify(_to_snake_case(type(self).__name__))
        elif not isinstance(name, str) or "/" in name:
            raise ValueError(f"Argument `name` must be a string and cannot contain the "
                             f"character `/`. Received: name={name!r}")
        self.name = name
        self._trainable = bool(trainable)
        self._dtype = _standardize_dtype(dtype, self)
        self.autocast = autocast
        self.activity_regularizer = _regularizers.get(activity_regularizer)
        self._input_spec = None
        self.supports_masking = type(self).compute_mask is not Layer.compute_mask
        self.stateful = False
        self._called = False
        self._build_input_shape = None
        if input_dim is not None and input_shape is None:
            input_shape = (input_dim,)
        if batch_input_shape is not None:
            batch_size, input_shape = batch_input_shape[0], batch_input_shape[1:]
        self._input_shape_arg = None if input_shape is None else tuple(input_shape)
        self._batch_size_arg = batch_size
        self._layer_initialized = True

    @property
    def name(self):
        """The layer's name ('dense', 'dense_1', ...)."""
        return self._name

    @name.setter
    def name(self, value):
        object.__setattr__(self, "_name", value)

    @property
    def name_scope(self):
        """A name scope named after the layer, inside the current one when entered
        (Keras's `<outer>/<layer name>/`)."""
        return _NameScope(self.name)

    # -- dtype ---------------------------------------------------------------------
    @property
    def dtype(self):
        """The dtype name of the layer's variables and computation ('float32')."""
        return self._dtype

    @property
    def compute_dtype(self):
        return self._dtype

    @property
    def variable_dtype(self):
        return self._dtype

    @property
    def input_dtype(self):
        return self._dtype

    # -- the functional API's view of a layer: its first call on symbolic tensors --
    def _first_node(self, what):
        for ref in self.__dict__.get("_inbound_node_refs", ()):
            node = ref()
            if node is not None:
                return node
        raise AttributeError(f"Layer {self.name!r} has no inbound nodes: it has never been "
                             f"called on symbolic tensors, so it has no defined {what}.")

    @property
    def input(self):
        """The symbolic input of the layer's first call in a functional graph (Keras)."""
        return self._first_node("input").inputs

    @property
    def output(self):
        """The symbolic output of the layer's first call in a functional graph (Keras)."""
        return self._first_node("output").outputs

    @property
    def input_spec(self):
        return self._input_spec

    @input_spec.setter
    def input_spec(self, value):
        object.__setattr__(self, "_input_spec", value)

    # -- weights ---------------------------------------------------------------------
    def add_weight(self, *args, **kwargs):
        """Create a variable of this layer and track it.

        Keras 3 order: `add_weight(shape=None, initializer=None, dtype=None,
        trainable=True, regularizer=None, constraint=None, name=None)`; a call
        starting with a name, `add_weight("kernel", shape, initializer)`, is
        read in the tf.keras order. Pass the rest by keyword.

        Args:
            shape: a tuple of non-negative ints (() by default).
            initializer: a name, an Initializer or a callable `(shape, dtype)`;
                'glorot_uniform' for floats, 'zeros' otherwise, by default.
            dtype: the variable's dtype (the layer's dtype by default).
            trainable: whether training updates it.
            regularizer: name or callable; its value joins `layer.losses`.
            constraint: name or callable applied by optimizers after updates.
            name: the variable's name; its `path` is '<layer name>/<name>'.

        Returns:
            The new Variable.

        Raises:
            ValueError: for a bad shape or an unknown initializer name, or
                when the layer is already built.
        """
        return self._add_weight(**_weights.add_weight_arguments(self, args, kwargs))

    add_variable = add_weight

    def _add_weight(self, shape=None, initializer=None, dtype=None, trainable=True,
                    regularizer=None, constraint=None, name=None, autocast=True,
                    aggregation=None, synchronization=None, use_resource=None,
                    overwrite_with_gradient=False, experimental_autocast=None):
        name = "variable" if name is None else str(name)
        shape = _check_weight_shape(shape, self, name)
        dtype = dtypes.as_dtype(dtype or self.variable_dtype)
        self._check_unlocked(f"variable {name!r}", None)
        variable = Variable(_weights.initial_value(self, initializer, shape, dtype, name),
                            trainable=trainable, name=name, dtype=dtype,
                            constraint=_constraints.get(constraint))
        variable._path = f"{self.name}/{name}"
        self._track(variable)
        regularizer = _regularizers.get(regularizer)
        if regularizer is not None:
            self._weight_regularizers.append((variable, regularizer))
        return variable

    def get_weights(self):
        """The values of `weights` as NumPy arrays, in the same order."""
        return [np.array(v.numpy()) for v in self.weights]

    def set_weights(self, weights):
        """Set the values of `weights` from a list of arrays (same order and shapes).

        Raises:
            ValueError: for a list of the wrong length or an array of the
                wrong shape, naming the layer, the weight and both shapes.
        """
        variables = self.weights
        arrays = _weights.checked_weight_arrays(self, variables, weights)
        for variable, array in zip(variables, arrays):
            variable.assign(array.astype(variable._value.dtype, copy=False))

    def count_params(self):
        """The number of scalars in the layer's weights.

        Raises:
            ValueError: if the layer is not built yet.
        """
        if not self.built:
            raise ValueError(f"You tried to call `count_params` on layer {self.name!r}, but the "
                             "layer isn't built. Build it first by calling it on an input or "
                             "with `layer.build(input_shape)`.")
        return int(sum(int(np.prod(v.shape, dtype=np.int64)) for v in self.weights))

    # -- losses ----------------------------------------------------------------------
    def add_loss(self, loss):
        """Add a scalar loss (or a list of them, or a zero-argument callable)."""
        own = own_losses(self)
        for item in nest.flatten(loss):
            if item is None:
                continue
            own.append(item if callable(item) and not isinstance(item, Tensor)
                       else convert_to_tensor(item))

    def add_metric(self, value, name=None, aggregation="mean"):
        """Keras 2's `add_metric`: log `value` under `name`, averaged over the batches
        of an epoch (a `Mean` this layer keeps, listed in `metrics`, reset by fit
        and evaluate each epoch). Keras 3 removed it; tapeflow keeps it for Keras 2
        programs. Call it from `call` with a tensor computed there.

        Raises:
            ValueError: without a `name`, or for an aggregation other than 'mean'
                or None (a value already aggregated, averaged over batches too).
        """
        metric = self._added_metric(name, aggregation)
        if _symbolic.is_symbolic(value):
            raise NotImplementedError(
                f"add_metric({name!r}) of a symbolic tensor works on a functional Model "
                f"(model.add_metric), not on the layer {self.name!r}: call it inside the "
                "layer's `call`.")
        if not _context.example_run:  # the functional API's shape run adds no value
            metric.update_state(value)

    def _added_metric(self, name, aggregation):
        """The Mean behind `add_metric(..., name)`, made on first use, after the checks."""
        if aggregation not in ("mean", None):
            raise ValueError("We currently support only `mean` sample-wise metric "
                             f"aggregation. You provided aggregation={aggregation!r}")
        if not isinstance(name, str) or not name:
            raise ValueError("Please provide a name for your metric like "
                             "`self.add_metric(tf.reduce_sum(inputs), name='mean_activation')`"
                             f". Received: name={name!r}")
        added = self.__dict__.get("_added_metrics")
        if added is None:
            added = {}
            object.__setattr__(self, "_added_metrics", added)
        metric = added.get(name)
        if metric is None:
            metric = added[name] = _Mean(name=name)
        return metric

    def __setattr__(self, name, value):
        # Metric objects in public attributes are the layer's metrics (Keras 3 tracks
        # them: `self.loss_tracker = Mean(...)`); noted here so `metrics` scans nothing.
        attribute_metrics = self.__dict__.get("_attribute_metrics")
        if isinstance(value, _Metric) and not name.startswith("_"):
            if attribute_metrics is None:
                attribute_metrics = {}
                object.__setattr__(self, "_attribute_metrics", attribute_metrics)
            attribute_metrics[name] = value
        elif attribute_metrics:
            attribute_metrics.pop(name, None)
        super().__setattr__(name, value)

    def _own_metrics(self):
        """The metrics of this layer alone: `add_metric`'s, then its attributes'."""
        own = self.__dict__
        added, held = own.get("_added_metrics"), own.get("_attribute_metrics")
        found = list(added.values()) if added else []
        if held:
            found.extend(m for m in held.values() if m not in found)
        return found

    @property
    def metrics(self):
        """This layer's metrics and its sublayers' (see `add_metric`), each once."""
        result = []
        for layer in self._flatten_layers():
            result.extend(m for m in layer._own_metrics() if m not in result)
        return result

    @property
    def losses(self):
        """`add_loss` and activity losses of the last call, then weight regularization.

        The losses of a call are the calling thread's: a thread that serves
        `predict` while another runs `fit` never adds to the losses `fit`
        reads. Weight regularization is computed afresh on each access, for
        the trainable weights of this layer and its sublayers.
        """
        result = []
        layers = self._flatten_layers()
        own = _context.losses
        for layer in layers:
            result.extend(item() if callable(item) and not isinstance(item, Tensor) else item
                          for item in own.get(layer, ()))
        regularized = [layer for layer in layers if layer._weight_regularizers]
        if not regularized:  # fit reads this every step: no variable walk then
            return result
        trainable = {id(v) for v in self.trainable_variables}
        for layer in regularized:
            for variable, regularizer in layer._weight_regularizers:
                if id(variable) in trainable:
                    result.append(regularizer(variable))
        return result

    def _clear_losses(self):
        clear_losses(self._flatten_layers())

    @property
    def _losses(self):
        """The calling thread's call losses of this layer alone (a live list)."""
        return own_losses(self)

    # -- building and calling ------------------------------------------------------------
    def build(self, input_shape):
        """Create the layer's weights for `input_shape`; called once, by `__call__`."""
        self.built = True

    def call(self, inputs, *args, **kwargs):
        raise NotImplementedError(f"Layer {type(self).__name__} does not have a `call()` "
                                  "method implemented.")

    def __call__(self, *args, **kwargs):
        if not self.__dict__.get("_layer_initialized"):
            raise RuntimeError(f"{type(self).__name__}.__init__ did not call "
                               "super().__init__(); call it first.")
        if args and _symbolic.is_symbolic(args[0]):
            # Functional API: record a node instead of computing (layers/keras_tensor.py).
            return _symbolic.symbolic_call(self, args[0], args[1:], kwargs)
        params, has_training, training_default, has_mask, _ = _call_signature(type(self))
        training = kwargs.pop("training", None)
        if isinstance(training, Tensor):
            training = bool(training)
        if training is None:
            training = _context.training
            if training is None:
                training = training_default
        if has_training and training is not None:
            kwargs["training"] = training
        args, kwargs = _calling.convert_inputs(self, args, kwargs)
        first = args[0] if args else next(iter(kwargs.values()), None)
        # No mask lookups while no tensor carries one.
        previous_mask = _calling.input_mask(first) if _masks else None
        if has_mask and kwargs.get("mask") is None and previous_mask is not None:
            kwargs["mask"] = previous_mask
        elif not has_mask:
            kwargs.pop("mask", None)

        outer_training, outer_depth = _context.training, _context.depth
        if outer_depth == 0:
            self._clear_losses()
        _context.depth = outer_depth + 1
        _context.training = training
        try:
            _assert_input_compatibility(self, first)
            if not self.built or _Builds.active:
                with building():  # waits while another thread builds
                    if not self.built:
                        _calling.build_from_call(self, params, args, kwargs)
            # Which records this call makes, for GradientTape.memory_report.
            tapes = _record.current_tapes() if _record._recording else None
            if tapes:
                starts = [len(tape._records) for tape in tapes]
            outputs = self.call(*args, **kwargs)
            if tapes:
                _note_layer_spans(self, tapes, starts)
        finally:
            _context.depth, _context.training = outer_depth, outer_training
        object.__setattr__(self, "_called", True)
        if self.activity_regularizer is not None:
            _calling.add_activity_losses(self, outputs)
        if self.supports_masking and first is not None and (previous_mask is not None or type(
                self).compute_mask is not Layer.compute_mask):
            _calling.set_output_masks(self, first, outputs, kwargs.get("mask", previous_mask))
        elif previous_mask is not None and not has_mask and not self.supports_masking:
            _calling.warn_mask_dropped(self)
        return outputs

    def reset_states(self):
        """Reset the states of every stateful sublayer (Keras 2's `Model.reset_states`,
        which stateful-RNN programs call between sequences); recurrent layers override it."""
        for layer in self._flatten_layers(include_self=False):
            if getattr(layer, "stateful", False) and \
                    type(layer).reset_states is not Layer.reset_states:
                layer.reset_states()

    def compute_mask(self, inputs, mask=None):
        """The mask of the outputs; by default the input mask passes through."""
        return mask

    def compute_output_shape(self, input_shape):
        """The output shape for `input_shape` (None for unknown sizes).

        The default runs the layer on zeros (None sizes taken as 1, and put
        back as None on the batch axis); layers override it with the rule.
        """
        return _calling.output_shape_by_running(self, input_shape)

    # -- config ------------------------------------------------------------------------
    def get_config(self):
        """The layer's constructor arguments, so that `from_config` rebuilds it."""
        config = {"name": self.name, "trainable": self.trainable, "dtype": self.dtype}
        if type(self).get_config is Layer.get_config and type(self) is not Layer:
            auto = self._auto_config
            if auto is None:
                raise NotImplementedError(
                    f"Layer {type(self).__name__} has arguments in `__init__()` that are not "
                    "plain values, so it must override `get_config()`.")
            config.update({k: v for k, v in auto.items() if k not in config})
        return config

    @classmethod
    def from_config(cls, config):
        """A new layer from `get_config()`'s dict."""
        return cls(**config)

    def __repr__(self):
        return f"<{type(self).__name__} name={self.name}, built={self.built}>"


def _auto_config(cls, args, kwargs):
    """The plain-valued constructor arguments of a layer, for the default get_config."""
    if cls.__init__ is Layer.__init__:
        return {}
    try:
        bound = inspect.signature(cls.__init__).bind(None, *args, **kwargs)
    except TypeError:
        return None
    config = {}
    for key, value in list(bound.arguments.items())[1:]:
        if isinstance(value, dict) and inspect.signature(cls.__init__).parameters[key].kind \
                is inspect.Parameter.VAR_KEYWORD:
            config.update(value)
        elif not isinstance(value, (tuple, list)) or inspect.signature(
                cls.__init__).parameters[key].kind is not inspect.Parameter.VAR_POSITIONAL:
            config[key] = value
    plain = (str, int, float, bool, type(None))
    if not all(isinstance(v, plain) or (isinstance(v, (list, tuple)) and all(
            isinstance(i, plain) for i in v)) for v in config.values()):
        return None
    return config


def _note_layer_spans(layer, tapes, starts):
    """Mark the records a call of `layer` left on each tape (for memory reports)."""
    for tape, start in zip(tapes, starts):
        if tape._records is not None and len(tape._records) > start:
            if tape._layer_spans is None:
                tape._layer_spans = []
            tape._layer_spans.append((start, len(tape._records), layer.name))
