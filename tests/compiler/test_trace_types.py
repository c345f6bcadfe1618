"""tf.types.experimental's tracing protocol: an argument whose class defines
`__tf_tracing_type__` is keyed by its TraceType (TF's
tensorflow/python/types/trace.py): equal types reuse a trace, a subtype runs a
trace of its supertype, reduce_retracing joins types by
most_specific_common_supertype, the function is traced with the type's
placeholder_value, and a method returning anything but a hashable TraceType is
refused with TF's TypeError."""

import pytest
import tapeflow as tf


class Dimension(tf.types.experimental.TraceType):
    """TF's docstring example: a value, or None standing for any value."""

    def __init__(self, value):
        self.value = value

    def is_subtype_of(self, other):
        return type(other) is Dimension and other.value in (None, self.value)

    def most_specific_common_supertype(self, others):
        if all(type(o) is Dimension and o.value == self.value for o in others):
            return self
        return Dimension(None)

    def placeholder_value(self, placeholder_context=None):
        return Sized(self.value)

    def __eq__(self, other):
        return type(other) is Dimension and other.value == self.value

    def __hash__(self):
        return hash(self.value)

    def __repr__(self):
        return f"Dimension({self.value})"


class Sized:
    def __init__(self, n):
        self.n = n

    def __tf_tracing_type__(self, context):
        assert isinstance(context, tf.types.experimental.TracingContext)
        return Dimension(self.n)


def test_equal_trace_types_reuse_the_trace_and_other_types_retrace():
    seen = []

    @tf.function
    def f(s, x):
        seen.append(s.n)
        return x * 2

    assert f(Sized(3), tf.constant(1.0)).numpy() == 2.0
    assert f(Sized(3), tf.constant(5.0)).numpy() == 10.0  # another object, the same type
    assert f.experimental_get_tracing_count() == 1
    assert f(Sized(4), tf.constant(1.0)).numpy() == 2.0
    assert f.experimental_get_tracing_count() == 2
    assert seen == [3, 4]


def test_a_subtype_runs_the_trace_of_its_supertype():
    @tf.function
    def f(s):
        return tf.constant(-1 if s.n is None else s.n)

    f.get_concrete_function(Sized(None))
    assert f(Sized(7)).numpy() == -1  # Dimension(7) is a subtype of Dimension(None)
    assert f.experimental_get_tracing_count() == 1


def test_reduce_retracing_traces_the_common_supertype_with_its_placeholder():
    seen = []

    @tf.function(reduce_retracing=True)
    def f(s):
        seen.append(s.n)  # the placeholder's, not the argument's
        return tf.constant(0)

    f(Sized(1))
    f(Sized(2))  # joined with Dimension(1): Dimension(None), traced with Sized(None)
    f(Sized(3))  # a subtype of Dimension(None): no new trace
    assert seen == [1, None]
    assert f.experimental_get_tracing_count() == 2


def test_the_function_is_traced_with_the_placeholder_value():
    class Box:
        def __init__(self, value):
            self.value = value

        def __tf_tracing_type__(self, context):
            return BoxType()

    class BoxType(tf.types.experimental.TraceType):
        def is_subtype_of(self, other):
            return type(other) is BoxType

        def most_specific_common_supertype(self, others):
            return self

        def placeholder_value(self, placeholder_context=None):
            return Box(tf.constant(100))

        def __eq__(self, other):
            return type(other) is BoxType

        def __hash__(self):
            return 0

    @tf.function
    def f(box):
        return box.value + 1

    assert f(Box(tf.constant(1))).numpy() == 101  # TF: the trace saw the placeholder
    assert f(Box(tf.constant(2))).numpy() == 101
    assert f.experimental_get_tracing_count() == 1


def test_trace_type_is_abstract_and_the_protocol_is_checkable():
    with pytest.raises(TypeError):
        tf.types.experimental.TraceType()
    assert isinstance(Sized(1), tf.types.experimental.SupportsTracingProtocol)
    assert not isinstance(object(), tf.types.experimental.SupportsTracingProtocol)


def test_a_tracing_type_that_is_not_a_trace_type_is_refused():
    class Bad:
        def __tf_tracing_type__(self, context):
            return "a string"

    @tf.function
    def f(x):
        return tf.constant(1)

    with pytest.raises(TypeError, match="Expected an instance of TraceType"):
        f(Bad())


def test_an_unhashable_trace_type_is_refused_naming_it():
    class NoHash(Dimension):
        __hash__ = None

    class Holder:
        def __tf_tracing_type__(self, context):
            return NoHash(1)

    @tf.function
    def f(x):
        return tf.constant(1)

    with pytest.raises(TypeError, match="NoHash given by Holder.__tf_tracing_type__ is not "
                                        "hashable"):
        f(Holder())
