"""recurrent_cells.py owns the recurrent cells -- SimpleRNNCell, LSTMCell and
GRUCell, with Keras 3's weight layouts and gate orders -- and their shared
base: the input projection of all steps in one matmul, the per-step gate math
recorded with the op primitives, and the dropout masks; and StackedRNNCells,
cells run one after another within a step. The time loop is in recurrent.py."""

import numpy as np

from .. import activations, constraints, initializers, regularizers
from ..core import nest
from ..ops import math as _m
from ..ops import recurrent as _fused
from ..ops import shape as _s
from ..core.tensor import Tensor, convert_to_tensor
from .base import Layer
from .layer_utils import weight_options_config
from ..random import _op_generator  # seeds follow tf.random's rules

__all__ = ["SimpleRNNCell", "LSTMCell", "GRUCell", "StackedRNNCells"]


# The primitives behind the usual activations: the per-step math skips the
# argument checks of the public functions (the inputs are known to be fine).
_PRIMITIVE = {activations.tanh: _m.tanh, activations.sigmoid: _m.sigmoid}


def _fast(fn):
    return _PRIMITIVE.get(fn, fn)


def _cols(x, start, stop):
    return _s.getitem(x, key=(slice(None), slice(start, stop)))


def _dropout_mask(shape, rate, dtype):
    keep = _op_generator(None).random(shape) >= rate
    return Tensor((keep / (1.0 - rate)).astype(dtype))


def set_cell_options(cell, activation, recurrent_activation, use_bias, kernel_initializer,
                     recurrent_initializer, bias_initializer, kernel_regularizer,
                     recurrent_regularizer, bias_regularizer, kernel_constraint,
                     recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed):
    """A recurrent cell's Keras options resolved onto it (the dense cells' and ConvLSTM's)."""
    for what, rate in (("dropout", dropout), ("recurrent_dropout", recurrent_dropout)):
        if not 0.0 <= float(rate) < 1.0:
            raise ValueError(f"Layer {cell.name!r}: `{what}` must be in [0, 1), got {rate!r}.")
    cell.activation = activations.get(activation)
    cell.recurrent_activation = activations.get(recurrent_activation)
    cell.use_bias = bool(use_bias)
    cell.kernel_initializer = initializers.get(kernel_initializer)
    cell.recurrent_initializer = initializers.get(recurrent_initializer)
    cell.bias_initializer = initializers.get(bias_initializer)
    cell.kernel_regularizer = regularizers.get(kernel_regularizer)
    cell.recurrent_regularizer = regularizers.get(recurrent_regularizer)
    cell.bias_regularizer = regularizers.get(bias_regularizer)
    cell.kernel_constraint = constraints.get(kernel_constraint)
    cell.recurrent_constraint = constraints.get(recurrent_constraint)
    cell.bias_constraint = constraints.get(bias_constraint)
    cell.dropout = float(dropout)
    cell.recurrent_dropout = float(recurrent_dropout)
    cell.seed = seed


