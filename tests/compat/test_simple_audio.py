"""Simple audio recognition: Recognizing keywords.

Source: https://www.tensorflow.org/tutorials/audio/simple_audio
(github.com/tensorflow/docs, site/en/tutorials/audio/simple_audio.ipynb at commit
7c3650212740204359d4ceae481abc79345541be).

Changes: `import tapeflow as tf` and `from tapeflow.keras import layers, models`; the
`!pip install`, the plots (matplotlib, seaborn) and the audio playback (IPython.display)
left out; no download: `data/mini_speech_commands` is made in pytest's temporary
directory with the archive's layout (README.md and eight command folders of 16 kHz mono
16-bit WAV files, no longer than 16000 samples, `no/01bb6a2a_nohash_0.wav` among them),
48 clips per command instead of 1000, each a tone whose pitch depends on the command
plus noise, so that the CNN has something to learn; 2 epochs instead of 10.
One test per section. "Import the dataset" reads the WAV files with
`audio_dataset_from_directory`; the later sections start from a dataset of the same
element structure made from the same waveforms with `from_tensor_slices` (batches of
64 float32 waveforms of 16000 samples and int32 labels), so that the spectrogram, model,
evaluation and export sections are measured even while the WAV reader is missing.
What the page shows is asserted: shapes, label names, the spectrogram's (124, 129, 1),
the loss going down, accuracy above chance (1/8), the confusion matrix's total, the
exported model's predictions.
"""

import functools
import pathlib
import wave

import numpy as np
import pytest

import tapeflow as tf
from tapeflow.keras import layers
from tapeflow.keras import models

COMMANDS = ['down', 'go', 'left', 'no', 'right', 'stop', 'up', 'yes']
CLIPS_PER_COMMAND = 48
SAMPLE_RATE = 16000


def _waveform(rng, command_index):
    length = rng.randint(12000, 16001)
    t = np.arange(length) / SAMPLE_RATE
    pitch = 300.0 + 350.0 * command_index
    audio = 0.5 * np.sin(2 * np.pi * pitch * t) + 0.05 * rng.normal(size=length)
    return np.clip(audio, -1.0, 1.0)


def _write_wav(path, audio):
    pcm = np.round(audio * 32767).astype('<i2')
    with wave.open(str(path), 'wb') as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(SAMPLE_RATE)
        f.writeframes(pcm.tobytes())


def _mini_speech_commands(root):
    """data/mini_speech_commands under `root`; returns its path."""
    rng = np.random.RandomState(0)
    data_dir = pathlib.Path(root) / 'data' / 'mini_speech_commands'
    data_dir.mkdir(parents=True)
    (data_dir / 'README.md').write_text("Mini Speech Commands (synthetic stand-in)\n")
    for index, command in enumerate(COMMANDS):
        (data_dir / command).mkdir()
        for n in range(CLIPS_PER_COMMAND):
            name = '01bb6a2a_nohash_0.wav' if (command, n) == ('no', 0) else \
                '%08x_nohash_%d.wav' % (rng.randint(0, 2**31), n % 3)
            _write_wav(data_dir / command / name, _waveform(rng, index))
    return data_dir


def _datasets():
    """The page's train/val/test datasets after `squeeze` and `shard`, built from the same
    kind of waveforms with from_tensor_slices (80/20 split, batches of 64)."""
    rng = np.random.RandomState(1)
    waves, labels = [], []
    for index in range(len(COMMANDS)):
        for _ in range(CLIPS_PER_COMMAND):
            audio = np.zeros(SAMPLE_RATE, np.float32)
            clip = _waveform(rng, index)
            audio[:len(clip)] = clip
            waves.append(audio)
            labels.append(index)
    order = rng.permutation(len(waves))
    waves, labels = np.stack(waves)[order], np.array(labels, np.int32)[order]
    split = int(0.8 * len(waves))
    train_ds = tf.data.Dataset.from_tensor_slices((waves[:split], labels[:split])).batch(64)
    val_ds = tf.data.Dataset.from_tensor_slices((waves[split:], labels[split:])).batch(64)
    test_ds = val_ds.shard(num_shards=2, index=0)
    val_ds = val_ds.shard(num_shards=2, index=1)
    return train_ds, val_ds, test_ds, np.array(COMMANDS)


def get_spectrogram(waveform):
  # Convert the waveform to a spectrogram via a STFT.
  spectrogram = tf.signal.stft(
      waveform, frame_length=255, frame_step=128)
  # Obtain the magnitude of the STFT.
  spectrogram = tf.abs(spectrogram)
  # Add a `channels` dimension, so that the spectrogram can be used
  # as image-like input data with convolution layers (which expect
  # shape (`batch_size`, `height`, `width`, `channels`).
  spectrogram = spectrogram[..., tf.newaxis]
  return spectrogram


def make_spec_ds(ds):
  return ds.map(
      map_func=lambda audio,label: (get_spectrogram(audio), label),
      num_parallel_calls=tf.data.AUTOTUNE)


