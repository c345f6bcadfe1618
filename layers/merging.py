"""merging.py holds the layers that combine a list of inputs: Add, Subtract,
Multiply, Average, Maximum, Minimum, Concatenate and Dot, plus their functional
forms (`add([a, b])`, ...). Shapes are checked up front, naming the layer."""

import numpy as np

from ..api.array_ops import (cast, concat, expand_dims, ones_like, reshape, transpose,
                             zeros_like)
from ..linalg import matmul
from ..math import (add as _add, divide, maximum as _maximum, minimum as _minimum,
                    logical_or, multiply as _multiply, reduce_any, reduce_sum, sqrt, square,
                    subtract as _subtract)
from ..core.tensor import Tensor
from .base import Layer

__all__ = ["Add", "Subtract", "Multiply", "Average", "Maximum", "Minimum", "Concatenate",
           "Dot", "add", "subtract", "multiply", "average", "maximum", "minimum",
           "concatenate", "dot"]


def _bool(mask):
    """A Keras mask as a bool tensor, by ops (a traced step replays them)."""
    return cast(mask, "bool")


def _shapes_text(shapes):
    return ", ".join(str(tuple(s)) for s in shapes)


class _Merge(Layer):
    """Elementwise merge of two or more inputs of broadcast-compatible shapes."""

    _min_inputs = 2
    _max_inputs = None

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.supports_masking = True

    def _check_inputs(self, shapes):
        if not isinstance(shapes, (list, tuple)) or not all(
                isinstance(s, (list, tuple)) for s in shapes):
            raise ValueError(f"A merge layer ({self.name!r}) should be called on a list of "
                             f"inputs. Received: input_shape={shapes}")
        if len(shapes) < self._min_inputs or (self._max_inputs and
                                              len(shapes) > self._max_inputs):
            expected = (f"exactly {self._max_inputs}" if self._max_inputs == self._min_inputs
                        else f"at least {self._min_inputs}")
            raise ValueError(f"Layer {self.name!r} should be called on {expected} inputs. "
                             f"Received {len(shapes)} inputs (shapes {_shapes_text(shapes)}).")
        try:
            return np.broadcast_shapes(*[tuple(1 if d is None else d for d in s)
                                         for s in shapes])
        except ValueError:
            raise ValueError(f"Layer {self.name!r}: inputs have incompatible shapes. Received "
                             f"shapes {_shapes_text(shapes)}") from None

    def build(self, input_shape):
        self._check_inputs(input_shape)

    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)):
            raise ValueError(f"A merge layer ({self.name!r}) should be called on a list of "
                             f"inputs. Received: {type(inputs).__name__}")
        self._check_inputs([t.shape for t in inputs])
        return self._merge(list(inputs))

    def compute_output_shape(self, input_shape):
        self._check_inputs(input_shape)
        rank = max(len(s) for s in input_shape)
        padded = [(1,) * (rank - len(s)) + tuple(s) for s in input_shape]
        out = []
        for dims in zip(*padded):
            known = [d for d in dims if d is not None and d != 1]
            out.append(known[0] if known else (None if None in dims else 1))
        return tuple(out)

    def compute_mask(self, inputs, mask=None):
        if mask is None or not isinstance(mask, (list, tuple)):
            return mask if not isinstance(mask, (list, tuple)) else None
        # Keras 3's rule: a step is kept where any input keeps it; an unmasked
        # input makes the output unmasked (Keras 2 took the AND of the masks given).
        if any(m is None for m in mask):
            return None
        output_mask = _bool(mask[0])
        for m in mask[1:]:
            output_mask = logical_or(output_mask, _bool(m))
        return output_mask


class Add(_Merge):
    """The elementwise sum of the inputs."""

    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = _add(out, x)
        return out


class Subtract(_Merge):
    """inputs[0] - inputs[1] (exactly two inputs)."""

    _max_inputs = 2

    def _merge(self, inputs):
        return _subtract(inputs[0], inputs[1])


