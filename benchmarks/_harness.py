"""_harness.py holds the timing machinery shared by the workloads of
docs/BENCHMARKS.md: warm-up, interleaved repeats, medians and ranges, the result
rows, guarded imports of the peer frameworks, machine information and the
printed table. It knows nothing about any one workload."""

import datetime
import gc
import importlib
import importlib.metadata
import os
import platform
import statistics
import sys
import time
from dataclasses import dataclass, field

__all__ = ["Context", "Result", "Figure", "interleave", "measure", "time_once", "try_import", "missing",
           "machine_info", "format_table", "format_machine", "PEERS"]

# Peer frameworks, in the order the table lists them.
PEERS = ("torch", "tensorflow", "jax")


@dataclass
class Context:
    """Settings every workload receives.

    `quick` shrinks every workload to a smoke run of a few seconds in total;
    `repeats` is the number of interleaved timed rounds per implementation;
    `enabled_peers` the peer frameworks to try.
    """
    quick: bool = False
    repeats: int = 5
    enabled_peers: set = field(default_factory=lambda: set(PEERS))
    notes: list = field(default_factory=list)
    errors: dict = field(default_factory=dict)
    _peers: dict = field(default_factory=dict)

    def note(self, text):
        """Record a note (a skipped implementation, a correctness check)."""
        self.notes.append(text)

    def error(self, key, text):
        """Record a failure of one implementation; the run still reports the others
        and then exits non-zero."""
        self.errors[key] = text

    def peer(self, name):
        """The peer framework module `name`, or None with a note the first time."""
        if name not in self._peers:
            if name not in self.enabled_peers:
                self._peers[name] = None
                self.note(f"{name} not requested (--peers): its rows are skipped.")
            else:
                self._peers[name] = try_import(name)
                if self._peers[name] is None:
                    self.note(f"{name} is not importable here: its rows are skipped.")
        return self._peers[name]


@dataclass
class Result:
    """One row of the table: every sample of one implementation on one case.

    `family` groups rows for the ratio columns ("numpy", "tapeflow", "torch",
    "tensorflow", "jax"); the first row of a family in a case is its
    reference. `higher_is_better` is True for rates (steps/s) and accuracy.
    """
    workload: str
    case: str
    impl: str
    family: str
    unit: str
    samples: list
    higher_is_better: bool = False
    ratio: bool = True
    extra: dict = field(default_factory=dict)

    @property
    def median(self):
        return statistics.median(self.samples)

    def as_dict(self):
        return {"workload": self.workload, "case": self.case, "implementation": self.impl,
                "family": self.family, "unit": self.unit, "median": self.median,
                "min": min(self.samples), "max": max(self.samples),
                "samples": list(self.samples), "higher_is_better": self.higher_is_better,
                **({"extra": self.extra} if self.extra else {})}


class Figure(float):
    """A measurement a timed callable returns itself (e.g. steps/s of the part it timed)."""


def time_once(fn):
    """Wall seconds of one call of `fn()` (perf_counter)."""
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


COOL_DOWN = 0.25  # seconds between two timed calls (see interleave)
# A call shorter than REWARM_BELOW is timed right after REWARM_FOR seconds of untimed
# calls (see _rounds). One untimed call was not enough on an AMD Zen 4 VM
# (2026-12-08): seed 004's compiled loop, 0.034 ms back to back, gave medians of
# 0.07-0.29 ms from run to run, and JAX's fori_loop 0.18-0.29 ms; with 5 ms of
# calls first, 0.039-0.043 and 0.07-0.08 ms.
REWARM_BELOW = 0.05
REWARM_FOR = 0.005