def _trained_model(train_ds, val_ds, test_ds, label_names):
    """The sections "Convert waveforms to spectrograms" to "Build and train the model"."""
    train_spectrogram_ds = make_spec_ds(train_ds)
    val_spectrogram_ds = make_spec_ds(val_ds)
    test_spectrogram_ds = make_spec_ds(test_ds)

    for example_spectrograms, example_spect_labels in train_spectrogram_ds.take(1):
      break

    train_spectrogram_ds = train_spectrogram_ds.cache().shuffle(10000).prefetch(tf.data.AUTOTUNE)
    val_spectrogram_ds = val_spectrogram_ds.cache().prefetch(tf.data.AUTOTUNE)
    test_spectrogram_ds = test_spectrogram_ds.cache().prefetch(tf.data.AUTOTUNE)

    input_shape = example_spectrograms.shape[1:]
    print('Input shape:', input_shape)
    num_labels = len(label_names)

    # Instantiate the `tf.keras.layers.Normalization` layer.
    norm_layer = layers.Normalization()
    # Fit the state of the layer to the spectrograms
    # with `Normalization.adapt`.
    norm_layer.adapt(data=train_spectrogram_ds.map(map_func=lambda spec, label: spec))

    model = models.Sequential([
        layers.Input(shape=input_shape),
        # Downsample the input.
        layers.Resizing(32, 32),
        # Normalize.
        norm_layer,
        layers.Conv2D(32, 3, activation='relu'),
        layers.Conv2D(64, 3, activation='relu'),
        layers.MaxPooling2D(),
        layers.Dropout(0.25),
        layers.Flatten(),
        layers.Dense(128, activation='relu'),
        layers.Dropout(0.5),
        layers.Dense(num_labels),
    ])

    model.summary()

    model.compile(
        optimizer=tf.keras.optimizers.Adam(),
        loss=tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True),
        metrics=['accuracy'],
    )

    EPOCHS = 2
    history = model.fit(
        train_spectrogram_ds,
        validation_data=val_spectrogram_ds,
        epochs=EPOCHS,
        callbacks=tf.keras.callbacks.EarlyStopping(verbose=1, patience=2),
    )
    return model, history, input_shape, test_spectrogram_ds


@pytest.mark.xfail(strict=True, reason=(
    "a known difference: tapeflow's element_spec is read off the decoded clips, so it "
    "knows their channel count, (None, 16000, 1), where TF's decode_wav leaves it "
    "unknown, (None, 16000, None); the rest of the section passes"))
