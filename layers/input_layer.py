"""input_layer.py holds `tf.keras.Input` and `InputLayer`, the symbolic inputs
of the functional API, with Keras 3's arguments and checks (and Keras 2's
`input_shape`/`batch_input_shape` spellings), and `conform_to_input`, which
fits a real value to its Input when a model runs."""

import warnings

import numpy as np

from ..api.array_ops import cast, expand_dims, squeeze
from ..core.dtypes import as_dtype
from ..core.tensor import Tensor, constant, convert_to_tensor
from ..ragged.ragged_tensor import RaggedTensor
from ..sparse.sparse_tensor import SparseTensor
from .keras_tensor import KerasTensor

__all__ = ["Input", "InputLayer", "InputLayerOf", "reset_input_names", "conform_to_input"]


def _standardize_shape(shape):
    """A tuple of ints >= 0 or None (an int alone is a shape of one axis)."""
    if isinstance(shape, (int, np.integer)):
        shape = (shape,)
    try:
        dims = tuple(shape)
    except TypeError:
        raise ValueError(f"Cannot convert '{shape}' to a shape.") from None
    for dim in dims:
        if dim is not None and (not isinstance(dim, (int, np.integer)) or isinstance(
                dim, bool) or dim < 0):
            raise ValueError(f"Cannot convert '{shape}' to a shape. Found invalid entry "
                             f"'{dim}' of type '{type(dim)}'. Dimensions can only be None "
                             "or non-negative integers.")
    return tuple(None if d is None else int(d) for d in dims)


def _batch_shape(shape, batch_size, batch_shape, tensor, dtype, sparse):
    """The full shape from Input's arguments, checked as Keras 3's InputLayer checks them."""
    if tensor is not None:
        if not isinstance(tensor, KerasTensor):
            raise ValueError("Argument `input_tensor` must be a KerasTensor. Received invalid "
                             f"type: input_tensor={tensor!r} (of type {type(tensor)})")
        given = {"batch_size": batch_size is not None and (
                     not tensor.shape or tensor.shape[0] != batch_size),
                 "shape": shape is not None and _standardize_shape(shape) != tensor.shape[1:],
                 "batch_shape": batch_shape is not None and _standardize_shape(
                     batch_shape) != tensor.shape,
                 "dtype": dtype is not None and as_dtype(dtype) != tensor.dtype,
                 "sparse": sparse is not None and bool(sparse) != tensor.sparse}
        for argument, incompatible in given.items():
            if incompatible:
                raise ValueError("When providing the `input_tensor` argument, you cannot "
                                 f"provide an incompatible `{argument}` argument.")
        return tensor.shape
    if shape is not None and batch_shape is not None:
        raise ValueError("You cannot pass both `shape` and `batch_shape` at the same time.")
    if batch_size is not None and batch_shape is not None:
        raise ValueError("You cannot pass both `batch_size` and `batch_shape` at the same "
                         "time.")
    if shape is None and batch_shape is None:
        raise ValueError("You must pass a `shape` argument (the shape of one example, "
                         "without the batch axis) or `batch_shape`.")
    if batch_shape is not None:
        return _standardize_shape(batch_shape)
    if batch_size is not None and (not isinstance(batch_size, (int, np.integer))
                                   or batch_size <= 0):
        raise ValueError(f"Argument `batch_size` must be a positive integer or None. "
                         f"Received: batch_size={batch_size!r}")
    return (batch_size,) + _standardize_shape(shape)


class _InputLayerType(type):
    """InputLayer's metaclass: the InputLayerOf objects that a functional model's
    `layers` lists pass isinstance(x, InputLayer), as Keras's InputLayers do."""

    def __instancecheck__(cls, instance):
        return type.__instancecheck__(cls, instance) or (
            cls is InputLayer and type(instance) is InputLayerOf)


