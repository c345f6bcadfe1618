"""summary.py prints Keras's model summary table: each layer's name and type,
output shape and parameter count, then the total, trainable and
non-trainable parameter counts with their sizes."""

import numpy as np

from ..core import nest
from ..layers.input_layer import InputLayer

__all__ = ["print_summary"]


def _format_size(n_bytes):
    for unit in ("B", "KB", "MB", "GB"):
        if n_bytes < 1024 or unit == "GB":
            return f"{n_bytes:.2f} {unit}"
        n_bytes /= 1024


def _count(variables):
    return int(sum(int(np.prod(v.shape, dtype=np.int64)) for v in variables))


def _bytes(variables):
    return int(sum(v._value.nbytes for v in variables))


def _output_shapes(model):
    """Layer id -> output shape text, from the model's symbolic graph if it has one."""
    shapes = {}
    graph = model._graph
    if graph is None:
        return shapes
    for node in graph.nodes:
        outs = [tuple(t.shape) for t in nest.flatten(node.outputs)]
        text = str(outs[0]) if len(outs) == 1 else str(outs)
        shapes.setdefault(id(node.layer), text)
    return shapes


def print_summary(model, line_length=None, print_fn=None, show_trainable=False):
    print_fn = print_fn or print
    widths = [33, 24, 15] if not line_length else [int(line_length * f) for f in (.45, .33, .22)]
    shapes = _output_shapes(model)
    rows = []
    for layer in model.layers:
        if isinstance(layer, InputLayer):  # a functional model's, where Keras lists them
            rows.append((f"{layer.name} (InputLayer)", str(tuple(layer.batch_shape)), "0"))
            continue
        params = _count(layer.weights) if layer.built else 0
        shape = shapes.get(id(layer), "?" if not layer.built else "?")
        rows.append((f"{layer.name} ({type(layer).__name__})", shape, f"{params:,}"))

    def line(left, mid, right, fill):
        return left + mid.join(fill * w for w in widths) + right

    def cells(values, align_last_right=True):
        parts = []
        for i, (value, width) in enumerate(zip(values, widths)):
            text = str(value)
            text = text if len(text) <= width - 2 else text[:width - 3] + "…"
            parts.append(" " + (text.rjust(width - 2) if i == 2 and align_last_right
                                else text.ljust(width - 2)) + " ")
        return parts

    print_fn(f'Model: "{model.name}"')
    print_fn(line("┏", "┳", "┓", "━"))
    print_fn("┃" + "┃".join(cells(("Layer (type)", "Output Shape", "Param #"))) + "┃")
    print_fn(line("┡", "╇", "┩", "━"))
    for i, row in enumerate(rows):
        print_fn("│" + "│".join(cells(row)) + "│")
        if i != len(rows) - 1:
            print_fn(line("├", "┼", "┤", "─"))
    print_fn(line("└", "┴", "┘", "─"))
    weights = model.weights
    trainable = model.trainable_weights
    non_trainable = model.non_trainable_weights
    print_fn(f" Total params: {_count(weights):,} ({_format_size(_bytes(weights))})")
    print_fn(f" Trainable params: {_count(trainable):,} ({_format_size(_bytes(trainable))})")
    print_fn(f" Non-trainable params: {_count(non_trainable):,} "
             f"({_format_size(_bytes(non_trainable))})")
