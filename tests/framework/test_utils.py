"""`tf.keras.utils` (tapeflow.utils) and Keras 2's `keras.preprocessing.text`:
pad_sequences with the examples of Keras's docstring, normalize, get_file on
file:// URLs (cache, hash, archives, the offline error), Progbar's averages,
the serializable registry, image arrays, and the Tokenizer's indices."""

import io
import os
import tarfile
import zipfile

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras.preprocessing.text import Tokenizer, text_to_word_sequence

utils = tf.keras.utils
SEQUENCES = [[1], [2, 3], [4, 5, 6]]


@pytest.mark.parametrize("kwargs, expected", [  # Keras's pad_sequences docstring
    ({}, [[0, 0, 1], [0, 2, 3], [4, 5, 6]]),
    ({"value": -1}, [[-1, -1, 1], [-1, 2, 3], [4, 5, 6]]),
    ({"padding": "post"}, [[1, 0, 0], [2, 3, 0], [4, 5, 6]]),
    ({"maxlen": 2}, [[0, 1], [2, 3], [5, 6]]),
    ({"maxlen": 2, "truncating": "post"}, [[0, 1], [2, 3], [4, 5]]),
    ({"maxlen": 4, "padding": "post", "value": 9}, [[1, 9, 9, 9], [2, 3, 9, 9], [4, 5, 6, 9]]),
])
def test_pad_sequences(kwargs, expected):
    out = utils.pad_sequences(SEQUENCES, **kwargs)
    assert out.dtype == np.int32 and out.tolist() == expected


def test_pad_sequences_items_dtypes_and_errors():
    out = utils.pad_sequences([np.ones((2, 3)), []], maxlen=3, dtype="float32")
    assert out.shape == (2, 3, 3) and out[0, 0].sum() == 0 and out[0, 1:].sum() == 6
    assert utils.pad_sequences([["a"], ["b", "c"]], dtype=object, value="").tolist() == [
        ["", "a"], ["b", "c"]]
    assert utils.pad_sequences([]).shape == (0, 0)
    with pytest.raises(ValueError, match="Padding type"):
        utils.pad_sequences(SEQUENCES, padding="middle")
    with pytest.raises(ValueError, match="Truncating type"):
        utils.pad_sequences(SEQUENCES, truncating="middle")
    with pytest.raises(ValueError, match="dtype=object"):
        utils.pad_sequences(SEQUENCES, value="x")
    with pytest.raises(ValueError, match="non-iterable: 3"):
        utils.pad_sequences([[1], 3])
    with pytest.raises(ValueError, match=r"\(2,\) of sequence at position 1"):
        utils.pad_sequences([np.ones((1, 3)), np.ones((1, 2))])


def test_normalize_and_to_categorical():
    np.testing.assert_allclose(utils.normalize(np.array([[3.0, 4.0], [0.0, 0.0]])),
                               [[0.6, 0.8], [0.0, 0.0]])
    np.testing.assert_allclose(utils.normalize(np.array([[1.0, 3.0]]), axis=0, order=1),
                               [[1.0, 1.0]])
    assert utils.to_categorical([0, 2], 3).tolist() == [[1, 0, 0], [0, 0, 1]]


def test_set_random_seed_repeats_and_checks_its_argument():
    utils.set_random_seed(3)
    first = (np.random.rand(), tf.random.normal((2,)).numpy())
    utils.set_random_seed(3)
    assert np.random.rand() == first[0]
    np.testing.assert_array_equal(tf.random.normal((2,)).numpy(), first[1])
    with pytest.raises(ValueError, match="integer"):
        utils.set_random_seed(1.5)


# -- get_file ----------------------------------------------------------------------------------


def _source(tmp_path, name, data=b"payload"):
    path = tmp_path / "server" / name
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)
    return path


def test_get_file_downloads_once_into_the_cache(tmp_path):
    source = _source(tmp_path, "data.bin")
    cache = tmp_path / "cache"
    path = utils.get_file(origin=source.as_uri(), cache_dir=cache)
    assert path == os.path.join(cache, "datasets", "data.bin")
    assert open(path, "rb").read() == b"payload"
    source.unlink()  # cached: no second download
    assert utils.get_file("data.bin", source.as_uri(), cache_dir=cache) == path
    assert not [p for p in os.listdir(os.path.dirname(path)) if p.endswith(".part")]


def test_get_file_checks_hashes(tmp_path):
    source = _source(tmp_path, "data.bin")
    sha = "239f59ed55e737c77147cf55ad0c1b030b6d7ee748a7426952f9b852d5a935e5"  # sha256("payload")
    md5 = "321c3cf486ed509164edec1e1981fec8"
    import hashlib
    assert hashlib.sha256(b"payload").hexdigest() == sha and hashlib.md5(b"payload").hexdigest() == md5
    assert utils.get_file(origin=source.as_uri(), file_hash=sha, cache_dir=tmp_path / "a")
    assert utils.get_file(origin=source.as_uri(), md5_hash=md5, cache_dir=tmp_path / "b")
    with pytest.raises(ValueError, match="sha256 file hash does not match"):
        utils.get_file(origin=source.as_uri(), file_hash="0" * 64, cache_dir=tmp_path / "c")
    assert not os.listdir(tmp_path / "c" / "datasets")  # nothing half-written is left


