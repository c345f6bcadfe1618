"""scaling.py: how W2's and W3's `fit` scale with the cores a process may use
(issue 20: W3 on 2 cores at least 1.6x its 1-core speed; with
`set_intra_op_parallelism_threads(1)` on all cores within 1.25x of 1 core).

    python benchmarks/scaling.py                 # W3, cores 1 and all, rounds 5
    python benchmarks/scaling.py --only W2,W3 --cores 1,2,4 --rounds 7

Each configuration runs in a fresh process whose CPU affinity is set before
tapeflow is imported (as `taskset -c 0-(n-1)` would), so tapeflow sizes its
pools and makes its kernel decisions for exactly those cores; the processes
of one round run one after another, the configurations taking turns, and the
table gives medians of the rounds and the ratio to one core. Each process
trains a warm-up epoch first (compiles, calibration), then times `fit` over
the same synthetic batches as benchmarks/run.py.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))

# Run in the child: affinity first, then tapeflow; prints steps/s as JSON.
_CHILD = r"""
import json, os, sys, time
cores, workload, intra = json.loads(sys.argv[1])
os.sched_setaffinity(0, set(cores))
sys.path.insert(0, {here!r})
import tapeflow as tf
from fit_problem import fit_problem
if intra:
    tf.config.threading.set_intra_op_parallelism_threads(intra)
model, x, y, batch, steps = fit_problem(tf, workload)
model.fit(x, y, batch_size=batch, verbose=0, shuffle=False)  # compiles, calibrates
rates = []
for _ in range(3):
    start = time.perf_counter()
    model.fit(x, y, batch_size=batch, verbose=0, shuffle=False)
    rates.append(steps / (time.perf_counter() - start))
print(json.dumps(sorted(rates)[1]))
"""


def run_once(cores, workload, intra=0):
    """Steps/s of one fresh process on CPUs `cores` (a list of CPU ids)."""
    out = subprocess.run(
        [sys.executable, "-c", _CHILD.format(here=_HERE), json.dumps([cores, workload, intra])],
        check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def configurations(core_counts, available):
    """(label, cores, intra-op threads) per configuration: the first n CPUs of
    this process's affinity for each n, and all of them limited to one thread."""
    configs = [(f"{n} core{'s' if n > 1 else ''}", available[:n], 0)
               for n in core_counts if n <= len(available)]
    if len(available) > 1:
        configs.append((f"{len(available)} cores, intra_op 1", available, 1))
    return configs


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="W3", help="W2, W3 or both (W2,W3)")
    parser.add_argument("--cores", default="", help="core counts, e.g. 1,2,4 (default 1 and all)")
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    available = sorted(os.sched_getaffinity(0))
    counts = [int(c) for c in args.cores.split(",") if c] or sorted({1, len(available)})
    configs = configurations(counts, available)
    print(f"{len(available)} usable CPUs; {args.rounds} rounds, configurations taking turns")
    for workload in args.only.split(","):
        rates = {label: [] for label, _, _ in configs}
        for _ in range(args.rounds):
            for label, cores, intra in configs:
                rates[label].append(run_once(cores, workload, intra))
        base = statistics.median(rates[configs[0][0]])
        for label, _, _ in configs:
            median = statistics.median(rates[label])
            print(f"{workload} fit | {label:22s} | {median:7.1f} steps/s "
                  f"({min(rates[label]):.1f}-{max(rates[label]):.1f}) | {median / base:.2f}x "
                  f"{configs[0][0]}")


if __name__ == "__main__":
    main()
