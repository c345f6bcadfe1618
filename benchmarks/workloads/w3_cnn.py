"""W3 cnn: Conv2D(32, 3, ReLU) - MaxPool 2 - Conv2D(64, 3, ReLU) - MaxPool 2 -
Flatten - Dense(10), sparse cross-entropy from logits, SGD(0.01, momentum
0.9), batch 64 of 28x28x1; training steps/s over 50 steps after warm-up for
tapeflow (`fit` and a GradientTape loop), NumPy im2col by hand and the peers."""

import numpy as np

import reference_numpy as ref
from _harness import measure
from workloads.w2_mlp import build_impls

ID = "W3"
TAPEFLOW_NEEDS = ("keras.Sequential", "keras.layers.Conv2D", "keras.layers.MaxPooling2D",
                  "keras.layers.Flatten", "keras.layers.Dense", "keras.optimizers.SGD",
                  "keras.losses.SparseCategoricalCrossentropy")


def keras_cnn(keras, **compile_options):
    """W3's network through a Keras-style API (tapeflow.keras or tf.keras), compiled
    (`compile_options`, jit_compile=True, go to `model.compile`)."""
    layers = keras.layers
    model = keras.Sequential([
        layers.Conv2D(32, 3, activation="relu"), layers.MaxPooling2D(2),
        layers.Conv2D(64, 3, activation="relu"), layers.MaxPooling2D(2),
        layers.Flatten(), layers.Dense(10)])
    model.compile(optimizer=keras.optimizers.SGD(0.01, momentum=0.9),
                  loss=keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  **compile_options)
    return model


def keras_cnn_tape_step(tf_module, model):
    """Hand-written GradientTape step with SGD(0.01, momentum 0.9)."""
    keras = tf_module.keras
    opt = keras.optimizers.SGD(0.01, momentum=0.9)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def step(xb, yb):
        with tf_module.GradientTape() as tape:
            loss = loss_fn(yb, model(xb, training=True))
        variables = model.trainable_variables
        opt.apply_gradients(zip(tape.gradient(loss, variables), variables))
        return loss
    return step


def torch_cnn(torch):
    """(model, step(xb, yb)) for PyTorch; NHWC NumPy batches viewed as NCHW (channels-last)."""
    nn = torch.nn
    model = nn.Sequential(nn.Conv2d(1, 32, 3), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(32, 64, 3), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Flatten(), nn.Linear(64 * 5 * 5, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)

    def step(xb, yb):
        xb, yb = torch.from_numpy(xb).permute(0, 3, 1, 2), torch.from_numpy(yb)
        opt.zero_grad(set_to_none=True)
        loss = nn.functional.cross_entropy(model(xb), yb)
        loss.backward()
        opt.step()
        return loss
    return model, step


def jax_cnn(jax, seed=0, init=None):
    """(predict, state, step(state, xb, yb) -> state) for JAX, Keras' SGD momentum by hand.

    Kernels are Glorot-uniform from `seed`, biases zero, unless `init` gives the
    parameters as reference_numpy.CNN.params does: [k1, b1, k2, b2, dense, bias].
    """
    jnp, lax = jax.numpy, jax.lax
    key = jax.random.PRNGKey(seed)

    def glorot(i, shape, fan_in, fan_out):
        lim = float(np.sqrt(6.0 / (fan_in + fan_out)))
        return jax.random.uniform(jax.random.fold_in(key, i), shape, jnp.float32, -lim, lim)

    f32 = jnp.float32  # explicit, so that JAX_ENABLE_X64=1 cannot turn the biases float64
    params = [glorot(0, (3, 3, 1, 32), 9, 9 * 32), jnp.zeros(32, f32),
              glorot(1, (3, 3, 32, 64), 9 * 32, 9 * 64), jnp.zeros(64, f32),
              glorot(2, (1600, 10), 1600, 10), jnp.zeros(10, f32)]
    if init is not None:
        params = [jnp.asarray(p, f32) for p in init]
    dims = ("NHWC", "HWIO", "NHWC")

    def pool(h):
        # lax.reduce_window, as flax.linen.max_pool and stax pool; its gradient
        # (select_and_scatter) is a large share of the step on XLA:CPU.
        return lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def predict(params, xb):
        k1, b1, k2, b2, wd, bd = params
        h = pool(jax.nn.relu(lax.conv_general_dilated(xb, k1, (1, 1), "VALID",
                                                      dimension_numbers=dims) + b1))
        h = pool(jax.nn.relu(lax.conv_general_dilated(h, k2, (1, 1), "VALID",
                                                      dimension_numbers=dims) + b2))
        return h.reshape(h.shape[0], -1) @ wd + bd

    def loss(params, xb, yb):
        logp = jax.nn.log_softmax(predict(params, xb))
        return -jnp.mean(jnp.take_along_axis(logp, yb[:, None], axis=1))

    @jax.jit
    def step(state, xb, yb):
        params, vel = state
        g = jax.grad(loss)(params, xb, yb)
        vel = [0.9 * v - 0.01 * d for v, d in zip(vel, g)]
        return [p + v for p, v in zip(params, vel)], vel

    return jax.jit(predict), (params, [jnp.zeros_like(p) for p in params]), step


def run(ctx):
    batch = 64
    steps, rounds = (2, 2) if ctx.quick else (10, 5)  # 5 chunks of 10 steps: 50 steps
    n = batch * steps * (rounds + 1)
    rng = np.random.default_rng(0)
    x = rng.random((n, 28, 28, 1), dtype=np.float32)
    y = rng.integers(0, 10, n).astype(np.int64)
    impls = build_impls(
        ctx, ID, x, y, batch, steps,
        make_numpy=lambda: ref.CNN(seed=0),
        keras_builder=keras_cnn,
        torch_builder=torch_cnn,
        jax_builder=lambda jax, init=None: jax_cnn(jax, init=init),
        needs=TAPEFLOW_NEEDS,
        tape_step=keras_cnn_tape_step)
    return measure(ctx, ID, "cnn train", "steps/s", impls, repeats=rounds,
                   higher_is_better=True)
