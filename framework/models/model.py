"""model.py owns `Model`: a Layer that can be compiled and trained. The math
of one step lives in `train_step`/`test_step`/`predict_step`; `fit`,
`evaluate` and `predict` only orchestrate batches, epochs and callbacks.
Functional graphs live in functional.py, data handling in training_data.py,
files in saving.py and the summary table in summary.py."""

import numpy as np

from .. import metrics as _metrics_module
from .. import optimizers as _optimizers
from .. import random as _random
from ..callbacks import CallbackList
from ..core import nest
from ..training.compile_utils import LossContainer, MetricContainer
from .functional import FunctionalGraph
from ..layers.base import Layer, _uniquify
from ..autodiff.tape import GradientTape
from ..core.tensor import Tensor
from .saving import functional_config, functional_from_config, load_weights, save_model, save_weights
from .summary import print_summary
from ..training.data_adapter import make_data, train_validation_split, unpack_x_y_sample_weight

__all__ = ["Model"]


def _to_tensors(structure):
    if structure is None:
        return None
    return nest.map_structure(lambda a: a if isinstance(a, Tensor) else Tensor(a), structure)


def _batch_tuple(x, y, sample_weight):
    if y is None and sample_weight is None:
        return (x,)
    return (x, y) if sample_weight is None else (x, y, sample_weight)


def _flat_logs(raw):
    """Logs as Python floats; dict results (compile_metrics) are spread out."""
    logs = {}
    for key, value in raw.items():
        if isinstance(value, dict):
            logs.update(_flat_logs(value))
        else:
            logs[key] = _log_value(value)
    return logs


