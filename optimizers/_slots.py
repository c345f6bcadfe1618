"""_slots.py: the store of an optimizer's variables -- `variables` lists them
all; `build` creates the per-variable slots and EMA averages, keyed
'<i>/<slot>' by the model variable's position in build order; `get_slot`
finds one. Saving them is _state.py's; the step counter, learning rate and
updates are optimizer.py's and the subclasses'."""

import numpy as np

from ..core.tensor import Variable

from . import _util

__all__ = ["SlotsMixin"]


class SlotsMixin:
    """`variables`, `build`, `add_variable`, `add_variable_from_reference`, `get_slot`.

    Expects what `Optimizer.__init__` creates: `name`, `use_ema`, `built`,
    `_tracked` (state key -> Variable, in creation order), `_index` (id of a
    model variable -> its position in build order), `_built_vars`, `_slots`
    and `_averages`.
    """

    @property
    def variables(self):
        """iterations, the learning rate (if a Variable), then slots in creation order."""
        return list(self._tracked.values())

    def _slot_specs(self):
        """(name, initial value) of each slot the subclass keeps per variable."""
        return ()

    def build(self, var_list):
        """Create the slot variables of `var_list` (variables seen before are skipped).

        Slots are created slot name by slot name (all momentums, then all
        velocities), as Keras does. `apply_gradients` calls this on first use.
        """
        new = []
        for v in var_list:
            _util.check_variable(v, f"{type(self).__name__}.build")
            if id(v) not in self._index:
                self._index[id(v)] = len(self._built_vars)
                self._built_vars.append(v)
                new.append(v)
        if self.use_ema:
            self._averages.extend(self.add_variable_from_reference(v, "average") for v in new)
        per_slot = [[self.add_variable_from_reference(v, name, initializer=init) for v in new]
                    for name, init in self._slot_specs()]
        self._slots.extend(zip(*per_slot) if per_slot else [()] * len(new))
        self.built = True

    def _ensure_built(self, variables):
        for v in variables:
            if id(v) not in self._index:
                self.build(variables if not self.built else
                           [u for u in variables if id(u) not in self._index])
                break
        for v in variables:
            if id(v) not in self._index:
                raise ValueError(f"Unknown variable {v.name!r}: this optimizer was built for "
                                 "other variables and its `build` cannot extend them; create "
                                 "a new optimizer for a new set of variables.")

    def _get_variable_index(self, variable):
        return self._index[id(variable)]

    def add_variable(self, shape, initializer="zeros", dtype=None, aggregation="mean",
                     name=None):
        """Create a non-trainable optimizer Variable, tracked in `variables` and the state."""
        dtype = np.dtype("float32" if dtype is None else getattr(dtype, "as_numpy_dtype", dtype))
        shape = tuple(int(d) for d in shape)
        if callable(initializer):
            value = np.asarray(initializer(shape, dtype=dtype), dtype=dtype)
        elif initializer == "zeros":
            value = np.zeros(shape, dtype)
        elif initializer == "ones":
            value = np.ones(shape, dtype)
        else:
            value = np.full(shape, initializer, dtype)
        base = key = name or "variable"
        k = 1
        while key in self._tracked:
            key = f"{base}_{k}"
            k += 1
        variable = Variable(value, name=f"{self.name}/{key}", trainable=False)
        self._tracked[key] = variable
        return variable

    def add_variable_from_reference(self, reference_variable, name=None, initializer="zeros"):
        """A slot: a zero (or `initializer`) Variable shaped like `reference_variable`.

        Its state key is `'<i>/<name>'`, i the reference's position in build order.
        """
        name = name or "var"
        i = self._index.get(id(reference_variable))
        key = f"{i}/{name}" if i is not None else f"{reference_variable.path}/{name}"
        value = np.zeros(reference_variable._value.shape, reference_variable._value.dtype)
        if callable(initializer):
            value[...] = initializer(value.shape, dtype=value.dtype)
        elif initializer not in ("zeros", 0, 0.0):
            value[...] = 1 if initializer == "ones" else initializer
        base = key
        k = 1
        while key in self._tracked:
            key = f"{base}_{k}"
            k += 1
        slot = Variable(value, name=f"{reference_variable.path.replace('/', '_')}_{name}",
                        trainable=False)
        self._tracked[key] = slot
        pending = self.__dict__.get("_deferred_slot_restorations")
        if pending:
            self._restore_deferred_slot(pending, reference_variable, name, slot)
        return slot

    # -- checkpoints (tf.train.Checkpoint, in framework/train/) ---------------------------
    def _checkpoint_dependencies(self):
        """The optimizer-wide Variables by state key ('iterations', 'learning_rate');
        slots are saved beside their model variables (`_checkpoint_slots`)."""
        return [(key, v) for key, v in self._tracked.items() if "/" not in key]

    def _checkpoint_slots(self):
        """(model variable, slot name, slot Variable) of every slot, in creation order."""
        for key, slot in self._tracked.items():
            index, _, name = key.partition("/")
            if index.isdigit():
                yield self._built_vars[int(index)], name, slot

    def _defer_slot_restoration(self, variable, slot_name, restore):
        """Keep a checkpoint's `restore(slot)` for the slot `build` will create for
        `variable` (deferred restoration); returns the key it is kept under."""
        pending = self.__dict__.setdefault("_deferred_slot_restorations", {})
        key = (id(variable), slot_name)
        pending[key] = (variable, restore)
        return key

    def _restore_deferred_slot(self, pending, variable, slot_name, slot):
        entry = pending.get((id(variable), slot_name))
        if entry is not None and entry[0] is variable:
            del pending[(id(variable), slot_name)]
            entry[1](slot)

    def get_slot(self, var, slot_name):
        """The slot `slot_name` of model variable `var` (TF 2's `get_slot`)."""
        i = self._index.get(id(var))
        slot = None if i is None else self._tracked.get(f"{i}/{slot_name}")
        if slot is None:
            raise KeyError(f"{type(self).__name__} has no slot {slot_name!r} for variable "
                           f"{getattr(var, 'name', var)!r}.")
        return slot
