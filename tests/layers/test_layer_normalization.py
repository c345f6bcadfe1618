"""BatchNormalization, LayerNormalization and GroupNormalization against NumPy
references (docs/KERAS_NOTES.md), with gradients in training and inference mode."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.layers import check_layer

L = tf.keras.layers
RNG = np.random.default_rng(1)


def _bn_reference(x, gamma, beta, mean, var, eps=1e-3):
    return (x - mean) / np.sqrt(var + eps) * gamma + beta


@pytest.mark.parametrize("shape,axis", [((8, 3), -1), ((4, 5, 3), -1), ((2, 3, 4, 4), 1)])
def test_batch_norm_training_values_and_moving_updates(shape, axis):
    bn = L.BatchNormalization(axis=axis, gamma_initializer="random_normal",
                              beta_initializer="random_normal")
    x = (RNG.standard_normal(shape) * 2 + 1).astype(np.float32)
    out = bn(x, training=True)
    gamma, beta, mm, mv = bn.get_weights()
    reduce = tuple(i for i in range(len(shape)) if i != axis % len(shape))
    bshape = [1] * len(shape)
    bshape[axis] = shape[axis]
    mean, var = x.mean(axis=reduce), x.var(axis=reduce)  # biased variance
    expected = _bn_reference(x, gamma.reshape(bshape), beta.reshape(bshape),
                             mean.reshape(bshape), var.reshape(bshape))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mm, 0.01 * mean, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(mv, 0.99 + 0.01 * var, rtol=1e-5)
    # Inference uses the moving statistics and leaves them alone.
    inference = bn(x, training=False).numpy()
    np.testing.assert_allclose(inference, _bn_reference(
        x, gamma.reshape(bshape), beta.reshape(bshape), mm.reshape(bshape),
        mv.reshape(bshape)), rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(bn.moving_mean.numpy(), mm)


def test_batch_norm_weights_order_and_check_layer():
    bn = L.BatchNormalization(momentum=0.9, epsilon=1e-2)
    check_layer(bn, (6, 4), expected_num_trainable_weights=2,
                expected_num_non_trainable_weights=2)
    assert [v.path for v in bn.weights] == [f"{bn.name}/gamma", f"{bn.name}/beta",
                                           f"{bn.name}/moving_mean",
                                           f"{bn.name}/moving_variance"]
    assert L.BatchNormalization().momentum == 0.99
    assert L.BatchNormalization().epsilon == 1e-3


def test_batch_norm_training_mode_gradients():
    check_layer(L.BatchNormalization(gamma_initializer="random_normal"), (5, 3),
                gradcheck_training=True, check_config=False)
    check_layer(L.BatchNormalization(axis=1), (3, 2, 4), gradcheck_training=True,
                check_config=False, run_training_step=False)


def test_batch_norm_without_center_or_scale():
    bn = L.BatchNormalization(center=False, scale=False)
    x = RNG.standard_normal((6, 2)).astype(np.float32)
    out = bn(x, training=True).numpy()
    np.testing.assert_allclose(out, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-3), rtol=1e-4,
                               atol=1e-5)
    assert [v.name for v in bn.weights] == ["moving_mean:0", "moving_variance:0"]


def test_frozen_batch_norm_runs_in_inference_mode():
    bn = L.BatchNormalization()
    x = RNG.standard_normal((6, 2)).astype(np.float32) + 3
    bn(x, training=True)
    bn.trainable = False
    before = bn.get_weights()
    out = bn(x, training=True).numpy()
    for a, b in zip(before, bn.get_weights()):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(out, bn(x, training=False).numpy())


def test_batch_norm_mask_weights_the_statistics():
    bn = L.BatchNormalization(center=False, scale=False, momentum=0.0)
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    mask = np.array([[True, True, False, False], [True, True, True, False]])
    bn(x, training=True, mask=tf.constant(mask))
    kept = x[mask]
    np.testing.assert_allclose(bn.moving_mean.numpy(), kept.mean(0), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(bn.moving_variance.numpy(), kept.var(0), rtol=1e-4, atol=1e-6)


def test_batch_norm_bad_input():
    bn = L.BatchNormalization(name="bn")
    bn(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match=r'"bn".*axis -1.*value 3.*\(2, 4\)'):
        bn(np.ones((2, 4), np.float32))


@pytest.mark.parametrize("shape,axis", [((3, 5), -1), ((2, 3, 4), -1), ((2, 3, 4), (1, 2)),
                                        ((2, 3, 4), 1)])
def test_layer_norm(shape, axis):
    ln = L.LayerNormalization(axis=axis, gamma_initializer="random_normal",
                              beta_initializer="random_normal")
    x = (RNG.standard_normal(shape) * 3).astype(np.float32)
    out = check_layer(ln, input_data=x, expected_output_shape=shape,
                      expected_num_trainable_weights=2)
    axes = tuple(a % len(shape) for a in ((axis,) if isinstance(axis, int) else axis))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    bshape = [shape[i] if i in axes else 1 for i in range(len(shape))]
    expected = ((x - mean) / np.sqrt(var + 1e-3) * ln.gamma.numpy().reshape(bshape)
                + ln.beta.numpy().reshape(bshape))
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-5)
    assert [v.name for v in ln.weights] == ["gamma:0", "beta:0"]


def _group_norm_reference(x, groups, gamma, beta, eps=1e-3):
    c = x.shape[-1]
    g = x.reshape(x.shape[:-1] + (groups, c // groups))
    axes = tuple(range(1, g.ndim - 2)) + (g.ndim - 1,)
    mean = g.mean(axis=axes, keepdims=True)
    var = g.var(axis=axes, keepdims=True)
    return ((g - mean) / np.sqrt(var + eps)).reshape(x.shape) * gamma + beta


@pytest.mark.parametrize("shape,groups", [((2, 8), 4), ((2, 3, 6), 2), ((2, 3, 3, 4), -1),
                                          ((2, 5, 4), 1)])
def test_group_norm(shape, groups):
    gn = L.GroupNormalization(groups=groups, gamma_initializer="random_normal",
                              beta_initializer="random_normal")
    x = RNG.standard_normal(shape).astype(np.float32)
    out = check_layer(gn, input_data=x, expected_output_shape=shape)
    real_groups = shape[-1] if groups == -1 else groups
    expected = _group_norm_reference(x, real_groups, gn.gamma.numpy(), gn.beta.numpy())
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-5)


def test_group_norm_channels_first_and_errors():
    gn = L.GroupNormalization(groups=2, axis=1)
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    out = gn(x).numpy()
    expected = _group_norm_reference(x.transpose(0, 2, 1), 2, 1.0, 0.0).transpose(0, 2, 1)
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-5)
    assert L.GroupNormalization().groups == 32
    with pytest.raises(ValueError, match=r"'gn'.*groups \(32\).*channels \(16\)"):
        L.GroupNormalization(name="gn")(np.ones((2, 16), np.float32))
    with pytest.raises(ValueError, match=r"groups \(3\).*channels \(16\)"):
        L.GroupNormalization(groups=3)(np.ones((2, 16), np.float32))
