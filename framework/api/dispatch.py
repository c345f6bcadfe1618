"""dispatch.py is the table through which TF's root functions reach the
composite tensors, as TF's dispatch does: tf.ragged registers its concat,
stack, tile, reverse, shape, reshape and the reductions here when it is
imported, keyed by (function name, type of the argument), and the public
functions ask `for_value`/`for_any` before converting their input to a Tensor."""

import functools

__all__ = ["register", "for_value", "for_any", "composite_aware"]

_TABLE = {}


def register(name, cls, implementation):
    """Make `name` (e.g. "concat") run `implementation` when given a `cls`."""
    _TABLE[name, cls] = implementation


def for_value(name, value):
    """The implementation of `name` for `value`'s type, or None (the usual case)."""
    return _TABLE.get((name, type(value))) if _TABLE else None


def for_any(name, values):
    """The implementation of `name` for the first of `values` that has one, or None."""
    if _TABLE and isinstance(values, (list, tuple)):
        for value in values:
            implementation = _TABLE.get((name, type(value)))
            if implementation is not None:
                return implementation
    return None


def composite_aware(fn, key="elementwise"):
    """`fn` that also takes the composite tensors registered under `key`: tried only
    after `fn` itself refused its arguments (TypeError or ValueError), so Tensors pay nothing
    but this frame. With key "elementwise" the implementation gets `fn` to apply to the
    flat values; any other key's implementation takes `fn`'s arguments. Tensor's
    operators bind `fn` itself (`public.__wrapped__`), without the frame."""
    @functools.wraps(fn)
    def public(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except (TypeError, ValueError):  # TF's conversion error for unknown types is either
            implementation = for_any(key, args)
            if implementation is None:
                raise
        if key == "elementwise":
            return implementation(fn, *args, **kwargs)
        return implementation(*args, **kwargs)
    return public
