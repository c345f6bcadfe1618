"""errors.py holds the exception types TF code catches (`tf.errors.*`)."""

__all__ = ["InvalidArgumentError", "OpError", "NotFoundError", "UnimplementedError"]


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
