"""`keras.mixed_precision`: dtype policies. tapeflow computes in the layer's
dtype with no loss scaling, so the one global policy it runs is 'float32'
(per-layer `dtype='float64'` works); the mixed policies raise
NotImplementedError instead of silently training in float32."""

__all__ = ["Policy", "DTypePolicy", "global_policy", "set_global_policy", "LossScaleOptimizer"]

_POLICIES = ("float32", "float64", "float16", "bfloat16", "mixed_float16", "mixed_bfloat16")


class Policy:
    """A dtype policy: `name`, `compute_dtype` and `variable_dtype`, as Keras's.

    Raises:
        ValueError: for an unknown policy name.
    """

    def __init__(self, name="float32"):
        if name not in _POLICIES:
            raise ValueError(f"Cannot convert '{name}' to a mixed precision Policy. Valid "
                             f"policies: {', '.join(_POLICIES)}.")
        self.name = name
        mixed = name.startswith("mixed_")
        self.compute_dtype = name[len("mixed_"):] if mixed else name
        self.variable_dtype = "float32" if mixed else name

    def get_config(self):
        return {"name": self.name}

    @classmethod
    def from_config(cls, config):
        return cls(**config)

    def __repr__(self):
        return f'<DTypePolicy "{self.name}">'


DTypePolicy = Policy  # Keras 3's name
_state = {"policy": Policy("float32")}


def global_policy():
    """The global policy (float32)."""
    return _state["policy"]


def set_global_policy(policy):
    """Set the global dtype policy; tapeflow runs 'float32' only.

    Raises:
        ValueError: for an unknown policy name.
        NotImplementedError: for any policy other than 'float32'.
    """
    policy = Policy("float32" if policy is None else policy) if not isinstance(
        policy, Policy) else policy
    if policy.name != "float32":
        raise NotImplementedError(
            f"set_global_policy({policy.name!r}): tapeflow runs on the CPU in float32 and has "
            "no mixed precision (it would not be faster there); leave the policy at "
            "'float32', or pass dtype='float64' to layers for double precision.")
    _state["policy"] = policy


class LossScaleOptimizer:
    """Not supported: loss scaling only matters for float16 training (see
    set_global_policy)."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("LossScaleOptimizer: tapeflow has no mixed precision, so no "
                                  "loss scaling is needed; use the inner optimizer directly.")
