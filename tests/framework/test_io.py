"""tf.io: files, gfile, decode_csv, decode_raw, serialize/parse_tensor and the image
codecs. Expected values and error messages are TF 2.21's (printed by TF itself);
serialize_tensor's bytes are TF's bytes."""

import os

import numpy as np
import pytest
import tapeflow as tf
from tapeflow import io as tio
from tapeflow.core.errors import InvalidArgumentError, NotFoundError

# -- files and gfile -------------------------------------------------------------------


def test_read_and_write_file(tmp_path):
    path = tmp_path / "new" / "dir" / "f.bin"  # write_file creates the directories, as TF
    tio.write_file(str(path), tf.constant(b"\x00\x01abc"))
    assert path.read_bytes() == b"\x00\x01abc"
    content = tio.read_file(str(path))
    assert content.dtype == tf.string and content.shape == ()
    assert content.numpy() == b"\x00\x01abc"
    tio.write_file(tf.constant(str(path)), "text")  # str contents are UTF-8
    assert tio.read_file(path.as_posix()).numpy() == b"text"
    leftovers = [n for n in os.listdir(path.parent) if n != "f.bin"]
    assert leftovers == []  # the atomic write leaves no temporary behind


def test_file_errors_are_tfs(tmp_path):
    with pytest.raises(NotFoundError, match=r"No such file or directory \[Op:ReadFile\]"):
        tio.read_file(str(tmp_path / "missing"))
    with pytest.raises(tio.gfile.FailedPreconditionError, match="Is a directory"):
        tio.read_file(str(tmp_path))
    with pytest.raises(InvalidArgumentError, match=r"Contents tensor must be scalar, but had "
                       r"shape: \[2\] \[Op:WriteFile\]"):
        tio.write_file(str(tmp_path / "x"), ["a", "b"])
    with pytest.raises(TypeError, match="filename must be a tf.string Tensor"):
        tio.read_file(tf.constant(1.0))


def test_gfile_basics(tmp_path):
    g = tio.gfile
    base = str(tmp_path)
    g.makedirs(os.path.join(base, "a", "b"))
    g.makedirs(os.path.join(base, "a", "b"))  # existing: fine
    g.mkdir(os.path.join(base, "a"))  # existing directory: fine, as TF
    with g.GFile(os.path.join(base, "a", "t.txt"), "w") as f:
        f.write("line 1\nline 2\n")
    with g.GFile(os.path.join(base, "a", "t.txt")) as f:
        assert f.read() == "line 1\nline 2\n"  # text mode reads str, as TF
    with g.GFile(os.path.join(base, "a", "t.txt"), "rb") as f:
        assert f.size() == 14 and f.readline() == b"line 1\n"
    assert g.exists(base) and g.isdir(os.path.join(base, "a"))
    assert not g.isdir(os.path.join(base, "a", "t.txt"))
    assert g.listdir(os.path.join(base, "a")) == ["b", "t.txt"]
    assert g.glob(os.path.join(base, "a", "*.txt")) == [os.path.join(base, "a", "t.txt")]
    g.copy(os.path.join(base, "a", "t.txt"), os.path.join(base, "c.txt"))
    with pytest.raises(tio.gfile.AlreadyExistsError):
        g.copy(os.path.join(base, "a", "t.txt"), os.path.join(base, "c.txt"))
    g.rename(os.path.join(base, "c.txt"), os.path.join(base, "d.txt"))
    g.remove(os.path.join(base, "d.txt"))
    assert not g.exists(os.path.join(base, "d.txt"))
    g.rmtree(os.path.join(base, "a"))
    assert g.listdir(base) == []


def test_gfile_errors(tmp_path):
    g = tio.gfile
    with pytest.raises(NotFoundError, match="Could not find directory"):
        g.listdir(str(tmp_path / "missing"))
    with pytest.raises(NotFoundError, match="No such file or directory"):
        g.remove(str(tmp_path / "missing"))
    with pytest.raises(NotFoundError, match="No such file or directory"):
        g.GFile(str(tmp_path / "missing")).read()
    with pytest.raises(tf.errors.UnimplementedError, match="File system scheme 'gs'"):
        g.exists("gs://bucket/file")


