"""Training checkpoints.

Source: https://www.tensorflow.org/guide/checkpoint
(github.com/tensorflow/docs, site/en/guide/checkpoint.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf`; every file is written in pytest's temporary directory
(the page's relative paths, run from there); `!ls ./tf_ckpts` becomes os.listdir; the
page is split into one test per section (the sections after "Train and checkpoint the
model" re-run its two training cycles, 100 steps of a Dense(5), to have its checkpoints).
What the page prints or says is asserted: the step numbers and paths it prints, the loss
going down and training picking up where it left off, the restored bias and the deferred
kernel, the reader's keys, shapes and dtypes, ListWrapper([]). No other change.

The page is written for tf.keras 2 (tf_keras): on TF 2.21 with Keras 3 it stops at
`save_weights('easy_checkpoint')` (Keras 3 wants '.weights.h5'), Dense's kernel is saved
as 'net/l1/_kernel' and the restored model does not pick up where it left off; the
asserts follow the page's text.
"""

import os

import numpy as np
import pytest

import tapeflow as tf


class Net(tf.keras.Model):
  """A simple linear model."""

  def __init__(self):
    super(Net, self).__init__()
    self.l1 = tf.keras.layers.Dense(5)

  def call(self, x):
    return self.l1(x)


def toy_dataset():
  inputs = tf.range(10.)[:, None]
  labels = inputs * 5. + tf.range(5.)[None, :]
  return tf.data.Dataset.from_tensor_slices(
    dict(x=inputs, y=labels)).repeat().batch(2)


def train_step(net, example, optimizer):
  """Trains `net` on `example` using `optimizer`."""
  with tf.GradientTape() as tape:
    output = net(example['x'])
    loss = tf.reduce_mean(tf.abs(output - example['y']))
  variables = net.trainable_variables
  gradients = tape.gradient(loss, variables)
  optimizer.apply_gradients(zip(gradients, variables))
  return loss


def _two_training_cycles(printed):
  """The page's "Manual checkpointing" cells, in the current directory: a first cycle
  from scratch, then a new model, optimizer and manager that pick up where it left off.
  Returns the second cycle's (net, ckpt, manager); `printed` collects what is printed."""
  def say(text):
    print(text)
    printed.append(text)

  net = Net()
  opt = tf.keras.optimizers.Adam(0.1)
  dataset = toy_dataset()
  iterator = iter(dataset)
  ckpt = tf.train.Checkpoint(step=tf.Variable(1), optimizer=opt, net=net, iterator=iterator)
  manager = tf.train.CheckpointManager(ckpt, './tf_ckpts', max_to_keep=3)

  def train_and_checkpoint(net, manager):
    ckpt.restore(manager.latest_checkpoint)
    if manager.latest_checkpoint:
      say("Restored from {}".format(manager.latest_checkpoint))
    else:
      say("Initializing from scratch.")

    for _ in range(50):
      example = next(iterator)
      loss = train_step(net, example, opt)
      ckpt.step.assign_add(1)
      if int(ckpt.step) % 10 == 0:
        save_path = manager.save()
        say("Saved checkpoint for step {}: {}".format(int(ckpt.step), save_path))
        say("loss {:1.2f}".format(loss.numpy()))

  train_and_checkpoint(net, manager)

  opt = tf.keras.optimizers.Adam(0.1)
  net = Net()
  dataset = toy_dataset()
  iterator = iter(dataset)
  ckpt = tf.train.Checkpoint(step=tf.Variable(1), optimizer=opt, net=net, iterator=iterator)
  manager = tf.train.CheckpointManager(ckpt, './tf_ckpts', max_to_keep=3)

  train_and_checkpoint(net, manager)
  return net, ckpt, manager


