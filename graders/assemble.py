"""Assemble stage: per problem, the hybrid stack the child imports.

For problem P the stack is the reference with P's solution blocks stubbed
(so the reference solution of the graded code never exists in the child);
the student's file is then loaded beside it and only P's symbols are swapped in.
A broken `autodiff` therefore cannot cost `network` or `training` points.
Stacks are built once per grader version and runtime, and checked before every use (graders.cache).
"""

from __future__ import annotations

import py_compile
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from . import paths
from .cache import cached_dir
from .spec import ProblemSpec, load_problems
from .template import has_markers, strip_file

#: Files of the reference that never enter a child's stack (corpus labels live in data/).
STACK_EXCLUDE = ("data",)


def _copy_stack(dest: Path, strip_for: Optional[str], problems: Sequence[ProblemSpec]) -> None:
    """Copy the reference into `dest`; for a problem's stack, stub that problem's solution blocks.

    In a problem's stack, the modules that still hold OTHER problems' solutions (needed to run
    the graded code) are shipped as bytecode only (`module.pyc`, no source), so a submission
    cannot simply read or print them.
    """
    for rel in paths.files_under(paths.REFERENCE):
        if rel.parts[0] in STACK_EXCLUDE:
            continue
        source = paths.REFERENCE / rel
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if strip_for is None or source.suffix != ".py":
            shutil.copyfile(source, target)
            continue
        text = strip_file(source, rel.as_posix(), problems, only=[strip_for])
        if has_markers(text):
            _write_bytecode(text, target.with_suffix(".pyc"), rel.as_posix())
        else:
            target.write_text(text, encoding="utf-8")


def _write_bytecode(text: str, target: Path, display: str) -> None:
    """A sourceless module: `target` (.pyc), which Python imports where the .py would be."""
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / target.with_suffix(".py").name
        source.write_text(text, encoding="utf-8")
        py_compile.compile(str(source), cfile=str(target), dfile=f"<reference {display}>", doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)


def stack_for(problem: Optional[ProblemSpec]) -> Path:
    """The stack directory for `problem` (None: the full reference)."""
    name = problem.id if problem is not None else "_reference"
    return cached_dir(f"stacks/{name}", lambda tmp: _copy_stack(tmp, problem.id if problem else None, load_problems()))


def child_dir() -> Path:
    """The harness, probekit and compat modules, copied where the sandbox may read them."""
    source = Path(__file__).resolve().parent / "child"
    return cached_dir("child", lambda tmp: shutil.copytree(source, tmp, dirs_exist_ok=True,
                                                             ignore=shutil.ignore_patterns("__pycache__")))


def probes_source(folder: Path) -> Optional[Path]:
    """A problem's probes: the package `probes/` (its `__init__.py` registers them; helper modules beside it)
    or the module `probes.py`; None if the folder has neither."""
    package = folder / "probes"
    if (package / "__init__.py").is_file():
        return package
    module = folder / "probes.py"
    return module if module.is_file() else None


def probes_dir(problem: ProblemSpec) -> Path:
    """A folder holding the problem's probes (`probes.py` or the package `probes/`), copied where the sandbox
    may read it (nothing else of the problem's folder: no judges, mutants or hidden data)."""

    def build(tmp: Path) -> None:
        source = probes_source(problem.folder)
        if source is None:
            raise FileNotFoundError(f"{problem.folder}: no probes.py nor probes/__init__.py")
        if source.is_dir():
            shutil.copytree(source, tmp / "probes", ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copyfile(source, tmp / "probes.py")

    return cached_dir(f"probes/{problem.id}", build)


@dataclass(frozen=True)
class Swap:
    """The student's (or a mutant's) file and what to take from it."""

    student_file: Path
    display_path: str
    module: str
    symbols: Sequence[str]
    inject: Sequence[str] = ()

    def as_config(self) -> Dict[str, object]:
        return {
            "student_file": str(Path(self.student_file).resolve()),
            "display_path": self.display_path,
            "module": self.module,
            "symbols": list(self.symbols),
            "inject": list(self.inject),
        }


def swap_for(problem: ProblemSpec, file: Path) -> Swap:
    return Swap(file, problem.swap.file, problem.swap.module, problem.swap.symbols, problem.swap.inject)


def mutant_files(problem: ProblemSpec) -> List[Path]:
    folder = problem.folder / "mutants"
    return sorted(folder.glob("*.py")) if folder.is_dir() else []
