"""directory_datasets.py builds tf.data Datasets from folders of files, as
`keras.utils.image_dataset_from_directory`, `text_dataset_from_directory` and
`audio_dataset_from_directory`:
one subfolder per class, labels inferred from the folder names (sorted), an
optional seeded training/validation split. Files are read when the Dataset is
iterated, not up front; images are decoded with Pillow (optional)."""

import os

import numpy as np

from ..audio import decode_wav
from ..core.tensor import Tensor, constant
from ..data import Dataset
from ..image import resize
from .images import aspect_crop_box, load_img

__all__ = ["image_dataset_from_directory", "text_dataset_from_directory",
           "audio_dataset_from_directory"]

_IMAGE_FORMATS = (".bmp", ".gif", ".jpeg", ".jpg", ".png")
_CHANNELS = {"grayscale": 1, "rgb": 3, "rgba": 4}


def _files_under(folder, formats, follow_links):
    """Files of `folder` and its subfolders ending in `formats`, in sorted order."""
    found = []
    for root, _, names in sorted(os.walk(folder, followlinks=follow_links),
                                 key=lambda entry: entry[0]):
        found.extend(os.path.join(root, n) for n in sorted(names)
                     if n.lower().endswith(formats))
    return found


def _index_directory(directory, labels, formats, class_names, shuffle, seed, follow_links,
                     verbose):
    """(file paths, labels, class names) as Keras's index_directory finds them."""
    if not os.path.isdir(directory):
        raise ValueError(f"Could not find directory {directory}")
    if labels == "inferred":
        subdirs = sorted(d for d in os.listdir(directory)
                         if os.path.isdir(os.path.join(directory, d)))
        if class_names is not None:
            if not set(class_names) <= set(subdirs):
                raise ValueError("The `class_names` passed did not match the names of the "
                                 f"subdirectories of the target directory. Expected: {subdirs} "
                                 f"(or a subset of it), but received: class_names={class_names}")
            subdirs = list(class_names)
        paths, found_labels = [], []
        for index, subdir in enumerate(subdirs):
            files = _files_under(os.path.join(directory, subdir), formats, follow_links)
            paths.extend(files)
            found_labels.extend([index] * len(files))
        class_names = subdirs
    else:
        paths = _files_under(directory, formats, follow_links)
        if labels is None:
            found_labels = None
        else:
            found_labels = list(labels)
            if len(found_labels) != len(paths):
                raise ValueError("Expected the lengths of `labels` to match the number of files "
                                 f"in the target directory. len(labels) is {len(found_labels)} "
                                 f"while we found {len(paths)} files in directory {directory}.")
        class_names = [str(c) for c in sorted(set(found_labels or []))]
    if verbose:
        print(f"Found {len(paths)} files belonging to {len(class_names)} classes."
              if labels is not None else f"Found {len(paths)} files.")
    order = np.arange(len(paths))
    if shuffle:
        np.random.RandomState(seed).shuffle(order)  # Keras shuffles paths and labels alike
    paths = [paths[i] for i in order]
    if found_labels is not None:
        found_labels = [found_labels[i] for i in order]
    return paths, found_labels, class_names


def _check_split(validation_split, subset, shuffle, seed):
    if validation_split is not None and not 0 < validation_split < 1:
        raise ValueError("`validation_split` must be between 0 and 1, received: "
                         f"{validation_split}")
    if (validation_split or subset) and subset not in ("training", "validation", "both"):
        raise ValueError('If `subset` is set, `validation_split` must be set, and inversely. '
                         f'`subset` must be "training", "validation" or "both", received: '
                         f"{subset}")
    if (validation_split is None) != (subset is None):
        raise ValueError("If `subset` is set, `validation_split` must be set, and inversely.")
    if validation_split and shuffle and seed is None:
        raise ValueError("If using `validation_split` and shuffling the data, you must provide "
                         "a `seed` argument, to make sure that there is no overlap between the "
                         "training and validation subset.")


def _split(paths, labels, validation_split, subset, verbose):
    """[(paths, labels)] for the subset(s): validation is the last fraction, as Keras."""
    if not validation_split:
        return [(paths, labels)]
    num_val = int(validation_split * len(paths))
    cut = len(paths) - num_val
    parts = {"training": (paths[:cut], None if labels is None else labels[:cut]),
             "validation": (paths[cut:], None if labels is None else labels[cut:])}
    names = ["training", "validation"] if subset == "both" else [subset]
    for name in names:
        if verbose:
            print(f"Using {len(parts[name][0])} files for {name}.")
    return [parts[name] for name in names]


