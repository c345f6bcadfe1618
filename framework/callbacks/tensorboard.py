"""tensorboard.py owns `keras.callbacks.TensorBoard`: Keras 3's callback
(keras/src/callbacks/tensorboard.py), writing through tapeflow's `tf.summary`
(summary/) into `<log_dir>/train` and `<log_dir>/validation`, with Keras's tag
names. It reaches the model only through its layers' weights, its optimizer and
its config."""

import json
import os
import time
import warnings

import numpy as np

from .. import summary
from ..summary import records
from .base import Callback, _scalar

__all__ = ["TensorBoard"]


class TensorBoard(Callback):
    """Write training logs for TensorBoard (`tensorboard --logdir log_dir`), as Keras 3.

    What is written, with Keras's tags:
      - `train/`: `epoch_<name>` for each log entry at each epoch end (step = epoch),
        `epoch_learning_rate`, and `epoch_steps_per_second` when asked;
      - `validation/`: `epoch_<name>` for each `val_<name>` entry; after
        `model.evaluate(..., callbacks=[this])`, `evaluation_<name>_vs_iterations`
        at step `optimizer.iterations`;
      - with `update_freq='batch'` or N: `batch_<name>` (and `batch_steps_per_second`)
        every N training batches (step = the batch count since training began), and
        any `tf.summary` call made during those batches goes to `train/` too;
      - every `histogram_freq` epochs: `<weight path>/histogram` for each layer's
        weights, and `<weight path>/image` when `write_images`;
      - `write_graph`: a Sequential or functional model's config as JSON under the
        tag "keras" (plugin "graph_keras_model"), which TensorBoard's Graphs dashboard
        draws as the layers' graph. A functional config is rewritten from tapeflow's
        layout into Keras 3's (`inbound_nodes` with `keras_history`) for it.

    Where tapeflow differs: it has no graph, so no op graph is written; profiling
    (`profile_batch` other than 0) raises as Keras does on backends without a
    profiler; `embeddings_freq` warns and writes nothing (Keras writes a projector
    config through TensorBoard's protobufs and an .h5 checkpoint). In tapeflow's
    `fit`, validation calls no callbacks, so `evaluation_*` scalars come from
    `evaluate` only.

    Args:
        log_dir: the directory of the event files ('logs').
        histogram_freq: write weight histograms every this many epochs (0: never).
        write_graph: write the model's config (see above).
        write_images: also write weights as images, with the histograms.
        write_steps_per_second: write the training steps per second.
        update_freq: 'epoch', 'batch' or a number of batches.
        profile_batch: must be 0 (no profiler).
        embeddings_freq, embeddings_metadata: not supported (a warning).

    Raises:
        ValueError: a bad `update_freq` or `profile_batch`, or `profile_batch` not 0.
    """

    chief_only = True  # distributed training: only rank 0 writes (training/loops.py)

    def __init__(self, log_dir="logs", histogram_freq=0, write_graph=True, write_images=False,
                 write_steps_per_second=False, update_freq="epoch", profile_batch=0,
                 embeddings_freq=0, embeddings_metadata=None):
        super().__init__()
        self.log_dir = str(os.fspath(log_dir))
        self.histogram_freq = histogram_freq
        self.write_graph = write_graph
        self.write_images = write_images
        self.write_steps_per_second = write_steps_per_second
        self.update_freq = 1 if update_freq == "batch" else update_freq
        if self.update_freq != "epoch" and not (
                isinstance(self.update_freq, int) and self.update_freq > 0):
            raise ValueError(f"Unrecognized update_freq: {update_freq!r}. Expected 'epoch', "
                             "'batch' or a positive integer number of batches.")
        _check_profile_batch(profile_batch)
        self.embeddings_freq = embeddings_freq
        self.embeddings_metadata = embeddings_metadata
        if embeddings_freq:
            warnings.warn("TensorBoard: embeddings_freq is not supported by tapeflow (it "
                          "needs TensorBoard's projector protobufs and .h5 checkpoints); no "
                          "embeddings will be written.", stacklevel=2)
        self._global_train_batch = 0
        self._global_test_batch = 0
        self._previous_epoch_iterations = 0.0
        self._epoch_start_time = 0.0
        self._batch_start_time = 0.0
        self._writers = {}
        self._prev_summary_state = []
        self._train_dir = os.path.join(self.log_dir, "train")
        self._val_dir = os.path.join(self.log_dir, "validation")

    # -- writers ----------------------------------------------------------------------
    def set_model(self, model):
        """Set the model and, with `write_graph`, write its config to `train/`."""
        self._close_writers()
        super().set_model(model)
        if self.write_graph:
            self._write_keras_model_summary()

    @property
    def _train_writer(self):
        if "train" not in self._writers:
            self._writers["train"] = summary.create_file_writer(self._train_dir)
        return self._writers["train"]

    @property
    def _val_writer(self):
        if "val" not in self._writers:
            self._writers["val"] = summary.create_file_writer(self._val_dir)
        return self._writers["val"]

    def _push_writer(self, writer, step):
        """Make `writer` the default, recording every `update_freq`-th step (batch logs)."""
        if self.update_freq == "epoch":
            return
        contexts = (writer.as_default(step),
                    summary.record_if(lambda: step % self.update_freq == 0))
        self._prev_summary_state.append(contexts)
        contexts[0].__enter__()
        contexts[1].__enter__()

    def _pop_writer(self):
        if self.update_freq == "epoch" or not self._prev_summary_state:
            return
        writer_context, record_context = self._prev_summary_state.pop()
        record_context.__exit__(None, None, None)
        writer_context.__exit__(None, None, None)

    def _close_writers(self):
        while self._prev_summary_state:
            self._pop_writer()
        for writer in self._writers.values():
            writer.close()
        self._writers = {}

    # -- hooks -------------------------------------------------------------------------
    def on_train_begin(self, logs=None):
        self._global_train_batch = 0
        self._previous_epoch_iterations = 0.0
        self._push_writer(self._train_writer, self._global_train_batch)

    def on_train_end(self, logs=None):
        self._pop_writer()
        self._close_writers()

    def on_test_begin(self, logs=None):
        self._push_writer(self._val_writer, self._global_test_batch)

    def on_test_end(self, logs=None):
        iterations = getattr(getattr(self.model, "optimizer", None), "iterations", None)
        if iterations is not None:
            with self._val_writer.as_default():
                for name, value in (logs or {}).items():
                    summary.scalar(f"evaluation_{name}_vs_iterations", value,
                                   step=iterations)
        self._pop_writer()

    def on_train_batch_begin(self, batch, logs=None):
        self._global_train_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._train_writer, self._global_train_batch)
        if self.write_steps_per_second:
            self._batch_start_time = time.time()

    def on_train_batch_end(self, batch, logs=None):
        if self.write_steps_per_second:
            elapsed = time.time() - self._batch_start_time
            summary.scalar("batch_steps_per_second", 1.0 / max(elapsed, 1e-9),
                           step=self._global_train_batch)
        if isinstance(logs, dict):
            for name, value in logs.items():
                summary.scalar(f"batch_{name}", value, step=self._global_train_batch)

    def on_test_batch_begin(self, batch, logs=None):
        self._global_test_batch += 1
        if self.update_freq != "epoch":
            self._pop_writer()
            self._push_writer(self._val_writer, self._global_test_batch)

    def on_epoch_begin(self, epoch, logs=None):
        if self.write_steps_per_second:
            self._previous_epoch_iterations = float(self.model.optimizer.iterations.numpy())
            self._epoch_start_time = time.time()

    def on_epoch_end(self, epoch, logs=None):
        self._log_epoch_metrics(epoch, logs)
        if self.histogram_freq and epoch % self.histogram_freq == 0:
            self._log_weights(epoch)

    # -- what is written ---------------------------------------------------------------
    def _learning_rate(self):
        value = getattr(getattr(self.model, "optimizer", None), "learning_rate", None)
        return None if value is None else _scalar(value)

    def _log_epoch_metrics(self, epoch, logs):
        if not logs:
            return
        train_logs = {k: v for k, v in logs.items() if not k.startswith("val_")}
        val_logs = {k[4:]: v for k, v in logs.items() if k.startswith("val_")}
        learning_rate = self._learning_rate()
        if learning_rate is not None:
            train_logs["learning_rate"] = learning_rate
        if self.write_steps_per_second:
            iterations = float(self.model.optimizer.iterations.numpy())
            elapsed = max(time.time() - self._epoch_start_time, 1e-9)
            train_logs["steps_per_second"] = (iterations
                                              - self._previous_epoch_iterations) / elapsed
        for writer, entries in ((self._train_writer, train_logs),
                                (self._val_writer if val_logs else None, val_logs)):
            if entries:
                with writer.as_default():
                    for name, value in entries.items():
                        summary.scalar(f"epoch_{name}", value, step=epoch)

    def _log_weights(self, epoch):
        with self._train_writer.as_default():
            for layer in self.model.layers:
                for weight in layer.weights:
                    name = weight.path.replace(":", "_")
                    summary.histogram(f"{name}/histogram", weight, step=epoch)
                    if self.write_images:
                        self._log_weight_as_image(weight, f"{name}/image", epoch)
            self._train_writer.flush()

    @staticmethod
    def _log_weight_as_image(weight, tag, epoch):
        """Keras's layout: a bias as a 1-row image, a dense kernel wider than tall, each
        output channel of a 2-D convolution's (squeezed) kernel as its own image."""
        image = np.squeeze(weight.numpy())
        if image.ndim == 1:
            image = image.reshape(1, 1, -1, 1)
        elif image.ndim == 2:
            if image.shape[0] > image.shape[1]:
                image = image.T
            image = image.reshape(1, image.shape[0], image.shape[1], 1)
        elif image.ndim == 3:  # channels last: one image per kernel
            image = np.transpose(image, (2, 0, 1))[..., None]
        if image.ndim == 4 and image.shape[-1] in (1, 3, 4):
            summary.image(tag, image, step=epoch)

    def _write_keras_model_summary(self):
        """The model's config as JSON, tag "keras", plugin "graph_keras_model", step 0
        (Keras's `keras_model_summary`), for Sequential and functional models."""
        with self._train_writer.as_default():
            try:
                config = self.model.get_config()
                if not isinstance(config, dict) or "layers" not in config:
                    return  # a subclassed model: Keras writes nothing for it either
                if "output_layers" in config:
                    config = _keras_layout(config)
                class_name = "Functional" if "output_layers" in config else "Sequential"
                text = json.dumps({"class_name": class_name, "config": config},
                                  default=_json_value)
            except NotImplementedError:
                return
            except (TypeError, ValueError, KeyError) as error:  # as Keras: warn, go on
                warnings.warn(f"Model failed to serialize as JSON. Ignoring... {error}",
                              stacklevel=3)
                return
            metadata = records.summary_metadata("graph_keras_model", content=b"1")
            summary.write("keras", np.array(text, dtype=object), step=0, metadata=metadata)


