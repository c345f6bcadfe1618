"""Simple MNIST convnet (keras-io).

Source: https://keras.io/examples/vision/mnist_convnet/
(github.com/keras-team/keras-io, examples/vision/mnist_convnet.py at commit
02cfe8063b505adc073986c91729f22039f77ad0, the tf.keras version; Apache License 2.0).

Changes: `from tapeflow import keras` / `from tapeflow.keras import layers` for the
tensorflow imports; the data are the real MNIST test files (2000 to train, 1000 held
out) instead of `keras.datasets.mnist.load_data()`'s download; 4 epochs instead of 15.
"""

import numpy as np

import tapeflow
from tapeflow import keras
from tapeflow.keras import layers


def test_mnist_convnet(mnist_split):
    tapeflow.random.set_seed(0)
    # Model / data parameters
    num_classes = 10
    input_shape = (28, 28, 1)

    (x_train, y_train), (x_test, y_test) = mnist_split
    x_train, y_train = x_train[:2000], y_train[:2000]
    x_test, y_test = x_test[:1000], y_test[:1000]

    # Scale images to the [0, 1] range
    x_train = x_train.astype("float32") / 255
    x_test = x_test.astype("float32") / 255
    # Make sure images have shape (28, 28, 1)
    x_train = np.expand_dims(x_train, -1)
    x_test = np.expand_dims(x_test, -1)
    print("x_train shape:", x_train.shape)

    # convert class vectors to binary class matrices
    y_train = keras.utils.to_categorical(y_train, num_classes)
    y_test = keras.utils.to_categorical(y_test, num_classes)
    assert y_train.shape == (2000, 10)

    model = keras.Sequential(
        [
            keras.Input(shape=input_shape),
            layers.Conv2D(32, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Conv2D(64, kernel_size=(3, 3), activation="relu"),
            layers.MaxPooling2D(pool_size=(2, 2)),
            layers.Flatten(),
            layers.Dropout(0.5),
            layers.Dense(num_classes, activation="softmax"),
        ]
    )
    model.summary()
    assert model.count_params() == 34826  # "Total params: 34,826" in the example

    batch_size = 128
    epochs = 4

    model.compile(loss="categorical_crossentropy", optimizer="adam", metrics=["accuracy"])
    history = model.fit(x_train, y_train, batch_size=batch_size, epochs=epochs,
                        validation_split=0.1, verbose=0)

    score = model.evaluate(x_test, y_test, verbose=0)
    print("Test loss:", score[0])
    print("Test accuracy:", score[1])
    losses = history.history["loss"]
    assert losses[-1] < losses[0], losses
    assert "val_accuracy" in history.history
    # The example reaches ~99% with 54,000 images and 15 epochs; 1800 and 4 here.
    assert score[1] > 0.8, score
