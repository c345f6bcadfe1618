"""recurrent.py holds the recurrent layers: the generic `RNN(cell)` time loop and
SimpleRNN, LSTM and GRU (masking, go_backwards, return_sequences/return_state,
initial_state, dropout, stateful); it re-exports the cells of recurrent_cells.py.
The input projection of all steps is one matmul; the time loop itself, forward
and backward, is one fused op per layer (ops/recurrent.py) for the usual
activations. The composed loop -- one recorded op per gate per step -- runs
for other activations, other cells, and under nested or persistent tapes,
whose second-order gradients the fused ops (first order) cannot give."""

import math

import numpy as np

from ..core import nest
from ..core import record as _record
from ..ops import math as _m
from ..ops import shape as _s
from ..core.tensor import Tensor, Variable, convert_to_tensor
from ..core.tensor_shape import TensorShape
from .base import InputSpec, Layer, no_tracking
from .tracking import _context
from .recurrent_cells import (GRUCell, LSTMCell, SimpleRNNCell, StackedRNNCells, _Cell,
                              _cell_from_config, _dropout_mask, _output_size)

__all__ = ["SimpleRNNCell", "LSTMCell", "GRUCell", "StackedRNNCells", "RNN", "SimpleRNN",
           "LSTM", "GRU"]


def _unstack_time(x):
    """x (B, T, G) as T tensors (B, G).

    Two levels of slicing -- blocks of about sqrt(T) steps, then steps -- because
    each slice's gradient is a zero-padded array of its parent's size: the
    backward pass then moves O(T^1.5) values instead of O(T^2).
    """
    steps = x.shape[1]
    block = max(1, int(math.sqrt(steps)))
    result = []
    for start in range(0, steps, block):
        part = _s.getitem(x, key=(slice(None), slice(start, min(start + block, steps))))
        result.extend(_s.getitem(part, key=(slice(None), j)) for j in range(part.shape[1]))
    return result


# False runs the composed loop everywhere (the tests' reference for the fused ops).
_FUSED = True


def _fused_allowed():
    """The fused ops' gradients are first order: run them unless a tape that may
    differentiate a gradient records (a second tape, or a persistent one)."""
    tapes = _record.current_tapes()
    return _FUSED and (not tapes or (len(tapes) == 1 and not tapes[0]._persistent))


def _stack_time(outputs):
    batch, size = outputs[0].shape
    return _s.concat(*[_s.reshape(o, shape=(batch, 1, size)) for o in outputs], axis=1)


def _plain_sizes(size):
    """A state size as plain nested lists of ints (a cell's list attribute is a
    tracked list; a TensorShape([n]), which tf.keras 2 takes, is n).

    Raises:
        NotImplementedError: for a state of more than one dimension per sample
            (TensorShape([2, 4])), which these layers do not run: it would
            otherwise be taken for a nested structure of sizes, silently.
    """
    if isinstance(size, TensorShape):
        dims = size.as_list() if size.rank is not None else None
        if dims is None or len(dims) != 1 or dims[0] is None:
            raise NotImplementedError(
                f"A recurrent cell's state_size {size!r}: tapeflow's RNN layers run states "
                "of one known dimension per sample (an int or TensorShape([n])).")
        return int(dims[0])
    return [_plain_sizes(s) for s in size] if isinstance(size, (list, tuple)) else size


_RNN_KEYS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
             "zero_output_for_mask")


