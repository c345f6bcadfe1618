"""Callbacks, driven by a small fake model and a hand-written epoch loop (not
framework/models/): hook dispatch, History, the progress display, and the
decisions of the standard callbacks."""

import csv
import hashlib
import json
import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import callbacks as cb
from tapeflow.callbacks.base import _HOOKS


class FakeOptimizer:
    def __init__(self, learning_rate=0.1):
        self.learning_rate = learning_rate


class FakeModel:
    """What callbacks may use: stop_training, optimizer, weights and saving."""

    def __init__(self):
        self.stop_training = False
        self.optimizer = FakeOptimizer()
        self.weights = [np.zeros(2)]
        self.saved = []
        self.loaded = []
        self.metrics = []

    def get_weights(self):
        return [w.copy() for w in self.weights]

    def set_weights(self, weights):
        self.weights = [w.copy() for w in weights]

    def save_weights(self, path):
        with open(path, "w") as f:
            f.write("weights")
        self.saved.append(("weights", path))

    def save(self, path):
        with open(path, "w") as f:
            f.write("model")
        self.saved.append(("model", path))

    def load_weights(self, path):
        self.loaded.append(path)


def run(callbacks, epoch_logs, model=None, steps=2, verbose=0, initial_epoch=0):
    """A fit-like loop: the hooks in Keras's order; epoch i ends with epoch_logs[i]."""
    model = model or FakeModel()
    cl = cb.CallbackList(callbacks, add_progbar=verbose != 0, model=model, verbose=verbose,
                         epochs=len(epoch_logs), steps=steps)
    cl.on_train_begin()
    start = getattr(model, "_initial_epoch", None) or initial_epoch
    for epoch in range(start, len(epoch_logs)):
        model.weights = [np.full(2, float(epoch))]  # "training" changes the weights
        cl.on_epoch_begin(epoch)
        for batch in range(steps):
            cl.on_train_batch_begin(batch)
            cl.on_train_batch_end(batch, {"loss": epoch_logs[epoch].get("loss", 0.0)})
            if model.stop_training:
                break
        cl.on_epoch_end(epoch, dict(epoch_logs[epoch]))
        if model.stop_training:
            break
    cl.on_train_end()
    return cl, model


class Recorder(cb.Callback):
    def __init__(self):
        super().__init__()
        self.calls = []

    def __getattribute__(self, name):
        if name.startswith("on_") and name not in ("on_batch_begin", "on_batch_end"):
            calls = object.__getattribute__(self, "calls")
            return lambda *args, **kwargs: calls.append((name,) + args)
        return object.__getattribute__(self, name)


def test_callback_list_dispatches_every_hook_and_adds_history():
    rec = Recorder()
    model = FakeModel()
    cl = cb.CallbackList([rec], model=model, verbose=0, epochs=1, steps=1)
    assert isinstance(cl.history, cb.History) and cl.history in cl.callbacks
    assert rec.model is model and rec.params == {"verbose": 0, "epochs": 1, "steps": 1}
    for hook in _HOOKS:
        args = (0, {"x": 1}) if "epoch" in hook or "batch" in hook else ({"x": 1},)
        getattr(cl, hook)(*args)
    assert [c[0] for c in rec.calls] == list(_HOOKS)
    assert not any(isinstance(c, cb.ProgbarLogger) for c in cl.callbacks)
    assert any(isinstance(c, cb.ProgbarLogger)
               for c in cb.CallbackList(add_progbar=True).callbacks)
    with pytest.raises(TypeError, match="Callback instances"):
        cb.CallbackList([lambda: None])


def test_base_callback_legacy_batch_aliases():
    seen = []

    class Legacy(cb.Callback):
        def on_batch_end(self, batch, logs=None):
            seen.append((batch, logs["loss"]))

    Legacy().on_train_batch_end(3, {"loss": 0.5})
    assert seen == [(3, 0.5)]
    assert cb.Callback().on_test_batch_end(0) is None  # every hook exists


def test_history():
    cl, model = run([], [{"loss": 1.0, "val_loss": 2.0}, {"loss": tf.constant(0.5),
                                                          "val_loss": np.float32(1.5)}])
    assert cl.history.history == {"loss": [1.0, 0.5], "val_loss": [2.0, 1.5]}
    assert cl.history.epoch == [0, 1] and model.history is cl.history


