"""tensor.py owns Tensor (an immutable value wrapping one ndarray), Variable
(mutable, trainable state) and the conversion of Python and NumPy values into
them. Operators delegate to the ops package; recording is the tape's job."""

import builtins
import itertools

import numpy as np

from . import dtypes
from .conversion import python_value_to_array as _python_value_to_array
from .errors import InvalidArgumentError
from .name_scope import scoped_variable_name
from .string_values import OBJECT as _OBJECT
from .tensor_shape import TensorShape, shape_dims as _shape_dims

__all__ = ["Tensor", "Variable", "TensorShape", "constant", "convert_to_tensor"]

_NP_FLOAT32 = np.float32
_PY_SCALAR_TYPES = {float, int, builtins.bool}


# Installed by core/record.py (which imports this module) for GradientTape.explain: the
# recording tapes, and the notes of a tracked value leaving them and of constants; and
# by distribute/context.py while a distributed strategy's scope is open.
_recording = ()
_note_escape = _note_constant = _variable_created = None


class Tensor:
    """An immutable n-dimensional value, as TF's eager tensor.

    Build tensors with `tf.constant` or `tf.convert_to_tensor`; ops return them.
    Tensors support NumPy-style operators, indexing and iteration, and
    `numpy()` returns the value (a NumPy scalar for a rank-0 tensor, as in TF).
    """

    __slots__ = ("_value", "__weakref__")
    __array_priority__ = 100  # NumPy defers `ndarray + Tensor` to Tensor.__radd__.

    def __init__(self, value):
        self._value = value

    # -- value and metadata -------------------------------------------------
    @property
    def shape(self):
        return TensorShape(self._value.shape)

    @property
    def dtype(self):
        return dtypes._BY_NUMPY[self._value.dtype]

    @property
    def ndim(self):
        return self._value.ndim

    @property
    def device(self):
        return "/job:localhost/replica:0/task:0/device:CPU:0"

    def numpy(self):
        """The value: a NumPy array, or a NumPy scalar for rank 0 (as TF)."""
        if _recording:
            _note_escape(self, ".numpy()")
        value = self._value
        return value[()] if value.ndim == 0 else value

    def get_shape(self):
        return self.shape

    def set_shape(self, shape):
        """Check that `shape` (None dimensions, or None for any rank) fits, as TF's eager
        `set_shape`: an eager tensor's shape is always fully known, so nothing changes.

        Raises:
            ValueError: naming both shapes, if they are not compatible.
        """
        if not self.shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {tuple(self._value.shape)} is not compatible "
                             f"with supplied shape {_shape_dims(shape)}.")

    def ref(self):
        """A hashable handle on this tensor (`.deref()` gives it back), for dict keys."""
        return _Reference(self)

    def __hash__(self):  # `==` is elementwise, as in TF 2
        raise TypeError(f"{self._kind} is unhashable. Instead, use {self._kind.lower()}.ref() "
                        "as the key.")

    _kind = "Tensor"

    def __array__(self, dtype=None, copy=None):
        if _recording:
            _note_escape(self, "np.asarray (or a NumPy function)")
        value = np.asarray(self._value)
        return value if dtype is None else value.astype(dtype, copy=False)

    # -- Python protocol ----------------------------------------------------
    def __len__(self):
        if self._value.ndim == 0:
            raise TypeError("Scalar tensor has no `len()`")
        return self._value.shape[0]

    def __iter__(self):
        if self._value.ndim == 0:
            raise TypeError("Cannot iterate over a scalar tensor.")
        return (self[i] for i in range(self._value.shape[0]))

    def _scalar(self, kind):
        if self._value.size != 1:
            raise ValueError(f"Cannot convert a tensor of shape {tuple(self._value.shape)} to "
                             f"{kind}: only single-element tensors can be.")
        return self._value.reshape(()).item()

    def __float__(self):
        if _recording:
            _note_escape(self, "float()")
        return float(self._scalar("float"))

    def __int__(self):
        if _recording:
            _note_escape(self, "int()")
        return int(self._scalar("int"))

    def __index__(self):
        if self._value.dtype.kind not in "iu" or self._value.ndim:
            raise TypeError(f"Only rank-0 integer tensors can be used as an index, got a "
                            f"{self.dtype.name} tensor of shape {tuple(self._value.shape)}.")
        return int(self._value)

    def __bool__(self):
        if self._value.size > 1:
            raise ValueError("The truth value of a tensor with more than one element is "
                             "ambiguous. Use tf.reduce_any or tf.reduce_all.")
        return self._value.size == 1 and builtins.bool(self._value.reshape(()).item())

    def __repr__(self):
        text = repr(np.asarray(self._value)) if self._value.ndim else _scalar_text(self._value)
        sep = "\n" if "\n" in text else ""
        return f"<tf.Tensor: shape={tuple(self._value.shape)}, dtype={self.dtype.name}, numpy={sep}{text}>"

    def __str__(self):
        text = str(self._value) if self._value.ndim else _scalar_text(self._value)
        sep = "\n" if "\n" in text else ""
        return f"tf.Tensor({sep}{text}, shape={tuple(self._value.shape)}, dtype={self.dtype.name})"

    def __format__(self, spec):
        """As TF: the NumPy value's format (`f"{t:.2f}"` for a scalar, `f"{t}"` is
        NumPy's text; a format spec for a non-scalar is NumPy's TypeError)."""
        return format(self.numpy(), spec)

    def __reduce__(self):
        return constant, (np.array(self._value),)

    def __copy__(self):
        return self

    def __deepcopy__(self, memo):
        return self

    # Operators and methods such as __add__ are attached by api/operators.py,
    # which owns the mapping from Python syntax to ops.