def _encode_labels(labels, label_mode, num_classes):
    if label_mode == "int":
        return np.asarray(labels, np.int32)
    if label_mode == "binary":
        return np.asarray(labels, np.float32).reshape(-1, 1)
    return np.eye(num_classes, dtype=np.float32)[np.asarray(labels, np.int64)].reshape(
        -1, num_classes)


def _dataset(paths, labels, label_mode, num_classes, load, batch_size, shuffle, seed,
             batch=None):
    path_ds = Dataset.from_tensor_slices(np.asarray(paths, dtype=str))
    if labels is not None and label_mode is not None:
        path_ds = Dataset.zip((path_ds,
                               Dataset.from_tensor_slices(_encode_labels(labels, label_mode,
                                                                         num_classes))))
    if shuffle:
        path_ds = path_ds.shuffle(buffer_size=batch_size * 8 if batch_size else 1024, seed=seed)
    if labels is not None and label_mode is not None:
        dataset = path_ds.map(lambda path, label: (load(path), label))
    else:
        dataset = path_ds.map(load)
    if batch_size is not None:
        dataset = batch(dataset, batch_size) if batch else dataset.batch(batch_size)
    dataset.file_paths = list(paths)
    return dataset


def _check_label_mode(labels, label_mode, class_names):
    if label_mode not in ("int", "categorical", "binary", None):
        raise ValueError('`label_mode` argument must be one of "int", "categorical", '
                         f'"binary", or None. Received: label_mode={label_mode}')
    if labels not in ("inferred", None) and not isinstance(labels, (list, tuple)):
        raise ValueError("`labels` argument should be a list/tuple of integer labels, of the "
                         'same size as the number of files in the target directory. If you '
                         'wish to infer the labels from the subdirectory names in the target '
                         'directory, pass `labels="inferred"`. If you wish to get a dataset '
                         f"that only contains images (no labels), pass `labels=None`. "
                         f"Received: labels={labels}")
    if class_names is not None and labels != "inferred":
        raise ValueError("You can only pass `class_names` if `labels='inferred'`. Received: "
                         f"labels={labels}, and class_names={class_names}")


def _build(directory, labels, label_mode, class_names, formats, load, batch_size, shuffle,
           seed, validation_split, subset, follow_links, verbose, batch=None):
    _check_label_mode(labels, label_mode, class_names)
    _check_split(validation_split, subset, shuffle, seed)
    if seed is None:
        seed = np.random.randint(1e6)
    paths, found, class_names = _index_directory(directory, labels, formats, class_names,
                                                 shuffle, seed, follow_links, verbose)
    if label_mode == "binary" and len(class_names) != 2:
        raise ValueError('When passing `label_mode="binary"`, there must be exactly 2 '
                         f"class_names. Received: class_names={class_names}")
    datasets = []
    for part_paths, part_labels in _split(paths, found, validation_split, subset, verbose):
        if not part_paths:
            raise ValueError(f"No files found in directory {directory}. Allowed formats: "
                             f"{formats}")
        dataset = _dataset(part_paths, part_labels, label_mode, len(class_names), load,
                           batch_size, shuffle, seed, batch)
        dataset.class_names = class_names
        datasets.append(dataset)
    return datasets if subset == "both" else datasets[0]


