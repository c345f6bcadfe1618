"""world.py is tapeflow's one door to MPI: which rank this process is, how many
there are, and the communicator. mpi4py is imported only when a strategy asks
for it; a process not started by mpiexec is a world of one, so the same script
runs everywhere. Under several ranks, an exception nobody catches aborts the
whole job (MPI_Abort) after printing the rank and the traceback, so a crash on
one rank never leaves the others waiting in a collective."""

import os
import sys
import threading
import traceback

from ..runtime import kernel_start

__all__ = ["World", "world", "launched_ranks"]

# Set by mpiexec/srun/orterun in every rank (MPICH's Hydra, Open MPI, Slurm, PMIx).
_SIZE_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "SLURM_NTASKS",
                   "MPI_LOCALNRANKS")
_INSTALL = "pip install 'tapeflow[mpi]'"


def launched_ranks():
    """How many ranks the launcher says the job has (1 when not launched by one)."""
    for name in _SIZE_VARIABLES:
        value = os.environ.get(name)
        if value and value.isdigit() and int(value) > 1:
            return int(value)
    return 1


class World:
    """rank, size and the mpi4py communicator (None in a world of one)."""

    def __init__(self, comm):
        self.comm = comm
        self.rank = comm.Get_rank() if comm is not None else 0
        self.size = comm.Get_size() if comm is not None else 1

    @property
    def is_chief(self):
        return self.rank == 0

    def abort(self, code=1):
        if self.comm is not None:
            self.comm.Abort(code)


_world = None
_lock = threading.Lock()


def world():
    """The World of this process, made on first use."""
    global _world
    if _world is None:
        with _lock:
            if _world is None:
                _world = _make_world()
    return _world


def _make_world():
    try:
        from mpi4py import MPI
    except ImportError as error:
        ranks = launched_ranks()
        if ranks > 1:
            raise ImportError(f"This process is one of {ranks} ranks started by an MPI launcher, "
                              f"but mpi4py is not installed: {_INSTALL} (it brings mpi4py and "
                              "MPICH).") from error
        return World(None)  # not launched by mpiexec: one replica, no MPI needed
    comm = MPI.COMM_WORLD
    made = World(comm)
    if made.size > 1:
        _abort_on_uncaught(made)
        # Replicas apply the same updates with the same code: a rank whose ops count
        # differently (an evaluation shard a batch longer) would start its kernels
        # at another step, and its weights would part from the others' in the last
        # bits (runtime/kernel_start.py).
        kernel_start.start()
    return made


def _abort_on_uncaught(made):
    """An uncaught exception on any rank ends the job with its rank in the message."""
    previous = sys.excepthook

    def hook(kind, value, tb):
        sys.stderr.write(f"tapeflow: rank {made.rank} of {made.size} raised; aborting the job.\n")
        sys.stderr.write("".join(traceback.format_exception(kind, value, tb)))
        sys.stderr.flush()
        made.abort(1)
        previous(kind, value, tb)

    def thread_hook(args):
        hook(args.exc_type, args.exc_value, args.exc_traceback)

    sys.excepthook = hook
    threading.excepthook = thread_hook
