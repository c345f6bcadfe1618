"""fit_problem.py: the synthetic W2 or W3 training problem that the
process-level benchmarks (scaling.py, pools.py) time with `fit` in child
processes, built the same way for both."""

import numpy as np

from workloads.w2_mlp import SIZES, keras_mlp
from workloads.w3_cnn import keras_cnn

BATCH = {"W2": 128, "W3": 64}
STEPS = {"W2": 60, "W3": 30}


def fit_problem(tf, workload, steps=None):
    """(model, x, y, batch, steps): W2's MLP or W3's CNN compiled through
    `tf.keras`, and `steps` batches (the workload's default when None) of
    random inputs and labels from seed 0."""
    rng = np.random.default_rng(0)
    batch, steps = BATCH[workload], steps or STEPS[workload]
    if workload == "W3":
        x = rng.random((batch * steps, 28, 28, 1), dtype=np.float32)
        model = keras_cnn(tf.keras)
    else:
        x = rng.random((batch * steps, 784), dtype=np.float32)
        model = keras_mlp(tf.keras, SIZES)
    return model, x, rng.integers(0, 10, batch * steps), batch, steps
