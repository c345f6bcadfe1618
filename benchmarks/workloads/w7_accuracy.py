"""W7 accuracy: the real MNIST test set (../shared/data/mnist from the repo
root), first 8,000 images for training and last 2,000 held out; Dense
784-256-10 ReLU, Adam(1e-3), batch 64, 5 epochs, pixels in [0, 1], seed 0.
Reports held-out accuracy and the wall seconds of the training."""

import os
import time

import numpy as np

import reference_numpy as ref
from _harness import Result, missing
from workloads.w2_mlp import TAPEFLOW_NEEDS, jax_mlp, keras_mlp, torch_mlp

ID = "W7"
SIZES = (784, 256, 10)
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DATA_DIR = os.path.join(REPO, "..", "shared", "data", "mnist")


def load(quick):
    """(x_train, y_train, x_held, y_held) as float32 in [0, 1] and int64 labels."""
    from tapeflow.datasets import mnist
    x, y = mnist.load_test_set(DATA_DIR)
    x = (x.reshape(len(x), -1).astype(np.float32) / 255.0)
    y = y.astype(np.int64)
    train, held = (slice(0, 1000), slice(8000, 8500)) if quick else (slice(0, 8000),
                                                                      slice(8000, 10000))
    return x[train], y[train], x[held], y[held]


def _tapeflow(xt, yt, xh, yh, epochs):
    import tapeflow as tf
    tf.random.set_seed(0)
    model = keras_mlp(tf.keras, SIZES)
    t0 = time.perf_counter()
    model.fit(xt, yt, batch_size=64, epochs=epochs, verbose=0)
    seconds = time.perf_counter() - t0
    logits = np.asarray(model.predict(xh, verbose=0))
    return float((logits.argmax(axis=1) == yh).mean()), seconds


def _numpy(xt, yt, xh, yh, epochs):
    model = ref.MLP(SIZES, seed=0)
    t0 = time.perf_counter()
    ref.train_epochs(model, xt, yt, batch_size=64, epochs=epochs, seed=0)
    seconds = time.perf_counter() - t0
    return ref.accuracy(model, xh, yh), seconds


def _torch(torch, xt, yt, xh, yh, epochs):
    torch.manual_seed(0)
    model, step = torch_mlp(torch, SIZES)
    t0 = time.perf_counter()
    ref.train_epochs(_Stepper(step), xt, yt, batch_size=64, epochs=epochs, seed=0)
    seconds = time.perf_counter() - t0
    with torch.no_grad():
        logits = model(torch.from_numpy(xh)).numpy()
    return float((logits.argmax(axis=1) == yh).mean()), seconds


def _tensorflow(tens, xt, yt, xh, yh, epochs):
    tens.keras.utils.set_random_seed(0)
    model = keras_mlp(tens.keras, SIZES)
    t0 = time.perf_counter()
    model.fit(xt, yt, batch_size=64, epochs=epochs, verbose=0)
    seconds = time.perf_counter() - t0
    logits = model.predict(xh, verbose=0)
    return float((logits.argmax(axis=1) == yh).mean()), seconds


def _jax(jax, xt, yt, xh, yh, epochs, batch=64):
    predict, state, step = jax_mlp(jax, SIZES, seed=0)
    box = [state]

    def jax_step(xb, yb):
        box[0] = step(box[0], xb, yb)

    # Compile the step for every batch shape the epochs use (a full batch, and the last
    # partial one if any) before the clock starts: `step` is pure, so these calls leave
    # the training state untouched. JAX's compile cost is W5's subject.
    for size in {batch, len(xt) % batch} - {0}:
        jax.block_until_ready(step(state, xt[:size], yt[:size]))
    t0 = time.perf_counter()
    ref.train_epochs(_Stepper(jax_step), xt, yt, batch_size=batch, epochs=epochs, seed=0)
    jax.block_until_ready(box[0])
    seconds = time.perf_counter() - t0
    logits = np.asarray(predict(box[0][0], xh))
    return float((logits.argmax(axis=1) == yh).mean()), seconds


class _Stepper:
    """Adapts a step(xb, yb) function to reference_numpy.train_epochs."""

    def __init__(self, step):
        self.train_step = step


def run(ctx):
    if not os.path.isdir(DATA_DIR):
        ctx.note(f"W7: skipped: no MNIST directory at {os.path.normpath(DATA_DIR)}.")
        return []
    epochs = 1 if ctx.quick else 5
    data = load(ctx.quick)
    runs = []
    import tapeflow as tf
    absent = missing(tf, *TAPEFLOW_NEEDS)
    if absent:
        ctx.note(f"W7: tapeflow skipped: {', '.join(absent)} not available yet.")
    else:
        runs.append(("tapeflow fit", "tapeflow", lambda: _tapeflow(*data, epochs)))
    runs.append(("NumPy by hand", "numpy", lambda: _numpy(*data, epochs)))
    for name, label, fn in (("torch", "PyTorch eager", _torch),
                            ("tensorflow", "TF Keras fit", _tensorflow),
                            ("jax", "JAX jit step", _jax)):
        module = ctx.peer(name)
        if module is not None:
            runs.append((label, name, lambda fn=fn, module=module: fn(module, *data, epochs)))
    acc_rows, time_rows = [], []
    for label, family, fn in runs:
        try:
            acc, seconds = fn()
        except Exception:  # noqa: BLE001 -- report it and still run the others
            import traceback
            ctx.error(f"W7 {label}", traceback.format_exc())
            continue
        acc_rows.append(Result(ID, "held-out accuracy", label, family, "acc", [acc],
                               higher_is_better=True, ratio=False))
        time_rows.append(Result(ID, f"train {epochs} epoch(s)", label, family, "s", [seconds]))
    return acc_rows + time_rows
