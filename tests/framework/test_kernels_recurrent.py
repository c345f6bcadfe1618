"""kernels/recurrent.py's whole-loop kernels called directly, against plain
NumPy loops of Keras's equations, on C-contiguous, transposed and sliced
operands, float32 and float64, with masks, recurrent dropout masks and zero
outputs for masked steps: the forward kernels' outputs, the backward kernels'
gradients against central differences of the NumPy forward (float64), the
float32 activations against NumPy's, and gemm.add_product (the per-step
product) against NumPy's matmul."""

import numba
import numpy as np
import pytest
from tapeflow.kernels import activations, gemm
from tapeflow.kernels import recurrent as kernels
from tapeflow.runtime.jit import FASTMATH, njit

RNG = np.random.default_rng(20)
B, T, U = 3, 5, 4
# The float32 activations' bit casts and fused multiply-adds are LLVM intrinsics,
# which have no Python body to run with Numba's JIT turned off.
needs_jit = pytest.mark.skipif(numba.config.DISABLE_JIT,
                               reason="LLVM intrinsics need Numba's JIT")
KEEP = np.array([[1, 1, 0, 1, 0], [0, 1, 1, 1, 1], [1, 0, 0, 1, 1]], bool)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


def lay(a, how):
    """`a`'s values in the layout `how` names (its dtype kept)."""
    if how == "transposed":
        return np.asfortranarray(a)
    if how == "sliced":
        wide = np.zeros(tuple(2 * n for n in a.shape), a.dtype)
        wide[tuple(slice(None, None, 2) for _ in a.shape)] = a
        return wide[tuple(slice(None, None, 2) for _ in a.shape)]
    return a


def reference(cell, xw, kernel, bias, h0, c0, keep, rmask, zero_output, reset_after=True):
    """Keras's loop in NumPy: (B, T, (1 + states) * U), output then states per step.
    `bias`: the LSTM's; the GRU's recurrent bias (its input bias and the
    SimpleRNN's are X_BIAS's)."""
    u = kernel.shape[0]
    states = [h0, c0] if cell == "lstm" else [h0]
    y, rows = np.zeros_like(h0), []
    for t in range(xw.shape[1]):
        x, h = xw[:, t], states[0]
        if cell != "lstm":
            x = x + X_BIAS[cell].astype(x.dtype)
        h_in = h * rmask
        if cell == "lstm":
            z = x + bias + h_in @ kernel
            c = sigmoid(z[:, u:2 * u]) * states[1] + sigmoid(z[:, :u]) * np.tanh(z[:, 2 * u:3 * u])
            new = [sigmoid(z[:, 3 * u:]) * np.tanh(c), c]
        elif cell == "gru" and reset_after:
            inner = h_in @ kernel + bias
            z, r = sigmoid(x[:, :u] + inner[:, :u]), sigmoid(x[:, u:2 * u] + inner[:, u:2 * u])
            hh = np.tanh(x[:, 2 * u:] + r * inner[:, 2 * u:])
            new = [z * h + (1 - z) * hh]
        elif cell == "gru":
            z = sigmoid(x[:, :u] + h_in @ kernel[:, :u])
            r = sigmoid(x[:, u:2 * u] + h_in @ kernel[:, u:2 * u])
            hh = np.tanh(x[:, 2 * u:] + (r * h_in) @ kernel[:, 2 * u:])
            new = [z * h + (1 - z) * hh]
        else:
            new = [np.tanh(x + h_in @ kernel)]
        k = keep[:, t:t + 1]
        y = np.where(k, new[0], 0 if zero_output else y)
        states = [np.where(k, n, s) for n, s in zip(new, states)]
        rows.append(np.concatenate([y] + states, axis=1))
    return np.stack(rows, axis=1)


GATES = {"lstm": 4, "gru": 3, "gru_v1": 3, "simple": 1}
# the input biases of the GRU and the SimpleRNN, added by their kernels at each step
X_BIAS = {"gru": RNG.standard_normal(3 * U) * 0.3, "simple": RNG.standard_normal(U) * 0.3}


def x_bias(cell, dtype):
    return X_BIAS[cell.replace("_v1", "")].astype(dtype)


