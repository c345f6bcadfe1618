"""run.py runs the benchmark workloads of docs/BENCHMARKS.md (W1-W7) for tapeflow,
hand-written NumPy and whichever of PyTorch, TensorFlow and JAX are
importable, interleaved in one process, and prints one table.

    python benchmarks/run.py [--only W1,W4] [--json out.json] [--quick]
"""

import argparse
import importlib
import json
import os
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _harness  # noqa: E402
from _harness import PEERS, Context, format_machine, format_table, machine_info, ratios  # noqa: E402
from workloads import ORDER  # noqa: E402


def _parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="",
                        help="comma-separated workload ids to run, e.g. W1,W4 (default: all)")
    parser.add_argument("--json", metavar="PATH", help="also write every sample to PATH as JSON")
    parser.add_argument("--quick", action="store_true",
                        help="tiny sizes and 2 repeats: a smoke run of seconds, not a measurement")
    parser.add_argument("--peers", default="torch,tensorflow,jax",
                        help="peer frameworks to try, comma-separated, or 'none' "
                             "(default: torch,tensorflow,jax)")
    parser.add_argument("--repeats", type=int, default=5,
                        help="interleaved timed rounds per implementation (default 5)")
    return parser.parse_args(argv)


def main(argv=None):
    args = _parse(argv)
    wanted = {w.strip().upper() for w in args.only.split(",") if w.strip()}
    modules = [importlib.import_module(f"workloads.{name}") for name in ORDER]
    unknown = wanted - {m.ID for m in modules}
    if unknown:
        sys.exit(f"unknown workload id(s) {sorted(unknown)}; known: {[m.ID for m in modules]}")
    peers = {p.strip() for p in args.peers.split(",") if p.strip() not in ("", "none")}
    if peers - set(PEERS):
        sys.exit(f"unknown peer(s) {sorted(peers - set(PEERS))}; known: {list(PEERS)}")
    ctx = Context(quick=args.quick, repeats=args.repeats, enabled_peers=peers)
    if args.quick:
        _harness.COOL_DOWN = 0.0  # a smoke run measures nothing
    info = machine_info()
    print(format_machine(info), flush=True)
    # The rates are a long run's, its kernels started: a program starts them once its ops'
    # NumPy formulas have done some work (tapeflow/runtime/kernel_start.py), which W2's
    # timed rounds would otherwise cross. W5 measures the short program, in fresh processes.
    from tapeflow.runtime import kernel_start
    kernel_start.start()
    results, errors, durations = [], {}, {}
    for module in modules:
        if wanted and module.ID not in wanted:
            continue
        t0 = time.perf_counter()
        print(f"running {module.ID} ...", flush=True)
        try:
            results += module.run(ctx)
        except Exception:  # noqa: BLE001 -- report it, run the other workloads, fail at the end
            errors[module.ID] = traceback.format_exc()
            print(errors[module.ID], file=sys.stderr, flush=True)
        durations[module.ID] = round(time.perf_counter() - t0, 2)
    for key, text in ctx.errors.items():
        errors[key] = text
        print(f"{key}:\n{text}", file=sys.stderr, flush=True)
    print()
    print(format_table(results))
    print("\nvs NumPy / vs tapeflow: speed relative to the first NumPy / tapeflow row of the "
          "same case\n(>1 = faster; none for accuracy). Medians of interleaved repeats"
          + (" (--quick: smoke sizes, not a measurement)." if args.quick else "."))
    for note in ctx.notes:
        print(f"note: {note}")
    for wid in errors:
        print(f"ERROR in {wid} (traceback above)")
    if args.json:
        rows = []
        for r, (vs_np, vs_tf) in zip(results, ratios(results)):
            rows.append({**r.as_dict(), "speed_vs_numpy": vs_np, "speed_vs_tapeflow": vs_tf})
        with open(args.json, "w") as f:
            json.dump({"machine": info, "quick": args.quick, "repeats": args.repeats,
                       "peers_tried": sorted(peers),
                       "results": rows, "notes": ctx.notes, "errors": errors,
                       "workload_seconds": durations}, f, indent=1)
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
