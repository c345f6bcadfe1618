"""module.py owns `tf.Module`, the named container of Variables and other Modules
(Keras's `Layer` is one), and the name scope a module opens. The per-thread name
scope that new Variables are named in is core/name_scope.py's; how Keras layers track
their weights is layers/variable_tracking.py's."""

import functools
import re
import weakref
from collections.abc import Mapping

from .core.name_scope import state as _scope
from .core.tensor import Variable

__all__ = ["Module"]

# Checkpoint restorations whose values wait for Variables not created yet
# (tf.train's restore.py); an attribute set on a Module tells them.
_assignment_watchers = weakref.WeakSet()

# Where Module.__new__ keeps the constructor's arguments, and where an object
# waiting for restored values keeps the restorations alive (tf.train's restore.py):
# bookkeeping, never walked as attributes.
_INIT_ARGUMENTS = "_tf_module_init_arguments"
DEFERRED_RESTORATIONS = "_tf_deferred_restorations"
_BOOKKEEPING = frozenset((_INIT_ARGUMENTS, DEFERRED_RESTORATIONS))

_CAMEL_TO_SNAKE = re.compile(r"((?<=[a-z0-9])[A-Z]|(?!^)[A-Z](?=[a-z]))")
_VALID_IDENTIFIER = re.compile(r"^[a-zA-Z_]([a-zA-Z0-9_])*$")


def _camel_to_snake(value):
    return _CAMEL_TO_SNAKE.sub(r"_\1", value).lower()


class _NameScope:
    """TF 2's `tf.name_scope(name)` in eager mode: entering it makes `name` the
    scope new Variables are named in, nested in the current one ('outer/name/');
    a name ending in '/' is a full scope name, '' the top. `with` gives the scope."""

    __slots__ = ("_name",)

    def __init__(self, name):
        if not isinstance(name, str):
            raise TypeError(f"name for name_scope must be a string. Received: name={name!r}")
        self._name = name

    @property
    def name(self):
        return self._name

    def __enter__(self):
        outer = _scope.scope
        if not self._name:
            scope = ""
        elif self._name.endswith("/"):
            scope = self._name
        else:
            scope = outer + self._name + "/"
        _scope.outer.append(outer)  # the thread's: threads may share one scope object
        _scope.scope = scope
        return scope

    def __exit__(self, *exc_info):
        _scope.scope = _scope.outer.pop()
        return False

    def __repr__(self):
        return f"<name_scope {self._name!r}>"


