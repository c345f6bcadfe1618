"""W5 startup: wall seconds of `python -c "import tapeflow"` in a fresh
process, and of a tiny first fit (W2's model, 256 samples, one epoch) in a
fresh process with an empty (cold) and a filled (warm) Numba cache, next to
the same for NumPy by hand and the installed peers."""

import os
import shutil
import subprocess
import sys
import tempfile
import time

from _harness import Result, missing

ID = "W5"
_HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # benchmarks/

_DATA = """
import numpy as np
rng = np.random.default_rng(0)
x = rng.random((256, 784), dtype=np.float32)
y = rng.integers(0, 10, 256).astype(np.int64)
"""

FIT_SCRIPTS = {
    "tapeflow": _DATA + """
import tapeflow as tf
tf.random.set_seed(0)
model = tf.keras.Sequential([tf.keras.layers.Dense(512, activation="relu"),
                             tf.keras.layers.Dense(256, activation="relu"),
                             tf.keras.layers.Dense(10)])
model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, batch_size=128, epochs=1, verbose=0)
""",
    "numpy": _DATA + f"""
import sys
sys.path.insert(0, {_HERE!r})
import reference_numpy as ref
ref.train_epochs(ref.MLP((784, 512, 256, 10)), x, y, batch_size=128, epochs=1)
""",
    "torch": _DATA + """
import torch
model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 256),
                            torch.nn.ReLU(), torch.nn.Linear(256, 10))
opt = torch.optim.Adam(model.parameters(), lr=1e-3, eps=1e-7)
xt, yt = torch.from_numpy(x), torch.from_numpy(y)
for i in range(0, 256, 128):
    opt.zero_grad()
    torch.nn.functional.cross_entropy(model(xt[i:i + 128]), yt[i:i + 128]).backward()
    opt.step()
""",
    "tensorflow": _DATA + """
import tensorflow as tf
model = tf.keras.Sequential([tf.keras.layers.Dense(512, activation="relu"),
                             tf.keras.layers.Dense(256, activation="relu"),
                             tf.keras.layers.Dense(10)])
model.compile(optimizer=tf.keras.optimizers.Adam(1e-3),
              loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True))
model.fit(x, y, batch_size=128, epochs=1, verbose=0)
""",
    "jax": _DATA + """
import jax, jax.numpy as jnp
def init(key, sizes):
    params = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        lim = (6.0 / (a + b)) ** 0.5
        w = jax.random.uniform(jax.random.fold_in(key, i), (a, b), jnp.float32, -lim, lim)
        params.append((w, jnp.zeros(b, jnp.float32)))
    return params
def loss(params, xb, yb):
    h = xb
    for w, b in params[:-1]:
        h = jax.nn.relu(h @ w + b)
    logits = h @ params[-1][0] + params[-1][1]
    return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(logits), yb[:, None], 1))
tree = jax.tree_util
@jax.jit
def step(state, xb, yb):
    # W2's Adam(1e-3), Keras' formula and epsilon, as the other families' first fit
    params, m, v, t = state
    g = jax.grad(loss)(params, xb, yb)
    t = t + 1
    lr_t = 1e-3 * jnp.sqrt(1 - 0.999**t) / (1 - 0.9**t)
    m = tree.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
    v = tree.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
    params = tree.tree_map(lambda p, m, v: p - lr_t * m / (jnp.sqrt(v) + 1e-7), params, m, v)
    return params, m, v, t
params = init(jax.random.PRNGKey(0), (784, 512, 256, 10))
zeros = tree.tree_map(jnp.zeros_like, params)
state = (params, zeros, zeros, jnp.float32(0))
for i in range(0, 256, 128):
    state = step(state, x[i:i + 128], y[i:i + 128])
jax.block_until_ready(state)
""",
}

IMPORTS = {"tapeflow": "import tapeflow", "numpy": "import numpy", "torch": "import torch",
           "tensorflow": "import tensorflow", "jax": "import jax, jax.numpy"}
LABELS = {"tapeflow": "tapeflow", "numpy": "NumPy", "torch": "PyTorch", "tensorflow": "TF/Keras",
          "jax": "JAX jit"}


def _wall(code, env=None):
    """Wall seconds of a fresh `python -c code`; raises if it fails."""
    env = _bytecode_written(env or os.environ)
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - t0
    if done.returncode:
        raise RuntimeError(f"subprocess failed:\n{done.stderr[-2000:]}")
    return elapsed


def _bytecode_written(env):
    """`env` with Python writing bytecode caches. The peers were installed by pip, which
    compiles their bytecode; tapeflow runs from its checkout, and with
    PYTHONDONTWRITEBYTECODE set (as on this project's machines, 2026-12-08) each
    process compiled its ~210 imported modules from source, 0.26 s of a 0.6 s first
    fit (AMD Zen 4), a cost that no installed tapeflow pays."""
    env = dict(env)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _env(cache_dir):
    env = dict(os.environ)
    env["NUMBA_CACHE_DIR"] = cache_dir
    # JAX's persistent compilation cache; by default it keeps only compilations of over a
    # second, which would leave the warm run as cold as the first.
    env["JAX_COMPILATION_CACHE_DIR"] = cache_dir
    env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    return env


def run(ctx):
    repeats = 2 if ctx.quick else ctx.repeats
    families = ["tapeflow", "numpy"] + [p for p in ("torch", "tensorflow", "jax")
                                        if ctx.peer(p) is not None]
    imports = {f: [] for f in families}
    for r in range(repeats + 1):  # round 0 warms the OS file cache and is dropped
        k = r % len(families)
        for fam in families[k:] + families[:k]:
            t = _wall(IMPORTS[fam])
            if r:
                imports[fam].append(t)
    rows = [Result(ID, "import", f"{LABELS[f]} ({IMPORTS[f]})", f, "s", imports[f])
            for f in families]

    import tapeflow as tf
    absent = missing(tf, "keras.Sequential", "keras.layers.Dense", "keras.optimizers.Adam",
                     "keras.losses.SparseCategoricalCrossentropy")
    fit_families = [f for f in families if not (f == "tapeflow" and absent)]
    if absent:
        ctx.note(f"W5: first fit of tapeflow skipped: {', '.join(absent)} not available yet.")
    cold = {f: [] for f in fit_families}
    warm = {f: [] for f in fit_families}
    for r in range(1 if ctx.quick else 3):
        k = r % len(fit_families)
        for fam in fit_families[k:] + fit_families[:k]:
            if f"W5 {fam}" in ctx.errors:
                continue
            cache = tempfile.mkdtemp(prefix="w5-cache-")
            try:
                cold[fam].append(_wall(FIT_SCRIPTS[fam], _env(cache)))
                warm[fam].append(_wall(FIT_SCRIPTS[fam], _env(cache)))
            except RuntimeError as e:
                ctx.error(f"W5 {fam}", f"first fit of {fam} failed: {e}")
            finally:
                shutil.rmtree(cache, ignore_errors=True)
    for case, table in (("first fit, cache cold", cold), ("first fit, cache warm", warm)):
        rows += [Result(ID, case, LABELS[f], f, "s", table[f]) for f in fit_families
                 if table[f]]
    return rows