# -- decode_csv ------------------------------------------------------------------------


def _values(columns):
    return [(c.dtype.name, c.numpy().tolist()) for c in columns]


def test_decode_csv_types_follow_record_defaults():
    out = tio.decode_csv(["1,2.5,a", "3,,b"], [[0], [0.0], ["x"]])
    assert _values(out) == [("int32", [1, 3]), ("float32", [2.5, 0.0]),
                            ("string", [b"a", b"b"])]
    f64 = tio.decode_csv(["1.5"], [tf.constant([0], tf.float64)])
    assert _values(f64) == [("float64", [1.5])]
    i64 = tio.decode_csv(["9000000000"], [tf.constant([0], tf.int64)])
    assert _values(i64) == [("int64", [9000000000])]


@pytest.mark.parametrize("records, defaults, kwargs, expected", [  # TF 2.21's results
    ([" 1 , 2.5 "], [[0], [0.0]], {}, [("int32", [1]), ("float32", [2.5])]),
    (['"a,b","c""d",e'], [[""]] * 3, {}, [("string", [b"a,b"]), ("string", [b'c"d']),
                                           ("string", [b"e"])]),
    (['"a,b",c'], [[""]] * 3, {"use_quote_delim": False},
     [("string", [b'"a']), ("string", [b'b"']), ("string", [b"c"])]),
    (["NA,1", "2,NA"], [[7], [8]], {"na_value": "NA"}, [("int32", [7, 2]), ("int32", [1, 8])]),
    (["1,2,3,4"], [[0], [0]], {"select_cols": [1, 3]}, [("int32", [2]), ("int32", [4])]),
    (["1;2"], [[0], [0]], {"field_delim": ";"}, [("int32", [1]), ("int32", [2])]),
    ([["1,2"], ["3,4"]], [[0], [0]], {}, [("int32", [[1], [3]]), ("int32", [[2], [4]])]),
    ("1,2", [[0], [0]], {}, [("int32", 1), ("int32", 2)]),
    ([","], [["a"], ["b"]], {}, [("string", [b"a"]), ("string", [b"b"])]),
    (['"12",3'], [[0], [0]], {}, [("int32", [12]), ("int32", [3])]),
    (["1,2,"], [[0], [0], [5]], {}, [("int32", [1]), ("int32", [2]), ("int32", [5])]),
    (["é,ü"], [[""], [""]], {}, [("string", ["é".encode()]), ("string", ["ü".encode()])]),
    (["1e3,-Inf,0x10"], [[0.0]] * 3, {}, [("float32", [1000.0]), ("float32", [-np.inf]),
                                          ("float32", [16.0])]),
])
def test_decode_csv_like_tf(records, defaults, kwargs, expected):
    assert _values(tio.decode_csv(records, defaults, **kwargs)) == expected


