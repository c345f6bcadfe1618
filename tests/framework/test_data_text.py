"""tf.data over files (tapeflow.data): TextLineDataset (plain, GZIP, ZLIB,
interleaved reads) and Dataset.list_files, with string elements as TF gives
them (scalar tf.string tensors, bytes from as_numpy_iterator)."""

import gzip
import zlib

import numpy as np
import pytest
import tapeflow as tf

D = tf.data.Dataset


def values(dataset):
    return list(dataset.as_numpy_iterator())


@pytest.fixture
def files(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"first\r\nsecond\n\nlast")
    (tmp_path / "b.txt").write_bytes(b"x\ny\r")     # a "\\r" ending the file goes too (TF 2.21)
    (tmp_path / "c.csv").write_bytes(b"1,2\n")
    return tmp_path


def test_text_line_dataset_strips_line_endings_as_tf(files):
    ds = tf.data.TextLineDataset([str(files / "a.txt"), str(files / "b.txt")])
    assert values(ds) == [b"first", b"second", b"", b"last", b"x", b"y"]
    assert ds.element_spec == tf.TensorSpec((), tf.string)
    assert ds.cardinality().numpy() == tf.data.UNKNOWN_CARDINALITY
    line = next(iter(ds))
    assert isinstance(line, tf.Tensor) and line.dtype == tf.string and line.shape == ()
    assert line.numpy() == b"first"
    assert isinstance(ds, tf.data.Dataset)


def test_text_line_dataset_reads_compressed_files(tmp_path):
    (tmp_path / "g.gz").write_bytes(gzip.compress(b"g1\ng2\n"))
    (tmp_path / "z.z").write_bytes(zlib.compress(b"z1\nz2"))
    assert values(tf.data.TextLineDataset(str(tmp_path / "g.gz"), compression_type="GZIP")) == \
        [b"g1", b"g2"]
    assert values(tf.data.TextLineDataset(str(tmp_path / "z.z"), "ZLIB")) == [b"z1", b"z2"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="compression_type"):
        tf.data.TextLineDataset(str(tmp_path / "z.z"), "BZIP2")


def test_text_line_dataset_interleaves_parallel_reads(files):
    ds = tf.data.TextLineDataset([str(files / "a.txt"), str(files / "b.txt")],
                                 num_parallel_reads=2)
    assert values(ds) == [b"first", b"x", b"second", b"y", b"", b"last"]


def test_text_line_dataset_missing_file_is_not_found(files):
    ds = tf.data.TextLineDataset(str(files / "nope.txt"))
    with pytest.raises(tf.errors.NotFoundError, match="nope.txt; No such file"):
        values(ds)


def test_text_lines_through_map_filter_and_skip(files):
    ds = tf.data.TextLineDataset(str(files / "a.txt")).skip(1)
    ds = ds.filter(lambda line: line != "").map(lambda line: line + "!")
    assert values(ds) == [b"second!", b"last!"]
    assert values(ds.batch(2))[0].tolist() == [b"second!", b"last!"]


def test_list_files(files):
    pattern = str(files / "*.txt")
    names = values(D.list_files(pattern, shuffle=False))
    assert names == [str(files / "a.txt").encode(), str(files / "b.txt").encode()]
    assert D.list_files(pattern).element_spec == tf.TensorSpec((), tf.string)
    both = values(D.list_files([pattern, str(files / "*.csv")], shuffle=False))
    assert [n.rsplit(b"/", 1)[1] for n in both] == [b"a.txt", b"b.txt", b"c.csv"]
    shuffled = D.list_files(str(files / "*"), seed=4)
    orders = [values(shuffled) for _ in range(6)]
    assert all(sorted(o) == sorted(both) for o in orders)
    assert len({tuple(o) for o in orders}) > 1   # reshuffled on each pass
    lines = D.list_files(pattern, shuffle=False).interleave(tf.data.TextLineDataset,
                                                           cycle_length=2)
    assert values(lines) == [b"first", b"x", b"second", b"y", b"", b"last"]
    with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched pattern"):
        D.list_files(str(files / "*.nothing"))


