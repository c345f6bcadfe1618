"""pools.py: what running BLAS on the kernels' pool is worth (runtime/blas_pool.py:
NumPy's OpenBLAS runs the jobs of its threaded calls on Numba's OpenMP workers).

    python benchmarks/pools.py                      # W2 and W3, alone and beside PyTorch
    python benchmarks/pools.py --only W2 --beside none,torch,all --pairs 8

Each configuration runs in a fresh process that imports the peers named by
`--beside` first (as a program using both libraries would: PyTorch's libgomp
loaded first is the case that costs most), then trains a warm-up epoch and
times `fit` epochs with the callback installed and removed in turns
(`blas_pool.install` / `uninstall`), so that each pair shares the machine's
state of the moment: a busy host moves single figures by 20-40% while the
paired ratio holds. The table gives the medians of each setting and the
median of the pairs' ratios (shared pool / OpenBLAS's own threads).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_PEERS = {"none": "", "torch": "import torch", "all": "import torch, tensorflow, jax"}

_CHILD = r"""
import json, sys, time
workload, pairs = sys.argv[1], int(sys.argv[2])
{imports}
sys.path.insert(0, {here!r})
import tapeflow as tf
from fit_problem import fit_problem
from tapeflow.runtime import blas_pool, openmp
model, x, y, batch, steps = fit_problem(tf, workload, steps={{"W2": 100}}.get(workload))
model.fit(x, y, batch_size=batch, verbose=0, shuffle=False)  # compiles, calibrates, installs
why_not = blas_pool.why_not_installable()
rates = {{"shared": [], "own": []}}
for i in range(2 * pairs):
    setting = "shared" if i % 2 == 0 else "own"
    if not why_not:
        (blas_pool.install if setting == "shared" else blas_pool.uninstall)()
    start = time.perf_counter()
    model.fit(x, y, batch_size=batch, verbose=0, shuffle=False)
    rates[setting].append(steps / (time.perf_counter() - start))
print(json.dumps({{"rates": rates, "why_not": why_not,
                  "openmp": [p.split("site-packages/")[-1] if "site-packages/" in p
                             else p.rsplit("/", 1)[-1] for p in openmp.loaded_runtimes()]}}))
"""


def run(workload, beside, pairs):
    """{'rates': {'shared': [...], 'own': [...]}, 'why_not', 'openmp'} of one fresh process."""
    code = _CHILD.format(imports=_PEERS[beside], here=_HERE)
    out = subprocess.run([sys.executable, "-c", code, workload, str(pairs)], capture_output=True,
                         text=True, timeout=1800)
    if out.returncode != 0:
        raise RuntimeError(f"{workload} beside {beside} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="W2,W3", help="workloads: W2, W3 or both")
    parser.add_argument("--beside", default="none,torch",
                        help=f"peers imported first, each its own process: {', '.join(_PEERS)}")
    parser.add_argument("--pairs", type=int, default=8, help="timed epochs per setting")
    args = parser.parse_args(argv)
    print("workload | imported first | OpenMP runtimes | shared pool | OpenBLAS's own | "
          "paired ratio (min-max)")
    for workload in [w.strip().upper() for w in args.only.split(",") if w.strip()]:
        for beside in [b.strip() for b in args.beside.split(",") if b.strip()]:
            result = run(workload, beside, args.pairs)
            rates = result["rates"]
            if result["why_not"]:
                print(f"{workload} | {beside} | not installable: {result['why_not']}")
                continue
            ratios = sorted(a / b for a, b in zip(rates["shared"], rates["own"]))
            print(f"{workload} | {beside} | {', '.join(result['openmp']) or '-'} | "
                  f"{statistics.median(rates['shared']):.1f} steps/s | "
                  f"{statistics.median(rates['own']):.1f} steps/s | "
                  f"{statistics.median(ratios):.2f}x ({ratios[0]:.2f}-{ratios[-1]:.2f})",
                  flush=True)


if __name__ == "__main__":
    main()