@pytest.mark.parametrize("records, defaults, kwargs, error, message", [  # TF 2.21's messages
    (["1,,a"], [[0], tf.constant([], tf.float32), ["x"]], {}, InvalidArgumentError,
     "Field 1 is required but missing in record 0!"),
    (["1,2,3,4"], [[0]] * 3, {}, InvalidArgumentError, "Expect 3 fields but have 4 in record 0"),
    (["1,2", "1"], [[0]] * 2, {}, InvalidArgumentError, "Expect 2 fields but have 1 in record 1"),
    ([""], [[0]], {}, InvalidArgumentError, "Expect 1 fields but have 0 in record 0"),
    (["1,x"], [[0], [0]], {}, InvalidArgumentError,
     "Field 1 in record 0 is not a valid int32: x"),
    (["1,x"], [[0], [0.0]], {}, InvalidArgumentError,
     "Field 1 in record 0 is not a valid float: x"),
    (["1,99999999999"], [[0], [0]], {}, InvalidArgumentError,
     "Field 1 in record 0 is not a valid int32: 99999999999"),
    (["1.0"], [[0]], {}, InvalidArgumentError, "Field 0 in record 0 is not a valid int32: 1.0"),
    (["1_0"], [[0.0]], {}, InvalidArgumentError, "not a valid float: 1_0"),
    (['"a"b,c'], [[""]] * 2, {}, InvalidArgumentError,
     "Quote inside a string has to be escaped by another quote"),
    (['a"b,c'], [[""]] * 2, {}, InvalidArgumentError,
     "Unquoted fields cannot have quotes/CRLFs inside"),
    (["1,2\r"], [[0]] * 2, {}, InvalidArgumentError,
     "Unquoted fields cannot have quotes/CRLFs inside"),
    (["NA,1"], [tf.constant([], tf.int32), [8]], {"na_value": "NA"}, InvalidArgumentError,
     "Field 0 is required but missing in record 0!"),
    (["1,2,3,4"], [[0]] * 2, {"select_cols": [3, 1]}, ValueError,
     "select_cols is not strictly increasing."),
    (["1,2,3,4"], [[0]] * 3, {"select_cols": [1, 3]}, ValueError,
     "Length of select_cols and record_defaults do not match."),
    (["1,2,3,4"], [[0]] * 2, {"select_cols": [3, 4]}, InvalidArgumentError,
     "Expect 2 fields but have 1 in record 0"),
    (["1;2"], [[0]] * 2, {"field_delim": ";;"}, InvalidArgumentError,
     "field_delim should be only 1 char"),
    (["1"], [[True]], {}, InvalidArgumentError,
     "Value for attr 'OUT_TYPE' of bool is not in the list of allowed values: float, double, "
     "int32, int64, string"),
    (["1"], [[0, 1]], {}, InvalidArgumentError,
     "There should only be 1 default per field but field 0 has 2"),
    (["1"], [[[0]]], {}, InvalidArgumentError, "Each record default should be at most rank 1"),
])
def test_decode_csv_errors_like_tf(records, defaults, kwargs, error, message):
    with pytest.raises(error) as info:
        tio.decode_csv(records, defaults, **kwargs)
    assert message in str(info.value)


# -- decode_raw, serialize_tensor ------------------------------------------------------


def test_decode_raw_like_tf():
    out = tio.decode_raw([b"\x01\x00\x02\x00", b"\x03\x00\x04\x00"], tf.int16)
    assert out.dtype == tf.int16 and out.numpy().tolist() == [[1, 2], [3, 4]]
    assert tio.decode_raw(b"\x01\x00\x02\x00", tf.int16, little_endian=False).numpy().tolist() \
        == [256, 512]
    assert tio.decode_raw([b"\x01\x02\x03", b"\x04"], tf.uint8,
                          fixed_length=2).numpy().tolist() == [[1, 2], [4, 0]]
    assert tio.decode_raw(np.float32([1.5, 2]).tobytes(), tf.float32).numpy().tolist() == \
        [1.5, 2.0]
    with pytest.raises(InvalidArgumentError, match="requires input strings to all be the same "
                       "size, but element 1 has size 2 != 4"):
        tio.decode_raw([b"\x01\x00\x02\x00", b"\x03\x00"], tf.int16)
    with pytest.raises(InvalidArgumentError, match="length 3 that is not a multiple of 2, the "
                       "size of int16"):
        tio.decode_raw(b"\x01\x00\x02", tf.int16)