def test_saving_from_keras_training_apis(tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  net = Net()
  net.save_weights('easy_checkpoint')
  # The page: `save_weights` saves a TensorFlow checkpoint (files named after the prefix).
  assert any(name.startswith('easy_checkpoint') for name in os.listdir(tmp_path)), \
      os.listdir(tmp_path)


def test_train_and_restore(tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  printed = []
  net, ckpt, manager = _two_training_cycles(printed)

  # What TF prints: "Initializing from scratch.", then "Saved checkpoint for step 10:
  # ./tf_ckpts/ckpt-1" ... step 50: ckpt-5, "Restored from ./tf_ckpts/ckpt-5", then
  # steps 60 ... 100 as ckpt-6 ... ckpt-10, each followed by its loss.
  saved = [line for line in printed if line.startswith("Saved")]
  assert printed[0] == "Initializing from scratch."
  assert printed[11] == "Restored from ./tf_ckpts/ckpt-5"
  assert saved == ["Saved checkpoint for step {}: ./tf_ckpts/ckpt-{}".format(10 * n, n)
                   for n in range(1, 11)], saved
  losses = [float(line.split()[1]) for line in printed if line.startswith("loss")]
  first, second = losses[:5], losses[5:]
  # The first cycle's loss falls from ~30 (labels 0..49, an untrained Dense); the second
  # picks up exactly where the first left off instead of starting from ~30 again.
  assert all(a > b for a, b in zip(first, first[1:])), losses
  assert first[0] > 20 and second[0] < first[-1] + 2.0, losses
  assert second[-1] < first[-1], losses
  assert int(ckpt.step) == 100  # restored as 50 from ckpt-5, then 50 steps

  print(manager.checkpoints)  # List the three remaining checkpoints
  assert manager.checkpoints == ['./tf_ckpts/ckpt-8', './tf_ckpts/ckpt-9',
                                 './tf_ckpts/ckpt-10']
  listing = sorted(os.listdir('./tf_ckpts'))
  print(listing)
  # "prefixes for an index file and one or more data files ... grouped together in a
  # single `checkpoint` file"; the older checkpoints are deleted.
  assert 'checkpoint' in listing
  for n in (8, 9, 10):
    assert any(name.startswith('ckpt-{}.'.format(n)) for name in listing), listing
  for n in range(1, 8):
    assert not any(name.startswith('ckpt-{}.'.format(n)) for name in listing), listing


def test_loading_mechanics(tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  _two_training_cycles([])
  reader = tf.train.load_checkpoint('./tf_ckpts/')
  saved_bias = reader.get_tensor('net/l1/bias/.ATTRIBUTES/VARIABLE_VALUE')
  saved_kernel = reader.get_tensor('net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE')

  to_restore = tf.Variable(tf.zeros([5]))
  print(to_restore.numpy())  # All zeros
  np.testing.assert_array_equal(to_restore.numpy(), np.zeros(5))
  fake_layer = tf.train.Checkpoint(bias=to_restore)
  fake_net = tf.train.Checkpoint(l1=fake_layer)
  new_root = tf.train.Checkpoint(net=fake_net)
  status = new_root.restore(tf.train.latest_checkpoint('./tf_ckpts/'))
  print(to_restore.numpy())  # This gets the restored value.
  np.testing.assert_array_equal(to_restore.numpy(), saved_bias)
  assert np.all(saved_bias != 0)

  status.assert_existing_objects_matched()
  # "status.assert_consumed ... would throw an exception here"
  with pytest.raises(AssertionError):
    status.assert_consumed()

  # Deferred restorations
  deferred_restore = tf.Variable(tf.zeros([1, 5]))
  print(deferred_restore.numpy())  # Not restored; still zeros
  np.testing.assert_array_equal(deferred_restore.numpy(), np.zeros((1, 5)))
  fake_layer.kernel = deferred_restore
  print(deferred_restore.numpy())  # Restored
  np.testing.assert_array_equal(deferred_restore.numpy(), saved_kernel)
  assert np.all(saved_kernel != 0)


def test_manually_inspecting_checkpoints(tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  net, _, _ = _two_training_cycles([])

  reader = tf.train.load_checkpoint('./tf_ckpts/')
  shape_from_key = reader.get_variable_to_shape_map()
  dtype_from_key = reader.get_variable_to_dtype_map()

  keys = sorted(shape_from_key.keys())
  print(keys)
  # The variables' object paths, as the page shows them (each variable once).
  for key in ('net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE',
              'net/l1/bias/.ATTRIBUTES/VARIABLE_VALUE',
              'step/.ATTRIBUTES/VARIABLE_VALUE',
              'save_counter/.ATTRIBUTES/VARIABLE_VALUE'):
    assert key in keys, (key, keys)

  key = 'net/l1/kernel/.ATTRIBUTES/VARIABLE_VALUE'

  print("Shape:", shape_from_key[key])
  print("Dtype:", dtype_from_key[key].name)
  assert list(shape_from_key[key]) == [1, 5]
  assert dtype_from_key[key].name == 'float32'

  kernel = reader.get_tensor(key)
  assert kernel.shape == (1, 5) and kernel.dtype == np.float32
  # ckpt-10 was written after the second cycle's last step.
  np.testing.assert_array_equal(kernel, net.l1.kernel.numpy())
  assert reader.get_tensor('step/.ATTRIBUTES/VARIABLE_VALUE') == 100
  assert reader.get_tensor('save_counter/.ATTRIBUTES/VARIABLE_VALUE') == 10


def test_object_tracking(tmp_path, monkeypatch):
  monkeypatch.chdir(tmp_path)
  save = tf.train.Checkpoint()
  save.listed = [tf.Variable(1.)]
  save.listed.append(tf.Variable(2.))
  save.mapped = {'one': save.listed[0]}
  save.mapped['two'] = save.listed[1]
  save_path = save.save('./tf_list_example')
  assert save_path == './tf_list_example-1'

  restore = tf.train.Checkpoint()
  v2 = tf.Variable(0.)
  assert 0. == v2.numpy()  # Not restored yet
  restore.mapped = {'two': v2}
  restore.restore(save_path)
  assert 2. == v2.numpy()

  restore.listed = []
  print(restore.listed)  # ListWrapper([])
  assert repr(restore.listed) == 'ListWrapper([])'
  v1 = tf.Variable(0.)
  restore.listed.append(v1)  # Restores v1, from restore() in the previous cell
  assert 1. == v1.numpy()
