"""The SQLite gradebook on its own: schema, one-transaction records, upserts, statuses, CSV."""

from __future__ import annotations

import csv
import io
import sqlite3

import pytest

from graders import gradebook as gb
from graders import results
from graders.gradebook import Gradebook, GradedSubmission, result_from_json, result_to_json
from graders.gradebook_api import grades_csv
from graders.results import GradeResult, ProblemResult


def result(name: str, points=(2.0, 0.0), notes=(), errors=(), fault=None, misconception="not-topological") -> GradeResult:
    tests = [
        results.TestResult("autodiff", "t1", "first", "gradient", 2.0, points[0], "ok"),
        results.TestResult("autodiff", "t2", "second", "unit", 3.0, points[1], "wrong", misconception if points[1] < 3 else None,
                   figure={"kind": "work", "student": [{"nodes": 3, "chain_rule": 5}]}),
    ]
    autodiff = ProblemResult("autodiff", "Autodiff", tests, misconceptions=[misconception] if points[1] < 3 else [],
                             errors=list(errors), notes=list(notes), fault=fault)
    ops = ProblemResult("ops", "Ops", [results.TestResult("ops", "neg", "Neg", "unit", 5.0, 5.0, "ok")])
    return GradeResult(name, [autodiff, ops], grader_version="0.1.0+abc", content_hash=f"hash-{name}")


def graded(res: GradeResult, fault=None) -> GradedSubmission:
    return GradedSubmission(name=res.submission, source=f"/subs/{res.submission}", content_hash=res.content_hash,
                            problems="autodiff,ops", seed=2026, grader_version=res.grader_version, result=res,
                            fault=fault, started_at=1000.0, finished_at=1002.5)


def counts(book: Gradebook, name: str) -> tuple:
    return tuple(book.query(f"SELECT COUNT(*) FROM {t} WHERE name = ?", (name,))[0][0]
                 for t in ("submissions", "problem_scores", "test_scores", "misconceptions"))


def test_schema_is_wal_and_a_record_has_every_part(tmp_path):
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        book.record(graded(result("ann")))
        assert book.query("PRAGMA journal_mode")[0][0] == "wal"
        assert counts(book, "ann") == (1, 2, 3, 1)
        row = book.get("ann")
        assert (row.score, row.max_score, row.status, row.seconds) == (7.0, 10.0, "graded", 2.5)
        assert row.started_at.startswith("1970-01-01T00:16:40")


def test_recording_again_replaces_instead_of_duplicating(tmp_path):
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        book.record(graded(result("ann")))
        book.record(graded(result("ann", points=(2.0, 3.0))))
        assert counts(book, "ann") == (1, 2, 3, 0)
        assert book.get("ann").score == 10.0
        with pytest.raises(sqlite3.IntegrityError):
            book.db.execute("INSERT INTO submissions SELECT * FROM submissions WHERE name = 'ann'")


def test_a_failure_inside_the_transaction_keeps_the_previous_record(tmp_path, monkeypatch):
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        book.record(graded(result("ann")))
        original = Gradebook._insert_scores

        def half(db, name, res):
            original(db, name, res)
            raise RuntimeError("disk on fire")

        monkeypatch.setattr(Gradebook, "_insert_scores", staticmethod(half))
        with pytest.raises(RuntimeError):
            book.record(graded(result("ann", points=(0.0, 3.0))))
        with pytest.raises(RuntimeError):
            book.record(graded(result("bob")))
        assert counts(book, "ann") == (1, 2, 3, 1) and book.get("ann").score == 7.0
        assert counts(book, "bob") == (0, 0, 0, 0)


def test_stored_result_round_trips(tmp_path):
    original = result("ann", notes=["the grading process timed out after 90 s"])
    assert result_from_json(result_to_json(original)) == original
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        book.record(graded(original))
        assert book.result("ann") == original and book.result("nobody") is None


@pytest.mark.parametrize(
    "res, fault, status, issue",
    [
        (result("ok", notes=["graded autodiff.py as minitorch/autodiff.py"]), None, "graded", None),
        (result("crash", notes=["the grading process exited early with code 1"]), None, "error", "exited early"),
        (result("missing", errors=["minitorch/autodiff.py is missing"]), None, "error", "is missing"),
        (result("bug", fault="KeyError: 'x'"), None, "fault", None),
        (result("lost"), "the grading task failed: KilledWorker", "fault", "KilledWorker"),
    ],
)
def test_status_and_error_text(tmp_path, res, fault, status, issue):
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        book.record(graded(res, fault=fault))
        row = book.get(res.submission)
    assert row.status == status
    if issue:
        assert issue in row.error
    else:
        assert status == "fault" or row.error == ""


def test_grades_csv_rows_and_columns(tmp_path):
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        book.record(graded(result("zed", points=(2.0, 3.0))))
        book.record(graded(result("ann")))
        table = list(csv.reader(io.StringIO(grades_csv(book))))
    assert table == [
        ["student", "total", "max_total", "autodiff", "ops", "status"],
        ["ann", "7", "10", "2", "5", "graded"],
        ["zed", "10", "10", "5", "5", "graded"],
    ]


def test_error_text_is_capped(tmp_path):
    long = result("long", errors=["x" * (gb.ERROR_CHARS * 2)])
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        book.record(graded(long))
        assert len(book.get("long").error) == gb.ERROR_CHARS
        assert book.result("long").problems[0].errors[0] == "x" * (gb.ERROR_CHARS * 2)