def test_progbar_one_line_per_epoch_when_not_a_terminal(capsys):
    run([], [{"loss": 0.5, "accuracy": 0.75}, {"loss": 0.25, "accuracy": 0.8}], verbose=1,
        steps=50)
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 2  # no redraws in a log file
    assert lines[0].startswith("Epoch 1/2 - 50/50 - ")
    assert "loss: 0.5000 - accuracy: 0.7500" in lines[0]
    assert "loss: 0.2500" in lines[1]
    run([], [{"loss": 1e-5}], verbose=2)
    assert "loss: 1.0000e-05" in capsys.readouterr().out
    run([], [{"loss": 0.5}], verbose=0)
    assert capsys.readouterr().out == ""


def test_progbar_tqdm_bar_on_a_terminal():
    import io

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    stream = Terminal()
    logger = cb.ProgbarLogger(stream=stream)
    run([logger], [{"loss": 0.5, "val_loss": 0.75}], verbose=1, steps=3)
    text = stream.getvalue()
    assert "Epoch 1/1" in text and "3/3" in text and "val_loss: 0.7500" in text
    assert logger._bar is None  # closed at epoch end


def test_progbar_evaluate_outside_fit(capsys):
    logger = cb.ProgbarLogger()
    logger.set_params({"verbose": 1, "steps": 4})
    logger.on_test_begin()
    for batch in range(4):
        logger.on_test_batch_end(batch, {"loss": 0.125})
    logger.on_test_end({"loss": 0.125, "accuracy": 1.0})
    out = capsys.readouterr().out
    assert out.startswith("4/4 - ") and "accuracy: 1.0000" in out


def test_early_stopping_patience_and_restore_best_weights():
    stop = cb.EarlyStopping(monitor="val_loss", patience=2, restore_best_weights=True)
    losses = [1.0, 0.5, 0.6, 0.7, 0.4, 0.3]
    cl, model = run([stop], [{"val_loss": v} for v in losses])
    assert cl.history.epoch == [0, 1, 2, 3]  # stopped after two epochs without improvement
    assert stop.stopped_epoch == 3 and stop.best_epoch == 1 and stop.best == 0.5
    np.testing.assert_array_equal(model.weights[0], [1.0, 1.0])  # weights of epoch 1


def test_early_stopping_modes_min_delta_baseline_and_start():
    stop = cb.EarlyStopping(monitor="accuracy", patience=1, min_delta=0.05)
    cl, _ = run([stop], [{"accuracy": a} for a in [0.5, 0.53, 0.9]])
    assert cl.history.epoch == [0, 1]  # +0.03 is below min_delta, and 'acc' means max
    values = [{"loss": v} for v in [1.0, 0.5, 0.6, 0.7, 0.8]]
    cl, _ = run([cb.EarlyStopping(monitor="loss", patience=2, baseline=0.1)], values)
    assert cl.history.epoch == [0, 1, 2]  # the improvement at 1 missed the baseline
    cl, _ = run([cb.EarlyStopping(monitor="loss", patience=2)], values)
    assert cl.history.epoch == [0, 1, 2, 3]
    stop = cb.EarlyStopping(monitor="loss", patience=0, start_from_epoch=2)
    cl, _ = run([stop], [{"loss": v} for v in [1.0, 2.0, 3.0, 4.0]])
    assert cl.history.epoch == [0, 1, 2, 3]  # epochs 0-1 are warm-up; 3 is first to stop
    assert stop.stopped_epoch == 3
    with pytest.raises(ValueError, match="mode='max'"):
        run([cb.EarlyStopping(monitor="my_score")], [{"my_score": 1.0}])
    model = FakeModel()
    model.metrics = [tf.keras.metrics.Mean(name="my_score")]
    model.metrics[0]._direction = "up"
    stop = cb.EarlyStopping(monitor="val_my_score", patience=0)
    cl, _ = run([stop], [{"val_my_score": s} for s in [1.0, 2.0, 1.5, 3.0]], model=model)
    assert cl.history.epoch == [0, 1, 2]
    with pytest.warns(UserWarning, match="not available"):
        run([cb.EarlyStopping(monitor="val_loss")], [{"loss": 1.0}])


