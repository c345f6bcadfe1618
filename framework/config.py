"""tf.config: the process and its devices, under TF's names.

`tf.config.experimental.get_process_settings()` lists what tapeflow changed
in the process for speed (glibc malloc thresholds, OpenBLAS's worker timeout,
OpenMP's spin), each applied or skipped and why; TAPEFLOW_PROCESS_TUNING=0
turns all of it off. More of TF's `tf.config` goes here as it is added.
"""

import types

from .runtime import openmp as _openmp  # noqa: F401 -- registers OpenMP's pending settings
from .runtime.settings import ProcessSetting, get_process_settings

__all__ = ["experimental"]

# tf.config.experimental: add further functions to the namespace below.
experimental = types.SimpleNamespace(
    get_process_settings=get_process_settings,
    ProcessSetting=ProcessSetting,
)