class RNN(Layer):
    """Run a cell over the time axis: (batch, steps, features) -> (batch, units),
    or (batch, steps, units) with `return_sequences`.

    Args:
        cell: an RNN cell (SimpleRNNCell, LSTMCell, GRUCell, StackedRNNCells, or
            any layer with `state_size` and `call(inputs, states) -> (output,
            new_states)`; `state_size` an int (or TensorShape([n])), or a list of
            them or nested lists),
            or a list of cells, run as StackedRNNCells.
        return_sequences: return every step's output, not only the last.
        return_state: also return the final states: a list [output, *states].
        go_backwards: process the steps last to first; with return_sequences
            the outputs come in processing order (reversed time), as Keras.
        stateful: each call starts from the previous call's final states, kept
            in `states` (non-trainable Variables, not among the weights, as Keras
            3); the batch size must stay the same. `reset_states()` zeros them,
            `reset_states(states)` sets them (Keras 2's form).
        zero_output_for_mask: output zeros at masked steps instead of the
            previous output (Bidirectional sets it with return_sequences).

    Call arguments:
        inputs: (batch, steps, features).
        initial_state: the states in `cell.state_size`'s structure (a list of
            (batch, size) tensors; nested lists for stacked cells).
        mask: bool (batch, steps), True for the steps to use; by default the
            mask of the inputs (Embedding(mask_zero=True)). A masked step keeps
            the previous states, and its output is the previous output.
        training: enables dropout.

    `return_state` gives `[output, *states]`, the states in the structure of
    `state_size` (for stacked cells, one entry per cell).

    Raises:
        ValueError: for inputs that are not 3-D, a feature size other than the
            one the layer was built with, initial states or a mask of the
            wrong shape, or a stateful layer called with another batch size
            (naming the layer and the shapes).
    """

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, zero_output_for_mask=False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(cell, (list, tuple)):
            cell = StackedRNNCells(cell)
        if not hasattr(cell, "state_size") or not callable(cell):
            raise ValueError(f"Layer {self.name!r}: `cell` must be an RNN cell with a "
                             f"`state_size` attribute and a `call(inputs, states)` method; got "
                             f"{cell!r}.")
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = bool(stateful)
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.input_spec = InputSpec(ndim=3)
        with no_tracking():
            self._state_variables = None

    @property
    def state_size(self):
        """The cell's state sizes as a list (an int cell size becomes [size])."""
        size = _plain_sizes(self.cell.state_size)
        return [size] if isinstance(size, int) else size

    def _flat_sizes(self):
        return nest.flatten(self.state_size)

    def _output_size(self):
        return _output_size(self.cell)

    @property
    def states(self):
        """A stateful layer's states (Variables, in `state_size`'s structure) once
        it has run or been built with a known batch size; None otherwise (Keras 3)."""
        if self._state_variables is None:
            return None
        return nest.pack_sequence_as(self.state_size, list(self._state_variables))

    def get_initial_state(self, batch_size):
        """Zero states for `batch_size` rows, in `state_size`'s structure."""
        return nest.pack_sequence_as(self.state_size, [
            Tensor(np.zeros((batch_size, s), np.dtype(self.dtype))) for s in self._flat_sizes()])

    def build(self, input_shape):
        shape = tuple(input_shape)
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell.build((shape[0],) + shape[2:])
            self.cell.built = True
        self.input_spec = InputSpec(ndim=3, axes={-1: shape[-1]})
        if (self.stateful and shape[0] is not None and self._state_variables is None
                and not _context.example_run):
            self._set_state_variables([np.zeros((shape[0], s), np.dtype(self.dtype))
                                       for s in self._flat_sizes()])

    def _set_state_variables(self, values):
        with no_tracking():
            self._state_variables = [Variable(v, trainable=False, name="rnn_state")
                                     for v in values]

    def reset_states(self, states=None):
        """Zero a stateful layer's states, or (Keras 2's form) set them to `states`,
        given in `state_size`'s structure.

        Raises:
            AttributeError: for `states` given to a layer that is not stateful.
            ValueError: for states of the wrong number or shapes.
        """
        if states is None:
            for variable in self._state_variables or ():
                variable.assign(np.zeros_like(variable._value))
            return
        if not self.stateful:
            raise AttributeError(f"Layer {self.name!r} must be stateful to set its states.")
        values = [np.asarray(getattr(s, "_value", s), np.dtype(self.dtype))
                  for s in nest.flatten(states)]
        sizes = self._flat_sizes()
        batch = values[0].shape[0] if values and values[0].ndim else None
        if self._state_variables is not None:
            batch = self._state_variables[0].shape[0]
        expected = [(batch, s) for s in sizes]
        if [v.shape for v in values] != expected:
            raise ValueError(f"Layer {self.name!r} expects states of shapes {expected}, "
                             f"received {[v.shape for v in values]}.")
        if self._state_variables is None:
            self._set_state_variables(values)
        else:
            for variable, value in zip(self._state_variables, values):
                variable.assign(value)

    reset_state = reset_states

    def _initial_states(self, inputs, initial_state):
        """The flat list of initial states, checked against `state_size`."""
        batch = inputs.shape[0]
        dtype = inputs._value.dtype
        sizes = self._flat_sizes()
        if initial_state is None:
            if self.stateful and not _context.example_run:  # a functional shape run: zeros
                if self._state_variables is None:
                    self._set_state_variables([np.zeros((batch, s), dtype) for s in sizes])
                stored = self._state_variables[0].shape[0]
                if stored != batch:
                    raise ValueError(
                        f"If an RNN is stateful, the batch size of the input sequences must "
                        f"be the same as the batch size of the initial state. Layer "
                        f"{self.name!r}: expected batch size {stored}, received {batch}.")
                # Read through ops (a traced step records the reads, never a value).
                return [_m.identity(v) if v.dtype == inputs.dtype else _m.cast(v, dtype=dtype)
                        for v in self._state_variables]
            own = getattr(self.cell, "get_initial_state", None)
            if own is None or isinstance(self.cell, (_Cell, StackedRNNCells)):
                return [Tensor(np.zeros((batch, s), dtype)) for s in sizes]
            initial_state = own(batch_size=batch)  # a user's cell's own start, as Keras
        states = [s if isinstance(s, Tensor) else convert_to_tensor(s, dtype)
                  for s in nest.flatten(initial_state)]
        expected = [(batch, s) for s in sizes]
        if [tuple(s.shape) for s in states] != expected:
            raise ValueError(f"Layer {self.name!r} expects initial_state of shapes {expected} "
                             f"for inputs of shape {tuple(inputs.shape)}, received "
                             f"{[tuple(s.shape) for s in states]}.")
        return [_m.cast(s, dtype=dtype) if s._value.dtype != dtype else s for s in states]

    def _finish(self, output, states):
        """Keep a stateful layer's final states; the call's result."""
        if self.stateful and not _context.example_run:
            for variable, state in zip(self._state_variables, states):
                variable.assign(state if state.dtype == variable.dtype
                                else _m.cast(state, dtype=variable.dtype))
        if not self.return_state:
            return output
        return [output] + list(nest.pack_sequence_as(self.state_size, list(states)))

    def _mask_array(self, mask, inputs):
        if mask is None:
            return None
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
            if mask is None:
                return None
        m = np.asarray(mask._value if isinstance(mask, Tensor) else mask).astype(bool)
        if m.shape != tuple(inputs.shape[:2]):
            raise ValueError(f"Layer {self.name!r}: the mask must have shape (batch, steps) = "
                             f"{tuple(inputs.shape[:2])}, received {m.shape}.")
        return m

    def call(self, inputs, initial_state=None, mask=None, training=None):
        batch, steps = inputs.shape[:2]
        if steps == 0:
            raise ValueError(f"Layer {self.name!r} received an input with no time steps: "
                             f"shape {tuple(inputs.shape)}.")
        states = self._initial_states(inputs, initial_state)
        masks = self._mask_array(mask, inputs)
        x = inputs
        if self.go_backwards:
            x = _s.getitem(x, key=(slice(None), slice(None, None, -1)))
            masks = None if masks is None else masks[:, ::-1]
        cell = self.cell
        fast = isinstance(cell, _Cell)
        recurrent_mask = None
        if fast and training:
            if cell.dropout > 0:  # one mask for every step, as Keras
                x = _m.multiply(x, _dropout_mask((batch, 1, x.shape[-1]), cell.dropout,
                                                 x._value.dtype))
            if cell.recurrent_dropout > 0:
                recurrent_mask = _dropout_mask((batch, cell.units), cell.recurrent_dropout,
                                               x._value.dtype)
        if fast and _fused_allowed():
            fused = cell.fused(x, states, masks, recurrent_mask, self.zero_output_for_mask)
            if fused is not None:
                return self._fused_outputs(fused, cell.units, len(states))
        sequence = _unstack_time(cell.project(x) if fast else x)
        structure = _plain_sizes(cell.state_size)
        zero = Tensor(np.zeros((batch, self._output_size()), x._value.dtype))
        previous, outputs = zero, []
        for t in range(steps):
            if fast:
                out, new_states = cell.step(sequence[t], states, recurrent_mask)
            else:
                out, new_states = cell(sequence[t], nest.pack_sequence_as(structure, states),
                                       training=training)
                new_states = nest.flatten(new_states)
            if masks is not None and not masks[:, t].all():
                keep = masks[:, t:t + 1]
                held = zero if self.zero_output_for_mask else previous
                if not keep.any():
                    out, new_states = held, states
                else:
                    keep = Tensor(keep)
                    out = _m.select(keep, out, held)
                    new_states = [_m.select(keep, n, s) for n, s in zip(new_states, states)]
            states, previous = new_states, out
            if self.return_sequences:
                outputs.append(out)
        output = _stack_time(outputs) if self.return_sequences else previous
        return self._finish(output, states)

    def _fused_outputs(self, packed, units, n_states):
        """The layer's results from a fused op's (batch, steps, (1 + n) * units)."""
        last = _s.getitem(packed, key=(slice(None), -1))
        states = [_s.getitem(last, key=(slice(None), slice((i + 1) * units, (i + 2) * units)))
                  for i in range(n_states)]
        if self.return_sequences:
            output = _s.getitem(packed, key=(slice(None), slice(None), slice(0, units)))
        else:
            output = _s.getitem(last, key=(slice(None), slice(0, units)))
        return self._finish(output, states)

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        size = self._output_size()
        out = (shape[0], shape[1], size) if self.return_sequences else (shape[0], size)
        if self.return_state:
            return [out] + nest.map_structure(lambda s: (shape[0], s), self.state_size)
        return out

    def compute_mask(self, inputs, mask=None):
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        out = mask if self.return_sequences else None
        return [out] + [None] * len(self.state_size) if self.return_state else out

    def get_config(self):
        config = super().get_config()
        config.update({key: getattr(self, key) for key in _RNN_KEYS})
        config["cell"] = {"class_name": type(self.cell).__name__,
                          "config": self.cell.get_config()}
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        config = dict(config)
        return cls(_cell_from_config(config.pop("cell"), custom_objects), **config)


