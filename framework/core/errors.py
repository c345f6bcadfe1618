"""errors.py holds the exception types TF code catches (`tf.errors.*`): TF's whole
set, each also a subclass of the Python exception a Python user would catch."""

__all__ = ["OpError", "CancelledError", "UnknownError", "InvalidArgumentError",
           "DeadlineExceededError", "NotFoundError", "AlreadyExistsError",
           "PermissionDeniedError", "UnauthenticatedError", "ResourceExhaustedError",
           "FailedPreconditionError", "AbortedError", "OutOfRangeError", "UnimplementedError",
           "InternalError", "UnavailableError", "DataLossError"]


class OpError(Exception):
    """Base of the op errors, as `tf.errors.OpError`."""


class InvalidArgumentError(OpError, ValueError):
    """An op got arguments of the wrong shape, dtype or value.

    A ValueError subclass, so `except ValueError` catches it as well.
    """


class NotFoundError(OpError, LookupError):
    """A file or name that was asked for does not exist."""


class UnimplementedError(OpError, NotImplementedError):
    """The operation is not implemented by tapeflow."""


class AlreadyExistsError(OpError, FileExistsError):
    """A file or name that was to be created exists already."""


class FailedPreconditionError(OpError, OSError):
    """The system is not in the state the operation needs (a closed writer, a directory)."""


class DataLossError(OpError):
    """Data are damaged beyond recovery (a truncated record, a CRC that does not match)."""


class OutOfRangeError(OpError, IndexError):
    """An iterator or queue is exhausted, or an index is past the end."""


class CancelledError(OpError):
    """The operation was cancelled."""


class UnknownError(OpError):
    """An error of no other kind."""


class DeadlineExceededError(OpError, TimeoutError):
    """The operation did not finish in time."""


class PermissionDeniedError(OpError, PermissionError):
    """The caller may not run the operation."""


class UnauthenticatedError(OpError):
    """The request has no valid credentials."""


class ResourceExhaustedError(OpError, MemoryError):
    """A resource, such as memory, ran out."""


class AbortedError(OpError):
    """The operation was aborted, typically by a concurrent action."""


class InternalError(OpError, RuntimeError):
    """An invariant of tapeflow is broken: a bug to report."""


class UnavailableError(OpError):
    """The service is unavailable for now."""
