"""`autograde check-problems`: a problem folder validated before any grading.

First the checks that grade nothing (graders.problemlint: the schema of `problem.toml` and `offerings.toml`,
judges, misconception ids, swap symbols, then probe ids in a child process); then, unless told not to, the
reference graded (full marks) and the blank template graded (0).
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import List, Optional

from . import paths
from .grade import GradeOptions, grade_submission
from .offering import grading_offering
from .problemlint import Finding, catalogue_ids, check_folder, offerings_findings, probe_findings
from .spec import CourseVisibility, ProblemSpec, load_problem, load_problems


def _grading_findings(problem: ProblemSpec) -> List[Finding]:
    """The reference gets full marks and the blank template 0 on `problem`, in an offering that grades it."""
    offering = grading_offering(problem.id)
    if offering is None:  # not assigned yet: nothing grades it, so nothing to check
        return []
    from .make_template import make_template

    found = []
    with tempfile.TemporaryDirectory(prefix="check-problems-") as tmp:
        blank = Path(tmp) / "template"
        make_template(blank, offering=offering)  # the offering's own template: its problems stubbed
        for name, folder, full in (("the reference", paths.REFERENCE, True), ("the blank template", blank, False)):
            found += _graded_as_expected(problem, name, folder, offering, full)
    return found


def _graded_as_expected(problem: ProblemSpec, name: str, folder: Path, offering: str, full: bool) -> List[Finding]:
    """[] if `folder` scores full marks (`full`) or 0 on `problem` in `offering`, else the finding."""
    result = grade_submission(folder, GradeOptions(problems=[problem.id], offering=offering)).problems[0]
    want = result.max_score if full else 0.0
    if not result.fault and abs(result.score - want) <= 1e-9:
        return []
    why = result.fault or "; ".join(f"{t.id}: {t.message[:120]}" for t in result.tests if (t.score > 0) != full)[:600]
    return [Finding(problem.folder, f"{name} scored {result.score:g} / {result.max_score:g} in offering "
                                    f"'{offering}', expected {want:g}: {why}")]


def check_problems(root: Optional[Path] = None, grade: bool = True) -> List[Finding]:
    """Every finding about the problem folders under `root` (default: the grader's problems/)."""
    from .catalogue import CatalogueError

    root = (root or paths.PROBLEMS).resolve()
    try:
        catalogue = catalogue_ids(root)
    except CatalogueError as exc:
        return [Finding(root, str(exc))]
    folders = [d for d in sorted(root.iterdir()) if (d / "problem.toml").is_file()]
    if not folders:
        return [Finding(root, "no problem folder (a folder with problem.toml)")]
    found: List[Finding] = []
    clean: List[ProblemSpec] = []
    for folder in folders:
        static = check_folder(folder, catalogue, paths.REFERENCE)
        found += static
        if not static:
            clean.append(load_problem(folder, CourseVisibility()))
    found += probe_findings(clean)  # one child for every problem's probes
    found += offerings_findings(root)
    if grade and not found and root.resolve() == paths.PROBLEMS.resolve():
        for problem in load_problems(root):
            found += _grading_findings(problem)
    return found
