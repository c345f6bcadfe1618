"""keras.callbacks.TensorBoard: a real `fit` writes Keras's tags into train/ and
validation/, read back with the event reader of test_summary.py (and, optionally,
TensorBoard's own reader); the values equal History's."""

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest
import tapeflow as tf

_spec = importlib.util.spec_from_file_location("_summary_event_reader",
                                               Path(__file__).with_name("test_summary.py"))
_reader = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_reader)
read_events = _reader.read_events


def _data(n=40):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 3)).astype(np.float32)
    return x, x @ np.array([[1.0], [-2.0], [0.5]], np.float32)


def _model():
    tf.random.set_seed(0)
    model = tf.keras.Sequential([tf.keras.layers.Input((3,)),
                                 tf.keras.layers.Dense(4, activation="relu", name="hidden"),
                                 tf.keras.layers.Dense(1, name="out")])
    model.compile(tf.keras.optimizers.SGD(0.05), "mse", metrics=["mae"])
    return model


def _series(events, tag):
    return [(step, value) for step, t, _, value in events if t == tag]


def test_fit_writes_epoch_scalars_equal_to_history(tmp_path):
    x, y = _data()
    model = _model()
    history = model.fit(x, y, epochs=3, batch_size=10, validation_split=0.25, verbose=0,
                        callbacks=[tf.keras.callbacks.TensorBoard(tmp_path)])
    train = read_events(str(tmp_path / "train"))
    validation = read_events(str(tmp_path / "validation"))
    for name in ("loss", "mae"):
        steps, values = zip(*_series(train, f"epoch_{name}"))
        assert steps == (0, 1, 2)
        np.testing.assert_allclose(values, history.history[name], rtol=1e-6)
        steps, values = zip(*_series(validation, f"epoch_{name}"))
        assert steps == (0, 1, 2)
        np.testing.assert_allclose(values, history.history[f"val_{name}"], rtol=1e-6)
    assert [v for _, v in _series(train, "epoch_learning_rate")] == [np.float32(0.05)] * 3
    assert {p for _, t, p, _ in train if t.startswith("epoch_")} == {"scalars"}
    assert not any(t.startswith("batch_") for _, t, _, _ in train)  # update_freq='epoch'
    # Keras's on_test_end, which fit's validation runs, adds the "vs iterations" series
    assert {t for _, t, _, _ in validation} == {"epoch_loss", "epoch_mae",
                                               "evaluation_loss_vs_iterations",
                                               "evaluation_mae_vs_iterations"}
    steps, values = zip(*_series(validation, "evaluation_loss_vs_iterations"))
    assert steps == (3, 6, 9)  # the optimizer's iterations at each validation (3 batches/epoch)
    np.testing.assert_allclose(values, history.history["val_loss"], rtol=1e-6)


def test_write_graph_writes_the_sequential_config(tmp_path):
    model = _model()
    model.fit(*_data(), epochs=1, verbose=0,
              callbacks=[tf.keras.callbacks.TensorBoard(tmp_path)])
    (step, _, plugin, value), = [e for e in read_events(str(tmp_path / "train"))
                                 if e[1] == "keras"]
    config = json.loads(value[()])
    assert (step, plugin, config["class_name"]) == (0, "graph_keras_model", "Sequential")
    assert [layer["config"]["name"] for layer in config["config"]["layers"]] == [
        "hidden", "out"]
    model.fit(*_data(), epochs=1, verbose=0,
              callbacks=[tf.keras.callbacks.TensorBoard(tmp_path / "no", write_graph=False)])
    assert not any(e[1] == "keras" for e in read_events(str(tmp_path / "no" / "train")))


def _functional():
    inputs = tf.keras.Input((3,), name="inp")
    left = tf.keras.layers.Dense(2, name="left")(inputs)
    right = tf.keras.layers.Dense(2, name="right")(inputs)
    outputs = tf.keras.layers.Dense(1, name="out")(tf.keras.layers.Add(name="add")(
        [left, right]))
    model = tf.keras.Model(inputs, outputs, name="net")  # a default name depends on test order
    model.compile("sgd", "mse")
    return model


def _graph_config(logdir):
    (value,) = [e[3] for e in read_events(str(logdir / "train")) if e[1] == "keras"]
    return json.loads(value[()])


