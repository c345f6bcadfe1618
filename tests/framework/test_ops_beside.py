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


def test_max_pool_keeps_its_argmax_only_when_a_backward_follows():
    from tapeflow.ops import conv as conv_ops
    x = tf.constant(np.random.default_rng(0).standard_normal((2, 6, 6, 3)).astype(np.float32))
    before = len(conv_ops._ARGMAX)
    inference = tf.nn.max_pool2d(x, 2, 2, "VALID")  # eager inference: nothing kept
    assert len(conv_ops._ARGMAX) == before
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.nn.max_pool2d(x, 2, 2, "VALID")
        assert len(conv_ops._ARGMAX) == before + 1
    kept = tape.gradient(y, x)
    with tf.GradientTape() as tape:  # the argmax forgotten before the backward: recomputed
        tape.watch(x)
        y2 = tf.nn.max_pool2d(x, 2, 2, "VALID")
    conv_ops._ARGMAX._values.clear()
    recomputed = tape.gradient(y2, x)
    np.testing.assert_array_equal(kept.numpy(), recomputed.numpy())
    np.testing.assert_array_equal(inference.numpy(), y.numpy())
    assert kept.numpy().sum() == y.numpy().size  # one 1 per window's maximum
