"""native.py runs a traced graph as one generated Numba function (codegen.py)
once that pays, and checks it before trusting it.

Each graph moves through tiers, one call at a time:
- replay: the executor runs it (executor.run_arrays), timing the calls;
- probe: a replay that also records every slot's dtype and shape, then the
  source is generated and written to the user cache directory (named by its
  hash, so a later process finds it and Numba's on-disk cache beside it);
- check: the compiled function runs on copies of every array it writes, the
  executor runs for real, and the two must agree (exactly for integers and
  booleans, to a few thousand ulps for floats, since Numba's transcendental
  functions may round differently from NumPy's); then
- native: every later call runs the compiled function.
A graph that cannot be lowered whole (lowering.py names the node) runs
partly compiled ('partial'): segments.py generates each run of lowerable nodes
as one function, each checked alone, and the executor replays the rest; a graph
without such a run, or one that fails the check, stays on the executor for good.

When: with `jit_compile=True`, from the first replay (the probe; the check
at the next call, compiled code from the one after); with False, never; by
default (None), once the kernels have started (runtime/kernel_start.py, which
the replays count toward), when compiling is cheap (the compiled code is
already in the disk cache) or once the time spent replaying the graph, in this
process and this machine's earlier ones (replay_ledger.py: the compiled code
is cached per machine), exceeds what a compile measured in this process (0.5 s
until one has been measured): a graph called rarely never pays Numba's compile
time, one called often is compiled early.
"""

import atexit
import hashlib
import importlib.util
import os
import sys
import threading
import time
import warnings

import numpy as np

from ..core import record as _record
from ..runtime import calibration, kernel_start
from ..runtime.atomic_files import atomic_write
from ..runtime.kernel_sources import PROCESS_TAG, kernel_sources
from . import codegen, replay_ledger, segments
from .executor import run_arrays
from .lowering import Unlowerable

__all__ = ["Tier", "native_state"]

_REPLAY, _PROBE, _CHECK, _NATIVE, _OFF = "replay", "probe", "check", "native", "off"
_PARTIAL = "partial"  # run by the executor, with compiled segments (segments.py)
_compile_seconds = []  # compile times measured in this process
_FIRST_GUESS = 0.5  # seconds, until one compile has been measured
_lock = threading.Lock()
_loaded = {}  # module stem -> its Numba function, loaded once per process
_spent = {}  # module stem -> seconds spent replaying graphs of that source, this process
_HEADER = ("import numpy as np\nfrom tapeflow.kernels import optimizers as optimizer_kernels\n"
           "from tapeflow.kernels import reductions as reduction_kernels\n"
           "from tapeflow.runtime.jit import njit\n\n\n"
           "@njit(cache=True, error_model=\"numpy\")\n")  # x / 0: inf, as NumPy


