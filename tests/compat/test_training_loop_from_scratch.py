"""Writing a training loop from scratch (the Keras guide of the TF 2 era).

Source: https://keras.io/guides/writing_a_training_loop_from_scratch/
(github.com/keras-team/keras-io, guides/writing_a_training_loop_from_scratch.py at
commit 02743a2aafd542d9bad4b4a54b8f64d327ca171b, "Last modified: 2020/04/15", the
tf.keras version; Apache License 2.0).

Changes: `import tapeflow as tf` / `from tapeflow import keras` / `from tapeflow.keras
import layers`; the data are the real MNIST test files (8000 images, the last 2000 of
them held out for validation where the guide reserves 10,000 of 60,000) instead of
`keras.datasets.mnist.load_data()`'s download; the GAN's loop runs 3 steps of 8 images instead of
12 of 64 and writes its image in a temporary directory. The values printed are asserted.
"""

import os
import time

import numpy as np

import tapeflow as tf
from tapeflow import keras
from tapeflow.keras import layers


def test_training_loop_from_scratch(mnist_split):
    tf.random.set_seed(0)
    inputs = keras.Input(shape=(784,), name="digits")
    x1 = layers.Dense(64, activation="relu")(inputs)
    x2 = layers.Dense(64, activation="relu")(x1)
    outputs = layers.Dense(10, name="predictions")(x2)
    model = keras.Model(inputs=inputs, outputs=outputs)

    optimizer = keras.optimizers.SGD(learning_rate=1e-3)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    batch_size = 64
    (x_train, y_train), (x_test, y_test) = mnist_split
    x_train = np.reshape(x_train, (-1, 784))
    x_test = np.reshape(x_test, (-1, 784))
    train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train))
    train_dataset = train_dataset.shuffle(buffer_size=1024).batch(batch_size)

    first_losses = []
    epochs = 2
    for epoch in range(epochs):
        print("\nStart of epoch %d" % (epoch,))
        for step, (x_batch_train, y_batch_train) in enumerate(train_dataset):
            with tf.GradientTape() as tape:
                logits = model(x_batch_train, training=True)  # Logits for this minibatch
                loss_value = loss_fn(y_batch_train, logits)
            grads = tape.gradient(loss_value, model.trainable_weights)
            optimizer.apply_gradients(zip(grads, model.trainable_weights))
            first_losses.append(float(loss_value))
            if step % 200 == 0:
                print(
                    "Training loss (for one batch) at step %d: %.4f"
                    % (step, float(loss_value))
                )
                print("Seen so far: %s samples" % ((step + 1) * 64))
    assert len(first_losses) == 2 * 125
    assert np.mean(first_losses[-20:]) < 0.5 * np.mean(first_losses[:5]), first_losses[:5]

    # Get model
    inputs = keras.Input(shape=(784,), name="digits")
    x = layers.Dense(64, activation="relu", name="dense_1")(inputs)
    x = layers.Dense(64, activation="relu", name="dense_2")(x)
    outputs = layers.Dense(10, name="predictions")(x)
    model = keras.Model(inputs=inputs, outputs=outputs)

    optimizer = keras.optimizers.SGD(learning_rate=1e-3)
    loss_fn = keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    train_acc_metric = keras.metrics.SparseCategoricalAccuracy()
    val_acc_metric = keras.metrics.SparseCategoricalAccuracy()

    # Reserve 2,000 samples for validation.
    x_val = x_train[-2000:]
    y_val = y_train[-2000:]
    x_train = x_train[:-2000]
    y_train = y_train[:-2000]
    train_dataset = tf.data.Dataset.from_tensor_slices((x_train, y_train))
    train_dataset = train_dataset.shuffle(buffer_size=1024).batch(batch_size)
    val_dataset = tf.data.Dataset.from_tensor_slices((x_val, y_val))
    val_dataset = val_dataset.batch(64)

    val_accs = []
    epochs = 2
    for epoch in range(epochs):
        print("\nStart of epoch %d" % (epoch,))
        start_time = time.time()
        for step, (x_batch_train, y_batch_train) in enumerate(train_dataset):
            with tf.GradientTape() as tape:
                logits = model(x_batch_train, training=True)
                loss_value = loss_fn(y_batch_train, logits)
            grads = tape.gradient(loss_value, model.trainable_weights)
            optimizer.apply_gradients(zip(grads, model.trainable_weights))
            train_acc_metric.update_state(y_batch_train, logits)
        train_acc = train_acc_metric.result()
        print("Training acc over epoch: %.4f" % (float(train_acc),))
        train_acc_metric.reset_states()
        assert float(train_acc_metric.result()) == 0.0
        for x_batch_val, y_batch_val in val_dataset:
            val_logits = model(x_batch_val, training=False)
            val_acc_metric.update_state(y_batch_val, val_logits)
        val_acc = val_acc_metric.result()
        val_acc_metric.reset_states()
        print("Validation acc: %.4f" % (float(val_acc),))
        print("Time taken: %.2fs" % (time.time() - start_time))
        val_accs.append(float(val_acc))
    assert val_accs[-1] > 0.5, val_accs  # chance is 0.1 (the guide, on 50,000 images: ~0.8)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss_value = loss_fn(y, logits)
        grads = tape.gradient(loss_value, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        train_acc_metric.update_state(y, logits)
        return loss_value

    @tf.function
    def test_step(x, y):
        val_logits = model(x, training=False)
        val_acc_metric.update_state(y, val_logits)

    for epoch in range(2):
        for step, (x_batch_train, y_batch_train) in enumerate(train_dataset):
            loss_value = train_step(x_batch_train, y_batch_train)
        train_acc = train_acc_metric.result()
        train_acc_metric.reset_states()
        for x_batch_val, y_batch_val in val_dataset:
            test_step(x_batch_val, y_batch_val)
        val_acc = val_acc_metric.result()
        val_acc_metric.reset_states()
        print("Validation acc: %.4f" % (float(val_acc),))
    assert float(val_acc) >= val_accs[-1] - 0.02, (float(val_acc), val_accs)

    class ActivityRegularizationLayer(layers.Layer):
        def call(self, inputs):
            self.add_loss(1e-2 * tf.reduce_sum(inputs))
            return inputs

    inputs = keras.Input(shape=(784,), name="digits")
    x = layers.Dense(64, activation="relu")(inputs)
    x = ActivityRegularizationLayer()(x)
    x = layers.Dense(64, activation="relu")(x)
    outputs = layers.Dense(10, name="predictions")(x)
    model = keras.Model(inputs=inputs, outputs=outputs)

    @tf.function
    def train_step(x, y):
        with tf.GradientTape() as tape:
            logits = model(x, training=True)
            loss_value = loss_fn(y, logits)
            loss_value += sum(model.losses)
        grads = tape.gradient(loss_value, model.trainable_weights)
        optimizer.apply_gradients(zip(grads, model.trainable_weights))
        train_acc_metric.update_state(y, logits)
        return loss_value

    xb, yb = x_train[:64].astype("float32"), y_train[:64]
    first = [layer for layer in model.layers if isinstance(layer, layers.Dense)][0]
    hidden = np.maximum(xb @ first.kernel.numpy() + first.bias.numpy(), 0)
    expected = float(loss_fn(yb, model(xb))) + 1e-2 * hidden.sum()
    np.testing.assert_allclose(float(train_step(xb, yb)), expected, rtol=1e-3)
    assert len(model.losses) == 1


def test_gan_training_loop_from_scratch(mnist_split, tmp_path):
    tf.random.set_seed(0)
    discriminator = keras.Sequential(
        [
            keras.Input(shape=(28, 28, 1)),
            layers.Conv2D(64, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(alpha=0.2),
            layers.Conv2D(128, (3, 3), strides=(2, 2), padding="same"),
            layers.LeakyReLU(alpha=0.2),
            layers.GlobalMaxPooling2D(),
            layers.Dense(1),
        ],
        name="discriminator",
    )
    discriminator.summary()
    latent_dim = 128
    generator = keras.Sequential(
        [
            keras.Input(shape=(latent_dim,)),
            layers.Dense(7 * 7 * 128),
            layers.LeakyReLU(alpha=0.2),
            layers.Reshape((7, 7, 128)),
            layers.Conv2DTranspose(128, (4, 4), strides=(2, 2), padding="same"),
            layers.LeakyReLU(alpha=0.2),
            layers.Conv2DTranspose(128, (4, 4), strides=(2, 2), padding="same"),
            layers.LeakyReLU(alpha=0.2),
            layers.Conv2D(1, (7, 7), padding="same", activation="sigmoid"),
        ],
        name="generator",
    )
    d_optimizer = keras.optimizers.Adam(learning_rate=0.0003)
    g_optimizer = keras.optimizers.Adam(learning_rate=0.0004)
    loss_fn = keras.losses.BinaryCrossentropy(from_logits=True)
    batch_size = 8

    @tf.function
    def train_step(real_images):
        random_latent_vectors = tf.random.normal(shape=(batch_size, latent_dim))
        generated_images = generator(random_latent_vectors)
        combined_images = tf.concat([generated_images, real_images], axis=0)
        labels = tf.concat(
            [tf.ones((batch_size, 1)), tf.zeros((real_images.shape[0], 1))], axis=0
        )
        labels += 0.05 * tf.random.uniform(labels.shape)
        with tf.GradientTape() as tape:
            predictions = discriminator(combined_images)
            d_loss = loss_fn(labels, predictions)
        grads = tape.gradient(d_loss, discriminator.trainable_weights)
        d_optimizer.apply_gradients(zip(grads, discriminator.trainable_weights))
        random_latent_vectors = tf.random.normal(shape=(batch_size, latent_dim))
        misleading_labels = tf.zeros((batch_size, 1))
        with tf.GradientTape() as tape:
            predictions = discriminator(generator(random_latent_vectors))
            g_loss = loss_fn(misleading_labels, predictions)
        grads = tape.gradient(g_loss, generator.trainable_weights)
        g_optimizer.apply_gradients(zip(grads, generator.trainable_weights))
        return d_loss, g_loss, generated_images

    (x_train, _), (x_test, _) = mnist_split
    all_digits = np.concatenate([x_train, x_test])
    all_digits = all_digits.astype("float32") / 255.0
    all_digits = np.reshape(all_digits, (-1, 28, 28, 1))
    dataset = tf.data.Dataset.from_tensor_slices(all_digits)
    dataset = dataset.shuffle(buffer_size=1024).batch(batch_size)
    save_dir = str(tmp_path)
    for step, real_images in enumerate(dataset):
        d_loss, g_loss, generated_images = train_step(real_images)
        assert generated_images.shape == (8, 28, 28, 1)
        assert np.isfinite(float(d_loss)) and np.isfinite(float(g_loss))
        if step % 200 == 0:
            print("discriminator loss at step %d: %.2f" % (step, d_loss))
            print("adversarial loss at step %d: %.2f" % (step, g_loss))
            img = tf.keras.preprocessing.image.array_to_img(
                generated_images[0] * 255.0, scale=False
            )
            img.save(os.path.join(save_dir, "generated_img" + str(step) + ".png"))
        if step > 1:
            break
    assert os.path.exists(os.path.join(save_dir, "generated_img0.png"))
