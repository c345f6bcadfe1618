"""conversion.py turns a Python function into its AutoGraph form: it reads the
source (inspect.getsource), rewrites the tree (transformer.py) and compiles it
into a function with the original's globals, closure cells, defaults and file
and line numbers, so tracebacks name the user's lines. Converted code calls
operators.py as `ag__`, bound as a closure cell (the user's globals are left
alone). Code objects are converted once and cached.

What cannot be converted runs as it is, as TF's AutoGraph does: lambdas,
builtins and callables that are not Python functions, functions whose source
is not available (the interpreter, exec), generators, tapeflow's own functions,
libraries' functions (site-packages, the standard library) and functions
marked with `do_not_convert`. With `set_verbosity(1)` or more a warning says
why. As in TF, converted code calls everything through `converted_call`, so
the user's functions and methods it calls are converted too (callable objects
such as Keras layers are called as they are).
"""

import ast
import functools
import inspect
import textwrap
import types
import warnings
import weakref

from ...api.array_ops import range as _tf_range
from ...api.printing import print_ as _print
from ...core.tensor import Tensor, Variable
from ..tracing import current_trace
from . import operators
from .transformer import transform_function

__all__ = ["convert", "converted_call", "converted_lazily", "converted_source", "do_not_convert", "get_verbosity",
           "set_verbosity", "weakly_bound"]

_DO_NOT_CONVERT = "__ag_do_not_convert__"
_CONVERTED = "__ag_converted__"
_CONVERTED_FORM = "__ag_converted_form__"  # on a user's function: what converted_call runs
_LIBRARIES = ("site-packages", "dist-packages", "/lib/python")  # code never converted, as TF
_verbosity = [0]
_compiled = {}  # code object -> (code of the converted function, its source) or None


def set_verbosity(level, alsologtostdout=False):
    """tf.autograph.set_verbosity: 1 or more warns about functions AutoGraph runs
    unconverted (TF logs them; tapeflow uses the warnings module)."""
    _verbosity[0] = int(level)


def get_verbosity():
    return _verbosity[0]


def do_not_convert(func=None):
    """tf.autograph.experimental.do_not_convert: `func` runs as it is inside
    tf.function (usable as a decorator)."""
    if func is None:
        return do_not_convert

    @functools.wraps(func)
    def unconverted(*args, **kwargs):
        return func(*args, **kwargs)

    setattr(unconverted, _DO_NOT_CONVERT, True)
    return unconverted


def convert(func, enabled=True):
    """`func` converted, or `func` itself when it cannot or should not be (or
    `enabled` is False: tf.function(autograph=False))."""
    if not enabled or getattr(func, _DO_NOT_CONVERT, False) or getattr(func, _CONVERTED, False):
        return func
    if isinstance(func, types.MethodType):
        converted = convert(func.__func__)
        return func if converted is func.__func__ else types.MethodType(converted, func.__self__)
    call = getattr(type(func), "__call__", None)  # noqa: B004 (the method, to convert it)
    if not isinstance(func, types.FunctionType) and type(call) is types.FunctionType:
        converted = convert(call)  # a callable object: its __call__
        return func if converted is call else types.MethodType(converted, func)
    why = _unconvertible(func)
    entry = None if why is not None else _compile(func)
    if isinstance(entry, str):
        why = entry
    if why is not None:
        if _verbosity[0] >= 1:
            warnings.warn(f"AutoGraph could not transform {func!r} and will run it as-is: "
                          f"{why}.", stacklevel=3)
        return func
    return _bind(func, entry[0])


def converted_call(function, *args, **kwargs):
    """`function(*args, **kwargs)`, converting a user's Python function or method
    first, as TF's AutoGraph converts the functions a converted one calls
    (converted code calls everything through this; the converted form is kept
    on the function)."""
    trace = current_trace()
    if trace is not None and trace.dry and not trace.effects:
        recorded = _dry_effect(trace, function, args, kwargs)
        if recorded is not _NOT_RECORDED:
            return recorded
    kind = type(function)
    if kind is types.FunctionType:
        converted = function.__dict__.get(_CONVERTED_FORM)
        if converted is None:
            converted = convert(function)
            function.__dict__[_CONVERTED_FORM] = converted
        return converted(*args, **kwargs)
    if kind is types.MethodType and type(function.__func__) is types.FunctionType:
        return converted_call(function.__func__, function.__self__, *args, **kwargs)
    call = getattr(kind, "__call__", None)  # noqa: B004 (the method, to convert it)
    if type(call) is types.FunctionType:  # a callable object: its __call__, as TF's
        return converted_call(call, function, *args, **kwargs)
    return function(*args, **kwargs)


