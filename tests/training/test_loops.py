"""Model's loop methods hand their arguments to training/loops.py by position:
the two signatures must agree, name for name and default for default."""

import inspect

import pytest

import tapeflow as tf
from tapeflow.training import loops


@pytest.mark.parametrize("name", ["fit", "evaluate", "predict", "train_on_batch",
                                  "test_on_batch", "predict_on_batch"])
def test_model_methods_and_loops_take_the_same_arguments(name):
    method = list(inspect.signature(getattr(tf.keras.Model, name)).parameters.values())
    loop = list(inspect.signature(getattr(loops, name)).parameters.values())
    method = [p for p in method[1:] if p.kind is not p.VAR_KEYWORD]  # evaluate's **kwargs
    assert [(p.name, p.default) for p in method] == [(p.name, p.default) for p in loop[1:]]
