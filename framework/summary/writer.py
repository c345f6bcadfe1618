"""writer.py owns the summary writers and the per-thread summary state of TF 2's
`tf.summary`: the default writer, the default step and the recording condition
(`as_default`, `set_step`, `record_if`), the event files themselves (named and
buffered as TF's C++ writer does) and `tf.summary.write`, which every summary
function ends in. What a summary holds is summaries.py's; the bytes records.py's."""

import itertools
import os
import socket
import threading
import time
import warnings
import weakref

import numpy as np

from ..core import errors
from ..core.name_scope import state as _name_scope
from ..core.tensor import Tensor, constant
from ..module import _NameScope
from . import records

__all__ = [
    "SummaryWriter",
    "create_file_writer",
    "create_noop_writer",
    "flush",
    "get_step",
    "record_if",
    "set_step",
    "should_record_summaries",
    "summary_scope",
    "write",
    "write_raw_pb",
]


class _SummaryState(threading.local):
    """TF keeps the default writer, step and recording condition per thread."""

    def __init__(self):
        self.writer = None
        self.step = None
        self.is_recording = None  # None: record whenever a writer is set


_state = _SummaryState()
_writer_ids = itertools.count(1)  # TF's process-local uid in the file name


# -- event files ----------------------------------------------------------------------
class _EventFile:
    """One event file: records wait in a queue and are appended in one write when the
    queue holds more than `max_queue` or `flush_millis` have passed since the last
    flush, as TF's SummaryFileWriter does (it has no background thread either);
    `close` fsyncs. A reader sees whole records, or a torn last one it skips."""

    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        self.logdir = logdir
        os.makedirs(logdir, exist_ok=True)
        now = time.time()
        name = (f"events.out.tfevents.{int(now):010d}.{socket.gethostname()}."
                f"{os.getpid()}.{next(_writer_ids)}{filename_suffix}")
        self.path = os.path.join(logdir, name)
        self.max_queue = max_queue
        self.flush_seconds = flush_millis / 1000.0
        self.lock = threading.Lock()
        self.queue = []
        self.file = None
        self.closed = False
        self.last_flush = now
        self._open(now)

    def _open(self, now):
        self.file = open(self.path, "ab")  # noqa: SIM115 -- open for the writer's life
        self.file.write(records.tfrecord(records.event(
            now, file_version=records.FILE_VERSION, source_writer="tapeflow")))
        self.file.flush()

    def append(self, event):
        with self.lock:
            if self.closed:
                raise RuntimeError(f"The summary writer of {self.logdir!r} is closed; "
                                   "create a new one with tf.summary.create_file_writer.")
            self.queue.append(records.tfrecord(event))
            if (len(self.queue) > self.max_queue
                    or time.time() - self.last_flush > self.flush_seconds):
                self._flush()

    def _flush(self):
        self.last_flush = time.time()
        if not self.queue:
            return
        pending, self.queue = self.queue, []
        if not os.path.isdir(self.logdir):
            raise errors.NotFoundError(
                f"The summary log directory {self.logdir!r} was deleted while its writer "
                f"was open: {len(pending)} summaries were not written. Create a new writer "
                "with tf.summary.create_file_writer to write there again.")
        if not os.path.exists(self.path):  # the file alone was removed: start it again, as TF
            self.file.close()
            self._open(self.last_flush)
        self.file.write(b"".join(pending))
        self.file.flush()

    def flush(self):
        with self.lock:
            if not self.closed:
                self._flush()

    def close(self):
        with self.lock:
            if self.closed:
                return
            self.closed = True
            try:
                self._flush()
                os.fsync(self.file.fileno())
            finally:
                self.file.close()


def _close_at_exit(event_file):
    """The finalizer of a writer (garbage-collected, or open at interpreter exit)."""
    try:
        event_file.close()
    except (OSError, errors.NotFoundError) as error:
        warnings.warn(f"tf.summary: could not flush {event_file.path}: {error}",
                      RuntimeWarning, stacklevel=1)


# -- writers -------------------------------------------------------------------------
class _DefaultWriter:
    """The context manager of `SummaryWriter.as_default(step)`: sets the default writer
    (and step, when given) for this thread; on exit flushes and restores both."""

    def __init__(self, writer, step):
        self._writer, self._step = writer, step
        self._old_writer = self._old_step = None

    def __enter__(self):
        self._old_writer, _state.writer = _state.writer, self._writer
        if self._step is not None:
            self._old_step, _state.step = _state.step, self._step
        return self._writer

    def __exit__(self, *exc_info):
        try:
            _state.writer.flush()
        finally:  # a failed flush (a deleted directory) still restores the old state
            _state.writer = self._old_writer
            if self._step is not None:
                _state.step = self._old_step
        return False


