"""random_seed.py seeds every source of randomness a Keras program draws from."""

import random

import numpy as np

from ..random import set_seed

__all__ = ["set_random_seed"]


def set_random_seed(seed):
    """Seed Python's, NumPy's and tapeflow's random generators, as Keras does.

    Raises:
        ValueError: if `seed` is not an int.
    """
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} "
                         f"(of type {type(seed)})")
    random.seed(seed)
    np.random.seed(seed)
    set_seed(seed)