def test_write_graph_gives_a_functional_model_keras_layout(tmp_path):
    model = _functional()
    model.fit(*_data(), epochs=1, verbose=0,
              callbacks=[tf.keras.callbacks.TensorBoard(tmp_path)])
    config = _graph_config(tmp_path)
    assert config["class_name"] == "Functional"
    layers = {layer["name"]: layer for layer in config["config"]["layers"]}
    assert list(layers) == ["inp", "left", "right", "add", "out"]
    assert layers["inp"]["class_name"] == "InputLayer"

    def histories(name):
        return [[arg["config"]["keras_history"] for arg in node["args"]]
                for node in layers[name]["inbound_nodes"]]

    assert histories("left") == [[["inp", 0, 0]]]
    assert histories("add") == [[["left", 0, 0], ["right", 0, 0]]]
    assert config["config"]["input_layers"] == [["inp", 0, 0]]
    assert config["config"]["output_layers"] == [["out", 0, 0]]
    keras_util = pytest.importorskip("tensorboard.plugins.graph.keras_util")
    graph = keras_util.keras_model_to_graph_def(config)
    assert {node.name: list(node.input) for node in graph.node} == {
        "net/inp": [], "net/left": ["net/inp"], "net/right": ["net/inp"],
        "net/add": ["net/left", "net/right"], "net/out": ["net/add"]}


def test_a_config_that_cannot_be_written_warns_as_keras(tmp_path):
    inputs = tf.keras.Input((3,))
    model = tf.keras.Model(inputs, tf.keras.layers.Dense(1)(inputs) * 2.0)  # an operator
    model.compile("sgd", "mse")
    with pytest.warns(UserWarning, match="Model failed to serialize as JSON"):
        model.fit(*_data(), epochs=1, verbose=0,
                  callbacks=[tf.keras.callbacks.TensorBoard(tmp_path)])
    assert [t for _, t, _, _ in read_events(str(tmp_path / "train"))] == [
        "epoch_loss", "epoch_learning_rate"]


@pytest.mark.parametrize("update_freq,steps", [("batch", list(range(1, 9))), (3, [3, 6])])
def test_batch_level_scalars(tmp_path, update_freq, steps):
    x, y = _data()
    model = _model()

    class Custom(tf.keras.callbacks.Callback):  # a tf.summary call during training
        def on_train_batch_end(self, batch, logs=None):
            tf.summary.scalar("custom", float(batch))

    model.fit(x, y, epochs=2, batch_size=10, verbose=0, callbacks=[
        tf.keras.callbacks.TensorBoard(tmp_path, update_freq=update_freq), Custom()])
    train = read_events(str(tmp_path / "train"))
    assert [s for s, _ in _series(train, "batch_loss")] == steps
    assert [s for s, _ in _series(train, "custom")] == steps  # the default step is the batch
    # The last batch of an epoch logs the epoch's running mean, as the epoch log.
    epoch_losses = [v for _, v in _series(train, "epoch_loss")]
    batch_losses = dict(_series(train, "batch_loss"))
    if 4 in batch_losses:
        assert batch_losses[4] == epoch_losses[0]


def test_histograms_and_images_every_histogram_freq_epochs(tmp_path):
    model = _model()
    model.fit(*_data(), epochs=3, batch_size=20, verbose=0, callbacks=[
        tf.keras.callbacks.TensorBoard(tmp_path, histogram_freq=2, write_images=True)])
    train = read_events(str(tmp_path / "train"))
    tags = {t for _, t, p, _ in train if p == "histograms"}
    assert tags == {"hidden/kernel/histogram", "hidden/bias/histogram",
                    "out/kernel/histogram", "out/bias/histogram"}
    kernel = _series(train, "hidden/kernel/histogram")
    assert [s for s, _ in kernel] == [0, 2]
    final = model.layers[0].kernel.numpy()
    assert kernel[-1][1][:, 2].sum() == final.size
    assert kernel[-1][1][0, 0] == final.min() and kernel[-1][1][-1, 1] == final.max()
    images = {t: v for _, t, p, v in train if p == "images"}
    # the 3x4 kernel is written wider than tall: 4 wide, 3 high; the bias 1 row of 4
    assert list(images["hidden/kernel/image"][:2]) == [b"4", b"3"]
    assert list(images["hidden/bias/image"][:2]) == [b"4", b"1"]


def test_steps_per_second(tmp_path):
    model = _model()
    model.fit(*_data(), epochs=2, batch_size=20, verbose=0, callbacks=[
        tf.keras.callbacks.TensorBoard(tmp_path, write_steps_per_second=True,
                                       update_freq="batch")])
    train = read_events(str(tmp_path / "train"))
    epoch_rates = [v for _, v in _series(train, "epoch_steps_per_second")]
    assert len(epoch_rates) == 2 and all(v > 0 for v in epoch_rates)
    assert [s for s, _ in _series(train, "batch_steps_per_second")] == [1, 2, 3, 4]


