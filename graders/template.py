"""Solution markers: strip `# BEGIN SOLUTION … # END SOLUTION` blocks (CONTRACT §3).

Used twice: `autograde make-template` strips every block to write
`student_template/`, and `assemble` strips one problem's blocks so that the
reference solution of the code being graded never exists in the sandbox.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, List, Mapping, Optional, Sequence

from .intake import parse_python
from .spec import ProblemSpec

BEGIN = re.compile(r"^(?P<indent>[ \t]*)# BEGIN SOLUTION\s*$")
END = re.compile(r"^(?P<indent>[ \t]*)# END SOLUTION\s*$")


class MarkerError(ValueError):
    """Unbalanced, nested or orphan solution markers (message names file and line)."""


@dataclass(frozen=True)
class SolutionBlock:
    """One marked block: 1-based line numbers of its two markers."""

    begin: int
    end: int
    indent: str
    qualname: str
    problem: str


def _qualname_at(tree: ast.AST, line: int) -> str:
    """Dotted name of the innermost class/function containing `line` ('' at module level)."""
    best: List[str] = []

    def visit(node: ast.AST, prefix: List[str]) -> None:
        nonlocal best
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                if child.lineno <= line <= (child.end_lineno or child.lineno):
                    here = prefix + [child.name]
                    if len(here) > len(best):
                        best = here
                    visit(child, here)
            else:
                visit(child, prefix)

    visit(tree, [])
    return ".".join(best)


def find_blocks(source: str, filename: str, rel_path: str, problems: Sequence[ProblemSpec]) -> List[SolutionBlock]:
    """Locate every solution block of `source` and the problem that owns it."""
    lines = source.splitlines()
    tree = parse_python(source, filename)
    blocks: List[SolutionBlock] = []
    open_at: Optional[int] = None
    indent = ""
    for number, text in enumerate(lines, start=1):
        if begin := BEGIN.match(text):
            if open_at is not None:
                raise MarkerError(f"{filename}:{number}: nested BEGIN SOLUTION (block opened at line {open_at})")
            open_at, indent = number, begin.group("indent")
        elif END.match(text):
            if open_at is None:
                raise MarkerError(f"{filename}:{number}: END SOLUTION without BEGIN SOLUTION")
            qualname = _qualname_at(tree, open_at)
            owners = [p.id for p in problems if p.owns(rel_path, qualname)]
            if len(owners) != 1:
                what = "no problem" if not owners else "several problems: " + ", ".join(owners)
                raise MarkerError(
                    f"{filename}:{open_at}: solution block in '{qualname or '<module>'}' belongs to {what}"
                    " (see [swap] in problems/*/problem.toml)"
                )
            blocks.append(SolutionBlock(open_at, number, indent, qualname, owners[0]))
            open_at = None
        elif "BEGIN SOLUTION" in text or "END SOLUTION" in text:
            raise MarkerError(f"{filename}:{number}: malformed marker (must be alone on its line): {text.strip()}")
    if open_at is not None:
        raise MarkerError(f"{filename}:{open_at}: BEGIN SOLUTION is never closed")
    return blocks


def stub_message(block: SolutionBlock) -> str:
    return f"{block.problem}: implement {block.qualname}"


def _stub(block: SolutionBlock, markers: Mapping[str, str]) -> List[str]:
    """The lines replacing a block: the stub, inside the course's own markers when it has some."""
    stub = f'{block.indent}raise NotImplementedError("{stub_message(block)}")\n'
    name = markers.get(block.problem)
    if not name:
        return [stub]
    return [f"{block.indent}# BEGIN {name}\n", f"{block.indent}# TODO\n", stub, f"{block.indent}# END {name}\n"]


def strip_solutions(
    source: str,
    filename: str,
    rel_path: str,
    problems: Sequence[ProblemSpec],
    only: Optional[Iterable[str]] = None,
    markers: Optional[Mapping[str, str]] = None,
    reveal_others: bool = False,
) -> str:
    """Replace the blocks (of the problems in `only`, default all) by `raise NotImplementedError`.

    `markers` (problem id -> e.g. ``ASSIGN2_1``) wraps each stub in the course starter's own
    `# BEGIN ASSIGN2_1` / `# END ASSIGN2_1` comments. With `reveal_others`, the blocks of the
    problems not in `only` become plain code (given code of that offering: markers dropped).
    """
    keep = None if only is None else set(only)
    blocks = find_blocks(source, filename, rel_path, problems)
    lines = source.splitlines(keepends=True)
    out: List[str] = []
    cursor = 0
    for block in blocks:
        out.extend(lines[cursor : block.begin - 1])
        if keep is not None and block.problem not in keep:
            body = lines[block.begin : block.end - 1]
            out.extend(body if reveal_others else [lines[block.begin - 1], *body, lines[block.end - 1]])
        else:
            out.extend(_stub(block, markers or {}))
        cursor = block.end
    out.extend(lines[cursor:])
    return "".join(out)


def has_markers(source: str) -> bool:
    return "BEGIN SOLUTION" in source or "END SOLUTION" in source


def strip_file(
    path: Path,
    rel_path: str,
    problems: Sequence[ProblemSpec],
    only: Optional[Iterable[str]] = None,
    markers: Optional[Mapping[str, str]] = None,
    reveal_others: bool = False,
) -> str:
    """`strip_solutions` on a file; files without markers come back unchanged."""
    source = path.read_text(encoding="utf-8")
    if not has_markers(source):
        return source
    return strip_solutions(source, str(path), rel_path, problems, only, markers, reveal_others)
