"""tf.errors has TF's whole set of op errors, each catchable as TF's OpError and as
the Python exception a Python user would reach for."""

import pytest

import tapeflow as tf

TF_ERRORS = ["CancelledError", "UnknownError", "InvalidArgumentError", "DeadlineExceededError",
             "NotFoundError", "AlreadyExistsError", "PermissionDeniedError",
             "UnauthenticatedError", "ResourceExhaustedError", "FailedPreconditionError",
             "AbortedError", "OutOfRangeError", "UnimplementedError", "InternalError",
             "UnavailableError", "DataLossError"]


@pytest.mark.parametrize("name", TF_ERRORS)
def test_every_tf_error_is_an_op_error(name):
    assert issubclass(getattr(tf.errors, name), tf.errors.OpError)


@pytest.mark.parametrize("name, python_base", [
    ("InvalidArgumentError", ValueError), ("NotFoundError", LookupError),
    ("AlreadyExistsError", FileExistsError), ("OutOfRangeError", IndexError),
    ("UnimplementedError", NotImplementedError), ("PermissionDeniedError", PermissionError),
    ("ResourceExhaustedError", MemoryError), ("DeadlineExceededError", TimeoutError),
])
def test_errors_are_also_the_python_exception(name, python_base):
    assert issubclass(getattr(tf.errors, name), python_base)


def test_io_raises_the_shared_classes(tmp_path):
    assert tf.io.gfile.AlreadyExistsError is tf.errors.AlreadyExistsError
    with pytest.raises(tf.errors.FailedPreconditionError):
        tf.io.read_file(str(tmp_path))  # a directory
