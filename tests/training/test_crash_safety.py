"""Crash safety of checkpoints: a process SIGKILLed at any moment of a `fit` with
BackupAndRestore and ModelCheckpoint resumes, when rerun, to the same final
weights bit for bit, and leaves no temporary file behind; plus the consistency
checks of a resume and models saved at every point of their life."""

import json
import os
import subprocess
import sys
import time

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.runtime import atomic_files as file_writers
from tapeflow.models import saving

layers = tf.keras.layers

# The driver runs in its own process: it imports tapeflow once, then forks one
# grandchild per training run, so that a kill costs a fork, not an import. A
# grandchild is SIGKILLed either by itself at its k-th file-system step (the
# wrappers below, installed only by this script: an os.replace, os.remove,
# os.fsync ... call, counted over the whole run) or by the driver after a delay.
# Kill points come from np.random.default_rng(seed).
_DRIVER = r'''
import json, os, signal, sys, time
import numpy as np
import tapeflow as tf

work, seed, n_trials, epochs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(seed)
x = np.random.default_rng(0).normal(size=(48, 6)).astype("float32")
y = (x[:, :1] * 2 - x[:, 1:2]).astype("float32")
STEP_CALLS = ("replace", "rename", "remove", "unlink", "rmdir", "fsync", "makedirs")


def train(directory, shuffle, kill_at):
    calls = [0]
    if kill_at:
        def hooked(function):
            def wrapper(*args, **kwargs):
                calls[0] += 1
                if calls[0] == kill_at:
                    os.kill(os.getpid(), signal.SIGKILL)
                return function(*args, **kwargs)
            return wrapper
        for name in STEP_CALLS:
            setattr(os, name, hooked(getattr(os, name)))
    tf.keras.utils.set_random_seed(1)
    model = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(12, activation="tanh"),
                                 tf.keras.layers.Dense(1)])
    model.compile(optimizer=tf.keras.optimizers.Adam(0.01), loss="mse")
    ckpt = os.path.join(directory, "ckpt", "model.keras")
    model.fit(x, y, epochs=epochs, batch_size=8, shuffle=shuffle, verbose=0, callbacks=[
        tf.keras.callbacks.BackupAndRestore(os.path.join(directory, "backup")),
        tf.keras.callbacks.ModelCheckpoint(ckpt)])
    return model, calls[0]


def flat(model):
    return np.concatenate([w.ravel() for w in model.get_weights()]).tobytes().hex()


def run(directory, shuffle, kill_at=0, delay=None):
    """Fork one training run; its exit status (-9 when killed) and its result."""
    result_path = os.path.join(directory, "result.json")
    if os.path.exists(result_path):
        os.remove(result_path)
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            model, calls = train(directory, shuffle, kill_at)
            result = {"weights": flat(model), "calls": calls}
            saved = os.path.join(directory, "ckpt", "model.keras")
            if not kill_at and os.path.exists(saved):
                result["checkpoint"] = flat(tf.keras.models.load_model(saved))
        except BaseException as error:
            result = {"error": f"{type(error).__name__}: {error}"}
            code = 1
        with open(result_path, "w") as f:
            json.dump(result, f)
        os._exit(code)
    if delay is not None:
        time.sleep(delay)
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    killed = os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL
    if not os.path.exists(result_path):
        return killed, None
    with open(result_path) as f:
        return killed, json.load(f)


# Compile and load the kernels once, here, so that each forked run starts warm.
warm = tf.keras.Sequential([tf.keras.Input((6,)), tf.keras.layers.Dense(12, activation="tanh"),
                            tf.keras.layers.Dense(1)])
warm.compile(optimizer="adam", loss="mse")
warm.fit(x, y, epochs=1, batch_size=8, verbose=0)
report = {"reference": {}, "trials": []}
for shuffle in (False, True):
    directory = os.path.join(work, f"reference-{int(shuffle)}")
    os.makedirs(directory)
    start = time.perf_counter()
    _, result = run(directory, shuffle, kill_at=10**9)  # counts the steps, kills never
    report["reference"][str(shuffle)] = dict(result, seconds=time.perf_counter() - start)
for trial in range(n_trials):
    shuffle = bool(trial % 2)
    reference = report["reference"][str(shuffle)]
    directory = os.path.join(work, f"trial-{trial}")
    os.makedirs(directory)
    kills = []
    for k in range(1 + (trial % 3 == 2)):  # every third trial is killed twice
        if (trial + k) % 4 == 3:
            delay = float(rng.uniform(0.05, 0.9) * reference["seconds"])
            killed, _ = run(directory, shuffle, delay=delay)
            kills.append({"delay": round(delay, 4), "killed": killed})
        else:
            step = int(rng.integers(1, reference["calls"] + 1))
            killed, _ = run(directory, shuffle, kill_at=step)
            kills.append({"step": step, "killed": killed})
    _, result = run(directory, shuffle)
    leftovers = sorted(os.path.relpath(os.path.join(root, name), directory)
                       for root, _, names in os.walk(directory) for name in names
                       if name != "result.json")
    entry = {"shuffle": shuffle, "kills": kills, "leftovers": leftovers,
             "error": (result or {}).get("error", None if result else "no result")}
    entry["identical"] = result is not None and result.get("weights") == reference["weights"]
    if result is not None and "checkpoint" in result:
        entry["checkpoint_identical"] = result["checkpoint"] == reference["weights"]
    report["trials"].append(entry)
print(json.dumps(report))
'''


