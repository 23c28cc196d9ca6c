"""The project's modules import one way: no import cycle, and problem files reach the grader only through
`graders.api`.

The import graph is read with `ast`, not by importing: every `import` and `from ... import` statement counts,
at module level or inside a function (a lazy import is still an import), relative imports resolved. Its
nodes are the modules of graders/, reports/, scripts/ and benchmarks/, and the parent- and child-side files
of each problem (judges.py, figures.py, probes.py or the probes/ package). The child's own modules
(graders/child/) are imported by their plain names inside the sandbox (`import probekit`); those names are
theirs here too. reference/ and student_template/ (the course's framework) are not the grader's layers.

The layers, bottom to top (LAYERS): the grader's modules (the stages, their result types, the gradebook, the
similarity screening), then reports/, then the verbs that drive a whole run (`batch`, `gradescope`,
`check-problems`, `make-template`), then the CLI; scripts/ and benchmarks/ sit on top. A module imports its own
layer and those below. A problem's files import `graders.api` only, and nothing of the grader imports that
surface.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

from conftest import ROOT

#: folders whose modules are named from the repository root (graders.batch, reports.render, ...)
PACKAGES = ("graders", "reports", "scripts", "benchmarks")
#: a problem's own modules (problems/<id>/...); mutants and the valid/buggy examples are student code
PROBLEM_FILES = ("judges.py", "figures.py", "probes.py", "probes")
#: the child's modules, on the sandboxed child's sys.path under their plain names
CHILD = ROOT / "graders" / "child"
#: the only module of the grader a problem's files may import
PROBLEM_API = "graders.api"

#: layers, bottom to top; a module not named here is in the first (the grader's stages and what they share)
LAYERS: Tuple[Tuple[str, Tuple[str, ...]], ...] = (
    ("the grader", ()),
    ("reports", ("reports",)),
    ("verbs", ("graders.batch", "graders.gradescope", "graders.problemcheck", "graders.make_template")),
    ("cli", ("graders.cli", "graders.__main__")),
    ("tools", ("scripts", "benchmarks")),
)

Graph = Dict[str, Set[str]]


def module_name(path: Path) -> str:
    """`graders/similarity/index.py` -> `graders.similarity.index`; a package is its `__init__`'s folder."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def project_files() -> Iterator[Path]:
    """Every Python file that is a node of the graph."""
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))
    for problem in sorted((ROOT / "problems").iterdir()):
        for name in PROBLEM_FILES:
            target = problem / name
            if target.is_file():
                yield target
            elif target.is_dir():
                yield from sorted(target.rglob("*.py"))


def modules() -> Dict[str, Path]:
    """{module name: file} of the graph's nodes, plus the child's plain names (`probekit`, `_standin`)."""
    found = {module_name(p): p for p in project_files() if "__pycache__" not in p.parts}
    for path in list(found.values()):
        if CHILD in path.parents and path.name != "__init__.py":
            found.setdefault(path.stem, path)
    return found


def _base(path: Path, level: int) -> List[str]:
    """The package a relative import of `level` dots in `path` starts from."""
    parts = module_name(path).split(".")
    if path.name != "__init__.py":
        parts.pop()
    return parts[: len(parts) - (level - 1)] if level > 1 else parts


def imported(path: Path, tree: ast.AST) -> Iterator[str]:
    """The candidate module names of every import in `tree`: for `from X import a`, both `X.a` and `X`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = _base(path, node.level) if node.level else []
            package = ".".join(base + ([node.module] if node.module else []))
            yield from (f"{package}.{alias.name}" if package else alias.name for alias in node.names)
            yield package


def resolve(name: str, known: Dict[str, Path]) -> Optional[str]:
    """The graph node `name` imports: the longest known prefix of it (`graders.judge.Verdict` -> graders.judge).

    Importing `a.b.c` is an edge to `a.b.c` only, not to the packages `a` and `a.b` that Python initialises on
    the way (their `__init__` is a node of its own, reached when something imports the package itself)."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in known:
            return candidate
    return None


def canonical(name: str, known: Dict[str, Path]) -> str:
    """A child module's plain name (`probekit`) as its module name (`graders.child.probekit`)."""
    return module_name(known[name])


