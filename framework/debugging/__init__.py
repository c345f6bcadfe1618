"""tf.debugging: TF's eager assertions (asserts.py) and the NaN finder
(numerics.py). Re-exports only."""

from .asserts import *  # noqa: F401,F403
from .asserts import __all__ as _asserts
from .numerics import check_numerics_enabled, disable_check_numerics, enable_check_numerics


def set_log_device_placement(enabled):
    """A no-op: every op runs on the CPU (tf.config.list_physical_devices)."""


__all__ = list(_asserts) + ["enable_check_numerics", "disable_check_numerics",
                            "check_numerics_enabled", "set_log_device_placement"]
