"""progbar.py owns `ProgbarLogger`, the progress display of `fit`/`evaluate`/
`predict`: a tqdm bar on a terminal, one line per epoch otherwise. tqdm is
imported on first use, so `import tapeflow` stays free of it."""

import sys
import time

from .base import Callback, _scalar

__all__ = ["ProgbarLogger"]


class ProgbarLogger(Callback):
    """The progress display of `fit`/`evaluate`/`predict`, on tqdm (imported on first use).

    `params['verbose']`: 1 (or 'auto') shows, on a terminal, one bar per
    epoch with steps, ETA and the running loss and metrics; 2 prints one line
    per epoch. When the stream is not a terminal (a log file, CI), verbose=1
    also prints one line per epoch, so logs are never flooded with redraws.

    Args:
        stream: where to write (sys.stdout at the time training starts).
    """

    def __init__(self, stream=None):
        super().__init__()
        self._stream = stream
        self._bar = None
        self._in_fit = False
        self._start = None
        self._seen = 0
        self._epoch_label = ""

    # -- helpers
    @property
    def _out(self):
        return self._stream or sys.stdout

    @property
    def _verbose(self):
        verbose = self.params.get("verbose", 1)
        return 1 if verbose == "auto" else int(verbose or 0)

    def _interactive(self):
        isatty = getattr(self._out, "isatty", None)
        try:
            return self._verbose == 1 and bool(isatty and isatty())
        except ValueError:  # a closed stream
            return False

    @staticmethod
    def _format(logs):
        parts = []
        for key, value in (logs or {}).items():
            scalar = _scalar(value)
            if scalar is None:
                continue
            text = f"{scalar:.4f}" if abs(scalar) > 1e-3 or scalar == 0 else f"{scalar:.4e}"
            parts.append(f"{key}: {text}")
        return " - ".join(parts)

    def _open_bar(self, total):
        from tqdm import tqdm  # imported here so `import tapeflow` stays free of tqdm
        self._bar = tqdm(total=total, file=self._out, unit="step", dynamic_ncols=True,
                         leave=True, mininterval=0.1, ascii=None,
                         bar_format="{n_fmt}/{total_fmt} |{bar:30}| {elapsed}<{remaining}"
                                    "{postfix}" if total else None)

    def _begin(self):
        self._start = time.perf_counter()
        self._seen = 0
        if self._interactive():
            self._open_bar(self.params.get("steps"))

    def _batch(self, logs):
        self._seen += 1
        if self._bar is not None:
            text = self._format(logs)
            if text:
                self._bar.set_postfix_str(text, refresh=False)
            self._bar.update(1)

    def _finish(self, logs, prefix=""):
        if self._bar is not None:
            self._bar.set_postfix_str(self._format(logs), refresh=False)
            self._bar.close()
            self._bar = None
            return
        if self._verbose == 0:
            return
        seconds = time.perf_counter() - (self._start or time.perf_counter())
        per_step = 1000 * seconds / max(self._seen, 1)
        steps = self.params.get("steps") or self._seen
        line = f"{prefix}{self._seen}/{steps} - {seconds:.0f}s - {per_step:.0f}ms/step"
        text = self._format(logs)
        self._out.write(line + (f" - {text}" if text else "") + "\n")
        self._out.flush()

    # -- hooks
    def on_train_begin(self, logs=None):
        self._in_fit = True

    def on_train_end(self, logs=None):
        self._in_fit = False
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def on_epoch_begin(self, epoch, logs=None):
        if self._verbose == 0:
            return
        epochs = self.params.get("epochs", 1)
        self._epoch_label = f"Epoch {epoch + 1}/{epochs}"
        if self._interactive():
            self._out.write(self._epoch_label + "\n")
        self._begin()

    def on_train_batch_end(self, batch, logs=None):
        if self._verbose:
            self._batch(logs)

    def on_epoch_end(self, epoch, logs=None):
        if self._verbose:
            self._finish(logs, prefix=f"{self._epoch_label} - ")

    def on_test_begin(self, logs=None):
        if not self._in_fit and self._verbose:
            self._begin()

    def on_test_batch_end(self, batch, logs=None):
        if not self._in_fit and self._verbose:
            self._batch(logs)

    def on_test_end(self, logs=None):
        if not self._in_fit and self._verbose:
            self._finish(logs)

    on_predict_begin = on_test_begin
    on_predict_batch_end = on_test_batch_end

    def on_predict_end(self, logs=None):
        if not self._in_fit and self._verbose:
            self._finish(None)
