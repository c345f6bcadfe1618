"""kernels/reductions.py against NumPy: the sums compiled graphs use must give
np.sum's bits on C-contiguous arrays (NumPy's pairwise order), float32 and
float64, whole and row by row; on views the kernels add the C-ordered copy (NumPy
adds a view in another order, which is why compiled code replays calls on views)."""

import numpy as np
import pytest

from tapeflow.kernels import reductions

SIZES = list(range(0, 300)) + [1000, 8191, 8192, 8193, 100003, (1 << 20) + 3]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pairwise_total_is_numpys_sum_bit_for_bit(dtype):
    rng = np.random.default_rng(7)
    for n in SIZES:
        a = (rng.standard_normal(n) * 1000).astype(dtype)
        got = np.asarray(reductions.pairwise_total(a), dtype)
        assert got.tobytes() == np.sum(a).tobytes(), n


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_pairwise_rows_is_numpys_last_axis_sum_bit_for_bit(dtype):
    rng = np.random.default_rng(8)
    for shape in [(3, 4), (37, 300), (5, 1), (2, 3, 129), (0, 5), (4, 0), (3, 100003)]:
        a = (rng.standard_normal(shape) * 10).astype(dtype)
        rows = reductions.pairwise_rows(a)
        assert rows.dtype == dtype and rows.shape == shape[:-1]
        assert rows.tobytes() == np.sum(a, axis=-1).tobytes(), shape
        total = np.asarray(reductions.pairwise_total(a), dtype)
        assert total.tobytes() == np.sum(a).tobytes(), shape


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_signed_zeros_infinities_and_nans_as_numpy(dtype):
    for values in ([-0.0] * n for n in (1, 2, 7, 8, 9, 200)):
        a = np.array(values, dtype)
        assert np.asarray(reductions.pairwise_total(a), dtype).tobytes() == \
            np.sum(a).tobytes()  # +0.0: NumPy adds the run to its identity
        assert reductions.pairwise_rows(a[None]).tobytes() == np.sum(a[None], axis=-1).tobytes()
    rng = np.random.default_rng(9)
    for special in (np.inf, -np.inf, np.nan):
        a = rng.standard_normal(1000).astype(dtype)
        a[rng.integers(0, 1000, 3)] = special
        got = np.asarray(reductions.pairwise_total(a), dtype)
        np.testing.assert_array_equal(got, np.sum(a))
    overflow = np.full(300, np.finfo(dtype).max / 4, dtype)
    assert reductions.pairwise_total(overflow) == np.sum(overflow) == np.inf


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("layout", ["transposed", "sliced", "reversed"])
def test_views_are_added_as_their_c_ordered_copy(dtype, layout):
    base = (np.random.default_rng(10).standard_normal((40, 300)) * 10).astype(dtype)
    view = {"transposed": base.T, "sliced": base[::3, 7:250],
            "reversed": base[:, ::-1]}[layout]
    copy = np.ascontiguousarray(view)
    assert reductions.pairwise_rows(view).tobytes() == np.sum(copy, axis=-1).tobytes()
    assert np.asarray(reductions.pairwise_total(view), dtype).tobytes() == np.sum(copy).tobytes()


@pytest.mark.parametrize("layout", ["c", "transposed", "sliced"])
def test_sum_leading_axis_equals_numpys_on_every_layout(layout):
    base = np.random.default_rng(2).normal(size=(7, 6, 4))
    a = {"c": base, "transposed": base.transpose(0, 2, 1), "sliced": base[::2, 1:, ::-1]}[layout]
    for array in (a, a.astype(np.float32), a[:0]):
        got = reductions.sum_leading_axis(array)
        assert got.dtype == array.dtype and got.shape == array.shape[1:]
        np.testing.assert_allclose(got, np.sum(array.astype(np.float64), axis=0),
                                   rtol=1e-6 if array.dtype == np.float32 else 1e-13)