class Multiply(_Merge):
    """The elementwise product of the inputs."""

    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = _multiply(out, x)
        return out


class Average(_Merge):
    """The elementwise mean of the inputs."""

    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = _add(out, x)
        return divide(out, Tensor(np.asarray(len(inputs), out._value.dtype)))


class Maximum(_Merge):
    """The elementwise maximum of the inputs."""

    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = _maximum(out, x)
        return out


class Minimum(_Merge):
    """The elementwise minimum of the inputs."""

    def _merge(self, inputs):
        out = inputs[0]
        for x in inputs[1:]:
            out = _minimum(out, x)
        return out


class Concatenate(_Merge):
    """Join the inputs along `axis` (-1); every other axis must match.

    Raises:
        ValueError: naming the layer and the shapes when they do not fit.
    """

    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = int(axis)

    def _check_inputs(self, shapes):
        if not isinstance(shapes, (list, tuple)) or not all(
                isinstance(s, (list, tuple)) for s in shapes) or len(shapes) < 1:
            raise ValueError(f"A `Concatenate` layer ({self.name!r}) should be called on a list "
                             f"of at least 1 input. Received: input_shape={shapes}")
        ranks = {len(s) for s in shapes}
        rank = len(shapes[0])
        if len(ranks) != 1 or not -rank <= self.axis < rank:
            raise ValueError(self._mismatch(shapes))
        axis = self.axis % rank
        for s in shapes[1:]:
            for d, (a, b) in enumerate(zip(shapes[0], s)):
                if d != axis and a is not None and b is not None and a != b:
                    raise ValueError(self._mismatch(shapes))

    def _mismatch(self, shapes):
        return (f"Layer {self.name!r}: a `Concatenate` layer requires inputs with matching "
                f"shapes except for the concatenation axis {self.axis}. Received: input_shape="
                f"[{_shapes_text(shapes)}]")

    def _merge(self, inputs):
        return concat(inputs, axis=self.axis)

    def compute_output_shape(self, input_shape):
        self._check_inputs(input_shape)
        out = list(input_shape[0])
        axis = self.axis % len(out)
        sizes = [s[axis] for s in input_shape]
        out[axis] = None if None in sizes else sum(sizes)
        for s in input_shape:  # take known sizes from any input
            for d, v in enumerate(s):
                if out[d] is None and d != axis:
                    out[d] = v
        return tuple(out)

    def compute_mask(self, inputs, mask=None):
        if mask is None or not isinstance(mask, (list, tuple)) or all(m is None for m in mask):
            return None
        masks = []
        for x, m in zip(inputs, mask):  # Keras 3's ops: each mask to its input's rank
            if m is None:
                masks.append(ones_like(x, dtype="bool"))
            else:
                m = _bool(m)
                if m.ndim < x.ndim:
                    m = logical_or(expand_dims(m, -1), zeros_like(x, dtype="bool"))
                masks.append(m)
        return reduce_any(concat(masks, axis=self.axis), axis=-1)

    def get_config(self):
        config = super().get_config()
        config["axis"] = self.axis
        return config


def _l2_normalize(x, axis):
    norm = sqrt(_maximum(reduce_sum(square(x), axis=axis, keepdims=True),
                         Tensor(np.asarray(1e-12, x._value.dtype))))
    return divide(x, norm)


