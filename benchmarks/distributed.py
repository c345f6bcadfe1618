"""W2 and W3 data-parallel over MPI ranks (issue 21): samples per second of `fit`
under `mpiexec -n N` for N = 1, 2, ... (one kernel thread per rank), the scaling
efficiency against one rank, and the time each step spends in Allreduce.

    python benchmarks/distributed.py [--ranks 1,2] [--steps 60]

Each rank trains on its shard of the global batch (W2: 128, W3: 64), so one rank
does the whole batch's work and N ranks share it. Needs the mpi extra
(pip install 'tapeflow[mpi]'). Prints one table; figures are medians over the
steps after the first few (warm-up and compilation)."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

WORKER = r'''
import json, sys, time
import numpy as np
import tapeflow as tf
from tapeflow.distribute import collectives

workload, steps, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
strategy = tf.distribute.MultiWorkerMirroredStrategy()
tf.config.threading.set_intra_op_parallelism_threads(1)
rng = np.random.default_rng(0)
if workload == "W2":
    batch, x = 128, rng.random((128 * steps, 784), dtype=np.float32)
    y = rng.integers(0, 10, len(x))
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((784,)),
                                     tf.keras.layers.Dense(512, activation="relu"),
                                     tf.keras.layers.Dense(256, activation="relu"),
                                     tf.keras.layers.Dense(10)])
        model.compile(tf.keras.optimizers.Adam(1e-3),
                      tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
else:
    batch, x = 64, rng.random((64 * steps, 28, 28, 1), dtype=np.float32)
    y = rng.integers(0, 10, len(x))
    L = tf.keras.layers
    with strategy.scope():
        model = tf.keras.Sequential([tf.keras.Input((28, 28, 1)),
                                     L.Conv2D(32, 3, activation="relu"), L.MaxPooling2D(),
                                     L.Conv2D(64, 3, activation="relu"), L.MaxPooling2D(),
                                     L.Flatten(), L.Dense(10)])
        model.compile(tf.keras.optimizers.SGD(0.01, momentum=0.9),
                      tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
times, reduce_times = [], []
real = collectives.allreduce_sum
def timed(world, arrays):
    start = time.perf_counter()
    try:
        return real(world, arrays)
    finally:
        reduce_times.append(time.perf_counter() - start)
collectives.allreduce_sum = timed
class Clock(tf.keras.callbacks.Callback):
    def on_train_batch_begin(self, batch, logs=None):
        self.start = time.perf_counter()
    def on_train_batch_end(self, batch, logs=None):
        times.append(time.perf_counter() - self.start)
model.fit(x, y, batch_size=batch, epochs=1, shuffle=False, verbose=0, callbacks=[Clock()])
if strategy.is_chief:
    warm = 5
    step = float(np.median(times[warm:]))
    per_step = [t for t in reduce_times if t > 0][warm:] or [0.0]
    grads = [r for r in reduce_times]
    json.dump({"step": step, "samples_per_s": batch / step,
               "allreduce": float(np.median(per_step)) if strategy.num_replicas_in_sync > 1 else 0.0},
              open(out, "w"))
'''


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranks", default="1,2")
    parser.add_argument("--steps", type=int, default=60)
    parser.add_argument("--workloads", default="W2,W3")
    args = parser.parse_args()
    mpiexec = shutil.which("mpiexec")
    if mpiexec is None:
        sys.exit("needs mpiexec: pip install 'tapeflow[mpi]'")
    folder = tempfile.mkdtemp()
    script = os.path.join(folder, "worker.py")
    with open(script, "w") as f:
        f.write(WORKER)
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    print(f"{'workload':9}{'ranks':>6}{'step ms':>10}{'samples/s':>12}{'scaling':>9}"
          f"{'allreduce ms':>14}")
    for workload in args.workloads.split(","):
        base = None
        for ranks in [int(r) for r in args.ranks.split(",")]:
            out = os.path.join(folder, f"{workload}-{ranks}.json")
            command = [mpiexec, "-n", str(ranks), sys.executable, script, workload,
                       str(args.steps), out]
            subprocess.run(command, check=True, env=env, timeout=1800)
            with open(out) as f:
                result = json.load(f)
            base = base or result["samples_per_s"]
            print(f"{workload:9}{ranks:>6}{result['step'] * 1e3:>10.1f}"
                  f"{result['samples_per_s']:>12.0f}{result['samples_per_s'] / base:>8.2f}x"
                  f"{result['allreduce'] * 1e3:>14.2f}")


if __name__ == "__main__":
    main()
