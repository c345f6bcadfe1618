"""Save and load models.

Source: https://www.tensorflow.org/tutorials/keras/save_and_load
(github.com/tensorflow/docs, site/en/tutorials/keras/save_and_load.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf` and `from tapeflow import keras`; `!pip install` left
out and `!ls` / `!mkdir` done with os; every file is written in pytest's temporary
directory (the page's relative paths, run from there); MNIST is the real MNIST test set
beside the project (conftest's `mnist_split`: `load_data()`'s arrays, of which the page
keeps 1000 training and 1000 test images anyway); fewer epochs: 3 instead of 10 with the
checkpoint callback, 5 instead of 50 with its options (so the files are cp-0000 and
cp-0005), 2 instead of 5 in the other sections. One test
per section, each training its own model as the page does. What the page prints or says
is asserted: the files written, an untrained model near chance (10%), restored models
with the trained model's loss and accuracy.

The page's weight files are HDF5 (`.weights.h5`), which need the page's
`!pip install pyyaml h5py` (tapeflow's optional extra tapeflow[h5]): those sections are
skipped without h5py.
"""

import math
import os

import numpy as np
import pytest

import tapeflow as tf
from tapeflow import keras


@pytest.fixture
def mnist(mnist_split, tmp_path, monkeypatch):
    """The page's "Get an example dataset" cell, run in a temporary directory."""
    monkeypatch.chdir(tmp_path)
    tf.random.set_seed(0)
    (train_images, train_labels), (test_images, test_labels) = mnist_split

    train_labels = train_labels[:1000]
    test_labels = test_labels[:1000]

    train_images = train_images[:1000].reshape(-1, 28 * 28) / 255.0
    test_images = test_images[:1000].reshape(-1, 28 * 28) / 255.0
    return train_images, train_labels, test_images, test_labels


# Define a simple sequential model
def create_model():
  model = tf.keras.Sequential([
    keras.layers.Dense(512, activation='relu', input_shape=(784,)),
    keras.layers.Dropout(0.2),
    keras.layers.Dense(10)
  ])

  model.compile(optimizer='adam',
                loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
                metrics=[tf.keras.metrics.SparseCategoricalAccuracy()])

  return model


def test_define_a_model():
    print(tf.version.VERSION)
    assert isinstance(tf.version.VERSION, str)

    # Create a basic model instance
    model = create_model()

    # Display the model's architecture
    model.summary()
    assert model.count_params() == 784 * 512 + 512 + 512 * 10 + 10


def test_checkpoint_callback(mnist):
    pytest.importorskip("h5py")  # the page's `!pip install pyyaml h5py`
    train_images, train_labels, test_images, test_labels = mnist
    model = create_model()

    checkpoint_path = "training_1/cp.weights.h5" # Since you're only saving weights, you should use the .weights.h5 extension. If you're saving the whole model, you would use the .keras extension instead
    checkpoint_dir = os.path.dirname(checkpoint_path)

    # Create a callback that saves the model's weights
    cp_callback = tf.keras.callbacks.ModelCheckpoint(filepath=checkpoint_path,
                                                     save_weights_only=True,
                                                     verbose=1)

    # Train the model with the new callback
    model.fit(train_images,
              train_labels,
              epochs=3,
              validation_data=(test_images, test_labels),
              callbacks=[cp_callback])  # Pass callback to training
    trained_loss, trained_acc = model.evaluate(test_images, test_labels, verbose=2)

    print(os.listdir(checkpoint_dir))
    assert os.listdir(checkpoint_dir) == ['cp.weights.h5']

    # Create a basic model instance
    model = create_model()

    # Evaluate the model
    loss, acc = model.evaluate(test_images, test_labels, verbose=2)
    print("Untrained model, accuracy: {:5.2f}%".format(100 * acc))
    assert acc < 0.3, acc

    # Loads the weights
    model.load_weights(checkpoint_path)

    # Re-evaluate the model
    loss, acc = model.evaluate(test_images, test_labels, verbose=2)
    print("Restored model, accuracy: {:5.2f}%".format(100 * acc))
    assert acc > 0.8, acc
    assert (loss, acc) == pytest.approx((trained_loss, trained_acc), rel=1e-5)


def test_checkpoint_callback_options(mnist):
    pytest.importorskip("h5py")  # the page's `!pip install pyyaml h5py`
    train_images, train_labels, test_images, test_labels = mnist

    # Include the epoch in the file name (uses `str.format`)
    checkpoint_path = "training_2/cp-{epoch:04d}.weights.h5"
    checkpoint_dir = os.path.dirname(checkpoint_path)
    os.mkdir(checkpoint_dir)

    batch_size = 32

    # Calculate the number of batches per epoch
    n_batches = len(train_images) / batch_size
    n_batches = math.ceil(n_batches)    # round up the number of batches to the nearest whole integer

    # Create a callback that saves the model's weights every 5 epochs
    cp_callback = tf.keras.callbacks.ModelCheckpoint(
        filepath=checkpoint_path,
        verbose=1,
        save_weights_only=True,
        save_freq=5*n_batches)

    # Create a new model instance
    model = create_model()

    # Save the weights using the `checkpoint_path` format
    model.save_weights(checkpoint_path.format(epoch=0))

    # Train the model with the new callback
    model.fit(train_images,
              train_labels,
              epochs=5,
              batch_size=batch_size,
              callbacks=[cp_callback],
              validation_data=(test_images, test_labels),
              verbose=0)
    trained_loss, trained_acc = model.evaluate(test_images, test_labels, verbose=2)

    print(os.listdir(checkpoint_dir))
    assert sorted(os.listdir(checkpoint_dir)) == ['cp-0000.weights.h5', 'cp-0005.weights.h5']

    def load_latest_checkpoint(checkpoint_dir):
        latest = max(os.listdir(checkpoint_dir), key=lambda f: int(f.split('-')[1].split('.')[0]))
        return os.path.join(checkpoint_dir, latest)

    latest = load_latest_checkpoint(checkpoint_dir)
    assert latest == os.path.join('training_2', 'cp-0005.weights.h5')

    # Create a new model instance
    model = create_model()

    # Load the previously saved weights
    model.load_weights(latest)

    # Re-evaluate the model
    loss, acc = model.evaluate(test_images, test_labels, verbose=2)
    print("Restored model, accuracy: {:5.2f}%".format(100 * acc))
    assert (loss, acc) == pytest.approx((trained_loss, trained_acc), rel=1e-5)
    assert acc > 0.8, acc


