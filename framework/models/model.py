"""model.py owns `Model`: a Layer that can be compiled and trained. The math
of one step lives in `train_step`/`test_step`/`predict_step`; `fit`,
`evaluate` and `predict` hand the batches, epochs and callbacks to
training/loops.py. Functional graphs live in functional.py, compile utilities
and data handling in training/, files in saving.py, the summary in summary.py."""

from .. import metrics as _metrics_module
from .. import optimizers as _optimizers
from ..autodiff.tape import GradientTape
from ..compiler.function import function
from ..compiler.effects import register_effect
from ..core import nest
from ..layers.base import Layer, _uniquify
from ..layers.keras_tensor import is_symbolic
from ..layers.serialization import register as _register_class
from ..training import loops
from ..distribute import context as _distribute_context
from ..distribute.strategy import get_strategy
from ..training.compile_utils import LossContainer, MetricContainer
from ..training.numerics import is_finite_loss
from ..training.numerics import replay as replay_non_finite
from ..training.data_adapter import unpack_x_y_sample_weight
from .cloning import model_to_json
from .functional import FunctionalGraph
from .saving import functional_config, functional_from_config, load_weights, save_model, save_weights
from .summary import print_summary

__all__ = ["Model"]


def _serialize_spec(spec):
    """Losses and metrics as JSON-able values: names stay names, objects become configs."""
    if spec is None or isinstance(spec, (str, int, float)):
        return spec
    if isinstance(spec, dict):
        return {k: _serialize_spec(v) for k, v in spec.items()}
    if isinstance(spec, (list, tuple)):
        return [_serialize_spec(v) for v in spec]
    if hasattr(spec, "get_config"):
        return {"class_name": type(spec).__name__, "config": spec.get_config()}
    name = getattr(spec, "__name__", None)
    if name is None:
        raise ValueError(f"Cannot save the compile argument {spec!r}.")
    return name


class _StepFunctions(dict):
    """fit's traced steps by kind ('train', 'test', 'predict'); a copy or a pickle of
    the model starts without them (its own steps are traced when it first runs)."""

    def __deepcopy__(self, memo):
        return _StepFunctions()

    def __reduce__(self):
        return (_StepFunctions, ())


@register_effect  # a traced step runs it at every call (it reads the loss in Python)
def _note_non_finite(model, x, y, sample_weight, loss):
    """A batch whose loss is not finite is replayed with numeric checks before the
    update, while the weights are still as the step found them (training/numerics.py)."""
    if model._non_finite_report is None and not is_finite_loss(loss):
        object.__setattr__(model, "_non_finite_report", replay_non_finite(model, x, y,
                                                                          sample_weight))


