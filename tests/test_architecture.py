"""The layout ARCHITECTURE.md describes, checked on the source: imports flow one
way from runtime/ up to models/, with no cycle even through imports deferred into
functions; no module grows past ~500 lines; every document the code cites is in
the repository. Read from the files (AST), so nothing here depends on import order."""

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Folder -> import name, as pyproject.toml's [tool.setuptools.package-dir] maps them.
FOLDERS = {"framework": "tapeflow", "layers": "tapeflow.layers",
           "optimizers": "tapeflow.optimizers", "datasets": "tapeflow.datasets"}

# The layers of ARCHITECTURE.md, lowest first. A module may import from its own
# rank or below; within a rank the graph must still be acyclic. The longest
# prefix decides a module's rank.
RANKS = [
    ("runtime", ["tapeflow.runtime"]),
    ("core and kernels", ["tapeflow.core", "tapeflow.kernels", "tapeflow.datasets"]),
    ("ops", ["tapeflow.ops"]),
    ("autodiff", ["tapeflow.autodiff"]),
    ("public TF namespaces", ["tapeflow.api", "tapeflow.math", "tapeflow.nn", "tapeflow.linalg",
                              "tapeflow.random", "tapeflow.data", "tapeflow.config",
                              "tapeflow.testing", "tapeflow.compiler", "tapeflow.dtypes",
                              "tapeflow.errors", "tapeflow.nest", "tapeflow.tensor",
                              "tapeflow.module", "tapeflow.version", "tapeflow.image",
                              "tapeflow.strings", "tapeflow.sparse", "tapeflow.ragged",
                              "tapeflow.signal", "tapeflow.io", "tapeflow.summary",
                              "tapeflow.train", "tapeflow.debugging",
                              "tapeflow.distribute", "tapeflow.audio",
                              "tapeflow.experimental"]),
    ("Keras options", ["tapeflow.activations", "tapeflow.initializers",
                       "tapeflow.regularizers", "tapeflow.constraints", "tapeflow.utils"]),
    ("layers, losses, metrics, optimizers", ["tapeflow.layers", "tapeflow.losses",
                                             "tapeflow.metrics", "tapeflow.optimizers"]),
    ("callbacks", ["tapeflow.callbacks"]),
    ("training", ["tapeflow.training"]),
    ("models", ["tapeflow.models", "tapeflow.backend", "tapeflow.testing.layers",
                "tapeflow.saved_model", "tapeflow.applications"]),
    ("the tapeflow and keras namespaces", ["tapeflow.keras", "tapeflow"]),
]
MAX_LINES = 500


def _modules():
    """{module name: (path, is_package)} for every module of the package."""
    found = {}
    for folder, package in FOLDERS.items():
        for path in (ROOT / folder).rglob("*.py"):
            parts = list(path.relative_to(ROOT / folder).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            if is_package:
                parts = parts[:-1]
            found[".".join([package] + parts)] = (path, is_package)
    return found


MODULES = _modules()


def _absolute(module, is_package, level, name):
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    if level > 1:
        base = base[:len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def _known(name):
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name


def import_edges():
    """(importer, imported, line, deferred) for every import of a tapeflow module.

    `from X import a` counts as importing X.a when that is a module, else X;
    a parent package's implicit import (Python runs `tapeflow/__init__` before
    any submodule) is not an edge, an explicit `from .. import name` is."""
    edges = []
    for module, (path, is_package) in MODULES.items():
        tree = ast.parse(path.read_text(), str(path))

        def visit(node, deferred):
            for child in ast.iter_child_nodes(node):
                inner = deferred or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef,
                                                       ast.Lambda, ast.ClassDef))
                targets = []
                if isinstance(child, ast.Import):
                    targets = [a.name for a in child.names]
                elif isinstance(child, ast.ImportFrom):
                    base = (_absolute(module, is_package, child.level, child.module)
                            if child.level else child.module or "")
                    targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in MODULES else base
                               for a in child.names]
                elif (isinstance(child, ast.Call) and getattr(child.func, "attr", None)
                      == "import_module" and child.args
                      and isinstance(child.args[0], ast.Constant)):
                    targets = [str(child.args[0].value)]
                    inner = True  # resolved when called
                for target in targets:
                    if target.split(".")[0] == "tapeflow":
                        target = _known(target)
                        if target and target != module:
                            edges.append((module, target, child.lineno,
                                          inner and not isinstance(child, ast.ClassDef)))
                visit(child, inner)

        visit(tree, False)
    return edges