def test_get_file_untar_and_extract(tmp_path):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        info = tarfile.TarInfo("photos/a.txt")
        info.size = 2
        archive.addfile(info, io.BytesIO(b"hi"))
    source = _source(tmp_path, "photos.tgz", buffer.getvalue())
    path = utils.get_file("photos", origin=source.as_uri(), untar=True, cache_dir=tmp_path,
                          cache_subdir="")
    assert path == os.path.join(tmp_path, "photos")
    assert open(os.path.join(path, "a.txt")).read() == "hi"
    assert os.path.exists(path + ".tar.gz")
    zipped = tmp_path / "server" / "z.zip"
    with zipfile.ZipFile(zipped, "w") as archive:
        archive.writestr("inner/b.txt", "yo")
    archive_path = utils.get_file(origin=zipped.as_uri(), extract=True, cache_dir=tmp_path / "z")
    assert archive_path.endswith("z.zip")
    assert open(os.path.join(os.path.dirname(archive_path), "inner", "b.txt")).read() == "yo"


def test_get_file_offline_names_the_url(tmp_path):
    url = "http://127.0.0.1:9/missing.bin"  # the discard port: connection refused at once
    with pytest.raises(OSError, match="URL fetch failure on http://127.0.0.1:9/missing.bin"):
        utils.get_file(origin=url, cache_dir=tmp_path)
    with pytest.raises(ValueError, match="origin"):
        utils.get_file("x")


# -- Progbar, registry, images, text ------------------------------------------------------------


def test_progbar_averages_as_keras(capsys):
    bar = utils.Progbar(4, stateful_metrics=["acc"])
    bar.update(1, [("loss", 1.0), ("acc", 0.5)])
    bar.update(3, [("loss", 4.0), ("acc", 0.75)])  # weighed by the 2 steps
    bar.add(1, [("loss", 0.0)])
    assert bar._values["loss"] == [9.0, 4] and bar._values["acc"] == [0.75, 1]
    out = capsys.readouterr().out
    assert "4/4 [==============================]" in out and "loss: 2.2500" in out
    assert "acc: 0.7500" in out
    silent = utils.Progbar(None, verbose=0)
    silent.update(5, [("x", 1.0)])
    assert capsys.readouterr().out == ""


def test_register_keras_serializable():
    @utils.register_keras_serializable(package="Tests")
    class UtilsScale(tf.keras.layers.Layer):
        pass

    assert utils.get_registered_name(UtilsScale) == "Tests>UtilsScale"
    assert utils.get_registered_object("Tests>UtilsScale") is UtilsScale
    assert utils.get_registered_object("UtilsScale") is UtilsScale
    assert utils.get_custom_objects()["Tests>UtilsScale"] is UtilsScale
    with utils.custom_object_scope({"Other": int}):
        assert utils.get_registered_object("Other") is int
    assert utils.get_registered_object("Other") is None
    with pytest.raises(ValueError, match="get_config"):
        utils.register_keras_serializable()(type("NoConfig", (), {}))


def test_image_arrays_round_trip(tmp_path):
    pytest.importorskip("PIL")
    x = np.arange(12, dtype=np.float32).reshape(2, 2, 3)
    img = utils.array_to_img(x)
    assert img.size == (2, 2) and img.mode == "RGB"
    np.testing.assert_array_equal(utils.img_to_array(img), np.floor(x / 11 * 255))
    gray = utils.array_to_img(np.full((3, 4, 1), 7.0), scale=False)
    assert gray.mode == "L" and utils.img_to_array(gray).shape == (3, 4, 1)
    path = tmp_path / "a.png"
    utils.save_img(path, x, scale=False)
    loaded = utils.load_img(path, color_mode="grayscale", target_size=(4, 6))
    assert loaded.size == (6, 4) and utils.img_to_array(loaded).shape == (4, 6, 1)
    with pytest.raises(ValueError, match="rank 3"):
        utils.array_to_img(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="color_mode"):
        utils.load_img(path, color_mode="cmyk")


def test_tokenizer_as_keras2():
    assert text_to_word_sequence("Hello, World! hello") == ["hello", "world", "hello"]
    tok = Tokenizer(num_words=3, oov_token="<oov>")
    tok.fit_on_texts(["the cat sat", "the cat ran", "the dog"])
    # by count, ties in order of first appearance, after the OOV token
    assert tok.word_index == {"<oov>": 1, "the": 2, "cat": 3, "sat": 4, "ran": 5, "dog": 6}
    assert tok.texts_to_sequences(["the cat flew"]) == [[2, 1, 1]]  # cat (3) >= num_words
    assert tok.sequences_to_texts([[2, 9]]) == ["the <oov>"]
    assert tok.document_count == 3 and tok.word_docs["the"] == 3
    counts = tok.texts_to_matrix(["the the sat"], mode="count")
    assert counts.tolist() == [[0.0, 1.0, 2.0]]
    tfidf = Tokenizer()
    tfidf.fit_on_texts(["a b", "a"])
    idf_b = np.log(1 + 2 / (1 + 1))
    np.testing.assert_allclose(tfidf.texts_to_matrix(["b b"], mode="tfidf")[0, 2],
                               (1 + np.log(2)) * idf_b)
    with pytest.raises(ValueError, match="tfidf"):
        Tokenizer(num_words=5).texts_to_matrix(["a"], mode="tfidf")


