"""The corpus's data: the real MNIST test set beside the project (../shared/data/mnist),
read with tapeflow.datasets' IDX reader, split into a train and a held-out part; and
`summary_rows`, what a page's `model.summary()` table shows, for its asserts."""

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


def _summary_rows(model):
    """The rows of `model.summary()`'s table: (layer type, output shape, parameters)."""
    lines = []
    model.summary(print_fn=lines.append)
    rows = []
    for line in "\n".join(lines).splitlines():
        cells = [cell.strip() for cell in line.strip().strip("\u2502").split("\u2502")]
        if len(cells) == 3 and cells[0].endswith(")") and cells[2].replace(",", "").isdigit():
            rows.append((cells[0].rsplit("(", 1)[1][:-1], cells[1], int(cells[2].replace(",", ""))))
    return rows


@pytest.fixture(scope="session")
def summary_rows():
    """A function: the rows of a model's summary table, (layer type, output shape,
    parameters)."""
    return _summary_rows