class SummaryWriter:
    """A summary writer, as `tf.summary.SummaryWriter`: made by `create_file_writer`
    (or `create_noop_writer`); summaries go to the thread's default writer."""

    def set_as_default(self, step=None):
        """Make this the thread's default writer (and `step` its default step, if given)."""
        self.as_default(step).__enter__()

    def as_default(self, step=None):
        """A context manager making this the default writer (and `step` the default
        step, if given); on exit it flushes and restores the previous ones.

        >>> with writer.as_default(step=3):
        ...     tf.summary.scalar("loss", 0.5)  # written at step 3
        """
        return _DefaultWriter(self, step)

    def init(self):
        """Nothing to do: the event file is created with the writer (as TF 2 eagerly)."""

    def flush(self):
        """Write the queued summaries to the event file."""

    def close(self):
        """Flush and close; the writer cannot be made the default again."""


class _FileWriter(SummaryWriter):
    def __init__(self, logdir, max_queue, flush_millis, filename_suffix):
        self._file = _EventFile(logdir, max_queue, flush_millis, filename_suffix)
        # Flushes on garbage collection and at interpreter exit; holds no reference to
        # the writer, so it never keeps a writer (or the process) alive.
        self._finalizer = weakref.finalize(self, _close_at_exit, self._file)

    def _check_open(self):
        if self._file.closed:
            raise RuntimeError(f"SummaryWriter {self!r} is already closed")

    def set_as_default(self, step=None):
        self._check_open()
        super().set_as_default(step)

    def as_default(self, step=None):
        self._check_open()
        return super().as_default(step)

    def init(self):
        self._check_open()

    def flush(self):
        self._file.flush()

    def close(self):
        self._file.close()

    def _write_event(self, serialized_event):
        self._file.append(serialized_event)

    def __repr__(self):
        return f"<tf.summary.SummaryWriter for {self._file.path!r}>"


class _NoopWriter(SummaryWriter):
    """`create_noop_writer()`'s: usable wherever a writer is, writes nothing."""

    def set_as_default(self, step=None):
        pass

    def as_default(self, step=None):
        return _Nothing()


class _Nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc_info):
        return False


def create_file_writer(logdir, max_queue=None, flush_millis=None, filename_suffix=None,
                       name=None):
    """Create a summary writer for `logdir`, as `tf.summary.create_file_writer`.

    The directory is created, and with it the event file
    `events.out.tfevents.<seconds>.<host>.<pid>.<n><filename_suffix>`, holding the
    version record; summaries are appended as TFRecords of `Event` protocol buffers,
    the format TensorBoard reads (see the package docstring).

    Args:
        logdir: the directory to write the event file in.
        max_queue: flush once more than this many summaries wait (10).
        flush_millis: flush at the next summary once this long has passed since the
            last flush (120000 ms). There is no background thread: the writer also
            flushes on `flush()`, `close()`, leaving `as_default()`, garbage collection
            and interpreter exit.
        filename_suffix: the event file name's suffix ('.v2').
        name: unused (TF's op name).

    Returns:
        A `SummaryWriter`.

    Raises:
        ValueError: `logdir` is None, or a negative `max_queue` or `flush_millis`.
        TypeError: an argument of the wrong type.
    """
    del name
    if logdir is None:
        raise ValueError("Argument `logdir` cannot be None")
    if isinstance(logdir, Tensor):
        logdir = logdir.numpy()
    if isinstance(logdir, bytes):
        logdir = logdir.decode()
    if not isinstance(logdir, (str, os.PathLike)):
        raise TypeError(f"create_file_writer: logdir must be a path, got {logdir!r}.")
    max_queue = 10 if max_queue is None else _non_negative_int("max_queue", max_queue)
    flush_millis = (120_000 if flush_millis is None
                    else _non_negative_int("flush_millis", flush_millis))
    filename_suffix = ".v2" if filename_suffix is None else filename_suffix
    if not isinstance(filename_suffix, str) or os.sep in filename_suffix:
        raise ValueError(f"create_file_writer: filename_suffix must be a string without "
                         f"{os.sep!r}, got {filename_suffix!r}.")
    return _FileWriter(os.fspath(logdir), max_queue, flush_millis, filename_suffix)


def _non_negative_int(argument, value):
    if isinstance(value, Tensor):
        value = value.numpy()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"create_file_writer: {argument} must be an integer, got {value!r}.")
    if value < 0:
        raise ValueError(f"create_file_writer: {argument} must be >= 0, got {value}.")
    return int(value)


def create_noop_writer():
    """A writer that writes nothing, as `tf.summary.create_noop_writer`."""
    return _NoopWriter()


def flush(writer=None, name=None):
    """Flush `writer`, or the default writer (if any), as `tf.summary.flush`.

    Raises:
        ValueError: `writer` is not a SummaryWriter.
    """
    del name
    if writer is None:
        writer = _state.writer
        if writer is None:
            return None
    if not isinstance(writer, SummaryWriter):
        raise ValueError(f"Invalid argument to flush(): {writer!r}")  # noqa: TRY004 -- TF's type
    return writer.flush()


