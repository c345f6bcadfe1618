"""Shape ops: reshape, transpose, expand_dims, squeeze, concat, stack, unstack,
split, tile, pad, broadcast_to, reverse, roll, repeat, meshgrid and the tensor creators; values
against NumPy, gradients by gradcheck, and TF's errors for bad input."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.core.errors import InvalidArgumentError
from tapeflow.testing.gradients import Case

_rng = np.random.default_rng(0)


def _r(*shape):
    return _rng.standard_normal(shape)


GRADCHECK_CASES = [
    Case("reshape", lambda x: tf.reshape(x, [3, -1]), _r(2, 3)),
    Case("transpose", lambda x: tf.transpose(x, [2, 0, 1]), _r(2, 3, 2)),
    Case("expand_dims", lambda x: tf.expand_dims(x, -1) * tf.expand_dims(x, 0), _r(3)),
    Case("squeeze", lambda x: tf.squeeze(x, axis=1) ** 2, _r(2, 1, 3)),
    Case("broadcast_to", lambda x: tf.broadcast_to(x, [2, 2, 3]) ** 2, _r(2, 1)),
    Case("concat", lambda x, y: tf.concat([x, y * y, x], axis=1), _r(2, 2), _r(2, 3)),
    Case("concat_axis0", lambda x, y: tf.concat([x * y, y], axis=-2), _r(1, 3), _r(2, 3)),
    Case("stack", lambda x, y: tf.stack([x, y, x * y], axis=1), _r(2, 3), _r(2, 3)),
    Case("unstack", lambda x: tf.unstack(x, axis=1)[2] * tf.unstack(x, axis=1)[0], _r(2, 3)),
    Case("split", lambda x: tf.split(x, [1, -1], axis=1)[1] ** 2, _r(2, 4)),
    Case("split_equal", lambda x: tf.split(x, 2)[0] * tf.split(x, 2)[1], _r(4, 2)),
    Case("tile", lambda x: tf.tile(x, [2, 3]) ** 2, _r(2, 2)),
    Case("pad_constant", lambda x: tf.pad(x, [[1, 0], [2, 1]], constant_values=0.5) ** 2,
         _r(2, 3)),
    Case("pad_reflect", lambda x: tf.pad(x, [[1, 2], [2, 1]], "REFLECT") ** 2, _r(3, 3)),
    Case("pad_symmetric", lambda x: tf.pad(x, [[2, 2]], "SYMMETRIC") ** 2, _r(3)),
    Case("reverse", lambda x: tf.reverse(x, [0, -1]) * x, _r(2, 3)),
    Case("roll", lambda x: tf.roll(x, [1, -1], [0, 1]) * x, _r(3, 3)),
    Case("repeat", lambda x: tf.repeat(x, [2, 0, 1], axis=1) ** 2, _r(2, 3)),
    Case("repeat_flat", lambda x: tf.repeat(x, 2) ** 2, _r(2, 2)),
    Case("repeat_empty", lambda x: tf.repeat(x, 3, axis=0) ** 2, _r(0, 2)),
    Case("meshgrid", lambda x, y: tf.meshgrid(x, y)[0] * tf.meshgrid(x, y)[1], _r(3), _r(2)),
    Case("meshgrid_ij", lambda x, y: tf.meshgrid(x, y, x, indexing="ij")[2] ** 2
         * tf.meshgrid(x, y, x, indexing="ij")[1], _r(2), _r(0)),
]


@pytest.mark.parametrize("case", GRADCHECK_CASES, ids=repr)
def test_gradcheck(case):
    case.check()


def test_reshape_and_transpose_values():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(tf.reshape(x, [4, -1]).numpy(), x.reshape(4, 6))
    np.testing.assert_array_equal(tf.transpose(x, [1, 2, 0]).numpy(), x.transpose(1, 2, 0))
    np.testing.assert_array_equal(tf.transpose(x).numpy(), x.T)
    assert tf.expand_dims(x, 1).shape == (2, 1, 3, 4)
    assert tf.expand_dims(x, -1).shape == (2, 3, 4, 1)
    assert tf.squeeze(np.zeros((1, 2, 1))).shape == (2,)


def test_concat_stack_values():
    a, b = np.arange(6.0).reshape(2, 3), np.arange(6.0, 12.0).reshape(2, 3)
    np.testing.assert_array_equal(tf.concat([a, b], 0).numpy(), np.concatenate([a, b], 0))
    np.testing.assert_array_equal(tf.concat([a, b], -1).numpy(), np.concatenate([a, b], 1))
    np.testing.assert_array_equal(tf.stack([a, b]).numpy(), np.stack([a, b]))
    np.testing.assert_array_equal(tf.stack([a, b], axis=-1).numpy(), np.stack([a, b], -1))
    assert tf.stack([1.0, 2.0]).dtype == tf.float32
    np.testing.assert_array_equal(tf.stack([tf.constant(1), 2]).numpy(), [1, 2])


def test_unstack_split_values():
    x = np.arange(24.0).reshape(2, 3, 4)
    parts = tf.unstack(x, axis=1)
    assert isinstance(parts, list) and len(parts) == 3
    for i, p in enumerate(parts):
        np.testing.assert_array_equal(p.numpy(), x[:, i])
    for got, want in zip(tf.split(x, [1, -1, 2], axis=2), np.split(x, [1, 2], axis=2)):
        np.testing.assert_array_equal(got.numpy(), want)
    for got, want in zip(tf.split(x, 2, axis=-1), np.split(x, 2, axis=-1)):
        np.testing.assert_array_equal(got.numpy(), want)


def test_unstack_gradient_accumulates():
    x = tf.constant(np.arange(6.0).reshape(3, 2))
    with tf.GradientTape() as tape:
        tape.watch(x)
        rows = tf.unstack(x)
        y = tf.reduce_sum(rows[0] * 2.0 + rows[2] + rows[0])
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [[3, 3], [0, 0], [1, 1]])


def test_tile_pad_reverse_roll_values():
    x = np.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(tf.tile(x, [2, 3]).numpy(), np.tile(x, (2, 3)))
    np.testing.assert_array_equal(tf.tile(x, [0, 1]).numpy(), np.tile(x, (0, 1)))
    pads = [[1, 1], [2, 2]]
    np.testing.assert_array_equal(tf.pad(x, pads).numpy(), np.pad(x, pads))
    np.testing.assert_array_equal(tf.pad(x, pads, constant_values=7).numpy(),
                                  np.pad(x, pads, constant_values=7))
    np.testing.assert_array_equal(tf.pad(x, pads, "reflect").numpy(),
                                  np.pad(x, pads, "reflect"))
    np.testing.assert_array_equal(tf.pad(x, [[2, 2], [3, 3]], "SYMMETRIC").numpy(),
                                  np.pad(x, [[2, 2], [3, 3]], "symmetric"))
    np.testing.assert_array_equal(tf.reverse(x, [1]).numpy(), x[:, ::-1])
    np.testing.assert_array_equal(tf.roll(x, 1, 1).numpy(), np.roll(x, 1, 1))
    np.testing.assert_array_equal(tf.roll(x, [1, 2], [0, 0]).numpy(), np.roll(x, 3, 0))


def test_repeat_meshgrid_values():
    # TF's API pages (tf.repeat, tf.meshgrid).
    np.testing.assert_array_equal(tf.repeat([1, 2, 3], repeats=[3, 1, 2], axis=0).numpy(),
                                  [1, 1, 1, 2, 3, 3])
    np.testing.assert_array_equal(tf.repeat([[1, 2], [3, 4]], repeats=[2, 3], axis=0).numpy(),
                                  [[1, 2], [1, 2], [3, 4], [3, 4], [3, 4]])
    np.testing.assert_array_equal(tf.repeat([[1, 2], [3, 4]], repeats=[2, 3], axis=1).numpy(),
                                  [[1, 1, 2, 2, 2], [3, 3, 4, 4, 4]])
    np.testing.assert_array_equal(tf.repeat(3, repeats=4).numpy(), [3, 3, 3, 3])
    np.testing.assert_array_equal(tf.repeat([[1, 2], [3, 4]], repeats=2).numpy(),
                                  [1, 1, 2, 2, 3, 3, 4, 4])
    x, y = tf.meshgrid([1, 2, 3], [4, 5, 6])
    np.testing.assert_array_equal(x.numpy(), [[1, 2, 3]] * 3)
    np.testing.assert_array_equal(y.numpy(), [[4, 4, 4], [5, 5, 5], [6, 6, 6]])
    for indexing in ("xy", "ij"):
        for got, want in zip(tf.meshgrid([1, 2], [3, 4, 5], [6], indexing=indexing),
                             np.meshgrid([1, 2], [3, 4, 5], [6], indexing=indexing)):
            np.testing.assert_array_equal(got.numpy(), want)


def test_pad_gradient_of_reflect_counts_mirrored_entries():
    x = tf.constant([1.0, 2.0, 3.0])
    with tf.GradientTape() as tape:
        tape.watch(x)
        y = tf.reduce_sum(tf.pad(x, [[2, 2]], "REFLECT"))  # [3 2 1 2 3 2 1]
    np.testing.assert_array_equal(tape.gradient(y, x).numpy(), [2.0, 3.0, 2.0])


def test_creators():
    np.testing.assert_array_equal(tf.fill([2, 3], 9).numpy(), np.full((2, 3), 9))
    assert tf.fill([2], 1.5).dtype == tf.float32
    e = tf.eye(2, 3, batch_shape=[4])
    assert e.shape == (4, 2, 3) and e.dtype == tf.float32
    np.testing.assert_array_equal(e.numpy()[1], np.eye(2, 3))
    assert tf.eye(3, dtype=tf.int32).dtype == tf.int32
    lin = tf.linspace(0.0, 1.0, 5)
    assert lin.dtype == tf.float32
    np.testing.assert_allclose(lin.numpy(), [0, 0.25, 0.5, 0.75, 1.0])
    assert tf.linspace(0, 4, 3).dtype == tf.float64
    x = tf.zeros([2, 3, 4])
    np.testing.assert_array_equal(tf.shape(x).numpy(), [2, 3, 4])
    assert int(tf.size(x)) == 24 and int(tf.rank(x)) == 3


@pytest.mark.parametrize("fn, match", [
    (lambda: tf.concat([np.zeros((2, 3)), np.zeros(3)], 0),
     r"Ranks of all input tensors should match: shape\[0\] = \[2, 3\] vs. shape\[1\] = \[3\]"),
    (lambda: tf.concat([np.zeros((2, 3)), np.zeros((2, 4))], 0),
     r"ConcatOp : Dimension 1 in both shapes must be equal: shape\[0\] = \[2, 3\] vs. "
     r"shape\[1\] = \[2, 4\]"),
    (lambda: tf.concat([np.zeros((2, 3)), np.zeros((2, 3))], 2),
     r"concatenating dimensions in the range \[-2, 2\), but got 2"),
    (lambda: tf.concat([np.zeros(2), np.zeros(2, np.int32)], 0), "float64.*int32"),
    (lambda: tf.stack([np.zeros(2), np.zeros(3)]),
     r"values\[0\].shape = \[2\] != values\[1\].shape = \[3\]"),
    (lambda: tf.stack([np.zeros(2)], axis=3), "axis 3 is out of range"),
    (lambda: tf.unstack(np.zeros((2, 3)), num=3), r"axis 0 must equal 3, got shape \[2, 3\]"),
    (lambda: tf.split(np.zeros((5, 2)), 2), r"evenly divide.*size = 5\) and num_split 2"),
    (lambda: tf.split(np.zeros((5, 2)), [2, 2]), r"Got sizes \[2, 2\].*\[5, 2\]"),
    (lambda: tf.transpose(np.zeros((2, 3)), [0, 0]), r"perm \[0, 0\] is not a permutation"),
    (lambda: tf.transpose(np.zeros((2, 3)), [0, 1, 2]), "not a permutation"),
    (lambda: tf.reshape(np.zeros((2, 3)), [4, 2]), r"6 values .*\[4, 2\] has 8"),
    (lambda: tf.reshape(np.zeros((2, 3)), [4, -1]), "cannot reshape a tensor with 6"),
    (lambda: tf.expand_dims(np.zeros((2, 3)), 4), "axis 4 is out of range"),
    (lambda: tf.squeeze(np.zeros((2, 3)), 1), "cannot squeeze axis 1 of size 3"),
    (lambda: tf.tile(np.zeros((2, 3)), [2]), "vector of length 2 but got length 1"),
    (lambda: tf.pad(np.zeros((2, 3)), [[1, 1]]), r"rank of inputs \[2,2\]"),
    (lambda: tf.pad(np.zeros(3), [[3, 0]], "REFLECT"), "less than the dimension size: 3, 0"),
    (lambda: tf.pad(np.zeros(3), [[4, 0]], "SYMMETRIC"), "no greater than the dimension size"),
    (lambda: tf.broadcast_to(np.zeros(3), [2, 2]), r"broadcast shape \[3\] to \[2, 2\]"),
    (lambda: tf.reverse(np.zeros(3), [1]), "invalid axis 1"),
    (lambda: tf.roll(np.zeros(3), [1, 2], [0]), "same size"),
    (lambda: tf.repeat(np.zeros(3), -1), "non-negative"),
])
def test_bad_input(fn, match):
    with pytest.raises(InvalidArgumentError, match=match):
        fn()


def test_repeat_count_mismatch_is_a_value_error():
    with pytest.raises(ValueError, match=r"list of 1 or 3 of them"):
        tf.repeat(np.zeros((2, 3)), [1, 2], axis=1)


def test_pad_unknown_mode():
    with pytest.raises(ValueError, match="Received `mode` = WRAP"):
        tf.pad(np.zeros(3), [[1, 1]], "wrap")
