"""numerics.py finds where a NaN or Inf was born: `tf.debugging.enable_check_numerics()`
makes every op check its output, and the first op whose output is not finite
raises InvalidArgumentError naming the op, the layer it ran in, the user's line
and whether its inputs were already non-finite. Disabled, it costs nothing:
enabling swaps `Op.__call__` for a checking version, disabling swaps it back,
so the hot path never tests a flag."""

import sys
import threading

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.sites import user_site
from ..ops.registry import Op

__all__ = ["enable_check_numerics", "disable_check_numerics", "check_numerics_enabled",
           "non_finite_error"]

_plain_call = Op.__call__
_lock = threading.Lock()


def _checked_call(self, *inputs, **attrs):
    out = _plain_call(self, *inputs, **attrs)
    value = out._value
    if value.dtype.kind in "fc" and not np.isfinite(value).all():
        raise non_finite_error(self.name, inputs, value)
    return out


def enable_check_numerics(stack_height_limit=30, path_length_limit=50):
    """Raise at the first op whose output holds NaN or Inf, as TF's
    `tf.debugging.enable_check_numerics`. Process-wide, as in TF. The two
    arguments are TF's (they shorten its stack dump) and change nothing here."""
    with _lock:
        Op.__call__ = _checked_call


def disable_check_numerics():
    """Stop checking op outputs (the default); a no-op when not enabled."""
    with _lock:
        Op.__call__ = _plain_call


def check_numerics_enabled():
    return Op.__call__ is _checked_call


def _count(value):
    nan = int(np.isnan(value).sum())
    inf = int(value.size - nan - np.isfinite(value).sum())
    return ", ".join(f"{n} {kind}" for n, kind in ((nan, "NaN"), (inf, "Inf")) if n)


def _describe_inputs(inputs):
    lines, clean = [], True
    for i, t in enumerate(inputs):
        value = getattr(t, "_value", None)
        if value is None or value.dtype.kind not in "fc":
            continue
        name = f" (Variable {t.name!r})" if hasattr(t, "trainable") else ""
        if np.isfinite(value).all():
            lines.append(f"    input {i}{name}: {value.dtype}{tuple(value.shape)}, all finite")
        else:
            clean = False
            lines.append(f"    input {i}{name}: {value.dtype}{tuple(value.shape)}, already "
                         f"held {_count(value)}")
    return lines, clean


def _current_layer():
    """The innermost Keras layer whose call is on the stack (found from the frames,
    so that no layer pays for being findable)."""
    frame = sys._getframe(2)
    while frame is not None:
        if frame.f_code.co_name in ("call", "__call__"):
            owner = frame.f_locals.get("self")
            if owner is not None and getattr(owner, "__dict__", {}).get("_layer_initialized"):
                return owner
        frame = frame.f_back
    return None


def non_finite_error(op_name, inputs, value):
    """The InvalidArgumentError for op `op_name` whose output `value` is not finite."""
    layer = _current_layer()
    site = user_site()
    input_lines, clean = _describe_inputs(inputs)
    origin = ("its inputs were all finite: this op made the first non-finite value"
              if clean else "an input was already non-finite: the value was born earlier, "
              "outside the ops checked since enable_check_numerics()")
    where = [f"  in layer {layer.name!r} ({type(layer).__name__})"] if layer is not None else []
    if site is not None:
        where.append(f"  at {site}")
    return InvalidArgumentError(
        f"!!! Detected Infinity or NaN in output 0 of eagerly-executing op {op_name!r} !!!\n"
        f"  output: {value.dtype}{tuple(value.shape)} with {_count(value)}\n"
        + "\n".join(where + ["  inputs:"] + input_lines) + f"\n  {origin}.")
