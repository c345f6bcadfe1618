"""runtime/: everything that touches the process -- the allocator, BLAS and
OpenMP worker pools, Numba (its import, cache location and threads). Imports
nothing else of tapeflow."""
