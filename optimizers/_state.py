"""_state.py: saving and restoring an optimizer's state (iterations, learning
rate, slots) as a flat dict of ndarrays, for .npz checkpoints. The file format
itself belongs to the training loop."""

import numpy as np

from . import _util

__all__ = ["StateMixin"]


class StateMixin:
    """get_state/set_state and Keras' save_own_variables/load_own_variables.

    Expects `_tracked` (state key -> Variable), `built` and `_ensure_built`.
    """

    def get_state(self):
        """The optimizer's state as a dict of ndarray copies, ready for `np.savez`.

        Layout (every entry an ndarray):
            'iterations': int64 scalar, the number of steps taken.
            'learning_rate': float32 scalar; present only when the learning
                rate is a value (not a schedule or callable).
            '<i>/<slot>': slot `<slot>` of the i-th model variable in build
                order (the order of the first `apply_gradients`, i.e. the
                model's `trainable_variables` order), e.g. '0/momentum',
                '3/velocity', '2/average' (EMA).
            other names: optimizer-wide state, e.g. Nadam's 'u_product'.
        `set_state` of this dict on an optimizer built on the same variables
        (in the same order) resumes training bit for bit.
        """
        return {key: np.array(v._value, copy=True) for key, v in self._tracked.items()}

    def set_state(self, state, var_list=None):
        """Restore `get_state()`'s dict (or an `np.load`ed .npz holding it).

        Args:
            state: mapping from the keys of `get_state` to arrays.
            var_list: the model variables, to build an unbuilt optimizer on
                (in the same order as when the state was saved) when `state`
                has slots; the state of an unbuilt optimizer (iterations and
                learning rate only) leaves this one unbuilt.

        Raises:
            ValueError: if a key is missing or unexpected, or a shape differs.
        """
        keys = set(state.keys())
        optional = {"learning_rate"}
        # The state of an optimizer saved before its first step has no slots: restore
        # it onto this one unbuilt (the first apply_gradients builds it), as saved.
        if var_list is not None and (self.built or keys - set(self._tracked) - optional):
            self._ensure_built(_util.checked_var_list(var_list))
        mine = set(self._tracked)
        missing = sorted(mine - keys - optional)
        extra = sorted(keys - mine - optional)
        if missing or extra:
            if not self.built:
                hint = " The optimizer is not built: pass var_list."
            elif not keys - {"iterations"} - optional:
                hint = (" The state is of an optimizer that had taken no step (it has no "
                        "slots); this one is built.")
            else:
                hint = ""
            raise ValueError(f"{type(self).__name__}.set_state: the state does not match this "
                             f"optimizer (missing {missing}, unexpected {extra}).{hint}")
        for key, variable in self._tracked.items():
            if key not in keys:
                continue
            value = np.asarray(state[key])
            if value.shape != variable._value.shape:
                raise ValueError(f"{type(self).__name__}.set_state: entry {key!r} has shape "
                                 f"{value.shape} but the optimizer's has shape "
                                 f"{variable._value.shape}.")
            np.copyto(variable._value, value, casting="same_kind")

    def save_own_variables(self, store):
        """Write the state into the dict-like `store` (keys as in `get_state`)."""
        store.update(self.get_state())

    def load_own_variables(self, store):
        """Read the state written by `save_own_variables`."""
        self.set_state(store)
