"""sites.py finds the user's line: the innermost frame of the call stack that is
not tapeflow's own code. Explanations of a None gradient and numeric-check
errors name it, because the line inside tapeflow where something happened
tells a user nothing. Only called on rare paths (a note, an error), never per op."""

import os
import sys

__all__ = ["user_site", "Site", "block_end", "mark", "site_of"]

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Installed, every folder is under tapeflow/; in the source tree (editable
# install) layers/, optimizers/ and datasets/ sit beside framework/.
_ROOTS = (_PACKAGE + os.sep,) + (tuple(
    os.path.join(os.path.dirname(_PACKAGE), folder) + os.sep
    for folder in ("layers", "optimizers", "datasets"))
    if os.path.basename(_PACKAGE) == "framework" else ())
_LIBRARY = (os.path.dirname(os.__file__) + os.sep,)  # contextlib, functools, ...


class Site(tuple):
    """(filename, line, function) of a user's frame; str() is 'file.py:12 in f'."""

    __slots__ = ()

    filename = property(lambda self: self[0])
    line = property(lambda self: self[1])
    function = property(lambda self: self[2])

    def __str__(self):
        return f"{os.path.basename(self[0])}:{self[1]} in {self[2]}"


def _is_tapeflow(filename):
    return filename.startswith(_ROOTS) or (filename.startswith(_LIBRARY)
                                           and "site-packages" not in filename)


def user_site(frame=None):
    """The first frame outside tapeflow (and the standard library), as a Site,
    or None when the whole stack is tapeflow's."""
    frame = frame or sys._getframe(1)
    while frame is not None:
        code = frame.f_code
        if not _is_tapeflow(code.co_filename):
            return Site((code.co_filename, frame.f_lineno, code.co_name))
        frame = frame.f_back
    return None


def block_end(site):
    """The Site of the last line of the `with` block that starts at `site` (Python
    reports a with-block's exit at its first line), or `site` when the source
    cannot be read. For messages only: parses the user's file."""
    if site is None:
        return None
    import ast  # only for this message: `import tapeflow` does not pay for the parser
    import linecache
    try:
        tree = ast.parse("".join(linecache.getlines(site.filename)))
    except (SyntaxError, ValueError):
        return site
    for node in ast.walk(tree):
        if isinstance(node, (ast.With, ast.AsyncWith)) and node.lineno == site.line:
            return Site((site.filename, node.end_lineno, site.function))
    return site


def mark(frame):
    """A cheap mark of the user's line at `frame` (the caller of a tapeflow function),
    made into a Site only when a message needs it (`site_of`): a GradientTape marks
    where it was opened on every step, and a Site costs more than this."""
    code = frame.f_code
    ours = _TAPEFLOW_CODE.get(code)
    if ours is None:
        ours = _TAPEFLOW_CODE[code] = _is_tapeflow(code.co_filename)
    if ours:  # called from tapeflow (Keras's train_step): walk to the user now
        return user_site(frame)
    return (code, frame.f_lineno)


_TAPEFLOW_CODE = {}  # code object -> whether it is tapeflow's (mark's per-step test)


def site_of(marked):
    """The Site of a `mark` (None stays None)."""
    if marked is None or isinstance(marked, Site):
        return marked
    code, line = marked
    return Site((code.co_filename, line, code.co_name))
