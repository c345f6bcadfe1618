"""calibration.py: which kernel runs is measured on the running machine, not
taken from constants measured on one CPU.

A decision (which GEMM for which shape class, or for a large product's own
shape; one thread or many for the parallel kernels) is made the first time it
is needed: its measurement, a function registered by the module that owns the
kernels (`register`), times
the candidates for a few milliseconds, and a decision function turns the
timings into choices (`faster`: the challenger must beat the default by
MARGIN, so noise keeps the default, and a BLAS that is faster everywhere is
used everywhere). Decisions are cached in the user cache directory
(`user_cache_dir`, the one jit.py gives Numba's cache: $XDG_CACHE_HOME or
~/.cache, then tapeflow/) under a key naming the CPU model and generation
(`cpu_generation`: one model string may name several), its L2 cache, the usable
cores, the versions of numpy, numba and the BLAS, and the OpenMP runtime loaded
before tapeflow's (a process with PyTorch imported first measures for
itself); a changed key measures anew, a corrupt file is ignored and
rewritten, atomically (atomic_files.py). A measurement taken while other
processes keep the cores busy (`machine_busy`), or whose repeats spread too
widely to trust (`spread`: another process took the cores in the middle of
it, before the load average shows it), or whose outcome its measurement calls
too close to decide for good (`unsure`), is used by its process but not cached:
a passing load must not decide for good. Nor does one quiet measurement: a
decision is cached for good once two processes' measurements agree (or after
three, the latest), and until then the next process measures again (a single
measurement on the Intel Xeon of 2026-12-07 had cached Adam's update on one
thread, 10% faster there; six fresh processes then measured all threads
1.6-1.9x faster). Nothing runs at `import tapeflow`: this module imports
neither numba nor a kernel.

`choices()` returns what was decided and on which machine
(tf.config.experimental.get_kernel_choices()); `force(name, value)` and the
`forced(...)` context manager override a decision without the environment
(tests, or a user who knows better); `force(name, None)` lifts it.
"""

import contextlib
import hashlib
import json
import os
import platform
import statistics
import tempfile
import threading

from . import openmp
from .atomic_files import atomic_write

__all__ = ["MARGIN", "cache_path", "choice", "choices", "cpu_generation", "cpu_model",
           "decide_all", "faster", "force", "forced", "forced_choice", "forget", "identity",
           "known", "l2_cache_bytes", "machine_busy", "numpy_blas", "parallel_at", "register",
           "smallest_parallel_size", "spread", "time_calls", "unsure", "usable_cpus",
           "user_cache_dir"]

MARGIN = 0.05  # a challenger must be this much faster than the default to be chosen
_FORMAT = 1  # the cache file's layout; a file of another layout is measured anew
_KEPT = 8  # machine keys kept in the file (e.g. with and without torch imported first)
# Decisions for one product's shape ('gemm MxKxN': named with a space) kept per key, the
# newest: every model's shapes added up (a file of ~200 had grown over a few days' tests).
_KEPT_SHAPES = 256

SPREAD = 2.0  # a candidate's upper quartile over its lower one beyond which timings are noise
_AGREEING, _VOTES = 2, 3  # measurements that must agree for a cached decision; at most taken
_measurements = {}  # decision name -> measure(): (choice, details)
_spreads = []  # why the measurement running now is not to be cached (spread, unsure)
_decided = {}  # decision name -> (choice, details), for this process's key
_forced = {}  # decision name -> choice set by force()
_lock = threading.RLock()


def user_cache_dir(name, environ=os.environ):
    """tapeflow's writable cache folder `name` under $XDG_CACHE_HOME (else
    ~/.cache), else under the temporary directory. Reads environ, never writes."""
    path = os.path.join(environ.get("XDG_CACHE_HOME")
                        or os.path.join(os.path.expanduser("~"), ".cache"), "tapeflow", name)
    try:
        os.makedirs(path, exist_ok=True)
        tempfile.NamedTemporaryFile(dir=path).close()
        return path
    except OSError:
        return os.path.join(tempfile.gettempdir(), f"tapeflow-{name}-cache")


def cache_path(environ=os.environ):
    """The file the decisions are cached in."""
    return os.path.join(user_cache_dir("calibration", environ), "kernel_choices.json")


