"""kernels.py times each Numba kernel of tapeflow against its plain NumPy
reference on W3's shapes (batch 64, 28x28x1 -> conv 3x3x32 -> pool 2 ->
3x3x64 -> pool 2) and on softmax cross-entropy batches: medians over
interleaved repeats, printed as a table with the NumPy / kernel ratio.

    python benchmarks/kernels.py [--repeats 15]
"""

import argparse
import statistics
import time

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from tapeflow.kernels import conv as kc
from tapeflow.kernels import pool as kp
from tapeflow.kernels import softmax as ks


# -- NumPy references ------------------------------------------------------------------
def np_im2col(x, k):
    n, h, w, c = x.shape
    win = sliding_window_view(x, (k, k), axis=(1, 2))
    return np.ascontiguousarray(win.transpose(0, 1, 2, 4, 5, 3)).reshape(-1, k * k * c)


def np_conv(x, w):
    n, h, wd, _ = x.shape
    return (np_im2col(x, w.shape[0]) @ w.reshape(-1, w.shape[3])).reshape(
        n, h - w.shape[0] + 1, wd - w.shape[1] + 1, w.shape[3])


def np_conv_input_grad(g, w, x_shape):
    k = w.shape[0]
    cols = g.reshape(-1, w.shape[3]) @ w.reshape(-1, w.shape[3]).T
    n, ho, wo, _ = g.shape
    cols = cols.reshape(n, ho, wo, k, k, x_shape[3])
    dx = np.zeros(x_shape, g.dtype)
    for i in range(k):
        for j in range(k):
            dx[:, i:i + ho, j:j + wo] += cols[:, :, :, i, j]
    return dx


def np_conv_filter_grad(x, g, k):
    return (np_im2col(x, k).T @ g.reshape(-1, g.shape[3])).reshape(k, k, x.shape[3], -1)


