"""Numba kernels: ndarrays in, ndarrays out; no Tensor, no tape.

Importing this package imports nothing heavy. Each kernel module imports
numba through runtime/jit.py when an op first needs it.
"""