def _refs(structure):
    """The tensor references ({"__ref__": [...]}) of a functional config entry, in order."""
    if isinstance(structure, dict):
        if set(structure) == {"__ref__"}:
            return [structure["__ref__"]]
        return [ref for value in structure.values() for ref in _refs(value)]
    if isinstance(structure, list):
        return [ref for value in structure for ref in _refs(value)]
    return []


def _keras_layout(config):
    """A functional config (models/saving.py's layout: nodes referring to inputs and
    to other nodes' outputs) in Keras 3's, as TensorBoard's graph plugin reads it: an
    InputLayer per input, each layer's calls as `inbound_nodes` whose arguments carry
    `keras_history` [layer name, call number, output number]; nested models too."""
    names = [layer["config"]["name"] for layer in config["layers"]]
    inputs = [spec["name"] for spec in config["input_layers"]]
    calls, node_names, inbound = {}, [], {i: [] for i in range(len(names))}

    def history(ref):
        if ref[0] == "input":
            return [inputs[ref[1]], 0, 0]
        return [*node_names[ref[1]], ref[2]]

    for node in config["nodes"]:
        index = node["layer"]
        node_names.append((names[index], calls.get(index, 0)))
        calls[index] = calls.get(index, 0) + 1
        arguments = _refs([node["inputs"], node.get("args", []), node.get("kwargs", {})])
        inbound[index].append({"args": [{"class_name": "__keras_tensor__", "config": {
            "keras_history": history(ref)}} for ref in arguments], "kwargs": {}})
    layers = [{"class_name": "InputLayer", "name": spec["name"], "inbound_nodes": [],
               "config": {"name": spec["name"], "dtype": spec["dtype"],
                          "batch_shape": spec["shape"]}} for spec in config["input_layers"]]
    for index, layer in enumerate(config["layers"]):
        layer_config = layer["config"]
        if "output_layers" in layer_config:
            layer_config = _keras_layout(layer_config)
        layers.append({**layer, "config": layer_config, "name": names[index],
                       "inbound_nodes": inbound[index]})
    return {"name": config["name"], "layers": layers,
            "input_layers": [[name, 0, 0] for name in inputs],
            "output_layers": [history(ref) for ref in _refs(config["output_layers"])]}