def np_max_pool(x):
    n, h, w, c = x.shape
    xr = x[:, :h // 2 * 2, :w // 2 * 2].reshape(n, h // 2, 2, w // 2, 2, c)
    return xr.max(axis=(2, 4)), xr


def np_max_pool_grad(g, out, xr, x_shape):
    mask = xr == out[:, :, None, :, None, :]
    dx = np.zeros(x_shape, g.dtype)
    n, h2, _, w2, _, c = xr.shape
    dx[:, :2 * h2, :2 * w2] = (mask * g[:, :, None, :, None, :]).reshape(n, 2 * h2, 2 * w2, c)
    return dx


def np_log_softmax(z):
    s = z - z.max(axis=-1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


# -- timing ------------------------------------------------------------------------------
def median_ms(fns, repeats):
    """Interleaved repeats of each function (after two warm-up calls): medians in ms."""
    for f in fns:
        f()
        f()
    samples = [[] for _ in fns]
    for _ in range(repeats):
        for f, s in zip(fns, samples):
            t = time.perf_counter()
            f()
            s.append(time.perf_counter() - t)
    return [statistics.median(s) * 1e3 for s in samples]


def conv_rows(rng, repeats):
    rows = []
    for name, (n, h, c_in, c_out) in {"conv1 28x28x1->32": (64, 28, 1, 32),
                                      "conv2 13x13x32->64": (64, 13, 32, 64)}.items():
        x = rng.standard_normal((n, h, h, c_in), dtype=np.float32)
        w = rng.standard_normal((3, 3, c_in, c_out), dtype=np.float32)
        ho = h - 2
        g = rng.standard_normal((n, ho, ho, c_out), dtype=np.float32)
        geo = (1, 1, 1, 1, 0, 0)
        out = np.empty(g.shape, np.float32)
        cols = np.empty((n * ho * ho, 9 * c_in), np.float32)
        dx = np.empty_like(x)
        part = np.empty((2, 3, 3, c_in, c_out), np.float32)
        bias_part = np.empty((2, c_out))
        work = g.size * 9 * c_in
        fwd = kc.pick(kc.conv2d_forward, work, n)
        bfi = kc.pick(kc.conv2d_backward_filter, work, n)
        i2c = kc.pick(kc.im2col, cols.size, n)
        c2i = kc.pick(kc.col2im, cols.size, n)
        nchunks = 2 if bfi is kc.conv2d_backward_filter[1] else 1

        def im2col_fwd():
            i2c(x, cols, 3, 3, *geo, ho, ho)
            return cols @ w.reshape(-1, c_out)

        def col2im_in():
            c2i(g.reshape(-1, c_out) @ w.reshape(-1, c_out).T, dx, 3, 3, *geo, ho, ho)

        def im2col_filt():
            i2c(x, cols, 3, 3, *geo, ho, ho)
            return cols.T @ g.reshape(-1, c_out)

        cases = [
            ("forward", lambda: np_conv(x, w), lambda: fwd(x, w, out, *geo), im2col_fwd),
            ("input grad", lambda: np_conv_input_grad(g, w, x.shape), None, col2im_in),
            ("filter grad", lambda: np_conv_filter_grad(x, g, 3),
             lambda: bfi(x, g, part[:nchunks], *geo, g, False, bias_part[:nchunks]).sum(0),
             im2col_filt),
        ]
        for what, ref, direct, blas in cases:
            # The input gradient has no direct kernel: col2im after BLAS won on every shape.
            labels = (["direct"] if direct else []) + ["numba im2col+BLAS"]
            times = median_ms([f for f in (ref, direct, blas) if f is not None], repeats)
            rows.append((f"{name} {what}", times[0], list(zip(labels, times[1:]))))
        # im2col alone against NumPy's sliding-window copy (the GEMM after it is the same)
        t_ref, t_kernel = median_ms([lambda: np_im2col(x, 3),
                                     lambda: i2c(x, cols, 3, 3, *geo, ho, ho)], repeats)
        rows.append((f"{name} im2col alone", t_ref, [("kernel", t_kernel)]))
    return rows


def pool_rows(rng, repeats):
    rows = []
    for name, (n, h, c) in {"maxpool2 26x26x32": (64, 26, 32),
                            "maxpool2 11x11x64": (64, 11, 64)}.items():
        x = rng.standard_normal((n, h, h, c), dtype=np.float32)
        ref_out, xr = np_max_pool(x)
        out = np.empty(ref_out.shape, np.float32)
        argmax = np.empty(ref_out.shape, np.int64)
        g = rng.standard_normal(ref_out.shape, dtype=np.float32)
        dx = np.empty_like(x)
        fwd = kp.pick(kp.max_pool2d_forward, x.size, n)
        bwd = kp.pick(kp.max_pool2d_backward, x.size, n)
        t_ref, t_k = median_ms([lambda: np_max_pool(x),
                                lambda: fwd(x, out, argmax, 2, 2, 2, 2, 0, 0)], repeats)
        rows.append((f"{name} forward", t_ref, [("kernel", t_k)]))
        fwd(x, out, argmax, 2, 2, 2, 2, 0, 0)
        t_ref, t_k = median_ms([lambda: np_max_pool_grad(g, ref_out, xr, x.shape),
                                lambda: bwd(g, argmax, dx)], repeats)
        rows.append((f"{name} backward", t_ref, [("kernel", t_k)]))
        avg = np.empty(ref_out.shape, np.float32)
        afwd = kp.pick(kp.avg_pool2d_forward, x.size, n)
        t_ref, t_k = median_ms([lambda: xr.mean(axis=(2, 4)),
                                lambda: afwd(x, avg, 2, 2, 2, 2, 0, 0)], repeats)
        rows.append((f"avg{name[3:]} forward", t_ref, [("kernel", t_k)]))
    return rows


def softmax_rows(rng, repeats):
    rows = []
    from tapeflow.ops.nn import _KERNEL_MAX_SIZE
    for rows_, classes in [(64, 10), (128, 10), (512, 100), (4096, 1000)]:
        z = rng.standard_normal((rows_, classes), dtype=np.float32)
        labels = rng.integers(0, classes, rows_)
        y = np.eye(classes, dtype=np.float32)[labels]
        g = np.ones(rows_, np.float32)
        loss, dz = np.empty(rows_, np.float32), np.empty_like(z)
        fwd = ks.sparse_softmax_cross_entropy_forward
        bwd = ks.sparse_softmax_cross_entropy_backward
        dfwd = ks.softmax_cross_entropy_forward

        def np_both():
            ls = np_log_softmax(z)
            return -ls[np.arange(rows_), labels], (np.exp(ls) - y) * g[:, None]

        def k_both():
            fwd(z, labels, loss)
            bwd(z, labels, g, dz)

        t_ref, t_k, t_d = median_ms([np_both, k_both, lambda: dfwd(z, y, loss)], repeats)
        # Above _KERNEL_MAX_SIZE logits the op takes NumPy's path (its SIMD exp wins).
        used = "" if rows_ * classes <= _KERNEL_MAX_SIZE else " (op uses NumPy)"
        rows.append((f"softmax CE {rows_}x{classes} fwd+bwd{used}", t_ref,
                     [("sparse kernels", t_k), ("dense fwd kernel", t_d)]))
    return rows


def conv_layer_rows(rng, repeats):
    """A whole Conv2D(ReLU) layer, forward and backward, on W3's two layer shapes:
    tapeflow's fused op against NumPy im2col and, when importable, PyTorch. The
    first layer needs no input gradient (as in the network)."""
    import tapeflow as tf
    try:
        import torch  # after tapeflow's kernels, so both runtimes' workers sleep when idle
    except ImportError:
        torch = None
    try:
        import tensorflow as tens
    except ImportError:
        tens = None
    rows = []
    for name, x_shape, c_out in (("conv1 layer", (64, 28, 28, 1), 32),
                                 ("conv2 layer", (64, 13, 13, 32), 64)):
        x = rng.standard_normal(x_shape).astype(np.float32)
        w = (0.1 * rng.standard_normal((3, 3, x_shape[3], c_out))).astype(np.float32)
        b = np.zeros(c_out, np.float32)
        g = rng.standard_normal((x_shape[0], x_shape[1] - 2, x_shape[2] - 2, c_out)).astype(
            np.float32)
        first = x_shape[3] == 1
        xt, wt, bt = tf.constant(x), tf.Variable(w), tf.Variable(b)

        def tapeflow_layer():
            with tf.GradientTape() as tape:
                if not first:
                    tape.watch(xt)
                y = tf.nn.conv2d_bias_activation(xt, wt, bt, 1, "VALID", activation="relu")
            return tape.gradient(y, [wt, bt] if first else [xt, wt, bt], output_gradients=g)

        def numpy_layer():
            y = np.maximum(np_conv(x, w) + b, 0)
            gm = g * (y > 0)
            grads = [np_conv_filter_grad(x, gm, 3), gm.sum(axis=(0, 1, 2))]
            if not first:
                grads.append(np_conv_input_grad(gm, w, x.shape))
            return grads

        impls = [("tapeflow", tapeflow_layer)]
        if torch is not None:
            # PyTorch's own layout (contiguous NCHW), its best case
            xp = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous().requires_grad_(not first)
            wp = torch.from_numpy(w).permute(3, 2, 0, 1).contiguous().requires_grad_(True)
            bp = torch.from_numpy(b).requires_grad_(True)
            gp = torch.from_numpy(g).permute(0, 3, 1, 2).contiguous()

            def torch_layer():
                y = torch.relu(torch.nn.functional.conv2d(xp, wp, bp))
                y.backward(gp)
                wp.grad = bp.grad = xp.grad = None

            impls.append(("PyTorch", torch_layer))
        if tens is not None:
            xk, gk = tens.constant(x), tens.constant(g)
            wk, bk = tens.Variable(w), tens.Variable(b)

            @tens.function
            def tf_step():
                with tens.GradientTape() as tape:
                    if not first:
                        tape.watch(xk)
                    y = tens.nn.relu(tens.nn.bias_add(tens.nn.conv2d(xk, wk, 1, "VALID"), bk))
                return tape.gradient(y, [wk, bk] if first else [xk, wk, bk], output_gradients=gk)

            def tf_layer():
                return [t.numpy() for t in tf_step()]

            impls.append(("TF tf.function", tf_layer))
        times = median_ms([numpy_layer] + [f for _, f in impls], repeats)
        rows.append((f"{name} fwd+bwd", times[0],
                     [(label, t) for (label, _), t in zip(impls, times[1:])]))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = conv_rows(rng, args.repeats) + pool_rows(rng, args.repeats) + softmax_rows(
        rng, args.repeats) + conv_layer_rows(rng, args.repeats)
    print(f"{'case':<52} {'numpy ms':>9}   kernels (ms, numpy/kernel)")
    for case, t_ref, impls in rows:
        cells = "   ".join(f"{name} {t:.2f} (x{t_ref / t:.1f})" for name, t in impls)
        print(f"{case:<52} {t_ref:9.2f}   {cells}")


if __name__ == "__main__":
    main()
