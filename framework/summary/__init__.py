"""`tf.summary`: TF 2's summary writers and summaries, written as TensorBoard event
files (`tensorboard --logdir DIR` shows them).

The files are written by tapeflow itself, with no dependency: records.py encodes
the few protocol buffer messages an event file holds (`Event`, `Summary`,
`SummaryMetadata`, `TensorProto`) and the TFRecord framing with its CRC32C, in
pure Python and NumPy. The alternative, TensorBoard's own writer as an optional
extra, would make `pip install .` alone write no logs; the format is small, stable
and checked by the tests against TensorBoard's reader (EventAccumulator).
Summaries are written as TF 2 writes them: one `Event` per summary, a tensor with
the plugin's name in its metadata (scalars as float32 "scalars", histograms as
[k, 3] float64 "histograms", images as PNG strings "images", text "text").

Where tapeflow differs: it has no graphs, so `graph` writes nothing and the
`trace_*` functions collect nothing (documented in summaries.py); writers flush on
`flush`, `close`, leaving `as_default`, a full queue, the next summary after
`flush_millis`, garbage collection and interpreter exit, with no background thread.
"""

from . import experimental
from .summaries import (
                     graph,
                     histogram,
                     image,
                     scalar,
                     text,
                     trace_export,
                     trace_off,
                     trace_on,
)
from .writer import (
                     SummaryWriter,
                     create_file_writer,
                     create_noop_writer,
                     flush,
                     record_if,
                     should_record_summaries,
                     write,
)

__all__ = ["SummaryWriter", "create_file_writer", "create_noop_writer", "experimental",
           "flush", "graph", "histogram", "image", "record_if", "scalar",
           "should_record_summaries", "text", "trace_export", "trace_off", "trace_on", "write"]
