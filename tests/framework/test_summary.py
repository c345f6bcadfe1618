"""tf.summary: event files read back by an independent reader (TFRecord framing with
a bit-by-bit CRC32C, protobuf wire format), TF 2's semantics of default writers,
steps and recording conditions, and (optionally) TensorBoard's own reader."""

import gc
import glob
import os
import struct
import subprocess
import sys
import threading
import warnings
import zlib

import numpy as np
import pytest
import tapeflow as tf
from tapeflow.summary import records
from tapeflow.summary import writer as summary_writer


# -- an independent reader ------------------------------------------------------------
def _crc32c_bitwise(data):
    crc = 0xFFFFFFFF
    for byte in data:
        crc ^= byte
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 & -(crc & 1))
    return crc ^ 0xFFFFFFFF


def _masked(data):
    crc = _crc32c_bitwise(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def read_records(path):
    """The TFRecords of a file, checking both CRCs of each."""
    out = []
    with open(path, "rb") as f:
        data = f.read()
    pos = 0
    while pos < len(data):
        header = data[pos:pos + 8]
        (length,) = struct.unpack("<Q", header)
        assert struct.unpack("<I", data[pos + 8:pos + 12])[0] == _masked(header)
        body = data[pos + 12:pos + 12 + length]
        assert struct.unpack("<I", data[pos + 12 + length:pos + 16 + length])[0] == \
            _masked(body)
        out.append(body)
        pos += 16 + length
    return out


def _varint(data, pos):
    result = shift = 0
    while True:
        byte = data[pos]
        result |= (byte & 0x7F) << shift
        pos += 1
        shift += 7
        if not byte & 0x80:
            return result, pos


def parse(data):
    """{field number: [values]}: varints as ints, fixed64 as bytes, the rest as bytes."""
    fields, pos = {}, 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(data, pos)
        elif wire == 1:
            value, pos = data[pos:pos + 8], pos + 8
        elif wire == 2:
            length, pos = _varint(data, pos)
            value, pos = data[pos:pos + length], pos + length
        elif wire == 5:
            value, pos = data[pos:pos + 4], pos + 4
        else:
            raise AssertionError(f"wire type {wire}")
        fields.setdefault(number, []).append(value)
    return fields


_NUMPY = {1: np.float32, 2: np.float64, 3: np.int32, 4: np.uint8, 9: np.int64, 10: np.bool_}


def decode_tensor(data):
    fields = parse(data)
    shape = tuple(parse(dim).get(1, [0])[0] for dim in parse(fields[2][0]).get(2, []))
    if fields[1][0] == 7:  # DT_STRING
        return np.array(fields.get(8, []), dtype=object).reshape(shape)
    return np.frombuffer(fields.get(4, [b""])[0], dtype=_NUMPY[fields[1][0]]).reshape(shape)


def read_events(logdir):
    """[(step, tag, plugin name, value)] of every summary under `logdir`, in order,
    after checking each file's first record is the version record."""
    out = []
    for path in sorted(glob.glob(os.path.join(logdir, "events.out.tfevents.*"))):
        events = [parse(r) for r in read_records(path)]
        assert events[0][3] == [b"brain.Event:2"]
        for event in events[1:]:
            step = event.get(2, [0])[0]
            step -= (1 << 64) if step >= 1 << 63 else 0
            for value in parse(event[5][0]).get(1, []):
                value = parse(value)
                metadata = parse(value.get(9, [b""])[0])
                plugin = parse(metadata[1][0])[1][0].decode() if 1 in metadata else None
                out.append((step, value[1][0].decode(), plugin, decode_tensor(value[8][0])))
    return out


def decode_png(data):
    """The pixels of an 8-bit, non-interlaced PNG with unfiltered rows (as written)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        assert struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])[0] == \
            zlib.crc32(kind + body)
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + length
    width, height, depth, color, _, _, _ = struct.unpack(">IIBBBBB", chunks[b"IHDR"])
    channels = {0: 1, 4: 2, 2: 3, 6: 4}[color]
    rows = np.frombuffer(zlib.decompress(chunks[b"IDAT"]), np.uint8).reshape(height, -1)
    assert depth == 8 and (rows[:, 0] == 0).all()
    return rows[:, 1:].reshape(height, width, channels)


@pytest.fixture(autouse=True)
def _clean_state():
    yield  # a test that fails (or uses set_as_default) leaves no default writer behind
    state = summary_writer._state
    state.writer = state.step = state.is_recording = None


# -- CRC32C and framing ---------------------------------------------------------------
@pytest.mark.parametrize("data,expected", [
    (b"123456789", 0xE3069283),
    (bytes(32), 0x8A9136AA),  # RFC 3720, B.4
    (b"\xff" * 32, 0x62A8AB43),
    (bytes(range(32)), 0x46DD794E),
])
def test_crc32c_known_values(data, expected):
    assert records.crc32c(data) == expected


@pytest.mark.parametrize("n", [0, 1, 5, 63, 64, 65, 4096, 8191, 8192, 8193, 70001])
def test_crc32c_both_paths_equal_the_bitwise_reference(n):
    data = np.random.default_rng(n).integers(0, 256, n).astype(np.uint8).tobytes()
    expected = _crc32c_bitwise(data)
    assert records.crc32c(data) == expected
    if n >= 4:
        assert records._crc32c_vectorised(data) == expected
    assert records.crc32c(memoryview(np.frombuffer(data, np.uint8)[::1])) == expected


def test_crc32c_matches_tensorboard():
    pywrap = pytest.importorskip("tensorboard.compat.tensorflow_stub.pywrap_tensorflow")
    data = np.random.default_rng(1).integers(0, 256, 20000).astype(np.uint8).tobytes()
    assert records.masked_crc32c(data) == pywrap.masked_crc32c(data)


# -- writing scalars ------------------------------------------------------------------
def test_scalar_event_file_layout(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        assert bool(tf.summary.scalar("loss", tf.constant(0.25), step=3))
        assert bool(tf.summary.scalar("acc", 1, step=4, description="accuracy"))
    writer.close()
    (path,) = glob.glob(str(tmp_path / "*"))
    name = os.path.basename(path).split(".")
    assert name[:3] == ["events", "out", "tfevents"] and name[-1] == "v2"
    assert name[-3] == str(os.getpid()) and len(name[3]) == 10
    events = [parse(r) for r in read_records(path)]
    assert events[0][3] == [b"brain.Event:2"]
    assert read_events(str(tmp_path)) == [(3, "loss", "scalars", np.float32(0.25)),
                                          (4, "acc", "scalars", np.float32(1.0))]
    value = parse(parse(events[2][5][0])[1][0])
    assert parse(value[9][0])[3] == [b"accuracy"]
    tensor = parse(value[8][0])
    assert tensor[1] == [1] and parse(tensor[2][0]) == {}  # DT_FLOAT, shape []
    assert struct.unpack("<d", events[1][1][0])[0] > 1.6e9  # wall time in seconds


def test_no_default_writer_writes_nothing_and_returns_false(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    result = tf.summary.scalar("x", 1.0, step=1)
    assert result.dtype == tf.bool and not bool(result)
    assert not bool(tf.summary.should_record_summaries())
    assert not bool(tf.summary.scalar("x", 1.0))  # no step needed either
    writer.close()
    assert read_events(str(tmp_path)) == []


def test_missing_step_raises_tf_message(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(), pytest.raises(
            ValueError, match=r"No step set\. Please specify one either through the `step` "
            r"argument or through tf\.summary\.experimental\.set_step\(\)"):
        tf.summary.scalar("x", 1.0)
    writer.close()


def test_default_step_from_set_step_and_as_default(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    tf.summary.experimental.set_step(5)
    with writer.as_default():
        tf.summary.scalar("a", 1.0)
        with writer.as_default(step=9):
            assert tf.summary.experimental.get_step() == 9
            tf.summary.scalar("b", 2.0)
        assert tf.summary.experimental.get_step() == 5
        step = tf.Variable(7, dtype=tf.int64)
        tf.summary.experimental.set_step(step)
        step.assign(8)  # a Variable step is read when the summary is written
        tf.summary.scalar("c", 3.0)
        tf.summary.scalar("d", 4.0, step=np.int32(-2))
        tf.summary.scalar("e", 5.0, step=2**40)
    writer.close()
    assert [(s, t) for s, t, _, _ in read_events(str(tmp_path))] == [
        (5, "a"), (9, "b"), (8, "c"), (-2, "d"), (2**40, "e")]


def test_set_as_default_and_noop_writer(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    writer.set_as_default(step=1)
    with tf.summary.create_noop_writer().as_default():
        tf.summary.scalar("kept", 1.0)  # the no-op writer does not replace the default
    assert bool(tf.summary.should_record_summaries())
    writer.close()
    assert [t for _, t, _, _ in read_events(str(tmp_path))] == ["kept"]


def test_record_if_bool_tensor_and_callable(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    calls = []
    with writer.as_default():
        with tf.summary.record_if(False):
            assert not bool(tf.summary.should_record_summaries())
            assert not bool(tf.summary.scalar("off", 1.0))  # no step needed when off
            assert not bool(tf.summary.write("lazy", lambda: calls.append(1), step=0))
        with tf.summary.record_if(tf.constant(True)):
            tf.summary.scalar("tensor_on", 1.0, step=0)
        for step in range(4):
            with tf.summary.record_if(lambda step=step: step % 2 == 0):
                tf.summary.scalar("every_other", float(step), step=step)
    writer.close()
    assert calls == []
    assert [(s, t) for s, t, _, _ in read_events(str(tmp_path))] == [
        (0, "tensor_on"), (0, "every_other"), (2, "every_other")]


def test_name_scope_prefixes_the_tag(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0), tf.Module(name="block").name_scope:
        tf.summary.scalar("loss", 1.0)
        with tf.summary.experimental.summary_scope("custom op", "x") as (tag, scope):
            assert tag == "block/custom op" and scope == "block/customop/"
    writer.close()
    assert [t for _, t, _, _ in read_events(str(tmp_path))] == ["block/loss"]


def test_default_writer_is_per_thread(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    results = []
    with writer.as_default(step=1):
        thread = threading.Thread(target=lambda: results.append(
            bool(tf.summary.scalar("other_thread", 1.0))))
        thread.start()
        thread.join()
    writer.close()
    assert results == [False] and read_events(str(tmp_path)) == []


@pytest.mark.parametrize("bad,error,match", [
    (np.zeros(2), ValueError, r"Expected scalar shape, saw shape: \(2,\)\."),
    ("text", tf.errors.UnimplementedError, "Cast <U4 to float is not supported"),
])
def test_scalar_rejects_non_scalars_even_without_writer(bad, error, match):
    with pytest.raises(error, match=match):
        tf.summary.scalar("x", bad, step=0)


def test_bad_steps_and_writer_arguments(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in (1.5, "3", np.zeros(2, np.int64)):
            with pytest.raises(TypeError, match="int64-castable integer scalar"):
                tf.summary.scalar("x", 1.0, step=step)
    writer.close()
    with pytest.raises(ValueError, match="logdir` cannot be None"):
        tf.summary.create_file_writer(None)
    with pytest.raises(ValueError, match="max_queue must be >= 0"):
        tf.summary.create_file_writer(str(tmp_path), max_queue=-1)
    with pytest.raises(TypeError, match="flush_millis must be an integer"):
        tf.summary.create_file_writer(str(tmp_path), flush_millis="soon")
    with pytest.raises(ValueError, match="Invalid argument to flush"):
        tf.summary.flush("writer")


# -- histograms, images, text, raw protos ---------------------------------------------
def _one(logdir, write):
    writer = tf.summary.create_file_writer(str(logdir))
    with writer.as_default(step=0):
        write()
    writer.close()
    (event,) = read_events(str(logdir))
    return event


def test_histogram_buckets_as_tensorboard(tmp_path):
    _, tag, plugin, value = _one(tmp_path / "a", lambda: tf.summary.histogram(
        "h", tf.constant([0.0, 1.0, 2.0, 3.0]), buckets=2))
    assert (tag, plugin, value.dtype) == ("h", "histograms", np.float64)
    # width 1.5: offsets/width = 0, .67, 1.33, 2 -> buckets 0, 0, 1, 1 (last clamped)
    np.testing.assert_array_equal(value, [[0.0, 1.5, 2.0], [1.5, 3.0, 2.0]])
    _, _, _, value = _one(tmp_path / "b", lambda: tf.summary.histogram("h", [5, 5, 5],
                                                                      buckets=3))
    np.testing.assert_array_equal(value, [[5, 5, 0], [5, 5, 0], [5, 5, 3]])
    _, _, _, value = _one(tmp_path / "c", lambda: tf.summary.histogram("h", np.zeros(0)))
    np.testing.assert_array_equal(value, np.zeros((30, 3)))
    _, _, _, value = _one(tmp_path / "d", lambda: tf.summary.histogram("h", [1.0, 2.0],
                                                                      buckets=0))
    assert value.shape == (0, 3)


def test_histogram_default_buckets_count_every_element(tmp_path):
    data = np.random.default_rng(0).normal(size=(50, 20)).astype(np.float32)
    _, _, _, value = _one(tmp_path, lambda: tf.summary.histogram("w", tf.constant(data)))
    assert value.shape == (30, 3) and value[:, 2].sum() == data.size
    assert value[0, 0] == data.min() and value[-1, 1] == data.max()
    np.testing.assert_allclose(value[:, 1] - value[:, 0], np.ptp(data.astype(np.float64)) / 30,
                               rtol=1e-9)
    with pytest.raises(TypeError, match="buckets must be an int32 scalar"):
        tf.summary.histogram("w", data, step=0, buckets=2.5)


def test_image_as_png_with_tf_uint8_conversion(tmp_path):
    images = np.array([[[[0.0, 0.5, 1.0], [2.0, -1.0, 0.999]],
                        [[0.25, 0.75, 0.1], [0.0, 0.0, 0.0]]]] * 2, dtype=np.float32)
    _, tag, plugin, value = _one(tmp_path / "a", lambda: tf.summary.image(
        "im", images, max_outputs=1))
    assert (tag, plugin) == ("im", "images")
    assert list(value[:2]) == [b"2", b"2"] and len(value) == 3  # width, height, 1 PNG
    # convert_image_dtype: floor(clip(x * 255.5, 0, 255))
    np.testing.assert_array_equal(decode_png(value[2]), [[[0, 127, 255], [255, 0, 255]],
                                                         [[63, 191, 25], [0, 0, 0]]])
    gray = np.arange(12, dtype=np.uint8).reshape(1, 3, 4, 1)
    _, _, _, value = _one(tmp_path / "b", lambda: tf.summary.image("g", gray))
    assert list(value[:2]) == [b"4", b"3"]
    np.testing.assert_array_equal(decode_png(value[2]), gray[0])
    writer = tf.summary.create_file_writer(str(tmp_path / "c"))
    with writer.as_default(step=0):
        with pytest.raises(ValueError, match=r"must have rank 4\. Received rank 3"):
            tf.summary.image("x", np.zeros((2, 2, 3)))
        with pytest.raises(tf.errors.InvalidArgumentError, match="1, 2, 3 or 4 channels"):
            tf.summary.image("x", np.zeros((1, 2, 2, 5)))
    writer.close()


def test_image_png_decodes_with_pillow(tmp_path):
    image_module = pytest.importorskip("PIL.Image")
    import io
    rgba = np.random.default_rng(2).integers(0, 256, (1, 5, 7, 4)).astype(np.uint8)
    _, _, _, value = _one(tmp_path, lambda: tf.summary.image("rgba", rgba))
    np.testing.assert_array_equal(np.asarray(image_module.open(io.BytesIO(value[2]))),
                                  rgba[0])


def test_text_and_write_raw_pb(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=2):
        tf.summary.text("note", "héllo **world**")
        tf.summary.text("table", tf.constant([["a", "b"], ["c", "d"]]))
        with pytest.raises(TypeError, match="must be of type tf.string"):
            tf.summary.text("bad", 3)
        raw = records.summary_value("raw", records.tensor_proto(np.array(1.5)))
        tf.summary.experimental.write_raw_pb(raw)
        tf.summary.write("generic", lambda: np.arange(3, dtype=np.int64))
    writer.close()
    events = read_events(str(tmp_path))
    assert [(t, p) for _, t, p, _ in events] == [("note", "text"), ("table", "text"),
                                                 ("raw", None), ("generic", None)]
    assert events[0][3][()] == "héllo **world**".encode()
    assert events[1][3].tolist() == [[b"a", b"b"], [b"c", b"d"]]
    assert events[2][3][()] == 1.5
    np.testing.assert_array_equal(events[3][3], [0, 1, 2])


# -- flushing, closing, crashes --------------------------------------------------------
def test_queue_flushes_when_over_max_queue(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path), max_queue=2,
                                           flush_millis=10**9)
    (path,) = glob.glob(str(tmp_path / "*"))
    writer.set_as_default(step=0)
    for i in range(2):
        tf.summary.scalar(f"s{i}", 1.0)
    assert len(read_records(path)) == 1  # the version record only: 2 queued
    tf.summary.scalar("s2", 1.0)  # three queued > max_queue: appended
    assert len(read_records(path)) == 4
    tf.summary.scalar("s3", 1.0)
    tf.summary.flush()
    assert len(read_records(path)) == 5
    writer.close()
    writer.close()  # twice is fine, as TF
    with pytest.raises(RuntimeError, match="already closed"):
        writer.as_default()


def test_deleted_log_directory_raises_clearly(tmp_path):
    logdir = tmp_path / "run"
    writer = tf.summary.create_file_writer(str(logdir))
    with pytest.raises(tf.errors.NotFoundError, match=r"run'.*1 summaries were not written"), \
            writer.as_default(step=0):  # its exit flushes, and raises
            tf.summary.scalar("x", 1.0)
            for path in logdir.iterdir():
                path.unlink()
            logdir.rmdir()
            with pytest.raises(tf.errors.NotFoundError, match="was deleted while its writer"):
                writer.flush()
            tf.summary.scalar("y", 1.0)  # queued: leaving as_default flushes, and raises
    assert not bool(tf.summary.should_record_summaries())  # the default writer is restored
    writer.close()  # nothing left to write


def test_removed_event_file_is_started_again(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        for path in tmp_path.iterdir():
            path.unlink()
        tf.summary.scalar("after", 1.0)
    writer.close()
    assert [t for _, t, _, _ in read_events(str(tmp_path))] == ["after"]


def test_garbage_collected_writer_is_flushed(tmp_path):
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0):
        tf.summary.scalar("x", 1.0)
    # The context's exit flushed; queue one more that nothing flushes but collection.
    writer._file.queue.append(records.tfrecord(records.event(1.0, 1, summary=(
        records.summary_value("y", records.tensor_proto(np.array(2.0)))))))
    del writer
    gc.collect()
    assert [t for _, t, _, _ in read_events(str(tmp_path))] == ["x", "y"]


def test_interpreter_exit_flushes_and_does_not_hang(tmp_path):
    script = (f"import tapeflow as tf\n"
              f"w = tf.summary.create_file_writer({str(tmp_path)!r})\n"
              f"w.set_as_default(step=4)\n"
              f"tf.summary.scalar('at_exit', 2.5)\n")
    subprocess.run([sys.executable, "-c", script], check=True, timeout=120)
    assert read_events(str(tmp_path)) == [(4, "at_exit", "scalars", np.float32(2.5))]


def test_graph_and_traces_have_nothing_to_record(tmp_path):
    assert not bool(tf.summary.graph(object()))
    with pytest.raises(ValueError, match="Must enable trace before export"):
        tf.summary.trace_export("t", step=0)
    with pytest.warns(UserWarning, match="builds no graphs"):
        tf.summary.trace_on(graph=True, profiler=True)
    with pytest.raises(ValueError, match="profiler_outdir"):
        tf.summary.trace_export("t", step=0)
    tf.summary.trace_export("t", step=0, profiler_outdir=str(tmp_path))
    with pytest.raises(ValueError, match="Must enable trace"):
        tf.summary.trace_export("t", step=0)
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default(step=0), pytest.raises(ValueError, match="is not tf.Graph"):
        tf.summary.graph(object())
    writer.close()


def test_root_namespace_and_import_cost():
    import tapeflow.summary
    assert tf.summary is tapeflow.summary
    assert tf.summary.experimental.get_step is tapeflow.summary.writer.get_step
    code = "import sys, tapeflow.summary; print('numba' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "False"


# -- TensorBoard's own reader -----------------------------------------------------------
def test_tensorboard_reads_every_kind(tmp_path):
    accumulator = pytest.importorskip(
        "tensorboard.backend.event_processing.event_accumulator")
    tensor_util = pytest.importorskip("tensorboard.util.tensor_util")
    writer = tf.summary.create_file_writer(str(tmp_path))
    with writer.as_default():
        for step in range(3):
            tf.summary.scalar("loss", 1.0 / (step + 1), step=step)
        tf.summary.histogram("w", np.arange(10.0), step=0, buckets=5)
        tf.summary.image("im", np.ones((1, 2, 3, 3), np.float32), step=0)
        tf.summary.text("t", "hello", step=0)
    writer.close()
    reader = accumulator.EventAccumulator(str(tmp_path), size_guidance={"tensors": 0})
    reader.Reload()
    assert sorted(reader.Tags()["tensors"]) == ["im", "loss", "t", "w"]
    losses = [(e.step, tensor_util.make_ndarray(e.tensor_proto)) for e in
              reader.Tensors("loss")]
    assert losses == [(0, 1.0), (1, 0.5), (2, np.float32(1 / 3))]
    assert reader.SummaryMetadata("loss").plugin_data.plugin_name == "scalars"
    assert reader.SummaryMetadata("w").plugin_data.plugin_name == "histograms"
    hist = tensor_util.make_ndarray(reader.Tensors("w")[0].tensor_proto)
    np.testing.assert_array_equal(hist[:, 2], [2, 2, 2, 2, 2])
    assert tensor_util.make_ndarray(reader.Tensors("t")[0].tensor_proto) == b"hello"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        event_pb2 = pytest.importorskip("tensorboard.compat.proto.event_pb2")
    (path,) = glob.glob(str(tmp_path / "*"))
    first = event_pb2.Event.FromString(read_records(path)[0])
    assert first.file_version == "brain.Event:2" and first.source_metadata.writer == "tapeflow"