class Tier:
    """Where one graph runs (see the module docstring); `graph.tier` holds it."""

    __slots__ = ("cached", "compiled", "function_name", "graph", "jit_compile",
                 "module", "partial", "reason", "source", "spent", "state")

    def __init__(self, graph, jit_compile, function_name):
        self.graph = graph
        self.jit_compile = jit_compile
        self.function_name = function_name
        self.state = _OFF if jit_compile is False else _PROBE if jit_compile else _REPLAY
        self.spent = 0.0  # seconds spent replaying
        self.source = self.module = self.compiled = self.reason = self.partial = None
        self.cached = False

    def run(self, arrays):
        state = self.state
        if state is _NATIVE:
            return self._native(arrays)
        if state is _PARTIAL:
            return run_arrays(self.partial, arrays)
        if state is _OFF:
            return run_arrays(self.graph, arrays)
        if state is _REPLAY:
            start = time.perf_counter()
            values = run_arrays(self.graph, arrays)
            elapsed = time.perf_counter() - start
            kernel_start.replayed(len(self.graph.nodes))  # toward the start (`_pays`)
            if self.module is None:
                self.spent += elapsed
                self.state = _PROBE  # the next call: generating the source is cheap
            else:  # counted per source: new functions of the same code add up
                if self._pays(_count(self.module.stem, elapsed)):
                    self.state = _CHECK
            return values
        with _lock:
            if self.state is _PROBE:
                return self._probe(arrays)
            if self.state is _CHECK:
                return self._check(arrays)
        return self.run(arrays)

    def run_keeping(self, arrays):
        """run, for a graph traced with its GradientTape: the forwards keep what their
        backward in the graph reads (record.replaying: a convolution's columns)."""
        _record.replaying.append(self.graph)
        try:
            return self.run(arrays)
        finally:
            _record.replaying.remove(self.graph)

    # -- the tiers ----------------------------------------------------------------
    def _probe(self, arrays):
        probe = codegen.Probe()
        values = run_arrays(self.graph, arrays, probe)
        try:
            self.source = codegen.generate(self.graph, probe, exact=not self.jit_compile)
        except Unlowerable as why:
            self.partial = segments.split(self.graph, probe, _Module, self._agree,
                                          _compile_seconds.append,
                                          None if self.jit_compile else _segment_pays,
                                          exact=not self.jit_compile)
            self._give_up(f"it has {why}")
            if self.partial is None:
                return values
            self.module = _Segments(self.partial)
        else:
            self.module = _Module(self.source)
        self.cached = self.module.compiled_already()
        spent = _count(self.module.stem, self.spent)
        self.state = _CHECK if self.jit_compile or self._pays(spent) else _REPLAY
        return values

    def _pays(self, spent):
        """Whether compiling the graph, or loading it from the disk cache, pays now
        that replaying it has cost `spent` seconds; never before the kernels have
        started (runtime/kernel_start.py). Loading the code starts them, and a start
        set by the clock would change the other ops' bits at a different step in
        each run; until then each replay counts toward the start (`replayed`)."""
        return kernel_start.started() and (self.cached or spent > _compile_estimate())

    def _check(self, arrays):
        if self.partial is not None:  # each segment checks itself at its first run
            self.state = _PARTIAL
            return run_arrays(self.partial, arrays)
        source = self.source
        if not segments.runs_on(source, arrays, [v._value for v in source.variables]):
            return run_arrays(self.graph, arrays)  # checked at a later call, on C-ordered arrays
        copies = [np.array(v._value, copy=True) for v in source.variables]
        start = time.perf_counter()
        try:
            self.compiled = self.module.function()
            mine = self.compiled(*segments.arguments(source, arrays, copies))
        except Exception as error:  # a typing error of Numba's: the graph stays replayed
            self._give_up(f"Numba could not compile it ({type(error).__name__}: "
                          f"{str(error).splitlines()[0] if str(error) else ''})")
            return run_arrays(self.graph, arrays)
        if not self.cached:
            _compile_seconds.append(time.perf_counter() - start)
        values = run_arrays(self.graph, arrays)
        finals = [v._value for v in source.variables]
        outputs = [values[slot] for slot, _, _ in source.outputs]
        mine = [np.asarray(value, dtype) if scalar else value  # Numba returns Python scalars
                for (_, dtype, scalar), value in zip(source.outputs, mine)]
        if all(self._agree(a, b) for a, b in zip(mine + copies, outputs + finals)):
            self.state = _NATIVE
        else:
            self._give_up("its compiled code disagreed with the executor")
        return values

    def _native(self, arrays):
        source = self.source
        variables = [v._value for v in source.variables]
        if not segments.runs_on(source, arrays, variables):
            return run_arrays(self.graph, arrays)
        results = self.compiled(*segments.arguments(source, arrays, variables))
        values = [None] * self.graph.size
        for (slot, dtype, scalar), value in zip(source.outputs, results):
            values[slot] = np.asarray(value, dtype) if scalar else value
        return values

    def _agree(self, mine, theirs):
        """Exact agreement unless the user asked for jit_compile=True (_agree)."""
        return _agree(mine, theirs, exact=not self.jit_compile)

    def _give_up(self, why):
        self.state = _OFF
        self.reason = why
        if self.jit_compile:
            how = "on the executor, not as compiled code" if self.partial is None else \
                "on the executor with compiled segments, not as one compiled function"
            warnings.warn(f"tapeflow.function: {self.function_name} was given jit_compile=True, "
                          f"but its graph runs {how}: {why}.", stacklevel=6)


def _segment_pays(stem, elapsed):
    """Whether replaying the segments of code `stem` (in any graph) has now cost
    what compiling it is expected to (counted per source, as whole graphs are)."""
    return _count(stem, elapsed) > _compile_estimate()


