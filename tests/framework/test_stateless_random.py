"""tf.random.stateless_* / split / fold_in (random/stateless.py, random/philox.py).

Every expected value below is TF 2.21's output on the CPU for the same call
(run once with real TF and pasted here), so these check bit equality with TF."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.random import philox
from tapeflow.testing.gradients import gradcheck

R = tf.random


def test_key_counter_equals_tfs_stateless_random_get_key_counter():
    for seed, key, counter in [((1, 2), 0x908502C96D2F7FBA, 0xF7734320619CB60B),
                               ((0, 0), 0xDF7A3EF6DD5B9083, 0xFF2F51A833DA8054),
                               ((-1, 5), 0xCE61931C039442C8, 0xB48F290FD65507AC)]:
        k, c = philox.key_counter(*seed)
        assert int(k[0]) | int(k[1]) << 32 == key
        assert (int(c[0]), int(c[1]), int(c[2]) | int(c[3]) << 32) == (0, 0, counter)


@pytest.mark.parametrize("call, expected", [
    (lambda: R.stateless_uniform([6], seed=[1, 2]),
     [0.8440604209899902, 0.19204533100128174, 0.9962232112884521, 0.16038739681243896,
      0.27199018001556396, 0.6493459939956665]),
    (lambda: R.stateless_uniform([3], seed=[1, 2], dtype=tf.float64),
     [0.7524837538451801, 0.9697857725627486, 0.17592233912897481]),
    (lambda: R.stateless_uniform([5], seed=[3, 4], minval=2.0, maxval=5.0),
     [2.7298622131347656, 4.95051908493042, 2.6612517833709717, 3.4037604331970215,
      4.321573734283447]),
    (lambda: R.stateless_uniform([6], seed=[1, 2], minval=-5, maxval=7, dtype=tf.int32),
     [-1, 0, 1, -2, 2, -4]),
    (lambda: R.stateless_uniform([3], seed=[1, 2], minval=-5, maxval=7, dtype=tf.int64),
     [-5, 1, 6]),
    (lambda: R.stateless_uniform([3], seed=[1, 2], minval=None, maxval=None, dtype=tf.int32),
     [1105988140, 1738052849, -335576002]),
    (lambda: R.stateless_uniform([3], seed=[1, 2], minval=None, maxval=None, dtype=tf.int64),
     [7464880146280614444, 1591045637757961278, -1057468755545501549]),
    (lambda: R.stateless_normal([6], seed=[1, 2]),
     [0.544110119342804, 0.20738030970096588, 0.0735643208026886, 0.04643455147743225,
      -1.301589846611023, -0.9538565278053284]),
    (lambda: R.stateless_normal([3], seed=[1, 2], dtype=tf.float64),
     [-0.1423118100189212, 0.7406072461585091, -1.469047669443883]),
    (lambda: R.stateless_normal([3], seed=[1, 2], dtype=tf.float16),
     [0.5439453125, 0.2073974609375, 0.07354736328125]),
    (lambda: R.stateless_normal([2, 5], seed=[3, 4], mean=1.0, stddev=2.0),
     [[0.6521323323249817, 4.344709396362305, 1.6963403224945068, -2.4077813625335693,
       -0.23064923286437988], [1.7324192523956299, 1.1657516956329346, 1.355713129043579,
                               0.79421067237854, 3.3729729652404785]]),
    (lambda: R.stateless_truncated_normal([6], seed=[1, 2]),
     [0.544110119342804, 0.20738030970096588, 0.0735643208026886, 0.04643455147743225,
      0.16820591688156128, -1.6850333213806152]),
    (lambda: R.stateless_truncated_normal([3], seed=[1, 2], dtype=tf.float64),
     [-0.1423118100189212, 0.7406072461585091, -0.552387756244845]),
    (lambda: R.stateless_normal([1000], seed=[11, 12])[997:],
     [-0.32481372356414795, -2.0591752529144287, -0.017160886898636818]),
    (lambda: R.stateless_truncated_normal([1000], seed=[11, 12])[997:],
     [0.369280606508255, 0.27688759565353394, -0.14510302245616913]),
    (lambda: R.stateless_categorical(tf.math.log([[0.5, 0.5], [0.1, 0.9]]), 5, seed=[7, 17]),
     [[1, 0, 1, 0, 0], [1, 1, 1, 1, 0]]),
    (lambda: R.split([1, 2], 3),
     [[1105988140, 1738052849], [-335576002, 370444179], [10670227, -246211131]]),
    (lambda: R.fold_in([1, 2], 5), [1105988140, 5]),
])
def test_values_equal_tfs(call, expected):
    assert call().numpy().tolist() == expected


def test_float32_normals_match_tf_in_bulk():
    # TF: float(tf.reduce_sum(tf.cast(tf.random.stateless_normal([1000], seed=[11, 12]),
    # tf.float64))); a last-bit difference anywhere would change it.
    values = R.stateless_normal([1000], seed=[11, 12]).numpy().astype(np.float64)
    assert values.sum() == 32.796881639398634


def test_deterministic_and_distributed():
    a = R.stateless_normal([20000], seed=[5, 6]).numpy()
    np.testing.assert_array_equal(a, R.stateless_normal([20000], seed=[5, 6]).numpy())
    assert not np.array_equal(a, R.stateless_normal([20000], seed=[6, 5]).numpy())
    assert abs(a.mean()) < 0.03 and abs(a.std() - 1) < 0.03
    t = R.stateless_truncated_normal([20000], seed=[5, 6]).numpy()
    assert np.abs(t).max() < 2 and abs(t.std() - 0.8796) < 0.02  # std of N(0,1) cut at 2
    u = R.stateless_uniform([20000], seed=[5, 6], minval=-1, maxval=3, dtype=tf.int32).numpy()
    assert set(np.unique(u)) == {-1, 0, 1, 2}


def test_size_zero_and_int32_seed():
    assert R.stateless_normal([0, 3], seed=[1, 2]).shape == (0, 3)
    assert R.stateless_truncated_normal([0], seed=[1, 2]).shape == (0,)
    np.testing.assert_array_equal(R.stateless_uniform([4], seed=tf.constant([1, 2], tf.int32)),
                                  R.stateless_uniform([4], seed=tf.constant([1, 2], tf.int64)))


def test_errors_as_tf():
    with pytest.raises(tf.errors.InvalidArgumentError, match="Need minval < maxval, got 5 >= 3"):
        R.stateless_uniform([2], seed=[1, 2], minval=5, maxval=3, dtype=tf.int32)
    with pytest.raises(ValueError, match="must be both None or not None"):
        R.stateless_uniform([2], seed=[1, 2], minval=1, dtype=tf.int32)
    with pytest.raises(tf.errors.InvalidArgumentError, match=r"seed must have shape \[2\], "
                                                             r"not \[3\]"):
        R.stateless_normal([2], seed=[1, 2, 3])
    with pytest.raises(tf.errors.InvalidArgumentError, match="'Tseed' of float32"):
        R.stateless_normal([2], seed=[1.0, 2.0])
    with pytest.raises(TypeError, match="Cannot convert 0.0 to EagerTensor of dtype int32"):
        R.stateless_normal([2], seed=[1, 2], dtype=tf.int32)
    with pytest.raises(ValueError, match="Argument `dtype` got invalid value"):
        R.stateless_uniform([2], seed=[1, 2], dtype=tf.string)
    with pytest.raises(tf.errors.UnimplementedError, match="ThreeFry"):
        R.stateless_normal([2], seed=[1, 2], alg="threefry")


def test_gradients_reach_mean_stddev_and_bounds():
    def normal(mean, stddev):
        return R.stateless_normal([2, 3], seed=[1, 2], mean=mean, stddev=stddev,
                                  dtype=tf.float64)
    gradcheck(normal, np.array([0.5, -1.0, 2.0]), np.array([[1.5], [0.3]]), order=2)
    gradcheck(lambda m: R.stateless_truncated_normal([0, 2], seed=[1, 2], mean=m,
                                                     dtype=tf.float64), np.array([0.5, 1.0]),
              order=2)
    gradcheck(lambda lo, hi: R.stateless_uniform([4], seed=[3, 4], minval=lo, maxval=hi,
                                                 dtype=tf.float64),
              np.array(-1.0), np.array([2.0, 3.0, 4.0, 5.0]), order=2)


def test_generator_from_seed_equals_tfs_values_and_state():
    g = R.Generator.from_seed(1)
    assert g.state.numpy().tolist() == [1, 0, 0]
    np.testing.assert_array_equal(g.normal([2, 3]).numpy(), np.array(
        [[0.4384227395057678, -0.5343984365463257, -0.07710261642932892],
         [1.5658046007156372, -0.10123450309038162, -0.2744975984096527]], np.float32))
    assert g.state.numpy().tolist() == [1537, 0, 0]  # TF: 256 per value drawn
    assert g.normal([5]).numpy().tolist() == [
        -0.44956639409065247, 1.6220768690109253, -1.3694807291030884, 0.8306354880332947,
        0.2776103913784027]
    assert g.uniform([3]).numpy().tolist() == [
        0.5640490055084229, 0.7147067785263062, 0.21592044830322266]
    assert g.state.numpy().tolist() == [3585, 0, 0]
    assert g.uniform([3], minval=0, maxval=10, dtype=tf.int32).numpy().tolist() == [9, 7, 1]
    assert g.truncated_normal([3]).numpy().tolist() == [
        0.0061650872230529785, 0.9969515800476074, 1.0001473426818848]
    assert g.normal([3], dtype=tf.float64).numpy().tolist() == [
        1.4845274273577067, -1.8479340938374267, -0.2777034765258622]
    assert g.state.numpy().tolist() == [5889, 0, 0]


def test_generator_split_and_reset_as_tf():
    g = R.Generator.from_seed(1234)
    assert g.normal([2]).numpy().tolist() == [0.9356608986854553, 1.0854305028915405]
    children = g.split(2)
    assert [c.state.numpy().tolist() for c in children] == [
        [0, 0, -2237664645307810991], [0, 0, -7334488933600988152]]  # TF's
    assert g.state.numpy().tolist() == [2258, 0, 0]
    g.reset_from_seed(1)
    assert g.normal([1]).numpy().tolist() == [0.4384227395057678]
    assert g.make_seeds(3).shape == (2, 3)
    with pytest.raises(ValueError, match="must be both None or not None"):
        g.uniform([2], dtype=tf.int32)


def test_global_generator_follows_set_seed():
    tf.random.set_seed(5)
    first = R.get_global_generator().normal([3]).numpy()
    tf.random.set_seed(5)
    np.testing.assert_array_equal(R.get_global_generator().normal([3]).numpy(), first)
    R.set_global_generator(R.Generator.from_seed(1))
    assert R.get_global_generator().normal([1]).numpy().tolist() == [0.4384227395057678]
