"""plot_model.py draws a model's layers and their connections as Keras 3's
`keras.utils.plot_model` / `model_to_dot` do (keras/src/utils/model_visualization.py):
a pydot graph rendered by Graphviz's `dot` program. Both are optional: pydot is
imported on first use, and a clear ImportError names what is missing.

The model is read through what every tapeflow model has (`layers`, `built`,
`_graph`: the functional graph of a Sequential with a known input or of a
functional model), so this module needs nothing above layers. A subclassed model
is one box, as in Keras. The image is written atomically."""

import os
import sys

from ..core import nest
from ..runtime.atomic_files import atomic_write

__all__ = ["plot_model", "model_to_dot"]

_MISSING = ("You must install pydot (`pip install pydot`) and graphviz (the `dot` program; "
            "see instructions at https://graphviz.gitlab.io/download/) for `plot_model` to "
            "work.")


def _pydot():
    """The pydot module (or an older fork), or ImportError naming pydot and graphviz."""
    for name in ("pydot", "pydot_ng", "pydotplus"):
        try:
            return __import__(name)
        except ImportError:
            continue
    raise ImportError(_MISSING + " pydot is not installed.")


def _check_graphviz(pydot):
    try:
        pydot.Dot.create(pydot.Dot())
    except (OSError, getattr(pydot, "PydotException", OSError)) as error:
        raise ImportError(_MISSING + f" Graphviz's `dot` did not run ({error}).") from None


def _format_shape(shapes):
    if shapes is None:
        return "?"
    if isinstance(shapes, list) and len(shapes) == 1:
        shapes = shapes[0]
    return str(shapes).replace("{", "").replace("}", "")


def _label(box, show_shapes=False, show_dtype=False, show_layer_names=True,
           show_layer_activations=False, show_trainable=False):
    """Keras's HTML-like table label for one box."""
    class_name = box["class_name"]
    cols = []
    if show_shapes:
        if class_name != "InputLayer":
            cols.append(f"Input shape: <b>{_format_shape(box['input_shape'])}</b>")
        cols.append(f"Output shape: <b>{_format_shape(box['output_shape'])}</b>")
    if show_dtype:
        cols.append(f"Output dtype: <b>{box['dtype'] or '?'}</b>")
    colspan = max(1, len(cols))
    title = f"<b>{box['name']}</b> ({class_name})" if show_layer_names else f"<b>{class_name}</b>"
    table = ('<<table border="0" cellborder="1" bgcolor="black" cellpadding="10">'
             f'<tr><td colspan="{colspan}" bgcolor="black"><font point-size="16" '
             f'color="white">{title}</font></td></tr>')
    layer = box["layer"]
    activation = getattr(layer, "activation", None)
    if show_layer_activations and activation is not None:
        name = getattr(activation, "__name__", None) or str(activation)
        table += (f'<tr><td bgcolor="white" colspan="{colspan}"><font point-size="14">'
                  f"Activation: <b>{name}</b></font></td></tr>")
    cells = [f'<td bgcolor="white"><font point-size="14">{c}</font></td>' for c in cols]
    if show_trainable and layer is not None and layer.weights:
        colour, word = (("forestgreen", "Trainable") if layer.trainable
                        else ("firebrick", "Non-trainable"))
        cells.append(f'<td bgcolor="{colour}"><font point-size="14" color="white">'
                     f"<b>{word}</b></font></td>")
    if cells:
        table += f"<tr>{''.join(cells)}</tr>"
    return table + "</table>>"


def _shape_of(tensors):
    return [tuple(t.shape) for t in tensors] if tensors else None


def graph_of(model):
    """(boxes, edges): one box per layer (and per input of a functional model) as a
    dict of its name, class, shapes, dtype and layer; edges as (box id, box id)."""
    graph = getattr(model, "_graph", None)
    boxes, edges = {}, []
    if graph is None:
        layers = list(model.layers) if type(model).__name__ == "Sequential" else [model]
        for layer in layers:
            boxes[id(layer)] = {"name": layer.name, "class_name": type(layer).__name__,
                                "input_shape": None, "output_shape": None, "dtype": None,
                                "layer": layer}
        edges = [(id(a), id(b)) for a, b in zip(layers, layers[1:])]
        return boxes, edges
    sequential = type(model).__name__ == "Sequential"
    producer = {}
    for t in graph.flat_inputs:
        producer[id(t)] = id(t)
        if not sequential:  # Keras draws no input box for a Sequential model
            boxes[id(t)] = {"name": t.name, "class_name": "InputLayer", "input_shape": None,
                            "output_shape": [tuple(t.shape)], "dtype": t.dtype.name,
                            "layer": None}
    seen = set()
    for node in graph.nodes:
        outputs = nest.flatten(node.outputs)
        boxes.setdefault(id(node.layer), {
            "name": node.layer.name, "class_name": type(node.layer).__name__,
            "input_shape": _shape_of(node.parents()), "output_shape": _shape_of(outputs),
            "dtype": outputs[0].dtype.name if outputs else None, "layer": node.layer})
        for parent in node.parents():
            source = producer.get(id(parent))
            if source in boxes and (source, id(node.layer)) not in seen:
                seen.add((source, id(node.layer)))
                edges.append((source, id(node.layer)))
        for t in outputs:
            producer[id(t)] = id(node.layer)
    return boxes, edges