class InputLayer(KerasTensor, metaclass=_InputLayerType):
    """Keras's `InputLayer`: in tapeflow the layer is the input tensor itself (a
    KerasTensor carrying the layer's attributes), because a functional graph
    records no node for its inputs; so `Sequential([InputLayer(...), ...])`
    and `Model(InputLayer(...), ...)` work as in Keras, and `.output` is the
    layer itself.

    Args:
        shape: the shape of one example, without the batch axis.
        batch_size: a fixed batch size (None: any).
        dtype: the input dtype ('float32').
        sparse: the model takes SparseTensors here (Dense multiplies them as sparse).
        ragged: the model takes RaggedTensors here; they reach the first layer as
            they are (cast to `dtype`), so that layer must accept them (tf.math
            functions in a Lambda do; most layers do not).
        batch_shape: the full shape with the batch axis, instead of shape/batch_size.
        input_tensor: an existing KerasTensor to use (Keras 3 takes only those).
        optional: the model may be given None for this input.
        name: the input's name (dict inputs are matched to it).
        input_shape, batch_input_shape: Keras 2's names of shape and batch_shape.

    Raises:
        ValueError: for conflicting arguments (shape with batch_shape, ...), a
            shape with entries that are not None or non-negative ints, or an
            input_tensor that is not a KerasTensor or does not fit them.
    """

    def __init__(self, shape=None, batch_size=None, dtype=None, sparse=None, ragged=None,
                 batch_shape=None, input_tensor=None, optional=False, name=None, **kwargs):
        if "input_shape" in kwargs:
            warnings.warn("Argument `input_shape` is deprecated. Use `shape` instead.",
                          stacklevel=2)
            shape = kwargs.pop("input_shape")
        if "batch_input_shape" in kwargs:
            batch_shape = kwargs.pop("batch_input_shape")
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments passed to InputLayer: {kwargs}")
        full = _batch_shape(shape, batch_size, batch_shape, input_tensor, dtype, sparse)
        if input_tensor is not None:
            dtype, sparse, ragged = input_tensor.dtype, input_tensor.sparse, input_tensor.ragged
            name = name or input_tensor.name
        super().__init__(full, dtype or "float32", name=name or _unique_input_name(),
                         sparse=sparse, ragged=ragged)
        self.optional = bool(optional)

    @property
    def output(self):
        return self

    input = output  # Keras's InputLayer.input is its tensor too

    @property
    def batch_shape(self):
        return self.shape

    def get_config(self):
        return {"batch_shape": self.shape, "dtype": self.dtype.name, "sparse": self.sparse,
                "ragged": self.ragged, "name": self.name, "optional": self.optional}

    @classmethod
    def from_config(cls, config):
        return cls(**config)


class InputLayerOf:
    """The InputLayer of a functional model's input tensor, as `model.layers` lists
    it (Keras lists one per input, so `model.layers[1]` is the first Dense and
    MobileNetV2 has 154 layers) and `get_layer` returns it; tapeflow's inputs are
    their tensors. A layer without weights whose `.input` and `.output` are that
    tensor, so `Model(model.layers[0].output, ...)` builds on the same graph;
    isinstance(x, tf.keras.layers.InputLayer) holds for it."""

    built = True
    weights = trainable_weights = non_trainable_weights = property(lambda self: [])
    variables = trainable_variables = non_trainable_variables = weights
    losses = property(lambda self: [])

    def __init__(self, tensor):
        self.input = self.output = tensor
        # a layer's output taken as a model input: Keras's model clones it as an Input
        # of this name (functional.py clone_graph_nodes)
        self.name = tensor.name if tensor.node is None else f"{tensor.name}CLONE"
        self.dtype = tensor.dtype
        self.batch_shape = tensor.shape
        self.sparse, self.ragged = tensor.sparse, tensor.ragged
        self.optional = getattr(tensor, "optional", False)
        self.trainable = True  # Keras's InputLayer has the flag; it changes nothing

    def get_weights(self):
        return []

    def set_weights(self, weights):
        if len(weights):
            raise ValueError(f"InputLayer {self.name!r} has no weights; got {len(weights)} "
                             "arrays to set.")

    def count_params(self):
        return 0

    def get_config(self):
        return {"batch_shape": self.batch_shape, "dtype": self.dtype.name,
                "sparse": self.sparse, "ragged": self.ragged, "name": self.name,
                "optional": self.optional}

    def __repr__(self):
        return f"<InputLayer name={self.name!r} batch_shape={self.batch_shape}>"


