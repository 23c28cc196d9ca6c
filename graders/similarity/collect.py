"""What similarity screening reads: the students' files (through intake) and the code given to everyone.

Contract:

- `class_entries(submissions_dir, out_dir)` lists the submissions exactly as `autograde batch` does
  (`graders.submissions.discover`: a folder or a .zip per student, hidden entries skipped, names made one
  short printable line); other entries come back as notes.
- `read_student(entry, wanted, workspace)` opens one submission with intake (`open_submission`), so
  zips, a wrapping folder, files at the wrong place, symlinks, oversized, binary, non-UTF-8 and
  syntax-error files behave as in grading: a file intake refuses is skipped with a note naming it.
- `given_code(offering, bases)` is the code given to everyone: the student template of the offering
  (generated from reference/ as `autograde make-template` does, so it always matches the grader) and
  every Python file of each `--base` file or folder. Unreadable base files are skipped with a note.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from .. import paths
from ..intake import CANNOT_COMPILE, IGNORED_DIRS, MAX_FILE_BYTES, check_source, open_submission
from ..offering import Offering, offering_problems
from ..safetext import one_line
from ..spec import load_problems
from ..submissions import Entry, discover

#: Most Python files read from one --base folder (a course starter has a few dozen).
MAX_BASE_FILES = 2000


@dataclass
class StudentCode:
    """The readable contract files of one submission."""

    name: str
    #: contract path -> source text (only files intake accepted)
    sources: Dict[str, str] = field(default_factory=dict)
    #: why a file (or the whole submission) was skipped, one line each
    notes: List[str] = field(default_factory=list)
    #: files graded as they are that screening cannot compare (`compile` gave up on them without a
    #: SyntaxError: too deep or too big), one line each: listed for attention, never passed silently
    uncompared: List[str] = field(default_factory=list)


@dataclass
class GivenCode:
    """Code every student received: excluded from every comparison."""

    #: label (a path or `template:<contract path>`) -> source text
    sources: Dict[str, str] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)


def contract_files(offering: Offering) -> List[str]:
    """The student files the offering grades, in problem order (each once)."""
    return list(dict.fromkeys(spec.swap.file for spec in offering_problems(offering)))


def class_entries(submissions_dir: Path, out_dir: Optional[Path] = None) -> Tuple[List[Entry], List[str]]:
    """(submissions, notes about entries that are not submissions), as `batch` discovers them."""
    entries, skipped = discover(submissions_dir, out_dir)
    notes = [f"{name}: skipped (neither a folder nor a .zip)" for name in skipped]
    return entries, notes


def _file_note(name: str, error: str) -> str:
    return one_line(f"{name}: {error}")


def read_student(entry: Entry, wanted: Sequence[str], workspace: Path) -> StudentCode:
    """The readable contract files of `entry`. Intake stages them under `workspace` (a folder that can
    be reused for the next submission: the staged files are removed once read)."""
    code = StudentCode(entry.name)
    workspace.mkdir(parents=True, exist_ok=True)
    submission = open_submission(entry.path, workspace, wanted, name=entry.name)
    code.notes.extend(_file_note(entry.name, e) for e in submission.errors)
    for path in wanted:
        record = submission.files[path]
        if record.staged is None:
            if not submission.errors:  # the submission-level error already says why
                code.notes.append(_file_note(entry.name, record.error or f"{path} was not read"))
            if record.error and CANNOT_COMPILE in record.error:
                code.uncompared.append(one_line(f"{path}: {record.error}"))
            continue
        try:
            code.sources[path] = record.staged.read_text(encoding="utf-8")
        finally:
            record.staged.unlink(missing_ok=True)
    return code


def _template_sources(offering: Offering) -> Dict[str, str]:
    """The student template's version of every contract file, for `offering` (as make-template writes it)."""
    from ..template import strip_file

    every = load_problems()
    graded = [p.id for p in offering_problems(offering)]
    sources: Dict[str, str] = {}
    for rel in dict.fromkeys(p.swap.file for p in every):
        reference = paths.REFERENCE / rel
        if reference.is_file():
            sources[f"template:{rel}"] = strip_file(reference, rel, every, only=graded, markers=offering.markers,
                                                    reveal_others=True)
        elif (paths.STUDENT_TEMPLATE / rel).is_file():
            sources[f"template:{rel}"] = (paths.STUDENT_TEMPLATE / rel).read_text(encoding="utf-8")
    return sources


def _python_files(folder: Path, notes: List[str]) -> List[Path]:
    """Regular .py files under `folder` (links not followed, ignored folders skipped), at most MAX_BASE_FILES."""
    found: List[Path] = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in IGNORED_DIRS and not d.endswith(".egg-info"))
        for name in sorted(files):
            path = Path(root) / name
            if name.endswith(".py") and not path.is_symlink() and path.is_file():
                if len(found) >= MAX_BASE_FILES:
                    notes.append(one_line(f"{folder}: more than {MAX_BASE_FILES} Python files; "
                                          "the rest are not used as base"))
                    return found
                found.append(path)
    return found


def _read_base_file(path: Path, notes: List[str]) -> Optional[str]:
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            notes.append(one_line(f"base {path}: skipped (more than {MAX_FILE_BYTES} bytes)"))
            return None
        data = path.read_bytes()
    except OSError as exc:
        notes.append(one_line(f"base {path}: skipped ({exc.strerror or exc})"))
        return None
    text, _, error = check_source(data, str(path))
    if error:
        notes.append(one_line(f"base {error}; skipped"))
    return text


def given_code(offering: Offering, bases: Sequence[Path] = ()) -> GivenCode:
    """The template of `offering` and every Python file of `bases` (files or folders)."""
    given = GivenCode(_template_sources(offering))
    for base in bases:
        if base.is_dir():
            files = _python_files(base, given.notes)
        elif base.is_file():
            files = [base]
        else:
            given.notes.append(one_line(f"base {base}: skipped (no such file or folder)"))
            continue
        for path in files:
            text = _read_base_file(path, given.notes)
            if text is not None:
                given.sources[str(path)] = text
    return given
