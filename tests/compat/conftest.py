"""The corpus's data: the real MNIST test set beside the project (../shared/data/mnist),
read with tapeflow.datasets' IDX reader, split into a train and a held-out part."""

from pathlib import Path

import pytest

MNIST_DIR = Path(__file__).resolve().parents[2].parent / "shared" / "data" / "mnist"


@pytest.fixture(scope="session")
def mnist_split():
    """((x_train, y_train), (x_test, y_test)) as `tf.keras.datasets.mnist.load_data()`
    returns them (uint8 images (n, 28, 28), uint8 labels), the first 8000 of the 10,000
    test images standing for the training set, the last 2000 for the test set."""
    if not (MNIST_DIR / "t10k-images-idx3-ubyte.gz").exists():
        pytest.skip("the real MNIST files are not beside the project")
    from tapeflow.datasets import mnist
    images, labels = mnist.load_test_set(MNIST_DIR)
    return (images[:8000], labels[:8000]), (images[8000:], labels[8000:])