def test_model_checkpoint_templates_and_best_only(tmp_path):
    template = str(tmp_path / "ckpt" / "{epoch:02d}-{val_loss:.2f}.weights.npz")
    check = cb.ModelCheckpoint(template, save_weights_only=True)
    _, model = run([check], [{"val_loss": 0.5}, {"val_loss": 0.25}])
    assert model.saved == [("weights", str(tmp_path / "ckpt" / "01-0.50.weights.npz")),
                           ("weights", str(tmp_path / "ckpt" / "02-0.25.weights.npz"))]
    best = cb.ModelCheckpoint(str(tmp_path / "best.model"), monitor="val_loss",
                              save_best_only=True)
    _, model = run([best], [{"val_loss": v} for v in [0.5, 0.7, 0.3, 0.4]])
    assert [kind for kind, _ in model.saved] == ["model", "model"] and best.best == 0.3
    acc = cb.ModelCheckpoint(str(tmp_path / "acc{epoch}"), monitor="val_accuracy",
                             save_best_only=True, initial_value_threshold=0.6)
    _, model = run([acc], [{"val_accuracy": v} for v in [0.5, 0.7, 0.65]])
    assert [path for _, path in model.saved] == [str(tmp_path / "acc2")]
    batches = cb.ModelCheckpoint(str(tmp_path / "e{epoch}b{batch}"), save_freq=3)
    _, model = run([batches], [{}, {}], steps=2)
    assert [path for _, path in model.saved] == [str(tmp_path / "e2b1")]
    with pytest.raises(KeyError, match="val_acc"):
        run([cb.ModelCheckpoint(str(tmp_path / "{val_acc}"))], [{"loss": 1.0}])
    with pytest.raises(ValueError, match="save_freq"):
        cb.ModelCheckpoint("x", save_freq="batch")


def test_learning_rate_scheduler():
    sched = cb.LearningRateScheduler(lambda epoch, lr: lr if epoch < 1 else lr * 0.5)
    cl, model = run([sched], [{"loss": 1.0}] * 3)
    assert model.optimizer.learning_rate == pytest.approx(0.025)
    assert cl.history.history["learning_rate"] == pytest.approx([0.1, 0.05, 0.025])
    old_api = cb.LearningRateScheduler(lambda epoch: 0.01 * (epoch + 1))
    _, model = run([old_api], [{}] * 2)
    assert model.optimizer.learning_rate == pytest.approx(0.02)
    model = FakeModel()
    model.optimizer.learning_rate = tf.Variable(0.5)  # a Variable reads as a number too
    run([cb.LearningRateScheduler(lambda e, lr: lr / 2)], [{}], model=model)
    assert model.optimizer.learning_rate == 0.25
    with pytest.raises(ValueError, match="should be a float"):
        run([cb.LearningRateScheduler(lambda e, lr: "fast")], [{}])


def test_reduce_lr_on_plateau():
    plateau = cb.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2, min_lr=0.03,
                                   cooldown=1)
    values = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    lrs = []
    lambda_cb = cb.LambdaCallback(
        on_epoch_end=lambda epoch, logs: lrs.append(logs["learning_rate"]))
    run([plateau, lambda_cb], [{"val_loss": v} for v in values])
    # logged before the epoch's decision: reduce at epoch 2; epoch 3 ends the cooldown and
    # counts (as Keras); reduce at 4, floored at min_lr
    assert lrs == pytest.approx([0.1, 0.1, 0.1, 0.05, 0.05, 0.03, 0.03, 0.03])
    improving = cb.ReduceLROnPlateau(patience=1)
    _, model = run([improving], [{"val_loss": v} for v in [1.0, 0.5, 0.2]])
    assert model.optimizer.learning_rate == 0.1
    with pytest.raises(ValueError, match="factor >= 1.0"):
        cb.ReduceLROnPlateau(factor=1.5)


