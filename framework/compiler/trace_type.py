"""trace_type.py is tf.types.experimental: the tracing protocol of TF's `tf.function`
(tensorflow/python/types/trace.py). An argument whose class defines
`__tf_tracing_type__(context)` is keyed by the TraceType it returns instead of
by identity (compiler/signature.py): a call reuses a traced signature when its
type `is_subtype_of` the signature's, `reduce_retracing` joins two types by
`most_specific_common_supertype`, and the function is traced with the type's
`placeholder_value` in place of the argument, as TF's. Types are compared with
`==` and hashed for the exact lookup, so both must be defined.
"""

import abc
import typing

__all__ = ["CastContext", "PlaceholderContext", "SupportsTracingProtocol", "TraceType",
           "TracingContext"]


class TraceType(metaclass=abc.ABCMeta):
    """The type of an argument for tapeflow.function's tracing: which traced
    signature a call may reuse, and what the function is traced with."""

    @abc.abstractmethod
    def is_subtype_of(self, other):
        """Whether an argument of this type may run a function traced for `other`."""

    @abc.abstractmethod
    def most_specific_common_supertype(self, others):
        """The most specific type all of `self` and `others` are subtypes of, or None."""

    @abc.abstractmethod
    def placeholder_value(self, placeholder_context):
        """The value the function is traced with for an argument of this type."""

    def to_tensors(self, value):
        """The tensors of `value` that are inputs of the trace: none by default (the
        placeholder's tensors are captured as constants, as TF's)."""
        del value
        return []

    def from_tensors(self, tensors):
        """A value of this type from the tensors `to_tensors` gives."""
        del tensors
        return self.placeholder_value(PlaceholderContext())

    def flatten(self):
        """The types of `to_tensors`' values."""
        return []

    def cast(self, value, cast_context):
        """`value` as this type (by default the value itself, which must equal the
        placeholder)."""
        del cast_context
        if value != self.placeholder_value(PlaceholderContext()):
            raise TypeError(f"Can not cast {value!r} to type {self!r}.")
        return value

    @abc.abstractmethod
    def __hash__(self):
        """Types equal by `==` must hash alike (the exact lookup of a signature)."""

    @abc.abstractmethod
    def __eq__(self, other):
        """Whether `other` is the same type (then the same signature is reused)."""


class TracingContext(metaclass=abc.ABCMeta):
    """What `__tf_tracing_type__(context)` is given: shared by the arguments of one
    call (reserved, as in TF, for flags of future use)."""


class PlaceholderContext:
    """What `placeholder_value(placeholder_context)` is given (reserved, as in TF)."""


class CastContext:
    """What `cast(value, cast_context)` is given (reserved, as in TF)."""


@typing.runtime_checkable
class SupportsTracingProtocol(typing.Protocol):
    """A class that controls tapeflow.function's retracing for its instances."""

    @abc.abstractmethod
    def __tf_tracing_type__(self, context):
        """The TraceType of this object, given a TracingContext."""
