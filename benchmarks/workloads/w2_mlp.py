"""W2 mlp: Dense 784-512-256-10 (ReLU), softmax cross-entropy from logits,
Adam(1e-3), batch 128 of random MNIST-shaped data; training steps/s through
tapeflow's `fit` and a hand-written GradientTape loop, NumPy by hand and the
peers, interleaved chunk by chunk over one epoch. The model builders here
are shared with W7."""

import time

import numpy as np

import reference_numpy as ref
from _harness import Figure, measure, missing

ID = "W2"
SIZES = (784, 512, 256, 10)
# _check_jax: an element agrees when within 1e-4 of its array's largest magnitude. A few
# elements differ by more with a correct step: those of the ReLU units whose
# pre-activation is within float32 rounding of zero on some sample, so that the two
# implementations, summing in another order, disagree on whether the unit fired (about
# 0.1% of them in W2). A wrong formula (learning rate off by 0.1%, no bias correction, a
# summed loss) changes half of them or more.
JAX_CHECK_RTOL = 1e-4
JAX_CHECK_MAX_FRACTION = 0.01
TAPEFLOW_NEEDS = ("keras.Sequential", "keras.layers.Dense", "keras.optimizers.Adam",
                  "keras.losses.SparseCategoricalCrossentropy")


# ---- model builders (also used by W7) -------------------------------------

def keras_mlp(keras, sizes, learning_rate=1e-3, **compile_options):
    """A compiled Keras-API Sequential MLP (tapeflow.keras or tf.keras);
    `compile_options` (jit_compile=True) go to `model.compile`."""
    model = keras.Sequential([keras.layers.Dense(s, activation="relu") for s in sizes[1:-1]]
                             + [keras.layers.Dense(sizes[-1])])
    model.compile(optimizer=keras.optimizers.Adam(learning_rate),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  **compile_options)
    return model


def keras_tape_step(tf_module, model, learning_rate=1e-3):
    """A hand-written GradientTape training step for `model` (eager)."""
    keras = tf_module.keras
    opt = keras.optimizers.Adam(learning_rate)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(xb, yb):
        with tf_module.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        variables = model.trainable_variables
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss
    return step


def torch_mlp(torch, sizes, learning_rate=1e-3):
    """(model, step(xb, yb)) for PyTorch, taking NumPy batches; Adam with Keras' epsilon 1e-7."""
    nn = torch.nn
    mods = []
    for a, b in zip(sizes[:-2], sizes[1:-1]):
        mods += [nn.Linear(a, b), nn.ReLU()]
    model = nn.Sequential(*mods, nn.Linear(sizes[-2], sizes[-1]))
    opt = torch.optim.Adam(model.parameters(), lr=learning_rate, eps=1e-7)

    def step(xb, yb):
        xb, yb = torch.from_numpy(xb), torch.from_numpy(yb)
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        return loss
    return model, step


def jax_mlp(jax, sizes, seed=0, learning_rate=1e-3, init=None):
    """(predict(params, x), state, step(state, xb, yb) -> state) for JAX, Keras' Adam by hand.

    Weights are Glorot-uniform from `seed`, biases zero, unless `init` gives them as
    the flat list [kernel, bias, kernel, bias, ...] of reference_numpy.MLP.params.
    """
    jnp = jax.numpy
    key = jax.random.PRNGKey(seed)
    params = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        if init is not None:
            params.append((jnp.asarray(init[2 * i], jnp.float32),
                           jnp.asarray(init[2 * i + 1], jnp.float32)))
            continue
        lim = float(np.sqrt(6.0 / (a + b)))
        params.append((jax.random.uniform(jax.random.fold_in(key, i), (a, b), jnp.float32,
                                          -lim, lim), jnp.zeros(b, jnp.float32)))

    def predict(params, xb):
        h = xb
        for w, b in params[:-1]:
            h = jax.nn.relu(h @ w + b)
        return h @ params[-1][0] + params[-1][1]

    def loss(params, xb, yb):
        logp = jax.nn.log_softmax(predict(params, xb))
        return -jnp.mean(jnp.take_along_axis(logp, yb[:, None], axis=1))

    tree = jax.tree_util

    @jax.jit
    def step(state, xb, yb):
        params, m, v, t = state
        g = jax.grad(loss)(params, xb, yb)
        t = t + 1
        lr_t = learning_rate * jnp.sqrt(1 - 0.999**t) / (1 - 0.9**t)
        m = tree.tree_map(lambda m, g: 0.9 * m + 0.1 * g, m, g)
        v = tree.tree_map(lambda v, g: 0.999 * v + 0.001 * g * g, v, g)
        params = tree.tree_map(lambda p, m, v: p - lr_t * m / (jnp.sqrt(v) + 1e-7), params, m, v)
        return params, m, v, t

    zeros = tree.tree_map(jnp.zeros_like, params)
    return jax.jit(predict), (params, zeros, zeros, jnp.float32(0)), step


