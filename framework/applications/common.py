"""common.py holds the steps every application constructor shares around its
own layers: checking `weights` and `classes`, making the image input, the
classifier or pooling on top, and building the Model and loading its weights.
Keras writes these steps out in each model's module; the layers in between,
which are what make each architecture, stay in the family's module.
"""

import os

from .. import layers
from ..backend import is_keras_tensor
from ..layers.keras_tensor import KerasTensor
from ..models.model import Model
from ..utils import get_file
from . import imagenet_utils

__all__ = ["check_weights_and_classes", "image_input", "classifier", "pooled", "build_model"]


def _is_file(weights):
    return isinstance(weights, (str, os.PathLike)) and os.path.exists(weights)


def check_weights_and_classes(weights, include_top, classes):
    """Keras's checks of `weights` (None, 'imagenet' or an existing file) and of
    `classes` (1000 for ImageNet's classifier).

    Raises:
        ValueError: with Keras's message.
    """
    if not (weights is None or (isinstance(weights, str) and weights == "imagenet")
            or _is_file(weights)):
        raise ValueError("The `weights` argument should be either `None` (random "
                         "initialization), 'imagenet' (pre-training on ImageNet), or the path "
                         f"to the weights file to be loaded.  Received: weights={weights}")
    if weights == "imagenet" and include_top and classes != 1000:
        raise ValueError("If using `weights='imagenet'` with `include_top=True`, `classes` "
                         f"should be 1000.  Received classes={classes}")


def image_input(input_tensor, input_shape):
    """The model's input: a new `Input` of `input_shape`, or `input_tensor`.

    Raises:
        ValueError: if `input_tensor` is not a Keras tensor (Keras 3's message;
            an eager Tensor cannot start a functional model).
    """
    if input_tensor is None:
        return layers.Input(shape=input_shape)
    if not is_keras_tensor(input_tensor):
        raise ValueError("Argument `input_tensor` must be a KerasTensor. Received invalid "
                         f"type: input_tensor={input_tensor} (of type {type(input_tensor)})")
    return input_tensor


def classifier(x, classes, classifier_activation, weights, **dense_kwargs):
    """The 'predictions' Dense layer, its activation checked against `weights`."""
    imagenet_utils.validate_activation(classifier_activation, weights)
    return layers.Dense(classes, activation=classifier_activation, name="predictions",
                        **dense_kwargs)(x)


def pooled(x, pooling, avg_name=None, max_name=None):
    """`x` through global average or max pooling (`pooling` 'avg' or 'max'), or as it is."""
    if pooling == "avg":
        return layers.GlobalAveragePooling2D(name=avg_name)(x)
    if pooling == "max":
        return layers.GlobalMaxPooling2D(name=max_name)(x)
    return x


def _source_inputs(tensor):
    """The `Input`s `tensor` was computed from, in the order first reached."""
    found, seen, stack = [], set(), [tensor]
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if t.node is None:
            found.append(t)
        else:
            stack.extend(reversed([p for p in t.node.parents() if isinstance(p, KerasTensor)]))
    return found[0] if len(found) == 1 else found


def build_model(img_input, input_tensor, outputs, name, weights, imagenet_file):
    """The Model from the image input (or the Inputs behind `input_tensor`) to
    `outputs`, with its weights loaded.

    `imagenet_file` is (file name, URL, file hash or None) of the ImageNet
    weights, fetched through `tf.keras.utils.get_file` into ~/.keras/models;
    offline and not cached, that raises an OSError naming the URL and the
    path to put the file at. A file path in `weights` goes to `model.load_weights`.
    """
    inputs = img_input if input_tensor is None else _source_inputs(input_tensor)
    model = Model(inputs, outputs, name=name)
    if weights == "imagenet":
        file_name, origin, file_hash = imagenet_file
        model.load_weights(get_file(file_name, origin, cache_subdir="models",
                                    file_hash=file_hash))
    elif weights is not None:
        model.load_weights(weights)
    return model
