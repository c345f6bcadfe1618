"""progbar.py is `keras.utils.Progbar`, the progress bar custom training loops
drive by hand (`update(step, values=[('loss', v)])`). fit's own display is the
ProgbarLogger callback; this one keeps Keras's text format and averaging."""

import sys
import time

import numpy as np

__all__ = ["Progbar"]


class Progbar:
    """A text progress bar with running averages, as Keras's.

    Args:
        target: the total number of steps, or None if unknown.
        width: the bar's width in characters.
        verbose: 0 silent, 1 a bar (redrawn on a terminal, one line at the end
            otherwise), 2 one line at the end.
        interval: the minimum seconds between redraws.
        stateful_metrics: names whose values are shown as given, not averaged.
        unit_name: the name of a step ('step', 'sample').

    A value given for a non-stateful name is averaged over steps: `update(current,
    [('loss', v)])` weighs v by the steps since the last update.
    """

    def __init__(self, target, width=30, verbose=1, interval=0.05, stateful_metrics=None,
                 unit_name="step"):
        self.target = target
        self.width = width
        self.verbose = verbose
        self.interval = interval
        self.unit_name = unit_name
        self.stateful_metrics = set(stateful_metrics or ())
        self._values = {}  # name -> [weighted sum, weight], as Keras keeps them
        self._values_order = []
        self._seen_so_far = 0
        self._start = time.time()
        self._last_update = 0.0
        self._drawn = 0

    def update(self, current, values=None, finalize=None):
        """Move to step `current` and record `values` (a list of (name, value))."""
        if finalize is None:
            finalize = self.target is not None and current >= self.target
        for name, value in values or []:
            value = float(np.mean(value.numpy() if hasattr(value, "numpy") else value))
            if name not in self._values_order:
                self._values_order.append(name)
            if name in self.stateful_metrics:
                self._values[name] = [value, 1]
            else:
                steps = max(current - self._seen_so_far, 1)
                total = self._values.setdefault(name, [0.0, 0])
                total[0] += value * steps
                total[1] += steps
        self._seen_so_far = current
        now = time.time()
        if self.verbose == 0 or (not finalize and now - self._last_update < self.interval):
            return
        self._last_update = now
        stream = sys.stdout
        dynamic = bool(getattr(stream, "isatty", None) and stream.isatty())
        if self.verbose == 1 and dynamic:
            line = f"{self._bar(current)} - {self._timing(current, now, finalize)}{self._info()}"
            stream.write("\r" + line.ljust(self._drawn) + ("\n" if finalize else ""))
            self._drawn = len(line)
        elif finalize:
            bar = self._bar(current) + " - " if self.verbose == 1 else ""
            stream.write(f"{bar}{self._timing(current, now, True)}{self._info()}\n")
        stream.flush()

    def add(self, n, values=None):
        """Advance by `n` steps."""
        self.update(self._seen_so_far + n, values)

    def _bar(self, current):
        if self.target is None:
            return f"{current:7d}/Unknown"
        digits = len(str(self.target))
        filled = int(self.width * current / self.target) if self.target else self.width
        arrow = ">" if current < self.target else "="
        bar = ("=" * max(filled - 1, 0) + (arrow if filled else "")).ljust(self.width, ".")
        return f"{current:{digits}d}/{self.target} [{bar[:self.width]}]"

    def _timing(self, current, now, finalize):
        elapsed = now - self._start
        per_step = elapsed / current if current else 0.0
        if finalize or self.target is None:
            per = (f"{per_step:.0f}s" if per_step >= 1 else f"{per_step * 1e3:.0f}ms"
                   if per_step >= 1e-3 else f"{per_step * 1e6:.0f}us")
            return f"{elapsed:.0f}s {per}/{self.unit_name}"
        eta = per_step * (self.target - current)
        return f"ETA: {eta:.0f}s"

    def _info(self):
        parts = []
        for name in self._values_order:
            total, weight = self._values[name]
            value = total / max(weight, 1)
            parts.append(f" - {name}: {value:.4f}" if abs(value) > 1e-3 else
                         f" - {name}: {value:.4e}")
        return "".join(parts)
