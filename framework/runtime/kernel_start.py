"""kernel_start.py decides when tapeflow's Numba kernels start: not at import,
and not for a short program.

Starting them costs a process the import of runtime/jit.py (Numba, its
threading layer) and Numba's compiler context, which a function loaded from
the disk cache needs as much as a compiled one: about 0.5 s on a Zen 4, and
0.25 s more at exit, when the interpreter's last garbage collections walk
Numba's ~100,000 objects. That was 0.75 s of the 1.15 s of a first fit of a
few steps (benchmarks' W5), all of whose work NumPy does in 10 ms.

So an op that has a kernel and a NumPy formula for the same result (a ReLU's
gradient mask, a bias add, the fused softmax cross-entropy, an optimizer's
update, an embedding's gradient) runs the formula until the formulas have
processed START_AFTER elements in the process, then starts the kernels; a
traced graph's replays count too (NODE_ELEMENTS an op), and its compiled code
waits for the start (compiler/native.py). Matrix products run on NumPy's BLAS
until then, not counted: BLAS is their full speed. What needs a kernel starts
them at once: a convolution, a pooling, a recurrent layer, CTC,
`jit_compile=True`, `tf.config.experimental.get_kernel_choices()`, an MPI
world of several ranks (whose replicas must switch at one step), any import of
runtime/jit.py.

The count is of work, not of seconds, so that a program that runs its ops in
one thread runs the same ops, and gives the same bits, in every run. The
formulas' last bits may differ from the kernels' (NumPy's exp and Numba's
differ, an optimizer's kernel contracts its multiply-adds, a product may take
tapeflow's GEMM), so a run resumed in a new process begins with other bits
than the straight run had there; under
`tf.config.experimental.enable_op_determinism()` the kernels start at the next
op that has a formula.

This module imports nothing heavy: asking it costs an op a function call."""

from .settings import user_setting

__all__ = ["NODE_ELEMENTS", "START_AFTER", "replayed", "start", "started", "use_kernel"]

# Elements through the formulas after which the kernels start: a little before
# the formulas have cost a process what starting Numba does. Numba's start is ~0.75 s on a Zen 4 (its
# import and threads 0.2-0.4 s, its compiler context at the first kernel ~0.3 s,
# 0.25 s at exit). W2's MLP (784-512-256-10, batch 128, Adam) puts 637,000
# elements a step through the formulas, each step ~1.3 ms slower than on the
# kernels (one epoch, 469 steps, in fresh processes: 3.53 s against 3.12 s with
# the kernels from the first step, medians of 6 pairs), ~2 ns an element: the
# break-even is ~3.5e8 elements; 2e8 is 0.4 s of formulas there, so a program that
# stops before it never pays the 0.75 s, and one that runs on pays the 0.4 s once.
# Both costs are
# mostly the interpreter's and NumPy's work on one core, so on another CPU they
# move together and the count keeps its meaning.
START_AFTER = 200_000_000

# What a traced graph's replayed op counts as: its dispatch by the executor (~1 us)
# is what compiling the graph saves, and ~500 elements cost the formulas that much
# more than the kernels (~2 ns each, above). A W1 step (13 ops) replayed at ~14 us
# a call then starts the kernels after ~31,000 calls, ~0.43 s of replays.
NODE_ELEMENTS = 500

_started = False
_elements = [0]  # through the formulas so far


def started():
    """Whether the kernels have started (`start`)."""
    return _started


def use_kernel(size):
    """Whether an op that could run `size` elements on a kernel does: yes once the
    kernels have started; else its formula runs, counted toward START_AFTER, and
    the call that reaches it starts them (and runs its kernel)."""
    if _started:
        return True
    _elements[0] += size
    if _elements[0] < START_AFTER and not user_setting("op_determinism"):
        return False
    start()
    return True


def replayed(nodes):
    """Count a replay of a traced graph of `nodes` top-level ops (a loop counts
    as one) toward the start, until it: its compiled code waits for the kernels
    (compiler/native.py)."""
    use_kernel(nodes * NODE_ELEMENTS)


def start():
    """From now on every op with a kernel runs it; Numba loads at the first
    (runtime/jit.py, whose import calls this too)."""
    global _started
    _started = True
