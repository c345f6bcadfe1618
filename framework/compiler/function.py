"""function.py holds `tapeflow.function`, the stand-in for `tf.function`.

tapeflow is always eager: the decorator runs the Python function as it is,
with identical results, and compiles nothing yet (a later piece of work).
`tf.config.run_functions_eagerly(True)` is stored in runtime/settings.py; the
compiled path, once there, must read `_run_eagerly()` at every call and run
the Python function itself while it is True, as TF does."""

import functools

from ..runtime.settings import user_setting

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
            # Eager whatever _run_eagerly() says, until a compiled path exists;
            # that path goes here, behind `if not _run_eagerly():`.
            return fn(*args, **kwargs)

        eager.python_function = fn
        return eager

    return decorate if func is None else decorate(func)


def _run_eagerly():
    """Whether tf.config.run_functions_eagerly(True) is in effect."""
    return user_setting("run_functions_eagerly")
