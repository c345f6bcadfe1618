"""Convolutional Neural Network (CNN).

Source: https://www.tensorflow.org/tutorials/images/cnn
(github.com/tensorflow/docs, site/en/tutorials/images/cnn.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf` (so `from tapeflow.keras import datasets, layers,
models`); CIFAR-10's download replaced by synthetic data of the same shapes and types
(uint8 images (n, 32, 32, 3), labels (n, 1) in 0..9: each class a colour and a stripe
orientation under noise), 500 images to train and 200 to test; 2 epochs instead of 10;
the plots left out.
"""

import numpy as np

import tapeflow as tf
from tapeflow.keras import layers, models


def _synthetic_cifar(n, rng):
    labels = rng.integers(0, 10, size=(n, 1)).astype(np.uint8)
    colours = np.random.default_rng(10).uniform(40, 215, size=(10, 3))  # one per class
    yy, xx = np.mgrid[0:32, 0:32]
    stripes = np.stack([np.sin((xx * np.cos(a) + yy * np.sin(a)) * 0.8)
                        for a in np.linspace(0, np.pi, 10, endpoint=False)])
    images = colours[labels[:, 0], None, None, :] + 40 * stripes[labels[:, 0], :, :, None]
    images = images + rng.normal(0, 40, size=images.shape)
    return np.clip(images, 0, 255).astype(np.uint8), labels


def test_images_cnn():
    tf.random.set_seed(0)
    rng = np.random.default_rng(0)
    train_images, train_labels = _synthetic_cifar(500, rng)
    test_images, test_labels = _synthetic_cifar(200, rng)
    train_images, test_images = train_images / 255.0, test_images / 255.0

    model = models.Sequential()
    model.add(layers.Conv2D(32, (3, 3), activation='relu', input_shape=(32, 32, 3)))
    model.add(layers.MaxPooling2D((2, 2)))
    model.add(layers.Conv2D(64, (3, 3), activation='relu'))
    model.add(layers.MaxPooling2D((2, 2)))
    model.add(layers.Conv2D(64, (3, 3), activation='relu'))
    model.summary()
    assert model(np.zeros((1, 32, 32, 3))).shape == (1, 4, 4, 64)  # the summary in the text

    model.add(layers.Flatten())
    model.add(layers.Dense(64, activation='relu'))
    model.add(layers.Dense(10))
    model.summary()
    assert model.count_params() == 122570  # "Total params: 122,570" in the text

    model.compile(optimizer='adam',
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=['accuracy'])
    history = model.fit(train_images, train_labels, epochs=2, verbose=0,
                        validation_data=(test_images, test_labels))
    test_loss, test_acc = model.evaluate(test_images,  test_labels, verbose=2)
    losses = history.history["loss"]
    assert losses[-1] < losses[0], losses
    assert set(history.history) >= {"accuracy", "val_accuracy", "val_loss"}
    assert test_acc > 0.6, test_acc  # chance is 0.1