class _CellRNN(RNN):
    """An RNN that builds its own cell from the layer's arguments (Keras's
    SimpleRNN/LSTM/GRU): the cell's arguments are attributes of the layer too."""

    _cell_class = None
    _base_keys = ("name", "dtype", "trainable", "activity_regularizer", "input_shape",
                  "input_dim", "batch_size", "batch_input_shape", "autocast", "input_length",
                  "weights", "dynamic")

    def __init__(self, units, **kwargs):
        rnn_args = {k: kwargs.pop(k) for k in list(kwargs) if k in _RNN_KEYS + self._base_keys}
        cell = self._cell_class(units, name=self._cell_name, dtype=rnn_args.get("dtype"),
                                trainable=rnn_args.get("trainable", True), **kwargs)
        super().__init__(cell, **rnn_args)

    def __getattr__(self, name):
        cell = self.__dict__.get("cell")
        if cell is not None and not name.startswith("_") and hasattr(type(cell), "get_config"):
            if name in cell.__dict__ or name in ("state_size", "output_size"):
                return getattr(cell, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def get_config(self):
        config = Layer.get_config(self)
        config.update({key: getattr(self, key) for key in _RNN_KEYS})
        cell_config = self.cell.get_config()
        for key in ("name", "dtype", "trainable"):
            cell_config.pop(key, None)
        config.update(cell_config)
        return config

    @classmethod
    def from_config(cls, config, custom_objects=None):
        return cls(**config)


class SimpleRNN(_CellRNN):
    """A fully connected RNN: h_t = activation(x_t @ kernel + h_{t-1} @ recurrent_kernel + bias).

    Args:
        units: the size of the state and output.
        activation ('tanh'), use_bias, kernel_initializer ('glorot_uniform'),
        recurrent_initializer ('orthogonal'), bias_initializer ('zeros'), the
        *_regularizer and *_constraint arguments, dropout, recurrent_dropout:
        as Keras's SimpleRNNCell.
        return_sequences, return_state, go_backwards, stateful: see `RNN`.

    Weights: kernel (features, units), recurrent_kernel (units, units), bias (units,).
    """

    _cell_class, _cell_name = SimpleRNNCell, "simple_rnn_cell"


class LSTM(_CellRNN):
    """Long short-term memory (Hochreiter 1997), with Keras's weights and gate order.

    Args:
        units: the size of h and c.
        activation ('tanh'), recurrent_activation ('sigmoid'), use_bias,
        kernel_initializer, recurrent_initializer ('orthogonal'),
        bias_initializer, unit_forget_bias (True: forget-gate bias starts at 1),
        *_regularizer, *_constraint, dropout, recurrent_dropout: as LSTMCell.
        return_sequences, return_state ([output, h, c]), go_backwards, stateful: see `RNN`.

    Weights: kernel (features, 4u), recurrent_kernel (u, 4u), bias (4u,), gates i, f, c, o.
    """

    _cell_class, _cell_name = LSTMCell, "lstm_cell"


class GRU(_CellRNN):
    """Gated recurrent unit (Cho 2014), Keras 3's variant by default (reset_after=True).

    Args:
        units: the size of h.
        reset_after: True (bias (2, 3u), the reset gate multiplies h @ U + b_rec)
            or False (bias (3u,), the reset gate multiplies h before U).
        Other arguments as LSTM (without unit_forget_bias); return_state gives [output, h].

    Weights: kernel (features, 3u), recurrent_kernel (u, 3u), bias; gates z, r, h.
    """

    _cell_class, _cell_name = GRUCell, "gru_cell"
