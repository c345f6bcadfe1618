"""TensorFlow 2 quickstart for beginners.

Source: https://www.tensorflow.org/tutorials/quickstart/beginner
(github.com/tensorflow/docs, site/en/tutorials/quickstart/beginner.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf`; the data are the real MNIST test files (4000 of them
to train, 2000 held out) instead of `mnist.load_data()`'s download; 5 epochs as in the text.
"""

import numpy as np

import tapeflow as tf


def test_quickstart_beginner(mnist_split):
    tf.random.set_seed(0)
    (x_train, y_train), (x_test, y_test) = mnist_split
    x_train, y_train = x_train[:4000], y_train[:4000]
    x_train, x_test = x_train / 255.0, x_test / 255.0

    model = tf.keras.models.Sequential([
      tf.keras.layers.Flatten(input_shape=(28, 28)),
      tf.keras.layers.Dense(128, activation='relu'),
      tf.keras.layers.Dropout(0.2),
      tf.keras.layers.Dense(10)
    ])
    predictions = model(x_train[:1]).numpy()
    probabilities = tf.nn.softmax(predictions).numpy()
    loss_fn = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    initial_loss = loss_fn(y_train[:1], predictions).numpy()
    # The text: "This untrained model gives probabilities close to random (1/10 for each
    # class), so the initial loss should be close to -tf.math.log(1/10) ~= 2.3."
    assert predictions.shape == (1, 10)
    np.testing.assert_allclose(probabilities.sum(), 1.0, rtol=1e-5)
    assert 1.3 < initial_loss < 3.3, initial_loss

    model.compile(optimizer='adam',
                  loss=loss_fn,
                  metrics=['accuracy'])
    history = model.fit(x_train, y_train, epochs=5, verbose=0)
    test_loss, test_acc = model.evaluate(x_test,  y_test, verbose=2)

    probability_model = tf.keras.Sequential([
      model,
      tf.keras.layers.Softmax()
    ])
    probs = probability_model(x_test[:5]).numpy()

    losses = history.history["loss"]
    assert losses[-1] < losses[0] < 1.0, losses
    # The text reports ~98% on 60,000 images after 5 epochs; 4000 images here.
    assert test_acc > 0.90, test_acc
    assert probs.shape == (5, 10)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-5)
    assert (probs.argmax(axis=1) == y_test[:5]).mean() >= 0.8