# -- the recording condition and the step ---------------------------------------------
class record_if:
    """Record summaries only while `condition` holds, as `tf.summary.record_if`.

    `condition` is a bool, a scalar bool Tensor, or a callable returning one, called
    each time a summary is about to be written (`lambda: step % 100 == 0`).
    """

    def __init__(self, condition):
        self._condition = condition
        self._old = None

    def __enter__(self):
        self._old, _state.is_recording = _state.is_recording, self._condition

    def __exit__(self, *exc_info):
        _state.is_recording = self._old
        return False


def _recording():
    if _state.writer is None:
        return False
    condition = _state.is_recording
    if callable(condition):
        condition = condition()
    if condition is None:
        return True
    if isinstance(condition, Tensor):
        condition = condition.numpy()
    return bool(condition)


def should_record_summaries():
    """A bool Tensor: True when a default writer is set and `record_if`'s condition (if
    any) holds, as `tf.summary.should_record_summaries`."""
    return constant(_recording())


def get_step():
    """The thread's default step (`set_step`, `as_default(step)`), or None."""
    return _state.step


def set_step(step):
    """Set the thread's default step: an int64-castable value (a Variable is read each
    time a summary is written), or None to unset."""
    _state.step = step


def _int_step(step):
    value = step.numpy() if isinstance(step, Tensor) else step
    value = np.asarray(value)
    if value.shape != () or value.dtype.kind not in "iu":
        raise TypeError(f"A summary step must be an int64-castable integer scalar, got "
                        f"{step!r}.")
    return int(value)


# -- writing --------------------------------------------------------------------------
class summary_scope:
    """`tf.summary.experimental.summary_scope`: yields (tag, scope), the tag being
    `name` (or `default_name`) under the current name scope, kept as given."""

    def __init__(self, name, default_name="summary", values=None):
        del values
        name = name or default_name
        self._tag = _name_scope.scope + name
        cleaned = "".join(c for c in name if c.isascii() and (c.isalnum() or c in "-_/."))
        self._scope = _NameScope(cleaned or default_name)

    def __enter__(self):
        return self._tag, self._scope.__enter__()

    def __exit__(self, *exc_info):
        return self._scope.__exit__(*exc_info)


def _tensor_array(tensor):
    if isinstance(tensor, Tensor):
        return np.asarray(tensor.numpy())
    return np.asarray(tensor)


def _serialized_metadata(metadata):
    if metadata is None:
        return b""
    if hasattr(metadata, "SerializeToString"):
        return metadata.SerializeToString()
    if isinstance(metadata, bytes):
        return metadata
    raise TypeError(f"tf.summary.write: metadata must be a SummaryMetadata proto or its "
                    f"serialized bytes, got {type(metadata).__name__}.")


def _resolved_step(step):
    step = get_step() if step is None else step
    if step is None:
        raise ValueError("No step set. Please specify one either through the `step` "
                         "argument or through tf.summary.experimental.set_step()")
    return _int_step(step)


def write(tag, tensor, step=None, metadata=None, name=None):
    """Write `tensor` under `tag` to the default writer, as `tf.summary.write`.

    Args:
        tag: the summary's tag.
        tensor: a Tensor, array or value, or a callable returning one (called only
            when the summary is recorded).
        step: an int64-castable step; None uses `tf.summary.experimental.get_step()`.
        metadata: a SummaryMetadata proto or its serialized bytes.
        name: unused (TF's op name).

    Returns:
        A bool Tensor: True if written, False when there is no default writer or
        `record_if`'s condition does not hold.

    Raises:
        ValueError: a summary is recorded but no step is given or set.
    """
    del name
    writer = _state.writer
    if writer is None or not _recording():
        return constant(False)
    step = _resolved_step(step)
    if isinstance(writer, _FileWriter):
        value = _tensor_array(tensor() if callable(tensor) else tensor)
        summary = records.summary_value(str(tag), records.tensor_proto(value),
                                        _serialized_metadata(metadata))
        writer._write_event(records.event(time.time(), step, summary=summary))
    return constant(True)


def write_raw_pb(tensor, step=None, name=None):
    """Write serialized `Summary` protocol buffers (a bytes value or an array of them),
    one event each, as `tf.summary.experimental.write_raw_pb`; returns like `write`."""
    del name
    writer = _state.writer
    if writer is None or not _recording():
        return constant(False)
    step = _resolved_step(step)
    values = _tensor_array(tensor).reshape(-1)
    if values.dtype.kind not in "SO":
        raise TypeError(f"write_raw_pb takes serialized Summary protos (bytes), got dtype "
                        f"{values.dtype}.")
    if isinstance(writer, _FileWriter):
        now = time.time()
        for value in values.tolist():
            writer._write_event(records.event(now, step, summary=bytes(value)))
    return constant(True)
