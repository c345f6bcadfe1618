"""Keras's vocabulary layers, StringLookup, IntegerLookup and TextVectorization,
against the examples of Keras's docstrings (indices, adapt's order, OOV
buckets, the encodings, invert, masks), in models and in Dataset.map."""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.layers.preprocessing_hashing import fingerprint64

layers = tf.keras.layers
VOCAB = ["a", "b", "c", "d"]
DATA = [["a", "c", "d"], ["d", "z", "b"]]
BAGS = [["a", "c", "d", "d"], ["d", "z", "b", "z"]]


def test_string_lookup_keras_docstring_examples():
    assert layers.StringLookup(vocabulary=VOCAB)(DATA).numpy().tolist() == [[1, 3, 4], [4, 0, 2]]
    learned = layers.StringLookup()
    learned.adapt(DATA)
    # by count, then ties with the larger token first (Keras's lexsort)
    assert learned.get_vocabulary() == ["[UNK]", "d", "z", "c", "b", "a"]
    assert learned.vocabulary_size() == 6
    two_oov = layers.StringLookup(vocabulary=VOCAB, num_oov_indices=2)
    assert two_oov([["a", "c", "d"], ["m", "z", "b"]]).numpy().tolist() == [[2, 4, 5], [0, 1, 3]]
    assert [fingerprint64(t) % 2 for t in "mz"] == [0, 1]  # the buckets are FarmHash's
    one_hot = layers.StringLookup(vocabulary=VOCAB, output_mode="one_hot")
    np.testing.assert_array_equal(one_hot(["a", "b", "c", "d", "z"]).numpy(),
                                  np.eye(5)[[1, 2, 3, 4, 0]])
    multi = layers.StringLookup(vocabulary=VOCAB, output_mode="multi_hot")
    assert multi(BAGS).numpy().tolist() == [[0, 1, 0, 1, 1], [1, 0, 1, 0, 1]]
    count = layers.StringLookup(vocabulary=VOCAB, output_mode="count")
    assert count(BAGS).numpy().tolist() == [[0, 1, 0, 1, 2], [2, 0, 1, 0, 1]]
    tf_idf = layers.StringLookup(output_mode="tf_idf", vocabulary=VOCAB,
                                 idf_weights=[0.25, 0.75, 0.6, 0.4])
    np.testing.assert_allclose(tf_idf(BAGS).numpy(), [[0, 0.25, 0, 0.6, 0.8],
                                                      [1.0, 0, 0.75, 0, 0.4]], rtol=1e-6)
    inverse = layers.StringLookup(vocabulary=VOCAB, invert=True)([[1, 3, 4], [4, 0, 2]])
    assert inverse.numpy().tolist() == [[b"a", b"c", b"d"], [b"d", b"[UNK]", b"b"]]


def test_string_lookup_mask_tokens_and_bytes():
    masked = layers.StringLookup(vocabulary=VOCAB, mask_token="")
    assert masked.get_vocabulary() == ["", "[UNK]", "a", "b", "c", "d"]
    assert masked([["a", "c", ""], ["d", "z", "b"]]).numpy().tolist() == [[2, 4, 0], [5, 1, 3]]
    bag = layers.StringLookup(vocabulary=VOCAB, mask_token="", output_mode="count")
    assert bag([["a", "", ""]]).numpy().tolist() == [[0, 1, 0, 0, 0]]  # the mask counts nothing
    assert layers.StringLookup(vocabulary=VOCAB)(tf.constant([b"b", "z"])).numpy().tolist() == [2, 0]


def test_string_lookup_errors():
    with pytest.raises(ValueError, match="repeated"):
        layers.StringLookup(vocabulary=["a", "a"])
    with pytest.raises(ValueError, match="larger than the maximum vocab size"):
        layers.StringLookup(vocabulary=VOCAB, max_tokens=3)
    with pytest.raises(ValueError, match="invert"):
        layers.StringLookup(invert=True, output_mode="count")
    with pytest.raises(ValueError, match="num_oov_indices=1"):
        layers.StringLookup(vocabulary=VOCAB, num_oov_indices=0)(["z"])
    with pytest.raises(ValueError, match="Cannot adapt"):
        layers.StringLookup(vocabulary=VOCAB).adapt(DATA)
    with pytest.raises(RuntimeError, match="vocabulary"):
        layers.StringLookup(output_mode="multi_hot")(["a"])


