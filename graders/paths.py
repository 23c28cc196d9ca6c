"""Where the grader finds its own material (the repository layout of CONTRACT §1)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import List

#: The repository (or unpacked autograder) root: graders/, problems/, reference/ live here.
ROOT = Path(os.environ.get("AUTOGRADE_ROOT", Path(__file__).resolve().parent.parent))
REFERENCE = ROOT / "reference"
PROBLEMS = ROOT / "problems"
STUDENT_TEMPLATE = ROOT / "student_template"
TEMPLATE_EXTRAS = Path(__file__).resolve().parent / "template_extras"

#: made by running things inside a tree (caches, test and build output): never material the grader reads or ships
IGNORED = {"__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache", "test-results", "build", "dist"}
IGNORED_SUFFIXES = {".pyc", ".pyo"}


def files_under(root: Path) -> List[Path]:
    """The files under `root`, relative to it, sorted, without what running things leaves behind (IGNORED
    folders, `*.egg-info`, bytecode)."""
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part in IGNORED or part.endswith(".egg-info") for part in rel.parts) or path.suffix in IGNORED_SUFFIXES:
            continue
        if path.is_file():
            found.append(rel)
    return found