class _Cell(Layer):
    """Shared arguments and the Keras one-step API of the three cells.

    A cell projects the inputs of all steps at once (`project`), then `step`
    takes one step's projection and the states to (output, new states).
    `cell(inputs, states)` does both for a single step, as Keras's cells.
    """

    _gates = 1

    def __init__(self, units, activation="tanh", recurrent_activation="sigmoid", use_bias=True,
                 kernel_initializer="glorot_uniform", recurrent_initializer="orthogonal",
                 bias_initializer="zeros", kernel_regularizer=None, recurrent_regularizer=None,
                 bias_regularizer=None, kernel_constraint=None, recurrent_constraint=None,
                 bias_constraint=None, dropout=0.0, recurrent_dropout=0.0, seed=None,
                 **kwargs):
        super().__init__(**kwargs)
        if not isinstance(units, (int, np.integer)) or isinstance(units, bool) or units <= 0:
            raise ValueError(f"Received an invalid value for argument `units` of layer "
                             f"{self.name!r}, expected a positive integer, got {units!r}.")
        self.units = int(units)
        set_cell_options(self, activation, recurrent_activation, use_bias, kernel_initializer,
                         recurrent_initializer, bias_initializer, kernel_regularizer,
                         recurrent_regularizer, bias_regularizer, kernel_constraint,
                         recurrent_constraint, bias_constraint, dropout, recurrent_dropout, seed)

    @property
    def state_size(self):
        return self.units

    @property
    def output_size(self):
        return self.units

    def _n_states(self):
        return 1 if isinstance(self.state_size, int) else len(self.state_size)

    def build(self, input_shape):
        input_dim = tuple(input_shape)[-1]
        if input_dim is None:
            raise ValueError(f"Layer {self.name!r}: the last axis of the input shape "
                             f"{tuple(input_shape)} must be known to build the kernel.")
        width = self._gates * self.units
        self.kernel = self.add_weight(name="kernel", shape=(input_dim, width),
                                      initializer=self.kernel_initializer,
                                      regularizer=self.kernel_regularizer,
                                      constraint=self.kernel_constraint)
        self.recurrent_kernel = self.add_weight(name="recurrent_kernel",
                                                shape=(self.units, width),
                                                initializer=self.recurrent_initializer,
                                                regularizer=self.recurrent_regularizer,
                                                constraint=self.recurrent_constraint)
        self.bias = None
        if self.use_bias:
            self.bias = self.add_weight(name="bias", shape=self._bias_shape(),
                                        initializer=self._bias_init(),
                                        regularizer=self.bias_regularizer,
                                        constraint=self.bias_constraint)
        self.built = True

    def _bias_shape(self):
        return (self._gates * self.units,)

    def _bias_init(self):
        return self.bias_initializer

    def project(self, inputs, with_bias=True):
        """inputs (..., input_dim) @ kernel (+ the input bias): one matmul for all steps."""
        shape = tuple(inputs.shape)
        flat = _s.reshape(inputs, shape=(-1, shape[-1])) if len(shape) != 2 else inputs
        bias = self._input_bias() if with_bias else None
        out = _m.matmul(flat, self.kernel) if bias is None else _m.matmul_bias(flat, self.kernel,
                                                                                bias)
        return _s.reshape(out, shape=shape[:-1] + (out.shape[-1],)) if len(shape) != 2 else out

    def _input_bias(self):
        return self.bias

    def _bias_or_zeros(self, bias, width, like):
        """`bias`, or for a cell without one a constant of zeros (width,) in like's
        dtype: the fused ops add a bias, which then adds nothing."""
        return bias if bias is not None else Tensor(np.zeros(width, like._value.dtype))

    def step(self, xw, states, recurrent_mask=None):
        raise NotImplementedError

    def fused(self, x, states, mask, recurrent_mask, zero_output_for_mask):
        """All steps of the inputs `x` at once through the cell's fused op
        (ops/recurrent.py): (batch, steps, (1 + states) * units), or None for the
        activations and dtypes it lacks (the kernels are compiled for float32 and
        float64)."""
        usual = self.activation is activations.tanh and (
            self._gates == 1 or self.recurrent_activation is activations.sigmoid)
        if not usual or x._value.dtype not in (np.float32, np.float64):
            return None
        attrs = {"mask": None if mask is None or mask.all() else mask,
                 "recurrent_mask": None if recurrent_mask is None else recurrent_mask._value,
                 "zero_output_for_mask": zero_output_for_mask}
        return self._fused_call(x, states, attrs)

    def get_initial_state(self, batch_size=None):
        sizes = [self.state_size] if isinstance(self.state_size, int) else self.state_size
        return [Tensor(np.zeros((batch_size, s), np.dtype(self.dtype))) for s in sizes]

    def call(self, inputs, states, training=False):
        states = list(states) if isinstance(states, (list, tuple)) else [states]
        if training and self.dropout > 0:
            inputs = _m.multiply(inputs, _dropout_mask(tuple(inputs.shape), self.dropout,
                                                        inputs._value.dtype))
        recurrent_mask = None
        if training and self.recurrent_dropout > 0:
            recurrent_mask = _dropout_mask(tuple(states[0].shape), self.recurrent_dropout,
                                           states[0]._value.dtype)
        output, new_states = self.step(self.project(inputs), states, recurrent_mask)
        return output, (new_states[0] if isinstance(self.state_size, int) else new_states)

    def get_config(self):
        config = super().get_config()
        config.update({
            "units": self.units,
            "activation": activations.serialize(self.activation),
            "recurrent_activation": activations.serialize(self.recurrent_activation),
            "use_bias": self.use_bias,
            **weight_options_config(self, "kernel", "recurrent", "bias"),
            "dropout": self.dropout, "recurrent_dropout": self.recurrent_dropout,
            "seed": self.seed,
        })
        return config


def _recurrent_input(h, recurrent_mask):
    return h if recurrent_mask is None else _m.multiply(h, recurrent_mask)


class SimpleRNNCell(_Cell):
    """h = activation(x @ kernel + bias + h_prev @ recurrent_kernel).

    Weights: kernel (input_dim, units), recurrent_kernel (units, units), bias (units,).
    """

    _gates = 1

    def __init__(self, units, activation="tanh", **kwargs):
        super().__init__(units, activation=activation, **kwargs)

    def step(self, xw, states, recurrent_mask=None):
        h = _m.matmul(_recurrent_input(states[0], recurrent_mask), self.recurrent_kernel)
        out = _fast(self.activation)(_m.add(xw, h))
        return out, [out]

    def _fused_call(self, x, states, attrs):
        xw = self.project(x, with_bias=False)  # the op adds the bias at each step
        return _fused.simple_rnn_sequence(xw, self.recurrent_kernel,
                                          self._bias_or_zeros(self.bias, self.units, xw),
                                          states[0], **attrs)

    def get_config(self):
        config = super().get_config()
        config.pop("recurrent_activation")
        return config