def test_string_lookup_from_a_file_and_max_tokens(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_text("x\ny\n")
    assert layers.StringLookup(vocabulary=str(path))(["y", "q"]).numpy().tolist() == [2, 0]
    capped = layers.StringLookup(max_tokens=3)
    capped.adapt([["p", "p", "q", "r", "r", "r"]])
    assert capped.get_vocabulary() == ["[UNK]", "r", "p"]
    again = layers.StringLookup.from_config(capped.get_config())
    assert again.get_vocabulary() == capped.get_vocabulary()


def test_integer_lookup_keras_docstring_examples():
    vocab = [12, 36, 1138, 42]
    assert layers.IntegerLookup(vocabulary=vocab)([[12, 1138, 42], [42, 1000, 36]]).numpy(
    ).tolist() == [[1, 3, 4], [4, 0, 2]]
    learned = layers.IntegerLookup()
    learned.adapt([[12, 1138, 42], [42, 1000, 36]])
    assert learned.get_vocabulary() == [-1, 42, 1138, 1000, 36, 12]
    two_oov = layers.IntegerLookup(vocabulary=vocab, num_oov_indices=2)
    assert two_oov([[12, 1138, 42], [37, 1000, 36]]).numpy().tolist() == [[2, 4, 5], [1, 0, 3]]
    inverse = layers.IntegerLookup(vocabulary=vocab, invert=True)([[1, 3, 4], [4, 0, 2]])
    assert inverse.dtype == tf.int64 and inverse.numpy().tolist() == [[12, 1138, 42],
                                                                      [42, -1, 36]]
    with pytest.raises(ValueError, match="mask_token"):
        layers.IntegerLookup(mask_token=-2)


def test_text_vectorization_keras_docstring_examples():
    layer = layers.TextVectorization(max_tokens=5000, output_mode="int",
                                     output_sequence_length=4)
    layer.adapt(["foo bar", "bar baz", "baz bada boom"])
    assert layer([["foo qux bar"], ["qux baz"]]).numpy().tolist() == [[4, 1, 3, 0], [1, 2, 0, 0]]
    assert layer.get_vocabulary() == ["", "[UNK]", "baz", "bar", "foo", "boom", "bada"]
    given = layers.TextVectorization(output_sequence_length=4,
                                     vocabulary=["earth", "wind", "and", "fire"])
    assert given([["earth wind and Fire!"]]).numpy().tolist() == [[2, 3, 4, 5]]
    assert layers.TextVectorization(vocabulary=["x"])(["x y x", "x"]).numpy().tolist() == [
        [2, 1, 2], [2, 0, 0]]  # padded to the longest text


def test_text_vectorization_options():
    bigrams = layers.TextVectorization(output_mode="multi_hot", ngrams=2)
    bigrams.adapt(np.array(["The cat sat.", "the cat ran"]))
    assert bigrams.get_vocabulary() == ["[UNK]", "the cat", "the", "cat", "sat", "ran",
                                        "cat sat", "cat ran"]
    assert bigrams(["cat sat"]).numpy().tolist() == [[0, 0, 0, 1, 1, 0, 1, 0]]
    tf_idf = layers.TextVectorization(output_mode="tf_idf")
    tf_idf.adapt(tf.data.Dataset.from_tensor_slices(["a b b", "a c"]).batch(1))
    idf = {"a": np.log(1 + 2 / 3), "b": np.log(2), "c": np.log(2)}
    np.testing.assert_allclose(tf_idf(["b b z"]).numpy(),
                               [[np.mean(list(idf.values())), 2 * idf["b"], 0, 0]], rtol=1e-6)
    chars = layers.TextVectorization(split="character", standardize="lower", vocabulary=["a"])
    assert chars(["Ab"]).numpy().tolist() == [[2, 1]]
    custom = layers.TextVectorization(standardize=None, split=lambda t: [
        s.split(b"-") for s in t.numpy()], vocabulary=["A", "b"])
    assert custom(["A-b-A"]).numpy().tolist() == [[2, 3, 2]]
    with pytest.raises(ValueError, match="output_sequence_length"):
        layers.TextVectorization(output_mode="count", output_sequence_length=3)
    with pytest.raises(ValueError, match="split"):
        layers.TextVectorization(split="comma")


def test_text_vectorization_in_a_model_and_dataset_map():
    vectorize = layers.TextVectorization(max_tokens=10, output_sequence_length=4)
    vectorize.adapt(["foo bar", "bar baz", "baz bada boom"])
    model = tf.keras.Sequential([tf.keras.Input((1,), dtype="string"), vectorize,
                                 layers.Embedding(10, 2), layers.GlobalAveragePooling1D(),
                                 layers.Dense(1)])
    texts, labels = np.array(["foo bar", "baz"]), np.array([1.0, 0.0])
    model.compile("adam", "mse")
    history = model.fit(tf.data.Dataset.from_tensor_slices((texts, labels)).batch(2), epochs=2,
                        verbose=0)
    assert len(history.history["loss"]) == 2
    assert model(np.array([["foo bar"]])).shape == (1, 1)
    mapped = tf.data.Dataset.from_tensor_slices((texts, labels)).batch(2).map(
        lambda x, y: (vectorize(x), y))
    assert [x.numpy().tolist() for x, _ in mapped] == [[[4, 3, 0, 0], [2, 0, 0, 0]]]


def test_text_vectorization_config_round_trip():
    layer = layers.TextVectorization(max_tokens=8, ngrams=(1, 3), output_sequence_length=5)
    layer.adapt(["a b c d", "a b"])
    again = layers.deserialize(layers.serialize(layer))
    assert again.get_vocabulary() == layer.get_vocabulary()
    assert again(["a b c"]).numpy().tolist() == layer(["a b c"]).numpy().tolist()
