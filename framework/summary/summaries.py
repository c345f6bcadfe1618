"""summaries.py owns the typed summaries of `tf.summary` (scalar, histogram, image,
text) as TensorBoard's plugins define them in TF 2 (tensorboard/plugins/*/summary_v2.py:
the tensor each writes and the plugin named in its metadata), and the graph and
trace functions, which have nothing to record in tapeflow. Writers are writer.py's."""

import warnings

import numpy as np

from ..core import dtypes, errors
from ..core.tensor import Tensor, constant
from ..image.color import convert_image_dtype
from . import records
from .png import encode_png
from .writer import _recording, _resolved_step, _state, summary_scope, write

__all__ = [
    "graph",
    "histogram",
    "image",
    "scalar",
    "text",
    "trace_export",
    "trace_off",
    "trace_on",
]

DEFAULT_BUCKET_COUNT = 30  # TensorBoard's histogram default


def _array(data):
    return np.asarray(data.numpy() if isinstance(data, Tensor) else data)


def _metadata(plugin_name, description):
    return records.summary_metadata(plugin_name, description=description)


def scalar(name, data, step=None, description=None):
    """Write a scalar (as float32) to the default writer, as `tf.summary.scalar`.

    TensorBoard shows it in the Scalars dashboard (plugin "scalars").

    Args:
        name: the tag, under the current name scope.
        data: a real scalar (Tensor, NumPy or Python number).
        step: an int64-castable step; None uses `tf.summary.experimental.get_step()`.
        description: a Markdown description shown by TensorBoard.

    Returns:
        A bool Tensor: True if written, False without a default writer (or when
        `record_if`'s condition does not hold).

    Raises:
        ValueError: `data` is not a scalar, or a summary is recorded without a step.
        UnimplementedError: `data` is not a number (TF's cast error).
    """
    with summary_scope(name, "scalar_summary") as (tag, _):
        value = _array(data)
        if value.shape != ():
            raise ValueError(f"Expected scalar shape, saw shape: {value.shape}.")
        if value.dtype.kind not in "biuf":
            raise errors.UnimplementedError(f"Cast {value.dtype} to float is not supported "
                                            f"(tf.summary.scalar {tag!r}).")
        return write(tag, value.astype(np.float32), step, _metadata("scalars", description))


def _buckets(data, bucket_count):
    """TensorBoard's histogram tensor: [k, 3] float64 rows (left edge, right edge,
    count), the last bucket closed; a single value fills the last bucket, no data
    gives zeros. Non-finite values follow TF's arithmetic (NaN edges, uncounted NaNs)."""
    data = _array(data)
    if data.dtype.kind not in "biuf":
        raise errors.UnimplementedError(f"Cast {data.dtype} to double is not supported "
                                        "(tf.summary.histogram).")
    data = data.astype(np.float64).reshape(-1)
    bucket_count = max(0, bucket_count)
    if data.size == 0 or bucket_count == 0:
        return np.zeros((bucket_count, 3))
    low, high = data.min(), data.max()
    if high - low == 0:
        counts = np.zeros(bucket_count)
        counts[-1] = data.size
        return np.stack([np.full(bucket_count, high), np.full(bucket_count, high), counts], 1)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        indices = np.floor((data - low) / ((high - low) / bucket_count))
        indices = np.minimum(indices[np.isfinite(indices)], bucket_count - 1).astype(np.int64)
        counts = np.bincount(indices[indices >= 0], minlength=bucket_count).astype(np.float64)
        edges = np.linspace(low, high, bucket_count + 1)
    edges[-1] = high
    return np.stack([edges[:-1], edges[1:], counts], 1)


def histogram(name, data, step=None, buckets=None, description=None):
    """Write a histogram of `data`'s elements, as `tf.summary.histogram` (TF 2's form:
    a [buckets, 3] float64 tensor of left edge, right edge and count, plugin
    "histograms"; TensorBoard shows it under Histograms and Distributions).

    Args:
        name: the tag, under the current name scope.
        data: a real Tensor of any shape.
        step: an int64-castable step; None uses `tf.summary.experimental.get_step()`.
        buckets: the number of equal-width buckets between the minimum and the
            maximum (30); computed only when the summary is written.
        description: a Markdown description shown by TensorBoard.

    Returns:
        A bool Tensor: True if written, False otherwise (see `scalar`).

    Raises:
        TypeError: `buckets` is not an integer.
        ValueError: a summary is recorded without a step.
    """
    bucket_count = DEFAULT_BUCKET_COUNT if buckets is None else buckets
    if isinstance(bucket_count, Tensor):
        bucket_count = bucket_count.numpy()
    if isinstance(bucket_count, (bool, np.bool_)) or not isinstance(bucket_count,
                                                                    (int, np.integer)):
        raise TypeError(f"tf.summary.histogram: buckets must be an int32 scalar, got "
                        f"{buckets!r}.")
    with summary_scope(name, "histogram_summary") as (tag, _):
        return write(tag, lambda: _buckets(data, int(bucket_count)), step,
                     _metadata("histograms", description))


