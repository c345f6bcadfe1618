"""tf.audio: WAV files in and out, as TF's DecodeWav/EncodeWav: 16-bit PCM
samples as float32 in [-1, 1), shaped (samples, channels), with the sample
rate as an int32 scalar. Parsed with the standard library's RIFF reading."""

import io
import struct

import numpy as np

from ..core.errors import InvalidArgumentError
from ..core.string_values import OBJECT
from ..core.tensor import Tensor, convert_to_tensor

__all__ = ["decode_wav", "encode_wav"]

_SCALE = 32768.0  # TF maps int16 s to s / 32768


def _bytes_of(contents):
    t = contents if isinstance(contents, Tensor) else convert_to_tensor(contents)
    if t._value.dtype != OBJECT or t._value.ndim != 0:
        raise InvalidArgumentError(f"decode_wav: contents must be a scalar string tensor, got "
                                   f"{t.dtype.name} of shape {tuple(t.shape)} [Op:DecodeWav]")
    return t._value[()]


def _chunks(data):
    """{chunk id: payload} of a RIFF/WAVE byte string, with TF's errors."""
    if len(data) < 12 or data[:4] != b"RIFF" or data[8:12] != b"WAVE":
        raise InvalidArgumentError("Header mismatch: Expected RIFF/WAVE but found "
                                   f"{data[:4]!r}/{data[8:12]!r} [Op:DecodeWav]")
    chunks, offset = {}, 12
    while offset + 8 <= len(data):
        name, size = data[offset:offset + 4], struct.unpack("<I", data[offset + 4:offset + 8])[0]
        chunks.setdefault(name, data[offset + 8:offset + 8 + size])
        offset += 8 + size + (size & 1)
    return chunks


def decode_wav(contents, desired_channels=-1, desired_samples=-1, name=None):
    """(audio, sample_rate) of a 16-bit PCM WAV file's bytes, as tf.audio.decode_wav.

    `audio` is float32 (samples, channels) in [-1, 1); `desired_channels` drops
    extra channels or repeats a mono one, `desired_samples` cuts or pads with zeros.

    Raises:
        InvalidArgumentError: for a file that is not 16-bit PCM WAV (TF's errors).
    """
    chunks = _chunks(_bytes_of(contents))
    if b"fmt " not in chunks or b"data" not in chunks:
        raise InvalidArgumentError("decode_wav: the file has no 'fmt ' or 'data' chunk "
                                   "[Op:DecodeWav]")
    fmt = chunks[b"fmt "]
    audio_format, channels, rate, _, _, bits = struct.unpack("<HHIIHH", fmt[:16])
    if audio_format not in (1, 0xFFFE) or bits != 16:
        raise InvalidArgumentError(f"Can only read 16-bit PCM WAV files; this one has format "
                                   f"{audio_format} and {bits} bits per sample [Op:DecodeWav]")
    data = chunks[b"data"]
    samples = np.frombuffer(data[:len(data) - len(data) % (2 * channels)], "<i2")
    audio = (samples.astype(np.float32) / _SCALE).reshape(-1, channels)
    if desired_channels > 0 and desired_channels != channels:
        if channels == 1:
            audio = np.repeat(audio, desired_channels, axis=1)
        elif desired_channels < channels:
            audio = audio[:, :desired_channels]
        else:
            raise InvalidArgumentError(f"decode_wav: the file has {channels} channels and "
                                       f"{desired_channels} were asked for [Op:DecodeWav]")
    if desired_samples >= 0:
        audio = audio[:desired_samples]
        if len(audio) < desired_samples:
            audio = np.pad(audio, ((0, desired_samples - len(audio)), (0, 0)))
    return Tensor(np.ascontiguousarray(audio)), Tensor(np.asarray(rate, np.int32))


def encode_wav(audio, sample_rate, name=None):
    """A 16-bit PCM WAV file's bytes (a scalar string) of float32 (samples, channels)
    audio in [-1, 1], clipped as TF's EncodeWav."""
    a = audio._value if isinstance(audio, Tensor) else np.asarray(audio)
    if a.ndim != 2 or a.dtype.kind != "f":
        raise InvalidArgumentError(f"encode_wav: audio must be float (samples, channels), got "
                                   f"{a.dtype} of shape {a.shape} [Op:EncodeWav]")
    rate = int(sample_rate._value if isinstance(sample_rate, Tensor) else sample_rate)
    pcm = np.clip(np.round(a * _SCALE), -32768, 32767).astype("<i2").tobytes()
    channels = a.shape[1]
    out = io.BytesIO()
    out.write(b"RIFF" + struct.pack("<I", 36 + len(pcm)) + b"WAVE")
    out.write(b"fmt " + struct.pack("<IHHIIHH", 16, 1, channels, rate, rate * channels * 2,
                                    channels * 2, 16))
    out.write(b"data" + struct.pack("<I", len(pcm)) + pcm)
    value = np.empty((), dtype=object)
    value[()] = out.getvalue()
    return Tensor(value)
