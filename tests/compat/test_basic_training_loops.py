"""Basic training loops.

Source: https://www.tensorflow.org/guide/basic_training_loops
(github.com/tensorflow/docs, site/en/guide/basic_training_loops.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf`; the plots left out; the checkpoint is written in a
temporary directory. No other change (same data: 201 points of y = 3x + 2 + noise).
"""


import numpy as np

import tapeflow as tf


def test_basic_training_loops(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tf.random.set_seed(0)
    TRUE_W = 3.0
    TRUE_B = 2.0
    NUM_EXAMPLES = 201
    x = tf.linspace(-2,2, NUM_EXAMPLES)
    x = tf.cast(x, tf.float32)

    def f(x):
      return x * TRUE_W + TRUE_B

    noise = tf.random.normal(shape=[NUM_EXAMPLES])
    y = f(x) + noise

    class MyModel(tf.Module):
      def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(5.0)
        self.b = tf.Variable(0.0)

      def __call__(self, x):
        return self.w * x + self.b

    model = MyModel()
    print("Variables:", model.variables)
    assert len(model.variables) == 2
    assert model(3.0).numpy() == 15.0

    def loss(target_y, predicted_y):
      return tf.reduce_mean(tf.square(target_y - predicted_y))

    def train(model, x, y, learning_rate):
      with tf.GradientTape() as t:
        current_loss = loss(y, model(x))
      dw, db = t.gradient(current_loss, [model.w, model.b])
      model.w.assign_sub(learning_rate * dw)
      model.b.assign_sub(learning_rate * db)

    model = MyModel()
    weights = []
    biases = []
    epochs = range(10)

    def report(model, loss):
      return f"W = {model.w.numpy():1.2f}, b = {model.b.numpy():1.2f}, loss={loss:2.5f}"

    def training_loop(model, x, y):
      for epoch in epochs:
        train(model, x, y, learning_rate=0.1)
        weights.append(model.w.numpy())
        biases.append(model.b.numpy())
        current_loss = loss(y, model(x))
        print(f"Epoch {epoch:2d}:")
        print("    ", report(model, current_loss))

    start_loss = loss(y, model(x)).numpy()
    training_loop(model, x, y)
    end_loss = loss(model(x), y).numpy()
    # The text: the loss falls from ~9 towards the noise's variance (~1), W and b
    # approach 3 and 2 within 10 steps.
    assert start_loss > 5.0 and 0.6 < end_loss < 1.6, (start_loss, end_loss)
    assert abs(weights[-1] - 3.0) < 0.3 and abs(biases[-1] - 2.0) < 0.5, (weights, biases)

    class MyModelKeras(tf.keras.Model):
      def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = tf.Variable(5.0)
        self.b = tf.Variable(0.0)

      def call(self, x):
        return self.w * x + self.b

    keras_model = MyModelKeras()
    training_loop(keras_model, x, y)
    keras_model.save_weights("my_checkpoint")
    assert abs(keras_model.w.numpy() - 3.0) < 0.3

    keras_model = MyModelKeras()
    keras_model.compile(
        run_eagerly=False,
        optimizer=tf.keras.optimizers.SGD(learning_rate=0.1),
        loss=tf.keras.losses.mean_squared_error,
    )
    assert x.shape[0] == 201
    history = keras_model.fit(x, y, epochs=10, batch_size=1000, verbose=0)
    losses = history.history["loss"]
    assert losses[-1] < losses[0] and losses[-1] < 1.6, losses
    np.testing.assert_allclose(keras_model.w.numpy(), weights[9], rtol=1e-4)