def test_import_the_mini_speech_commands_dataset(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    _mini_speech_commands(tmp_path)
    DATASET_PATH = 'data/mini_speech_commands'

    data_dir = pathlib.Path(DATASET_PATH)

    commands = np.array(tf.io.gfile.listdir(str(data_dir)))
    commands = commands[(commands != 'README.md') & (commands != '.DS_Store')]
    print('Commands:', commands)
    assert sorted(commands.tolist()) == COMMANDS

    train_ds, val_ds = tf.keras.utils.audio_dataset_from_directory(
        directory=data_dir,
        batch_size=64,
        validation_split=0.2,
        seed=0,
        output_sequence_length=16000,
        subset='both')

    label_names = np.array(train_ds.class_names)
    print()
    print("label names:", label_names)
    assert label_names.tolist() == COMMANDS

    assert train_ds.element_spec == (
        tf.TensorSpec(shape=(None, 16000, None), dtype=tf.float32),
        tf.TensorSpec(shape=(None,), dtype=tf.int32))

    def squeeze(audio, labels):
      audio = tf.squeeze(audio, axis=-1)
      return audio, labels

    train_ds = train_ds.map(squeeze, tf.data.AUTOTUNE)
    val_ds = val_ds.map(squeeze, tf.data.AUTOTUNE)

    test_ds = val_ds.shard(num_shards=2, index=0)
    val_ds = val_ds.shard(num_shards=2, index=1)

    for example_audio, example_labels in train_ds.take(1):  
      print(example_audio.shape)
      print(example_labels.shape)
    assert example_audio.shape == (64, 16000) and example_labels.shape == (64,)
    assert float(tf.reduce_max(tf.abs(example_audio))) <= 1.0

    total = 8 * CLIPS_PER_COMMAND
    assert sum(int(tf.shape(a)[0]) for a, _ in train_ds) == total - int(0.2 * total)
    assert (sum(int(tf.shape(a)[0]) for a, _ in val_ds)
            + sum(int(tf.shape(a)[0]) for a, _ in test_ds)) == int(0.2 * total)

    assert label_names[[1,1,3,0]].tolist() == ['go', 'go', 'no', 'down']


def test_convert_waveforms_to_spectrograms():
    train_ds, val_ds, test_ds, label_names = _datasets()
    for example_audio, example_labels in train_ds.take(1):
      pass

    for i in range(3):
      label = label_names[example_labels[i]]
      waveform = example_audio[i]
      spectrogram = get_spectrogram(waveform)

      print('Label:', label)
      print('Waveform shape:', waveform.shape)
      print('Spectrogram shape:', spectrogram.shape)
      assert waveform.shape == (16000,)
      assert spectrogram.shape == (124, 129, 1) and spectrogram.dtype == tf.float32

    # The spectrogram's peak is at the command's pitch (300 + 350 k Hz): bin f * 256 / 16000.
    pitch = 300.0 + 350.0 * int(example_labels[2])
    peak = int(np.argmax(spectrogram.numpy()[10, :, 0]))
    assert abs(peak - pitch * 256 / SAMPLE_RATE) <= 1.5, (peak, pitch)

    train_spectrogram_ds = make_spec_ds(train_ds)
    for example_spectrograms, example_spect_labels in train_spectrogram_ds.take(1):
      break
    assert example_spectrograms.shape == (64, 124, 129, 1)
    assert example_spect_labels.shape == (64,)


@functools.lru_cache(maxsize=None)
def _trained():
    """The trained model (shared by the last two tests, to train once)."""
    # Set the seed value for experiment reproducibility.
    seed = 42
    tf.random.set_seed(seed)
    np.random.seed(seed)
    train_ds, val_ds, test_ds, label_names = _datasets()
    return _trained_model(train_ds, val_ds, test_ds, label_names) + (label_names,)


def test_build_train_and_evaluate_the_model():
    model, history, input_shape, test_spectrogram_ds, label_names = _trained()
    assert tuple(input_shape) == (124, 129, 1)

    metrics = history.history
    assert set(metrics) >= {'loss', 'val_loss', 'accuracy', 'val_accuracy'}
    assert metrics['loss'][-1] < metrics['loss'][0], metrics['loss']

    result = model.evaluate(test_spectrogram_ds, return_dict=True)
    print(result)
    assert set(result) >= {'loss', 'accuracy'}
    assert result['accuracy'] > 1.5 / len(label_names), result  # chance: 1/8

    y_pred = model.predict(test_spectrogram_ds)
    y_pred = tf.argmax(y_pred, axis=1)
    y_true = tf.concat(list(test_spectrogram_ds.map(lambda s,lab: lab)), axis=0)
    confusion_mtx = tf.math.confusion_matrix(y_true, y_pred)
    assert confusion_mtx.shape == (8, 8)
    assert int(tf.reduce_sum(confusion_mtx)) == int(tf.shape(y_true)[0])
    np.testing.assert_array_equal(np.diag(confusion_mtx.numpy()).sum(),
                                  (y_true.numpy() == y_pred.numpy()).sum())


def test_run_inference_and_export(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    data_dir = _mini_speech_commands(tmp_path)
    model, _, _, _, label_names = _trained()

    # Run inference on an audio file
    x = data_dir/'no/01bb6a2a_nohash_0.wav'
    x = tf.io.read_file(str(x))
    x, sample_rate = tf.audio.decode_wav(x, desired_channels=1, desired_samples=16000,)
    assert int(sample_rate) == 16000 and x.shape == (16000, 1)
    x = tf.squeeze(x, axis=-1)
    waveform = x
    x = get_spectrogram(x)
    x = x[tf.newaxis,...]

    prediction = model(x)
    x_labels = ['no', 'yes', 'down', 'go', 'left', 'up', 'right', 'stop']
    probabilities = tf.nn.softmax(prediction[0])
    assert probabilities.shape == (8,)
    np.testing.assert_allclose(float(tf.reduce_sum(probabilities)), 1.0, rtol=1e-5)

    # Export the model with preprocessing
    class ExportModel(tf.Module):
      def __init__(self, model):
        self.model = model

        # Accept either a string-filename or a batch of waveforms.
        # You could add additional signatures for a single wave, or a ragged-batch. 
        self.__call__.get_concrete_function(
            x=tf.TensorSpec(shape=(), dtype=tf.string))
        self.__call__.get_concrete_function(
           x=tf.TensorSpec(shape=[None, 16000], dtype=tf.float32))


      @tf.function
      def __call__(self, x):
        # If they pass a string, load the file and decode it. 
        if x.dtype == tf.string:
          x = tf.io.read_file(x)
          x, _ = tf.audio.decode_wav(x, desired_channels=1, desired_samples=16000,)
          x = tf.squeeze(x, axis=-1)
          x = x[tf.newaxis, :]

        x = get_spectrogram(x)  
        result = self.model(x, training=False)

        class_ids = tf.argmax(result, axis=-1)
        class_names = tf.gather(label_names, class_ids)
        return {'predictions':result,
                'class_ids': class_ids,
                'class_names': class_names}

    export = ExportModel(model)
    from_file = export(tf.constant(str(data_dir/'no/01bb6a2a_nohash_0.wav')))
    assert from_file['predictions'].shape == (1, 8)
    assert from_file['class_names'].numpy()[0] == \
        label_names[int(from_file['class_ids'][0])].encode()
    np.testing.assert_allclose(from_file['predictions'].numpy(), prediction.numpy(),
                               rtol=1e-4, atol=1e-5)

    tf.saved_model.save(export, "saved")
    imported = tf.saved_model.load("saved")
    reloaded = imported(waveform[tf.newaxis, :])
    np.testing.assert_allclose(reloaded['predictions'].numpy(), prediction.numpy(),
                               rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(reloaded['class_ids'].numpy(),
                                  from_file['class_ids'].numpy())
