"""tf.audio's WAV decoding and encoding, keras.utils.audio_dataset_from_directory,
tf.math.confusion_matrix and a single callback given to fit: the pieces TF's
simple audio tutorial uses."""

import io
import wave

import numpy as np
import pytest

import tapeflow as tf


def _wav_bytes(samples, rate=16000, channels=1):
    """A WAV file written by the standard library (an independent writer)."""
    buffer = io.BytesIO()
    with wave.open(buffer, "wb") as f:
        f.setnchannels(channels)
        f.setsampwidth(2)
        f.setframerate(rate)
        f.writeframes(np.asarray(samples, "<i2").tobytes())
    return buffer.getvalue()


def test_decode_wav_scales_int16_to_minus_one_one():
    audio, rate = tf.audio.decode_wav(tf.constant(_wav_bytes([0, 16384, -32768, 32767])))
    assert audio.dtype == tf.float32 and audio.shape == (4, 1) and int(rate) == 16000
    np.testing.assert_array_equal(audio.numpy()[:, 0], [0.0, 0.5, -1.0, 32767 / 32768])


def test_decode_wav_channels_and_samples():
    stereo = _wav_bytes([1000, -1000, 2000, -2000, 3000, -3000], rate=8000, channels=2)
    audio, rate = tf.audio.decode_wav(tf.constant(stereo))
    assert audio.shape == (3, 2) and int(rate) == 8000
    first, _ = tf.audio.decode_wav(tf.constant(stereo), desired_channels=1)
    np.testing.assert_allclose(first.numpy()[:, 0], np.array([1000, 2000, 3000]) / 32768)
    mono = _wav_bytes([100, 200])
    doubled, _ = tf.audio.decode_wav(tf.constant(mono), desired_channels=2)
    np.testing.assert_array_equal(doubled.numpy()[:, 0], doubled.numpy()[:, 1])
    padded, _ = tf.audio.decode_wav(tf.constant(mono), desired_samples=4)
    np.testing.assert_array_equal(padded.numpy()[2:], [[0.0], [0.0]])
    cut, _ = tf.audio.decode_wav(tf.constant(mono), desired_samples=1)
    assert cut.shape == (1, 1)


def test_encode_then_decode_round_trips_and_is_a_real_wav():
    audio = np.linspace(-0.9, 0.9, 40, dtype=np.float32).reshape(20, 2)
    data = tf.audio.encode_wav(audio, 22050).numpy()
    with wave.open(io.BytesIO(data)) as f:
        assert (f.getnchannels(), f.getframerate(), f.getnframes()) == (2, 22050, 20)
    back, rate = tf.audio.decode_wav(tf.constant(data))
    np.testing.assert_allclose(back.numpy(), audio, atol=1 / 32768)


def test_bad_files_get_tfs_errors():
    with pytest.raises(tf.errors.InvalidArgumentError, match="RIFF"):
        tf.audio.decode_wav(tf.constant(b"not a wav file at all"))
    with pytest.raises(tf.errors.InvalidArgumentError, match="scalar string"):
        tf.audio.decode_wav(tf.constant([1.0]))


def test_audio_dataset_from_directory(tmp_path):
    for name, lengths in (("go", (30, 50)), ("stop", (40,))):
        (tmp_path / name).mkdir()
        for i, n in enumerate(lengths):
            (tmp_path / name / f"{i}.wav").write_bytes(_wav_bytes(np.arange(n) * 100))
    dataset = tf.keras.utils.audio_dataset_from_directory(tmp_path, batch_size=8,
                                                          shuffle=False, verbose=False)
    assert dataset.class_names == ["go", "stop"]
    (audio, labels), = list(dataset)
    assert audio.shape == (3, 50, 1)  # padded to the longest clip of the batch
    np.testing.assert_array_equal(labels.numpy(), [0, 0, 1])
    np.testing.assert_array_equal(audio.numpy()[0, 30:], 0.0)
    fixed = tf.keras.utils.audio_dataset_from_directory(
        tmp_path, batch_size=2, output_sequence_length=35, shuffle=False, verbose=False)
    assert [a.shape for a, _ in fixed] == [(2, 35, 1), (1, 35, 1)]
    with pytest.raises(ValueError, match="does not resample"):
        list(tf.keras.utils.audio_dataset_from_directory(
            tmp_path, sampling_rate=8000, shuffle=False, verbose=False))


def test_confusion_matrix_as_tf():
    m = tf.math.confusion_matrix([1, 2, 4], [2, 2, 4])  # the example of TF's API page
    np.testing.assert_array_equal(m.numpy(), [[0, 0, 0, 0, 0], [0, 0, 1, 0, 0],
                                              [0, 0, 1, 0, 0], [0, 0, 0, 0, 0],
                                              [0, 0, 0, 0, 1]])
    weighted = tf.math.confusion_matrix([0, 1, 1], [0, 1, 0], num_classes=2,
                                        weights=[1.0, 2.0, 0.5], dtype=tf.float32)
    np.testing.assert_array_equal(weighted.numpy(), [[1.0, 0.0], [0.5, 2.0]])
    with pytest.raises(tf.errors.InvalidArgumentError, match="num_classes=2"):
        tf.math.confusion_matrix([0, 3], [0, 1], num_classes=2)


def test_fit_takes_one_callback_not_in_a_list():
    seen = []
    model = tf.keras.Sequential([tf.keras.layers.Dense(1)])
    model.compile("sgd", "mse")
    model.fit(np.ones((4, 2), np.float32), np.ones((4, 1), np.float32), verbose=0,
              callbacks=tf.keras.callbacks.LambdaCallback(
                  on_epoch_end=lambda epoch, logs: seen.append(epoch)))
    assert seen == [0]
