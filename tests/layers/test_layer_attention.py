"""MultiHeadAttention: values against a NumPy reference with Keras's weight
layout (weights set by set_weights), masks (padding, causal, explicit),
attention scores, gradients (check_layer) and bad input."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.layers import check_layer
from tapeflow.layers.attention import MultiHeadAttention

RNG = np.random.default_rng(4)


def np_mha(query, value, key, weights, mask=None):
    qk, qb, kk, kb, vk, vb, ok, ob = weights
    q = np.einsum("btd,dhk->bhtk", query, qk) + qb[None, :, None]
    k = np.einsum("btd,dhk->bhtk", key, kk) + kb[None, :, None]
    v = np.einsum("btd,dhk->bhtk", value, vk) + vb[None, :, None]
    scores = np.einsum("bhqk,bhsk->bhqs", q / np.sqrt(qk.shape[-1]), k)
    if mask is not None:
        scores = scores + np.where(mask[:, None], 0.0, -1e9)
    scores = scores - scores.max(axis=-1, keepdims=True)
    probs = np.exp(scores) / np.exp(scores).sum(axis=-1, keepdims=True)
    context = np.einsum("bhqs,bhsv->bqhv", probs, v)
    return np.einsum("bqhv,hvo->bqo", context, ok) + ob, probs


def _setup(layer, query, value, key=None):
    layer(query, value, key=key)
    weights = [RNG.standard_normal(w.shape) * 0.5 for w in layer.get_weights()]
    layer.set_weights(weights)
    return weights


def test_weights_layout_and_order():
    layer = MultiHeadAttention(num_heads=2, key_dim=3, value_dim=4)
    q, v, k = (np.zeros((1, 2, 5), np.float32), np.zeros((1, 3, 6), np.float32),
               np.zeros((1, 3, 7), np.float32))
    layer(q, v, key=k)
    assert [w.shape for w in layer.get_weights()] == [
        (5, 2, 3), (2, 3), (7, 2, 3), (2, 3), (6, 2, 4), (2, 4), (2, 4, 5), (5,)]
    assert [w.path.split("/", 1)[1] for w in layer.weights] == [
        "query/kernel", "query/bias", "key/kernel", "key/bias", "value/kernel", "value/bias",
        "attention_output/kernel", "attention_output/bias"]


@pytest.mark.parametrize("separate_key", [False, True])
def test_values_and_scores(separate_key):
    layer = MultiHeadAttention(num_heads=2, key_dim=3)
    query = RNG.standard_normal((2, 4, 5)).astype(np.float32)
    value = RNG.standard_normal((2, 3, 6)).astype(np.float32)
    key = RNG.standard_normal((2, 3, 4)).astype(np.float32) if separate_key else None
    weights = _setup(layer, query, value, key)
    out, scores = layer(query, value, key=key, return_attention_scores=True)
    expected, probs = np_mha(query, value, value if key is None else key, weights)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(scores.numpy(), probs, rtol=1e-4, atol=1e-6)
    assert out.shape == (2, 4, 5)


def test_masks():
    layer = MultiHeadAttention(num_heads=2, key_dim=2)
    x = RNG.standard_normal((2, 4, 3)).astype(np.float32)
    weights = _setup(layer, x, x)
    causal = np.tril(np.ones((4, 4), bool))[None].repeat(2, 0)
    out, scores = layer(x, x, use_causal_mask=True, return_attention_scores=True)
    expected, probs = np_mha(x, x, x, weights, causal)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-4, atol=1e-5)
    assert np.all(scores.numpy()[:, :, 0, 1:] < 1e-9)
    explicit = RNG.random((2, 4, 4)) > 0.3
    explicit[..., 0] = True
    out = layer(x, x, attention_mask=explicit)
    np.testing.assert_allclose(out.numpy(), np_mha(x, x, x, weights, explicit)[0], rtol=1e-4,
                               atol=1e-5)
    # Padding masks: the Keras mask of the value hides its padded steps.
    value_mask = np.array([[1, 1, 0, 0], [1, 1, 1, 1]], bool)
    out = layer(x, x, value_mask=value_mask)
    np.testing.assert_allclose(out.numpy(), np_mha(x, x, x, weights,
                                                   np.broadcast_to(value_mask[:, None],
                                                                   (2, 4, 4)))[0],
                               rtol=1e-4, atol=1e-5)


def test_mask_from_embedding():
    ids = np.array([[1, 2, 0, 0]])
    emb = tf.keras.layers.Embedding(4, 6, mask_zero=True)
    layer = MultiHeadAttention(num_heads=1, key_dim=2)
    seq = emb(ids)
    out = layer(seq, seq)
    short = layer(emb(ids[:, :2]), emb(ids[:, :2]))
    np.testing.assert_allclose(out.numpy()[:, :2], short.numpy(), rtol=1e-5, atol=1e-6)


def test_output_shape_and_value_dim():
    layer = MultiHeadAttention(num_heads=2, key_dim=2, value_dim=3, output_shape=7,
                               use_bias=False)
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    assert layer(x, x).shape == (2, 3, 7)
    assert len(layer.weights) == 4


def test_check_layer_and_second_order():
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    y = RNG.standard_normal((2, 2, 3)).astype(np.float32)
    check_layer(MultiHeadAttention(num_heads=2, key_dim=2), input_data=[x, y],
                expected_output_shape=(2, 3, 4), expected_num_trainable_weights=8)
    check_layer(MultiHeadAttention(num_heads=1, key_dim=2), input_data=[x, y], order=2,
                run_training_step=False, check_config=False)


def test_dropout_only_in_training():
    layer = MultiHeadAttention(num_heads=2, key_dim=2, dropout=0.5)
    x = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    inference = layer(x, x).numpy()
    np.testing.assert_array_equal(layer(x, x, training=False).numpy(), inference)
    assert not np.allclose(layer(x, x, training=True).numpy(), inference)


def test_attention_bad_input():
    with pytest.raises(ValueError, match="num_heads"):
        MultiHeadAttention(0, 2)
    with pytest.raises(ValueError, match="attention_axes"):
        MultiHeadAttention(2, 2, attention_axes=(1,))
    layer = MultiHeadAttention(2, 2, name="mha_a")
    x = np.zeros((2, 3, 4), np.float32)
    layer(x, x)
    with pytest.raises(ValueError, match=r"'mha_a'.*query.*\(batch, \.\.\., 4\).*\(2, 3, 5\)"):
        layer(np.zeros((2, 3, 5), np.float32), x)
    with pytest.raises(ValueError, match=r"'mha_a'.*attention_mask.*\(2, 3, 3\).*\(2, 2\)"):
        layer(x, x, attention_mask=np.ones((2, 2), bool))