# -- Datasets from folders and arrays -----------------------------------------------------------


@pytest.fixture()
def image_folder(tmp_path):
    image = pytest.importorskip("PIL.Image")
    (tmp_path / "cats").mkdir()
    (tmp_path / "dogs").mkdir()
    for i in range(5):
        image.fromarray(np.full((10, 20, 3), i * 10, np.uint8)).save(tmp_path / "cats" / f"c{i}.png")
    for i in range(3):
        image.fromarray(np.full((8, 8, 3), 200 + i, np.uint8)).save(tmp_path / "dogs" / f"d{i}.jpg")
    (tmp_path / "cats" / "notes.txt").write_text("not an image")
    return tmp_path


def test_image_dataset_from_directory(image_folder, capsys):
    ds = utils.image_dataset_from_directory(image_folder, image_size=(4, 6), batch_size=8,
                                            shuffle=False, label_mode="categorical")
    assert "Found 8 files belonging to 2 classes." in capsys.readouterr().out
    assert ds.class_names == ["cats", "dogs"]
    (images, labels), = list(ds)
    assert images.shape == (8, 4, 6, 3) and images.dtype == tf.float32
    np.testing.assert_allclose(images.numpy()[:5, 0, 0, 0], [0, 10, 20, 30, 40])
    np.testing.assert_allclose(images.numpy()[5:, 0, 0, 0], [200, 201, 202], atol=2)  # jpeg
    np.testing.assert_array_equal(labels.numpy(), np.eye(2)[[0] * 5 + [1] * 3])
    train, val = utils.image_dataset_from_directory(image_folder, image_size=(4, 4), seed=3,
                                                    validation_split=0.25, subset="both",
                                                    color_mode="grayscale")
    out = capsys.readouterr().out
    assert "Using 6 files for training." in out and "Using 2 files for validation." in out
    assert sum(len(y) for _, y in train) == 6 and sum(len(y) for _, y in val) == 2
    assert set(train.file_paths).isdisjoint(val.file_paths)
    assert next(iter(val))[0].shape[-1] == 1
    with pytest.raises(ValueError, match="seed"):
        utils.image_dataset_from_directory(image_folder, validation_split=0.2, subset="training")
    with pytest.raises(ValueError, match="label_mode"):
        utils.image_dataset_from_directory(image_folder, label_mode="sparse")
    with pytest.raises(ValueError, match="exactly 2"):
        utils.image_dataset_from_directory(image_folder, label_mode="binary",
                                           class_names=["cats"])


def test_text_dataset_from_directory(tmp_path):
    for label, texts in (("neg", ["bad movie"]), ("pos", ["good", "great fun"])):
        (tmp_path / label).mkdir()
        for i, text in enumerate(texts):
            (tmp_path / label / f"{i}.txt").write_text(text)
    ds = utils.text_dataset_from_directory(tmp_path, batch_size=2, shuffle=False, max_length=5,
                                           verbose=False)
    batches = [(x.numpy().tolist(), y.numpy().tolist()) for x, y in ds]
    assert batches == [([b"bad m", b"good"], [0, 1]), ([b"great"], [1])]


def test_timeseries_dataset_from_array_as_keras_docs():
    data = np.arange(100)
    x, y = next(iter(utils.timeseries_dataset_from_array(data[:-10], data[10:],
                                                         sequence_length=10)))
    assert x.shape == (81, 10) and x[0].numpy().tolist() == list(range(10))
    assert y[:3].numpy().tolist() == [10, 11, 12]
    windows = utils.timeseries_dataset_from_array(np.arange(20), None, sequence_length=3,
                                                  sampling_rate=2, sequence_stride=3,
                                                  batch_size=2, start_index=2)
    assert [b.numpy().tolist() for b in windows] == [[[2, 4, 6], [5, 7, 9]],
                                                     [[8, 10, 12], [11, 13, 15]],
                                                     [[14, 16, 18]]]
    shuffled = utils.timeseries_dataset_from_array(np.arange(30), None, 5, batch_size=None,
                                                   shuffle=True, seed=1)
    starts = sorted(int(w.numpy()[0]) for w in shuffled)
    assert starts == list(range(26))
    with pytest.raises(ValueError, match="same number of time steps"):
        utils.timeseries_dataset_from_array(np.zeros(5), np.zeros(4), 2)
    with pytest.raises(ValueError, match="sampling_rate"):
        utils.timeseries_dataset_from_array(np.zeros(5), None, 2, sampling_rate=0)