def _is_graph_model(layer):
    return type(layer).__name__ == "Sequential" and layer.layers or getattr(
        layer, "_graph", None) is not None


def _ends(model, boxes):
    """(first box, last box) of a model drawn as a cluster: where edges from outside
    enter it and leave it."""
    graph = getattr(model, "_graph", None)
    keys = list(boxes)
    if graph is None or type(model).__name__ == "Sequential":
        return keys[0], keys[-1]
    last = [k for k, box in boxes.items() if any(
        t.node is not None and t.node.layer is box["layer"] for t in graph.flat_outputs)]
    return id(graph.flat_inputs[0]), (last or keys)[-1]


def model_to_dot(model, show_shapes=False, show_dtype=False, show_layer_names=True,
                 rankdir="TB", expand_nested=False, dpi=200, subgraph=False,
                 show_layer_activations=False, show_trainable=False, splines="ortho"):
    """The pydot.Dot graph of `model`'s layers (Keras 3's `keras.utils.model_to_dot`);
    with `expand_nested`, a nested Sequential or functional model is a dashed cluster
    of its own layers, and edges from outside enter its first box and leave its last."""
    options = dict(show_shapes=show_shapes, show_dtype=show_dtype,
                   show_layer_names=show_layer_names,
                   show_layer_activations=show_layer_activations, show_trainable=show_trainable)
    return _dot(model, rankdir, expand_nested, dpi, subgraph, splines, options)[0]


def _dot(model, rankdir, expand_nested, dpi, subgraph, splines, options):
    """(the graph, (the box edges enter it by, the box they leave it from))."""
    pydot = _pydot()
    if subgraph:
        dot = pydot.Cluster(style="dashed", graph_name=model.name)
        dot.set("label", model.name)
        dot.set("labeljust", "l")
    else:
        dot = pydot.Dot()
        dot.set("rankdir", rankdir)
        dot.set("concentrate", True)
        dot.set("dpi", dpi)
        dot.set("splines", splines)
        dot.set_node_defaults(shape="record")
    boxes, edges = graph_of(model)
    entry, exit_ = {}, {}
    for key, box in boxes.items():
        layer = box["layer"]
        if expand_nested and layer is not None and layer is not model and _is_graph_model(layer):
            cluster, (entry[key], exit_[key]) = _dot(layer, rankdir, True, dpi, True, splines,
                                                     options)
            dot.add_subgraph(cluster)
            continue
        node = pydot.Node(str(key), label=_label(box, **options))
        node.set("fontname", "Helvetica")
        node.set("border", "0")
        node.set("margin", "0")
        dot.add_node(node)
    for source, destination in edges:
        edge = pydot.Edge(str(exit_.get(source, source)), str(entry.get(destination,
                                                                        destination)))
        edge.set("penwidth", "2")
        dot.add_edge(edge)
    first, last = _ends(model, boxes)
    return dot, (entry.get(first, first), exit_.get(last, last))


def plot_model(model, to_file="model.png", show_shapes=False, show_dtype=False,
               show_layer_names=False, rankdir="TB", expand_nested=False, dpi=200,
               show_layer_activations=False, show_trainable=False, splines="ortho", **kwargs):
    """Draw `model` into `to_file` (the format from its extension, png by default).

    Arguments and defaults are Keras 3's (`show_layer_names=False`, `dpi=200`; TF 2.15's
    tf.keras had True and 96). Returns an IPython Image when IPython is installed.

    Raises:
        ValueError: for a model that is not built, or an unknown keyword argument.
        ImportError: when pydot or Graphviz's `dot` is missing, naming both.
    """
    if not model.built:
        raise ValueError("This model has not yet been built. Build the model first by calling "
                         "`build()` or by calling the model on a batch of data.")
    pydot = _pydot()
    _check_graphviz(pydot)
    if kwargs.pop("layer_range", None) is not None:
        raise ValueError("Argument `layer_range` is no longer supported.")
    if kwargs:
        raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
    if rankdir not in ("TB", "LR", "BT", "RL"):
        raise ValueError(f"rankdir must be one of 'TB', 'LR', 'BT', 'RL'. Received: "
                         f"rankdir={rankdir!r}")
    dot = model_to_dot(model, show_shapes=show_shapes, show_dtype=show_dtype,
                       show_layer_names=show_layer_names, rankdir=rankdir,
                       expand_nested=expand_nested, dpi=dpi,
                       show_layer_activations=show_layer_activations,
                       show_trainable=show_trainable, splines=splines)
    to_file = os.fspath(to_file)
    extension = os.path.splitext(to_file)[1][1:] or "png"
    image = dot.create(format=extension)
    atomic_write(to_file, lambda f: f.write(image))
    if extension != "pdf" and "IPython" in sys.modules:
        try:
            from IPython import display
            return display.Image(filename=to_file)
        except ImportError:
            pass
    return None