def operands(cell, dtype):
    xw = RNG.standard_normal((B, T, GATES[cell] * U))
    kernel = RNG.standard_normal((U, GATES[cell] * U)) * 0.6
    bias = RNG.standard_normal((4 if cell == "lstm" else 3) * U) * 0.3  # the LSTM's or the GRU's
    h0, c0 = RNG.standard_normal((B, U)), RNG.standard_normal((B, U))
    rmask = np.where(RNG.random((B, U)) < 0.3, 0.0, 1 / 0.7)
    return [a.astype(dtype) for a in (xw, kernel, bias, h0, c0, rmask)]


def forward(cell, xw, kernel, bias, h0, c0, keep, rmask, zero_output):
    """The forward kernel's result."""
    out = np.empty((B, xw.shape[1], (3 if cell == "lstm" else 2) * U), xw.dtype)
    if cell == "lstm":
        kernels.lstm_forward(xw, kernel, bias, h0, c0, keep, rmask, zero_output, out,
                             np.empty((B, 0, 4 * U), xw.dtype))
    elif cell == "simple":
        kernels.simple_rnn_forward(xw, kernel, x_bias(cell, xw.dtype), h0, keep, rmask,
                                   zero_output, out)
    else:
        kernels.gru_forward(xw, kernel, x_bias(cell, xw.dtype), bias, h0, keep, rmask,
                            zero_output, cell == "gru", out, np.empty((B, 0, 3 * U), xw.dtype))
    return out


