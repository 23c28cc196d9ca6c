"""Snapshot the public surface of a course starter's `minitorch` package: names and signatures, no code.

    python scripts/starter_surface.py GIT_DIR COMMIT OFFERING [--repository OWNER/NAME] \
        > problems/surfaces/OFFERING.json

The four snapshots of problems/surfaces/ (s26 000FLMS/llmsys_hw2 b9716f3, f25 kortemaki/llmsys_f25_hw2
958d3e1, s25 the same repository at 679be2a, s24 llmsystem/llmsys_s24_hw1 ef990e9, its last staff commit)
were made this way.

GIT_DIR is a clone or bare mirror of the course's starter (for example the one the `fetch` tool gives,
`/work/.mirror/000FLMS+llmsys_hw2/repo`); COMMIT the starter commit named in problems/offerings.toml. The
files are read with `git show COMMIT:minitorch/NAME.py` and parsed with `ast`, never imported or run. What the
snapshot keeps, per module of `minitorch/`:

* `functions`: each module-level function's signature (parameter names, kinds and defaults as source text);
* `classes`: each class's bases and decorators (as written) and members: methods with their signatures (`static`/`class`
  marked), properties, class attributes (annotated or assigned) and the attributes `__init__` sets on `self`;
* `names`: every other name the module binds (assignments, imports, star imports unresolved: `stars`).

`package` is the names `import minitorch` gives (the `__init__`'s imports and star imports resolved the way
Python resolves them: `__all__` where a module has one, else its names without a leading underscore).
No function body, docstring or comment is kept. tests/test_course_surface.py compares reference/ with these.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
from typing import Any, Dict, List


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], check=True, capture_output=True,
                          text=True).stdout


def signature(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> List[List[Any]]:
    """[[name, kind, default source or None], ...] in order; kinds as inspect.Parameter's names."""
    a = fn.args
    out: List[List[Any]] = []
    positional = [*a.posonlyargs, *a.args]
    defaults: List[ast.expr | None] = [None] * (len(positional) - len(a.defaults)) + list(a.defaults)
    for i, (arg, default) in enumerate(zip(positional, defaults)):
        kind = "POSITIONAL_ONLY" if i < len(a.posonlyargs) else "POSITIONAL_OR_KEYWORD"
        out.append([arg.arg, kind, None if default is None else ast.unparse(default)])
    if a.vararg:
        out.append([a.vararg.arg, "VAR_POSITIONAL", None])
    for arg, kw_default in zip(a.kwonlyargs, a.kw_defaults):
        out.append([arg.arg, "KEYWORD_ONLY", None if kw_default is None else ast.unparse(kw_default)])
    if a.kwarg:
        out.append([a.kwarg.arg, "VAR_KEYWORD", None])
    return out


def _targets(node: ast.stmt) -> List[str]:
    names: List[str] = []
    targets: List[ast.expr] = []
    if isinstance(node, ast.Assign):
        targets = list(node.targets)
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    for t in targets:
        for sub in ast.walk(t):
            if isinstance(sub, ast.Name):
                names.append(sub.id)
    return names


def _decorators(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> List[str]:
    return [ast.unparse(d) for d in fn.decorator_list]


def klass(node: ast.ClassDef) -> Dict[str, Any]:
    members: Dict[str, Any] = {}
    for item in node.body:
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
            decorators = _decorators(item)
            if "property" in decorators or any(d.endswith(".setter") for d in decorators):
                members[item.name] = {"kind": "property"}
                continue
            kind = ("staticmethod" if "staticmethod" in decorators
                    else "classmethod" if "classmethod" in decorators else "method")
            members[item.name] = {"kind": kind, "signature": signature(item)}
            if item.name == "__init__":
                for sub in ast.walk(item):
                    if isinstance(sub, (ast.Assign, ast.AnnAssign)):
                        for t in (sub.targets if isinstance(sub, ast.Assign) else [sub.target]):
                            if (isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name)
                                    and t.value.id == "self" and t.attr not in members):
                                members.setdefault(t.attr, {"kind": "instance attribute"})
        else:
            for name in _targets(item):
                members.setdefault(name, {"kind": "class attribute"})
    return {"bases": [ast.unparse(b) for b in node.bases], "decorators": [ast.unparse(d) for d in node.decorator_list],
            "members": dict(sorted(members.items()))}