def _scalar_text(value):
    value = np.asarray(value)
    item = value[()]
    return str(item.item()) if value.dtype.kind in "biu" else str(item)


class _Reference:
    """A hashable handle on a tensor or variable (TF's `Tensor.ref()`)."""

    __slots__ = ("_target",)

    def __init__(self, target):
        self._target = target

    def deref(self):
        return self._target

    def __repr__(self):
        return f"<Reference wrapping {self._target!r}>"

    def __hash__(self):
        return id(self._target)

    def __eq__(self, other):
        return isinstance(other, _Reference) and other._target is self._target


_variable_ids = itertools.count()


class Variable(Tensor):
    """Mutable, trainable state, as `tf.Variable`.

    Reading a trainable Variable inside a `GradientTape` (with the default
    `watch_accessed_variables=True`) makes that tape watch it. Ops read the
    Variable's current array; `assign`, `assign_add` and `assign_sub` write
    into that array in place and are never recorded on a tape.

    Args:
        initial_value: a value (or a zero-argument callable returning one).
        trainable: whether tapes watch it automatically and optimizers update it.
        name: the name, in the current name scope ('mlp/w'); `.name` adds TF's ':0'.
        dtype: converts the initial value to this dtype.
        shape: if given, must match the initial value's shape.
        constraint: optional callable applied by optimizers after each update.
    """

    __slots__ = ("_name", "_trainable", "_uid", "constraint", "_path")

    def __init__(self, initial_value=None, trainable=None, name=None, dtype=None, shape=None,
                 constraint=None, validate_shape=True, **unused_tf_kwargs):
        if initial_value is None:
            raise ValueError("Variable requires an initial_value.")
        if callable(initial_value):
            initial_value = initial_value()
        value = convert_to_tensor(initial_value, dtype=dtype)._value
        self._value = np.array(value, copy=True, order="C")  # owned; C: the kernels' order
        if shape is not None and tuple(shape) != self._value.shape and all(
                d is not None for d in shape):
            raise ValueError(f"Variable {name!r}: the initial value has shape "
                             f"{self._value.shape} but shape={tuple(shape)} was requested.")
        self._name = scoped_variable_name(name)
        self._trainable = True if trainable is None else builtins.bool(trainable)
        self._uid = next(_variable_ids)
        self._path, self.constraint = None, constraint
        if _variable_created is not None:  # a distributed strategy's scope: rank 0's value
            _variable_created(self)

    @property
    def name(self):
        return self._name if self._name.endswith(":0") else f"{self._name}:0"

    @property
    def path(self):
        """Where the variable sits in a model ('dense/kernel'), else its name."""
        return self._path or self._name

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        self._trainable = builtins.bool(value)

    def numpy(self):
        if _recording:
            _note_escape(self, ".numpy()")
        return self._value.copy() if self._value.ndim else self._value[()]

    def value(self):
        return Tensor(self._value.copy())

    read_value = value

    def _checked_update(self, value, what):
        if isinstance(value, Tensor) and value._value.dtype != self._value.dtype:
            raise TypeError(f"Cannot {what} a {value.dtype.name} value to variable "
                            f"{self.name!r} of dtype {self.dtype.name}.")
        array = np.asarray(value._value if isinstance(value, Tensor) else value)
        if self._value.dtype is _OBJECT or array.dtype.kind in "OUS":
            if what != "assign" and self._value.dtype is _OBJECT:
                raise InvalidArgumentError(
                    f"No OpKernel was registered to support Op '{_UPDATE_OPS[what]}' with "
                    f"these attrs: [dtype=DT_STRING]: variable {self.name!r} holds strings, "
                    "which have no arithmetic; use assign.")
            array = convert_to_tensor(value, dtype=self.dtype)._value  # TypeError if not text
        if array.shape != self._value.shape:
            raise ValueError(f"Cannot {what} a value of shape {array.shape} to variable "
                             f"{self.name!r} of shape {self._value.shape}: shapes must match.")
        return array

    def assign(self, value, use_locking=None, name=None, read_value=True):
        """Write `value` into the variable; its shape must equal the variable's."""
        np.copyto(self._value, self._checked_update(value, "assign"), casting="unsafe")
        return self

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        np.add(self._value, self._checked_update(delta, "assign_add"), out=self._value,
               casting="unsafe")
        return self

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        np.subtract(self._value, self._checked_update(delta, "assign_sub"), out=self._value,
                    casting="unsafe")
        return self

    def __repr__(self):
        text = repr(self._value) if self._value.ndim else _scalar_text(self._value)
        return (f"<tf.Variable '{self.name}' shape={tuple(self._value.shape)} "
                f"dtype={self.dtype.name}, numpy={text}>")

    __str__ = __repr__
    _kind = "Variable"

    def __format__(self, spec):
        # TF prints the repr for f"{v}"; a spec formats the value (TF refuses any spec).
        return repr(self) if not spec else format(self.numpy(), spec)

    def __reduce__(self):
        return _rebuild_variable, (self._value.copy(), self._name, self._trainable)

    def __deepcopy__(self, memo):
        return _rebuild_variable(self._value.copy(), self._name, self._trainable)


