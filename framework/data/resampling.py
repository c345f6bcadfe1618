"""resampling.py holds `Dataset.rejection_resample`: elements kept or dropped
by class so that the output follows a target class distribution, composed as
TF composes it (an acceptance filter over one pass, mixed with the untouched
elements of another pass in the proportion that needs the fewest rejections)."""

import itertools

import numpy as np

from ..core import dtypes
from ..core.tensor_spec import TensorSpec
from ..random import generator as random_generator
from . import structure
from .structure import UNKNOWN

__all__ = ["Resampling"]

_ESTIMATION_BATCH = 32   # TF's dist_estimation_batch_size
_SMOOTHING = 10          # TF's smoothing_constant: every class starts counted 10 times


def _acceptance(initial, target):
    """TF's _calculate_acceptance_probs_with_mixing: with r = target / initial,
    class i is accepted by the filter with (r_i - min r) / (max r - min r), and
    the original stream is drawn with probability min r (the fewest rejections)."""
    ratio = target / (initial + np.finfo(np.float32).tiny)
    low, high = ratio.min(), ratio.max()
    with np.errstate(invalid="ignore", divide="ignore"):
        accept = (ratio - low) / (high - low)
    return accept.astype(np.float32), np.float32(low)


def _estimated_distributions(classes, num_classes):
    """For each element, the class distribution seen so far as TF estimates it:
    counts from 10 per class, updated per batch of 32 elements."""
    counts = np.full(num_classes, _SMOOTHING, np.int64)
    while True:
        batch = list(itertools.islice(classes, _ESTIMATION_BATCH))
        if not batch:
            return
        counts += np.bincount(batch, minlength=num_classes)[:num_classes]
        dist = (counts / counts.sum()).astype(np.float32)
        for _ in batch:
            yield dist


class Resampling:
    """rejection_resample (a mixin of Dataset)."""

    def rejection_resample(self, class_func, target_dist, initial_dist=None, seed=None,
                           name=None):
        """Resample so that `class_func(element)` (an int class id) follows
        `target_dist`; elements become `(class, element)` pairs, as TF.

        Without `initial_dist`, the input's distribution is estimated as the
        elements go by (TF's running estimate). Each pass draws anew; with
        `seed` or after `tf.random.set_seed`, the same on every run.
        """
        target = np.asarray(structure.to_component(target_dist), np.float32).reshape(-1)
        initial = None if initial_dist is None else \
            np.asarray(structure.to_component(initial_dist), np.float32).reshape(-1)
        base = int(random_generator(seed).integers(2**63))
        passes = itertools.count()

        def class_of(element):
            value = structure.to_component(structure.call_unpacked(class_func, element))
            return int(value)

        def with_class(element):
            return structure.to_component(structure.call_unpacked(class_func, element)), element

        def distributions():
            if initial is not None:
                return itertools.repeat(initial)
            return _estimated_distributions((class_of(e) for e in self._iterate()),
                                            len(target))

        def filtered(draw):
            for dist, element in zip(distributions(), self._iterate()):
                accept, _ = _acceptance(dist, target)
                labelled = with_class(element)
                if draw.uniform() < accept[int(labelled[0])]:
                    yield labelled

        def mixed():
            draw = np.random.default_rng([base, next(passes)])
            original = (with_class(e) for e in self._iterate())
            picked = filtered(draw)
            for dist in distributions():
                _, p_original = _acceptance(dist, target)
                source = original if draw.uniform() < p_original else picked
                element = next(source, None)
                if element is None:
                    return  # TF: stop_on_empty_dataset=True
                yield element

        if initial is not None:
            _, p_original = _acceptance(initial, target)
            if p_original == 1.0:
                return self._derive(lambda: (with_class(e) for e in self._iterate()),
                                    self._cardinality_value, lambda: self._resampled_spec(
                                        with_class), "_MapDataset")
            if p_original == 0.0:  # the original stream is never drawn
                return self._derive(lambda: filtered(np.random.default_rng([base, next(passes)])),
                                    UNKNOWN, lambda: self._resampled_spec(with_class),
                                    "_MapDataset")
        return self._derive(mixed, UNKNOWN, lambda: self._resampled_spec(with_class),
                            "_DirectedInterleaveDataset")

    def _resampled_spec(self, with_class):
        first = next(self._iterate(), None)
        label = TensorSpec([], dtypes.int64) if first is None else \
            structure.spec_of(with_class(first)[0])
        return (label, self.element_spec)