def _kill_trials(tmp_path, seed, n_trials, epochs=4):
    script = tmp_path / "driver.py"
    script.write_text(_DRIVER)
    # One thread each: the driver forks, and a forked child must not inherit a pool.
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1",
               NUMBA_NUM_THREADS="1", MKL_NUM_THREADS="1", NUMBA_THREADING_LAYER="workqueue")
    proc = subprocess.run([sys.executable, str(script), str(tmp_path / "runs"), str(seed),
                           str(n_trials), str(epochs)],
                          capture_output=True, text=True, timeout=600, env=env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


def _failures(report):
    """The trials that did not end as an uninterrupted run does."""
    bad = []
    for i, trial in enumerate(report["trials"]):
        problems = []
        if trial["error"]:
            problems.append(trial["error"])
        elif not trial["identical"]:
            problems.append("final weights differ from the uninterrupted run")
        if trial["leftovers"] != ["ckpt/model.keras"]:
            problems.append(f"files left: {trial['leftovers']}")
        if trial.get("checkpoint_identical") is False:
            problems.append("ModelCheckpoint's file differs from the final weights")
        if problems:
            bad.append((i, trial["kills"], problems))
    return bad


def _check_kill_report(report):
    reference = report["reference"]
    assert reference["False"]["weights"] != reference["True"]["weights"]  # shuffle matters
    assert reference["False"]["calls"] >= 20  # enough file-system steps to land between
    # The first kill of a trial at a file-system step always lands (a resumed run takes
    # fewer steps, so a second one may come after its end; it then just completes).
    firsts = [t["kills"][0] for t in report["trials"] if "step" in t["kills"][0]]
    assert firsts and all(k["killed"] for k in firsts)
    assert _failures(report) == []


def test_sigkill_at_random_moments_resumes_bit_identically(tmp_path):
    # 10 trials, 13 kills (9 at a file-system step, 4 after a random delay), shuffle off/on.
    report = _kill_trials(tmp_path, seed=19, n_trials=10)
    assert sum(len(t["kills"]) for t in report["trials"]) == 13
    _check_kill_report(report)


@pytest.mark.slow
def test_sigkill_many_random_moments(tmp_path):
    report = _kill_trials(tmp_path, seed=2019, n_trials=60, epochs=5)
    _check_kill_report(report)


# -- in-process checks of the pieces ----------------------------------------------------
def _dead_pid():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _small_model(seed=0):
    tf.random.set_seed(seed)
    model = tf.keras.Sequential([tf.keras.Input((3,)), layers.Dense(2)])
    model.compile(tf.keras.optimizers.Adam(0.01), "mse")
    return model


def _xy():
    x = np.random.default_rng(0).normal(size=(16, 3)).astype(np.float32)
    return x, x[:, :2] * 2


def test_a_save_removes_the_temporaries_of_killed_writers_only(tmp_path):
    host = file_writers._host_tag()
    elsewhere = "0" * 8 if host != "0" * 8 else "1" * 8
    zip_bytes = b"PK\x03\x04" + b"x" * 100
    files = {  # name -> (content, hours old, removed?)
        f".tmp-{host}-{_dead_pid()}-abcdefgh-model.keras": (zip_bytes, 0, True),
        f".tmp-{host}-{os.getpid()}-abcdefgh-other.keras": (zip_bytes, 0, False),  # live
        f".tmp-{elsewhere}-1-abcdefgh-x.keras": (zip_bytes, 0, False),  # other host, fresh
        f".tmp-{elsewhere}-1-abcdefgh-y.keras": (zip_bytes, 2, True),  # other host, old
        ".tmp-q5yh23c_model.keras": (zip_bytes, 2, True),  # tapeflow < 19, from a kill
        ".tmp-zzzzzzzzmodel.keras": (zip_bytes, 0, False),  # < 19, maybe being written
        ".tmp-notes-for-me.txt": (b"the user's", 2, False),  # not a tapeflow file
        f".tmp-{host}-{_dead_pid()}-abcdefgh-sub": (None, 0, False),  # a directory
    }
    for name, (content, hours, _) in files.items():
        path = tmp_path / name
        if content is None:
            path.mkdir()
        else:
            path.write_bytes(content)
        os.utime(path, (time.time() - hours * 3600,) * 2)
    _small_model().save(tmp_path / "model.keras")
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["model.keras"] + [name for name, (_, _, removed) in files.items() if not removed])
    assert saving.atomic_write is file_writers.atomic_write  # one writer for every file