def import_graph() -> Graph:
    """{module: modules of the project it imports} (a module importing itself is left out)."""
    known = modules()
    graph: Graph = {}
    for path in known.values():
        node = module_name(path)
        edges = graph.setdefault(node, set())
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for target in imported(path, tree):
            hit = resolve(target, known)
            if hit is not None and canonical(hit, known) != node:
                edges.add(canonical(hit, known))
    return graph


def _shortest_path(graph: Graph, start: str, goal: str) -> Optional[List[str]]:
    """The shortest import path from `start` to `goal` (breadth-first), or None."""
    before: Dict[str, str] = {start: start}
    queue = [start]
    for node in queue:
        if node == goal:
            path = [goal]
            while path[-1] != start:
                path.append(before[path[-1]])
            return path[::-1]
        for nxt in sorted(graph.get(node, ())):
            if nxt not in before:
                before[nxt] = node
                queue.append(nxt)
    return None


def cycles(graph: Graph) -> List[List[str]]:
    """The shortest cycle through each import edge that closes one, as paths `[a, b, ..., a]`, each cycle
    once (every edge of a cycle is shown by some path, so no cycle hides behind another)."""
    found: Dict[frozenset, List[str]] = {}
    for source in sorted(graph):
        for target in sorted(graph[source]):
            back = _shortest_path(graph, target, source)
            if back is not None:
                cycle = [source] + back
                found.setdefault(frozenset(zip(cycle, cycle[1:])), cycle)
    return sorted(found.values(), key=lambda c: (len(c), c))


def test_the_graph_sees_the_known_imports():
    """The graph is not empty by mistake: edges the code is known to have are found (relative, lazy, child)."""
    graph = import_graph()
    assert "graders.judge" in graph["graders.score"]  # from .judge import ...
    assert "graders.child.probekit" in graph["problems.ops.probes"]  # import probekit (in the child)
    assert "problems.autodiff.probes.graphs" in graph["problems.autodiff.probes"]  # from .graphs import ...
    assert "reports.render" in graph["graders.cli"]  # inside a function


def layer(module: str) -> int:
    """The index in LAYERS of the layer `module` is in."""
    for index, (_, prefixes) in enumerate(LAYERS):
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return index
    return 0


def test_no_import_cycle_among_the_projects_modules():
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join("  " + " -> ".join(c) for c in found)


def test_no_module_imports_a_layer_above_its_own():
    graph = import_graph()
    upward = [f"{a} ({LAYERS[layer(a)][0]}) -> {b} ({LAYERS[layer(b)][0]})"
              for a in sorted(graph) for b in sorted(graph[a]) if layer(b) > layer(a)]
    assert not upward, "imports of a higher layer:\n" + "\n".join("  " + u for u in upward)


def test_the_problem_api_is_imported_by_problems_only():
    """graders.api is a surface for problem authors, not a module the grader itself goes through."""
    graph = import_graph()
    users = sorted(node for node, targets in graph.items() if PROBLEM_API in targets and not node.startswith("problems."))
    assert not users, f"{PROBLEM_API} imported by the grader's own modules: {', '.join(users)}"


def test_reports_read_the_gradebook_through_its_read_api():
    """No SQL in reports/: they read typed rows of graders.gradebook_api."""
    sql = []
    for path in sorted((ROOT / "reports").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and node.value.lstrip().upper().startswith(("SELECT ", "INSERT ", "UPDATE ", "DELETE ", "PRAGMA ")):
                sql.append(f"{path.relative_to(ROOT)}:{node.lineno}: {node.value[:60]}")
            elif isinstance(node, ast.Attribute) and node.attr in ("query", "execute"):
                sql.append(f"{path.relative_to(ROOT)}:{node.lineno}: .{node.attr}(...)")
    assert not sql, "reports querying the gradebook themselves:\n" + "\n".join(sql)


def test_problem_files_import_the_grader_only_through_its_api():
    """A problem's judges, probes and figures (and any other file of its folder) import nothing of graders/
    or reports/ but `graders.api`, so the grader's modules can change behind that surface."""
    wrong = []
    for path in sorted((ROOT / "problems").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
                if node.module in ("graders", "reports"):  # from graders import paths
                    names = [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            wrong += [f"{path.relative_to(ROOT)}:{node.lineno}: {n}" for n in names
                      if n.split(".")[0] in ("graders", "reports") and n != PROBLEM_API]
    assert not wrong, "problem files importing the grader other than through graders.api:\n" + "\n".join(wrong)
