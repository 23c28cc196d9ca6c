"""Reading the gradebook: what the class report and grades.csv show, as typed rows.

The gradebook (graders.gradebook) writes one submission's record per transaction; this module is its read
side, nbgrader's `api.py` being the model: every query and the parsing of the stored result JSON live here,
so a report asks for submissions, problems and tests and never for SQL. Scores of a problem the grader failed
on (a fault) are not scores: every function here leaves them out.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from typing import Any, Dict, List

from .clusters import FailedTest, Failures
from .gradebook import Gradebook, SubmissionRow
from .results import review_line
from .safetext import csv_cell


@dataclass(frozen=True)
class SubmissionScores:
    """One submission's record as the class report lists it."""

    row: SubmissionRow
    #: problem id -> score of each problem graded without a fault, in the problems' order
    problems: Dict[str, float]
    #: misconception ids found in it, each once, sorted
    misconceptions: List[str]
    #: what a TA should look at: the integrity screen's lines and tests whose judges asked (empty for old records)
    review: List[str]


@dataclass(frozen=True)
class ProblemScores:
    """One problem over the class."""

    id: str
    title: str
    max_score: float
    #: the score of every submission graded on it without a fault, in the order they were recorded
    scores: List[float]


@dataclass(frozen=True)
class PassCount:
    """How many submissions passed one test (submissions whose problem faulted left out)."""

    problem: str
    test: str
    title: str
    kind: str
    passed: int
    total: int

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 0.0


def problem_ids(book: Gradebook) -> List[str]:
    """Problem ids present in the gradebook, in the problems' declared order."""
    rows = book.query("SELECT problem, MIN(position) AS pos FROM problem_scores GROUP BY problem ORDER BY pos, problem")
    return [r["problem"] for r in rows]


def problem_scores(book: Gradebook) -> Dict[str, Dict[str, float]]:
    """submission name -> {problem id: score} of the problems graded without a fault, in the problems' order."""
    scores: Dict[str, Dict[str, float]] = {}
    for r in book.query("SELECT name, problem, score FROM problem_scores WHERE fault IS NULL ORDER BY position"):
        scores.setdefault(r["name"], {})[r["problem"]] = r["score"]
    return scores


def _misconceptions(book: Gradebook) -> Dict[str, List[str]]:
    found: Dict[str, List[str]] = {}
    for r in book.query("SELECT DISTINCT name, misconception FROM misconceptions ORDER BY misconception"):
        found.setdefault(r["name"], []).append(r["misconception"])
    return found


def _reviews(book: Gradebook) -> Dict[str, List[str]]:
    """name -> the review lines stored with its result, the integrity screen's and its tests' (GradeResult
    .staff_review; rows recorded before the screen existed have none)."""
    found = {}
    for r in book.query("SELECT name, detail FROM submissions"):
        try:
            detail = json.loads(r["detail"])
            lines = [str(line) for line in detail.get("review") or []] + _test_reviews(detail)
        except (ValueError, AttributeError, TypeError):
            lines = []
        if lines:
            found[r["name"]] = lines
    return found


def _test_reviews(detail: Dict[str, Any]) -> List[str]:
    """The stored result's tests that asked for a TA's look, as GradeResult.staff_review says them."""
    return [review_line(str(p.get("id")), str(t.get("name")), str(t["review"])) for p in detail.get("problems") or []
            for t in p.get("tests") or [] if t.get("review")]


def submissions(book: Gradebook) -> List[SubmissionScores]:
    """Every submission's record, by name."""
    scores, found, review = problem_scores(book), _misconceptions(book), _reviews(book)
    return [SubmissionScores(row, scores.get(row.name, {}), found.get(row.name, []), review.get(row.name, []))
            for row in book.rows()]


def problems(book: Gradebook) -> List[ProblemScores]:
    """Every problem of the gradebook, in the problems' declared order, with its fault-free scores."""
    rows = book.query(
        "SELECT problem, MIN(position) AS pos, MAX(title) AS title, MAX(max_score) AS top "
        "FROM problem_scores GROUP BY problem ORDER BY pos, problem"
    )
    scores: Dict[str, List[float]] = {}
    for s in book.query("SELECT problem, score FROM problem_scores WHERE fault IS NULL ORDER BY rowid"):
        scores.setdefault(s["problem"], []).append(s["score"])
    return [ProblemScores(r["problem"], r["title"], r["top"], scores.get(r["problem"], [])) for r in rows]


def tests(book: Gradebook) -> List[PassCount]:
    """Every test of the gradebook, in the problems' and then the tests' declared order."""
    rows = book.query(
        "SELECT t.problem, t.test, MAX(t.title) AS title, MAX(t.kind) AS kind, SUM(t.passed) AS passed, "
        "COUNT(*) AS total, MIN(p.position) AS ppos, MIN(t.position) AS tpos "
        "FROM test_scores t JOIN problem_scores p ON p.name = t.name AND p.problem = t.problem "
        "WHERE p.fault IS NULL GROUP BY t.problem, t.test ORDER BY ppos, t.problem, tpos, t.test"
    )
    return [PassCount(r["problem"], r["test"], r["title"], r["kind"], r["passed"], r["total"]) for r in rows]


def failures(book: Gradebook) -> List[Failures]:
    """Every submission's failed tests (problems the grader failed on left out) and the misconceptions named
    for it, by name: what failure clustering (graders.clusters) reads."""
    failed: Dict[str, List[FailedTest]] = {}
    for r in book.query(
        "SELECT t.name, t.problem, t.test, t.title, t.message FROM test_scores t "
        "JOIN problem_scores p ON p.name = t.name AND p.problem = t.problem "
        "WHERE t.passed = 0 AND p.fault IS NULL ORDER BY t.name, p.position, t.position"
    ):
        failed.setdefault(r["name"], []).append(FailedTest(r["problem"], r["test"], r["title"], r["message"]))
    found = _misconceptions(book)
    return [Failures(row.name, tuple(found.get(row.name, [])), tuple(failed.get(row.name, [])))
            for row in book.rows()]


def grader_versions(book: Gradebook) -> List[str]:
    """The grader versions that produced the records, sorted."""
    return sorted({r["grader_version"] for r in book.query("SELECT DISTINCT grader_version FROM submissions")})


def grades_csv(book: Gradebook) -> str:
    """One row per student: total, maximum, per-problem scores, status (LMS import).

    A grader fault is no score: its total and its faulted problems' cells are empty (status `fault`), so an LMS
    import never records a 0 the student did not earn. Every cell goes through `safetext.csv_cell`: scores are
    numbers, text can never be a formula."""
    columns = problem_ids(book)
    scores = problem_scores(book)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([csv_cell(c) for c in ["student", "total", "max_total", *columns, "status"]])
    for row in book.rows():
        mine = scores.get(row.name, {})
        total = "" if row.status == "fault" else row.score
        cells = [row.name, total, row.max_score, *(mine.get(p, "") for p in columns), row.status]
        writer.writerow([csv_cell(c) for c in cells])
    return out.getvalue()
