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

from ..core import record as _record
from ..ops import math as _m
from ..ops import shape as _s
from ..core.tensor import Tensor, convert_to_tensor
from .base import InputSpec, Layer, no_tracking
from .recurrent_cells import _CELLS, GRUCell, LSTMCell, SimpleRNNCell, _Cell, _dropout_mask

__all__ = ["SimpleRNNCell", "LSTMCell", "GRUCell", "RNN", "SimpleRNN", "LSTM", "GRU"]


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


_RNN_KEYS = ("return_sequences", "return_state", "go_backwards", "stateful", "unroll",
             "zero_output_for_mask")


class RNN(Layer):
    """Run a cell over the time axis: (batch, steps, features) -> (batch, units),
    or (batch, steps, units) with `return_sequences`.

    Args:
        cell: an RNN cell (SimpleRNNCell, LSTMCell, GRUCell, or any layer with
            `state_size` and `call(inputs, states) -> (output, new_states)`).
        return_sequences: return every step's output, not only the last.
        return_state: also return the final states: a list [output, *states].
        go_backwards: process the steps last to first; with return_sequences
            the outputs come in processing order (reversed time), as Keras.
        stateful: each call starts from the previous call's final states
            (`reset_states()` forgets them).
        zero_output_for_mask: output zeros at masked steps instead of the
            previous output (Bidirectional sets it with return_sequences).

    Call arguments:
        inputs: (batch, steps, features).
        initial_state: a list of (batch, size) tensors, one per state.
        mask: bool (batch, steps), True for the steps to use; by default the
            mask of the inputs (Embedding(mask_zero=True)). A masked step keeps
            the previous states, and its output is the previous output.
        training: enables dropout.

    Raises:
        ValueError: for inputs that are not 3-D, a feature size other than the
            one the layer was built with, or initial states or a mask of the
            wrong shape (naming the layer and the shapes).
    """

    def __init__(self, cell, return_sequences=False, return_state=False, go_backwards=False,
                 stateful=False, unroll=False, zero_output_for_mask=False, **kwargs):
        super().__init__(**kwargs)
        if isinstance(cell, (list, tuple)) or not hasattr(cell, "state_size") or not callable(
                cell):
            raise ValueError(f"Layer {self.name!r}: `cell` must be one RNN cell with a "
                             f"`state_size` attribute and a `call(inputs, states)` method; got "
                             f"{cell!r} (stacked cells are not supported).")
        self.cell = cell
        self.return_sequences = bool(return_sequences)
        self.return_state = bool(return_state)
        self.go_backwards = bool(go_backwards)
        self.stateful = bool(stateful)
        self.unroll = bool(unroll)
        self.zero_output_for_mask = bool(zero_output_for_mask)
        self.input_spec = InputSpec(ndim=3)
        with no_tracking():
            self._stored_states = None

    @property
    def state_size(self):
        size = self.cell.state_size
        return [size] if isinstance(size, int) else list(size)

    def _output_size(self):
        return getattr(self.cell, "output_size", None) or self.state_size[0]

    def build(self, input_shape):
        shape = tuple(input_shape)
        if isinstance(self.cell, Layer) and not self.cell.built:
            self.cell.build((shape[0],) + shape[2:])
            self.cell.built = True
        self.input_spec = InputSpec(ndim=3, axes={-1: shape[-1]})

    def reset_states(self, states=None):
        """Forget the stored states of a stateful layer (or set them to `states`)."""
        with no_tracking():
            self._stored_states = None if states is None else [
                np.array(getattr(s, "_value", s)) for s in states]

    reset_state = reset_states

    def _initial_states(self, inputs, initial_state):
        batch = inputs.shape[0]
        sizes = self.state_size
        if initial_state is None:
            if self.stateful and self._stored_states is not None:
                return [Tensor(s) for s in self._stored_states]
            return [Tensor(np.zeros((batch, s), inputs._value.dtype)) for s in sizes]
        states = list(initial_state) if isinstance(initial_state, (list, tuple)) else [
            initial_state]
        states = [s if isinstance(s, Tensor) else convert_to_tensor(s, inputs._value.dtype)
                  for s in states]
        expected = [(batch, s) for s in sizes]
        if [tuple(s.shape) for s in states] != expected:
            raise ValueError(f"Layer {self.name!r} expects initial_state of shapes {expected} "
                             f"for inputs of shape {tuple(inputs.shape)}, received "
                             f"{[tuple(s.shape) for s in states]}.")
        return [_m.cast(s, dtype=inputs._value.dtype) if s._value.dtype != inputs._value.dtype
                else s for s in states]

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
            fused = cell.fused(cell.project(x), states, masks, recurrent_mask,
                               self.zero_output_for_mask)
            if fused is not None:
                return self._fused_outputs(fused, cell.units, len(states))
        sequence = _unstack_time(cell.project(x) if fast else x)
        single = isinstance(cell.state_size, int)
        zero = Tensor(np.zeros((batch, self._output_size()), x._value.dtype))
        previous, outputs = zero, []
        for t in range(steps):
            if fast:
                out, new_states = cell.step(sequence[t], states, recurrent_mask)
            else:
                out, new_states = cell(sequence[t], states[0] if single else states,
                                       training=training)
                new_states = list(new_states) if isinstance(new_states, (list, tuple)) else [
                    new_states]
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
        if self.stateful:
            with no_tracking():
                self._stored_states = [np.array(s._value) for s in states]
        output = _stack_time(outputs) if self.return_sequences else previous
        return [output] + list(states) if self.return_state else output

    def _fused_outputs(self, packed, units, n_states):
        """The layer's results from a fused op's (batch, steps, (1 + n) * units)."""
        last = _s.getitem(packed, key=(slice(None), -1))
        states = [_s.getitem(last, key=(slice(None), slice((i + 1) * units, (i + 2) * units)))
                  for i in range(n_states)]
        if self.stateful:
            with no_tracking():
                self._stored_states = [np.array(s._value) for s in states]
        if self.return_sequences:
            output = _s.getitem(packed, key=(slice(None), slice(None), slice(0, units)))
        else:
            output = _s.getitem(last, key=(slice(None), slice(0, units)))
        return [output] + states if self.return_state else output

    def compute_output_shape(self, input_shape):
        shape = tuple(input_shape)
        size = self._output_size()
        out = (shape[0], shape[1], size) if self.return_sequences else (shape[0], size)
        if self.return_state:
            return [out] + [(shape[0], s) for s in self.state_size]
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
        spec = config.pop("cell")
        cell_cls = (custom_objects or {}).get(spec["class_name"]) or _CELLS.get(
            spec["class_name"])
        if cell_cls is None:
            raise ValueError(f"Unknown RNN cell class {spec['class_name']!r}: pass it in "
                             "custom_objects.")
        return cls(cell_cls.from_config(spec["config"]), **config)


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
