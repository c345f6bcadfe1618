"""printing.py is `tf.print`: TF's number formatting (shortest text that reads
back the same at the dtype's precision) and its summarised arrays."""

import sys

import numpy as np

from ..core.tensor import Tensor

__all__ = ["print_", "format_value"]


def _format_number(value):
    if isinstance(value, (float, np.floating)):
        digits = 6 if np.asarray(value).dtype.itemsize <= 4 else 15
        text = f"{float(value):.{digits}g}"
        if np.asarray(value).dtype.itemsize <= 4 and np.float32(text) != np.float32(value):
            text = f"{float(value):.9g}"
        elif np.asarray(value).dtype.itemsize > 4 and float(text) != float(value):
            text = f"{float(value):.17g}"
        return text
    if isinstance(value, (bool, np.bool_)):
        return "1" if value else "0"
    if isinstance(value, bytes):  # a string tensor's element, quoted as TF prints it
        return '"' + value.decode("utf-8", "backslashreplace") + '"'
    return str(value)


def _format_array(array, summarize, depth=0):
    """TF's layout: NumPy-like nesting, rows of a matrix on their own lines, blank
    lines between blocks of higher rank, '...' for the middle of long axes."""
    if isinstance(array, bytes):  # an element of a string tensor
        return _format_number(array)
    if array.ndim == 0:
        return _format_number(array[()])
    n = array.shape[0]
    if summarize >= 0 and n > 2 * summarize:
        rows = list(range(summarize)) + [None] + list(range(n - summarize, n))
    else:
        rows = list(range(n))
    parts = ["..." if i is None else _format_array(array[i], summarize, depth + 1)
             for i in rows]
    sep = " " if array.ndim == 1 else "\n" * (array.ndim - 1) + " " * (depth + 1)
    return "[" + sep.join(parts) + "]"


def format_value(value, summarize=3):
    """`value` as tf.print (and tf.strings.format) writes it: tensors by the rules
    above, lists, tuples and dicts with their items formatted so."""
    if isinstance(value, Tensor):
        return _format_array(np.asarray(value._value), summarize)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {format_value(v, summarize)}"
                               for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(format_value(v, summarize) for v in value) + "]"
    if isinstance(value, tuple):
        return "(" + ", ".join(format_value(v, summarize) for v in value) + \
            ("," if len(value) == 1 else "") + ")"
    return str(value)


def print_(*inputs, output_stream=None, sep=" ", end="\n", summarize=3, name=None):
    """Print tensors as TF's `tf.print` does (to stderr by default).

    Floats print as the shortest text that reads back at their precision
    (`0.999998569` for float32), and long axes are summarised with '...'.
    """
    stream = sys.stderr if output_stream is None else output_stream  # looked up now: tests swap it
    if stream in ("stdout", "sys.stdout"):
        stream = sys.stdout
    elif stream in ("stderr", "sys.stderr"):
        stream = sys.stderr
    stream.write(sep.join(format_value(v, summarize) for v in inputs) + end)
