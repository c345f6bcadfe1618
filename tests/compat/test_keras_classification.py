"""Basic classification: Classify images of clothing.

Source: https://www.tensorflow.org/tutorials/keras/classification
(github.com/tensorflow/docs, site/en/tutorials/keras/classification.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf`; Fashion-MNIST's download replaced by data of the same
shapes and types, the real MNIST test files (uint8 images 28x28, 10 classes: 4000 to
train, 2000 held out); 4 epochs instead of 10; the matplotlib plots left out.
"""

import numpy as np

import tapeflow as tf


def test_basic_classification(mnist_split):
    tf.random.set_seed(1)
    (train_images, train_labels), (test_images, test_labels) = mnist_split
    train_images, train_labels = train_images[:4000], train_labels[:4000]
    assert train_images.shape == (4000, 28, 28) and test_images.shape == (2000, 28, 28)

    train_images = train_images / 255.0
    test_images = test_images / 255.0

    model = tf.keras.Sequential([
        tf.keras.layers.Flatten(input_shape=(28, 28)),
        tf.keras.layers.Dense(128, activation='relu'),
        tf.keras.layers.Dense(10)
    ])
    model.compile(optimizer='adam',
                  loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                  metrics=['accuracy'])
    history = model.fit(train_images, train_labels, epochs=4, verbose=0)
    test_loss, test_acc = model.evaluate(test_images,  test_labels, verbose=2)
    print('\nTest accuracy:', test_acc)

    probability_model = tf.keras.Sequential([model,
                                             tf.keras.layers.Softmax()])
    predictions = probability_model.predict(test_images, verbose=0)
    assert predictions.shape == (2000, 10)
    np.testing.assert_allclose(predictions[0].sum(), 1.0, rtol=1e-5)
    assert np.argmax(predictions[0]) == test_labels[0]

    img = test_images[1]
    img = (np.expand_dims(img,0))
    assert img.shape == (1, 28, 28)
    predictions_single = probability_model.predict(img, verbose=0)
    assert predictions_single.shape == (1, 10)
    np.testing.assert_allclose(predictions_single[0], predictions[1], rtol=1e-4, atol=1e-6)

    acc = history.history["accuracy"]
    assert acc[-1] > acc[0], acc
    assert test_acc > 0.90, test_acc  # chance is 0.10