def _rank(module):
    best, best_len = None, -1
    for rank, (_, prefixes) in enumerate(RANKS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > best_len:
                best, best_len = rank, len(prefix)
    return best


def _cycles(edges):
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    graph = {m: set() for m in MODULES}
    for a, b, _, _ in edges:
        graph[a].add(b)
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = 0
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    components.append(sorted(component))
    return components


EDGES = import_edges()


def test_the_analysis_sees_the_package():
    # Guards the checks below against passing on an empty or misread tree.
    assert {"tapeflow.core.tensor", "tapeflow.autodiff.tape", "tapeflow.layers.base",
            "tapeflow.models.model", "tapeflow.runtime.jit"} <= set(MODULES)
    assert ("tapeflow.autodiff.tape", "tapeflow.ops.math") in {(a, b) for a, b, _, _ in EDGES}
    assert any(deferred for *_, deferred in EDGES)  # the kernels' lazy imports
    assert _cycles([("tapeflow.core.nest", "tapeflow.core.dtypes", 1, True),
                    ("tapeflow.core.dtypes", "tapeflow.core.nest", 1, False)]) == [
        ["tapeflow.core.dtypes", "tapeflow.core.nest"]]


def test_every_module_has_a_rank():
    assert [m for m in MODULES if _rank(m) is None] == []


def test_no_import_cycles_counting_deferred_imports():
    assert _cycles(EDGES) == []


def test_imports_never_reach_a_higher_layer():
    upward = [f"{a}:{line} imports {b} ({RANKS[_rank(a)][0]} -> {RANKS[_rank(b)][0]})"
              f"{' inside a function' if deferred else ''}"
              for a, b, line, deferred in EDGES if _rank(b) > _rank(a)]
    assert upward == []


def test_kernels_and_datasets_import_no_tensor_code():
    # Kernels take and return ndarrays; datasets depend on NumPy only.
    leaks = [(a, b) for a, b, _, _ in EDGES
             if a.startswith(("tapeflow.kernels", "tapeflow.datasets"))
             and not b.startswith(("tapeflow.runtime", "tapeflow.kernels", "tapeflow.datasets"))]
    assert leaks == []


def test_deferred_imports_are_only_the_lazy_kernel_loads():
    # Kernel modules import numba, which `import tapeflow` must not pay for; the
    # namespaces at the top (tapeflow, tapeflow.keras) load members on first access.
    deferred = sorted({(a, b) for a, b, _, d in EDGES
                       if d and not b.startswith("tapeflow.kernels")
                       and a not in ("tapeflow", "tapeflow.keras")})
    assert deferred == []


def test_no_module_over_the_size_limit():
    sizes = {m: len(p.read_text().splitlines()) for m, (p, _) in MODULES.items()}
    assert {m: n for m, n in sizes.items() if n > MAX_LINES} == {}


def _repository_text_files():
    for path in ROOT.rglob("*"):
        if (path.suffix in (".py", ".md", ".toml") and ".git" not in path.parts
                and "build" not in path.parts and not any(p.endswith(".egg-info")
                                                          for p in path.parts)):
            yield path


@pytest.mark.parametrize("path", sorted(_repository_text_files()),
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_cited_document_is_in_the_repository(path):
    cited = set(re.findall(r"\b([A-Z][A-Z_]+\.md)\b", path.read_text()))
    assert cited - _DOCUMENTS == set()


_DOCUMENTS = {p.name for p in _repository_text_files() if p.suffix == ".md"}


def test_pyproject_lists_every_package():
    # `pip install .` installs only the packages pyproject.toml names: a new
    # subpackage missing there works in the editable checkout and is absent
    # from every installed copy.
    text = (ROOT / "pyproject.toml").read_text()
    listed = set(re.findall(r'^\s*"(tapeflow[\w.]*)",?\s*$',
                            text.split("packages = [", 1)[1].split("]", 1)[0], re.M))
    packages = {m for m, (_, is_package) in MODULES.items() if is_package}
    assert packages == listed
