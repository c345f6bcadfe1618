"""Custom layers.

Source: https://www.tensorflow.org/tutorials/customization/custom_layers
(github.com/tensorflow/docs, site/en/tutorials/customization/custom_layers.ipynb at
commit 7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf`; the values and shapes the text shows are asserted.
"""

import numpy as np

import tapeflow as tf


def test_custom_layers():
    tf.random.set_seed(0)
    assert tf.config.list_physical_devices('GPU') == []

    layer = tf.keras.layers.Dense(100)
    layer = tf.keras.layers.Dense(10, input_shape=(None, 5))
    out = layer(tf.zeros([10, 5]))
    assert out.shape == (10, 10)
    assert len(layer.variables) == 2
    assert layer.kernel.shape == (5, 10) and layer.bias.shape == (10,)

    class MyDenseLayer(tf.keras.layers.Layer):
      def __init__(self, num_outputs):
        super(MyDenseLayer, self).__init__()
        self.num_outputs = num_outputs

      def build(self, input_shape):
        self.kernel = self.add_weight("kernel",
                                      shape=[int(input_shape[-1]),
                                             self.num_outputs])

      def call(self, inputs):
        return tf.matmul(inputs, self.kernel)

    layer = MyDenseLayer(10)
    _ = layer(tf.zeros([10, 5]))
    names = [var.name for var in layer.trainable_variables]
    assert len(names) == 1 and "kernel" in names[0], names  # the text: ['my_dense_layer/kernel:0']

    class ResnetIdentityBlock(tf.keras.Model):
      def __init__(self, kernel_size, filters):
        super(ResnetIdentityBlock, self).__init__(name='')
        filters1, filters2, filters3 = filters

        self.conv2a = tf.keras.layers.Conv2D(filters1, (1, 1))
        self.bn2a = tf.keras.layers.BatchNormalization()

        self.conv2b = tf.keras.layers.Conv2D(filters2, kernel_size, padding='same')
        self.bn2b = tf.keras.layers.BatchNormalization()

        self.conv2c = tf.keras.layers.Conv2D(filters3, (1, 1))
        self.bn2c = tf.keras.layers.BatchNormalization()

      def call(self, input_tensor, training=False):
        x = self.conv2a(input_tensor)
        x = self.bn2a(x, training=training)
        x = tf.nn.relu(x)

        x = self.conv2b(x)
        x = self.bn2b(x, training=training)
        x = tf.nn.relu(x)

        x = self.conv2c(x)
        x = self.bn2c(x, training=training)

        x += input_tensor
        return tf.nn.relu(x)

    block = ResnetIdentityBlock(1, [1, 2, 3])
    _ = block(tf.zeros([1, 2, 3, 3]))
    assert len(block.layers) == 6
    assert len(block.variables) == 18  # 3 convs (kernel, bias), 3 BNs (4 each)
    block.summary()
    assert block.count_params() == 41  # "Total params: 41" in the text

    my_seq = tf.keras.Sequential([tf.keras.layers.Conv2D(1, (1, 1),
                                                        input_shape=(
                                                            None, None, 3)),
                                 tf.keras.layers.BatchNormalization(),
                                 tf.keras.layers.Conv2D(2, 1,
                                                        padding='same'),
                                 tf.keras.layers.BatchNormalization(),
                                 tf.keras.layers.Conv2D(3, (1, 1)),
                                 tf.keras.layers.BatchNormalization()])
    out = my_seq(tf.zeros([1, 2, 3, 3]))
    assert out.shape == (1, 2, 3, 3)
    np.testing.assert_allclose(out.numpy(), 0.0, atol=1e-6)  # zeros through 1x1 convs and BN
    my_seq.summary()
    assert my_seq.count_params() == 41  # "Total params: 41" in the text
