"""Custom training: walkthrough (penguin classification).

Source: https://www.tensorflow.org/tutorials/customization/custom_training_walkthrough
(github.com/tensorflow/docs, site/en/tutorials/customization/custom_training_walkthrough.ipynb
at commit 7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf`; `tfds.load("penguins/processed", ...)` replaced by
`tf.data.Dataset.from_tensor_slices` over synthetic penguins of the same shapes and
types (334 examples, 4 float32 features scaled to [0, 1], labels int64 in 0..2; the
first 20% for test), and the `tfds.as_dataframe` previews left out; 40 epochs instead of
201; the plots left out.
"""

import numpy as np

import tapeflow as tf


def _penguins(rng, n=334):
    labels = rng.integers(0, 3, size=n)
    centres = np.array([[0.3, 0.7, 0.3, 0.3], [0.6, 0.7, 0.35, 0.35], [0.6, 0.3, 0.8, 0.75]])
    features = centres[labels] + rng.normal(0, 0.08, size=(n, 4))
    return np.clip(features, 0, 1).astype(np.float32), labels.astype(np.int64)


def test_custom_training_walkthrough():
    tf.random.set_seed(0)
    features_all, labels_all = _penguins(np.random.default_rng(0))
    class_names = ['Adélie', 'Chinstrap', 'Gentoo']
    n_test = len(labels_all) // 5
    ds_test = tf.data.Dataset.from_tensor_slices((features_all[:n_test], labels_all[:n_test]))
    ds_train = tf.data.Dataset.from_tensor_slices((features_all[n_test:], labels_all[n_test:]))
    assert isinstance(ds_test, tf.data.Dataset)

    ds_train_batch = ds_train.batch(32)
    features, labels = next(iter(ds_train_batch))
    assert features.shape == (32, 4) and labels.shape == (32,)

    model = tf.keras.Sequential([
      tf.keras.layers.Dense(10, activation=tf.nn.relu, input_shape=(4,)),  # input shape required
      tf.keras.layers.Dense(10, activation=tf.nn.relu),
      tf.keras.layers.Dense(3)
    ])
    predictions = model(features)
    np.testing.assert_allclose(tf.nn.softmax(predictions[:5]).numpy().sum(axis=1), 1.0, rtol=1e-5)
    print("Prediction: {}".format(tf.math.argmax(predictions, axis=1)))
    print("    Labels: {}".format(labels))

    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)

    def loss(model, x, y, training):
      y_ = model(x, training=training)
      return loss_object(y_true=y, y_pred=y_)

    l = loss(model, features, labels, training=False)
    print("Loss test: {}".format(l))

    def grad(model, inputs, targets):
      with tf.GradientTape() as tape:
        loss_value = loss(model, inputs, targets, training=True)
      return loss_value, tape.gradient(loss_value, model.trainable_variables)

    optimizer = tf.keras.optimizers.SGD(learning_rate=0.01)
    loss_value, grads = grad(model, features, labels)
    assert optimizer.iterations.numpy() == 0
    optimizer.apply_gradients(zip(grads, model.trainable_variables))
    assert optimizer.iterations.numpy() == 1
    # The text: one step lowers the loss on the same batch a little.
    assert loss(model, features, labels, training=True).numpy() < loss_value.numpy()

    train_loss_results = []
    train_accuracy_results = []
    num_epochs = 40
    for epoch in range(num_epochs):
      epoch_loss_avg = tf.keras.metrics.Mean()
      epoch_accuracy = tf.keras.metrics.SparseCategoricalAccuracy()
      for x, y in ds_train_batch:
        loss_value, grads = grad(model, x, y)
        optimizer.apply_gradients(zip(grads, model.trainable_variables))
        epoch_loss_avg.update_state(loss_value)  # Add current batch loss
        epoch_accuracy.update_state(y, model(x, training=True))
      train_loss_results.append(epoch_loss_avg.result())
      train_accuracy_results.append(epoch_accuracy.result())
      if epoch % 50 == 0:
        print("Epoch {:03d}: Loss: {:.3f}, Accuracy: {:.3%}".format(epoch,
                                                                    epoch_loss_avg.result(),
                                                                    epoch_accuracy.result()))
    assert float(train_loss_results[-1]) < float(train_loss_results[0]), train_loss_results

    test_accuracy = tf.keras.metrics.Accuracy()
    ds_test_batch = ds_test.batch(10)
    for (x, y) in ds_test_batch:
      logits = model(x, training=False)
      prediction = tf.math.argmax(logits, axis=1, output_type=tf.int64)
      test_accuracy(prediction, y)
    print("Test set accuracy: {:.3%}".format(test_accuracy.result()))
    assert float(test_accuracy.result()) > 0.6  # chance is 1/3
    pairs = tf.stack([y,prediction],axis=1)
    assert pairs.shape == (y.shape[0], 2) and pairs.dtype == tf.int64

    predict_dataset = tf.convert_to_tensor([
        [0.3, 0.8, 0.4, 0.5,],
        [0.4, 0.1, 0.8, 0.5,],
        [0.7, 0.9, 0.8, 0.4]
    ])
    predictions = model(predict_dataset, training=False)
    names = []
    for i, logits in enumerate(predictions):
      class_idx = tf.math.argmax(logits).numpy()
      p = tf.nn.softmax(logits)[class_idx]
      name = class_names[class_idx]
      names.append(name)
      print("Example {} prediction: {} ({:4.1f}%)".format(i, name, 100*p))
    assert len(names) == 3 and names[1] == 'Gentoo'  # the text: Adélie, Gentoo, Chinstrap
