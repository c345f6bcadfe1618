"""Weights written by real Keras load into tapeflow's applications and give
Keras's predictions (optional: needs h5py, and keras importable or KERAS_PYTHON
naming an interpreter that has it). Keras builds each model with random
weights and random batch-norm statistics and writes them both as Keras 3's
.weights.h5 and in Keras 2's HDF5 layout (that of the ImageNet weights files,
which `weights='imagenet'` downloads), with its predictions on fixed images."""

import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from tapeflow import applications

# name -> (constructor keyword arguments, image size)
CASES = {
    "MobileNet": (dict(alpha=0.25), 64),
    "MobileNetV2": (dict(alpha=0.35), 64),
    "EfficientNetB0": ({}, 64),
    "DenseNet121": ({}, 32),
    "Xception": ({}, 71),
    "ResNet50": ({}, 32),
    "ResNet50V2": ({}, 32),
    "InceptionV3": ({}, 75),
}
# Both formats are read by the position of a layer in model.layers (Keras 3's
# file names each layer by its class and rank: 'layers/conv2d_1'), which is
# Keras's order in tapeflow too (models/functional.py), branching graphs included.

KERAS_SCRIPT = """
import json, os, sys
os.environ.setdefault("KERAS_BACKEND", "numpy")
import h5py, numpy as np, keras
from keras.src.legacy.saving import legacy_h5_format
name, kwargs, size, folder = sys.argv[1], json.loads(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
keras.utils.set_random_seed(0)
model = getattr(keras.applications, name)(weights=None, include_top=False, pooling="avg",
                                          input_shape=(size, size, 3), **kwargs)
rng = np.random.default_rng(1)
for weight in model.weights:
    if "moving_mean" in weight.path:
        weight.assign(rng.uniform(-0.1, 0.1, weight.shape).astype("float32"))
    elif "moving_variance" in weight.path:
        weight.assign(rng.uniform(0.5, 1.5, weight.shape).astype("float32"))
images = rng.uniform(0, 255, (2, size, size, 3)).astype("float32")
np.save(os.path.join(folder, "images.npy"), images)
np.save(os.path.join(folder, "predictions.npy"), model.predict(images, verbose=0))
model.save_weights(os.path.join(folder, "model.weights.h5"))
with h5py.File(os.path.join(folder, "keras2.h5"), "w") as f:
    legacy_h5_format.save_weights_to_hdf5_group(f, model)
"""


def keras_python():
    if importlib.util.find_spec("keras") is not None:
        return sys.executable
    return os.environ.get("KERAS_PYTHON") or pytest.skip(
        "keras is not installed (set KERAS_PYTHON to an interpreter that has it)")


@pytest.fixture(scope="module")
def written_by_keras(tmp_path_factory):
    python = keras_python()
    pytest.importorskip("h5py")
    folders = {}
    for name, (kwargs, size) in CASES.items():
        folder = tmp_path_factory.mktemp(name)
        subprocess.run([python, "-c", KERAS_SCRIPT, name, json.dumps(kwargs), str(size),
                        str(folder)], check=True, timeout=600, capture_output=True)
        folders[name] = folder
    return folders


@pytest.mark.parametrize("file_name", ["model.weights.h5", "keras2.h5"])
@pytest.mark.parametrize("name", list(CASES))
def test_keras_weights_give_keras_predictions(written_by_keras, name, file_name):
    kwargs, size = CASES[name]
    folder = written_by_keras[name]
    model = getattr(applications, name)(weights=str(folder / file_name), include_top=False,
                                        pooling="avg", input_shape=(size, size, 3), **kwargs)
    expected = np.load(folder / "predictions.npy")
    assert np.abs(expected).max() > 1e-3  # not a degenerate all-zero output
    out = model(np.load(folder / "images.npy"), training=False).numpy()
    # float32 rounding through ~50 layers grows with the activations' scale, and
    # which GEMM runs each product (measured on the machine) changes it: ResNet50V2's
    # features reach 50 and differ from Keras's by up to 1e-6 of that with tapeflow's
    # GEMM (0.7e-6 on BLAS), so a near-zero feature's error is set against the scale.
    # A weight read into the wrong place moves features by a good part of it.
    scale = np.abs(expected).max()
    np.testing.assert_allclose(out, expected, rtol=1e-4, atol=max(1e-5, 5e-6 * scale))