class Dot(_Merge):
    """The dot product of two batched inputs along `axes` (one per input, or
    one for both), as Keras's `batch_dot`: the result has the remaining axes of
    the first input, then those of the second (a (batch, 1) result for vectors).

    Args:
        axes: an int or a pair of ints (axis 0, the batch, cannot be used).
        normalize: L2-normalize both inputs along `axes` first (cosine similarity).

    Raises:
        ValueError: for sizes that differ along `axes`, naming both shapes.
    """

    _max_inputs = 2

    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(axes, int):
            axes = (axes, axes)
        self.axes = tuple(int(a) for a in axes)
        if len(self.axes) != 2:
            raise ValueError(f"Layer {self.name!r}: `axes` must be an int or a pair of ints, "
                             f"got {axes!r}.")
        self.normalize = bool(normalize)
        self.supports_masking = False

    def _resolved_axes(self, shapes):
        return tuple(a % len(s) for a, s in zip(self.axes, shapes))

    def _check_inputs(self, shapes):
        if not isinstance(shapes, (list, tuple)) or len(shapes) != 2:
            raise ValueError(f"A `Dot` layer ({self.name!r}) should be called on a list of 2 "
                             f"inputs. Received: input_shape={shapes}")
        a, b = (tuple(s) for s in shapes)
        if any(not -len(s) <= ax < len(s) for ax, s in zip(self.axes, (a, b))):
            raise ValueError(f"Layer {self.name!r}: axes {self.axes} are out of range for "
                             f"shapes {a} and {b}.")
        ax, bx = self._resolved_axes((a, b))
        if ax == 0 or bx == 0:
            raise ValueError(f"Layer {self.name!r}: cannot take the dot product along the "
                             "batch axis 0.")
        if a[ax] is not None and b[bx] is not None and a[ax] != b[bx]:
            raise ValueError(f"Layer {self.name!r}: incompatible input shapes: axis values "
                             f"{a[ax]} (axis {ax} of {a}) != {b[bx]} (axis {bx} of {b}).")
        if a[0] is not None and b[0] is not None and a[0] != b[0]:
            raise ValueError(f"Layer {self.name!r}: the batch sizes differ: {a} and {b}.")

    def _merge(self, inputs):
        x, y = inputs
        ax, bx = self._resolved_axes((x.shape, y.shape))
        if self.normalize:
            x, y = _l2_normalize(x, ax), _l2_normalize(y, bx)
        xs, ys = tuple(x.shape), tuple(y.shape)
        x_rest = [d for d in range(1, len(xs)) if d != ax]
        y_rest = [d for d in range(1, len(ys)) if d != bx]
        n = xs[0]
        # (n, P, k) @ (n, k, Q): one batched BLAS product.
        x3 = reshape(transpose(x, [0] + x_rest + [ax]),
                     (n, int(np.prod([xs[d] for d in x_rest], dtype=np.int64)), xs[ax]))
        y3 = reshape(transpose(y, [0, bx] + y_rest),
                     (n, ys[bx], int(np.prod([ys[d] for d in y_rest], dtype=np.int64))))
        out_shape = (n,) + tuple(xs[d] for d in x_rest) + tuple(ys[d] for d in y_rest)
        if len(out_shape) == 1:
            out_shape = (n, 1)
        return reshape(matmul(x3, y3), out_shape)

    def compute_output_shape(self, input_shape):
        self._check_inputs(input_shape)
        a, b = (tuple(s) for s in input_shape)
        ax, bx = self._resolved_axes((a, b))
        out = (a[0],) + tuple(d for i, d in enumerate(a) if i not in (0, ax)) + tuple(
            d for i, d in enumerate(b) if i not in (0, bx))
        return out if len(out) > 1 else (a[0], 1)

    def compute_mask(self, inputs, mask=None):
        return None

    def get_config(self):
        config = super().get_config()
        config.update({"axes": self.axes, "normalize": self.normalize})
        return config


def _functional(cls):
    def merge(inputs, **kwargs):
        return cls(**kwargs)(inputs)
    merge.__name__ = cls.__name__.lower()
    merge.__doc__ = f"Functional form of `{cls.__name__}`: `{cls.__name__}(**kwargs)(inputs)`."
    return merge


add, subtract, multiply, average = (_functional(Add), _functional(Subtract),
                                    _functional(Multiply), _functional(Average))
maximum, minimum, concatenate = _functional(Maximum), _functional(Minimum), _functional(
    Concatenate)


def dot(inputs, axes=-1, **kwargs):
    """Functional form of `Dot`: `Dot(axes, **kwargs)(inputs)`."""
    return Dot(axes=axes, **kwargs)(inputs)
