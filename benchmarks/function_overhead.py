"""function_overhead.py times tapeflow.function's replay against eager execution
(issue 18): the per-call cost of W1's step (seed 004: one tape gradient and
one SGD update of `y = a*x**2 + b*x + c`) called from Python, and seed 004's
whole 1000-step `for _ in tf.range(1000)` loop in one traced call (AutoGraph
makes it one loop node), and the same loop written with tf.while_loop; then the
first `fit` step of W2's model (tracing and compiling its train step) in fresh
processes, with every cache empty (cold: Numba's kernels, the compiled
functions, the calibration) and filled (warm).

    python benchmarks/function_overhead.py [--repeats 7]

Prints medians of interleaved runs in one process, and the first (tracing)
call separately. Not a timed test: numbers depend on the machine.
"""

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

import tapeflow as tf


def _problem():
    x = tf.Variable(0.0, name="x", dtype=tf.float32)
    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)
    a, b, c = tf.constant(1.0), tf.constant(-2.0), tf.constant(1.0)

    def step():
        with tf.GradientTape() as tape:
            y = a * tf.pow(x, 2) + b * x + c
        optimizer.apply_gradients([(tape.gradient(y, x), x)])
        return y

    def loop():
        for _ in tf.range(1000):
            step()
        return a * tf.pow(x, 2) + b * x + c

    def while_loop():  # what AutoGraph makes of loop(): tf.while_loop, one node when traced
        def body(i):
            step()
            return i + 1
        tf.while_loop(lambda i: i < 1000, body, [tf.constant(0)])
        return a * tf.pow(x, 2) + b * x + c

    return x, step, loop, while_loop


def _time(fn, calls):
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


# In a fresh process: seconds of the first one-batch fit of W2's model (trace,
# compile, run) and of a second one (the compiled step), after the import.
_FIRST_STEP = r"""
import json, sys, time
sys.path.insert(0, {here!r})
import numpy as np
import tapeflow as tf
from workloads.w2_mlp import SIZES, keras_mlp
rng = np.random.default_rng(0)
x, y = rng.random((128, 784), dtype=np.float32), rng.integers(0, 10, 128)
model = keras_mlp(tf.keras, SIZES)
times = []
for _ in range(2):
    start = time.perf_counter()
    model.fit(x, y, batch_size=128, verbose=0)
    times.append(time.perf_counter() - start)
print(json.dumps(times))
"""


def first_step_seconds(cache_dir):
    """(first fit, second fit) seconds of W2's one-batch fit in a fresh process
    whose caches (Numba's, tapeflow's) live in `cache_dir`."""
    env = {**os.environ, "XDG_CACHE_HOME": cache_dir,
           "NUMBA_CACHE_DIR": os.path.join(cache_dir, "numba")}
    code = _FIRST_STEP.format(here=os.path.dirname(os.path.abspath(__file__)))
    out = subprocess.run([sys.executable, "-c", code], env=env, check=True,
                         capture_output=True, text=True).stdout
    return tuple(json.loads(out.strip().splitlines()[-1]))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()

    x_eager, step_eager, loop_eager, _ = _problem()
    x_traced, step, loop, _ = _problem()
    x_while, _, _, while_loop = _problem()
    step_traced, loop_traced = tf.function(step), tf.function(loop)
    while_traced = tf.function(while_loop)
    start = time.perf_counter()
    step_traced()
    trace_step = time.perf_counter() - start
    start = time.perf_counter()
    loop_traced()
    trace_loop = time.perf_counter() - start
    start = time.perf_counter()
    while_traced()
    trace_while = time.perf_counter() - start

    rows = {"W1 step, eager (us/call)": [], "W1 step, traced (us/call)": [],
            "seed 004 loop, eager (ms)": [], "seed 004 loop, traced (ms)": [],
            "seed 004 as tf.while_loop, traced (ms)": []}
    for _ in range(args.repeats):  # interleaved, so that drifts hit both alike
        rows["W1 step, eager (us/call)"].append(_time(step_eager, 1000) * 1e6)
        rows["W1 step, traced (us/call)"].append(_time(step_traced, 1000) * 1e6)
        x_eager.assign(0.0)
        rows["seed 004 loop, eager (ms)"].append(_time(loop_eager, 1) * 1e3)
        x_traced.assign(0.0)
        rows["seed 004 loop, traced (ms)"].append(_time(loop_traced, 1) * 1e3)
        x_while.assign(0.0)
        rows["seed 004 as tf.while_loop, traced (ms)"].append(_time(while_traced, 1) * 1e3)
    print(f"CPU: {platform.processor() or platform.machine()}; python {platform.python_version()}")
    print(f"first call (trace) of the step: {trace_step * 1e3:.1f} ms; of the tf.range loop: "
          f"{trace_loop * 1e3:.0f} ms; of the tf.while_loop: {trace_while * 1e3:.0f} ms")
    for name, values in rows.items():
        print(f"{name:32s} median {statistics.median(values):9.2f}  "
              f"(min {min(values):.2f}, max {max(values):.2f})")
    print(f"x after the traced loops: {float(x_traced):.8f}, {float(x_while):.8f} "
          "(seed: 0.99999857)")
    if loop_traced.experimental_get_tracing_count() + while_traced.experimental_get_tracing_count() != 2:
        raise SystemExit("a loop was traced more than once")
    cold, warm = [], []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as cache_dir:
            cold.append(first_step_seconds(cache_dir))
            warm.append(first_step_seconds(cache_dir))
    for name, runs in (("cold", cold), ("warm", warm)):
        first = statistics.median(r[0] for r in runs)
        then = statistics.median(r[1] for r in runs)
        print(f"W2 first fit step, caches {name}: {first:.2f} s (trace, compile, run; "
              f"the next one-step fit {then * 1e3:.1f} ms), medians of {len(runs)} processes")


if __name__ == "__main__":
    main()
