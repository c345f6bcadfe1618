"""operators.py gives Tensor its Python operators (`+`, `*`, `@`, `[]`, ...)
by mapping each to the public op it means. Nothing else lives here."""

from . import array_ops, indexing_ops
from .. import linalg
from .. import math as tf_math
from ..core.args import shape_error
from ..core.tensor import Tensor, binary_operands
from ..ops import math as _m


def _reflected(fn):
    return lambda self, other: fn(other, self)


def _direct(op, tf_name):
    """`x <op> y` straight to the primitive: the hottest path of eager code.

    Same conversion, dtype check and error as tf.math's wrapper, one call
    fewer (W1 and W6 are dominated by this dispatch).
    """
    def forward(self, other):
        x, y = binary_operands(self, other, tf_name)
        try:
            return op(x, y)
        except ValueError as error:
            raise shape_error(error, x, y, tf_name) from None

    def reflected(self, other):
        x, y = binary_operands(other, self, tf_name)
        try:
            return op(x, y)
        except ValueError as error:
            raise shape_error(error, x, y, tf_name) from None

    return forward, reflected


def _plain(fn):
    """`fn` without api/dispatch.composite_aware's frame."""
    return getattr(fn, "__wrapped__", fn)


def install():
    for name, op, tf_name in (("add", _m.add, "AddV2"), ("sub", _m.subtract, "Sub"),
                              ("mul", _m.multiply, "Mul")):
        forward, reflected = _direct(op, tf_name)
        setattr(Tensor, f"__{name}__", forward)
        setattr(Tensor, f"__r{name}__", reflected)
    ops = {  # the plain functions: a Tensor's operator never meets a RaggedTensor here
        "__truediv__": _plain(tf_math.divide), "__pow__": _plain(tf_math.pow),
        "__matmul__": linalg.matmul, "__floordiv__": _plain(tf_math.floordiv),
        "__mod__": _plain(tf_math.floormod),
    }
    for name, fn in ops.items():
        setattr(Tensor, name, fn)
        setattr(Tensor, name.replace("__", "__r", 1), _reflected(fn))
    negative, absolute = _plain(tf_math.negative), _plain(tf_math.abs)
    Tensor.__neg__ = lambda self: negative(self)
    Tensor.__pos__ = lambda self: self
    Tensor.__abs__ = lambda self: absolute(self)
    Tensor.__lt__ = tf_math.less
    Tensor.__le__ = tf_math.less_equal
    Tensor.__gt__ = tf_math.greater
    Tensor.__ge__ = tf_math.greater_equal
    Tensor.__eq__ = _equal
    Tensor.__ne__ = _not_equal
    Tensor.__and__ = tf_math.logical_and
    Tensor.__or__ = tf_math.logical_or
    Tensor.__xor__ = tf_math.logical_xor
    Tensor.__invert__ = lambda self: tf_math.logical_not(self)
    Tensor.__getitem__ = indexing_ops.getitem
    Tensor.T = property(lambda self: array_ops.transpose(self))


def _equal(x, y):
    if y is None:
        return False
    _check_text_meets_text(x, y)
    try:
        return tf_math.equal(x, y)
    except TypeError:
        if _has_text(x) or _has_text(y):
            raise  # TF: "Cannot convert 1 to EagerTensor of dtype string"
        return False
    except ValueError:
        return False  # TF 2: comparing incompatible values is simply not equal


def _not_equal(x, y):
    if y is None:
        return True
    _check_text_meets_text(x, y)
    try:
        return tf_math.not_equal(x, y)
    except TypeError:
        if _has_text(x) or _has_text(y):
            raise
        return True
    except ValueError:
        return True


def _check_text_meets_text(x, y):
    """TF converts the other operand to the tensor's dtype, so a string against a
    number is a TypeError, not "unequal"."""
    if _has_text(x) != _has_text(y) and isinstance(y, (Tensor, str, bytes, int, float)):
        raise TypeError(f"Cannot convert {y!r} to a tensor of dtype {x.dtype.name}: == and != "
                        "compare strings with strings and numbers with numbers.")


def _has_text(value):
    if isinstance(value, Tensor):
        return value._value.dtype.kind == "O"
    return isinstance(value, (str, bytes))