class Model(Layer):
    """A Layer with training: `compile`, `fit`, `evaluate`, `predict`, saving.

    Build one functionally, `Model(inputs, outputs)` with symbolic tensors
    from `tf.keras.Input`, or subclass it and write `call`.

    >>> inputs = tf.keras.Input(shape=(4,))
    >>> outputs = tf.keras.layers.Dense(2)(inputs)
    >>> model = tf.keras.Model(inputs, outputs)
    >>> model.compile(optimizer="adam", loss="mse")
    """

    _lock_state_after_build = False  # subclassed models may create layers lazily

    def __init__(self, *args, **kwargs):
        inputs = kwargs.pop("inputs", args[0] if args else None)
        outputs = kwargs.pop("outputs", args[1] if len(args) > 1 else None)
        if inputs is not None and kwargs.get("name") is None:
            kwargs["name"] = _uniquify("functional")  # Keras 3's name for functional models
        super().__init__(**kwargs)
        object.__setattr__(self, "_graph", None)
        object.__setattr__(self, "optimizer", None)
        object.__setattr__(self, "compiled", False)
        object.__setattr__(self, "stop_training", False)
        object.__setattr__(self, "_non_finite_report", None)  # training/numerics.py
        object.__setattr__(self, "history", None)
        object.__setattr__(self, "_loss", None)
        object.__setattr__(self, "_metrics", None)
        object.__setattr__(self, "_loss_tracker", None)
        object.__setattr__(self, "_compile_config", None)
        object.__setattr__(self, "_run_eagerly", False)
        object.__setattr__(self, "_jit_compile", None)
        object.__setattr__(self, "_step_functions", _StepFunctions())
        # The strategy whose scope is open when the model is made (or compiled), as TF.
        object.__setattr__(self, "_distribute_strategy", _distribute_context.current())
        if inputs is not None or outputs is not None:
            if inputs is None or outputs is None:
                raise ValueError("A functional Model needs both `inputs` and `outputs`.")
            self._init_graph(inputs, outputs)

    def _init_graph(self, inputs, outputs):
        graph = FunctionalGraph(inputs, outputs)
        object.__setattr__(self, "_graph", graph)
        self._graph_layers = graph.layers  # tracked: the layers' variables are the model's
        object.__setattr__(self, "built", True)

    # -- structure -------------------------------------------------------------------
    @property
    def layers(self):
        """The layers; a functional model's with an InputLayer per input, as Keras."""
        if self._graph is not None:
            return self._graph.listed_layers()
        return [layer for layer in self._flatten_layers(include_self=False, recursive=False)]

    def get_layer(self, name=None, index=None):
        """The layer called `name` (or at `index`)."""
        if index is not None:
            layers = self.layers
            if not -len(layers) <= index < len(layers):
                raise ValueError(f"Layer index {index} is out of range: the model has "
                                 f"{len(layers)} layers.")
            return layers[index]
        for layer in self.layers:
            if layer.name == name:
                return layer
        raise ValueError(f"No such layer: {name!r}. Existing layers are: "
                         f"{[layer.name for layer in self.layers]}.")

    @property
    def inputs(self):
        return None if self._graph is None else self._graph.inputs

    @property
    def outputs(self):
        return None if self._graph is None else self._graph.outputs

    @property
    def input(self):
        """A functional model's input (the one Input, or the structure of them), as Keras."""
        if self._graph is None:
            return super().input  # a subclassed model called on symbolic tensors
        return self._graph.inputs

    @property
    def output(self):
        """A functional model's output (the one tensor, or the structure of them)."""
        if self._graph is None:
            return super().output
        return self._graph.outputs

    @property
    def output_names(self):
        if self._graph is not None:
            names = []
            for t in self._graph.flat_outputs:
                names.append(t.node.layer.name if t.node is not None else t.name)
            return names
        return ["output"]

    def add_loss(self, loss):
        """Layer.add_loss; on a functional model also a symbolic tensor computed from its
        inputs (Keras 2's `model.add_loss(tf.reduce_sum(x1) * 0.1)`), added at every call."""
        plain = [item for item in nest.flatten(loss) if not is_symbolic(item)]
        for item in nest.flatten(loss):
            if is_symbolic(item):
                self._add_symbolic("loss", item)
        if plain:
            super().add_loss(plain)

    def add_metric(self, value, name=None, aggregation="mean"):
        """Layer.add_metric; on a functional model also a symbolic tensor computed from its
        inputs (Keras 2's `model.add_metric(K.std(x1), name="std")`), logged at every call."""
        if not is_symbolic(value):
            return super().add_metric(value, name=name, aggregation=aggregation)
        self._added_metric(name, aggregation)
        self._add_symbolic("metric", value, name)

    def _add_symbolic(self, kind, tensor, name=None):
        if self._graph is None:
            raise ValueError(f"Model {self.name!r}: a symbolic {kind} needs a functional model "
                             f"(built from tf.keras.Input); got {tensor!r}.")
        extras = list(self.__dict__.get("_symbolic_extras", ())) + [(kind, tensor, name)]
        # Built now, so a tensor that does not come from the inputs fails here.
        graph = FunctionalGraph(self._graph.inputs, [self._graph.outputs,
                                                     [t for _, t, _ in extras]])
        object.__setattr__(self, "_symbolic_extras", extras)
        object.__setattr__(self, "_extras_graph", graph)

    def call(self, inputs, training=None, mask=None):
        if self._graph is not None:
            extras = self.__dict__.get("_symbolic_extras")
            if not extras:
                return self._graph.run(inputs, training=training, mask=mask)
            outputs, values = self._extras_graph.run(inputs, training=training, mask=mask)
            for (kind, _, name), value in zip(extras, values):
                if kind == "loss":
                    Layer.add_loss(self, value)
                else:
                    Layer.add_metric(self, value, name=name)
            return outputs
        raise NotImplementedError(f"Model {type(self).__name__} has no `call` method: subclass "
                                  "Model and write `call`, or build it from inputs/outputs.")

    def summary(self, line_length=None, positions=None, print_fn=None, expand_nested=False,
                show_trainable=False, layer_range=None):
        """Print the Keras table: layers with output shapes and parameter counts."""
        print_summary(self, line_length=line_length, print_fn=print_fn,
                      show_trainable=show_trainable)

    # -- compile ---------------------------------------------------------------------
    def compile(self, optimizer="rmsprop", loss=None, metrics=None, loss_weights=None,
                weighted_metrics=None, run_eagerly=False, steps_per_execution=1,
                jit_compile="auto", auto_scale_loss=True, **kwargs):
        """Configure training: optimizer, loss and metrics, by object or Keras name.

        Raises:
            ValueError: for an unknown optimizer, loss or metric name.
        """

        unknown = set(kwargs) - {"sample_weight_mode", "target_tensors", "distribute"}
        if unknown:
            raise TypeError(f"compile() got unexpected keyword arguments {sorted(unknown)}.")
        object.__setattr__(self, "optimizer", _optimizers.get(optimizer))
        if _distribute_context.current() is not None:
            object.__setattr__(self, "_distribute_strategy", _distribute_context.current())
        names = self.output_names
        object.__setattr__(self, "_loss", None if loss is None
                           else LossContainer(loss, loss_weights, names))
        losses = self._loss.losses if self._loss is not None else [None] * len(names)
        object.__setattr__(self, "_metrics", MetricContainer(metrics, weighted_metrics, names,
                                                             losses))
        object.__setattr__(self, "_loss_tracker", _metrics_module.Mean(name="loss"))
        object.__setattr__(self, "_output_loss_trackers", {
            f"{name}_loss": _metrics_module.Mean(name=f"{name}_loss")
            for name in (names if len(names) > 1 and self._loss is not None else [])})
        object.__setattr__(self, "_compile_config", {
            "loss": _serialize_spec(loss), "metrics": _serialize_spec(metrics),
            "weighted_metrics": _serialize_spec(weighted_metrics),
            "loss_weights": loss_weights})
        object.__setattr__(self, "compiled", True)
        object.__setattr__(self, "_run_eagerly", bool(run_eagerly))
        object.__setattr__(self, "_jit_compile", None if jit_compile == "auto" else jit_compile)
        self._step_functions.clear()

    @property
    def run_eagerly(self):
        """Whether fit, evaluate and predict call the steps as Python (for debugging)
        instead of their traced functions; `compile(run_eagerly=...)` sets it."""
        return self._run_eagerly

    @run_eagerly.setter
    def run_eagerly(self, value):
        object.__setattr__(self, "_run_eagerly", bool(value))

    def _step_function(self, kind):
        """`train_step`, `test_step` or `predict_step` as fit/evaluate/predict call it:
        traced by tapeflow.function, as Keras compiles its steps (with
        `compile(jit_compile=...)`), unless `run_eagerly` (or
        tf.config.run_functions_eagerly(True), which the function obeys). A step
        that cannot be traced runs as Python, with the function's one warning."""
        step = getattr(self, kind + "_step")
        if self._run_eagerly:
            return step
        traced = self._step_functions.get(kind)
        if traced is None or traced.python_function != step:  # a step assigned anew
            traced = self._step_functions[kind] = function(step, jit_compile=self._jit_compile)
        return traced

    @property
    def metrics(self):
        """The loss tracker, per-output loss trackers, the compiled metrics, then
        the layers' own metrics (`add_metric`'s, and Metric objects held in public
        attributes, as Keras 3 tracks them), which fit and evaluate log and reset.

        As in Keras 3 the compiled metrics form one entry, 'compile_metrics',
        whose result is a dict (its metrics are built at the first batch).
        """
        compiled = [] if not self.compiled else [self._loss_tracker] + list(
            self._output_loss_trackers.values()) + [self._metrics]
        return compiled + [m for m in Layer.metrics.fget(self) if m not in compiled]

    @property
    def metrics_names(self):
        names = []
        for m in self.metrics:
            names.extend([x.name for x in m.flat] if m is self._metrics else [m.name])
        return names

    @property
    def compiled_loss(self):
        """Keras 2's `compiled_loss(y, y_pred, sample_weight, regularization_losses)`,
        for custom `train_step`s written in that style: the compiled loss, tracked as
        Keras 2's loss container tracked it (the 'loss' and per-output entries of
        `model.metrics`), so fit does not log `loss: 0.0`. The built-in steps use
        `compute_loss` and update the tracker themselves."""
        def compiled_loss(y_true, y_pred, sample_weight=None, regularization_losses=None):
            total, parts = self._loss(y_true, y_pred, sample_weight)
            for key, value in parts.items():
                self._output_loss_trackers[key].update_state(value)
            for extra in regularization_losses or []:
                total = total + extra
            self._track_loss(total, y_pred)
            return _replica_share(total)  # scaled for summed gradients, as TF's container
        return compiled_loss

    @property
    def distribute_strategy(self):
        """The tf.distribute strategy the model was created or compiled under."""
        return self._distribute_strategy or get_strategy()

    @property
    def compiled_metrics(self):
        return self._metrics

    def reset_metrics(self):
        for metric in self.metrics:
            metric.reset_state()

    # -- one step --------------------------------------------------------------------
    def compute_loss(self, x=None, y=None, y_pred=None, sample_weight=None, training=True):
        """The compiled loss of one batch plus the layers' regularization losses."""
        total = None
        if self._loss is not None and y is not None:
            total, parts = self._loss(y, y_pred, sample_weight)
            for key, value in parts.items():
                self._output_loss_trackers[key].update_state(value)
        for extra in self.losses:
            total = extra if total is None else total + extra
        if total is None:
            raise ValueError("No loss to compute: compile the model with a `loss` and pass "
                             "targets `y`, or add losses with `add_loss`.")
        return total

    def compute_metrics(self, x, y, y_pred, sample_weight=None):
        """Update the compiled metrics; return the logs of every metric."""
        if y is not None:
            self._metrics.update_state(y, y_pred, sample_weight)
        return self.get_metrics_result()

    def get_metrics_result(self):
        return {m.name: m.result() for m in self.metrics}

    def train_step(self, data):
        """One optimisation step on a batch; returns the logs. Override to customise."""
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        with GradientTape() as tape:
            y_pred = self(x, training=True)
            loss = self.compute_loss(x, y, y_pred, sample_weight)
            share = _replica_share(loss)
        _note_non_finite(self, x, y, sample_weight, loss)
        variables = self.trainable_variables
        grads = tape.gradient(share, variables)
        self.optimizer.apply_gradients(zip(grads, variables))
        self._track_loss(loss, y_pred)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data):
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x, y, y_pred, sample_weight, training=False)
        self._track_loss(loss, y_pred)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def _track_loss(self, loss, y_pred):
        """Add a batch's loss to the 'loss' entry, weighted by the batch's size as in
        Keras 3 (and Keras 2's loss container): an epoch's loss is then the mean over
        samples, equal to the loss of the whole data, not a mean over batches that
        overweights a short last batch."""
        first = nest.flatten(y_pred)[0]
        size = first.shape[0] if getattr(first, "ndim", 0) else 1
        self._loss_tracker.update_state(loss, sample_weight=size)

    def predict_step(self, data):
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    # -- loops: training/loops.py runs them ---------------------------------------------
    def fit(self, x=None, y=None, batch_size=None, epochs=1, verbose="auto", callbacks=None,
            validation_split=0.0, validation_data=None, shuffle=True, class_weight=None,
            sample_weight=None, initial_epoch=0, steps_per_epoch=None, validation_steps=None,
            validation_batch_size=None, validation_freq=1):
        """Train for `epochs` epochs; return a `History`.

        Data is NumPy arrays or tensors (dicts and lists for several inputs and
        outputs), a generator yielding `(x, y[, sample_weight])`, or a
        `tapeflow.data.Dataset`. With arrays, each epoch is reshuffled from
        (seed, epoch), so a run resumed at `initial_epoch` sees the same order.

        Raises:
            RuntimeError: if the model is not compiled.
            ValueError: for mismatched data lengths, NaN in the data, or a
                validation_split with a generator.
        """
        return loops.fit(
            self, x, y, batch_size, epochs, verbose, callbacks, validation_split,
            validation_data, shuffle, class_weight, sample_weight, initial_epoch,
            steps_per_epoch, validation_steps, validation_batch_size, validation_freq)

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, return_dict=False, **kwargs):
        """The loss and metrics on the data: a scalar, a list, or a dict (`return_dict`)."""
        return loops.evaluate(self, x, y, batch_size, verbose, sample_weight, steps, callbacks,
                              return_dict)

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """The model's outputs on `x`, batch by batch, as NumPy arrays."""
        return loops.predict(self, x, batch_size, verbose, steps, callbacks)

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       return_dict=False):
        return loops.train_on_batch(self, x, y, sample_weight, class_weight, return_dict)

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        return loops.test_on_batch(self, x, y, sample_weight, return_dict)

    def predict_on_batch(self, x):
        return loops.predict_on_batch(self, x)

    # -- saving ----------------------------------------------------------------------
    def save_weights(self, filepath, overwrite=True):
        """Write every weight to a .npz file (atomically); see saving.py for the layout."""
        save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False, by_name=False, **kwargs):
        """Read weights written by `save_weights` (or Keras's .weights.h5 and Keras 2's .h5,
        by position or `by_name`); the model is untouched if they do not fit."""
        load_weights(self, filepath, skip_mismatch=skip_mismatch, by_name=by_name)

    def to_json(self, **kwargs):
        """The architecture as Keras 3's JSON (tf.keras.models.model_from_json reads it)."""
        return model_to_json(self, **kwargs)

    def save(self, filepath, overwrite=True, include_optimizer=True):
        """Save architecture, weights and optimizer state in one file (see saving.py)."""
        save_model(self, filepath, overwrite=overwrite, include_optimizer=include_optimizer)

    def get_config(self):
        if self._graph is not None:
            return functional_config(self)
        return super().get_config()

    @classmethod
    def from_config(cls, config, custom_objects=None):
        if "layers" in config and "output_layers" in config:
            return functional_from_config(cls, config, custom_objects)
        return cls(**config)


_register_class(Model, "Functional")  # Keras 3 saves functional models under this name


def _replica_share(loss):
    """This replica's share of a batch's mean loss under a distributed strategy (its
    rows over the global batch's), so that gradients summed over the replicas are the
    global batch's; the loss itself otherwise (training/distributed.py)."""
    replica = _distribute_context.replica
    return loss if replica.strategy is None else loss * replica.loss_scale
