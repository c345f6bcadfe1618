"""functional.py runs Keras's functional API: `FunctionalGraph` orders the
nodes that layer calls on symbolic tensors recorded (layers/keras_tensor.py)
between some inputs and outputs, and runs them on real tensors."""

from ..core import nest
from ..layers.input_layer import InputLayerOf, conform_to_input
from ..layers.keras_tensor import KerasTensor

__all__ = ["FunctionalGraph"]


class FunctionalGraph:
    """The nodes between `inputs` and `outputs`, in an order that runs them."""

    def __init__(self, inputs, outputs):
        self.inputs = inputs
        self.outputs = outputs
        self.flat_inputs = nest.flatten(inputs)
        for t in self.flat_inputs:
            # An intermediate tensor may be an input too, as in Keras (a model from
            # FeatureSpace.get_encoded_features() to the outputs): the walk stops there.
            if not isinstance(t, KerasTensor):
                raise ValueError(f"Model inputs must be symbolic tensors (tf.keras.Input, or "
                                 f"a layer's output), got {t!r}.")
        self.flat_outputs = nest.flatten(outputs)
        for t in self.flat_outputs:
            if not isinstance(t, KerasTensor):
                raise ValueError(f"Model outputs must be symbolic tensors computed from the "
                                 f"inputs, got {t!r}.")
        self.nodes = self._topological_nodes()
        self.input_layers = {}  # id(input tensor) -> its InputLayerOf, in input order
        self._listed = None  # listed_layers, once sorted
        for t in self.flat_inputs:
            self.input_layers.setdefault(id(t), InputLayerOf(t))
        reachable = {id(t) for t in self.flat_inputs}
        for node in self.nodes:
            for parent in node.parents():
                if parent.node is None and id(parent) not in reachable:
                    raise ValueError(f"Graph disconnected: layer {node.layer.name!r} needs the "
                                     f"input {parent.name!r}, which is not among the model's "
                                     "inputs.")

    def _topological_nodes(self):
        """The nodes in Keras's order (keras/src/ops/function.py, map_graph): by
        decreasing depth from the outputs (a node deeper than every node that uses
        its output, so the order runs them), ties by the order in which a depth-first
        walk from the outputs first reaches each layer. `layers` follows it, so
        weights files that Keras matches by position line up (ResNet, Inception).
        The walk reaches the model's inputs too, whose InputLayers Keras orders
        alike (`listed_layers`)."""
        post_order, seen, index = [], set(), {}  # index: id(layer or input) -> first reach
        inputs = {id(t) for t in self.flat_inputs}

        def reached(t):  # a model input, or the node that computes t (None: an Input)
            return t if id(t) in inputs else t.node

        stack = [(item, False) for item in map(reached, reversed(self.flat_outputs))
                 if item is not None]
        while stack:
            item, expanded = stack.pop()
            if id(item) in seen:
                continue
            if expanded or isinstance(item, KerasTensor):  # (an input: nothing before it)
                seen.add(id(item))
                post_order.append(item)
                index.setdefault(id(item), len(index))
                continue
            index.setdefault(id(item.layer), len(index))  # first reached
            stack.append((item, True))
            for parent in reversed(item.parents()):
                before = reached(parent)
                if before is not None and id(before) not in seen:
                    stack.append((before, False))
        depth_of, layer_depth = {}, {}  # id(node or input) -> depth; id(layer or input) ->
        for item in reversed(post_order):
            if isinstance(item, KerasTensor):  # as deep as its deepest use
                layer_depth[id(item)] = depth_of.setdefault(id(item), 0)
                continue
            depth = max(depth_of.setdefault(id(item), 0), layer_depth.get(id(item.layer), 0))
            layer_depth[id(item.layer)] = depth_of[id(item)] = depth
            for parent in item.parents():
                before = reached(parent)
                if before is not None:
                    depth_of[id(before)] = max(depth + 1, depth_of.get(id(before), 0))
        self._layer_depth, self._layer_index = layer_depth, index
        nodes = [item for item in post_order if not isinstance(item, KerasTensor)]
        rank = {id(node): i for i, node in enumerate(nodes)}
        return sorted(nodes, key=lambda n: (-depth_of[id(n)], index[id(n.layer)], rank[id(n)]))

    @property
    def layers(self):
        """The layers of the graph, each once, in Keras's order: by decreasing depth,
        ties by first reach from the outputs (see _topological_nodes)."""
        found = {}
        for node in self.nodes:
            layer = node.layer
            if id(layer) not in found and not getattr(layer, "_is_lambda_op", False):
                found[id(layer)] = layer
        return sorted(found.values(), key=lambda layer: (-self._layer_depth[id(layer)],
                                                         self._layer_index[id(layer)]))

    def listed_layers(self):
        """A functional model's `layers` (a new list): the layers and an InputLayer
        per input, in Keras's order (an input as deep as its deepest use, tied by
        first reach; one that no output uses at depth 0, first there). Sorted once:
        the graph does not change, and code indexes `model.layers` in loops."""
        if self._listed is None:
            keyed = [((-self._layer_depth[id(layer)], self._layer_index[id(layer)]), layer)
                     for layer in self.layers]
            for key, layer in self.input_layers.items():
                keyed.append(((-self._layer_depth[key], self._layer_index[key])
                              if key in self._layer_depth else (0, -1), layer))
            self._listed = tuple(layer for _, layer in sorted(keyed, key=lambda e: e[0]))
        return list(self._listed)

    def _by_input_name(self, inputs):
        """A dict for a model whose inputs are a list: matched to the Inputs by name,
        as Keras does (sorted keys would swap `{'user': u, 'item': i}` silently);
        keys no Input has are ignored, as in Keras."""
        names = [t.name for t in self.flat_inputs]
        missing = [n for n in names if n not in inputs]
        if missing:
            raise ValueError(f"The model's inputs are named {names}, but the dict given has "
                             f"keys {sorted(map(str, inputs))}; missing: {missing}.")
        return [inputs[n] for n in names]

    def run(self, inputs, training=None, mask=None):
        """Compute the outputs from real `inputs` (same structure as the model's)."""
        if isinstance(self.inputs, dict) and isinstance(inputs, dict):
            flat = [inputs[k] for k in sorted(self.inputs)]
        elif isinstance(inputs, dict):
            flat = self._by_input_name(inputs)
        else:
            flat = nest.flatten(inputs)
        if len(flat) != len(self.flat_inputs):
            raise ValueError(f"The model expects {len(self.flat_inputs)} input(s), got "
                             f"{len(flat)}.")
        # As Keras: each input in its Input's dtype and rank (uint8 images into a
        # float32 model, (batch,) data into an Input of shape (1,)).
        values = {id(t): conform_to_input(t, v) for t, v in zip(self.flat_inputs, flat)}

        def lookup(structure):
            return nest.map_structure(
                lambda v: values[id(v)] if isinstance(v, KerasTensor) else v, structure)

        for node in self.nodes:
            kwargs = lookup(node.kwargs)
            if training is not None:
                kwargs.setdefault("training", training)
            out = node.layer(lookup(node.inputs), *lookup(list(node.args)), **kwargs)
            for sym, value in zip(nest.flatten(node.outputs), nest.flatten(out)):
                values[id(sym)] = value
        return nest.map_structure(lambda t: values[id(t)], self.outputs)
