"""Bad input to the math, reduction and linear-algebra ops: each fails with the
exception type TF raises and a message naming the op, shapes or dtypes involved."""

import pytest

import tapeflow as tf
from tapeflow.core.errors import InvalidArgumentError, UnimplementedError


def test_incompatible_broadcast_names_both_shapes():
    with pytest.raises(InvalidArgumentError, match=r"Incompatible shapes: \[2, 3\] vs. \[4\] "
                                                   r"\[Op:AddV2\]"):
        tf.add(tf.ones((2, 3)), tf.ones((4,)))
    with pytest.raises(InvalidArgumentError, match=r"\[Op:Mul\]"):
        tf.ones((2, 3)) * tf.ones((2,))
    with pytest.raises(InvalidArgumentError, match=r"\[2, 3\] vs. \[4\] \[Op:Maximum\]"):
        tf.maximum(tf.ones((2, 3)), tf.ones((4,)))
    with pytest.raises(InvalidArgumentError, match=r"\[Op:FloorMod\]"):
        tf.math.floormod(tf.ones((2,)), tf.ones((3,)))


def test_mixed_dtypes_name_both_dtypes():
    a, b = tf.ones((2,), tf.float32), tf.ones((2,), tf.float64)
    with pytest.raises(InvalidArgumentError, match="float32.*float64.*Op:Mul"):
        a * b
    with pytest.raises(InvalidArgumentError, match="float32.*float64.*Op:MatMul"):
        tf.matmul(tf.ones((2, 2)), tf.ones((2, 2), tf.float64))
    with pytest.raises(InvalidArgumentError, match="int32.*float32"):
        tf.add(tf.constant([1]), tf.constant([1.0]))
    with pytest.raises(InvalidArgumentError, match="float32.*float64"):
        tf.linalg.einsum("i,i->", a, b)


def test_matmul_shape_errors():
    with pytest.raises(InvalidArgumentError, match=r"Matrix size-incompatible: In\[0\]: "
                                                   r"\[2, 3\], In\[1\]: \[4, 5\]"):
        tf.matmul(tf.ones((2, 3)), tf.ones((4, 5)))
    with pytest.raises(InvalidArgumentError, match=r"rank >= 2.*\[3\]"):
        tf.matmul(tf.ones((3,)), tf.ones((3, 2)))
    with pytest.raises(InvalidArgumentError, match=r"batch dimensions: \[2, 2, 3\] vs. "
                                                   r"\[3, 3, 2\]"):
        tf.matmul(tf.ones((2, 2, 3)), tf.ones((3, 3, 2)))
    with pytest.raises(InvalidArgumentError, match=r"size-incompatible"):
        tf.linalg.matvec(tf.ones((2, 3)), tf.ones((2,)))


def test_invalid_axis_names_op_and_shape():
    x = tf.ones((2, 3))
    with pytest.raises(InvalidArgumentError, match=r"Sum: invalid axis 2 .*rank 2.*\(2, 3\)"):
        tf.reduce_sum(x, axis=2)
    with pytest.raises(InvalidArgumentError, match=r"Max: invalid axis -3"):
        tf.reduce_max(x, axis=-3)
    with pytest.raises(InvalidArgumentError, match="Prod: axis .* duplicates"):
        tf.reduce_prod(x, axis=[1, -1])
    with pytest.raises(InvalidArgumentError, match="ArgMax: invalid axis 5"):
        tf.argmax(x, axis=5)
    with pytest.raises(InvalidArgumentError, match="Cumsum: invalid axis 2"):
        tf.cumsum(x, axis=2)
    with pytest.raises(InvalidArgumentError, match="ReduceLogSumExp: invalid axis"):
        tf.reduce_logsumexp(x, axis=7)
    with pytest.raises(InvalidArgumentError, match=r"norm: invalid axis 4 .*\[2, 3\]"):
        tf.linalg.norm(x, axis=4)
    with pytest.raises(InvalidArgumentError, match="rank >= 1"):
        tf.argmax(tf.constant(1.0))


def test_float_only_ops_reject_integers():
    with pytest.raises(InvalidArgumentError, match=r"int32 .*\[Op:Sqrt\]"):
        tf.sqrt(tf.constant([4]))
    with pytest.raises(InvalidArgumentError, match=r"int32 .*\[Op:Erf\]"):
        tf.math.erf([1, 2])
    with pytest.raises(InvalidArgumentError, match="Integers to negative integer powers"):
        tf.pow(tf.constant([2]), -1)
    with pytest.raises(TypeError, match="Sum is not defined for bool"):
        tf.reduce_sum(tf.constant([True]))
    with pytest.raises(TypeError, match="All needs a bool tensor, got float32"):
        tf.reduce_all(tf.ones((2,)))
    with pytest.raises(TypeError, match="output_type must be int32 or int64"):
        tf.argmax(tf.ones((2,)), output_type=tf.float32)