_UPDATE_OPS = {"assign_add": "AssignAddVariableOp", "assign_sub": "AssignSubVariableOp"}


def _rebuild_variable(value, name, trainable):
    variable = Variable(value, trainable=trainable)
    variable._name = name  # a copy keeps its name whatever name scope it is made in
    return variable


def _read_variable(variable):
    """A Variable's value as a new Tensor; autodiff/tape.py makes it a recorded read."""
    return variable.value()


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """Convert a Tensor, Variable, NumPy array, Python number or nested list to a Tensor.

    Python floats become float32 and Python ints int32, as in TF; NumPy
    arrays keep their dtype. A Variable is read: the result is a Tensor
    holding a copy of its value, and the read is differentiable (recorded on
    the tapes watching the Variable, as TF's ReadVariableOp).

    Args:
        value: the value to convert.
        dtype: the required dtype; a Tensor of another dtype is an error.
        dtype_hint: the dtype to use for Python values when `dtype` is None.

    Raises:
        ValueError: if `value` is a Tensor whose dtype differs from `dtype`.
        TypeError: if `value` cannot be converted.
    """
    if type(value) is float and dtype is None:
        return Tensor(_NP_FLOAT32(value))
    np_dtype = dtypes.numpy_dtype(dtype)
    if isinstance(value, Tensor):
        if np_dtype is not None and value._value.dtype != np_dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} "
                             f"for Tensor with dtype {value.dtype.name}: {value!r}")
        return _read_variable(value) if isinstance(value, Variable) else value
    hint = False
    if np_dtype is None and dtype_hint is not None and not isinstance(value, (np.ndarray,
                                                                              np.generic)):
        np_dtype, hint = dtypes.numpy_dtype(dtype_hint), True
    if isinstance(value, (list, tuple)) and any(isinstance(v, Tensor) for v in _leaves(value)):
        value = _stack_nested(value)
    return Tensor(_compact(_python_value_to_array(value, np_dtype, hint)))


def _compact(array):
    """Rank-0 numbers are kept as NumPy scalars: their arithmetic is ~10x faster.
    Strings stay rank-0 arrays (their element is a bare `bytes`)."""
    return array[()] if array.ndim == 0 and array.dtype is not _OBJECT else array


def _leaves(value):
    for item in value:
        if isinstance(item, (list, tuple)):
            yield from _leaves(item)
        else:
            yield item


def _stack_nested(value):
    if isinstance(value, (list, tuple)):
        items = [_stack_nested(v) for v in value]
        # Text stays in lists: NumPy would decode bytes or drop their trailing NULs.
        return items if any(isinstance(i, (list, str, bytes)) for i in items) else np.array(items)
    if isinstance(value, Tensor):
        return value._value.tolist() if value._value.dtype is _OBJECT else np.asarray(value._value)
    return value


