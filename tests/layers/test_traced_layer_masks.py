"""Keras masks inside traced steps (issue 18, item 6): the merge layers' masks
(Keras 3's logical_or of the masks; Concatenate's per-input masks brought to
their input's rank, concatenated and reduced with any) and the Attention layers'
query, value and causal masks are ops, so tf.function and fit's traced step
replay them instead of running eagerly. Each traced call runs with warnings as
errors (the eager fallback warns); the masks are checked against NumPy written
from Keras's definitions, and fit's histories against run_eagerly=True's."""

import warnings

import numpy as np
import pytest

import tapeflow as tf

L = tf.keras.layers
_RNG = np.random.default_rng(0)
_A = _RNG.standard_normal((2, 5, 3)).astype(np.float32)
_B = _RNG.standard_normal((2, 5, 3)).astype(np.float32)
_MASK_A = np.array([[1, 1, 1, 0, 0], [1, 0, 1, 1, 0]], bool)
_MASK_B = np.array([[1, 1, 0, 0, 0], [0, 0, 1, 1, 1]], bool)


def _traced(fn, *arguments):
    """fn traced (no fallback warning) on `arguments`, then replayed on them reversed
    along their last axis; each result equals the eager call's, bit for bit."""
    traced = tf.function(fn)
    flipped = [np.flip(a, -1).copy() for a in arguments]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        results = [traced(*[tf.constant(a) for a in args]) for args in (arguments, flipped)]
    assert traced.experimental_get_tracing_count() == 1
    for args, result in zip((arguments, flipped), results):
        expected = fn(*[tf.constant(a) for a in args])
        assert np.asarray(result).tobytes() == np.asarray(expected).tobytes()
    return [np.asarray(r) for r in results]


MERGES = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum"]


@pytest.mark.parametrize("name", MERGES)
def test_merge_mask_is_the_or_of_the_masks_when_traced(name):
    layer = getattr(L, name)()
    first, replayed = _traced(lambda a, b: layer.compute_mask([_A, _B], [a, b]),
                              _MASK_A, _MASK_B)
    np.testing.assert_array_equal(first, _MASK_A | _MASK_B)
    np.testing.assert_array_equal(replayed, np.flip(_MASK_A, -1) | np.flip(_MASK_B, -1))


def test_merge_mask_broadcasts_and_accepts_numeric_masks():
    out = L.Add().compute_mask([_A, _B], [tf.constant(_MASK_A[:1]), tf.constant(
        _MASK_B.astype(np.float32))])
    assert out.dtype == tf.bool
    np.testing.assert_array_equal(np.asarray(out), _MASK_A[:1] | _MASK_B)
    assert L.Add().compute_mask([_A, _B], [tf.constant(_MASK_A), None]) is None


def test_concatenate_mask_on_the_last_axis_when_traced():
    """Keras 3: an unmasked input counts as all ones; a (B, T) mask is broadcast to
    its input's (B, T, d); the concatenation is reduced with any over the last axis."""
    layer = L.Concatenate()
    [first, _] = _traced(lambda m: layer.compute_mask([_A, _B], [m, None]), _MASK_A)
    np.testing.assert_array_equal(first, np.ones((2, 5), bool))
    first, replayed = _traced(lambda a, b: layer.compute_mask([_A, _B], [a, b]),
                              _MASK_A, _MASK_B)
    np.testing.assert_array_equal(first, _MASK_A | _MASK_B)
    np.testing.assert_array_equal(replayed, np.flip(_MASK_A, -1) | np.flip(_MASK_B, -1))


def test_concatenate_mask_along_the_steps_when_traced():
    layer = L.Concatenate(axis=1)
    first, replayed = _traced(lambda a: layer.compute_mask([_A, _B], [a, None]), _MASK_A)
    np.testing.assert_array_equal(first, np.concatenate([_MASK_A, np.ones((2, 5), bool)], 1))
    np.testing.assert_array_equal(replayed, np.concatenate([np.flip(_MASK_A, -1),
                                                            np.ones((2, 5), bool)], 1))


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


@pytest.mark.parametrize("causal", [False, True], ids=["padding", "causal"])
def test_attention_masks_when_traced(causal):
    """Keras's Attention: -1e9 on the scores where a value step is masked (or
    later than the query step), softmax, @ value, times the query mask."""
    layer = L.Attention()
    first, replayed = _traced(
        lambda q, v: layer([tf.constant(_A), tf.constant(_B)], mask=[q, v],
                           use_causal_mask=causal), _MASK_A, _MASK_B)
    for result, (qm, vm) in zip((first, replayed), ((_MASK_A, _MASK_B), (
            np.flip(_MASK_A, -1), np.flip(_MASK_B, -1)))):
        allowed = vm[:, None, :] & (np.tril(np.ones((5, 5), bool)) if causal else True)
        # In float32, as the layer: a row with nothing allowed loses its scores to
        # the -1e9 and comes out uniform, as Keras's additive mask gives it.
        scores = _A @ _B.transpose(0, 2, 1) - np.float32(1e9) * ~allowed
        expected = (_softmax(scores) @ _B) * qm[..., None]
        np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-6)


def test_additive_attention_mask_and_output_mask_when_traced():
    layer = L.AdditiveAttention()
    _traced(lambda q, v: layer([tf.constant(_A), tf.constant(_B)], mask=[q, v]),
            _MASK_A, _MASK_B)
    [first, _] = _traced(lambda q, v: layer.compute_mask([_A, _B], [q, v]), _MASK_A, _MASK_B)
    np.testing.assert_array_equal(first, _MASK_A)


def _masked_model(merge):
    tf.keras.utils.set_random_seed(5)
    first = tf.keras.Input((6,), dtype="int32")
    second = tf.keras.Input((6,), dtype="int32")
    a = L.Embedding(7, 4, mask_zero=True)(first)
    b = L.Embedding(7, 4, mask_zero=True)(second)
    h = merge([a, b])
    h = L.Attention(use_scale=True)([h, b])
    h = L.AdditiveAttention()([h, a])
    return tf.keras.Model([first, second], L.Dense(1)(L.GlobalAveragePooling1D()(h)))


@pytest.mark.parametrize("merge", [L.Add, L.Multiply, L.Maximum, lambda: L.Concatenate(axis=1)],
                         ids=["Add", "Multiply", "Maximum", "Concatenate_steps"])
def test_fit_with_masked_merges_and_attention_is_traced_and_equals_eager(merge):
    rng = np.random.default_rng(2)
    tokens = [rng.integers(0, 7, size=(16, 6)), rng.integers(0, 7, size=(16, 6))]
    for t in tokens:
        t[:, 4:] = 0  # padding the masks drop
    y = rng.normal(size=(16, 1)).astype(np.float32)
    histories = []
    for eager in (False, True):
        model = _masked_model(merge())
        model.compile(optimizer=tf.keras.optimizers.SGD(0.1), loss="mse", run_eagerly=eager)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            histories.append(model.fit(tokens, y, batch_size=4, epochs=2, verbose=0,
                                       shuffle=False).history["loss"])
    assert histories[0] == histories[1]
    assert histories[0][-1] < histories[0][0]
