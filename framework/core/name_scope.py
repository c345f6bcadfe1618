"""name_scope.py owns the name scope new Variables are named in ('outer/inner/'),
one per thread as TF's eager context keeps it, and the scoped name of a new
Variable. Opening scopes is tf.Module's (module.py); Variables are tensor.py's."""

import threading

__all__ = ["state", "scoped_variable_name"]


class _State(threading.local):
    def __init__(self):
        self.scope = ""  # '' at the top
        self.outer = []  # the scopes to restore on leaving each open one


state = _State()


def scoped_variable_name(name):
    """TF's name for a new Variable: the current scope + `name` ('mlp/w'); a name
    ending in '/' is taken whole, as TF takes a full scope name."""
    name = "Variable" if name is None else str(name)
    if name.endswith("/"):
        return name[:-1]
    return state.scope + name
