"""`tf.summary.experimental`: the default step, the summary scope and raw Summary
protos; all live in writer.py."""

from .writer import get_step, set_step, summary_scope, write_raw_pb

__all__ = ["get_step", "set_step", "summary_scope", "write_raw_pb"]
