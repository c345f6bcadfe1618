"""options.py holds `tf.data.Options` and `tf.data.experimental.AutoShardPolicy`:
the knobs TF's runtime reads (threading, autotuning, sharding, determinism).
tapeflow runs pipelines in the calling thread, in order, so they are recorded
and returned by `Dataset.options()` but change nothing."""

import enum
from typing import ClassVar

__all__ = ["AutoShardPolicy", "Options"]


class AutoShardPolicy(enum.IntEnum):
    """How a distributed dataset is sharded (TF's values; tapeflow has one worker)."""
    OFF = -1
    AUTO = 0
    FILE = 1
    DATA = 2
    HINT = 3


class _OptionGroup:
    """A group of options with a fixed set of names; any other name is an
    AttributeError, as TF's OptionsBase."""

    _NAMES: ClassVar[dict] = {}

    def __init__(self):
        for name, default in self._NAMES.items():
            object.__setattr__(self, name, default() if callable(default) else default)

    def __setattr__(self, name, value):
        if name not in self._NAMES:
            raise AttributeError(f"Cannot set the property {name} on {type(self).__name__}.")
        object.__setattr__(self, name, value)

    def __eq__(self, other):
        return type(self) is type(other) and vars(self) == vars(other)

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if v is not None)
        return f"{type(self).__name__}({fields})"


class AutotuneOptions(_OptionGroup):
    _NAMES: ClassVar[dict] = {"enabled": None, "cpu_budget": None, "ram_budget": None,
              "autotune_algorithm": None}


class DistributeOptions(_OptionGroup):
    _NAMES: ClassVar[dict] = {"auto_shard_policy": AutoShardPolicy.AUTO, "num_devices": None}


class OptimizationOptions(_OptionGroup):
    _NAMES: ClassVar[dict] = dict.fromkeys(["apply_default_optimizations", "filter_fusion",
                            "filter_parallelization", "inject_prefetch", "map_and_batch_fusion",
                            "map_and_filter_fusion", "map_fusion", "map_parallelization",
                            "noop_elimination", "parallel_batch", "seq_interleave_prefetch",
                            "shuffle_and_repeat_fusion", "warm_start"])


class ThreadingOptions(_OptionGroup):
    _NAMES: ClassVar[dict] = {"max_intra_op_parallelism": None, "private_threadpool_size": None}


class Options(_OptionGroup):
    """`tf.data.Options()`: set attributes, then `dataset.with_options(options)`.

    Accepted and returned by `Dataset.options()`, but without effect: tapeflow
    has no tf.data runtime to tune (it runs each pipeline in the calling thread,
    in order, so it is always deterministic).
    """

    _NAMES: ClassVar[dict] = {"autotune": AutotuneOptions, "deterministic": None,
              "experimental_deterministic": None, "experimental_distribute": DistributeOptions,
              "experimental_external_state_policy": None,
              "experimental_optimization": OptimizationOptions, "experimental_slack": None,
              "experimental_symbolic_checkpoint": None, "experimental_warm_start": None,
              "threading": ThreadingOptions, "experimental_threading": ThreadingOptions,
              "framework_type": None}

    def merge(self, options):
        """A new Options with the values set in `options` taking precedence."""
        merged = Options()
        for source in (self, options):
            for name, value in vars(source).items():
                if isinstance(value, _OptionGroup):
                    group = getattr(merged, name)
                    for key, item in vars(value).items():
                        if item is not None and item != type(value)._NAMES[key]:
                            setattr(group, key, item)
                elif value is not None:
                    setattr(merged, name, value)
        return merged