def interleave(fns, repeats, warmup=1):
    """Time several implementations in alternation, in this process.

    Every implementation is warmed up `warmup` times first; then each of the
    `repeats` rounds calls every implementation once, rotating the order from
    round to round so that no implementation always runs right after another
    (caches, CPU frequency and the neighbours on a shared machine then weigh
    on all of them alike).

    Args:
        fns: dict name -> zero-argument callable. A callable may return a
            `Figure`, which is then taken as its own measurement (for example
            when it times only part of its work); otherwise its wall time is.
        repeats: timed rounds.
        warmup: untimed calls of each implementation before the rounds.

    Returns:
        dict name -> list of `repeats` measurements (seconds unless the
        callable returned its own figure).
    """
    names = list(fns)
    short = set()
    for name in names:
        for _ in range(warmup):
            if time_once(fns[name]) < REWARM_BELOW:
                short.add(name)
    samples = {name: [] for name in names}
    # Everything alive now (the peer frameworks hold ~500,000 objects) leaves the
    # collector's view while timing: otherwise each full collection walks them
    # all, a tax on whichever implementation allocates most (it made W6's
    # tapeflow forward 10.3 instead of 7.1 us with TF, torch and JAX loaded).
    gc.collect()
    gc.freeze()
    try:
        _rounds(fns, names, repeats, samples, short)
    finally:
        gc.unfreeze()
    return samples


def _rewarm(fn):
    """Call `fn` untimed until REWARM_FOR seconds have passed (at least once)."""
    end = time.perf_counter() + REWARM_FOR
    fn()
    while time.perf_counter() < end:
        fn()


def _rounds(fns, names, repeats, samples, short=()):
    for r in range(repeats):
        k = r % len(names) if names else 0
        for name in names[k:] + names[:k]:
            # PyTorch's and TF's OpenMP workers spin for a while after each call;
            # on 2 cores they would take the CPU from whatever runs next.
            time.sleep(COOL_DOWN)
            if name in short:
                # After the sleep, a VM's first millisecond of work can run several times
                # slower (Intel Xeon, 2026-12-07: seed 004's NumPy loop 0.12 ms back to
                # back, 0.44-0.62 ms right after a 0.25 s sleep; spinning on the clock
                # first did not help, running the code did): a short call is timed
                # right after untimed ones (REWARM_FOR), as in a program's loop.
                _rewarm(fns[name])
            t0 = time.perf_counter()
            value = fns[name]()
            elapsed = time.perf_counter() - t0
            samples[name].append(float(value) if isinstance(value, Figure) else elapsed)


def measure(ctx, workload, case, unit, impls, scale=1.0, warmup=1, repeats=None,
            higher_is_better=False):
    """Interleave `impls` [(name, family, fn)] and turn the samples into Results.

    Wall seconds are multiplied by `scale` (1e3 for ms); a `Figure` returned
    by a callable is kept as it is.
    """
    samples = interleave({name: fn for name, _, fn in impls}, repeats or ctx.repeats, warmup)
    rows = []
    for name, family, fn in impls:
        values = samples[name]
        rows.append(Result(workload, case, name, family, unit, values if higher_is_better
                           else [v * scale for v in values], higher_is_better))
    return rows


def try_import(name):
    """Import a peer framework, or return None (the caller prints a note)."""
    try:
        return importlib.import_module(name)
    except Exception:  # noqa: BLE001 -- any failure means "not usable here"
        return None


def missing(root, *paths):
    """The dotted attribute paths under `root` that cannot be resolved.

    `hasattr` is not enough: tapeflow.keras resolves members lazily and a
    piece that has not landed raises ImportError rather than AttributeError.
    """
    absent = []
    for path in paths:
        obj = root
        try:
            for part in path.split("."):
                obj = getattr(obj, part)
        except Exception:  # noqa: BLE001
            absent.append(path)
    return absent


def _blas_info():
    """BLAS name and version from threadpoolctl if present, else numpy's config."""
    try:
        from threadpoolctl import threadpool_info
        pools = [f"{p.get('internal_api')} {p.get('version')} ({p.get('num_threads')} threads)"
                 for p in threadpool_info() if p.get("user_api") == "blas"]
        if pools:
            return "; ".join(pools)
    except Exception:  # noqa: BLE001
        pass
    try:
        import numpy as np
        config = np.show_config(mode="dicts")
        blas = config["Build Dependencies"]["blas"]
        return f"{blas.get('name')} {blas.get('version')}"
    except Exception:  # noqa: BLE001
        return "unknown"