class Module:
    """A named container of Variables, other Modules and the functions using them,
    as `tf.Module`.

    Variables and Modules found in the attributes (also inside lists, tuples
    and dicts, nested) are collected by `variables`, `trainable_variables`,
    `non_trainable_variables` and `submodules`, each object once, in TF's
    order: a module's attributes sorted by name (dict entries by key), then
    each submodule's, recursively. Keras layers and models are Modules that
    list their weights in Keras's own order instead.

    Args:
        name: the module's name, a valid Python identifier; by default the
            snake_case class name ('my_module').

    Raises:
        ValueError: for a name that is not a valid Python identifier.

    >>> class Dense(tf.Module):
    ...     def __init__(self, in_features, out_features, name=None):
    ...         super().__init__(name=name)
    ...         with self.name_scope:
    ...             self.w = tf.Variable(tf.ones([in_features, out_features]), name="w")
    >>> Dense(3, 2).variables[0].name
    'dense/w:0'
    """

    # Attributes `_flatten` skips; subclasses extend the set with their own
    # bookkeeping (the two names are TF's AutoTrackable's, kept for such code).
    _TF_MODULE_IGNORED_PROPERTIES = frozenset((
        "_self_unconditional_checkpoint_dependencies",
        "_self_unconditional_dependency_names",
    ))

    def __new__(cls, *args, **kwargs):
        self = super().__new__(cls)
        # Plain-valued arguments are kept for tf.saved_model.load to call the class
        # with again; others (arrays, models) are not held on to: None says so.
        if args or kwargs:
            object.__setattr__(self, _INIT_ARGUMENTS,
                               (args, kwargs) if _is_plain((args, kwargs)) else None)
        return self

    def __init__(self, name=None):
        if name is None:
            name = _camel_to_snake(type(self).__name__)
        elif not isinstance(name, str):
            raise TypeError(f"Module name must be a string, got {type(name).__name__}: "
                            f"name={name!r}")
        elif not _VALID_IDENTIFIER.match(name):
            raise ValueError(f"{name!r} is not a valid module name. Module names must be "
                             "valid Python identifiers (e.g. a valid class name).")
        self._name = name
        # The scope is fixed when the module is made: inside an outer module's
        # scope it is 'outer/name/', whenever it is entered later.
        with _NameScope(name) as scope:
            self._name_scope = _NameScope(scope)

    def __setattr__(self, name, value):
        object.__setattr__(self, name, value)
        if _assignment_watchers:  # a restore is waiting for Variables: maybe this one
            notify_assignment(self)

    def _checkpoint_dependencies(self):
        """(name, Variable or trackable) pairs a checkpoint saves: the attributes
        (public names first, each sorted), lists and dicts inside as 'attr/0',
        'attr/key' (train/graph.py)."""
        return dependencies_of_attributes(vars(self), self._TF_MODULE_IGNORED_PROPERTIES)

    @property
    def name(self):
        """The module's name as given to (or made by) the constructor.

        Unlike `name_scope.name`, it does not include the outer modules' names.
        """
        return self._name

    @property
    def name_scope(self):
        """The module's name scope: `with module.name_scope:` names new
        Variables '<scope>/<name>' ('my_module/w:0')."""
        return self._name_scope

    @property
    def variables(self):
        """Every Variable of the module and its submodules, each once, as a tuple:
        the module's own (by attribute name), then each submodule's."""
        return tuple(self._flatten(predicate=_is_variable))

    @property
    def trainable_variables(self):
        """The trainable ones of `variables`, in the same order."""
        return tuple(self._flatten(predicate=_is_trainable_variable))

    @property
    def non_trainable_variables(self):
        """The non-trainable ones of `variables`, in the same order."""
        return tuple(self._flatten(predicate=_is_non_trainable_variable))

    @property
    def submodules(self):
        """Every Module reachable from the attributes, not this one, each once:
        the direct ones (by attribute name), then each one's submodules.

        >>> a, b, c = tf.Module(), tf.Module(), tf.Module()
        >>> a.b = b
        >>> b.c = c
        >>> list(a.submodules) == [b, c]
        True
        """
        return tuple(self._flatten(predicate=_is_module))

    def _flatten(self, recursive=True, predicate=None, attribute_traversal_key=None,
                 with_path=False):
        """The leaves of the attributes, then (`recursive`) of each submodule's.

        Attributes are visited sorted by name (`attribute_traversal_key` rekeys
        them for the sort), skipping `_TF_MODULE_IGNORED_PROPERTIES`; lists and
        tuples are walked in order, dicts by sorted key. Each object is yielded
        once unless `with_path`, which yields `(path, leaf)` pairs such as
        `(('layers', 0, 'w'), w)` for every path that reaches a leaf.

        Args:
            recursive: also walk the Modules found.
            predicate: yield only the leaves for which it returns True.
            attribute_traversal_key: the sort key of attribute names.
            with_path: yield (path tuple, leaf) pairs, without deduplication.

        Raises:
            ValueError: naming the attribute whose value cannot be walked (a
                dict whose keys do not sort).
        """
        if predicate is None:
            predicate = _always
        return _flatten_module(self, recursive, predicate, attribute_traversal_key, with_path)

    @classmethod
    def with_name_scope(cls, method):
        """Decorate a method so that it runs inside the module's `name_scope`.

        >>> class MyModule(tf.Module):
        ...     @tf.Module.with_name_scope
        ...     def __call__(self, x):
        ...         if not hasattr(self, "w"):
        ...             self.w = tf.Variable(tf.ones([x.shape[1], 3]))
        ...         return tf.matmul(x, self.w)
        >>> module = MyModule()
        >>> _ = module(tf.ones([1, 2]))
        >>> module.w.name
        'my_module/Variable:0'
        """
        @functools.wraps(method)
        def method_with_name_scope(self, *args, **kwargs):
            with self.name_scope:
                return method(self, *args, **kwargs)

        return method_with_name_scope


def is_trackable(obj):
    """Whether a checkpoint saves `obj`: a Variable, or an object that names its
    dependencies (`_checkpoint_dependencies`: tf.Module and every Keras layer and
    model, optimizers, tf.train.Checkpoint)."""
    return isinstance(obj, Variable) or hasattr(type(obj), "_checkpoint_dependencies")