def test_evaluate_writes_evaluation_vs_iterations(tmp_path):
    x, y = _data()
    model = _model()
    model.fit(x, y, epochs=1, batch_size=10, verbose=0)
    result = model.evaluate(x, y, verbose=0, return_dict=True,
                            callbacks=[tf.keras.callbacks.TensorBoard(tmp_path)])
    validation = read_events(str(tmp_path / "validation"))
    assert _series(validation, "evaluation_loss_vs_iterations") == [
        (4, np.float32(result["loss"]))]


def test_unsupported_options():
    with pytest.raises(ValueError, match=r"Profiling is not yet available .*profile_batch=2"):
        tf.keras.callbacks.TensorBoard(profile_batch=2)
    with pytest.raises(ValueError, match="profile_batch must be a non-negative integer"):
        tf.keras.callbacks.TensorBoard(profile_batch=(5, 1))
    with pytest.raises(ValueError, match="profile_batch must be a non-negative integer"):
        tf.keras.callbacks.TensorBoard(profile_batch="a,b")
    with pytest.raises(ValueError, match="Unrecognized update_freq"):
        tf.keras.callbacks.TensorBoard(update_freq="sometimes")
    with pytest.warns(UserWarning, match="embeddings_freq is not supported"):
        tf.keras.callbacks.TensorBoard(embeddings_freq=1)
    tf.keras.callbacks.TensorBoard(profile_batch="0")  # Keras's legacy string form


def test_writers_are_closed_after_fit(tmp_path):
    callback = tf.keras.callbacks.TensorBoard(tmp_path, update_freq=1)
    model = _model()
    model.fit(*_data(), epochs=1, verbose=0, callbacks=[callback])
    assert callback._writers == {} and callback._prev_summary_state == []
    assert not bool(tf.summary.should_record_summaries())  # no default writer left behind


def test_tensorboard_reads_the_fit_logs(tmp_path):
    accumulator = pytest.importorskip(
        "tensorboard.backend.event_processing.event_accumulator")
    tensor_util = pytest.importorskip("tensorboard.util.tensor_util")
    x, y = _data()
    model = _model()
    history = model.fit(x, y, epochs=2, batch_size=10, validation_data=(x[:10], y[:10]),
                        verbose=0, callbacks=[tf.keras.callbacks.TensorBoard(tmp_path)])
    for run, prefix in (("train", ""), ("validation", "val_")):
        reader = accumulator.EventAccumulator(str(tmp_path / run),
                                              size_guidance={"tensors": 0})
        reader.Reload()
        values = [float(tensor_util.make_ndarray(e.tensor_proto))
                  for e in reader.Tensors("epoch_loss")]
        np.testing.assert_allclose(values, history.history[prefix + "loss"], rtol=1e-6)
        assert reader.SummaryMetadata("epoch_loss").plugin_data.plugin_name == "scalars"


def test_tensorboard_dashboards_read_scalars_histograms_and_images(tmp_path):
    multiplexer = pytest.importorskip(
        "tensorboard.backend.event_processing.plugin_event_multiplexer")
    data_provider = pytest.importorskip("tensorboard.backend.event_processing.data_provider")
    context = pytest.importorskip("tensorboard.context")
    model = _model()
    history = model.fit(*_data(), epochs=2, batch_size=20, verbose=0, callbacks=[
        tf.keras.callbacks.TensorBoard(tmp_path, histogram_freq=1, write_images=True)])
    runs = multiplexer.EventMultiplexer()
    runs.AddRunsFromDirectory(str(tmp_path))
    runs.Reload()
    provider = data_provider.MultiplexerDataProvider(runs, str(tmp_path))
    request = context.RequestContext()
    scalars = provider.read_scalars(request, experiment_id="", plugin_name="scalars",
                                    downsample=100)
    np.testing.assert_allclose([p.value for p in scalars["train"]["epoch_loss"]],
                               history.history["loss"], rtol=1e-6)
    histograms = provider.read_tensors(request, experiment_id="", plugin_name="histograms",
                                       downsample=100)
    assert histograms["train"]["out/kernel/histogram"][0].numpy.shape == (30, 3)
    images = provider.read_blob_sequences(request, experiment_id="", plugin_name="images",
                                          downsample=100)
    assert [len(p.values) for p in images["train"]["hidden/kernel/image"]] == [3, 3]
