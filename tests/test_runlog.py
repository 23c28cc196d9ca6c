"""The run log (graders.runlog, AUTOGRADE_RUN_LOG): one JSON line per sandboxed run with the CPU its control group
counted, which benchmarks/suite.py sums to say where the suite's time goes."""

from __future__ import annotations

import json

import pytest

import hostile_kit as k
from conftest import needs_cpu_accounting
from graders.results import ChildRun, ProbeOutcome
from graders.runlog import RUN_LOG_ENV, note_run

NET = k.FILES["network"]
#: CPU seconds the submission below burns when its file is imported (in the student's sandboxed process)
BURN = 0.6


def _run(cpu):
    return ChildRun(outcomes={"a": ProbeOutcome("a", "ok"), "b": ProbeOutcome("b", "ok")}, seconds=1.25,
                    cpu_seconds=cpu)


def test_a_run_is_one_line_with_its_problem_kind_cpu_file_and_test(tmp_path, monkeypatch):
    log = tmp_path / "runs.jsonl"
    monkeypatch.setenv(RUN_LOG_ENV, str(log))
    one, same, other = tmp_path / "one.py", tmp_path / "same.py", tmp_path / "other.py"
    one.write_text("x = 1\n")
    same.write_text("x = 1\n")
    other.write_text("x = 2\n")
    note_run("autodiff", "student", _run(0.75), graded_file=one)
    note_run("autodiff", "mutant-bfs", _run(None))
    note_run("autodiff", "student", _run(0.5), graded_file=same)
    note_run("autodiff", "student", _run(0.5), graded_file=other)
    first, second, third, fourth = [json.loads(line) for line in log.read_text().splitlines()]
    assert first == {"problem": "autodiff", "kind": "student", "cpu_seconds": 0.75, "wall_seconds": 1.25,
                     "probes": 2, "file": first["file"], "test": first["test"]}
    assert first["test"].startswith("tests/test_runlog.py::test_a_run_is_one_line")
    assert second["kind"] == "mutant-bfs" and second["cpu_seconds"] is None and second["file"] is None
    assert first["file"] == third["file"] != fourth["file"] and len(first["file"]) == 16


def test_no_log_without_the_variable_and_an_unwritable_one_fails_nothing(tmp_path, monkeypatch):
    monkeypatch.delenv(RUN_LOG_ENV, raising=False)
    note_run("autodiff", "student", _run(0.5))
    assert not list(tmp_path.iterdir())
    monkeypatch.setenv(RUN_LOG_ENV, str(tmp_path / "missing" / "runs.jsonl"))
    note_run("autodiff", "student", _run(0.5))  # no folder: skipped, no exception
    assert not list(tmp_path.iterdir())


@needs_cpu_accounting
def test_the_students_cpu_is_counted_whole(tmp_path, monkeypatch):
    """A network file that burns BURN CPU seconds at import: its run's line says at least that much (the whole
    sandbox, as its control group counted it, not the trusted process alone)."""
    burn = (f"\nimport time as _t\n_end = _t.process_time() + {BURN}\n"
            "while _t.process_time() < _end:\n    pass\n")
    plain = k.build(tmp_path / "plain", {NET: k.source("reference", NET)})
    burning = k.build(tmp_path / "burning", {NET: k.source("reference", NET) + burn})
    log = tmp_path / "runs.jsonl"
    monkeypatch.setenv(RUN_LOG_ENV, str(log))
    for submission in (plain, burning):
        result = k.grade(submission, ["network"])
        assert k.problem(result, "network").score == k.problem(result, "network").max_score
    student = [json.loads(line) for line in log.read_text().splitlines()]
    student = [row for row in student if row["kind"] == "student"]
    assert [row["problem"] for row in student] == ["network", "network"], student
    plain_cpu, burning_cpu = (row["cpu_seconds"] for row in student)
    assert 0 < plain_cpu and burning_cpu >= BURN, student
    assert burning_cpu - plain_cpu == pytest.approx(BURN, abs=0.4), student