# ---- the workload -----------------------------------------------------------

class _Chunks:
    """Feeds successive chunks of `steps` batches, wrapping around the data."""

    def __init__(self, x, y, batch, steps):
        self.x, self.y, self.batch, self.steps = x, y, batch, steps
        self.pos = 0

    def next(self):
        span = self.batch * self.steps
        if self.pos + span > self.x.shape[0]:
            self.pos = 0
        i = self.pos
        self.pos += span
        return self.x[i:i + span], self.y[i:i + span]


# Untimed steps before each timed chunk. The harness sleeps before every timed
# call (see _harness.interleave), and on this virtual machine the idle second core
# then takes a few steps to wake: measured on W3, the first four steps after a
# 0.25 s pause took 11-24 ms against 8 ms in steady state. A training loop pays
# that once, not every 10 steps; every implementation gets the same lead-in.
LEAD_IN_STEPS = 3


def _timed_chunk(chunks, train_chunk):
    """A callable that trains one chunk and returns its steps/s as a Figure."""
    def call():
        xc, yc = chunks.next()
        lead = chunks.batch * LEAD_IN_STEPS
        train_chunk(xc[:lead], yc[:lead])
        t0 = time.perf_counter()
        train_chunk(xc, yc)
        return Figure(chunks.steps / (time.perf_counter() - t0))
    return call


def _fit_chunk(model, batch):
    """One epoch of `model.fit` over a chunk. A function, not a lambda inside
    build_impls: a lambda there would see `model` rebound to the next
    framework's model (Python closures bind late), which once made the
    'tapeflow fit' row time Keras's fit."""
    def train_chunk(xc, yc):
        model.fit(xc, yc, batch_size=batch, epochs=1, verbose=0, shuffle=False)
    return train_chunk


def _stepwise(step, batch):
    def train_chunk(xc, yc):
        for i in range(0, xc.shape[0], batch):
            step(xc[i:i + batch], yc[i:i + batch])
    return train_chunk


def _check_jax(ctx, workload, jax, jax_builder, make_numpy, x, y, batch, steps=3):
    """Notes whether JAX's training step computes what the NumPy one does: a few steps on
    the same batches from the same float32 weights must end with the same weights and
    optimizer slots (Adam's m and v, or the momentum velocity), to float32 rounding."""
    model = make_numpy()
    _, state, step = jax_builder(jax, init=[p.copy() for p in model.params])
    for i in range(steps):
        xb, yb = x[i * batch:(i + 1) * batch], y[i * batch:(i + 1) * batch]
        model.train_step(xb, yb)
        state = step(state, xb, yb)
    opt = model.optimizer
    want = model.params + (opt.m + opt.v if hasattr(opt, "m") else opt.v)
    # JAX's state is (params, m, v, t) or (params, velocity): its arrays in that order
    got = [np.asarray(a) for a in jax.tree_util.tree_leaves(state) if np.ndim(a)]
    if len(got) != len(want) or any(g.dtype != np.float32 or g.shape != w.shape
                                    for g, w in zip(got, want)):
        ctx.note(f"{workload}: JAX step state DOES NOT MATCH NumPy by hand: "
                 f"{[(g.dtype.name, g.shape) for g in got]} vs {[w.shape for w in want]}.")
        return
    off = sum(int((np.abs(g - w) > JAX_CHECK_RTOL * np.abs(w).max()).sum())
              for g, w in zip(got, want))
    fraction = off / sum(w.size for w in want)
    ok = fraction <= JAX_CHECK_MAX_FRACTION
    ctx.note(f"{workload}: JAX step {'matches' if ok else 'DOES NOT MATCH'} NumPy by hand: "
             f"after {steps} steps from the same float32 weights, {fraction:.2%} of weights "
             f"and optimizer slots differ by over {JAX_CHECK_RTOL:g} of their array's scale "
             f"(at most {JAX_CHECK_MAX_FRACTION:.0%} allowed).")