def test_an_interrupted_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "f.bin"
    file_writers.atomic_write(path, lambda f: f.write(b"old"))

    def fail(f):
        f.write(b"half")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        file_writers.atomic_write(path, fail)
    assert os.listdir(tmp_path) == ["f.bin"] and path.read_bytes() == b"old"
    with pytest.raises(FileExistsError, match="overwrite=False"):
        file_writers.atomic_write(path, fail, overwrite=False)


def _interrupted_fit(backup, epochs_done):
    class Stop(tf.keras.callbacks.Callback):
        def on_epoch_begin(self, epoch, logs=None):
            if epoch == epochs_done:
                raise KeyboardInterrupt

    model = _small_model()
    with pytest.raises(KeyboardInterrupt):
        model.fit(*_xy(), epochs=5, batch_size=4, verbose=0,
                  callbacks=[tf.keras.callbacks.BackupAndRestore(backup), Stop()])
    return model


def _resume(backup, epochs=5):
    seen = []
    model = _small_model(seed=1)  # other initial weights: the backup must replace them
    tf.random.set_seed(0)  # the shuffling of the interrupted run
    model.fit(*_xy(), epochs=epochs, batch_size=4, verbose=0, callbacks=[
        tf.keras.callbacks.BackupAndRestore(backup),
        tf.keras.callbacks.LambdaCallback(on_epoch_begin=lambda e, logs: seen.append(e))])
    return model, seen


def test_resume_ignores_weights_written_after_the_last_commit(tmp_path):
    backup = tmp_path / "backup"
    _interrupted_fit(backup, epochs_done=2)
    # A kill after epoch 3's weights were written, before the manifest named them:
    (backup / "epoch-000003.weights.npz").write_bytes(b"whatever was written")
    model, seen = _resume(backup)
    assert seen == [2, 3, 4]
    straight = _small_model()
    straight.fit(*_xy(), epochs=5, batch_size=4, verbose=0)
    for a, b in zip(straight.get_weights(), model.get_weights()):
        np.testing.assert_array_equal(a, b)
    assert not backup.exists()


@pytest.mark.parametrize("damage,message", [
    ("delete", r"names epoch-000002\.weights\.npz, which does not exist"),
    ("alter", r"epoch-000002\.weights\.npz has \d+ bytes with SHA-256 .* recorded"),
    ("manifest", r"training_metadata\.json is not a backup manifest"),
])
def test_a_damaged_backup_is_reported_not_half_loaded(tmp_path, damage, message):
    backup = tmp_path / "backup"
    _interrupted_fit(backup, epochs_done=2)
    weights = backup / "epoch-000002.weights.npz"
    if damage == "delete":
        weights.unlink()
    elif damage == "alter":
        weights.write_bytes(weights.read_bytes()[:-1] + b"!")
    else:
        (backup / "training_metadata.json").write_text("{not json")
    model = _small_model(seed=1)
    before = model.get_weights()
    with pytest.raises(ValueError, match=message) as error:
        model.fit(*_xy(), epochs=5, verbose=0,
                  callbacks=[tf.keras.callbacks.BackupAndRestore(backup)])
    assert f"delete {str(backup)!r}" in str(error.value)
    for a, b in zip(before, model.get_weights()):
        np.testing.assert_array_equal(a, b)


def test_a_backup_left_by_tapeflow_before_19_resumes_or_is_ignored_with_a_warning(tmp_path):
    backup = tmp_path / "backup"
    model = _interrupted_fit(backup, epochs_done=2)
    # The old layout: latest.weights.npz and {"epoch": N}.
    for name in os.listdir(backup):
        os.remove(backup / name)
    model.save_weights(backup / "latest.weights.npz")
    (backup / "training_metadata.json").write_text(json.dumps({"epoch": 2}))
    (backup / "training_metadata.json.tmp").write_text('{"epo')  # its killed metadata write
    _, seen = _resume(backup)
    assert seen == [2, 3, 4] and not backup.exists()
    # Its clean-up, killed between its two removals, left the metadata alone: every
    # later fit used to fail on the missing weights.
    backup.mkdir()
    (backup / "training_metadata.json").write_text(json.dumps({"epoch": 5}))
    with pytest.warns(UserWarning, match=r"\(epoch 5\) has no weights beside it"):
        _, seen = _resume(backup)
    assert seen == [0, 1, 2, 3, 4] and not backup.exists()