def usable_cpus():
    """The CPUs this process may run on: its affinity mask where the OS has one
    (a container or `taskset` limits it below os.cpu_count()), else the count."""
    try:
        return len(os.sched_getaffinity(0)) or 1
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def cpu_model():
    """The CPU's model string (/proc/cpuinfo's 'model name' on Linux)."""
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.lower().startswith(("model name", "cpu model", "hardware")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


_CPUINFO_FIELDS = ("vendor_id", "cpu family", "model", "stepping")


def cpu_generation(path="/proc/cpuinfo"):
    """What tells CPUs of one model string apart: /proc/cpuinfo's vendor, family,
    model and stepping, and a digest of its flags (the instruction sets), or ''
    where there is no such file. A virtual machine may name AMD's Zen 3, Zen 4
    and Zen 5 all 'AMD EPYC' (seen on this project's machines), whose decisions
    differ: the model string alone would carry one CPU's choices to another."""
    found = {}
    try:
        with open(path) as info:
            for line in info:
                name, _, value = line.partition(":")
                name = name.strip().lower()
                if not name:
                    break  # the first processor's block ends
                if name in _CPUINFO_FIELDS or name == "flags":
                    found.setdefault(name, value.strip())
    except OSError:
        return ""
    if not found:
        return ""
    flags = hashlib.sha1(" ".join(sorted(found.get("flags", "").split())).encode())
    return " ".join([*(found.get(field, "?") for field in _CPUINFO_FIELDS),
                     f"flags {flags.hexdigest()[:12]}"])


_SIZE_UNITS = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def l2_cache_bytes(root="/sys/devices/system/cpu/cpu0/cache", default=1 << 20):
    """One core's level-2 data cache in bytes, as Linux's sysfs describes it,
    else `default` (1 MB: AMD Zen 4's, and about Intel's recent cores')."""
    try:
        for index in sorted(os.listdir(root)):
            folder = os.path.join(root, index)
            with open(os.path.join(folder, "level")) as f:
                level = f.read().strip()
            with open(os.path.join(folder, "type")) as f:
                kind = f.read().strip()
            if level == "2" and kind in ("Unified", "Data"):
                with open(os.path.join(folder, "size")) as f:
                    size = f.read().strip()
                return int(size[:-1]) * _SIZE_UNITS[size[-1]] if size[-1] in _SIZE_UNITS \
                    else int(size)
    except (OSError, ValueError, IndexError):  # IndexError: an empty size file
        pass
    return default


def _version(package):
    import importlib.metadata  # here: 18 ms of `import tapeflow`'s first fit, for the kernels only
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "none"


def numpy_blas():
    """The BLAS NumPy was built with, as 'name version' (its build config)."""
    try:
        import numpy
        blas = numpy.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{blas.get('name', 'unknown')} {blas.get('version', '')}".strip()
    except Exception:  # noqa: BLE001 -- an older NumPy without mode="dicts"
        return "unknown"


def identity():
    """What the decisions depend on; a change of any value measures anew."""
    return {"cpu": cpu_model(), "cpu_generation": cpu_generation(), "cores": usable_cpus(),
            "l2": l2_cache_bytes(), "numpy": _version("numpy"),
            "numba": _version("numba"), "blas": numpy_blas(),
            "openmp_before": openmp.loaded_before_numba()}


def _key(ident):
    return json.dumps(ident, sort_keys=True)


def machine_busy():
    """Why a measurement taken now is not cached ('' when it may be): other
    processes keep the usable cores busy (the load average reaches their count),
    so timings, the threads' above all, say more about them than about the CPU."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        return ""
    cores = usable_cpus()
    return f"measured while busy: load average {load:.1f} on {cores} cores" if load >= cores else ""


def spread(timings, limit=SPREAD):
    """'' when every candidate's repeats agree, else what varied: a candidate's
    upper quartile over `limit` times its lower one (4 repeats or more). Also
    noted for the measurement running now, which is then not cached."""
    wide = []
    for name, times in timings.items():
        if len(times) >= 4:
            low, _, high = statistics.quantiles(times, n=4)
            if high > limit * low:
                wide.append(f"{name} {low * 1e6:.0f}-{high * 1e6:.0f} us")
    note = f"repeats spread too widely: {', '.join(wide)}" if wide else ""
    if note:
        _spreads.append(note)
    return note


def unsure(why):
    """Note that the measurement running now came out too close to decide for
    good (`why`): its decision is used by this process and not cached, so that
    the next process measures again, as after a wide `spread`."""
    _spreads.append(why)


def register(name, measure, version=1):
    """Have `measure()` -> (choice, details) decide `name` when it is first
    needed; a cached decision of another `version` (of the measurement's code)
    is measured anew."""
    _measurements[name] = (measure, version)


def faster(timings, default, margin=MARGIN):
    """The candidate to use given `timings` ({candidate: [seconds, ...]}): the
    fastest by median, if it beats `default`'s median by more than `margin`,
    else `default`."""
    medians = {name: statistics.median(times) for name, times in timings.items() if times}
    best = min(medians, key=medians.get)
    if best != default and default in medians and medians[best] >= medians[default] * (1 - margin):
        return default
    return best


def smallest_parallel_size(sizes, timings_at, margin):
    """(the smallest of `sizes` (ascending) from which a kernel on all threads
    ('many') beats it on one ('one') by `margin`, there and at every larger size,
    or "one"; {str(size): medians}). `timings_at(size)` gives time_calls'
    timings of both; measured from the largest size down, up to the first loss.
    All threads faster at the largest size by less than the margin (in about one
    fresh process in eight on a Zen 4 they won only 1.1x there, 1.7x in the
    others) is `unsure`: a cached "one" would keep the kernel on one thread for
    good, so the next process measures again."""
    details, start = {}, "one"
    for size in reversed(sizes):
        timings = timings_at(size)
        medians = details[str(size)] = {k: statistics.median(t) for k, t in timings.items()}
        if faster(timings, default="one", margin=margin) != "many":
            if size == sizes[-1] and medians["many"] < medians["one"]:
                unsure(f"all threads {medians['one'] / medians['many']:.2f}x as fast at "
                       f"{size} elements, under the margin")
            break
        start = size
    return start, details


def parallel_at(name, size, smallest):
    """Whether a kernel call touching `size` elements runs on all threads by the
    size decision `name` (smallest_parallel_size's: a size or "one"). A call below
    `smallest`, the least size measured, never asks for the decision (toy programs
    measure nothing) unless it is forced."""
    if size < smallest and forced_choice(name) is None:
        return False
    start = choice(name)
    return start != "one" and size >= start


def time_calls(candidates, repeats, before=None, budget=None, clock=None):
    """{name: [seconds, ...]}: each candidate (name -> callable) called `repeats`
    times after a first untimed call of each and one warm-up round, the
    candidates taking turns, so that each
    call follows other work as a call in a training step does; `before()`,
    untimed, runs before every call (e.g. a BLAS product, whose workers may
    spin). With a `budget` (seconds), fewer rounds when the warm-up round shows
    that `repeats` would take longer, none when one round takes longer than
    the budget: the warm-up's times are then the measurement (on a loaded
    machine a threaded BLAS call can take 100 ms instead of 1)."""
    import time
    clock = clock or time.perf_counter

    def one_round(timings):
        for name, call in candidates.items():
            if before is not None:
                before()
            start = clock()
            call()
            timings[name].append(clock() - start)
        return timings

    for call in candidates.values():
        call()  # untimed: a first call's compile or cache load is not its speed
    started = clock()
    warm = one_round({name: [] for name in candidates})
    if budget is not None:
        round_time = clock() - started  # `before` included
        repeats = min(repeats, int(budget / round_time)) if round_time > 0 else repeats
        if repeats < 1:  # one round over the whole budget: the machine is busy, or very slow
            _spreads.append(f"one round took {round_time * 1e3:.0f} ms, over the "
                            f"{budget * 1e3:.0f} ms budget")
            return warm
    timings = {name: [] for name in candidates}
    for _ in range(repeats):
        one_round(timings)
    spread(timings)
    return timings


def _read(path):
    """The cache file's entries ({key: {name: [choice, details]}}), {} when
    absent, unreadable or of another layout."""
    try:
        with open(path) as f:
            data = json.load(f)
        entries = data["entries"] if data.get("format") == _FORMAT else {}
        return {k: v for k, v in entries.items() if isinstance(v, dict)}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _write(path, entries):
    kept = dict(list(entries.items())[-_KEPT:])
    text = json.dumps({"format": _FORMAT, "entries": kept}, indent=1)  # (in their order)
    try:
        atomic_write(path, lambda f: f.write(text.encode()))
    except OSError:
        pass  # an unwritable cache measures again next time


def _cached(entry, name):
    """The cached (choice, details, votes) of `name` when its version is current,
    else None; `votes`, the choices measured so far (an entry written before
    votes were kept counts as one)."""
    value = entry.get(name)
    version = _measurements.get(name, (None, 1))[1]
    if isinstance(value, list) and len(value) in (3, 4) and value[2] == version:
        votes = value[3] if len(value) == 4 and isinstance(value[3], list) else [value[0]]
        return value[0], value[1], votes
    return None


def _settled(votes):
    """Whether measuring again could change a decision with these votes."""
    return len(votes) >= _VOTES or any(votes.count(v) >= _AGREEING for v in votes)


def choice(name):
    """The decision `name`: forced, else decided in this process, else read
    from the cache, else measured now (and cached)."""
    if name in _forced:
        return _forced[name]
    found = _decided.get(name)
    if found is not None:
        return found[0]
    with _lock:
        if name in _forced:
            return _forced[name]
        if name not in _decided:
            _decided[name] = _decide(name)
        return _decided[name][0]


def known(name):
    """Whether `name` is forced, decided in this process or cached for this
    machine: whether `choice(name)` can answer without measuring."""
    if name in _forced or name in _decided:
        return True
    cached = _cached(_read(cache_path()).get(_key(identity()), {}), name)
    return cached is not None and _settled(cached[2])


def _decide(name):
    path, key = cache_path(), _key(identity())
    entries = _read(path)
    cached = _cached(entries.get(key, {}), name)
    if cached is not None and _settled(cached[2]):
        return cached[:2]
    if name not in _measurements:
        raise KeyError(f"no kernel decision named {name!r}; known: {sorted(_measurements)}")
    measure, version = _measurements[name]
    del _spreads[:]
    choice_made, details = measure()
    busy = machine_busy() or "; ".join(_spreads)
    if busy:  # good for this process; a quiet machine's next process measures again
        return choice_made, {**details, "not cached": busy}
    decided = (choice_made, details)
    entries = _read(path)  # another process may have written meanwhile
    entry = entries.pop(key, {})
    before = _cached(entry, name)
    votes = ([] if before is None else before[2])[-(_VOTES - 1):] + [choice_made]
    entry.pop(name, None)
    # last: the file keeps the order decisions were made in
    entry[name] = [*decided, version, votes]
    for old in [n for n in entry if " " in n][:-_KEPT_SHAPES]:
        del entry[old]
    entries[key] = entry
    _write(path, entries)
    return tuple(decided)


def decide_all():
    """Make every registered decision not made yet; choices()."""
    for name in list(_measurements):
        choice(name)
    return choices()


def choices():
    """{'machine': identity(), 'decisions': {name: choice}, 'details': {name:
    what was measured}, 'forced': {name: choice}}, for the decisions made so far."""
    with _lock:
        return {"machine": identity(),
                "decisions": {**{n: d[0] for n, d in _decided.items()}, **_forced},
                "details": {n: d[1] for n, d in _decided.items()},
                "forced": dict(_forced)}


def forced_choice(name):
    """The value `force` set for decision `name`, or None."""
    return _forced.get(name)


def force(name, value):
    """Use `value` for decision `name` from now on; None lifts it (the measured
    or cached decision applies again)."""
    with _lock:
        if value is None:
            _forced.pop(name, None)
        else:
            _forced[name] = value


@contextlib.contextmanager
def forced(**values):
    """Force decisions for the block only: `with forced(threads="one"): ...`."""
    with _lock:
        saved = {name: _forced.get(name) for name in values}
        for name, value in values.items():
            force(name, value)
    try:
        yield
    finally:
        with _lock:
            for name, value in saved.items():
                force(name, value)


def forget():
    """Drop this process's decisions (not the file's, not the forced ones)."""
    with _lock:
        _decided.clear()
