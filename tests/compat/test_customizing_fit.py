"""Customizing what happens in `fit()` (the Keras guide of the TF 2 era).

Source: https://keras.io/guides/customizing_what_happens_in_fit/
(github.com/keras-team/keras-io, guides/customizing_what_happens_in_fit.py at commit
02531ac33e5882774aa0a11b4ddf3c7b3a82fa42, "Last modified: 2020/04/15", the tf.keras
version; Apache License 2.0).

Changes: `import tapeflow as tf` / `from tapeflow import keras`; data as in the guide
(random arrays), seeded; the GAN trains on the real MNIST test files (3 batches of 8
instead of 100 batches of 64) and is its own test; the outcomes are asserted.
"""

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras


def test_customizing_fit():
    tf.random.set_seed(0)
    np.random.seed(0)

    class CustomModel(keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)  # Forward pass
                loss = self.compiled_loss(y, y_pred, regularization_losses=self.losses)
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)
            self.optimizer.apply_gradients(zip(gradients, trainable_vars))
            self.compiled_metrics.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    x = np.random.random((1000, 32))
    y = np.random.random((1000, 1))
    history = model.fit(x, y, epochs=3, verbose=0)
    assert set(history.history) == {"loss", "mae"}, history.history
    assert history.history["loss"][-1] < history.history["loss"][0], history.history

    loss_tracker = keras.metrics.Mean(name="loss")
    mae_metric = keras.metrics.MeanAbsoluteError(name="mae")

    class CustomModel(keras.Model):
        def train_step(self, data):
            x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)  # Forward pass
                loss = keras.losses.mean_squared_error(y, y_pred)
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)
            self.optimizer.apply_gradients(zip(gradients, trainable_vars))
            loss_tracker.update_state(loss)
            mae_metric.update_state(y, y_pred)
            return {"loss": loss_tracker.result(), "mae": mae_metric.result()}

        @property
        def metrics(self):
            return [loss_tracker, mae_metric]

    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam")
    x = np.random.random((1000, 32))
    y = np.random.random((1000, 1))
    history = model.fit(x, y, epochs=5, verbose=0)
    losses = history.history["loss"]
    # the metrics are reset at each epoch: the per-epoch means fall
    assert losses[-1] < losses[0] and len(losses) == 5, losses

    class CustomModel(keras.Model):
        def train_step(self, data):
            if len(data) == 3:
                x, y, sample_weight = data
            else:
                x, y = data
            with tf.GradientTape() as tape:
                y_pred = self(x, training=True)  # Forward pass
                loss = self.compiled_loss(
                    y,
                    y_pred,
                    sample_weight=sample_weight,
                    regularization_losses=self.losses,
                )
            trainable_vars = self.trainable_variables
            gradients = tape.gradient(loss, trainable_vars)
            self.optimizer.apply_gradients(zip(gradients, trainable_vars))
            self.compiled_metrics.update_state(y, y_pred, sample_weight=sample_weight)
            return {m.name: m.result() for m in self.metrics}

    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(optimizer="adam", loss="mse", metrics=["mae"])
    x = np.random.random((1000, 32))
    y = np.random.random((1000, 1))
    sw = np.random.random((1000, 1))
    history = model.fit(x, y, sample_weight=sw, epochs=3, verbose=0)
    assert history.history["loss"][-1] < history.history["loss"][0], history.history

    class CustomModel(keras.Model):
        def test_step(self, data):
            x, y = data
            y_pred = self(x, training=False)
            self.compiled_loss(y, y_pred, regularization_losses=self.losses)
            self.compiled_metrics.update_state(y, y_pred)
            return {m.name: m.result() for m in self.metrics}

    inputs = keras.Input(shape=(32,))
    outputs = keras.layers.Dense(1)(inputs)
    model = CustomModel(inputs, outputs)
    model.compile(loss="mse", metrics=["mae"])
    x = np.random.random((1000, 32))
    y = np.random.random((1000, 1))
    loss, mae = model.evaluate(x, y, verbose=0)
    y_pred = model.predict(x, verbose=0)
    np.testing.assert_allclose(loss, np.mean((y - y_pred) ** 2), rtol=1e-4)
    np.testing.assert_allclose(mae, np.mean(np.abs(y - y_pred)), rtol=1e-4)


def test_customizing_fit_gan(mnist_split):
    from tapeflow.keras import layers
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

    class GAN(keras.Model):
        def __init__(self, discriminator, generator, latent_dim):
            super(GAN, self).__init__()
            self.discriminator = discriminator
            self.generator = generator
            self.latent_dim = latent_dim

        def compile(self, d_optimizer, g_optimizer, loss_fn):
            super(GAN, self).compile()
            self.d_optimizer = d_optimizer
            self.g_optimizer = g_optimizer
            self.loss_fn = loss_fn

        def train_step(self, real_images):
            if isinstance(real_images, tuple):
                real_images = real_images[0]
            batch_size = tf.shape(real_images)[0]
            random_latent_vectors = tf.random.normal(shape=(batch_size, self.latent_dim))
            generated_images = self.generator(random_latent_vectors)
            combined_images = tf.concat([generated_images, real_images], axis=0)
            labels = tf.concat(
                [tf.ones((batch_size, 1)), tf.zeros((batch_size, 1))], axis=0
            )
            labels += 0.05 * tf.random.uniform(tf.shape(labels))
            with tf.GradientTape() as tape:
                predictions = self.discriminator(combined_images)
                d_loss = self.loss_fn(labels, predictions)
            grads = tape.gradient(d_loss, self.discriminator.trainable_weights)
            self.d_optimizer.apply_gradients(
                zip(grads, self.discriminator.trainable_weights)
            )
            random_latent_vectors = tf.random.normal(shape=(batch_size, self.latent_dim))
            misleading_labels = tf.zeros((batch_size, 1))
            with tf.GradientTape() as tape:
                predictions = self.discriminator(self.generator(random_latent_vectors))
                g_loss = self.loss_fn(misleading_labels, predictions)
            grads = tape.gradient(g_loss, self.generator.trainable_weights)
            self.g_optimizer.apply_gradients(zip(grads, self.generator.trainable_weights))
            return {"d_loss": d_loss, "g_loss": g_loss}

    batch_size = 8
    (x_train, _), (x_test, _) = mnist_split
    all_digits = np.concatenate([x_train, x_test])
    all_digits = all_digits.astype("float32") / 255.0
    all_digits = np.reshape(all_digits, (-1, 28, 28, 1))
    dataset = tf.data.Dataset.from_tensor_slices(all_digits)
    dataset = dataset.shuffle(buffer_size=1024).batch(batch_size)

    gan = GAN(discriminator=discriminator, generator=generator, latent_dim=latent_dim)
    gan.compile(
        d_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
        g_optimizer=keras.optimizers.Adam(learning_rate=0.0003),
        loss_fn=keras.losses.BinaryCrossentropy(from_logits=True),
    )
    history = gan.fit(dataset.take(3), epochs=1, verbose=0)
    assert set(history.history) == {"d_loss", "g_loss"}
    assert all(np.isfinite(v[0]) for v in history.history.values())