def converted_lazily(func, enabled=True):
    """A function calling `func`'s converted form, converted at its first call
    (tapeflow.function's: the first trace pays, as TF's); `func` itself when
    not `enabled` (tf.function(autograph=False))."""
    if not enabled:
        return func
    converted = None

    @functools.wraps(func)
    def call_converted(*args, **kwargs):
        nonlocal converted
        if converted is None:
            converted = convert(func)
        return converted(*args, **kwargs)

    return call_converted


def converted_source(func):
    """The source of `func`'s converted form (tf.autograph.to_code)."""
    why = _unconvertible(func)
    if why is not None:
        raise ValueError(f"AutoGraph cannot convert {func!r}: {why}.")
    entry = _compile(func)
    if isinstance(entry, str):
        raise ValueError(f"AutoGraph cannot convert {func!r}: {entry}.")  # noqa: TRY004
    return entry[1]


def _unconvertible(func):
    if not isinstance(func, types.FunctionType):
        return "it is not a Python function"
    code = func.__code__
    if code.co_name == "<lambda>":
        return "it is a lambda"
    module = getattr(func, "__module__", None) or ""
    if module == "tapeflow" or module.startswith("tapeflow."):
        return "it is tapeflow's own function"
    if any(part in code.co_filename for part in _LIBRARIES):
        return "it is a library's function"
    if func.__code__.co_flags & (inspect.CO_GENERATOR | inspect.CO_COROUTINE
                                 | inspect.CO_ASYNC_GENERATOR):
        return "it is a generator or coroutine"
    return None


def _compile(func):
    """(converted code, its source) for `func`'s code, or why it cannot be had."""
    code = func.__code__
    entry = _compiled.get(code)
    if entry is None:
        try:
            entry = _compile_code(func, code)
        except Exception as error:  # noqa: BLE001 (any failure: run it as it is, as TF)
            entry = f"its source could not be converted ({type(error).__name__}: {error})"
        _compiled[code] = entry
    return entry


_CONVERTED_NAME = "ag__converted"


