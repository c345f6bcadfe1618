"""TensorFlow basics.

Source: https://www.tensorflow.org/guide/basics
(github.com/tensorflow/docs, site/en/guide/basics.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf`; the plots left out; the files written in a temporary
directory; 30 epochs instead of 100 in both training loops; the values the text shows
are asserted.
"""

import numpy as np

import tapeflow as tf


def test_guide_basics(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    tf.random.set_seed(0)
    x = tf.constant([[1., 2., 3.],
                     [4., 5., 6.]])
    assert x.shape == (2, 3) and x.dtype == tf.float32
    np.testing.assert_array_equal((x + x).numpy(), [[2, 4, 6], [8, 10, 12]])
    np.testing.assert_array_equal((5 * x).numpy(), [[5, 10, 15], [20, 25, 30]])
    np.testing.assert_array_equal((x @ tf.transpose(x)).numpy(), [[14, 32], [32, 77]])
    assert tf.concat([x, x, x], axis=0).shape == (6, 3)
    np.testing.assert_allclose(tf.nn.softmax(x, axis=-1).numpy()[0],
                               [0.09003057, 0.24472848, 0.6652409], rtol=1e-5)
    assert tf.reduce_sum(x).numpy() == 21.0
    assert tf.convert_to_tensor([1,2,3]).dtype == tf.int32
    assert tf.reduce_sum([1,2,3]).numpy() == 6
    assert not tf.config.list_physical_devices('GPU')

    var = tf.Variable([0.0, 0.0, 0.0])
    var.assign([1, 2, 3])
    var.assign_add([1, 1, 1])
    np.testing.assert_array_equal(var.numpy(), [2, 3, 4])

    x = tf.Variable(1.0)

    def f(x):
      y = x**2 + 2*x - 5
      return y

    assert f(x).numpy() == -2.0
    with tf.GradientTape() as tape:
      y = f(x)
    g_x = tape.gradient(y, x)  # g(x) = dy/dx
    assert g_x.numpy() == 4.0

    @tf.function
    def my_func(x):
      print('Tracing.\n')
      return tf.reduce_sum(x)

    assert my_func(tf.constant([1, 2, 3])).numpy() == 6
    assert my_func(tf.constant([10, 9, 8])).numpy() == 27
    np.testing.assert_allclose(my_func(tf.constant([10.0, 9.1, 8.2], dtype=tf.float32)).numpy(), 27.3,
                               rtol=1e-6)

    class MyModule(tf.Module):
      def __init__(self, value):
        self.weight = tf.Variable(value)

      @tf.function
      def multiply(self, x):
        return x * self.weight

    mod = MyModule(3)
    np.testing.assert_array_equal(mod.multiply(tf.constant([1, 2, 3])).numpy(), [3, 6, 9])
    save_path = './saved'
    tf.saved_model.save(mod, save_path)
    reloaded = tf.saved_model.load(save_path)
    np.testing.assert_array_equal(reloaded.multiply(tf.constant([1, 2, 3])).numpy(), [3, 6, 9])

    x = tf.linspace(-2, 2, 201)
    x = tf.cast(x, tf.float32)

    def f(x):
      y = x**2 + 2*x - 5
      return y

    y = f(x) + tf.random.normal(shape=[201])

    class Model(tf.Module):
      def __init__(self):
        rand_init = tf.random.uniform(shape=[3], minval=0., maxval=5., seed=22)
        self.w_q = tf.Variable(rand_init[0])
        self.w_l = tf.Variable(rand_init[1])
        self.b = tf.Variable(rand_init[2])

      @tf.function
      def __call__(self, x):
        return self.w_q * (x**2) + self.w_l * x + self.b

    quad_model = Model()

    def mse_loss(y_pred, y):
      return tf.reduce_mean(tf.square(y_pred - y))

    batch_size = 32
    dataset = tf.data.Dataset.from_tensor_slices((x, y))
    dataset = dataset.shuffle(buffer_size=x.shape[0]).batch(batch_size)
    epochs = 30
    learning_rate = 0.01
    losses = []
    for epoch in range(epochs):
      for x_batch, y_batch in dataset:
        with tf.GradientTape() as tape:
          batch_loss = mse_loss(quad_model(x_batch), y_batch)
        grads = tape.gradient(batch_loss, quad_model.variables)
        for g,v in zip(grads, quad_model.variables):
            v.assign_sub(learning_rate*g)
      loss = mse_loss(quad_model(x), y)
      losses.append(loss)
      if epoch % 10 == 0:
        print(f'Mean squared error for step {epoch}: {loss.numpy():0.3f}')
    assert float(losses[-1]) < 0.5 * float(losses[0]) and float(losses[-1]) < 2.0, losses

    new_model = tf.keras.Sequential([
        tf.keras.layers.Lambda(lambda x: tf.stack([x, x**2], axis=1)),
        tf.keras.layers.Dense(units=1, kernel_initializer=tf.random.normal)])
    new_model.compile(
        loss=tf.keras.losses.MSE,
        optimizer=tf.keras.optimizers.SGD(learning_rate=0.01))
    history = new_model.fit(x, y,
                            epochs=30,
                            batch_size=32,
                            verbose=0)
    new_model.save('./my_new_model.keras')
    assert history.history['loss'][-1] < history.history['loss'][0]
