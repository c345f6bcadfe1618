"""Intro to Autoencoders (its first two parts: the basic and the denoising autoencoder).

Source: https://www.tensorflow.org/tutorials/generative/autoencoder
(github.com/tensorflow/docs, site/en/tutorials/generative/autoencoder.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf` (so `from tapeflow.keras... import`), the imports moved
into the test function; Fashion-MNIST's download replaced by data of the same shapes and
types, the real MNIST test files (2000 images to train, 500 to test); 3 epochs instead of
10; the plots left out; the third part (anomaly detection on ECG data, with pandas and
scikit-learn) left out.
"""

import numpy as np

import tapeflow as tf


def test_autoencoder(mnist_split):
    from tapeflow.keras import layers, losses
    from tapeflow.keras.datasets import fashion_mnist  # noqa: F401 (the data: mnist_split)
    from tapeflow.keras.models import Model
    tf.random.set_seed(0)

    (x_train, _), (x_test, _) = mnist_split
    x_train, x_test = x_train[:2000], x_test[:500]
    x_train = x_train.astype('float32') / 255.
    x_test = x_test.astype('float32') / 255.

    class Autoencoder(Model):
      def __init__(self, latent_dim, shape):
        super(Autoencoder, self).__init__()
        self.latent_dim = latent_dim
        self.shape = shape
        self.encoder = tf.keras.Sequential([
          layers.Flatten(),
          layers.Dense(latent_dim, activation='relu'),
        ])
        self.decoder = tf.keras.Sequential([
          layers.Dense(tf.math.reduce_prod(shape).numpy(), activation='sigmoid'),
          layers.Reshape(shape)
        ])

      def call(self, x):
        encoded = self.encoder(x)
        decoded = self.decoder(encoded)
        return decoded

    shape = x_test.shape[1:]
    latent_dim = 64
    autoencoder = Autoencoder(latent_dim, shape)
    autoencoder.compile(optimizer='adam', loss=losses.MeanSquaredError())
    history = autoencoder.fit(x_train, x_train,
                              epochs=3,
                              shuffle=True,
                              validation_data=(x_test, x_test), verbose=0)
    encoded_imgs = autoencoder.encoder(x_test).numpy()
    decoded_imgs = autoencoder.decoder(encoded_imgs).numpy()
    assert encoded_imgs.shape == (500, 64) and decoded_imgs.shape == (500, 28, 28)
    baseline = np.mean((x_test - x_train.mean(axis=0)) ** 2)  # predicting the mean image
    assert history.history['val_loss'][-1] < 0.8 * baseline, (history.history, baseline)

    x_train = x_train[..., tf.newaxis]
    x_test = x_test[..., tf.newaxis]
    assert x_train.shape == (2000, 28, 28, 1)

    noise_factor = 0.2
    x_train_noisy = x_train + noise_factor * tf.random.normal(shape=x_train.shape)
    x_test_noisy = x_test + noise_factor * tf.random.normal(shape=x_test.shape)
    x_train_noisy = tf.clip_by_value(x_train_noisy, clip_value_min=0., clip_value_max=1.)
    x_test_noisy = tf.clip_by_value(x_test_noisy, clip_value_min=0., clip_value_max=1.)

    class Denoise(Model):
      def __init__(self):
        super(Denoise, self).__init__()
        self.encoder = tf.keras.Sequential([
          layers.Input(shape=(28, 28, 1)),
          layers.Conv2D(16, (3, 3), activation='relu', padding='same', strides=2),
          layers.Conv2D(8, (3, 3), activation='relu', padding='same', strides=2)])
        self.decoder = tf.keras.Sequential([
          layers.Conv2DTranspose(8, kernel_size=3, strides=2, activation='relu', padding='same'),
          layers.Conv2DTranspose(16, kernel_size=3, strides=2, activation='relu', padding='same'),
          layers.Conv2D(1, kernel_size=(3, 3), activation='sigmoid', padding='same')])

      def call(self, x):
        encoded = self.encoder(x)
        decoded = self.decoder(encoded)
        return decoded

    autoencoder = Denoise()
    autoencoder.compile(optimizer='adam', loss=losses.MeanSquaredError())
    history = autoencoder.fit(x_train_noisy, x_train,
                              epochs=3,
                              shuffle=True,
                              validation_data=(x_test_noisy, x_test), verbose=0)
    autoencoder.encoder.summary()
    autoencoder.decoder.summary()
    encoded_imgs = autoencoder.encoder(x_test_noisy).numpy()
    decoded_imgs = autoencoder.decoder(encoded_imgs).numpy()
    assert encoded_imgs.shape == (500, 7, 7, 8) and decoded_imgs.shape == (500, 28, 28, 1)
    losses_, val_losses = history.history['loss'], history.history['val_loss']
    assert losses_[-1] < losses_[0] and val_losses[-1] < val_losses[0], history.history
