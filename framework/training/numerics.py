"""numerics.py says where a non-finite loss came from. When a batch's loss is
NaN or Inf, the batch is run forward once more with `tf.debugging`'s numeric
checks on, and the first op whose output is not finite is named with its
layer and the user's line; TerminateOnNaN prints it, and fit logs it as a
warning when no callback handles the loss. Costs one scalar test per step."""

import logging
import math

from ..debugging.numerics import (check_numerics_enabled, disable_check_numerics,
                                  enable_check_numerics)
from ..core.errors import InvalidArgumentError

__all__ = ["NonFiniteReport", "is_finite_loss", "replay"]

_log = logging.getLogger("tapeflow")


class NonFiniteReport:
    """What the replay of a batch with a non-finite loss found. `text` is the
    numeric check's error (op, layer, line, inputs), or why nothing was found."""

    def __init__(self, text, found, after_update):
        self.text = text
        self.found = found
        self.after_update = after_update
        self.batch = None
        self.shown = False

    def __str__(self):
        where = f"Batch {self.batch}: " if self.batch is not None else ""
        when = (" (replayed after the optimizer's update: the weights may already hold the "
                "non-finite values)" if self.after_update else "")
        return f"{where}the loss is not finite; replaying the batch with numeric checks{when}:\n{self.text}"


def is_finite_loss(value):
    """Whether a loss (Tensor, array or number; None counts as finite) is finite."""
    if value is None:
        return True
    try:
        return math.isfinite(float(getattr(value, "_value", value)))
    except (TypeError, ValueError):
        return True  # a non-scalar loss: the metrics report it


def replay(model, x, y, sample_weight, after_update=False):
    """Run `model` forward on the batch with numeric checks on; a NonFiniteReport.

    The forward runs in training mode, as the step did, so random layers draw
    again (the replay may not reproduce a NaN that depended on a dropout mask) and a
    BatchNormalization layer's moving statistics take the batch a second time.
    """
    was_enabled = check_numerics_enabled()
    enable_check_numerics()
    try:
        y_pred = model(x, training=True)
        model.compute_loss(x, y, y_pred, sample_weight)
    except InvalidArgumentError as error:
        return NonFiniteReport(str(error), True, after_update)
    finally:
        if not was_enabled:
            disable_check_numerics()
    return NonFiniteReport("every op's output was finite on replay: the non-finite value "
                           "depended on randomness (dropout, noise) or on state the step "
                           "changed.", False, after_update)


def show(report, batch, handled):
    """Log `report` once (the loop calls it per batch); `handled`: a TerminateOnNaN
    callback will print it instead."""
    if report.shown:
        return
    report.batch = batch
    report.shown = True
    if not handled:
        _log.warning("%s", report)