# TF 2.21's tf.io.serialize_tensor bytes.
_TF_SERIALIZED = [
    (lambda: tf.constant([[1, 2], [3, 4]]),
     b'\x08\x03\x12\x08\x12\x02\x08\x02\x12\x02\x08\x02"\x10\x01\x00\x00\x00\x02\x00\x00\x00'
     b'\x03\x00\x00\x00\x04\x00\x00\x00'),
    (lambda: tf.constant(1.5), b'\x08\x01\x12\x00"\x04\x00\x00\xc0?'),
    (lambda: tf.constant([b"ab", b"c"]), b"\x08\x07\x12\x04\x12\x02\x08\x02B\x02abB\x01c"),
    (lambda: tf.constant([True, False]), b'\x08\n\x12\x04\x12\x02\x08\x02"\x02\x01\x00'),
    (lambda: tf.zeros([0, 3]), b"\x08\x01\x12\x06\x12\x00\x12\x02\x08\x03"),
    (lambda: tf.constant([1.0, 2.0], tf.float16), b'\x08\x13\x12\x04\x12\x02\x08\x02"\x04\x00<'
                                                  b'\x00@'),
]


@pytest.mark.parametrize("make, expected", _TF_SERIALIZED)
def test_serialize_tensor_writes_tfs_bytes_and_parses_back(make, expected):
    tensor = make()
    serialized = tio.serialize_tensor(tensor)
    assert serialized.dtype == tf.string and serialized.numpy() == expected
    back = tio.parse_tensor(expected, tensor.dtype)
    assert back.dtype == tensor.dtype and back.shape == tensor.shape
    np.testing.assert_array_equal(back.numpy(), tensor.numpy())


def test_parse_tensor_reads_typed_fields_and_errors():
    # A TensorProto with float_val (field 5, packed) instead of tensor_content, shape [3]:
    # a single value fills the tensor, as TF.
    proto = b"\x08\x01\x12\x04\x12\x02\x08\x03\x2a\x04" + np.float32(2.5).tobytes()
    assert tio.parse_tensor(proto, tf.float32).numpy().tolist() == [2.5, 2.5, 2.5]
    with pytest.raises(InvalidArgumentError, match=r"Type mismatch between parsed tensor "
                       r"\(int32\) and dtype \(float\)"):
        tio.parse_tensor(_TF_SERIALIZED[0][1], tf.float32)
    with pytest.raises(InvalidArgumentError, match="Could not parse `serialized` as "
                       "TensorProto, base64: Z2FyYmFnZf8="):
        tio.parse_tensor(b"garbage\xff", tf.float32)


# Serialized by TF 2.21: tf.train.Example(features=tf.train.Features(feature={...}))
# .SerializeToString() of x=[1], y=[1.5, 2.5], s=[b"ab", b"c"], v=[3, 4, 5] (A);
# x=[2], y=[0.5, 0.25], s=[b"d"], v=[] (B); y=[1.0, 2.0], s=[b"e"], v=[7] (C).
_A = (b"\n=\n\x0e\n\x01s\x12\t\n\x07\n\x02ab\n\x01c\n\x11\n\x01y\x12\x0c\x12\n\n\x08"
      b"\x00\x00\xc0?\x00\x00 @\n\x0c\n\x01v\x12\x07\x1a\x05\n\x03\x03\x04\x05\n\n\n"
      b"\x01x\x12\x05\x1a\x03\n\x01\x01")
_B = (b"\n4\n\n\n\x01s\x12\x05\n\x03\n\x01d\n\x11\n\x01y\x12\x0c\x12\n\n\x08\x00\x00"
      b"\x00?\x00\x00\x80>\n\x07\n\x01v\x12\x02\x1a\x00\n\n\n\x01x\x12\x05\x1a\x03\n"
      b"\x01\x02")
_C = (b"\n+\n\n\n\x01s\x12\x05\n\x03\n\x01e\n\x11\n\x01y\x12\x0c\x12\n\n\x08\x00\x00"
      b"\x80?\x00\x00\x00@\n\n\n\x01v\x12\x05\x1a\x03\n\x01\x07")


