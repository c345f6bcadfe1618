"""collectives.py moves arrays between ranks: gradients summed in fused
buckets (one Allreduce per few MB instead of one per variable), values
broadcast from rank 0, metric states summed, arrays gathered. Every rank calls
the same collectives in the same order; in a world of one each is a no-op."""

import numpy as np

__all__ = ["allreduce_sum", "broadcast", "allgather", "BUCKET_BYTES"]

BUCKET_BYTES = 4 * 2**20  # a fused Allreduce's size: large enough to amortise latency


def _buckets(arrays):
    """Consecutive groups of same-dtype arrays up to BUCKET_BYTES each."""
    group, size, dtype = [], 0, None
    for i, a in enumerate(arrays):
        if group and (a.dtype != dtype or size + a.nbytes > BUCKET_BYTES):
            yield group
            group, size = [], 0
        group.append(i)
        size += a.nbytes
        dtype = a.dtype
    if group:
        yield group


def allreduce_sum(world, arrays):
    """Each array summed over the ranks (new arrays, same shapes and dtypes)."""
    if world.size == 1:
        return list(arrays)
    from mpi4py import MPI
    arrays = [np.ascontiguousarray(a) for a in arrays]
    out = [None] * len(arrays)
    for group in _buckets(arrays):
        flat = np.concatenate([arrays[i].ravel() for i in group]) if len(group) > 1 else \
            arrays[group[0]].ravel()
        total = np.empty_like(flat)
        world.comm.Allreduce(flat, total, op=MPI.SUM)
        offset = 0
        for i in group:
            n = arrays[i].size
            out[i] = total[offset:offset + n].reshape(arrays[i].shape)
            offset += n
    return out


def broadcast(world, arrays, root=0):
    """Overwrite each array in place with rank `root`'s values."""
    if world.size == 1:
        return
    for a in arrays:
        if a.size:
            buffer = a if a.flags.c_contiguous else np.ascontiguousarray(a)
            world.comm.Bcast(buffer, root=root)
            if buffer is not a:
                a[...] = buffer


def broadcast_object(world, value, root=0):
    """A small picklable value from rank `root` (seeds, decisions)."""
    return value if world.size == 1 else world.comm.bcast(value, root=root)


def allgather(world, array, axis=0):
    """The ranks' arrays concatenated along `axis`, in rank order (sizes may differ)."""
    if world.size == 1:
        return array
    parts = world.comm.allgather(np.ascontiguousarray(array))
    return np.concatenate(parts, axis=axis)