def _cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _version(*dists):
    """The version of the first of `dists` installed (TF ships as tensorflow or
    tensorflow-cpu), or None."""
    for dist in dists:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def machine_info():
    """What the numbers were measured on: cores, CPU, BLAS, versions, date."""
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    threads = {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                           "MKL_NUM_THREADS", "NUMBA_NUM_THREADS",
                                           "OPENBLAS_CORETYPE", "TAPEFLOW_MALLOC_TUNING")
               if k in os.environ}
    return {
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "cpu": _cpu_model(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "numpy": _version("numpy"),
        "numba": _version("numba"),
        "tapeflow": _version("tapeflow"),
        "blas": _blas_info(),
        "thread_env": threads,
        "peers": {"torch": _version("torch"),
                  "tensorflow": _version("tensorflow", "tensorflow-cpu"),
                  "jax": _version("jax")},
    }


def format_machine(info):
    peers = ", ".join(f"{k} {v}" for k, v in info["peers"].items() if v) or "none installed"
    return (f"{info['date']} | {info['cpu']} | {info['usable_cores']} of {info['cores']} cores"
            f" | BLAS: {info['blas']}\nPython {info['python']}, numpy {info['numpy']}, "
            f"numba {info['numba']}, tapeflow {info['tapeflow']} | peers: {peers}"
            + (f" | env: {info['thread_env']}" if info["thread_env"] else ""))


def _fmt(value):
    if value == 0:
        return "0"
    a = abs(value)
    if a >= 1000:
        return f"{value:,.0f}"
    if a >= 100:
        return f"{value:.1f}"
    if a >= 1:
        return f"{value:.3g}" if a < 10 else f"{value:.1f}"
    return f"{value:.3g}" if a >= 0.01 else f"{value:.2e}"


def _speed(row, ref):
    """How many times faster `row` is than `ref` (>1: faster), or None."""
    if ref is None or not row.ratio or not ref.ratio:
        return None
    a, b = row.median, ref.median
    if a <= 0 or b <= 0:
        return None
    return a / b if row.higher_is_better else b / a


def ratios(results):
    """Speed of each row relative to its case's NumPy and tapeflow rows."""
    firsts = {}
    for r in results:
        firsts.setdefault((r.workload, r.case, r.family), r)
    out = []
    for r in results:
        out.append((_speed(r, firsts.get((r.workload, r.case, "numpy"))),
                    _speed(r, firsts.get((r.workload, r.case, "tapeflow")))))
    return out


def format_table(results):
    """The one table: workload, implementation, median, min-max, both ratios."""
    header = ("workload", "implementation", "median", "min-max", "vs NumPy", "vs tapeflow")
    lines = []
    for r, (vs_np, vs_tf) in zip(results, ratios(results)):
        lines.append((f"{r.workload} {r.case}", r.impl, f"{_fmt(r.median)} {r.unit}",
                      f"{_fmt(min(r.samples))}-{_fmt(max(r.samples))}",
                      "-" if vs_np is None else f"{vs_np:.3g}x",
                      "-" if vs_tf is None else f"{vs_tf:.3g}x"))
    widths = [max(len(str(row[i])) for row in [header] + lines) for i in range(len(header))]
    sep = "-+-".join("-" * w for w in widths)

    def render(row):
        return " | ".join(str(c).ljust(w) if i < 2 else str(c).rjust(w)
                          for i, (c, w) in enumerate(zip(row, widths)))

    out, prev = [render(header), sep], None
    for row in lines:
        if prev is not None and row[0].split()[0] != prev:
            out.append(sep)
        prev = row[0].split()[0]
        out.append(render(row))
    return "\n".join(out)