def _json_value(value):
    """What JSON cannot hold, as Keras serializes it: objects with a config as
    {"class_name", "config"}, NumPy values as numbers or lists, dtypes by name."""
    if hasattr(value, "get_config"):
        return {"class_name": type(value).__name__, "config": value.get_config()}
    if isinstance(value, (np.generic, np.ndarray)):
        return value.tolist()
    if hasattr(value, "name"):
        return str(value.name)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def _check_profile_batch(profile_batch):
    """Keras's check of `profile_batch`; anything but 0 needs a profiler tapeflow lacks."""
    message = ("profile_batch must be a non-negative integer or 2-tuple of positive "
               "integers. A pair of positive integers signifies a range of batches to "
               f"profile. Found: {profile_batch}")
    batches = profile_batch
    if isinstance(batches, str):
        try:
            batches = [int(part) for part in batches.split(",")]
        except ValueError:
            raise ValueError(message) from None
    if isinstance(batches, (list, tuple)) and len(batches) == 1:
        batches = batches[0]
    if isinstance(batches, int) and not isinstance(batches, bool):
        start = stop = batches
    elif isinstance(batches, (list, tuple)) and len(batches) == 2:
        start, stop = batches
    else:
        raise ValueError(message)
    if start < 0 or stop < start:
        raise ValueError(message)
    if start or stop:
        raise ValueError("Profiling is not yet available with the tapeflow backend (it has "
                         f"no profiler). Received: profile_batch={profile_batch} (must be 0)")
