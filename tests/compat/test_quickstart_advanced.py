"""TensorFlow 2 quickstart for experts.

Source: https://www.tensorflow.org/tutorials/quickstart/advanced
(github.com/tensorflow/docs, site/en/tutorials/quickstart/advanced.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf` (so `from tapeflow.keras...`), the imports moved into
the test function (a module-level ImportError would be a collection error, not an xfail); the data are the real
MNIST test files (1500 to train, 500 held out) instead of `mnist.load_data()`'s
download; 2 epochs instead of 5; the metrics printed each epoch are kept and asserted.
"""


import tapeflow as tf


def test_quickstart_advanced(mnist_split):
    from tapeflow.keras.layers import Dense, Flatten, Conv2D
    from tapeflow.keras import Model
    tf.random.set_seed(0)
    (x_train, y_train), (x_test, y_test) = mnist_split
    x_train, y_train, x_test, y_test = x_train[:1500], y_train[:1500], x_test[:500], y_test[:500]
    x_train, x_test = x_train / 255.0, x_test / 255.0

    x_train = x_train[..., tf.newaxis].astype("float32")
    x_test = x_test[..., tf.newaxis].astype("float32")

    train_ds = tf.data.Dataset.from_tensor_slices(
        (x_train, y_train)).shuffle(10000).batch(32)
    test_ds = tf.data.Dataset.from_tensor_slices((x_test, y_test)).batch(32)

    class MyModel(Model):
      def __init__(self):
        super().__init__()
        self.conv1 = Conv2D(32, 3, activation='relu')
        self.flatten = Flatten()
        self.d1 = Dense(128, activation='relu')
        self.d2 = Dense(10)

      def call(self, x):
        x = self.conv1(x)
        x = self.flatten(x)
        x = self.d1(x)
        return self.d2(x)

    model = MyModel()
    loss_object = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    optimizer = tf.keras.optimizers.Adam()
    train_loss = tf.keras.metrics.Mean(name='train_loss')
    train_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name='train_accuracy')
    test_loss = tf.keras.metrics.Mean(name='test_loss')
    test_accuracy = tf.keras.metrics.SparseCategoricalAccuracy(name='test_accuracy')

    @tf.function
    def train_step(images, labels):
      with tf.GradientTape() as tape:
        predictions = model(images, training=True)
        loss = loss_object(labels, predictions)
      gradients = tape.gradient(loss, model.trainable_variables)
      optimizer.apply_gradients(zip(gradients, model.trainable_variables))
      train_loss(loss)
      train_accuracy(labels, predictions)

    @tf.function
    def test_step(images, labels):
      predictions = model(images, training=False)
      t_loss = loss_object(labels, predictions)
      test_loss(t_loss)
      test_accuracy(labels, predictions)

    EPOCHS = 2
    logs = []
    for epoch in range(EPOCHS):
      train_loss.reset_state()
      train_accuracy.reset_state()
      test_loss.reset_state()
      test_accuracy.reset_state()
      for images, labels in train_ds:
        train_step(images, labels)
      for test_images, test_labels in test_ds:
        test_step(test_images, test_labels)
      print(
        f'Epoch {epoch + 1}, '
        f'Loss: {train_loss.result():0.2f}, '
        f'Accuracy: {train_accuracy.result() * 100:0.2f}, '
        f'Test Loss: {test_loss.result():0.2f}, '
        f'Test Accuracy: {test_accuracy.result() * 100:0.2f}'
      )
      logs.append((float(train_loss.result()), float(test_accuracy.result())))

    assert logs[1][0] < logs[0][0], logs
    assert logs[-1][1] > 0.85, logs  # chance is 0.1
