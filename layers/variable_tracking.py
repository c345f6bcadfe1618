"""variable_tracking.py owns `VariableTracking`, the part of `Layer` that
tracks the Variables and sublayers assigned as attributes (or added to a
tracked list or dict), lists them (`variables`, `trainable_weights`,
`submodules`, ...) and freezes them (`trainable`). Creating weights is
base.py's; the tracked containers and `no_tracking` are tracking.py's."""

from ..core import nest
from ..core.tensor import Variable
from .tracking import _context, _TrackedDict, _TrackedList

__all__ = ["VariableTracking"]


class VariableTracking:
    """Attribute tracking, mixed into `Layer` (its only user).

    Assigning a Variable, a layer, or a (nested) list, tuple or dict of them
    as an attribute tracks it; `variables` lists the layer's own trainable
    then non-trainable variables, then each sublayer's, in assignment order,
    each variable once. Expects the attributes `Layer.__new__` creates
    (`_tracked_trainable`, `_tracked_non_trainable`, `_tracked_layers`,
    `_tracked_ids`, `built`, `_layer_initialized`, `_trainable`) and `name`.
    """

    # Models that add layers after being built (Sequential.add) set this to False.
    _lock_state_after_build = True

    def __setattr__(self, name, value):
        if _context.no_tracking or name.startswith("__"):
            object.__setattr__(self, name, value)
            return
        object.__setattr__(self, name, self._track(value, name))

    def __delattr__(self, name):
        value = self.__dict__.get(name)
        object.__delattr__(self, name)
        for item in nest.flatten(value) if isinstance(value, (list, tuple, dict)) else [value]:
            self._untrack(item)

    def _track(self, value, attribute=None):
        if isinstance(value, Variable):
            if id(value) not in self._tracked_ids:
                self._check_unlocked(f"variable {value.name!r}", attribute)
                self._tracked_ids.add(id(value))
                (self._tracked_trainable if value.trainable
                 else self._tracked_non_trainable).append(value)
        elif isinstance(value, VariableTracking):
            if value is not self and id(value) not in self._tracked_ids:
                self._check_unlocked(f"sublayer {value.name!r}", attribute)
                self._tracked_ids.add(id(value))
                self._tracked_layers.append(value)
        elif type(value) is list:
            return _TrackedList(value, self)
        elif type(value) is dict:
            return _TrackedDict(value, self)
        elif isinstance(value, (list, tuple, dict)) and not isinstance(value, (_TrackedList,
                                                                            _TrackedDict)):
            for item in (value.values() if isinstance(value, dict) else value):
                self._track(item)
        return value

    def _untrack(self, value):
        if isinstance(value, (Variable, VariableTracking)) and id(value) in self._tracked_ids:
            self._tracked_ids.discard(id(value))
            for group in (self._tracked_trainable, self._tracked_non_trainable,
                          self._tracked_layers):
                for i, item in enumerate(group):
                    if item is value:
                        del group[i]
                        break

    def _check_unlocked(self, what, attribute):
        if self.built and self._lock_state_after_build and self._layer_initialized \
                and not self.__dict__.get("_build_depth"):  # inside build: super().build() ran
            where = f" as attribute {attribute!r}" if attribute else ""
            raise ValueError(
                f"Layer {self.name!r} is already built and cannot track a new {what}{where}. "
                "Create all state (variables and sublayers) in `__init__()` or in `build()`.")

    @property
    def trainable(self):
        return self._trainable

    @trainable.setter
    def trainable(self, value):
        """Freezing (False) a layer freezes its variables and every sublayer."""
        value = bool(value)
        object.__setattr__(self, "_trainable", value)
        for v in self._tracked_trainable:
            v.trainable = value
        for layer in self._tracked_layers:
            layer.trainable = value

    def _flatten_layers(self, include_self=True, recursive=True):
        """This layer (optionally) and its sublayers, depth first, each once."""
        result, seen = [], {id(self)}
        if include_self:
            result.append(self)
        stack = list(reversed(self._tracked_layers))
        while stack:
            layer = stack.pop()
            if id(layer) in seen:
                continue
            seen.add(id(layer))
            result.append(layer)
            if recursive:
                stack.extend(reversed(layer._tracked_layers))
        return result

    @property
    def submodules(self):
        """Every layer nested in this one (not itself), each once, in tf.Module's
        order: the direct sublayers (assignment order), then each one's submodules."""
        result, seen, stack = [], {id(self)}, [self]
        while stack:
            found = []
            for layer in stack.pop()._tracked_layers:
                if id(layer) not in seen:
                    seen.add(id(layer))
                    found.append(layer)
            result.extend(found)
            stack.extend(reversed(found))
        return tuple(result)

    @property
    def variables(self):
        """All variables: own trainable, own non-trainable, then each sublayer's."""
        result, seen = [], set()
        for layer in self._flatten_layers():
            for v in layer._tracked_trainable + layer._tracked_non_trainable:
                if id(v) not in seen:
                    seen.add(id(v))
                    result.append(v)
        return result

    @property
    def trainable_variables(self):
        if not self.trainable:
            return []
        return [v for v in self.variables if v.trainable]

    @property
    def non_trainable_variables(self):
        if not self.trainable:
            return self.variables
        return [v for v in self.variables if not v.trainable]

    @property
    def weights(self):
        """The same list as `variables` (Keras's name)."""
        return self.variables

    @property
    def trainable_weights(self):
        return self.trainable_variables

    @property
    def non_trainable_weights(self):
        return self.non_trainable_variables
