"""W4 jacobian: full `tape.jacobian` of tanh(W x + b) with W 256x256, and
`tape.batch_jacobian` of tanh(x @ W) on x of shape (64, 64); ms per call for
tapeflow, the closed-form NumPy jacobians and the peers. The tapeflow
results are checked against the closed forms before timing."""

import time

import numpy as np

import reference_numpy as ref
from _harness import Figure, measure, missing

ID = "W4"


def _data(n, batch):
    rng = np.random.default_rng(0)
    w = (rng.standard_normal((n, n)) / np.sqrt(n)).astype(np.float32)
    b = (0.1 * rng.standard_normal(n)).astype(np.float32)
    x = rng.standard_normal(n).astype(np.float32)
    wb = (rng.standard_normal((batch, batch)) / np.sqrt(batch)).astype(np.float32)
    xb = rng.standard_normal((batch, batch)).astype(np.float32)
    return w, b, x, wb, xb


def _tapeflow(w, b, x, wb, xb):
    import tapeflow as tf
    W, B, X = tf.constant(w), tf.constant(b), tf.constant(x)
    WB, XB = tf.constant(wb), tf.constant(xb)
    if not missing(tf, "linalg.matvec"):
        matvec = tf.linalg.matvec
    else:
        def matvec(m, v):
            return tf.matmul(m, v[:, None])[:, 0]  # tf.matmul needs rank >= 2

    def jacobian():
        with tf.GradientTape() as tape:
            tape.watch(X)
            y = tf.tanh(matvec(W, X) + B)
        return tape.jacobian(y, X)

    def batch_jacobian():
        with tf.GradientTape() as tape:
            tape.watch(XB)
            y = tf.tanh(tf.matmul(XB, WB))
        return tape.batch_jacobian(y, XB)

    return jacobian, batch_jacobian


def _torch(torch, w, b, x, wb, xb):
    from torch.func import jacrev, vmap
    W, B, X, WB, XB = (torch.from_numpy(a) for a in (w, b, x, wb, xb))
    f = jacrev(lambda v: torch.tanh(W @ v + B))
    g = vmap(jacrev(lambda row: torch.tanh(row @ WB)))
    return (lambda: f(X)), (lambda: g(XB))


def _tensorflow(tens, w, b, x, wb, xb):
    W, B, X, WB, XB = (tens.constant(a) for a in (w, b, x, wb, xb))

    def jacobian(v):
        with tens.GradientTape() as tape:
            tape.watch(v)
            y = tens.tanh(tens.linalg.matvec(W, v) + B)
        return tape.jacobian(y, v)

    def batch_jacobian(v):
        with tens.GradientTape() as tape:
            tape.watch(v)
            y = tens.tanh(tens.matmul(v, WB))
        return tape.batch_jacobian(y, v)

    fj, fb = tens.function(jacobian), tens.function(batch_jacobian)
    return [("TF eager", lambda: jacobian(X), lambda: batch_jacobian(XB)),
            ("TF tf.function", lambda: fj(X), lambda: fb(XB))]


def _jax(jax, w, b, x, wb, xb):
    """Jitted jacrev / vmap(jacrev) callables. W and b are arguments, not constants closed
    over, so that XLA cannot fold work on them at compile time; each call blocks until
    its result is computed. The callables compile in the harness' warm-up call."""
    jnp = jax.numpy
    W, B, X, WB, XB = (jnp.asarray(a) for a in (w, b, x, wb, xb))
    f = jax.jit(lambda W, B, v: jax.jacrev(lambda v: jnp.tanh(W @ v + B))(v))
    g = jax.jit(lambda WB, xs: jax.vmap(jax.jacrev(lambda row: jnp.tanh(row @ WB)))(xs))
    return (lambda: f(W, B, X).block_until_ready()), (lambda: g(WB, XB).block_until_ready())


# Untimed calls before each timed sample, for every implementation, for at
# least LEAD_IN_SECONDS: after the harness's cool-down sleep this VM's idle
# cores run slowly for several milliseconds (tapeflow's jacobian: the first
# 5-8 calls after a 0.25 s sleep took 0.8-1.6 ms each, then 0.16-0.18 ms), and
# a sample of 20 calls of ~0.2 ms would mostly time that. The reason for W2's
# LEAD_IN_STEPS; a time here, since these calls are short.
LEAD_IN_SECONDS = 0.02


def _repeat(fn, inner):
    """A callable that calls `fn` untimed for LEAD_IN_SECONDS, then `inner`
    times, and returns the seconds of the `inner` calls as a Figure."""
    def run():
        lead_in_end = time.perf_counter() + LEAD_IN_SECONDS
        while time.perf_counter() < lead_in_end:
            fn()
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        return Figure(time.perf_counter() - t0)
    return run


def run(ctx):
    n, batch = 256, 64
    w, b, x, wb, xb = _data(n, batch)
    jac, bjac = _tapeflow(w, b, x, wb, xb)
    got_j, got_b = jac().numpy(), bjac().numpy()
    want_j, want_b = ref.jacobian_dense_tanh(w, x, b), ref.batch_jacobian_tanh(xb, wb)
    ok = np.allclose(got_j, want_j, atol=1e-5) and np.allclose(got_b, want_b, atol=1e-5)
    ctx.note(f"W4: tapeflow jacobians {'match' if ok else 'DO NOT MATCH'} the closed forms "
             f"(max abs diff {np.abs(got_j - want_j).max():.1e}, "
             f"{np.abs(got_b - want_b).max():.1e}).")
    full = [("tapeflow eager", "tapeflow", jac),
            ("NumPy closed form", "numpy", lambda: ref.jacobian_dense_tanh(w, x, b))]
    batched = [("tapeflow eager", "tapeflow", bjac),
               ("NumPy closed form", "numpy", lambda: ref.batch_jacobian_tanh(xb, wb))]
    torch = ctx.peer("torch")
    if torch is not None:
        f, g = _torch(torch, w, b, x, wb, xb)
        full.append(("PyTorch func.jacrev", "torch", f))
        batched.append(("PyTorch vmap(jacrev)", "torch", g))
    tens = ctx.peer("tensorflow")
    if tens is not None:
        for name, f, g in _tensorflow(tens, w, b, x, wb, xb):
            full.append((name, "tensorflow", f))
            batched.append((name, "tensorflow", g))
    jax = ctx.peer("jax")
    if jax is not None:
        f, g = _jax(jax, w, b, x, wb, xb)
        jj, jb = np.asarray(f()), np.asarray(g())
        ok = (jj.dtype == jb.dtype == np.float32 and np.allclose(jj, want_j, atol=1e-5)
              and np.allclose(jb, want_b, atol=1e-5))
        ctx.note(f"W4: JAX jacobians {'match' if ok else 'DO NOT MATCH'} the closed forms "
                 f"({jj.dtype}, max abs diff {np.abs(jj - want_j).max():.1e}, "
                 f"{np.abs(jb - want_b).max():.1e}).")
        full.append(("JAX jit(jacrev)", "jax", f))
        batched.append(("JAX jit(vmap(jacrev))", "jax", g))
    inner = 2 if ctx.quick else 20  # calls per sample, so a sample is well above timer noise
    rows = []
    for case, impls in (("jacobian 256x256", full), ("batch_jacobian 64x64x64", batched)):
        impls = [(name, family, _repeat(fn, inner)) for name, family, fn in impls]
        rows += measure(ctx, ID, case, "ms", impls, scale=1e3 / inner,
                        repeats=2 if ctx.quick else ctx.repeats)
    return rows