def _log_value(value):
    if isinstance(value, Tensor):
        value = value._value
    value = np.asarray(value)
    return float(value) if value.size == 1 else value


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
        object.__setattr__(self, "history", None)
        object.__setattr__(self, "_loss", None)
        object.__setattr__(self, "_metrics", None)
        object.__setattr__(self, "_loss_tracker", None)
        object.__setattr__(self, "_compile_config", None)
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
        if self._graph is not None:
            return list(self._graph_layers)
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
    def output_names(self):
        if self._graph is not None:
            names = []
            for t in self._graph.flat_outputs:
                names.append(t.node.layer.name if t.node is not None else t.name)
            return names
        return ["output"]

    def call(self, inputs, training=None, mask=None):
        if self._graph is not None:
            return self._graph.run(inputs, training=training, mask=mask)
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

    def _assert_compiled(self, what):
        if not self.compiled:
            raise RuntimeError(f"You must compile your model before {what}: call "
                               "`model.compile(optimizer, loss)`.")

    @property
    def metrics(self):
        """The loss tracker, per-output loss trackers, then the compiled metrics.

        As in Keras 3 the compiled metrics form one entry, 'compile_metrics',
        whose result is a dict (its metrics are built at the first batch).
        """
        if not self.compiled:
            return []
        return [self._loss_tracker] + list(self._output_loss_trackers.values()) + [self._metrics]

    @property
    def metrics_names(self):
        names = []
        for m in self.metrics:
            names.extend([x.name for x in m.flat] if m is self._metrics else [m.name])
        return names

    @property
    def compiled_loss(self):
        def compiled_loss(y_true, y_pred, sample_weight=None, regularization_losses=None):
            total = self._loss(y_true, y_pred, sample_weight)[0]
            for extra in regularization_losses or []:
                total = total + extra
            return total
        return compiled_loss

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
        variables = self.trainable_variables
        grads = tape.gradient(loss, variables)
        self.optimizer.apply_gradients(zip(grads, variables))
        self._loss_tracker.update_state(loss)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def test_step(self, data):
        x, y, sample_weight = unpack_x_y_sample_weight(data)
        y_pred = self(x, training=False)
        loss = self.compute_loss(x, y, y_pred, sample_weight, training=False)
        self._loss_tracker.update_state(loss)
        return self.compute_metrics(x, y, y_pred, sample_weight)

    def predict_step(self, data):
        x, _, _ = unpack_x_y_sample_weight(data)
        return self(x, training=False)

    # -- loops -----------------------------------------------------------------------
    def _callbacks(self, callbacks, verbose, epochs, steps, mode):
        if isinstance(callbacks, CallbackList):
            return callbacks
        verbose = 1 if verbose == "auto" else int(verbose)
        return CallbackList(callbacks, add_history=mode == "fit", add_progbar=verbose != 0,
                            model=self, verbose=verbose, epochs=epochs, steps=steps)

    def _shuffle_seed(self):
        seed = _random._state.get("seed")
        return seed if seed is not None else int(_random.generator().integers(2**62))

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
        self._assert_compiled("training it")
        if validation_split and validation_data is None:
            (x, y, sample_weight), validation_data = train_validation_split(
                x, y, sample_weight, validation_split)
        data = make_data(x, y, sample_weight, batch_size, shuffle, steps_per_epoch,
                         seed=self._shuffle_seed(), class_weight=class_weight)
        validation = None
        if validation_data is not None:
            vx, vy, vsw = unpack_x_y_sample_weight(validation_data)
            validation = make_data(vx, vy, vsw, validation_batch_size or batch_size,
                                   steps_per_epoch=validation_steps)
        cb = self._callbacks(callbacks, verbose, epochs, data.steps, "fit")
        object.__setattr__(self, "stop_training", False)
        cb.on_train_begin()
        # BackupAndRestore restores a backup in on_train_begin and says where to resume.
        resume_at = self.__dict__.pop("_initial_epoch", None)
        if resume_at is not None:
            initial_epoch = max(initial_epoch, resume_at)
        logs = {}
        for epoch in range(initial_epoch, epochs):
            self.reset_metrics()
            cb.on_epoch_begin(epoch)
            step_logs = {}
            for step, (bx, by, bsw) in enumerate(data.epoch(epoch)):
                cb.on_train_batch_begin(step)
                raw = self.train_step(_batch_tuple(_to_tensors(bx), _to_tensors(by), bsw))
                step_logs = _flat_logs(raw)
                cb.on_train_batch_end(step, step_logs)
                if self.stop_training:
                    break
            logs = dict(step_logs)
            if validation is not None and (epoch + 1) % validation_freq == 0 and \
                    not self.stop_training:
                val_logs = self._evaluate_data(validation, callbacks=None)
                logs.update({f"val_{k}": v for k, v in val_logs.items()})
            cb.on_epoch_end(epoch, logs)
            if self.stop_training:
                break
        cb.on_train_end(logs)
        return self.history

    def _evaluate_data(self, data, callbacks, verbose=0):
        cb = callbacks
        self.reset_metrics()
        if cb is not None:
            cb.on_test_begin()
        logs = {}
        for step, (bx, by, bsw) in enumerate(data.epoch(0)):
            if cb is not None:
                cb.on_test_batch_begin(step)
            raw = self.test_step(_batch_tuple(_to_tensors(bx), _to_tensors(by), bsw))
            logs = _flat_logs(raw)
            if cb is not None:
                cb.on_test_batch_end(step, logs)
        if cb is not None:
            cb.on_test_end(logs)
        return logs

    def evaluate(self, x=None, y=None, batch_size=None, verbose="auto", sample_weight=None,
                 steps=None, callbacks=None, return_dict=False, **kwargs):
        """The loss and metrics on the data: a scalar, a list, or a dict (`return_dict`)."""
        self._assert_compiled("evaluating it")
        data = make_data(x, y, sample_weight, batch_size, steps_per_epoch=steps)
        cb = self._callbacks(callbacks, verbose, 1, data.steps, "evaluate")
        logs = self._evaluate_data(data, cb)
        if return_dict:
            return logs
        values = [logs[name] for name in self.metrics_names if name in logs]
        return values[0] if len(values) == 1 else values

    def predict(self, x, batch_size=None, verbose="auto", steps=None, callbacks=None):
        """The model's outputs on `x`, batch by batch, as NumPy arrays."""
        data = make_data(x, None, None, batch_size, steps_per_epoch=steps)
        cb = self._callbacks(callbacks, verbose, 1, data.steps, "predict")
        cb.on_predict_begin()
        outputs = []
        for step, (bx, _, _) in enumerate(data.epoch(0)):
            cb.on_predict_batch_begin(step)
            out = self.predict_step((_to_tensors(bx),))
            outputs.append(nest.map_structure(lambda t: np.asarray(t._value), out))
            cb.on_predict_batch_end(step, {"outputs": out})
        cb.on_predict_end()
        if not outputs:
            raise ValueError("predict got no data: x is empty.")
        flat = [nest.flatten(o) for o in outputs]
        joined = [np.concatenate(parts) for parts in zip(*flat)]
        return nest.pack_sequence_as(outputs[0], joined)

    def train_on_batch(self, x, y=None, sample_weight=None, class_weight=None,
                       return_dict=False):
        self._assert_compiled("training it")
        data = make_data(x, y, sample_weight, batch_size=len(nest.flatten(
            nest.map_structure(np.asarray, x))[0]), class_weight=class_weight)
        self.reset_metrics()
        bx, by, bsw = next(iter(data.epoch(0)))
        logs = _flat_logs(self.train_step(_batch_tuple(_to_tensors(bx), _to_tensors(by), bsw)))
        return logs if return_dict else (list(logs.values()) if len(logs) > 1
                                         else next(iter(logs.values())))

    def test_on_batch(self, x, y=None, sample_weight=None, return_dict=False):
        self._assert_compiled("evaluating it")
        self.reset_metrics()
        logs = _flat_logs(self.test_step(
            _batch_tuple(_to_tensors(nest.map_structure(np.asarray, x)),
                         _to_tensors(None if y is None else nest.map_structure(np.asarray, y)),
                         sample_weight)))
        return logs if return_dict else (list(logs.values()) if len(logs) > 1
                                         else next(iter(logs.values())))

    def predict_on_batch(self, x):
        out = self.predict_step((_to_tensors(nest.map_structure(np.asarray, x)),))
        return nest.map_structure(lambda t: np.asarray(t._value), out)

    # -- saving ----------------------------------------------------------------------
    def save_weights(self, filepath, overwrite=True):
        """Write every weight to a .npz file (atomically); see saving.py for the layout."""
        save_weights(self, filepath, overwrite=overwrite)

    def load_weights(self, filepath, skip_mismatch=False):
        """Read weights written by `save_weights`; the model is untouched if they do not fit."""
        load_weights(self, filepath)

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
