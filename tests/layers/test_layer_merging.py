"""Merge layers: values against NumPy, gradients with respect to every input,
shape errors naming the layer, masks."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.testing.layers import check_layer

L = tf.keras.layers
RNG = np.random.default_rng(2)


@pytest.mark.parametrize("cls,reference", [
    (L.Add, lambda xs: xs[0] + xs[1] + xs[2]),
    (L.Multiply, lambda xs: xs[0] * xs[1] * xs[2]),
    (L.Average, lambda xs: (xs[0] + xs[1] + xs[2]) / 3),
    (L.Maximum, lambda xs: np.maximum(np.maximum(xs[0], xs[1]), xs[2])),
    (L.Minimum, lambda xs: np.minimum(np.minimum(xs[0], xs[1]), xs[2])),
])
def test_elementwise_merges(cls, reference):
    xs = [RNG.standard_normal((2, 3)).astype(np.float32) for _ in range(3)]
    out = check_layer(cls(), input_data=xs, expected_output_shape=(2, 3))
    np.testing.assert_allclose(out.numpy(), reference(xs), rtol=1e-6)


def test_subtract_and_broadcasting():
    a, b = RNG.standard_normal((2, 3)).astype(np.float32), RNG.standard_normal(
        (2, 1)).astype(np.float32)
    out = check_layer(L.Subtract(), input_data=[a, b], expected_output_shape=(2, 3))
    np.testing.assert_allclose(out.numpy(), a - b)
    with pytest.raises(ValueError, match="exactly 2 inputs"):
        L.Subtract()([a, a, a])


def test_functional_forms():
    a, b = np.ones((2, 3), np.float32), np.full((2, 3), 2.0, np.float32)
    np.testing.assert_allclose(L.add([a, b]).numpy(), a + b)
    np.testing.assert_allclose(L.subtract([a, b]).numpy(), a - b)
    np.testing.assert_allclose(L.multiply([a, b]).numpy(), a * b)
    np.testing.assert_allclose(L.average([a, b]).numpy(), (a + b) / 2)
    np.testing.assert_allclose(L.maximum([a, b]).numpy(), b)
    np.testing.assert_allclose(L.minimum([a, b]).numpy(), a)
    np.testing.assert_allclose(L.concatenate([a, b], axis=0).numpy(), np.concatenate([a, b]))
    np.testing.assert_allclose(L.dot([a, b], axes=1).numpy(), np.full((2, 1), 6.0))


def test_merge_errors_name_layer_and_shapes():
    with pytest.raises(ValueError, match=r"'adder'.*incompatible shapes.*\(2, 3\), \(2, 4\)"):
        L.Add(name="adder")([np.ones((2, 3), np.float32), np.ones((2, 4), np.float32)])
    with pytest.raises(ValueError, match="list of inputs"):
        L.Add()(np.ones((2, 3), np.float32))
    with pytest.raises(ValueError, match="at least 2"):
        L.Add()([np.ones((2, 3), np.float32)])


@pytest.mark.parametrize("axis", [-1, 1, 0])
def test_concatenate(axis):
    a = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    b = RNG.standard_normal((2, 3, 4)).astype(np.float32)
    out = check_layer(L.Concatenate(axis=axis), input_data=[a, b])
    np.testing.assert_array_equal(out.numpy(), np.concatenate([a, b], axis=axis))


def test_concatenate_errors_and_shape():
    layer = L.Concatenate(name="cat")
    with pytest.raises(ValueError, match=r"'cat'.*except for the concatenation axis -1.*"
                                         r"\(2, 3\), \(3, 3\)"):
        layer([np.ones((2, 3), np.float32), np.ones((3, 3), np.float32)])
    assert L.Concatenate().compute_output_shape([(None, 3), (None, 4)]) == (None, 7)


def test_concatenate_mask():
    a = np.ones((2, 3, 4), np.float32)
    b = np.ones((2, 3, 4), np.float32)
    emb = L.Embedding(5, 4, mask_zero=True)
    ea = emb(np.array([[1, 0, 2], [0, 0, 1]]))
    out = L.Concatenate(axis=1)([ea, tf.constant(b)])
    mask = L.get_keras_mask(out).numpy()
    np.testing.assert_array_equal(mask, np.concatenate([[[1, 0, 1], [0, 0, 1]],
                                                        np.ones((2, 3))], axis=1).astype(bool))
    del a


@pytest.mark.parametrize("shapes,axes", [(((2, 4), (2, 4)), 1), (((2, 3, 4), (2, 5, 4)), 2),
                                         (((2, 3, 4), (2, 3, 5)), 1),
                                         (((2, 3, 4), (2, 4)), (2, 1))])
def test_dot_against_einsum(shapes, axes):
    a = RNG.standard_normal(shapes[0]).astype(np.float32)
    b = RNG.standard_normal(shapes[1]).astype(np.float32)
    out = check_layer(L.Dot(axes=axes), input_data=[a, b])
    ax, bx = (axes, axes) if isinstance(axes, int) else axes
    expected = np.stack([np.tensordot(a[i], b[i], axes=(ax - 1, bx - 1)) for i in range(2)])
    if expected.ndim == 1:
        expected = expected[:, None]
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-5, atol=1e-6)


def test_dot_normalize_is_cosine_similarity():
    a = RNG.standard_normal((3, 4)).astype(np.float32)
    b = RNG.standard_normal((3, 4)).astype(np.float32)
    out = check_layer(L.Dot(axes=1, normalize=True), input_data=[a, b])
    cos = (a * b).sum(1) / np.linalg.norm(a, axis=1) / np.linalg.norm(b, axis=1)
    np.testing.assert_allclose(out.numpy()[:, 0], cos, rtol=1e-5)
    with pytest.raises(ValueError, match=r"'dt'.*4.*\(3, 4\).*5.*\(3, 5\)"):
        L.Dot(axes=1, name="dt")([a, np.ones((3, 5), np.float32)])
