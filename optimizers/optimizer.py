"""optimizer.py owns `Optimizer`, the Keras 3 optimizer base: `apply_gradients`,
`minimize`, the iteration counter, the learning rate (value, Variable or
schedule), clipping, decoupled weight decay and EMA. Slot variables are
_slots.py's, the save/restore of optimizer state _state.py's; update formulas
live in the subclasses."""

import logging
import re

import numpy as np

from ..autodiff.explain import why_no_gradient
from ..autodiff.tape import GradientTape
from ..distribute import context as _distribute_context
from ..core.tensor import Tensor, Variable

from . import _util
from ._slots import SlotsMixin
from ._state import StateMixin
from . import schedules as _schedules

__all__ = ["Optimizer"]

_log = logging.getLogger("tapeflow")

# learning-rate kinds: a float32 Variable, a callable of the step, a callable of nothing
_LR_VARIABLE, _LR_OF_STEP, _LR_NO_ARGS = 0, 1, 2


class Optimizer(SlotsMixin, StateMixin):
    """Base class of the Keras optimizers, as `tf.keras.optimizers.Optimizer`.

    A subclass creates its slots in `build(var_list)` (or lists them in
    `_slot_specs`) and writes `update_step(gradient, variable, learning_rate)`;
    the base class supplies everything else. Updates write into each
    Variable's array in place and are never recorded on a tape.

    One step of `apply_gradients` does, in Keras 3's order: skip None
    gradients (with a warning), clip (`clipnorm`, `global_clipnorm` or
    `clipvalue`), decay weights (`variable -= variable * weight_decay * lr`),
    run `update_step` for each variable, apply variable constraints, update
    the EMA of the weights, and increment `iterations`.

    Args:
        learning_rate: a float >= 0, a Variable, a `LearningRateSchedule`, or
            a callable; a callable taking one argument is called with the
            current step (a Python int), one taking none is called as is.
        weight_decay: float or None: decoupled weight decay.
        clipnorm: clip each gradient to this L2 norm.
        clipvalue: clip each gradient element to [-clipvalue, clipvalue].
        global_clipnorm: clip all gradients together to this global norm.
        use_ema: keep an exponential moving average of the weights.
        ema_momentum: the EMA's momentum; the first step copies the weights.
        ema_overwrite_frequency: overwrite the weights with their average
            every this many steps (else call `finalize_variable_values`).
        name: the optimizer's name.

    Raises:
        ValueError: for a negative or NaN learning rate, more than one
            clipping argument, or an out-of-range hyperparameter.
    """

    _fuses_weight_decay = False  # built-in kernels apply weight decay themselves
    _coefs_use_step = True  # the per-step scalars depend on the step (bias corrections)

    def __init__(self, learning_rate, weight_decay=None, clipnorm=None, clipvalue=None,
                 global_clipnorm=None, use_ema=False, ema_momentum=0.99,
                 ema_overwrite_frequency=None, loss_scale_factor=None,
                 gradient_accumulation_steps=None, name=None, **kwargs):
        owner = type(self).__name__
        if kwargs.pop("decay", None) is not None:
            _log.warning("Argument `decay` is no longer supported and will be ignored.")
        kwargs.pop("jit_compile", None)
        if kwargs:
            raise ValueError(f"{owner}: argument(s) not recognized: {kwargs}")
        if gradient_accumulation_steps or loss_scale_factor is not None:
            raise NotImplementedError(f"{owner}: gradient_accumulation_steps and "
                                      "loss_scale_factor are not supported by tapeflow.")
        self.name = name if name is not None else owner.lower()
        given = [n for n, v in (("clipnorm", clipnorm), ("clipvalue", clipvalue),
                                ("global_clipnorm", global_clipnorm)) if v is not None]
        if len(given) > 1:
            raise ValueError(f"{owner}: only one of `clipnorm`, `clipvalue` and "
                             f"`global_clipnorm` can be set, got {', '.join(given)}.")
        for arg, value in (("clipnorm", clipnorm), ("clipvalue", clipvalue),
                           ("global_clipnorm", global_clipnorm)):
            if value is not None:
                _util.check_number(owner, arg, value, low=0.0, low_open=True)
        if weight_decay is not None:
            weight_decay = _util.check_number(owner, "weight_decay", weight_decay, low=0.0)
        if use_ema:
            _util.check_number(owner, "ema_momentum", ema_momentum, 0.0, 1.0)
            if ema_overwrite_frequency is not None and (
                    not isinstance(ema_overwrite_frequency, int) or ema_overwrite_frequency < 1):
                raise ValueError(f"{owner}: `ema_overwrite_frequency` must be an integer >= 1 "
                                 f"or None, got {ema_overwrite_frequency!r}.")
        self.weight_decay = weight_decay
        self.clipnorm = clipnorm
        self.clipvalue = clipvalue
        self.global_clipnorm = global_clipnorm
        self.use_ema = bool(use_ema)
        self.ema_momentum = ema_momentum
        self.ema_overwrite_frequency = ema_overwrite_frequency
        self.built = False
        self._tracked = {}          # state key -> Variable, in creation order
        self._index = {}            # id(model variable) -> its position in build order
        self._built_vars = []       # model variables in build order
        self._slots = []            # per model variable: tuple of slot Variables (_slot_specs order)
        self._averages = []         # per model variable: EMA Variable (use_ema only)
        self._wd_cache = {}
        self._wd_exclude_ids = set()
        self._wd_exclude_pattern = None
        self._coef_cache = {}
        self._array_update = None  # set by built-ins whose update_step is not overridden
        self._iterations = Variable(np.int64(0), name="iteration", trainable=False)
        self._tracked["iterations"] = self._iterations
        self._lr = None
        self._lr_kind = _LR_VARIABLE
        self._set_learning_rate(learning_rate)

    # -- learning rate ------------------------------------------------------
    @property
    def iterations(self):
        """The number of steps taken so far: an int64, non-trainable Variable."""
        return self._iterations

    @property
    def learning_rate(self):
        """The learning-rate Variable, or the schedule's current value as a float32 Tensor."""
        if self._lr_kind == _LR_VARIABLE:
            return self._lr
        return Tensor(np.float32(self._current_lr()))

    @learning_rate.setter
    def learning_rate(self, value):
        self._set_learning_rate(value)

    lr = learning_rate  # tf.keras 2 alias

    def _set_learning_rate(self, value):
        owner = type(self).__name__
        if isinstance(value, Variable):
            if value._value.size != 1 or value._value.dtype.kind != "f":
                raise ValueError(f"{owner}: a learning-rate Variable must be a float scalar, "
                                 f"got {value!r}.")
            _util.check_learning_rate(owner, value._value.reshape(()).item())
            self._lr, self._lr_kind = value, _LR_VARIABLE
        elif isinstance(value, _schedules.LearningRateSchedule):
            self._lr, self._lr_kind = value, _LR_OF_STEP
        elif callable(value) and not isinstance(value, Tensor):
            self._lr, self._lr_kind = value, _util.lr_callable_kind(value, _LR_OF_STEP, _LR_NO_ARGS)
        else:
            value = _util.check_learning_rate(owner, value)
            if self._lr_kind == _LR_VARIABLE and self._lr is not None:
                self._lr._value[()] = value
            else:
                self._lr = Variable(np.float32(value), name="learning_rate", trainable=False)
                self._lr_kind = _LR_VARIABLE
        self._tracked.pop("learning_rate", None)
        if self._lr_kind == _LR_VARIABLE:
            self._tracked["learning_rate"] = self._lr
            # keep `variables` in Keras' order: iterations, learning_rate, slots
            for key in [k for k in self._tracked if k not in ("iterations", "learning_rate")]:
                self._tracked[key] = self._tracked.pop(key)

    def _current_lr(self):
        """The learning rate of the current step as a Python float."""
        kind = self._lr_kind
        if kind == _LR_VARIABLE:
            return float(self._lr._value)
        if kind == _LR_OF_STEP:
            lr = float(self._lr(int(self._iterations._value)))
        else:
            lr = float(self._lr())
        if not lr >= 0.0:
            raise ValueError(f"{type(self).__name__}: the learning-rate schedule returned "
                             f"{lr!r} at step {int(self._iterations._value)}; it must be >= 0.")
        return lr

    # -- weight decay ---------------------------------------------------------
    def exclude_from_weight_decay(self, var_list=None, var_names=None):
        """Exclude `var_list` and variables whose path matches one of `var_names`.

        Raises:
            ValueError: if the optimizer is already built.
        """
        if self.built:
            raise ValueError("exclude_from_weight_decay() can only be configured before the "
                             "optimizer is built.")
        self._wd_exclude_ids = {id(v) for v in (var_list or ())}
        self._wd_exclude_pattern = re.compile("|".join(set(var_names))) if var_names else None
        self._wd_cache = {}

    def _decay_coef(self, variable, lr):
        """`weight_decay * lr` for `variable`, or 0.0 when it is not decayed."""
        wd = self.weight_decay
        if not wd:
            return 0.0
        use = self._wd_cache.get(id(variable))
        if use is None:
            use = id(variable) not in self._wd_exclude_ids and not (
                self._wd_exclude_pattern is not None
                and self._wd_exclude_pattern.search(variable.path))
            self._wd_cache[id(variable)] = use
        return wd * lr if use else 0.0

    # -- applying gradients ------------------------------------------------------
    def update_step(self, gradient, variable, learning_rate):
        """Update `variable` (and its slots) in place from `gradient` (a Tensor)."""
        raise NotImplementedError(f"{type(self).__name__} must implement update_step().")

    def apply_gradients(self, grads_and_vars, name=None, skip_gradients_aggregation=False,
                        **kwargs):
        """Apply one step for (gradient, variable) pairs; returns `iterations`.

        Args:
            grads_and_vars: a list or any iterable of (gradient, variable)
                pairs (e.g. `zip(grads, model.trainable_variables)`). A None
                gradient skips its variable with a warning. Gradients may be
                Tensors, ndarrays or IndexedSlices-like objects (`.values`,
                `.indices`), which are densified (summing repeated indices).

        Raises:
            TypeError: for something that is not a pair, a non-Variable, or a
                gradient whose dtype differs from its variable's.
            ValueError: if every gradient is None (naming the variables), or a
                gradient's shape differs from its variable's.
        """
        grads, variables = [], []
        for pair in grads_and_vars:
            try:
                g, v = pair
            except (TypeError, ValueError):
                raise TypeError("apply_gradients expects (gradient, variable) pairs, got "
                                f"{pair!r}.") from None
            grads.append(g)
            variables.append(v)
        self.apply(grads, variables)
        return self._iterations

    def apply(self, grads, trainable_variables=None):
        """Apply `grads` to `trainable_variables` (or to the variables built on)."""
        if trainable_variables is None:
            if not self.built:
                raise ValueError("apply() without variables needs an optimizer built with "
                                 "optimizer.build(trainable_variables) first.")
            trainable_variables = self._built_vars
        variables = trainable_variables if type(trainable_variables) is list else list(
            trainable_variables)
        if len(grads) != len(variables):
            raise ValueError(f"Got {len(grads)} gradients for {len(variables)} variables.")
        if not variables:
            return
        index = self._index
        for v in variables:
            if id(v) not in index:
                for u in variables:
                    _util.check_variable(u, "apply_gradients")
                self._ensure_built(variables)
                break
        arrays, kept, missing = [], [], []
        for g, v in zip(grads, variables):
            if g is None:
                missing.append(v)
                continue
            if type(g) is Tensor:  # the common case, checked inline
                a, target = g._value, v._value
                if a.shape != target.shape or (a.dtype is not target.dtype
                                               and a.dtype != target.dtype):
                    a = _util.gradient_array(g, v)
            else:
                a = _util.gradient_array(g, v)
            arrays.append(a)
            kept.append(v)
        if not kept:
            raise ValueError(f"No gradients provided for any variable: "
                             f"{[v.name for v in missing]}. Check that the loss depends on the "
                             f"variables.{_reasons(missing)}")
        if missing:
            _warn_missing(missing)
        if _distribute_context.replica.strategy is not None:  # summed over the replicas, as TF
            arrays = _distribute_context.sum_gradients(arrays)
        if self.clipnorm:
            arrays = [_util.clip_by_norm(a, self.clipnorm) for a in arrays]
        elif self.global_clipnorm:
            arrays = _util.clip_by_global_norm(arrays, self.global_clipnorm)
        elif self.clipvalue:
            c = self.clipvalue
            arrays = [np.clip(a, -c, c) for a in arrays]
        step = int(self._iterations._value)
        lr = float(self._lr._value) if self._lr_kind == _LR_VARIABLE else self._current_lr()
        self._prepare_step(step, lr)
        if self.weight_decay and not self._fuses_weight_decay:
            for v in kept:
                decay = self._decay_coef(v, lr)
                if decay:
                    p = v._value
                    p -= p * p.dtype.type(decay)
        if self._array_update is not None:
            update = self._array_update  # a built-in: skip wrapping gradients in Tensors
            for a, v in zip(arrays, kept):
                update(a, v, lr)
        else:
            update_step = self.update_step
            for a, v in zip(arrays, kept):
                update_step(Tensor(a), v, lr)
        for v in kept:
            if v.constraint is not None:
                v.assign(v.constraint(v))
        if self.use_ema:
            self._update_ema(step)
        self._iterations._value[()] = step + 1

    def _prepare_step(self, step, lr):
        """Once per step before the updates: subclasses compute shared scalars here."""
        if self._coefs_use_step:
            self._coef_cache.clear()
        self._step = step

    def _update_ema(self, step):
        momentum = self.ema_momentum if step != 0 else 0.0
        for v, avg in zip(self._built_vars, self._averages):
            a, p = avg._value, v._value
            a[...] = momentum * a + (1 - momentum) * p
        if self.ema_overwrite_frequency and (step + 1) % self.ema_overwrite_frequency == 0:
            self.finalize_variable_values(self._built_vars)

    def finalize_variable_values(self, var_list):
        """With `use_ema`, overwrite the variables of `var_list` with their averages."""
        if not self.use_ema:
            return
        for v in var_list:
            i = self._index.get(id(v))
            if i is not None:
                np.copyto(v._value, self._averages[i]._value)

    def minimize(self, loss, var_list, tape=None):
        """Compute the gradients of `loss` for `var_list` and apply them.

        Args:
            loss: a zero-argument callable returning the loss, or a loss Tensor
                computed under `tape`.
            var_list: Variables, or a zero-argument callable returning them.
            tape: the GradientTape that recorded a Tensor `loss`.

        Returns:
            The `iterations` Variable.

        Raises:
            ValueError: for a Tensor loss without `tape`.
            TypeError: if `var_list` holds something that is not a Variable.
        """
        grads_and_vars = self.compute_gradients(loss, var_list, tape)
        return self.apply_gradients(grads_and_vars)

    def compute_gradients(self, loss, var_list, tape=None):
        """The (gradient, variable) pairs `minimize` would apply."""
        if tape is None:
            if not callable(loss):
                raise ValueError("`tape` is required when a `Tensor` loss is passed to "
                                 "minimize(); pass a zero-argument callable or the tape.")
            if not callable(var_list):
                var_list = _util.checked_var_list(var_list)
            with GradientTape() as tape:
                if not callable(var_list):
                    tape.watch(var_list)
                loss_value = loss()
                if callable(var_list):
                    var_list = _util.checked_var_list(var_list())
        else:
            if callable(loss):
                with tape:
                    loss_value = loss()
            else:
                loss_value = loss
            var_list = _util.checked_var_list(var_list() if callable(var_list) else var_list)
        grads = tape.gradient(loss_value, var_list)
        return list(zip(grads, var_list))

    # -- config ---------------------------------------------------------------
    def get_config(self):
        """The constructor arguments as a dict (schedules serialized as dicts)."""
        if self._lr_kind == _LR_VARIABLE:
            learning_rate = float(self._lr._value)
        elif isinstance(self._lr, _schedules.LearningRateSchedule):
            learning_rate = _schedules.serialize(self._lr)
        else:
            learning_rate = self._lr
        return {"name": self.name, "learning_rate": learning_rate,
                "weight_decay": self.weight_decay, "clipnorm": self.clipnorm,
                "global_clipnorm": self.global_clipnorm, "clipvalue": self.clipvalue,
                "use_ema": self.use_ema, "ema_momentum": self.ema_momentum,
                "ema_overwrite_frequency": self.ema_overwrite_frequency}

    @classmethod
    def from_config(cls, config, custom_objects=None):
        """A new optimizer (without state) from `get_config()`'s dict."""
        config = dict(config)
        if isinstance(config.get("learning_rate"), dict):
            config["learning_rate"] = _schedules.deserialize(config["learning_rate"],
                                                             custom_objects=custom_objects)
        return cls(**config)

    def __repr__(self):
        return f"<tapeflow.optimizers.{type(self).__name__} name={self.name!r}>"


def _reasons(variables):
    """Why each of `variables` got no gradient, as far as its tape could tell."""
    lines = [f"\n  {v.name}: {why}" for v in variables
             for why in [why_no_gradient(v)] if why is not None]
    return "".join(lines)


# Variables already warned of (by uid): Keras warns on every step; once is enough.
_warned_missing = set()


def _warn_missing(variables):
    new = [v for v in variables if v._uid not in _warned_missing]
    if not new:
        return
    _warned_missing.update(v._uid for v in new)
    _log.warning("Gradients do not exist for variables %s when minimizing the loss. If "
                 "using `model.compile()`, did you forget to provide a `loss` argument?%s",
                 [v.name for v in new], _reasons(new))