def _encoded_images(data, max_outputs):
    """TF 2's image tensor: [width, height, PNG 1, ..., PNG k] as strings."""
    array = _array(data)
    if array.ndim != 4:
        raise ValueError(f"Tensor data must have rank 4. Received rank {array.ndim}, shape "
                         f"{array.shape}")
    if int(max_outputs) < 0:
        raise errors.InvalidArgumentError(f"max_outputs must be non-negative, got "
                                          f"{max_outputs}.")
    channels = array.shape[-1]
    if channels not in (1, 2, 3, 4) or 0 in array.shape[1:3]:
        raise errors.InvalidArgumentError(
            f"image must have 1, 2, 3 or 4 channels and no empty side, got shape "
            f"{array.shape}.")
    if array.dtype.kind not in "iuf":
        raise errors.InvalidArgumentError(f"tf.summary.image: images must be integer or "
                                          f"floating point, got dtype {array.dtype}.")
    images = convert_image_dtype(constant(array), dtypes.uint8, saturate=True).numpy()
    height, width = images.shape[1:3]
    return np.array([str(width).encode(), str(height).encode()]
                    + [encode_png(image) for image in images[:int(max_outputs)]], dtype=object)


def image(name, data, step=None, max_outputs=3, description=None):
    """Write up to `max_outputs` images as PNGs, as `tf.summary.image` (plugin "images").

    Args:
        name: the tag, under the current name scope.
        data: images of shape [k, height, width, channels], 1 to 4 channels: floats
            (clipped to [0, 1]) or integers, converted to uint8 as
            `tf.image.convert_image_dtype(data, tf.uint8, saturate=True)`.
        step: an int64-castable step; None uses `tf.summary.experimental.get_step()`.
        max_outputs: at most this many images (the first ones) are written (3).
        description: a Markdown description shown by TensorBoard.

    Returns:
        A bool Tensor: True if written, False otherwise (see `scalar`).

    Raises:
        ValueError: `data` is not of rank 4, or a summary is recorded without a step.
        InvalidArgumentError: a negative `max_outputs`, or not 1 to 4 channels.
    """
    with summary_scope(name, "image_summary") as (tag, _):
        return write(tag, lambda: _encoded_images(data, max_outputs), step,
                     _metadata("images", description))


def text(name, data, step=None, description=None):
    """Write a string Tensor (any shape), as `tf.summary.text` (plugin "text",
    Markdown rendered by TensorBoard).

    Raises:
        TypeError: `data` is not a string (TF's `assert_type`).
        ValueError: a summary is recorded without a step.
    """
    with summary_scope(name, "text_summary") as (tag, _):
        value = _array(data)
        if value.dtype.kind not in "US" and not (
                value.dtype.kind == "O"
                and all(isinstance(v, (str, bytes)) for v in value.reshape(-1).tolist())):
            raise TypeError(f"tf.summary.text {tag!r}: data must be of type tf.string; got "
                            f"{value.dtype}.")
        return write(tag, value, step, _metadata("text", description))


# -- graphs and traces: tapeflow runs eagerly and records no graph ---------------------
_NO_GRAPH = ("tapeflow runs eagerly and builds no graphs, and has no profiler")
_trace = None  # (graph, profiler) while a trace is on, as TF's process-wide context


def graph(graph_data):
    """`tf.summary.graph`: False without a default writer, as TF; otherwise a
    ValueError, since tapeflow has no `tf.Graph` or `GraphDef` to write."""
    if _state.writer is None or not _recording():
        return constant(False)
    raise ValueError(f"Argument 'graph_data' is not tf.Graph or tf.compat.v1.GraphDef. "
                     f"Received graph_data={graph_data!r} of type "
                     f"{type(graph_data).__name__} ({_NO_GRAPH}).")


def trace_on(graph=True, profiler=False):
    """Start a trace, as `tf.summary.trace_on`; tapeflow collects nothing (it has no
    graphs and no profiler), so `trace_export` writes nothing: a warning says so."""
    global _trace
    if _trace is not None:
        warnings.warn("Trace already enabled", stacklevel=2)
        return
    warnings.warn(f"tf.summary.trace_on: {_NO_GRAPH}; trace_export will write no graph "
                  "or profile.", stacklevel=2)
    _trace = (bool(graph), bool(profiler))


def trace_off():
    """Stop the trace, as `tf.summary.trace_off`."""
    global _trace
    _trace = None


def trace_export(name, step=None, profiler_outdir=None):
    """Stop the trace, as `tf.summary.trace_export`, writing nothing (see `trace_on`).

    Raises:
        ValueError: no trace is on; `profiler_outdir` missing for a profiler trace; or a
            default writer is set but no step is given or set (as TF).
    """
    del name
    if _trace is None:
        raise ValueError("Must enable trace before export through tf.summary.trace_on.")
    if _trace[1] and profiler_outdir is None:
        raise ValueError("Argument `profiler_outdir` is not specified.")
    if _state.writer is not None and _recording():
        _resolved_step(step)
    trace_off()
