"""gather.py: the scatter-add behind the gradient of gather and embeddings
(rows of a matrix added into rows of another at integer ids). Plain ndarrays
in and out; the ops in ops/shape.py call it."""

from ..runtime.jit import njit

__all__ = ["embedding_scatter_add"]


@njit(cache=True)
def embedding_scatter_add(out, ids, rows):
    """`out[ids[i]] += rows[i]` for every i, in place; returns `out`.

    Repeated ids accumulate; ids outside [0, len(out)) are skipped (TF's
    unsorted_segment_sum drops negative ids). A serial loop: rows with the same
    id would race in parallel, and the loop is memory bound anyway.

    Args:
        out: (size, dim) array, added into.
        ids: (n,) int64 array.
        rows: (n, dim) array of `out`'s dtype.
    """
    size = out.shape[0]
    dim = rows.shape[1]
    for i in range(ids.shape[0]):
        k = ids[i]
        if k >= 0 and k < size:
            for j in range(dim):
                out[k, j] += rows[i, j]
    return out