def test_parse_single_example_like_tf():
    out = tio.parse_single_example(_A, {"x": tio.FixedLenFeature([], tf.int64),
                                         "y": tio.FixedLenFeature([2], tf.float32),
                                         "s": tio.VarLenFeature(tf.string),
                                         "v": tio.RaggedFeature(tf.int64)})
    assert list(out) == ["s", "v", "x", "y"]  # sorted, as TF
    assert out["x"].dtype == tf.int64 and out["x"].numpy() == 1
    assert out["y"].numpy().tolist() == [1.5, 2.5]
    assert out["s"].indices.numpy().tolist() == [[0], [1]]
    assert out["s"].values.numpy().tolist() == [b"ab", b"c"]
    assert out["s"].dense_shape.numpy().tolist() == [2]
    assert out["v"].numpy().tolist() == [3, 4, 5]
    two_d = tio.parse_single_example(_A, {"v": tio.FixedLenFeature([3, 1], tf.int64)})
    assert two_d["v"].numpy().tolist() == [[3], [4], [5]]


def test_parse_example_like_tf():
    out = tio.parse_example([_A, _B], {"x": tio.FixedLenFeature([], tf.int64),
                                       "y": tio.FixedLenFeature([2], tf.float32),
                                       "v": tio.VarLenFeature(tf.int64)})
    assert out["x"].numpy().tolist() == [1, 2]
    assert out["y"].numpy().tolist() == [[1.5, 2.5], [0.5, 0.25]]
    assert out["v"].indices.numpy().tolist() == [[0, 0], [0, 1], [0, 2]]
    assert out["v"].dense_shape.numpy().tolist() == [2, 3]
    ragged = tio.parse_example([_A, _B, _C], {"v": tio.RaggedFeature(tf.int64),
                                              "s": tio.RaggedFeature(tf.string)})
    assert ragged["v"].to_list() == [[3, 4, 5], [], [7]]
    assert ragged["s"].to_list() == [[b"ab", b"c"], [b"d"], [b"e"]]
    padded = tio.parse_example([_A, _B, _C], {"v": tio.FixedLenSequenceFeature(
        [], tf.int64, allow_missing=True, default_value=-1)})
    assert padded["v"].numpy().tolist() == [[3, 4, 5], [-1, -1, -1], [7, -1, -1]]
    defaults = tio.parse_example([_A, _C], {"x": tio.FixedLenFeature([], tf.int64, -1)})
    assert defaults["x"].numpy().tolist() == [1, -1]
    assert tio.parse_example(tf.constant([], tf.string),
                             {"x": tio.FixedLenFeature([], tf.int64)})["x"].shape == (0,)


@pytest.mark.parametrize("call, error, message", [  # TF 2.21's messages
    (lambda: tio.parse_example([_A, _C], {"x": tio.FixedLenFeature([], tf.int64)}),
     InvalidArgumentError, "Name: <unknown>, Feature: x (data type: int64) is required but "
     "could not be found."),
    (lambda: tio.parse_example([_A, _C], {"x": tio.FixedLenFeature([], tf.int64)},
                               example_names=["ea", "ec"]),
     InvalidArgumentError, "Name: ec, Feature: x (data type: int64) is required"),
    (lambda: tio.parse_single_example(_C, {"x": tio.FixedLenFeature([], tf.int64)}),
     InvalidArgumentError, "Feature: x (data type: int64) is required but could not be found."),
    (lambda: tio.parse_example([_A], {"y": tio.FixedLenFeature([], tf.float32)}),
     InvalidArgumentError, "Name: <unknown>, Key: y, Index: 0.  Number of float values != "
     "expected.  Values size: 2 but output shape: []"),
    (lambda: tio.parse_example([_A], {"x": tio.FixedLenFeature([], tf.float32)}),
     InvalidArgumentError, "Name: <unknown>, Key: x, Index: 0.  Data types don't match. Data "
     "type: int64 but expected type: float"),
    (lambda: tio.parse_example([_A], {"x": tio.FixedLenFeature([], tf.int32)}),
     InvalidArgumentError, "Value for attr 'Tdense' of int32 is not in the list of allowed "
     "values: float, int64, string"),
    (lambda: tio.parse_example([_A], {"x": tio.VarLenFeature(tf.int32)}),
     InvalidArgumentError, "Value for attr 'sparse_types' of int32"),
    (lambda: tio.parse_example([_A], {"x": tio.FixedLenSequenceFeature([], tf.int64)}),
     ValueError, "FixedLenSequenceFeature requires allow_missing to be True."),
    (lambda: tio.parse_example([_C], {"z": tio.FixedLenFeature([2], tf.float32, 7.0)}),
     InvalidArgumentError, "Input to reshape is a tensor with 1 values, but the requested "
     "shape has 2"),
    (lambda: tio.parse_single_example(b"\xff\xff", {"x": tio.FixedLenFeature([], tf.int64)}),
     InvalidArgumentError, "Could not parse example input"),
])
def test_example_parsing_errors_like_tf(call, error, message):
    with pytest.raises(error) as info:
        call()
    assert message in str(info.value)


