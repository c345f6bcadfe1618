"""function.py holds `tapeflow.function`, the stand-in for `tf.function`.

tapeflow is always eager: the decorator runs the Python function as it is,
with identical results, and compiles nothing yet (a later piece of work)."""

import functools

__all__ = ["function"]


def function(func=None, input_signature=None, autograph=True, jit_compile=None,
             reduce_retracing=False, experimental_compile=None, **unused_options):
    """Decorate a function the way `tf.function` does, and run it eagerly.

    Unlike TF, tapeflow does not trace the function into a graph: the
    decorated function is the original one, called eagerly each time, so it
    gives the same values as TF's compiled version, including Python side
    effects on every call. The options are accepted for compatibility.

    >>> @tf.function
    ... def f(x):
    ...     return x * x
    """
    def decorate(fn):
        @functools.wraps(fn)
        def eager(*args, **kwargs):
            return fn(*args, **kwargs)

        eager.python_function = fn
        return eager

    return decorate if func is None else decorate(func)
