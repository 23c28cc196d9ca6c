"""The judges a problem's tests can name, and the options each one reads, found in their source (never imported).

A judge is a builtin (`@judge("name")` in graders/judge.py) or an entry of the problem's `judges.py`
`JUDGES = {"name": function}` (which wins, as in `graders.judge.get_judge`). An option is read when the
judge's function, or a function of the same module it hands `options` to, reads `options.get("name")` or
`options["name"]`; read as `float(options.get(...))` or `int(...)`, it is a number. The schema of a
problem.toml (graders.schema) takes a `[[tests]]` entry's other keys to be those options.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Dict, Mapping, Optional, Set

from .intake import parse_python

#: the builtin judges' module
BUILTIN_SOURCE = Path(__file__).resolve().with_name("judge.py")
#: options the grader itself gives every judge (a problem.toml cannot set them)
GRADER_OPTIONS = frozenset({"display_path"})
#: what an option read as `float(...)` or `int(...)` must be
NUMBER = "number"


@dataclass(frozen=True)
class JudgeSource:
    """Where a judge is written and what it reads."""

    #: the module defining it
    path: Path
    #: its function's name in that module
    function: str
    #: option name -> NUMBER when the judge reads it as a number, else None (any value)
    options: Mapping[str, Optional[str]]


class JudgesUnreadable(ValueError):
    """A judges.py that does not parse."""

    def __init__(self, path: Path, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason


def judges(folder: Path) -> Dict[str, JudgeSource]:
    """Every judge a test of the problem in `folder` can name: the builtins, then its judges.py's `JUDGES`."""
    table = dict(_scan(BUILTIN_SOURCE, *_stamp(BUILTIN_SOURCE)))
    local = folder / "judges.py"
    if local.is_file():
        table.update(_scan(local, *_stamp(local)))
    return table


def judges_stamp(folder: Path) -> tuple:
    """The stamps (`_stamp`: what `judges` keeps its scans by) of the files `judges(folder)` reads: the builtin
    judges' source and `folder/judges.py` (None without it)."""
    local = folder / "judges.py"
    return _stamp(BUILTIN_SOURCE), _stamp(local) if local.is_file() else None


def _stamp(path: Path) -> tuple:
    stat = path.stat()
    return stat.st_mtime_ns, stat.st_size


@lru_cache(maxsize=64)
def _scan(path: Path, mtime_ns: int, size: int) -> Dict[str, JudgeSource]:
    """The judges `path` defines (once per version of the file)."""
    try:
        tree = parse_python(path.read_text(encoding="utf-8"), filename=str(path))  # the grader's one AST lock
    except (SyntaxError, ValueError, UnicodeDecodeError) as exc:
        raise JudgesUnreadable(path, f"does not parse: {exc}") from None
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    named: Dict[str, str] = {}  # judge name -> function name
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):  # builtins: @judge("name", ...)
            for deco in node.decorator_list:
                if isinstance(deco, ast.Call) and isinstance(deco.func, ast.Name) and deco.func.id == "judge" \
                        and deco.args and isinstance(deco.args[0], ast.Constant) \
                        and isinstance(deco.args[0].value, str):
                    named[deco.args[0].value] = node.name
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "JUDGES" for t in node.targets) \
                and isinstance(node.value, ast.Dict):
            for key, value in zip(node.value.keys, node.value.values):
                if isinstance(key, ast.Constant) and isinstance(key.value, str) and isinstance(value, ast.Name):
                    named[key.value] = value.id
    return {name: JudgeSource(path, fn, options_read(functions[fn], functions) if fn in functions else {})
            for name, fn in named.items()}


def checkpoint_probes(folder: Path) -> Set[str]:
    """The probe ids the problem's judges.py gives a checkpoint judge (`CHECKPOINTS = {"probe": function}`,
    graders.baseline.checkpoints), read from its source; a file that does not parse has none (`judges` says why)."""
    local = folder / "judges.py"
    if not local.is_file():
        return set()
    try:
        tree = parse_python(local.read_text(encoding="utf-8"), filename=str(local))
    except (SyntaxError, ValueError, UnicodeDecodeError):
        return set()
    return {key.value for node in tree.body
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "CHECKPOINTS" for t in node.targets)
            and isinstance(node.value, ast.Dict)
            for key in node.value.keys if isinstance(key, ast.Constant) and isinstance(key.value, str)}


def _option_name(node: ast.AST) -> Optional[str]:
    """"x" when `node` is `options.get("x", ...)` or `options["x"]`."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" \
            and isinstance(node.func.value, ast.Name) and node.func.value.id == "options" and node.args \
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
        return node.args[0].value
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "options" \
            and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
        return node.slice.value
    return None


def options_read(function: ast.FunctionDef, functions: Dict[str, ast.FunctionDef],
                 seen: Optional[Set[str]] = None) -> Dict[str, Optional[str]]:
    """The options a judge reads (name -> NUMBER or None), also in same-module functions it passes `options` to
    (by position or as `options=`); the grader's own (GRADER_OPTIONS) left out."""
    seen = seen if seen is not None else set()
    seen.add(function.name)
    names: Dict[str, Optional[str]] = {}
    for node in ast.walk(function):
        name = _option_name(node)
        if name is not None:
            names.setdefault(name, None)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("float", "int") \
                and len(node.args) == 1 and (converted := _option_name(node.args[0])) is not None:
            names[converted] = NUMBER
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in functions \
                and node.func.id not in seen:
            passed = any(isinstance(a, ast.Name) and a.id == "options" for a in node.args) \
                or any(isinstance(k.value, ast.Name) and k.value.id == "options" for k in node.keywords)
            if passed:
                for option, kind in options_read(functions[node.func.id], functions, seen).items():
                    if kind or option not in names:
                        names[option] = kind
    return {name: kind for name, kind in names.items() if name not in GRADER_OPTIONS}