def test_tfrecord_writer_writes_tfs_bytes(tmp_path):
    path = tmp_path / "plain.tfrecord"
    with tio.TFRecordWriter(str(path)) as writer:
        writer.write(b"hello")
        writer.write("")
        writer.write(b"x" * 300)
    data = path.read_bytes()
    # The first two records of the file TF 2.21's TFRecordWriter wrote for them.
    assert data[:37] == (b"\x05\x00\x00\x00\x00\x00\x00\x00\xea\xb2\x04>hello\xbb\x1f\x1c"
                         b"\x19\x00\x00\x00\x00\x00\x00\x00\x00)\x03\x98\x07\xd8\xea\x82\xa2")
    assert list(tio.tfrecord.read_records(str(path))) == [b"hello", b"", b"x" * 300]
    assert os.listdir(tmp_path) == ["plain.tfrecord"]  # no temporary left
    path.write_bytes(data[:-1])
    with pytest.raises(tio.tfrecord.DataLossError, match="corrupted record at 37"):
        list(tio.tfrecord.read_records(str(path)))
    with pytest.raises(tio.gfile.FailedPreconditionError, match="Writer is closed."):
        writer.write(b"more")


@pytest.mark.parametrize("compression, decompress", [
    ("GZIP", lambda b: __import__("gzip").decompress(b)),
    ("ZLIB", lambda b: __import__("zlib").decompress(b)),
])
def test_tfrecord_writer_compresses(tmp_path, compression, decompress):
    path = tmp_path / "c.tfrecord"
    options = tio.TFRecordOptions(compression_type=compression)
    assert tio.TFRecordOptions.get_compression_type_string(options) == compression
    writer = tio.TFRecordWriter(str(path), options)
    writer.write(b"a")
    writer.flush()
    assert not path.exists()  # visible only once closed: the file is written atomically
    writer.write(b"bc")
    writer.close()
    plain = tmp_path / "plain.tfrecord"
    plain.write_bytes(decompress(path.read_bytes()))  # one stream of the plain framing
    assert list(tio.tfrecord.read_records(str(plain))) == [b"a", b"bc"]
    assert list(tio.tfrecord.read_records(str(path), compression)) == [b"a", b"bc"]
    with pytest.raises(ValueError, match='Not a valid compression_type: "BAD"'):
        tio.TFRecordWriter(str(path), "BAD")


# -- images ----------------------------------------------------------------------------

_IMG = (np.arange(4 * 5 * 3) % 256).astype(np.uint8).reshape(4, 5, 3)


def test_png_round_trip_and_channels():
    pytest.importorskip("PIL")
    png = tio.encode_png(_IMG)
    assert png.dtype == tf.string and png.shape == ()
    decoded = tio.decode_png(png)
    assert decoded.dtype == tf.uint8 and decoded.shape == (4, 5, 3)
    np.testing.assert_array_equal(decoded.numpy(), _IMG)
    # TF 2.21's values: libpng's gray (0.299, 0.587, 0.114 in fixed point, truncated).
    assert tio.decode_png(png, channels=1).numpy()[0, :3, 0].tolist() == [0, 3, 6]
    assert tio.decode_png(png, channels=4).numpy()[0, 0].tolist() == [0, 1, 2, 255]
    assert tio.decode_png(png, dtype=tf.uint16).numpy()[0, 1].tolist() == [771, 1028, 1285]
    np.testing.assert_allclose(tio.decode_image(png, dtype=tf.float32).numpy()[0, 1],
                               [0.0117647061124444, 0.0156862735748291, 0.019607843831181526],
                               rtol=3e-7)
    gray_alpha = tio.encode_png(_IMG[..., :2])
    assert tio.decode_png(gray_alpha).shape == (4, 5, 2)  # as stored, as TF
    wide = (np.arange(9, dtype=np.uint16) * 7000).reshape(3, 3, 1)
    assert (tio.decode_png(tio.encode_png(wide), dtype=tf.uint16).numpy() == wide).all()
    assert (tio.decode_png(tio.encode_png(wide)).numpy() == wide >> 8).all()