def module(source: str) -> Dict[str, Any]:
    tree = ast.parse(source)
    functions: Dict[str, Any] = {}
    classes: Dict[str, Any] = {}
    names: Dict[str, str] = {}
    stars: List[str] = []
    all_names: List[str] | None = None

    def visit(body: List[ast.stmt]) -> None:
        nonlocal all_names
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                functions[node.name] = {"signature": signature(node)}
            elif isinstance(node, ast.ClassDef):
                classes[node.name] = klass(node)
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    names[alias.asname or alias.name.partition(".")[0]] = "import " + alias.name
            elif isinstance(node, ast.ImportFrom):
                origin = "." * node.level + (node.module or "")
                for alias in node.names:
                    if alias.name == "*":
                        stars.append(origin)
                    else:
                        names[alias.asname or alias.name] = f"from {origin} import {alias.name}"
            elif isinstance(node, ast.If):  # `if TYPE_CHECKING:` binds nothing at run time
                if "TYPE_CHECKING" not in ast.unparse(node.test):
                    visit(node.body)
                    visit(node.orelse)
            elif isinstance(node, ast.Try):
                visit(node.body)
                for handler in node.handlers:
                    visit(handler.body)
            else:
                for name in _targets(node):
                    if isinstance(node, ast.AnnAssign) and node.value is None:
                        continue  # an annotation alone binds nothing
                    names.setdefault(name, "assignment")
                if (isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all__"
                                                         for t in node.targets)):
                    all_names = [ast.literal_eval(e) for e in node.value.elts]  # type: ignore[attr-defined]

    visit(tree.body)
    for name in list(names):
        if name in functions or name in classes:
            del names[name]
    return {"functions": dict(sorted(functions.items())), "classes": dict(sorted(classes.items())),
            "names": dict(sorted(names.items())), "stars": stars, "__all__": all_names}


def exported(modules: Dict[str, Dict[str, Any]], name: str, seen: frozenset = frozenset()) -> List[str]:
    """The names `from minitorch.NAME import *` binds."""
    m = modules.get(name)
    if m is None or name in seen:
        return []
    if m["__all__"] is not None:
        return list(m["__all__"])
    own = [*m["functions"], *m["classes"], *m["names"]]
    for star in m["stars"]:
        own += exported(modules, star.lstrip("."), seen | {name})
    return sorted({n for n in own if not n.startswith("_")})


def package_names(modules: Dict[str, Dict[str, Any]]) -> List[str]:
    init = modules["__init__"]
    names = set(init["functions"]) | set(init["classes"]) | set(init["names"])
    for star in init["stars"]:
        names |= set(exported(modules, star.lstrip(".")))
    # importing a submodule binds its name on the package: every module `__init__` imports, directly or
    # through the relative imports of the modules it imports
    todo, loaded = ["__init__"], set()
    while todo:
        m = modules[todo.pop()]
        subs = [s.lstrip(".") for s in m["stars"] if s.startswith(".")]
        for origin in m["names"].values():
            words = origin.split()
            if words[0] == "from" and words[1].startswith("."):
                subs.append(words[1].lstrip(".").partition(".")[0] or (words[3] if words[3] in modules else ""))
            elif words[0] == "from" and words[1].startswith("minitorch."):
                subs.append(words[1].split(".")[1])
            elif words[0] == "import" and words[1].startswith("minitorch."):
                subs.append(words[1].split(".")[1])
        for sub in subs:
            if sub in modules and sub not in loaded and sub != "__init__":
                loaded.add(sub)
                todo.append(sub)
    return sorted(names | loaded)


def snapshot(git_dir: str, commit: str) -> Dict[str, Any]:
    full = _git(git_dir, "rev-parse", commit + "^{commit}").strip()
    files = _git(git_dir, "ls-tree", "--name-only", full, "minitorch/").split()
    modules: Dict[str, Dict[str, Any]] = {}
    for path in sorted(files):
        if path.endswith(".py"):
            modules[path[len("minitorch/"):-3]] = module(_git(git_dir, "show", f"{full}:{path}"))
    return {"commit": full, "modules": modules, "package": package_names(modules)}


def main(argv: List[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("git_dir")
    parser.add_argument("commit")
    parser.add_argument("offering")
    parser.add_argument("--repository", default="", help="OWNER/NAME, recorded in the snapshot")
    args = parser.parse_args(argv)
    snap = {"offering": args.offering, "repository": args.repository,
            "generated_by": "scripts/starter_surface.py (names and signatures only)", **snapshot(args.git_dir,
                                                                                                args.commit)}
    json.dump(snap, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