class LSTMCell(_Cell):
    """One LSTM step, Keras's equations with gates in the order i, f, c, o:

        z = x @ kernel + h_prev @ recurrent_kernel + bias      (4 * units)
        i, f, o = recurrent_activation(z_i, z_f, z_o);  g = activation(z_c)
        c = f * c_prev + i * g;  h = o * activation(c)

    Weights: kernel (input_dim, 4u), recurrent_kernel (u, 4u), bias (4u,).
    With `unit_forget_bias=True` (default) the forget-gate bias starts at 1.
    States: [h, c].
    """

    _gates = 4

    def __init__(self, units, unit_forget_bias=True, **kwargs):
        kwargs.pop("implementation", None)
        super().__init__(units, **kwargs)
        self.unit_forget_bias = bool(unit_forget_bias)

    @property
    def state_size(self):
        return [self.units, self.units]

    def _bias_init(self):
        if not self.unit_forget_bias:
            return self.bias_initializer
        init, u = self.bias_initializer, self.units

        def part(n, dtype):
            try:
                value = init((n,), dtype=dtype)
            except TypeError:
                value = init((n,))
            return convert_to_tensor(value)._value

        def bias_init(shape, dtype=None):
            first, rest = part(u, dtype), part(2 * u, dtype)
            return np.concatenate([first, np.ones(u, first.dtype), rest])
        return bias_init

    def step(self, xw, states, recurrent_mask=None):
        h_prev, c_prev = states
        u = self.units
        z = _m.add(xw, _m.matmul(_recurrent_input(h_prev, recurrent_mask),
                                 self.recurrent_kernel))
        act, rec = _fast(self.activation), _fast(self.recurrent_activation)
        gates = rec(z)  # i, f, (unused), o in one call: fewer recorded ops than three
        i, f, o = _cols(gates, 0, u), _cols(gates, u, 2 * u), _cols(gates, 3 * u, 4 * u)
        g = act(_cols(z, 2 * u, 3 * u))
        c = _m.add(_m.multiply(f, c_prev), _m.multiply(i, g))
        h = _m.multiply(o, act(c))
        return h, [h, c]

    def _fused_call(self, x, states, attrs):
        xw = self.project(x, with_bias=False)  # the op adds the bias at each step
        return _fused.lstm_sequence(xw, self.recurrent_kernel,
                                    self._bias_or_zeros(self.bias, 4 * self.units, xw),
                                    states[0], states[1], **attrs)

    def get_config(self):
        config = super().get_config()
        config["unit_forget_bias"] = self.unit_forget_bias
        return config


class GRUCell(_Cell):
    """One GRU step, gates in the order z (update), r (reset), h (candidate).

    With `reset_after=True` (default, Keras 3) the bias is (2, 3u): input and
    recurrent biases, and the reset gate multiplies the recurrent term:

        x_z, x_r, x_h = x @ kernel + bias[0];  i_z, i_r, i_h = h_prev @ recurrent_kernel + bias[1]
        z = rec_act(x_z + i_z);  r = rec_act(x_r + i_r);  hh = act(x_h + r * i_h)
        h = z * h_prev + (1 - z) * hh

    With `reset_after=False` the bias is (3u,) and hh = act(x_h + (r * h_prev) @ U_h).
    Weights: kernel (input_dim, 3u), recurrent_kernel (u, 3u), bias.
    """

    _gates = 3

    def __init__(self, units, reset_after=True, **kwargs):
        kwargs.pop("implementation", None)
        super().__init__(units, **kwargs)
        self.reset_after = bool(reset_after)

    def _bias_shape(self):
        return (2, 3 * self.units) if self.reset_after else (3 * self.units,)

    def _input_bias(self):
        if self.bias is None or not self.reset_after:
            return self.bias
        return _s.getitem(self.bias, key=(0,))

    def step(self, xw, states, recurrent_mask=None):
        h_prev = states[0]
        u = self.units
        act, rec = _fast(self.activation), _fast(self.recurrent_activation)
        h_in = _recurrent_input(h_prev, recurrent_mask)
        if self.reset_after:
            inner = _m.matmul(h_in, self.recurrent_kernel)
            if self.bias is not None:
                inner = _m.add(inner, _s.getitem(self.bias, key=(1,)))
            zr = rec(_m.add(_cols(xw, 0, 2 * u), _cols(inner, 0, 2 * u)))
            z, r = _cols(zr, 0, u), _cols(zr, u, 2 * u)
            hh = act(_m.add(_cols(xw, 2 * u, 3 * u), _m.multiply(r, _cols(inner, 2 * u, 3 * u))))
        else:
            kernel = self.recurrent_kernel
            zr = rec(_m.add(_cols(xw, 0, 2 * u), _m.matmul(h_in, _cols(kernel, 0, 2 * u))))
            z, r = _cols(zr, 0, u), _cols(zr, u, 2 * u)
            hh = act(_m.add(_cols(xw, 2 * u, 3 * u),
                            _m.matmul(_m.multiply(r, h_in), _cols(kernel, 2 * u, 3 * u))))
        # z * h_prev + (1 - z) * hh, written as hh + z * (h_prev - hh): one op fewer.
        h = _m.add(hh, _m.multiply(z, _m.subtract(h_prev, hh)))
        return h, [h]

    def _fused_call(self, x, states, attrs):
        xw = self.project(x, with_bias=False)  # the op adds the input bias at each step
        recurrent_bias = _s.getitem(self.bias, key=(1,)) \
            if self.bias is not None and self.reset_after else None
        return _fused.gru_sequence(xw, self.recurrent_kernel,
                                   self._bias_or_zeros(self._input_bias(), 3 * self.units, xw),
                                   self._bias_or_zeros(recurrent_bias, 3 * self.units, xw),
                                   states[0], reset_after=self.reset_after, **attrs)

    def get_config(self):
        config = super().get_config()
        config["reset_after"] = self.reset_after
        return config