def _count(stem, elapsed):
    """Seconds replaying code `stem` has cost on this machine, `elapsed` now
    added: this process's (written to the ledger at exit) and earlier ones'."""
    if not _saving:
        with _saving_lock:  # (not _lock: _probe counts while holding it)
            if not _saving:
                _saving.append(atexit.register(_save_spent))
    spent = _spent[stem] = _spent.get(stem, 0.0) + elapsed
    return spent + replay_ledger.earlier(stem)


_saving = []  # the exit handler, once registered
_saving_lock = threading.Lock()


def _save_spent():
    replay_ledger.save(_spent)


def _compile_estimate():
    """What compiling one more graph is expected to cost, from this process's compiles."""
    if not _compile_seconds:
        return _FIRST_GUESS
    ordered = sorted(_compile_seconds)
    return ordered[len(ordered) // 2]


def native_state(graph):
    """(tier, reason) of a graph: 'replay', 'probe', 'check', 'native', 'partial' or 'off'."""
    tier = getattr(graph, "tier", None)
    return (tier.state, tier.reason) if tier is not None else (_REPLAY, None)


def _agree(mine, theirs, exact=True):
    """Whether generated code gave the replay's values: bit for bit (NaNs where it
    has NaNs) when `exact`, so that a step's result never depends on whether, or
    from which call on, its graph runs generated code (a model resumed from a
    checkpoint replays its first steps where the straight run ran compiled; a
    fused Adam loop compiled without the kernel's FMA contraction, or Numba's exp,
    differ in the last bit). Within 4096 ulps of the values' scale otherwise:
    what `jit_compile=True` accepts, as XLA's compiled code may change numerics in TF."""
    mine, theirs = np.asarray(mine), np.asarray(theirs)
    if mine.shape != theirs.shape or mine.dtype != theirs.dtype:
        return False
    if exact or theirs.dtype.kind not in "fc":
        if not np.array_equal(mine, theirs, equal_nan=theirs.dtype.kind in "fc"):
            return False
        zeros = theirs == 0  # equal as numbers, -0.0 and +0.0 differ in their bits
        return theirs.dtype.kind != "f" or np.array_equal(np.signbit(mine[zeros]),
                                                          np.signbit(theirs[zeros]))
    tolerance = 4096 * np.finfo(theirs.dtype).eps
    scale = max(1.0, float(np.max(np.abs(theirs), initial=0.0)))
    return np.allclose(mine, theirs, rtol=tolerance, atol=tolerance * scale, equal_nan=True)


def _kernels_line():
    """The first line of a generated module: the digest of tapeflow's kernel sources,
    whose functions the module calls and Numba compiles into it (an optimizer's fused
    kernel), so that a module compiled before an edit of them is not loaded after it
    (Numba's stamp covers the module's own file only; runtime/kernel_sources.py)."""
    try:
        return f"# tapeflow kernels {kernel_sources()}\n"
    except OSError:
        return f"# tapeflow kernels unreadable in process {PROCESS_TAG}\n"


class _Module:
    """The file a Source is written to, named by the hash of its text, and its function."""

    def __init__(self, source):
        self.text = _kernels_line() + _HEADER + source.text
        self.stem = "graph_" + hashlib.sha1(self.text.encode()).hexdigest()[:24]
        self.directory = calibration.user_cache_dir("functions")

    def compiled_already(self):
        """Loaded in this process, or in Numba's disk cache (its index beside the file)."""
        if self.stem in _loaded:
            return True
        cache = os.path.join(self.directory, "__pycache__")
        return os.path.isdir(cache) and any(
            name.startswith(self.stem + ".") and name.endswith(".nbi")
            for name in os.listdir(cache))

    def function(self):
        """The Numba function (compiled at its first call, or loaded from the disk cache)."""
        function = _loaded.get(self.stem)
        if function is not None:
            return function
        path = os.path.join(self.directory, self.stem + ".py")
        if not os.path.exists(path):
            atomic_write(path, lambda f: f.write(self.text.encode()))
        spec = importlib.util.spec_from_file_location(f"tapeflow_{self.stem}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # Numba's disk cache finds the globals through it
        spec.loader.exec_module(module)
        function = _loaded[self.stem] = module.graph_function
        return function


class _Segments:
    """A partial graph's segment files, seen as one for the tier's bookkeeping."""

    def __init__(self, partial):
        self.modules = [segment.module for segment in segments.segments_of(partial)]
        self.stem = "segments_" + "_".join(module.stem[6:14] for module in self.modules)

    def compiled_already(self):
        return all(module.compiled_already() for module in self.modules)
