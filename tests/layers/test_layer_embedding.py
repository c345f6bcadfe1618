"""Embedding: lookup values, the dense gradient (a scatter-add), masks, errors."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.layers import check_layer

L = tf.keras.layers


def test_embedding_lookup_and_check_layer():
    layer = L.Embedding(10, 4)
    ids = np.array([[1, 2, 2], [9, 0, 1]], np.int32)
    out = check_layer(layer, input_data=ids, expected_output_shape=(2, 3, 4),
                      expected_num_trainable_weights=1)
    table = layer.embeddings.numpy()
    np.testing.assert_array_equal(out.numpy(), table[ids])
    assert table.shape == (10, 4) and np.abs(table).max() <= 0.05
    assert layer.embeddings.path == f"{layer.name}/embeddings"


def test_embedding_gradient_accumulates_repeated_ids():
    layer = L.Embedding(5, 2)
    ids = np.array([[1, 1, 3]])
    with tf.GradientTape() as tape:
        out = tf.reduce_sum(layer(ids) * tf.constant([[[1.0, 2.0]]]))
    grad = tf.convert_to_tensor(tape.gradient(out, layer.embeddings)).numpy()
    expected = np.zeros((5, 2))
    expected[1] = [2.0, 4.0]
    expected[3] = [1.0, 2.0]
    np.testing.assert_allclose(grad, expected)


def test_embedding_float_ids_are_cast_and_mask_zero():
    layer = L.Embedding(4, 3, mask_zero=True)
    out = layer(np.array([[1.0, 0.0, 3.0]], np.float32))
    np.testing.assert_array_equal(out.numpy(), layer.embeddings.numpy()[[[1, 0, 3]]])
    np.testing.assert_array_equal(layer.compute_mask(np.array([[1, 0, 3]])).numpy(),
                                  [[True, False, True]])
    np.testing.assert_array_equal(L.get_keras_mask(out).numpy(), [[True, False, True]])


def test_embedding_bad_input():
    with pytest.raises(ValueError, match="input_dim must be a positive int"):
        L.Embedding(0, 3)
    with pytest.raises(ValueError, match=r"indices.*7.*not in \[0, 4\)"):
        L.Embedding(4, 3)(np.array([[1, 7]]))


def test_embedding_config_and_initial_weights():
    table = np.arange(6, dtype=np.float32).reshape(3, 2)
    layer = L.Embedding(3, 2, weights=[table])
    np.testing.assert_array_equal(layer(np.array([2])).numpy(), [[4.0, 5.0]])
    clone = L.Embedding.from_config(L.Embedding(3, 2, mask_zero=True).get_config())
    assert clone.mask_zero and clone.get_config()["embeddings_initializer"]["class_name"] == \
        "RandomUniform"