def _output_size(cell):
    size = getattr(cell, "output_size", None)
    if size is None:
        size = cell.state_size if isinstance(cell.state_size, int) else cell.state_size[0]
    return size


class StackedRNNCells(Layer):
    """Cells run one after another within each step, as one cell: the output of
    each is the input of the next. `RNN(StackedRNNCells([...]))` (or `RNN([...])`)
    is a stack of recurrent layers in one loop.

    Its `state_size` is the list of the cells' state sizes (nested: an LSTMCell
    contributes [units, units]), so initial and returned states are a list with
    one entry per cell, each in that cell's own structure, as Keras's.

    Raises:
        ValueError: for an empty list or an item without `state_size` and `call`.
    """

    def __init__(self, cells, **kwargs):
        super().__init__(**kwargs)
        cells = list(cells)
        bad = [c for c in cells if not hasattr(c, "state_size") or not callable(c)]
        if not cells or bad:
            raise ValueError("All cells must have a `call` method and a `state_size` "
                             f"attribute; received cells={cells}.")
        self.cells = cells

    @property
    def state_size(self):
        return [cell.state_size for cell in self.cells]

    @property
    def output_size(self):
        return _output_size(self.cells[-1])

    def get_initial_state(self, batch_size=None):
        return [cell.get_initial_state(batch_size=batch_size) for cell in self.cells]

    def build(self, input_shape):
        shape = tuple(input_shape)
        for cell in self.cells:
            if isinstance(cell, Layer) and not cell.built:
                cell.build(shape)
                cell.built = True
            shape = shape[:-1] + (_output_size(cell),)
        self.built = True

    def call(self, inputs, states, training=None):
        new_states = []
        for cell, cell_states in zip(self.cells, states):
            nested = nest.is_nested(cell_states)
            inputs, cell_states = cell(inputs, list(cell_states) if nested else [cell_states],
                                       training=training)
            if not nested and nest.is_nested(cell_states) and len(cell_states) == 1:
                cell_states = cell_states[0]
            new_states.append(cell_states)
        return inputs, new_states

    def get_config(self):
        config = super().get_config()
        config["cells"] = [{"class_name": type(c).__name__, "config": c.get_config()}
                           for c in self.cells]
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        cells = [_cell_from_config(spec, custom_objects) for spec in config.pop("cells")]
        return cls(cells, **config)


_CELLS = {"SimpleRNNCell": SimpleRNNCell, "LSTMCell": LSTMCell, "GRUCell": GRUCell,
          "StackedRNNCells": StackedRNNCells}


def _cell_from_config(spec, custom_objects=None):
    """A cell from {'class_name', 'config'}: the user's classes first, then tapeflow's."""
    cls = (custom_objects or {}).get(spec["class_name"]) or _CELLS.get(spec["class_name"])
    if cls is None:
        raise ValueError(f"Unknown RNN cell class {spec['class_name']!r}: pass it in "
                         "custom_objects.")
    if cls is StackedRNNCells:
        return cls.from_config(spec["config"], custom_objects)
    return cls.from_config(spec["config"])