def _compile_code(func, code):
    # The code's own source: getsource(func) would follow __wrapped__ to another.
    source = textwrap.dedent(inspect.getsource(code))
    tree = ast.parse(source)
    node = next((n for n in tree.body if isinstance(n, ast.FunctionDef)
                 and n.name == code.co_name), None)
    if node is None:
        return "its source was not found"
    node.decorator_list = []
    ast.increment_lineno(node, code.co_firstlineno - 1)  # the source starts at that line
    transform_function(node, global_names=())
    # Renamed, so that the function's own name in its body stays what it was (a
    # global, a closure's cell), not the factory's local (a module-level
    # function calling itself); _user_names gives its code the user's name back.
    node.name = _CONVERTED_NAME
    free = list(code.co_freevars)
    factory = ast.FunctionDef(
        name="ag__factory", args=ast.arguments(
            posonlyargs=[], args=[ast.arg(arg=n) for n in ["ag__"] + free if n != "__class__"],
            vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[node, ast.Return(value=ast.Name(id=node.name, ctx=ast.Load()))],
        decorator_list=[], returns=None, type_params=[])
    owner = _owner_class(func)
    body = [factory]
    if owner is not None:  # a method: super() and private names need its class
        body = [ast.ClassDef(name=owner, bases=[], keywords=[], body=[factory],
                             decorator_list=[], type_params=[])]
    module = ast.Module(body=body, type_ignores=[])
    ast.fix_missing_locations(module)
    compiled = compile(module, code.co_filename, "exec")
    namespace = {}
    exec(compiled, {"__name__": func.__module__}, namespace)  # noqa: S102 (defines only)
    factory_function = namespace[owner].ag__factory if owner else namespace["ag__factory"]
    inner = next(c for c in factory_function.__code__.co_consts
                 if isinstance(c, types.CodeType) and c.co_name == node.name)
    node.name = code.co_name  # (to_code shows the user's name)
    return _user_names(inner, code.co_name, code.co_qualname), ast.unparse(node)


def _user_names(code, name, qualname):
    """`code` with the functions made for its blocks named as the user's function,
    so that warnings and tracebacks name it (their lines are the user's already)."""
    consts = tuple(_user_names(c, name, qualname) if isinstance(c, types.CodeType) else c
                   for c in code.co_consts)
    if code.co_name.startswith("ag__"):
        return code.replace(co_consts=consts, co_name=name, co_qualname=qualname)
    return code.replace(co_consts=consts)


_NOT_RECORDED = object()
# Effects a dry trace (a branch not taken, a loop not entered) records without
# running them: what each returns (the Variable itself, or None).
_DRY_EFFECTS = {Variable.assign.__code__: True, Variable.assign_add.__code__: True,
                Variable.assign_sub.__code__: True, _print.__code__: False}


def _dry_effect(trace, function, args, kwargs):
    """Record `function(*args, **kwargs)` as a call node of the dry trace without
    running it, when it is an assignment or tf.print called by converted code:
    so `if step % 100 == 0: tf.print(loss)` stays traced (the tracing hook would
    have to stop at it: the branch must not run)."""
    if type(function) is types.MethodType:
        args, function = (function.__self__, *args), function.__func__
    returns_self = _DRY_EFFECTS.get(getattr(function, "__code__", None))
    if returns_self is None:
        return _NOT_RECORDED
    trace.end_effect(trace.begin_effect(function, args, kwargs), None)
    return args[0] if returns_self else None


def iterable_call(function, *args, **kwargs):
    """`function(*args, **kwargs)` as a for loop's iterable: tf.range gives the
    loop a TensorRange, so that it need not make the range (whose length may
    depend on a traced value)."""
    if function is _tf_range or (function is range and any(
            isinstance(a, Tensor) for a in args)):  # range(n) of a tensor: TF's tf.range
        return operators.TensorRange(*args, **kwargs)
    return converted_call(function, *args, **kwargs)


# What converted code calls as `ag__.name`: operators.py's functions and the calls above.
_AG = types.SimpleNamespace(**{n: getattr(operators, n) for n in operators.__all__},
                            converted_call=converted_call, iterable_call=iterable_call)


def _owner_class(func):
    parts = func.__qualname__.split(".")
    if len(parts) >= 2 and parts[-2] != "<locals>":
        return parts[-2]
    return None


def _bind(func, code):
    """The converted code as a function with `func`'s globals, cells and defaults."""
    cells = dict(zip(func.__code__.co_freevars, func.__closure__ or ()))
    cells["ag__"] = types.CellType(_AG)
    closure = tuple(cells[n] for n in code.co_freevars)
    converted = types.FunctionType(code, func.__globals__, func.__name__, func.__defaults__,
                                   closure or None)
    converted.__kwdefaults__ = func.__kwdefaults__
    converted.__dict__.update(func.__dict__)
    for attribute in ("__qualname__", "__module__", "__doc__", "__annotations__"):
        setattr(converted, attribute, getattr(func, attribute))
    converted.__wrapped__ = func
    setattr(converted, _CONVERTED, True)
    return converted


def weakly_bound(function, instance, owner):
    """`function` bound to `instance` without keeping it alive: the Function
    (function.py) cached for the instance in a WeakKeyDictionary must not hold
    its key."""
    method = function.__get__(instance, owner)
    try:
        ref = weakref.ref(instance)
    except TypeError:
        return method

    @functools.wraps(function)
    def weak_method(*args, **kwargs):
        return function(ref(), *args, **kwargs)

    weak_method.__signature__ = inspect.signature(method)
    weak_method.bound_method = lambda: function.__get__(ref(), owner)
    return weak_method