def _escape(name):
    # TF's escaping of a dependency name inside a checkpoint key: '.' -> '..', '/' -> '.S'.
    return str(name).replace(".", "..").replace("/", ".S")


def dependencies_of_attributes(attributes, ignored=()):
    """(name, trackable) pairs found in a dict of attributes, public names first
    (so a Keras layer's 'kernel' names its Variable before its private lists do),
    each sorted; lists, tuples and dicts inside are named 'attr/0', 'attr/key'."""
    names = sorted(k for k in attributes if k not in ignored and not k.startswith("__")
                   and k not in _BOOKKEEPING)
    names.sort(key=lambda k: k.startswith("_"))
    found = []
    for name in names:
        value = attributes[name]
        if is_trackable(value):
            found.append((_escape(name), value))
            continue
        if not isinstance(value, (list, tuple, dict)):
            continue
        try:
            leaves = _leaves_with_paths(value)
        except TypeError:  # a dict whose keys do not sort: not a dependency container
            continue
        for path, leaf in leaves:
            if is_trackable(leaf):
                found.append(("/".join([_escape(name)] + [_escape(p) for p in path]), leaf))
    return found


def _is_plain(value):
    """Whether `value` holds only numbers, strings, booleans, None, lists, tuples, dicts."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, (list, tuple)):
            stack.extend(item)
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif not isinstance(item, (str, int, float, bool, type(None))):
            return False
    return True


def init_arguments(module):
    """The (args, kwargs) `module` was constructed with ((), {} for none), or None
    when some were not plain values (numbers, strings, lists, dicts)."""
    return vars(module).get(_INIT_ARGUMENTS, ((), {}))


def notify_assignment(owner):
    """Tell the waiting checkpoint restorations that `owner` got a new attribute."""
    for restoration in list(_assignment_watchers):
        restoration.object_assigned(owner)


def _always(_):
    return True


def _is_variable(obj):
    return isinstance(obj, Variable)


def _is_trainable_variable(obj):
    return isinstance(obj, Variable) and obj.trainable


def _is_non_trainable_variable(obj):
    return isinstance(obj, Variable) and not obj.trainable


def _is_module(obj):
    return isinstance(obj, Module)


def _leaves_with_paths(value):
    """(path, leaf) pairs of a nested structure, as TF's nest walks it: lists and
    tuples by index, namedtuples by field, mappings by sorted key."""
    result, stack = [], [((), value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, Mapping):
            keys = sorted(item)  # TypeError for keys that do not sort, as in TF
            stack.extend((path + (k,), item[k]) for k in reversed(keys))
        elif isinstance(item, tuple) and hasattr(type(item), "_fields"):
            stack.extend((path + (f,), getattr(item, f)) for f in reversed(item._fields))
        elif isinstance(item, (list, tuple)):
            stack.extend((path + (i,), item[i]) for i in reversed(range(len(item))))
        else:
            result.append((path, item))
    return result


def _flatten_module(module, recursive, predicate, attribute_traversal_key, with_path):
    """TF's `_flatten_module` without recursion: a module's own leaves, then each
    submodule it found, in order (a stack of modules still to walk)."""
    seen = {id(module)}
    stack = [((), module, frozenset((id(module),)))]
    while stack:
        module_path, current, ancestors = stack.pop()
        attributes = vars(current)
        ignored = current._TF_MODULE_IGNORED_PROPERTIES
        found = []
        for key in sorted(attributes, key=attribute_traversal_key):
            if key in ignored or key in _BOOKKEEPING:
                continue
            value = attributes[key]
            try:
                leaves = _leaves_with_paths(value)
            except Exception as cause:
                raise ValueError(f"Error processing property {key!r} of {value!r}") from cause
            for leaf_path, leaf in leaves:
                if not with_path:
                    if id(leaf) in seen:
                        continue
                    seen.add(id(leaf))
                path = module_path + (key,) + leaf_path
                if predicate(leaf):
                    yield (path, leaf) if with_path else leaf
                # With paths nothing is deduplicated; a module is still never
                # walked inside itself (`a.a = a`), where TF would not stop.
                if recursive and isinstance(leaf, Module) and id(leaf) not in ancestors:
                    found.append((path, leaf, ancestors | {id(leaf)}))
        stack.extend(reversed(found))