def image_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, color_mode="rgb", batch_size=32,
                                 image_size=(256, 256), shuffle=True, seed=None,
                                 validation_split=None, subset=None, interpolation="bilinear",
                                 follow_links=False, crop_to_aspect_ratio=False,
                                 pad_to_aspect_ratio=False, data_format=None, verbose=True):
    """A Dataset of (images, labels) batches from `directory/<class>/<image file>`.

    Images (bmp, gif, jpeg, png) are decoded, resized to `image_size` with
    `interpolation` and yielded as float32 (batch, height, width, channels);
    labels are int32 class indices ('int'), one-hot float32 ('categorical'),
    float32 (batch, 1) ('binary'), or left out (label_mode=None). The
    Dataset's `class_names` lists the classes in label order. With
    `validation_split` and `subset` ('training', 'validation' or 'both': a
    list of two), the last fraction of the seeded shuffle is the validation set.

    Raises:
        ValueError: for bad arguments, as Keras, or a directory with no images.
        ImportError: when the images are read, if Pillow is not installed.
    """
    if color_mode not in _CHANNELS:
        raise ValueError('`color_mode` must be one of {"rgb", "rgba", "grayscale"}. '
                         f"Received: color_mode={color_mode}")
    if data_format not in (None, "channels_last"):
        raise ValueError("image_dataset_from_directory: tapeflow yields channels_last images "
                         f"only. Received: data_format={data_format}")
    height, width = (image_size, image_size) if isinstance(image_size, int) else image_size

    def load(path):
        image = np.asarray(load_img(path.numpy().decode(), color_mode=color_mode), np.float32)
        image = image.reshape(image.shape[:2] + (_CHANNELS[color_mode],))
        if crop_to_aspect_ratio:
            top, left, h, w = aspect_crop_box(image.shape[0], image.shape[1], height, width)
            image = image[top:top + h, left:left + w]
        elif pad_to_aspect_ratio:
            image = _pad_to_aspect(image, height, width)
        return resize(Tensor(image), (height, width), method=interpolation)

    return _build(directory, labels, label_mode, class_names, _IMAGE_FORMATS, load, batch_size,
                  shuffle, seed, validation_split, subset, follow_links, verbose)


def _pad_to_aspect(image, height, width):
    in_h, in_w = image.shape[:2]
    pad_h = max(int(in_w * height / width) - in_h, 0)
    pad_w = max(int(in_h * width / height) - in_w, 0)
    return np.pad(image, [(pad_h // 2, pad_h - pad_h // 2), (pad_w // 2, pad_w - pad_w // 2),
                          (0, 0)])


def text_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                class_names=None, batch_size=32, max_length=None, shuffle=True,
                                seed=None, validation_split=None, subset=None,
                                follow_links=False, verbose=True):
    """A Dataset of (texts, labels) batches from `directory/<class>/<name>.txt`:
    each text is a string tensor of the file's contents (cut to `max_length`
    characters if given); labels as in `image_dataset_from_directory`."""

    def load(path):
        with open(path.numpy().decode(), encoding="utf-8") as f:
            text = f.read()
        return constant(text if max_length is None else text[:max_length])

    return _build(directory, labels, label_mode, class_names, (".txt",), load, batch_size,
                  shuffle, seed, validation_split, subset, follow_links, verbose)


def audio_dataset_from_directory(directory, labels="inferred", label_mode="int",
                                 class_names=None, batch_size=32, sampling_rate=None,
                                 output_sequence_length=None, ragged=False, shuffle=True,
                                 seed=None, validation_split=None, subset=None,
                                 follow_links=False, verbose=True):
    """A Dataset of (audio, labels) batches from `directory/<class>/<name>.wav`: each
    clip decoded by tf.audio.decode_wav to float32 (samples, channels), cut or padded
    with zeros to `output_sequence_length`, else padded to the longest clip of its
    batch; labels as in `image_dataset_from_directory`.

    Raises:
        ValueError: for bad arguments, as Keras; for `sampling_rate` different from a
            file's (Keras resamples with tensorflow-io; tapeflow does not resample).
    """
    if ragged and output_sequence_length is not None:
        raise ValueError("Cannot set both `ragged` and `output_sequence_length`")
    if ragged:
        raise NotImplementedError("audio_dataset_from_directory(ragged=True) is not "
                                  "supported by tapeflow; pad with output_sequence_length.")

    def load(path):
        with open(path.numpy().decode(), "rb") as f:
            audio, rate = decode_wav(constant(f.read()), desired_samples=(
                -1 if output_sequence_length is None else int(output_sequence_length)))
        if sampling_rate is not None and int(rate) != int(sampling_rate):
            raise ValueError(f"{path.numpy().decode()} is sampled at {int(rate)} Hz, not "
                             f"sampling_rate={sampling_rate}; tapeflow does not resample.")
        return audio

    def batch(dataset, size):
        if output_sequence_length is not None:  # every clip has that length already
            return dataset.batch(size)
        spec = dataset.element_spec
        audio_shape = [None, None] if not isinstance(spec, tuple) else None
        shapes = audio_shape if audio_shape else ([None, None],) + tuple(
            list(s.shape) for s in spec[1:])
        return dataset.padded_batch(size, padded_shapes=shapes)

    return _build(directory, labels, label_mode, class_names, (".wav",), load, batch_size,
                  shuffle, seed, validation_split, subset, follow_links, verbose, batch)