def test_where_errors():
    with pytest.raises(ValueError, match="x and y must both be non-None or both be None"):
        tf.where(tf.constant([True]), x=tf.ones((1,)))
    with pytest.raises(InvalidArgumentError, match="expected to be a bool tensor but is a "
                                                   "int32"):
        tf.where(tf.constant([1, 0]), tf.ones((2,)), tf.zeros((2,)))
    with pytest.raises(InvalidArgumentError, match=r"\[2\], \[3\] and \[2\] \[Op:SelectV2\]"):
        tf.where(tf.constant([True, False]), tf.ones((3,)), tf.zeros((2,)))


def test_clip_and_add_n_errors():
    with pytest.raises(InvalidArgumentError, match=r"shape \[2\] to \[3, 2\]"):
        tf.clip_by_value(tf.ones((2,)), tf.zeros((3, 1)), 1.0)
    with pytest.raises(InvalidArgumentError, match=r"\[2\] float32 and \[3\] float32.*AddN"):
        tf.add_n([tf.ones((2,)), tf.ones((3,))])
    with pytest.raises(ValueError, match="non-empty list"):
        tf.add_n([])


def test_tensordot_and_einsum_errors():
    with pytest.raises(InvalidArgumentError, match=r"cannot contract axes \[1\] of shape "
                                                   r"\[2, 3\] with axes \[0\] of shape \[4, 5\]"):
        tf.linalg.tensordot(tf.ones((2, 3)), tf.ones((4, 5)), 1)
    with pytest.raises(InvalidArgumentError, match=r"letter 'j' has sizes 3 and 4"):
        tf.linalg.einsum("ij,jk->ik", tf.ones((2, 3)), tf.ones((4, 5)))
    with pytest.raises(InvalidArgumentError, match="2 operand subscripts for 1 inputs"):
        tf.linalg.einsum("ij,jk->ik", tf.ones((2, 3)))
    with pytest.raises(InvalidArgumentError, match=r"'ijk' do not match an input of rank 2"):
        tf.linalg.einsum("ijk->i", tf.ones((2, 3)))
    with pytest.raises(InvalidArgumentError, match="output letter 'z'"):
        tf.linalg.einsum("ij->z", tf.ones((2, 3)))


def test_square_matrix_and_solve_errors():
    with pytest.raises(InvalidArgumentError, match=r"MatrixInverse: input must be a square "
                                                   r"matrix .* got \[2, 3\]"):
        tf.linalg.inv(tf.ones((2, 3)))
    with pytest.raises(InvalidArgumentError, match="Input is not invertible"):
        tf.linalg.inv(tf.ones((2, 2)))
    with pytest.raises(InvalidArgumentError, match=r"MatrixDeterminant.*\[3\]"):
        tf.linalg.det(tf.ones((3,)))
    with pytest.raises(InvalidArgumentError, match=r"rhs of shape \[2, 1\] does not match "
                                                   r"matrix of shape \[3, 3\]"):
        tf.linalg.solve(tf.eye(3), tf.ones((2, 1)))
    with pytest.raises(InvalidArgumentError, match="not invertible"):
        tf.linalg.solve(tf.zeros((2, 2)), tf.ones((2, 1)))


def test_norm_argument_errors_follow_tf():
    x = tf.ones((2, 3))
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm, got fro"):
        tf.linalg.norm(x, ord="fro")
    with pytest.raises(ValueError, match="'ord' must be a supported vector norm, got -1"):
        tf.linalg.norm(x, ord=-1)
    with pytest.raises(ValueError, match="'ord' must be a supported matrix norm"):
        tf.linalg.norm(x, ord=3, axis=[0, 1])
    with pytest.raises(ValueError, match="tuple of 2 unique integers"):
        tf.linalg.norm(x, axis=[1, 1])
    with pytest.raises(UnimplementedError, match="SVD"):
        tf.linalg.norm(x, ord=2, axis=[0, 1])


def test_empty_argmax_is_an_error():
    with pytest.raises(InvalidArgumentError, match=r"ArgMax: reduction axis 0 of shape \[0\]"):
        tf.argmax(tf.zeros((0,)))