@pytest.mark.parametrize("how", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("cell", list(GATES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("zero_output", [False, True])
def test_forward_against_numpy(how, cell, dtype, zero_output):
    xw, kernel, bias, h0, c0, rmask = operands(cell, dtype)
    got = forward(cell, *[lay(a, how) for a in (xw, kernel, bias, h0, c0)], lay(KEEP, how),
                  lay(rmask, how), zero_output)
    wide = [a.astype(np.float64) for a in (xw, kernel, bias, h0, c0)]
    expected = reference(cell.replace("_v1", ""), *wide, KEEP, rmask.astype(np.float64),
                         zero_output, reset_after=cell != "gru_v1")
    tol = 1e-12 if dtype == np.float64 else 2e-6
    np.testing.assert_allclose(got, expected, rtol=tol, atol=tol)
    if zero_output:
        assert np.all(got[~KEEP][:, :U] == 0)


def _check_bias_sums(db, dz):
    """Each row's input-bias gradient, as a backward kernel summed it: its dz (the
    gradient of xw + bias + ...) over the steps."""
    np.testing.assert_allclose(db, dz.sum(axis=1), rtol=1e-12 if dz.dtype == np.float64 else 1e-5,
                               atol=1e-6)


def _backward(cell, g, xw, kernel, bias, h0, c0, keep, rmask, zero_output, how):
    """(d xw, d h0[, d c0]) from the backward kernel, its operands built by
    NumPy from the reference forward and laid out as `how` says."""
    u = U
    out = reference(cell.replace("_v1", ""), xw, kernel, bias, h0, c0, keep, rmask, zero_output,
                    reset_after=cell != "gru_v1")
    h_prev = np.concatenate([h0[:, None], out[:, :-1, u:2 * u]], axis=1)
    h_in = h_prev * rmask[:, None]
    kernel_t = kernel.T
    d_h0 = np.empty_like(h0)
    if cell == "lstm":
        dz, d_c0 = np.empty_like(xw), np.empty_like(c0)
        pre = np.empty((B, 0, 4 * u), xw.dtype)
        db = np.zeros((B, 4 * u), xw.dtype)
        args = [lay(a, how) for a in (g, xw, pre, out, h0, c0, kernel, kernel_t, bias, keep,
                                      rmask)]
        kernels.lstm_backward(*args, zero_output, dz, db, d_h0, d_c0)
        _check_bias_sums(db, dz)
        return dz, d_h0, d_c0
    if cell == "simple":
        h_new = np.tanh(xw + x_bias(cell, xw.dtype) + h_in @ kernel)
        dx, db = np.empty_like(h_new), np.zeros((B, u), xw.dtype)
        args = [lay(a, how) for a in (g, h_new, kernel_t, keep, rmask)]
        kernels.simple_rnn_backward(*args, zero_output, dx, db, d_h0)
        _check_bias_sums(db, dx)
        return dx, d_h0
    reset_after = cell == "gru"
    dx = np.empty_like(xw)
    d_inner = np.empty_like(xw) if reset_after else np.empty((0, 0, 0), xw.dtype)
    rh = np.empty((0, 0, 0) if reset_after else h_in.shape, xw.dtype)
    no_pre = np.empty((B, 0, 3 * u), xw.dtype)
    db = np.zeros((B, 3 * u), xw.dtype)
    args = [lay(a, how) for a in (g, xw, no_pre, out, h0, kernel, kernel_t,
                                  x_bias(cell, xw.dtype), bias, keep, rmask)]
    kernels.gru_backward(*args, zero_output, reset_after, dx, d_inner, rh, db, d_h0)
    _check_bias_sums(db, dx)
    if not reset_after:  # r * h_in of every step, for the op's gradient of U_h
        r = 1 / (1 + np.exp(-(xw[..., u:2 * u] + x_bias(cell, xw.dtype)[u:2 * u]
                              + h_in @ kernel[:, u:2 * u])))
        np.testing.assert_allclose(rh, r * h_in, rtol=1e-12 if xw.dtype == np.float64 else 1e-5)
    return dx, d_h0


@pytest.mark.parametrize("how", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("cell", list(GATES))
@pytest.mark.parametrize("zero_output", [False, True])
def test_backward_against_finite_differences(how, cell, zero_output):
    xw, kernel, bias, h0, c0, rmask = operands(cell, np.float64)
    g = RNG.standard_normal(reference(cell.replace("_v1", ""), xw, kernel, bias, h0, c0, KEEP,
                                      rmask, zero_output).shape)
    grads = _backward(cell, g, xw, kernel, bias, h0, c0, KEEP, rmask, zero_output, how)
    inputs = [xw, h0, c0][:len(grads)]
    eps = 1e-6
    for i, (grad, x) in enumerate(zip(grads, inputs)):
        direction = RNG.standard_normal(x.shape)

        def value(step, i=i, direction=direction):
            moved = [a + step * direction if j == i else a for j, a in enumerate(inputs)]
            moved += [h0, c0][len(moved) - 1:]
            return np.sum(g * reference(cell.replace("_v1", ""), moved[0], kernel, bias,
                                        moved[1], moved[2], KEEP, rmask, zero_output,
                                        reset_after=cell != "gru_v1"))
        numeric = (value(eps) - value(-eps)) / (2 * eps)
        np.testing.assert_allclose(np.sum(grad * direction), numeric, rtol=1e-7, atol=1e-8)


@pytest.mark.parametrize("how", ["contiguous", "sliced"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("zero_output", [False, True])
def test_lstm_keeps_its_gates_for_the_backward(how, dtype, zero_output):
    """The forward writes each step's gates, the sigmoid of the i, f and o blocks
    and tanh of the candidate's, of the pre-activations xw[:, t] + (h * mask) @ U
    (NumPy's from the reference states, within rounding); the backward reading
    them gives the bits it gives computing them again from the forward's out."""
    xw, kernel, bias, h0, c0, rmask = operands("lstm", dtype)
    out, pre = np.empty((B, T, 3 * U), dtype), np.full((B, T, 4 * U), np.nan, dtype)
    kernels.lstm_forward(*[lay(a, how) for a in (xw, kernel, bias, h0, c0, KEEP, rmask)],
                         zero_output, out, pre)
    wide = [a.astype(np.float64) for a in (xw, kernel, h0, c0, rmask, bias)]
    ref = reference("lstm", wide[0], wide[1], wide[5], wide[2], wide[3], KEEP, wide[4],
                    zero_output)
    h_prev = np.concatenate([wide[2][:, None], ref[:, :-1, U:2 * U]], axis=1)
    z = wide[0] + wide[5] + (h_prev * wide[4][:, None]) @ wide[1]
    gates = 1 / (1 + np.exp(-z))
    gates[..., 2 * U:3 * U] = np.tanh(z[..., 2 * U:3 * U])
    tol = 1e-12 if dtype == np.float64 else 2e-5
    np.testing.assert_allclose(pre, gates, rtol=tol, atol=tol)
    g = RNG.standard_normal((B, T, 3 * U)).astype(dtype)
    grads = []
    for kept in (pre, np.empty((B, 0, 4 * U), dtype)):
        dz, d_h0, d_c0 = np.empty_like(xw), np.empty_like(h0), np.empty_like(c0)
        db = np.zeros((B, 4 * U), dtype)
        operands_ = (g, xw, kept, out, h0, c0, kernel, np.ascontiguousarray(kernel.T), bias,
                     KEEP, rmask)
        kernels.lstm_backward(*[lay(a, how) for a in operands_], zero_output, dz, db, d_h0,
                              d_c0)
        grads.append((dz, db, d_h0, d_c0))
    for read, again in zip(*grads):
        np.testing.assert_array_equal(read, again)


@pytest.mark.parametrize("how", ["contiguous", "sliced"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reset_after", [True, False])
def test_gru_keeps_its_recurrent_products_for_the_backward(how, dtype, reset_after):
    """The forward writes each step's h_in @ U + bias (reset_after), or h_in @ U_zr
    and (r * h_in) @ U_h (NumPy's from the reference states, within rounding); the
    backward reading them gives the bits it gives computing them again."""
    xw, kernel, bias, h0, _, rmask = operands("gru", dtype)
    out, pre = np.empty((B, T, 2 * U), dtype), np.full((B, T, 3 * U), np.nan, dtype)
    xb = x_bias("gru", dtype)
    kernels.gru_forward(*[lay(a, how) for a in (xw, kernel, xb, bias, h0, KEEP, rmask)], True,
                        reset_after, out, pre)
    wide = [a.astype(np.float64) for a in (xw, kernel, bias, h0, rmask)]
    ref = reference("gru", wide[0], wide[1], wide[2], wide[3], None, KEEP, wide[4], True,
                    reset_after=reset_after)
    h_in = np.concatenate([wide[3][:, None], ref[:, :-1, U:]], axis=1) * wide[4][:, None]
    if reset_after:
        expected = h_in @ wide[1] + wide[2]
    else:
        r = sigmoid(wide[0][..., U:2 * U] + X_BIAS["gru"][U:2 * U] + h_in @ wide[1][:, U:2 * U])
        expected = np.concatenate([h_in @ wide[1][:, :2 * U], (r * h_in) @ wide[1][:, 2 * U:]],
                                  axis=-1)
    tol = 1e-12 if dtype == np.float64 else 2e-5
    np.testing.assert_allclose(pre, expected, rtol=tol, atol=tol)
    g = RNG.standard_normal((B, T, 2 * U)).astype(dtype)
    grads = []
    for kept in (pre, np.empty((B, 0, 3 * U), dtype)):
        written = [np.empty_like(xw),
                   np.empty_like(xw) if reset_after else np.empty((0, 0, 0), dtype),
                   np.empty((0, 0, 0) if reset_after else (B, T, U), dtype),
                   np.zeros((B, 3 * U), dtype), np.empty_like(h0)]
        operands_ = (g, xw, kept, out, h0, kernel, np.ascontiguousarray(kernel.T), xb, bias,
                     KEEP, rmask)
        kernels.gru_backward(*[lay(a, how) for a in operands_], True, reset_after, *written)
        grads.append(written)
    for read, again in zip(*grads):
        np.testing.assert_array_equal(read, again)


@pytest.mark.parametrize("cell", ["lstm", "gru", "gru_v1"])
def test_the_backward_reads_each_step_of_what_the_forward_kept(cell):
    """A change to what the forward kept of step t0 changes the gradient at t0 and
    before (the backward runs from the last step), none after it."""
    xw, kernel, bias, h0, c0, rmask = operands(cell, np.float64)
    gates = GATES[cell]
    out = forward(cell, xw, kernel, bias, h0, c0, KEEP, rmask, False)
    g = RNG.standard_normal(out.shape)
    kernel_t = np.ascontiguousarray(kernel.T)
    pre = np.empty((B, T, gates * U))
    if cell == "lstm":
        kernels.lstm_forward(xw, kernel, bias, h0, c0, KEEP, rmask, False, np.empty_like(out),
                             pre)
    else:
        kernels.gru_forward(xw, kernel, x_bias(cell, xw.dtype), bias, h0, KEEP, rmask, False,
                            cell == "gru", np.empty_like(out), pre)

    def dxw(pre):
        if cell == "lstm":
            dz = np.empty_like(xw)
            kernels.lstm_backward(g, xw, pre, out, h0, c0, kernel, kernel_t, bias, KEEP, rmask,
                                  False, dz, np.zeros((B, 4 * U)), np.empty_like(h0),
                                  np.empty_like(c0))
            return dz
        dx, rh = np.empty_like(xw), np.empty((0, 0, 0) if cell == "gru" else (B, T, U))
        kernels.gru_backward(g, xw, pre, out, h0, kernel, kernel_t, x_bias(cell, xw.dtype), bias,
                             KEEP, rmask, False, cell == "gru", dx, np.empty_like(xw), rh,
                             np.zeros((B, 3 * U)), np.empty_like(h0))
        return dx
    t0 = 2
    moved = pre.copy()
    moved[:, t0] += 0.5
    kept, changed = dxw(pre), dxw(moved)
    np.testing.assert_array_equal(changed[:, t0 + 1:], kept[:, t0 + 1:])
    assert np.all(np.any(changed[:, t0] != kept[:, t0], axis=-1)[KEEP[:, t0]])


def test_backward_float32_against_float64():
    xw, kernel, bias, h0, c0, rmask = operands("lstm", np.float64)
    g = RNG.standard_normal((B, T, 3 * U))
    wide = _backward("lstm", g, xw, kernel, bias, h0, c0, KEEP, rmask, False, "contiguous")
    narrow = _backward("lstm", *[a.astype(np.float32) for a in (g, xw, kernel, bias, h0, c0)],
                       KEEP, rmask.astype(np.float32), False, "sliced")
    for a, b in zip(narrow, wide):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@njit(fastmath=FASTMATH, error_model="numpy")  # as the kernels call them: fastmath reaches callees
def _activations(x, sig, tanh):
    for i in range(x.size):
        sig[i] = activations.sigmoid(x[i])
        tanh[i] = activations.tanh(x[i])


@njit(fastmath=FASTMATH, error_model="numpy")
def _exp32(x, exp):
    for i in range(x.size):
        exp[i] = activations.exp32(x[i])


@pytest.mark.parametrize("dtype", [pytest.param(np.float32, marks=needs_jit), np.float64])
def test_activations_against_numpy(dtype):
    x = np.concatenate([np.linspace(-100, 100, 20001), [np.nan, -1e-6, 1e-6, 0.0, np.inf,
                                                        -np.inf]])
    x = x.astype(dtype)
    exp, sig, tanh = (np.empty_like(x) for _ in range(3))
    _activations(x, sig, tanh)
    if dtype == np.float64:  # libm's, to the last bit
        with np.errstate(over="ignore"):
            np.testing.assert_allclose(sig, 1 / (1 + np.exp(-x)), rtol=1e-15, atol=0)
        np.testing.assert_allclose(tanh, np.tanh(x), rtol=1e-15, atol=0)
        return
    _exp32(x, exp)
    wide = x.astype(np.float64)
    with np.errstate(over="ignore"):
        true_exp, true_sig = np.exp(wide), 1 / (1 + np.exp(-wide))
    normal = (wide > -87.3) & (wide < 88.7)  # float32's normal range
    np.testing.assert_allclose(exp[normal], true_exp[normal], rtol=3e-7)
    np.testing.assert_allclose(sig, true_sig, rtol=0, atol=2e-7)  # NaN where NaN
    np.testing.assert_allclose(tanh, np.tanh(wide), rtol=3e-7, atol=1e-30)
    small = np.abs(wide) < 1e-3  # the polynomial branch keeps relative precision near 0
    np.testing.assert_allclose(tanh[small], np.tanh(wide[small]), rtol=3e-7)
    assert sig[0] == 0.0 and sig[-3] == 0.5 and tanh[-2] == 1.0 and tanh[-1] == -1.0
    assert exp[-1] == 0.0 and exp[-2] == np.inf and sig[-1] == 0.0 and sig[-2] == 1.0
    assert np.isnan(exp[-6]) and np.isnan(sig[-6]) and np.isnan(tanh[-6])
    assert exp[np.nanargmin(np.abs(wide - 88.7))] < np.inf  # as expf: inf only past 88.72


@needs_jit
def test_exp32_at_the_ends_of_float32():
    """The float32 exp where it takes its two scales: e**x up to FLT_MAX
    (2**128 has no float32) and the subnormal results below 2**-126, each
    within a subnormal step of e**x; 0 from where expf gives 0."""
    top = np.linspace(88.3, 88.7228, 4001).astype(np.float32)
    low = np.linspace(-103.9, -87.4, 4001).astype(np.float32)
    x = np.concatenate([top, low, np.float32([88.7229, 89.0, 1e30, -103.98, -104.5, -1e30])])
    exp = np.empty_like(x)
    _exp32(x, exp)
    with np.errstate(over="ignore"):
        truth = np.exp(x.astype(np.float64))
    n = len(top)
    np.testing.assert_allclose(exp[:n], truth[:n], rtol=3e-7)
    assert np.all(np.isfinite(exp[:n]))
    subnormal_step = float(np.finfo(np.float32).smallest_subnormal)
    np.testing.assert_allclose(exp[n:2 * n], truth[n:2 * n], rtol=3e-7, atol=subnormal_step)
    assert exp[2 * n].item() == exp[2 * n + 1].item() == exp[2 * n + 2].item() == np.inf
    assert exp[-3:].tolist() == [0.0, 0.0, 0.0]


@njit
def _product(a, b, c):
    gemm.add_product(a, b, gemm.pack_panels(b), c)


@pytest.mark.parametrize("m,k,n", [(32, 64, 256), (13, 7, 70), (5, 64, 16), (0, 3, 40)])
@pytest.mark.parametrize("how", ["contiguous", "transposed", "sliced"])
def test_gemm_add_product_against_numpy(m, k, n, how):
    a = RNG.standard_normal((m, k)).astype(np.float32)
    b = RNG.standard_normal((k, n)).astype(np.float32)
    start = RNG.standard_normal((m, n)).astype(np.float32)
    c = start.copy()
    _product(lay(a, how), lay(b, how), c)
    np.testing.assert_allclose(c, start + a.astype(np.float64) @ b, rtol=1e-5, atol=1e-4)


@needs_jit
@pytest.mark.parametrize("cell", list(GATES))
def test_float32_backward_computes_in_float32(cell, monkeypatch):
    """No variable of a float32 backward kernel is float64: in Numba a bare 0.0 or
    1 next to a float32 (`1 - z * z`, `... if kept else 0.0`) is float64, which
    halves the lanes of a vectorised loop (the LSTM's gradient 7% slower)."""
    name = {"lstm": "lstm_backward", "simple": "simple_rnn_backward"}.get(cell, "gru_backward")
    fresh = numba.njit(fastmath=FASTMATH, error_model="numpy")(getattr(kernels, name).py_func)
    monkeypatch.setattr(kernels, name, fresh)  # compiled here, so that its types can be read
    xw, kernel, bias, h0, c0, rmask = operands(cell, np.float32)
    g = RNG.standard_normal((B, T, (3 if cell == "lstm" else 2) * U)).astype(np.float32)
    _backward(cell, g, xw, kernel, bias, h0, c0, KEEP, rmask, False, "contiguous")
    (result,) = fresh.overloads.values()
    wide = sorted(v for v, t in result.type_annotation.typemap.items()
                  if t == numba.float64 and not v.startswith("$const"))  # a constant alone: a fill
    assert not wide, f"{name} has float64 variables for float32 operands: {wide}"