def test_gray_decoding_matches_libpng_on_random_pixels():
    pytest.importorskip("PIL")
    rgb = np.random.default_rng(0).integers(0, 256, (16, 16, 3)).astype(np.uint8)
    gray = tio.decode_png(tio.encode_png(rgb), channels=1).numpy()[..., 0].astype(np.int64)
    r, g, b = (rgb[..., i].astype(np.int64) for i in range(3))
    np.testing.assert_array_equal(gray, (9797 * r + 19234 * g + 3737 * b) >> 15)


def test_jpeg_gif_and_decode_image():
    PIL = pytest.importorskip("PIL.Image")
    import io
    jpeg = tio.encode_jpeg(_IMG, quality=95)
    assert tio.is_jpeg(jpeg).numpy() and not tio.is_jpeg(tio.encode_png(_IMG)).numpy()
    decoded = tio.decode_jpeg(jpeg)
    assert decoded.shape == (4, 5, 3) and decoded.dtype == tf.uint8
    assert np.abs(decoded.numpy().astype(int) - _IMG).max() <= 12  # lossy
    assert tio.decode_jpeg(jpeg, channels=1).shape == (4, 5, 1)
    assert tio.decode_image(jpeg).shape == (4, 5, 3)
    buffer = io.BytesIO()
    frames = [PIL.fromarray(_IMG), PIL.fromarray(255 - _IMG)]
    frames[0].save(buffer, format="GIF", save_all=True, append_images=frames[1:])
    gif = buffer.getvalue()
    assert tio.decode_image(gif).shape == (2, 4, 5, 3)  # TF 2.21's shapes
    assert tio.decode_image(gif, expand_animations=False).shape == (4, 5, 3)
    assert tio.decode_gif(gif).shape == (2, 4, 5, 3)


def test_image_errors_like_tf():
    pytest.importorskip("PIL")
    png = tio.encode_png(_IMG)
    with pytest.raises(InvalidArgumentError, match="`channels` must be 0, 1, 3 or 4 but got 2"):
        tio.decode_png(png, channels=2)
    with pytest.raises(InvalidArgumentError, match="Unknown image file format. One of JPEG"):
        tio.decode_image(b"notanimage")
    with pytest.raises(InvalidArgumentError, match="attr 'dtype' of float is not in the "
                       "list of allowed values: uint8, uint16"):
        tio.decode_png(png, dtype=tf.float32)
    with pytest.raises(InvalidArgumentError, match="attr 'T' of float is not in the list"):
        tio.encode_png(tf.constant(_IMG.astype(np.float32)))
    with pytest.raises(InvalidArgumentError, match="rank 3"):
        tio.encode_png(_IMG[..., 0])
    with pytest.raises(InvalidArgumentError, match=r"image must have 1 or 3 channels, got "
                       r"\[2, 2, 4\]"):
        tio.encode_jpeg(np.zeros((2, 2, 4), np.uint8))


def test_without_pillow_the_error_names_the_extra(monkeypatch):
    import builtins
    real_import = builtins.__import__

    def no_pil(name, *args, **kwargs):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError("No module named 'PIL'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pil)
    with pytest.raises(ImportError, match=r"pip install tapeflow\[image\]"):
        tio.decode_png(b"\x89PNG")