def test_from_tensor_slices_of_strings():
    ds = D.from_tensor_slices((["a", "bb"], [1, 2]))
    assert ds.element_spec == (tf.TensorSpec((), tf.string), tf.TensorSpec((), tf.int32))
    assert values(ds) == [(b"a", 1), (b"bb", 2)]
    assert values(D.from_tensors(([1, 2, 3], "A")))[0][1] == b"A"
    padded = values(D.from_tensor_slices([["a", "bb"], ["c", "d"]]).padded_batch(
        2, padded_shapes=[3]))
    assert padded[0].tolist() == [[b"a", b"bb", b""], [b"c", b"d", b""]]
    assert values(D.from_tensor_slices(np.array(["x", "y"])).shuffle(2, seed=0).batch(2)
                  .unbatch().map(lambda s: s + "!")) in ([b"x!", b"y!"], [b"y!", b"x!"])


def test_from_generator_of_strings():
    def gen():
        yield "cat", 1
        yield b"dog", 2

    spec = (tf.TensorSpec((), tf.string), tf.TensorSpec((), tf.int64))
    assert values(D.from_generator(gen, output_signature=spec)) == [(b"cat", 1), (b"dog", 2)]
    with pytest.raises(tf.errors.InvalidArgumentError, match="expected type was string"):
        values(D.from_generator(lambda: iter([(1, 1)]), output_signature=spec))


def test_tfrecord_dataset_reads_records_and_checks_crcs(tmp_path):
    from tapeflow.summary.records import (
        tfrecord,  # TFRecord framing, written by tf.summary
    )

    path = tmp_path / "r.tfrecord"
    path.write_bytes(tfrecord(b"alpha") + tfrecord(b"") + tfrecord(b"\x00\xff" * 300))
    ds = tf.data.TFRecordDataset(str(path))
    assert values(ds) == [b"alpha", b"", b"\x00\xff" * 300]
    assert ds.element_spec == tf.TensorSpec((), tf.string)
    (tmp_path / "r.gz").write_bytes(gzip.compress(tfrecord(b"g")))
    (tmp_path / "r.z").write_bytes(zlib.compress(tfrecord(b"z") + tfrecord(b"zz")))
    (tmp_path / "s.z").write_bytes(zlib.compress(tfrecord(b"s")))
    assert values(tf.data.TFRecordDataset(str(tmp_path / "r.gz"), "GZIP")) == [b"g"]
    assert values(tf.data.TFRecordDataset([str(tmp_path / "r.z"), str(tmp_path / "s.z")],
                                          "ZLIB", num_parallel_reads=2)) == [b"z", b"s", b"zz"]
    with pytest.raises(tf.errors.DataLossError, match="r.tfrecord is not ZLIB data"):
        values(tf.data.TFRecordDataset(str(path), "ZLIB"))
    with pytest.raises(tf.errors.DataLossError, match="r.tfrecord is not GZIP data"):
        values(tf.data.TextLineDataset(str(path), "GZIP"))
    corrupt = bytearray(path.read_bytes())
    corrupt[13] ^= 1                                  # a byte of the first record's data
    (tmp_path / "bad.tfrecord").write_bytes(bytes(corrupt))
    with pytest.raises(tf.errors.DataLossError, match="corrupted record at 0"):
        values(tf.data.TFRecordDataset(str(tmp_path / "bad.tfrecord")))
    (tmp_path / "short.tfrecord").write_bytes(tfrecord(b"abc")[:-2])
    with pytest.raises(tf.errors.DataLossError, match="truncated record at 0"):
        values(tf.data.TFRecordDataset(str(tmp_path / "short.tfrecord")))


def test_missing_tf_data_names_are_named():
    with pytest.raises(AttributeError, match="tf.data.FixedLengthRecordDataset is not "
                                             "implemented in tapeflow. tf.data has: AUTOTUNE"):
        _ = tf.data.FixedLengthRecordDataset
    with pytest.raises(AttributeError, match="tf.data.experimental.group_by_reducer is "
                                             "not implemented"):
        _ = tf.data.experimental.group_by_reducer
    with pytest.raises(AttributeError, match="Dataset.snapshot is a tf.data method"):
        _ = D.range(3).snapshot
    with pytest.raises(AttributeError, match="'Dataset' object has no attribute 'nope'"):
        _ = D.range(3).nope
