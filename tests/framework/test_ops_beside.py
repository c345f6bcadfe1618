"""ops/beside.py: a value kept beside an output array is found by that array only,
in its own table, and forgotten when the array dies; `backward_follows` is true
under a tape in the calling thread only."""

import gc
import threading

import numpy as np

import tapeflow as tf
from tapeflow.ops.beside import Beside, backward_follows


def test_kept_beside_its_array_until_it_dies():
    table, other = Beside(), Beside()
    out, same_values = np.zeros(3), np.zeros(3)
    table.keep(out, "columns")
    assert table.get(out) == "columns" and len(table) == 1
    assert table.get(same_values) is None and other.get(out) is None
    del out
    gc.collect()
    assert len(table) == 0


def test_backward_follows_a_tape_in_this_thread_only():
    assert not backward_follows()
    with tf.GradientTape():
        assert backward_follows()
        seen = []
        worker = threading.Thread(target=lambda: seen.append(backward_follows()))
        worker.start()
        worker.join()
        assert seen == [False]
    assert not backward_follows()