InputLayerOf.__name__ = "InputLayer"  # type(layer).__name__, as code printing layers reads it


def Input(shape=None, batch_size=None, name=None, dtype=None, sparse=None, tensor=None,
          ragged=None, batch_shape=None, optional=False, **kwargs):  # noqa: N802 -- Keras's name
    """A symbolic input of the functional API, as `tf.keras.Input`: a KerasTensor
    made from InputLayer's arguments; `tensor`, its `input_tensor`, is returned
    as it is.

    >>> inputs = tf.keras.Input(shape=(784,))
    >>> outputs = tf.keras.layers.Dense(10)(inputs)
    >>> model = tf.keras.Model(inputs, outputs)
    """
    if tensor is not None:
        _batch_shape(shape, batch_size, batch_shape, tensor, dtype, sparse)
        return tensor
    shape = kwargs.pop("input_shape", shape)
    batch_shape = kwargs.pop("batch_input_shape", batch_shape)
    if kwargs:
        raise TypeError(f"Input() got unexpected keyword arguments {sorted(kwargs)}.")
    full = _batch_shape(shape, batch_size, batch_shape, None, dtype, sparse)
    symbolic = KerasTensor(full, dtype or "float32", name=name or _unique_input_name(),
                           sparse=sparse, ragged=ragged)
    symbolic.optional = bool(optional)
    return symbolic


_input_count = [0]


def _unique_input_name():
    _input_count[0] += 1
    return "input_layer" if _input_count[0] == 1 else f"input_layer_{_input_count[0] - 1}"


def reset_input_names():
    """The next Input is 'input_layer' again (`tf.keras.backend.clear_session()`)."""
    _input_count[0] = 0


def conform_to_input(symbolic, value):
    """`value` made to fit the Input `symbolic` as Keras's functional models make
    it: in the Input's dtype (uint8 images into a float32 model, float64 arrays
    into float32), and with a trailing axis of size 1 added or removed when that
    is the only difference in rank ((batch,) data into an Input of shape (1,)).
    A value that already fits is returned as it is; SparseTensors and
    RaggedTensors pass with their values cast.

    Raises:
        TypeError: for text given to a numeric Input or numbers to a string Input.
        ValueError: for None given to an Input that is not `optional`.
    """
    if value is None:
        if not getattr(symbolic, "optional", False):
            raise ValueError(f"Input {symbolic.name!r} received None; only an Input made with "
                             "`optional=True` may be given None.")
        return value
    target = symbolic.dtype
    if isinstance(value, SparseTensor):  # Input(sparse=True): Dense multiplies it as it is
        if value.dtype != target:
            value = SparseTensor(value.indices, cast(value.values, target), value.dense_shape)
        return value
    if isinstance(value, RaggedTensor):  # Input(ragged=True): the first layer takes it
        return value if value.dtype == target else value.with_flat_values(
            cast(value.flat_values, target))
    # A tensor's value is not read here (a traced step must not look at values; a
    # string Tensor already holds bytes): only NumPy text arrays become string tensors.
    if isinstance(value, np.ndarray) and value.dtype.kind in "US":
        value = constant(value)
    dtype = value.dtype if isinstance(value, (Tensor, np.ndarray)) else None
    if dtype is None or np.dtype(getattr(dtype, "as_numpy_dtype", dtype)) != np.dtype(
            target.as_numpy_dtype):
        if not isinstance(value, Tensor):
            value = convert_to_tensor(np.asarray(value) if dtype is None else value)
        if (value.dtype.name == "string") != (target.name == "string"):
            raise TypeError(f"Input {symbolic.name!r} expects {target.name} values; the value "
                            f"given is {value.dtype.name} (shape {tuple(value.shape)}), which "
                            "cannot be cast to it.")
        value = cast(value, target)
    rank, expected = len(value.shape), len(symbolic.shape)
    if rank == expected + 1 and value.shape[-1] == 1:
        return squeeze(value, axis=-1)
    if rank == expected - 1 and symbolic.shape[-1] == 1:
        return expand_dims(value, axis=-1)
    return value
