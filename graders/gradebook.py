"""The class gradebook: one SQLite file (WAL) per batch output directory.

One row per submission (UNIQUE name) plus its per-problem scores, per-test
scores and misconceptions. A submission is recorded in a single transaction
(upsert of its row, replacement of its child rows), so a batch killed at any
instant leaves either the previous complete record or the new complete one,
never half of one. The full GradeResult is kept as JSON so reports can be
re-rendered without regrading.

Student-derived text (graders.safetext): the submission name is kept exactly (it is the key of the
record and of DIR/<name>/); every other text column is stored printable, and every cell of grades.csv
is made safe for spreadsheets (`safetext.csv_cell`: one line, formulas neutralised, numbers as numbers).

This module writes records (and reads one back, for `batch` to resume and `report` to re-render); what the
class report and grades.csv read is graders.gradebook_api.
"""

from __future__ import annotations

import dataclasses
import json
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Type

from .results import GradeResult, ProblemResult, TestResult
from .safetext import printable

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

GRADEBOOK = "gradebook.sqlite"
SCHEMA_VERSION = "1"
#: graded: grading completed normally; error: completed, but the student's code could
#: not run normally (missing file, crash, timeout); fault: the grader failed.
STATUSES = ("graded", "error", "fault")
#: Longest error text kept in the submissions row (the full story is in `detail`).
ERROR_CHARS = 2000

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS submissions (
    name TEXT PRIMARY KEY NOT NULL,
    source TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    grader_version TEXT NOT NULL,
    problems TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('graded', 'error', 'fault')),
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    error TEXT NOT NULL DEFAULT '',
    started_at TEXT NOT NULL,
    finished_at TEXT NOT NULL,
    seconds REAL NOT NULL,
    recorded_at TEXT NOT NULL,
    detail TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS problem_scores (
    name TEXT NOT NULL REFERENCES submissions(name) ON DELETE CASCADE,
    problem TEXT NOT NULL,
    position INTEGER NOT NULL,
    title TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    error TEXT NOT NULL DEFAULT '',
    fault TEXT,
    PRIMARY KEY (name, problem)
);
CREATE TABLE IF NOT EXISTS test_scores (
    name TEXT NOT NULL REFERENCES submissions(name) ON DELETE CASCADE,
    problem TEXT NOT NULL,
    test TEXT NOT NULL,
    position INTEGER NOT NULL,
    title TEXT NOT NULL,
    kind TEXT NOT NULL,
    score REAL NOT NULL,
    max_score REAL NOT NULL,
    passed INTEGER NOT NULL,
    misconception TEXT,
    message TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (name, problem, test)
);
CREATE TABLE IF NOT EXISTS misconceptions (
    name TEXT NOT NULL REFERENCES submissions(name) ON DELETE CASCADE,
    problem TEXT NOT NULL,
    misconception TEXT NOT NULL,
    PRIMARY KEY (name, problem, misconception)
);
"""


@dataclass
class GradedSubmission:
    """What grading one submission produced: everything its gradebook record holds."""

    #: the submission's name (its entry name in the submissions folder, without .zip)
    name: str
    #: the path that was graded
    source: str
    #: intake's hash of the graded contract files (the resume key)
    content_hash: str
    #: comma-separated ids of the problems graded (part of the resume key)
    problems: str
    #: the probes' random seed (part of the resume key)
    seed: int
    #: the grader version that produced the result (part of the resume key)
    grader_version: str
    #: the full result (a faulted one when grading itself failed)
    result: GradeResult
    #: a grader fault outside the problems (grading raised, outputs not written)
    fault: Optional[str] = None
    #: wall-clock start and end of grading, seconds since the epoch
    started_at: float = 0.0
    finished_at: float = 0.0

    @property
    def issues(self) -> List[str]:
        """Why the submission did not run normally, clearest first."""
        found = [f"grader fault: {self.fault.splitlines()[0]}"] if self.fault else []
        return found + result_issues(self.result)

    @property
    def status(self) -> str:
        if self.fault or self.result.faults:
            return "fault"
        return "error" if self.issues else "graded"

    @property
    def seconds(self) -> float:
        return round(max(0.0, self.finished_at - self.started_at), 3)


@dataclass
class SubmissionRow:
    """One row of the `submissions` table."""

    name: str
    source: str
    content_hash: str
    grader_version: str
    #: comma-separated problem ids graded
    problems: str
    seed: int
    #: one of STATUSES
    status: str
    score: float
    max_score: float
    #: the submission's issues, one per line (empty when it ran normally)
    error: str
    #: ISO 8601 UTC timestamps of grading
    started_at: str
    finished_at: str
    #: wall-clock seconds of grading
    seconds: float
    #: when the row was committed (ISO 8601 UTC)
    recorded_at: str


def result_issues(result: GradeResult) -> List[str]:
    """Grader faults (their reason, for staff), submission errors, problem errors and process events (crash,
    timeout, tampering)."""
    found = [f"{p.id}: grader fault: {p.fault.splitlines()[0]}" for p in result.problems if p.fault]  # staff first
    found += list(result.errors)
    for problem in result.problems:
        if problem.fault:
            continue
        found += [f"{problem.id}: {e}" for e in problem.errors]
        # "graded X as Y" notes say where a file was found; every other note is an event
        found += [f"{problem.id}: {n}" for n in problem.notes if not n.startswith("graded ")]
    return list(dict.fromkeys(found))


def iso(timestamp: float) -> str:
    return datetime.fromtimestamp(timestamp, timezone.utc).isoformat(timespec="milliseconds")


def _known(cls: Type[DataclassInstance], data: Dict[str, Any]) -> Dict[str, Any]:
    names = {f.name for f in dataclasses.fields(cls) if f.init}
    return {k: v for k, v in data.items() if k in names}


def result_to_json(result: GradeResult) -> str:
    """The result as JSON, without the drawn figures (the reports keep those; `figure` data is kept)."""
    doc = dataclasses.asdict(result)
    for problem in doc["problems"]:
        for test in problem["tests"]:
            test.pop("svg", None)
    return json.dumps(doc)


def result_from_json(text: str) -> GradeResult:
    """The GradeResult stored by `result_to_json` (unknown keys ignored)."""
    data = json.loads(text)
    problems = []
    for p in data.get("problems", []):
        tests = [TestResult(**_known(TestResult, t)) for t in p.get("tests", [])]
        problems.append(ProblemResult(**{**_known(ProblemResult, p), "tests": tests}))
    return GradeResult(**{**_known(GradeResult, data), "problems": problems})


class Gradebook:
    """DIR/gradebook.sqlite. Use from one thread (the batch's client thread)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(str(self.path), isolation_level=None, timeout=30)
        self.db.row_factory = sqlite3.Row
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=FULL")
        self.db.execute("PRAGMA foreign_keys=ON")
        with self.transaction():
            for statement in filter(str.strip, SCHEMA.split(";")):
                self.db.execute(statement)
            self.db.execute("INSERT OR IGNORE INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Gradebook:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """BEGIN IMMEDIATE … COMMIT, rolled back on any exception."""
        self.db.execute("BEGIN IMMEDIATE")
        try:
            yield self.db
        except BaseException:
            self.db.execute("ROLLBACK")
            raise
        self.db.execute("COMMIT")

    def record(self, graded: GradedSubmission) -> None:
        """Replace the submission's record, atomically."""
        with self.transaction() as db:
            self._upsert_submission(db, graded)
            for table in ("problem_scores", "test_scores", "misconceptions"):
                db.execute(f"DELETE FROM {table} WHERE name = ?", (graded.name,))
            self._insert_scores(db, graded.name, graded.result)

    @staticmethod
    def _upsert_submission(db: sqlite3.Connection, g: GradedSubmission) -> None:
        values = {
            "name": g.name, "source": g.source, "content_hash": g.content_hash,
            "grader_version": g.grader_version, "problems": g.problems, "seed": g.seed,
            "status": g.status, "score": g.result.score, "max_score": g.result.max_score,
            "error": printable("\n".join(g.issues)[:ERROR_CHARS]), "started_at": iso(g.started_at),
            "finished_at": iso(g.finished_at), "seconds": g.seconds,
            "recorded_at": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
            "detail": result_to_json(g.result),
        }
        columns = ", ".join(values)
        marks = ", ".join(f":{k}" for k in values)
        updates = ", ".join(f"{k} = excluded.{k}" for k in values if k != "name")
        db.execute(
            f"INSERT INTO submissions ({columns}) VALUES ({marks}) ON CONFLICT(name) DO UPDATE SET {updates}",
            values,
        )

    @staticmethod
    def _insert_scores(db: sqlite3.Connection, name: str, result: GradeResult) -> None:
        for position, p in enumerate(result.problems):
            db.execute(
                "INSERT INTO problem_scores VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (name, p.id, position, p.title, p.score, p.max_score, printable("\n".join(p.errors)),
                 printable(p.fault) if p.fault else p.fault),
            )
            for index, t in enumerate(p.tests):
                db.execute(
                    "INSERT INTO test_scores VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (name, p.id, t.id, index, t.name, t.kind, t.score, t.max_score, int(t.passed),
                     t.misconception, printable(t.message)),
                )
            for m in dict.fromkeys(p.misconceptions):
                db.execute("INSERT INTO misconceptions VALUES (?, ?, ?)", (name, p.id, m))

    def get(self, name: str) -> Optional[SubmissionRow]:
        row = self.db.execute(f"SELECT {_ROW_COLUMNS} FROM submissions WHERE name = ?", (name,)).fetchone()
        return SubmissionRow(**dict(row)) if row else None

    def rows(self) -> List[SubmissionRow]:
        cursor = self.db.execute(f"SELECT {_ROW_COLUMNS} FROM submissions ORDER BY name")
        return [SubmissionRow(**dict(r)) for r in cursor]

    def result(self, name: str) -> Optional[GradeResult]:
        """The stored GradeResult of `name` (for re-rendering its report)."""
        row = self.db.execute("SELECT detail FROM submissions WHERE name = ?", (name,)).fetchone()
        return result_from_json(row["detail"]) if row else None

    def query(self, sql: str, params: tuple = ()) -> List[sqlite3.Row]:
        return list(self.db.execute(sql, params))


_ROW_COLUMNS = ", ".join(f.name for f in dataclasses.fields(SubmissionRow))