def matmul_floor_step(sizes, seed=0):
    """A step of only the MLP's matrix products (NumPy's `@`, BLAS): the forward's one per
    layer and the backward's weight and input gradients (none for the first layer's
    input), on gradients of the right shapes: the floor a training step cannot go under
    without faster products (issue 18's target is a fraction of it)."""
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal((a, b)).astype(np.float32) * 0.05
               for a, b in zip(sizes[:-1], sizes[1:])]

    def step(xb, yb):
        activations = [xb]
        for w in weights:
            activations.append(activations[-1] @ w)
        g = activations[-1]
        for i in range(len(weights) - 1, -1, -1):
            activations[i].T @ g  # the weight gradient
            if i:
                g = g @ weights[i].T
    return step


def build_impls(ctx, workload, x, y, batch, steps, make_numpy, keras_builder, torch_builder,
                jax_builder, needs, tape_step=None, floor_step=None):
    """The (name, family, callable) list shared by W2 and W3.

    `tape_step(tf_module, model)` builds the hand-written GradientTape step
    (W2's Adam step by default)."""
    tape_step = tape_step or keras_tape_step
    impls = []

    def add(name, family, train_chunk):
        impls.append((name, family, _timed_chunk(_Chunks(x, y, batch, steps), train_chunk)))

    import tapeflow as tf
    absent = missing(tf, *needs)
    if absent:
        ctx.note(f"{workload}: tapeflow skipped: {', '.join(absent)} not available yet.")
    else:
        tf.random.set_seed(0)
        add("tapeflow fit", "tapeflow", _fit_chunk(keras_builder(tf.keras), batch))
        # the step's elementwise runs generated as Numba code at once (by default they
        # are, once replaying them has cost what compiling them would)
        add("tapeflow fit (jit_compile=True)", "tapeflow",
            _fit_chunk(keras_builder(tf.keras, jit_compile=True), batch))
        add("tapeflow GradientTape loop", "tapeflow",
            _stepwise(tape_step(tf, keras_builder(tf.keras)), batch))
    add("NumPy by hand", "numpy", _stepwise(make_numpy().train_step, batch))
    if floor_step is not None:
        add("matmul-only floor", "numpy", _stepwise(floor_step, batch))
    torch = ctx.peer("torch")
    if torch is not None:
        torch.manual_seed(0)
        _, step = torch_builder(torch)
        add("PyTorch eager", "torch", _stepwise(step, batch))
    tens = ctx.peer("tensorflow")
    if tens is not None:
        tens.keras.utils.set_random_seed(0)
        add("TF Keras fit", "tensorflow", _fit_chunk(keras_builder(tens.keras), batch))
        add("TF eager GradientTape", "tensorflow",
            _stepwise(tape_step(tens, keras_builder(tens.keras)), batch))
        add("TF tf.function step", "tensorflow",
            _stepwise(tens.function(tape_step(tens, keras_builder(tens.keras))), batch))
    jax = ctx.peer("jax")
    if jax is not None:
        _check_jax(ctx, workload, jax, jax_builder, make_numpy, x, y, batch)
        _, state, step = jax_builder(jax)
        box = [state]

        def jax_chunk(xc, yc):
            # Dispatch is asynchronous: steps are queued as a JAX training loop does, and
            # the chunk (hence its timing) ends only when the last update has been computed.
            # The step compiles in the harness' warm-up chunk, outside the timed ones.
            for i in range(0, xc.shape[0], batch):
                box[0] = step(box[0], xc[i:i + batch], yc[i:i + batch])
            jax.block_until_ready(box[0])
        add("JAX jit step", "jax", jax_chunk)
    return impls


def run(ctx):
    batch = 128
    steps, rounds = (2, 2) if ctx.quick else (47, 10)  # 10 chunks of 47 steps: one epoch
    n = 60_000 if not ctx.quick else batch * steps * (rounds + 1)
    rng = np.random.default_rng(0)
    x = rng.random((n, SIZES[0]), dtype=np.float32)
    y = rng.integers(0, SIZES[-1], n).astype(np.int64)
    impls = build_impls(
        ctx, ID, x, y, batch, steps,
        make_numpy=lambda: ref.MLP(SIZES, seed=0),
        keras_builder=lambda keras, **options: keras_mlp(keras, SIZES, **options),
        torch_builder=lambda torch: torch_mlp(torch, SIZES),
        jax_builder=lambda jax, init=None: jax_mlp(jax, SIZES, init=init),
        needs=TAPEFLOW_NEEDS, floor_step=matmul_floor_step(SIZES))
    return measure(ctx, ID, "mlp train", "steps/s", impls, repeats=rounds,
                   higher_is_better=True)