def constant(value, dtype=None, shape=None, name=None):
    """Create a constant Tensor, as `tf.constant`.

    Args:
        value: a Python number, nested list, NumPy array or Tensor.
        dtype: the result's dtype; Python values are cast to it.
        shape: if given, a scalar `value` is broadcast to it and a value with
            the same number of elements is reshaped to it.

    Raises:
        TypeError: if `value` cannot be converted to `dtype`.
    """
    if type(value) is float and dtype is None and shape is None:
        # The common `tf.constant(1.0)`. A new Tensor each time: user-visible
        # tensors are distinct objects, as a tape tells sources apart by identity.
        result = Tensor(_NP_FLOAT32(value))
        if _recording:
            _note_constant(value, result)
        return result
    if isinstance(value, Tensor):
        array = value._value
        if dtype is not None and array.dtype != dtypes.numpy_dtype(dtype):
            if array.dtype is _OBJECT or dtypes.numpy_dtype(dtype) is _OBJECT:
                raise TypeError(f"Expected tensor {value.numpy()!r} with dtype "
                                f"{dtypes.as_dtype(dtype)!r}, but got dtype {value.dtype!r}.")
            array = array.astype(dtypes.numpy_dtype(dtype))
    else:
        array = _python_value_to_array(value, dtypes.numpy_dtype(dtype))
    if shape is not None:
        shape = tuple(int(d) for d in shape)
        if array.size == 1:
            array = np.broadcast_to(array.reshape(()), shape).copy()
        elif array.size == int(np.prod(shape, dtype=np.int64)):
            array = array.reshape(shape)
        else:
            raise TypeError(f"Eager execution of tf.constant with unsupported shape: value has "
                            f"{array.size} elements, shape is {shape} with "
                            f"{int(np.prod(shape, dtype=np.int64))} elements.")
    if isinstance(value, Variable):
        array = array.copy()
    result = Tensor(_compact(array))
    if _recording:  # a constant made while a tape records may hold a value that left it
        _note_constant(value, result)
    return result


_SCALAR_CACHE = {}


def scalar(value, dtype):
    """A rank-0 Tensor of `value` in NumPy `dtype`, shared for repeated constants.

    Only for operands made internally (`x * 2.0`, constants in VJPs), which no
    user holds: tensors a user can hold must be distinct objects, because a
    tape tells watched sources apart by identity. Zero is not cached because
    -0.0 == 0.0 would alias the two.
    """
    key = (type(value), value, dtype)
    try:
        return _SCALAR_CACHE[key]
    except (KeyError, TypeError):
        pass
    if dtype is _OBJECT:
        raise TypeError(f"Cannot convert {value!r} to a tensor of dtype string.")
    tensor = Tensor(dtype.type(value))
    if value != 0:
        if len(_SCALAR_CACHE) > 4096:
            _SCALAR_CACHE.clear()
        _SCALAR_CACHE[key] = tensor
    return tensor


def _operand(value, like):
    """`value` as the operand of a binary op whose other operand is `like`.

    A Python scalar takes `like`'s dtype (TF's rule); tensors and arrays keep
    theirs, and the caller checks that the dtypes agree.
    """
    if type(value) in _PY_SCALAR_TYPES:
        dtype = like._value.dtype
        if type(value) is float and dtype.kind in "iub" and value != int(value):
            raise TypeError(f"Cannot convert {value!r} to a tensor of dtype "
                            f"{like.dtype.name}.")
        return scalar(value, dtype)
    return convert_to_tensor(value, dtype_hint=like._value.dtype)


def binary_operands(x, y, op_name):
    """Convert the operands of a binary op and check that their dtypes agree."""
    if isinstance(x, Tensor):
        if not isinstance(y, Tensor):
            y = _operand(y, x)
    elif isinstance(y, Tensor):
        x = _operand(x, y)
    else:
        x = convert_to_tensor(x)
        y = _operand(y, x)
    dx, dy = x._value.dtype, y._value.dtype
    if dx is not dy and dx != dy:
        raise InvalidArgumentError(
            f"cannot compute {op_name} as input #1(zero-based) was expected to be a "
            f"{x.dtype.name} tensor but is a {y.dtype.name} tensor [Op:{op_name}]")
    if dx is _OBJECT and op_name in _NO_STRING_KERNEL:
        # NumPy would order bytes; TF has no kernel for strings here.
        raise InvalidArgumentError(f"Value for attr 'T' of string is not in the list of allowed "
                                   f"values: {op_name} takes numbers, not strings [Op:{op_name}]")
    return x, y


# Binary ops computed straight on the arrays (math/comparisons.py) that NumPy
# would run on strings; the registry's ops refuse strings themselves.
_NO_STRING_KERNEL = frozenset({"Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd",
                               "LogicalOr", "LogicalXor"})


def as_tensor(value):
    """An op input: Tensors and Variables as they are, anything else converted."""
    return value if isinstance(value, Tensor) else convert_to_tensor(value)