def test_manually_save_weights(mnist):
    pytest.importorskip("h5py")  # the page's `!pip install pyyaml h5py`
    train_images, train_labels, test_images, test_labels = mnist
    model = create_model()
    model.fit(train_images, train_labels, epochs=2, verbose=0)
    trained_loss, trained_acc = model.evaluate(test_images, test_labels, verbose=2)

    # Save the weights
    os.mkdir('./checkpoints')
    model.save_weights('./checkpoints/my_checkpoint.weights.h5')

    # Create a new model instance
    model = create_model()

    # Restore the weights
    model.load_weights('./checkpoints/my_checkpoint.weights.h5')

    # Evaluate the model
    loss, acc = model.evaluate(test_images, test_labels, verbose=2)
    print("Restored model, accuracy: {:5.2f}%".format(100 * acc))
    assert (loss, acc) == pytest.approx((trained_loss, trained_acc), rel=1e-5)


def test_new_high_level_keras_format(mnist):
    train_images, train_labels, test_images, test_labels = mnist

    # Create and train a new model instance.
    model = create_model()
    model.fit(train_images, train_labels, epochs=2)
    trained_loss, trained_acc = model.evaluate(test_images, test_labels, verbose=2)

    # Save the entire model as a `.keras` zip archive.
    model.save('my_model.keras')

    new_model = tf.keras.models.load_model('my_model.keras')

    # Show the model architecture
    new_model.summary()
    assert [type(layer).__name__ for layer in new_model.layers] == ['Dense', 'Dropout', 'Dense']

    # Evaluate the restored model
    loss, acc = new_model.evaluate(test_images, test_labels, verbose=2)
    print('Restored model, accuracy: {:5.2f}%'.format(100 * acc))
    assert (loss, acc) == pytest.approx((trained_loss, trained_acc), rel=1e-5)
    assert acc > 0.75, acc

    print(new_model.predict(test_images).shape)
    assert new_model.predict(test_images).shape == (1000, 10)


def test_saved_model_format(mnist):
    train_images, train_labels, test_images, test_labels = mnist

    # Create and train a new model instance.
    model = create_model()
    model.fit(train_images, train_labels, epochs=2)
    expected = model.predict(test_images[:8])

    # Save the entire model as a SavedModel.
    os.makedirs('saved_model', exist_ok=True)  # !mkdir -p saved_model
    tf.saved_model.save(model, 'saved_model/my_model')

    # my_model directory
    print(os.listdir('saved_model'))
    assert os.listdir('saved_model') == ['my_model']
    # (TF: an assets folder, saved_model.pb, and variables folder; tapeflow writes its
    # own format, documented in tf.saved_model.save)
    print(os.listdir('saved_model/my_model'))
    assert os.listdir('saved_model/my_model')

    saved_model = tf.saved_model.load('saved_model/my_model')
    print(saved_model)
    # What TF 2.21's loaded object offers: the serving signature (output 'output_0').
    served = saved_model.signatures['serving_default'](tf.constant(test_images[:8], tf.float32))
    np.testing.assert_allclose(np.asarray(served['output_0']), expected, rtol=1e-5, atol=1e-6)


def test_hdf5_format(mnist):
    pytest.importorskip("h5py")  # the page's `!pip install pyyaml h5py`
    train_images, train_labels, test_images, test_labels = mnist

    # Create and train a new model instance.
    model = create_model()
    model.fit(train_images, train_labels, epochs=2)
    trained_loss, trained_acc = model.evaluate(test_images, test_labels, verbose=2)

    # Save the entire model to a HDF5 file.
    # The '.h5' extension indicates that the model should be saved to HDF5.
    model.save('my_model.h5')
    with open('my_model.h5', 'rb') as f:
      assert f.read(8) == b'\x89HDF\r\n\x1a\n', "not an HDF5 file"

    # Recreate the exact same model, including its weights and the optimizer
    new_model = tf.keras.models.load_model('my_model.h5')

    # Show the model architecture
    new_model.summary()

    loss, acc = new_model.evaluate(test_images, test_labels, verbose=2)
    print('Restored model, accuracy: {:5.2f}%'.format(100 * acc))
    assert (loss, acc) == pytest.approx((trained_loss, trained_acc), rel=1e-5)
