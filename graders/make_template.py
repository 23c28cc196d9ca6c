"""`autograde make-template`: generate student_template/ from reference/ (CONTRACT §3).

The template is the reference with every solution block stubbed, the public
tests of every problem, and the template's own files (README, pyproject, CI
workflow, pytest plugin) from `graders/template_extras/`.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from . import paths
from .spec import ProblemSpec, load_problems
from .template import has_markers, strip_file

IGNORED = {"__pycache__", ".pytest_cache", ".hypothesis", ".mypy_cache"}
IGNORED_SUFFIXES = {".pyc", ".pyo"}


def _walk(root: Path) -> List[Path]:
    """Files under `root`, relative, skipping caches."""
    found = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part in IGNORED for part in rel.parts) or path.suffix in IGNORED_SUFFIXES:
            continue
        if path.is_file():
            found.append(rel)
    return found


def template_files(problems: Optional[Sequence[ProblemSpec]] = None) -> Dict[str, bytes]:
    """The whole student template as {relative path: content}."""
    problems = list(problems if problems is not None else load_problems())
    files: Dict[str, bytes] = {}
    for rel in _walk(paths.REFERENCE):
        source = paths.REFERENCE / rel
        if source.suffix == ".py":
            files[rel.as_posix()] = strip_file(source, rel.as_posix(), problems).encode("utf-8")
        else:
            files[rel.as_posix()] = source.read_bytes()
    for problem in problems:
        public = problem.folder / "public"
        if public.is_dir():
            for rel in _walk(public):
                files[f"tests/{rel.as_posix()}"] = (public / rel).read_bytes()
    for rel in _walk(paths.TEMPLATE_EXTRAS):
        files[rel.as_posix()] = (paths.TEMPLATE_EXTRAS / rel).read_bytes()
    leftovers = [name for name, data in files.items() if name.endswith(".py") and has_markers(data.decode("utf-8", "replace"))]
    if leftovers:
        raise RuntimeError(f"solution markers left in: {', '.join(leftovers)}")
    return files


def write_template(dest: Path, files: Dict[str, bytes]) -> None:
    """Replace `dest` by exactly `files`."""
    if dest.exists():
        shutil.rmtree(dest)
    for name, data in files.items():
        target = dest / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


def stale_files(dest: Path, files: Dict[str, bytes]) -> List[str]:
    """Paths where `dest` differs from what would be generated (missing, extra or changed)."""
    present = {p.as_posix() for p in _walk(dest)} if dest.is_dir() else set()
    wanted = set(files)
    diffs = [f"missing: {n}" for n in sorted(wanted - present)]
    diffs += [f"extra:   {n}" for n in sorted(present - wanted)]
    diffs += [f"changed: {n}" for n in sorted(wanted & present) if (dest / n).read_bytes() != files[n]]
    return diffs


def make_template(dest: Optional[Path] = None, check: bool = False) -> List[str]:
    """Write (or, with `check`, compare) the template; return the differences found."""
    dest = dest or paths.STUDENT_TEMPLATE
    files = template_files()
    if check:
        return stale_files(dest, files)
    write_template(dest, files)
    return []