def test_csv_logger(tmp_path):
    path = tmp_path / "log.csv"
    run([cb.CSVLogger(path)], [{"loss": 0.5, "val_loss": 0.75}, {"loss": 0.25,
                                                               "val_loss": 0.5}])
    rows = list(csv.reader(open(path)))
    assert rows == [["epoch", "loss", "val_loss"], ["0", "0.5", "0.75"], ["1", "0.25", "0.5"]]
    run([cb.CSVLogger(path, append=True, separator=";")], [{"loss": 0.125, "val_loss": 0.1}])
    lines = open(path).read().splitlines()
    assert len(lines) == 4 and lines[-1] == "0;0.125;0.1"
    run([cb.CSVLogger(path)], [{"loss": 1.0}])
    assert open(path).read().splitlines() == ["epoch,loss,val_loss", "0,1.0,NA"]


def test_terminate_on_nan(capsys):
    cl, model = run([cb.TerminateOnNaN()], [{"loss": 1.0}, {"loss": float("nan")},
                                            {"loss": 1.0}])
    assert model.stop_training and cl.history.epoch == [0, 1]
    assert "Invalid loss" in capsys.readouterr().out
    _, model = run([cb.TerminateOnNaN()], [{"loss": float("inf")}])
    assert model.stop_training


def test_lambda_callback():
    events = []
    lam = cb.LambdaCallback(on_train_begin=lambda logs: events.append("begin"),
                            on_epoch_end=lambda epoch, logs: events.append(epoch),
                            on_train_batch_end=lambda batch, logs: events.append("b"),
                            on_train_end=lambda logs: events.append("end"))
    run([lam], [{}, {}], steps=1)
    assert events == ["begin", "b", 0, "b", 1, "end"]
    with pytest.raises(TypeError, match="unknown hook"):
        cb.LambdaCallback(on_epoch_finish=print)


def test_backup_and_restore(tmp_path):
    backup = tmp_path / "backup"

    class Crash(cb.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if epoch == 1:
                raise KeyboardInterrupt

    model = FakeModel()
    with pytest.raises(KeyboardInterrupt):
        run([Crash(), cb.BackupAndRestore(backup)], [{"loss": 1.0}] * 4, model=model)
    manifest = json.loads((backup / "training_metadata.json").read_text())
    # epoch 0's weights, committed when epoch 1 began; epoch 1 never ended
    assert manifest == {"format": "tapeflow-backup-2", "epoch": 1,
                        "weights": "epoch-000001.weights.npz", "size": 7,
                        "sha256": hashlib.sha256(b"weights").hexdigest()}
    assert model.saved == [("weights", str(backup / "epoch-000001.weights.npz"))]
    assert sorted(os.listdir(backup)) == ["epoch-000001.weights.npz", "training_metadata.json"]
    resumed = FakeModel()
    cl, _ = run([cb.BackupAndRestore(backup)], [{"loss": 1.0}] * 4, model=resumed)
    assert resumed.loaded == [str(backup / "epoch-000001.weights.npz")]
    assert resumed._initial_epoch == 1 and cl.history.epoch == [1, 2, 3]
    assert not os.path.exists(backup)  # deleted after a completed fit
    fresh = FakeModel()
    run([cb.BackupAndRestore(backup)], [{}], model=fresh)
    assert fresh.loaded == [] and not hasattr(fresh, "_initial_epoch")


def test_backup_commits_an_epoch_after_every_callback_has_finished_it(tmp_path):
    backup = tmp_path / "backup"
    committed = []

    class Watch(cb.Callback):  # runs after BackupAndRestore in each hook
        def on_epoch_end(self, epoch, logs=None):
            path = backup / "training_metadata.json"
            committed.append(json.loads(path.read_text())["epoch"] if path.exists() else None)

    model = FakeModel()
    run([cb.BackupAndRestore(backup, delete_checkpoint=False), Watch()], [{}] * 3,
        model=model)
    # At the end of epoch e the backup still says e epochs done (e - 1 finished)...
    assert committed == [None, 1, 2]
    # ... and training's end commits the last one and removes the older weights.
    assert json.loads((backup / "training_metadata.json").read_text())["epoch"] == 3
    assert sorted(os.listdir(backup)) == ["epoch-000003.weights.npz", "training_metadata.json"]
