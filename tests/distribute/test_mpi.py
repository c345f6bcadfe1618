"""Data-parallel training under `mpiexec` (issue 21): N ranks end where one process
training on the global batch ends, for fit (Dense, Conv2D, Embedding; shuffled and
not; a short last batch that leaves some ranks an empty shard), evaluate, predict
and a custom `strategy.run` loop; a rank that raises ends the job with its message.
Skipped with a note where the MPI extra is not installed (pip install 'tapeflow[mpi]')."""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

PROGRAM = Path(__file__).with_name("mpi_program.py")
MPIEXEC = shutil.which("mpiexec")

try:
    import mpi4py  # noqa: F401
    HAVE_MPI = MPIEXEC is not None
except ImportError:
    HAVE_MPI = False

pytestmark = pytest.mark.skipif(not HAVE_MPI, reason=(
    "the MPI extra is not installed: pip install 'tapeflow[mpi]' (mpi4py and MPICH)"))


def _run(ranks, mode, kind, shuffle, out, timeout=240):
    command = [sys.executable, str(PROGRAM), mode, kind, "1" if shuffle else "0", str(out)]
    if ranks > 1:
        command = [MPIEXEC, "-n", str(ranks)] + command
    env = dict(os.environ, OMP_NUM_THREADS="1")  # ranks share the cores
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)


_references = {}


def _reference(tmp_path_factory, mode, kind, shuffle):
    key = (mode, kind, shuffle)
    if key not in _references:
        out = tmp_path_factory.mktemp("reference") / "one.npz"
        done = _run(1, mode, kind, shuffle, out)
        assert done.returncode == 0, done.stderr
        _references[key] = dict(np.load(out))
    return _references[key]


@pytest.mark.parametrize("ranks, mode, kind, shuffle", [
    (2, "fit", "dense", True), (4, "fit", "dense", True), (2, "fit", "dense", False),
    (2, "fit", "conv", False), (2, "fit", "embedding", True), (2, "loop", "dense", False),
    (2, "fit", "syncbn", True),
])
def test_ranks_end_where_one_process_on_the_global_batch_ends(tmp_path, tmp_path_factory,
                                                               ranks, mode, kind, shuffle):
    out = tmp_path / "ranks.npz"
    done = _run(ranks, mode, kind, shuffle, out)
    assert done.returncode == 0, done.stderr
    got, want = dict(np.load(out)), _reference(tmp_path_factory, mode, kind, shuffle)
    assert sorted(got) == sorted(want)
    for key in want:
        # float32 sums in another order: a few ulps after 12 Adam steps
        np.testing.assert_allclose(got[key], want[key], rtol=2e-5, atol=2e-6, err_msg=key)
    if mode == "fit":
        assert {"log_loss", "log_accuracy", "log_val_loss", "log_evaluate_loss",
                "log_predict"} <= set(got)
        assert got["log_predict"].shape == (42, 3)  # every row, in the global order


def test_a_rank_that_raises_ends_the_job_with_its_rank_and_message(tmp_path):
    start = time.monotonic()
    done = _run(2, "raise", "dense", False, tmp_path / "never.npz", timeout=120)
    assert done.returncode != 0
    assert "rank 1 of 2 raised" in done.stderr
    assert "rank one fails on purpose" in done.stderr
    assert time.monotonic() - start < 60  # no hang in the other rank's collective
    assert not (tmp_path / "never.npz").exists()


def test_an_interrupted_job_resumes_from_its_backup_on_every_rank(tmp_path):
    (tmp_path / "interrupt").write_text("")
    out = tmp_path / "weights"
    first = _run(2, "backup", "dense", True, out)
    assert first.returncode != 0 and not list(tmp_path.glob("weights.*.npz"))
    (tmp_path / "interrupt").unlink()
    second = _run(2, "backup", "dense", True, out)
    assert second.returncode == 0, second.stderr
    ranks = [dict(np.load(tmp_path / f"weights.{rank}.npz")) for rank in (0, 1)]
    # The second epoch's backup was not committed when its epoch_end was interrupted
    # (BackupAndRestore commits at the next epoch's start): epochs 2 to 4 run again.
    assert int(ranks[0]["epochs"]) == int(ranks[1]["epochs"]) == 3
    for key in ranks[0]:
        np.testing.assert_array_equal(ranks[0][key], ranks[1][key], err_msg=key)


def test_ranks_start_their_kernels_with_the_world_and_one_process_does_not():
    """Replicas must not start their kernels at different steps (distribute/world.py).
    Rank 0 prints every rank's answer, gathered: two ranks printing their own could
    interleave their lines on mpiexec's stdout."""
    code = ("from tapeflow.distribute.world import world\n"
            "from tapeflow.runtime import kernel_start\n"
            "w = world()\n"
            "mine = f'{w.size} {kernel_start.started()}'\n"
            "answers = [mine] if w.comm is None else w.comm.gather(mine, root=0)\n"
            "if w.is_chief:\n"
            "    print(';'.join(answers))\n")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    runs = [subprocess.run(command + [sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=120, env=env) for command in ([MPIEXEC, "-n", "2"], [])]
    assert [run.returncode for run in runs] == [0, 0], [run.stderr for run in runs]
    assert runs[0].stdout.strip() == "2 True;2 True"
    assert runs[1].stdout.strip() == "1 False"
