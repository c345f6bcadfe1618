"""A training program run under `mpiexec -n N` (and alone, as the reference) by
test_mpi.py. Each rank seeds its initialisers differently, so the runs agree
only if rank 0's weights really are broadcast. Usage:

    python mpi_program.py MODE MODEL SHUFFLE OUT.npz

MODE: fit | loop | raise | backup; MODEL: dense | conv | embedding | syncbn; SHUFFLE: 0 | 1.
Rank 0 (or the lone process) writes the final weights and the history to OUT; in
backup mode every rank writes OUT.<rank>.npz, and the job is interrupted (every
rank raises) after its second epoch when OUT's folder holds a file named 'interrupt'.
"""

import os

import sys

import numpy as np

import tapeflow as tf

MODE, KIND, SHUFFLE, OUT = sys.argv[1], sys.argv[2], sys.argv[3] == "1", sys.argv[4]
GLOBAL_BATCH, SAMPLES, EPOCHS = 8, 42, 2  # 42 = 5 full batches + a short one of 2 rows


def data():
    rng = np.random.default_rng(0)
    if KIND == "embedding":
        x = rng.integers(0, 20, size=(SAMPLES, 6))
    elif KIND == "conv":
        x = rng.random((SAMPLES, 6, 6, 2), dtype=np.float32)
    else:
        x = rng.random((SAMPLES, 5), dtype=np.float32)
    y = rng.integers(0, 3, size=SAMPLES)
    return x, y


def build():
    layers = tf.keras.layers
    if KIND == "embedding":
        body = [layers.Embedding(20, 4), layers.GlobalAveragePooling1D()]
    elif KIND == "conv":
        body = [layers.Conv2D(3, 3, activation="relu"), layers.Flatten()]
    elif KIND == "syncbn":  # statistics of the global batch, as one process sees them
        # no bias before BN: its gradient is rounding noise, which Adam would amplify
        body = [layers.Dense(7, use_bias=False), layers.BatchNormalization(synchronized=True),
                layers.Activation("relu")]
    else:
        body = [layers.Dense(7, activation="relu")]
    return tf.keras.Sequential(body + [layers.Dense(3)])


strategy = tf.distribute.MultiWorkerMirroredStrategy()
rank = strategy.cluster_resolver.task_id
tf.random.set_seed(100 + rank)  # different on every rank: rank 0's weights must win
x, y = data()
with strategy.scope():
    model = build()
    model.compile(tf.keras.optimizers.Adam(0.01),
                  tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=["accuracy"])

if MODE == "backup":
    folder = os.path.dirname(OUT)
    interrupt = os.path.exists(os.path.join(folder, "interrupt"))

    class Interrupt(tf.keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            if interrupt and epoch == 1:
                raise SystemExit(3)  # every rank stops, as a killed job would

    history = model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=4, shuffle=SHUFFLE, verbose=0,
                        callbacks=[tf.keras.callbacks.BackupAndRestore(
                            os.path.join(folder, "backup")), Interrupt()])
    np.savez(f"{OUT}.{rank}.npz", *[w.numpy() for w in model.weights],
             epochs=np.asarray(len(history.history["loss"])))
    sys.exit(0)
elif MODE in ("fit", "raise"):
    callbacks = []
    if MODE == "raise":
        class Boom(tf.keras.callbacks.Callback):
            def on_train_batch_end(self, batch, logs=None):
                if rank == 1 and batch == 2:
                    raise RuntimeError("rank one fails on purpose")
        callbacks.append(Boom())
    history = model.fit(x, y, batch_size=GLOBAL_BATCH, epochs=EPOCHS, shuffle=SHUFFLE,
                        verbose=0, callbacks=callbacks, validation_data=(x[:10], y[:10]))
    logs = {k: np.asarray(v) for k, v in history.history.items()}
    evaluated = model.evaluate(x, y, batch_size=GLOBAL_BATCH, verbose=0, return_dict=True)
    logs.update({f"evaluate_{k}": np.asarray(v) for k, v in evaluated.items()})
    logs["predict"] = model.predict(x, batch_size=GLOBAL_BATCH, verbose=0)
else:  # a custom loop as TF's distributed training guide writes it
    with strategy.scope():  # built in the scope: the weights start from rank 0's
        model.build((None,) + x.shape[1:])
    optimizer = model.optimizer
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(
        from_logits=True, reduction="none")
    dataset = tf.data.Dataset.from_tensor_slices((x, y)).batch(GLOBAL_BATCH)
    dist_dataset = strategy.experimental_distribute_dataset(dataset)

    def train_step(inputs):
        features, labels = inputs
        with tf.GradientTape() as tape:
            predictions = model(features, training=True)
            loss = tf.nn.compute_average_loss(loss_object(labels, predictions),
                                              global_batch_size=GLOBAL_BATCH)
        gradients = tape.gradient(loss, model.trainable_variables)
        optimizer.apply_gradients(zip(gradients, model.trainable_variables))
        return loss

    losses = []
    for _ in range(EPOCHS):
        for batch in dist_dataset:
            if len(batch[1]) == 0:
                continue  # never the case here: every global batch has a row per rank
            per_replica = strategy.run(train_step, args=(batch,))
            losses.append(float(strategy.reduce(tf.distribute.ReduceOp.SUM, per_replica,
                                                axis=None)))
    logs = {"loss": np.asarray(losses)}

if strategy.is_chief:
    np.savez(OUT, *[w.numpy() for w in model.weights], **{f"log_{k}": v for k, v in logs.items()})
