"""A grader fault is never a student's grade (graders.faults): both sides of the line, with injected faults.

Every fault kind is injected (AUTOGRADE_INJECT_FAULTS, the grader's test-only switch) on a correct submission:
once, the problem is retried and graded right; always, the problem is recorded as a fault (not a score), the
other problem is untouched, results.json and the student's text say so, and `grade` exits 1. On the other side
of the line, failures made by the student's own code (a SystemError it raises, a forged harness fault, a kill
of its own process) stay the student's, after the retry and the control run say the grader works.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from conftest import ROOT
from graders.batch import BatchOptions, run_batch
from graders.cli import main
from graders.faults import FAULT_KINDS, INJECT_ENV, reset_injections
from graders.grade import GradeOptions, grade_submission
from graders.gradebook import Gradebook
from reports.render import STAFF

OFFERING = "all"
#: a quick problem with figures (every fault kind has a point on its path), and one graded beside it
PROBLEM, OTHER = "forward", "network"
FILES = {"forward": "minitorch/forward.py", "network": "project/run_sentiment.py"}


@pytest.fixture
def inject(monkeypatch):
    """Set AUTOGRADE_INJECT_FAULTS for this test (counts start afresh)."""

    def set_faults(value: str) -> None:
        monkeypatch.setenv(INJECT_ENV, value)
        reset_injections()

    yield set_faults
    monkeypatch.delenv(INJECT_ENV, raising=False)
    reset_injections()


def _submission(tmp_path: Path, forward_text: str = "") -> Path:
    """The reference's files of both problems; `forward_text` appended to forward.py (it overrides)."""
    sub = tmp_path / "sub"
    for rel in FILES.values():
        (sub / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / "reference" / rel, sub / rel)
    if forward_text:
        path = sub / FILES["forward"]
        path.write_text(path.read_text(encoding="utf-8") + "\n\n" + forward_text, encoding="utf-8")
    return sub


def _grade(sub: Path, problems=(PROBLEM, OTHER)):
    return grade_submission(sub, GradeOptions(offering=OFFERING, problems=list(problems), figures=STAFF))


def _problem(result, pid):
    (found,) = [p for p in result.problems if p.id == pid]
    return found


def _rule(kind: str, times: str = "") -> str:
    """An injection rule for PROBLEM (the cache has no problem: it is shared by all)."""
    return f"{kind}{'' if kind == 'cache' else ':' + PROBLEM}{times}"


@pytest.mark.parametrize("kind", sorted(FAULT_KINDS))
def test_a_fault_of_the_moment_is_retried_and_the_grade_is_right(tmp_path, inject, kind):
    inject(_rule(kind, "*1"))
    result = _grade(_submission(tmp_path), [PROBLEM])
    for p in result.problems:
        assert p.fault is None and p.score == p.max_score, (kind, p.id, p.fault, [t.message for t in p.tests if not t.passed])
    assert not result.faults


#: the fault kinds met on a batch's path: a batch draws only the figures of the tests its reports show (the visible
#: ones, none of which draws for the reference), so a figure fault is met by `grade --show all` (below)
BATCH_FAULT_KINDS = sorted(set(FAULT_KINDS) - {"figure"})


@pytest.mark.parametrize("kind", BATCH_FAULT_KINDS)
def test_a_fault_that_persists_is_a_fault_never_points_and_a_rerun_regrades_it(tmp_path, inject, kind):
    """Injected always: `batch` exits 1; the problem is a fault in results.json (both attempts in its reason),
    its tests and the student's summary say the grader failed, not their code, and that it is not graded yet;
    the gradebook row is a fault, listed first under Needs attention; the other problem is untouched; once the
    grader works again, a plain rerun regrades the submission."""
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    _submission(tmp_path / "cal").rename(subs / "cal")
    inject(_rule(kind))
    run = CliRunner().invoke(main, ["batch", str(subs), "--out", str(out), "--offering", OFFERING, "--problems",
                                    f"{PROBLEM},{OTHER}", "--jobs", "1", "--no-progress", "--no-similarity"])
    assert run.exit_code == 1, run.output
    assert "cal [fault]" in run.output
    doc = json.loads((out / "cal" / "results.json").read_text(encoding="utf-8"))
    faults = {f["problem"]: f["reason"] for f in doc["extra_data"]["faults"]}
    assert sorted(faults) == (sorted([PROBLEM, OTHER]) if kind == "cache" else [PROBLEM]), faults
    assert "attempt 1:" in faults[PROBLEM] and "attempt 2:" in faults[PROBLEM], faults[PROBLEM]
    assert "The grader failed on " in doc["output"] and "`forward`" in doc["output"] and "not your code" in doc["output"]
    assert "not graded yet" in doc["output"] and "### Score" in doc["output"]
    forward_tests = [t for t in doc["tests"] if t["extra_data"]["problem"] == PROBLEM]
    assert forward_tests and all("Not graded yet: the grader failed" in t["output"] for t in forward_tests)
    if kind != "cache":  # the cache is every problem's; any other fault costs the other problem nothing
        other = doc["extra_data"]["problems"][OTHER]
        assert other["score"] == other["max_score"] > 0
    with Gradebook(out / "gradebook.sqlite") as book:
        assert book.get("cal").status == "fault"
    index = (out / "index.html").read_text(encoding="utf-8")
    assert "grader fault — regrade" in index
    assert index.index("grader fault — regrade") < index.index('id="overview"')

    inject("")
    again = run_batch(subs, out, BatchOptions(offering=OFFERING, problems=[PROBLEM, OTHER], jobs=1, progress=False,
                                              similarity=False))
    assert [g.name for g in again.graded] == ["cal"] and not again.faults
    with Gradebook(out / "gradebook.sqlite") as book:
        row = book.get("cal")
        assert row.status == "graded" and row.score == row.max_score


@pytest.mark.parametrize("kind, show", [("judge", "visible"), ("figure", "all")])
def test_grade_exits_1_on_a_fault_and_says_so(tmp_path, inject, kind, show):
    """A judge that always fails, or a figure the report shows (`--show all`: the timing figure of the reference
    too) that can never be drawn: `grade` exits 1, and its summary and report say the grader failed."""
    inject(_rule(kind))
    out = tmp_path / "out"
    run = CliRunner().invoke(main, ["grade", str(_submission(tmp_path)), "--offering", OFFERING, "--problems",
                                    f"{PROBLEM},{OTHER}", "--out", str(out), "--show", show])
    assert run.exit_code == 1, run.output
    assert "grader fault" in run.output and "not graded: GRADER FAULT" in run.output
    report = (out / "report.html").read_text(encoding="utf-8")
    assert 'id="grader-fault"' in report and "not graded yet (grader fault)" in report


# ------------------------------------------------------------------ the student's side of the line


RAISES_SYSTEM_ERROR = '''
def jvp(f, x, v):
    raise SystemError("the student's own SystemError")
'''

#: looks for the harness's channel (as the hostile kit's forgers do) and, if it holds a way out and the nonce,
#: sends a fault event of its own (the student's process is left only the channel object the fork copied,
#: without descriptor or nonce: the attempt must find nothing and change nothing)
FORGES_A_FAULT = '''
def _forge():
    import gc, json
    for channel in [o for o in gc.get_objects() if type(o).__name__ == "Channel" and hasattr(o, "_nonce")]:
        if channel._out is not None and channel._nonce:
            channel._out.write(json.dumps({"event": "fault", "nonce": channel._nonce,
                                           "error": {"type": "ImportError", "message": "forged"}}) + "\\n")
            channel._out.flush()
            raise SystemExit("forged a fault on the result channel")
_forge()
'''

KILLS_ITSELF_AT_IMPORT = '''
import os, signal
os.kill(os.getpid(), signal.SIGKILL)
'''


def test_a_systemerror_the_students_code_raises_is_the_students(tmp_path):
    """Retried, then the control run (the reference graded the same way) works: the loss is the student's."""
    forward = _problem(_grade(_submission(tmp_path, RAISES_SYSTEM_ERROR), [PROBLEM]), PROBLEM)
    assert forward.fault is None
    lost = [t for t in forward.tests if not t.passed]
    assert lost and forward.score < forward.max_score
    assert any("SystemError" in t.message for t in lost)
    assert any("the failure is your code's" in n for n in forward.notes), forward.notes


def test_a_fault_event_forged_by_the_students_code_is_not_a_grader_fault(tmp_path):
    """Sent at import, after the harness said graded code runs: the results that follow are judged as usual."""
    forward = _problem(_grade(_submission(tmp_path, FORGES_A_FAULT), [PROBLEM]), PROBLEM)
    assert forward.fault is None and forward.score == forward.max_score, forward.fault


def test_a_process_killed_by_the_students_code_at_import_is_the_students(tmp_path):
    forward = _problem(_grade(_submission(tmp_path, KILLS_ITSELF_AT_IMPORT), [PROBLEM]), PROBLEM)
    assert forward.fault is None and forward.score == 0
    assert "SIGKILL" in " ".join(t.message for t in forward.tests)


def test_a_failure_that_may_be_the_graders_gives_no_second_chance():
    """After a suspected failure the lost probes run twice more and the problem is judged on both repairs:
    grade_problem keeps the worse (code that fails on purpose when its own result is bad gains nothing), and
    the first run's other probes are kept."""
    from graders.attribution import runs_to_judge
    from graders.results import ChildRun, ProbeOutcome
    from graders.spec import load_problems

    (spec,) = load_problems(only=[PROBLEM])

    def ok(probe, value):
        return ProbeOutcome(probe, "ok", value=value)

    first = ChildRun(outcomes={"a": ok("a", 1), "b": ProbeOutcome("b", "missing", error_message="forged")},
                     fault="harness fault: forged")
    again = iter([ChildRun(outcomes={"a": ok("a", 9), "b": ok("b", "good")}),
                  ChildRun(outcomes={"a": ok("a", 9), "b": ok("b", "bad")})])
    runs, note = runs_to_judge(spec, first, lambda name: next(again), 2026, None)
    assert [r.outcomes["b"].value for r in runs] == ["good", "bad"]
    assert all(r.outcomes["a"].value == 1 and r.fault is None for r in runs)  # the first run's probe is kept
    assert "run twice more" in note and "worse" in note


def test_a_child_that_ends_before_the_students_code_runs_is_a_grader_fault(tmp_path, inject):
    """The injected stack failure ends the child before graded code runs: whatever the file, a fault."""
    inject(_rule("stack-import"))
    forward = _problem(_grade(_submission(tmp_path, KILLS_ITSELF_AT_IMPORT), [PROBLEM]), PROBLEM)
    assert forward.fault and "before the student's code ran" in forward.fault


# ------------------------------------------------------------------ a class


def test_batch_lists_a_fault_first_and_a_plain_rerun_regrades_only_it(tmp_path, inject):
    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    for name in ("ann", "ben"):
        _submission(tmp_path / name).rename(subs / name)
    options = BatchOptions(offering=OFFERING, problems=[PROBLEM], jobs=1, progress=False, similarity=False)
    first = run_batch(subs, out, options)
    assert sorted(g.name for g in first.graded) == ["ann", "ben"] and not first.faults

    _submission(tmp_path / "cal").rename(subs / "cal")  # a new submission, graded while the grader is broken
    inject(_rule("judge"))
    second = run_batch(subs, out, options)
    assert [g.name for g in second.graded] == ["cal"] and [g.name for g in second.faults] == ["cal"]
    attention = second.view.needs_attention
    assert attention[0].student.name == "cal" and attention[0].kind == "fault"
    assert "grader fault — regrade" in attention[0].why
    assert "grader fault — regrade" in (out / "index.html").read_text(encoding="utf-8")
    with Gradebook(out / "gradebook.sqlite") as book:
        assert book.get("cal").status == "fault"

    inject("")  # the grader is fixed: a plain rerun regrades the faulted submission, and only it
    third = run_batch(subs, out, options)
    assert [g.name for g in third.graded] == ["cal"] and sorted(third.skipped) == ["ann", "ben"]
    with Gradebook(out / "gradebook.sqlite") as book:
        row = book.get("cal")
        assert row.status == "graded" and row.score == row.max_score


def test_a_faulted_submission_imports_no_zero_into_the_lms(tmp_path, inject):
    """grades.csv: a fault's total and its faulted problem are empty cells (status `fault`), never a 0."""
    import csv

    subs, out = tmp_path / "subs", tmp_path / "out"
    subs.mkdir()
    _submission(tmp_path / "cal").rename(subs / "cal")
    inject(_rule("judge"))
    run_batch(subs, out, BatchOptions(offering=OFFERING, problems=[PROBLEM, OTHER], jobs=1, progress=False,
                                      similarity=False))
    (row,) = csv.DictReader((out / "grades.csv").read_text(encoding="utf-8").splitlines())
    assert row["status"] == "fault" and row["total"] == "" and row[PROBLEM] == "" and float(row[OTHER]) > 0, row


#: finds the result pipe among its file descriptors and writes past the channel's byte budget (which every restart
#: of the problem shares), then computes a wrong product (red team)
FLOODS_THE_CHANNEL = '''
def _flood():
    import fcntl, os, stat
    for fd in range(3, 100):
        try:
            info = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISFIFO(info.st_mode) and fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE == os.O_WRONLY:
            for _ in range(70):
                os.write(fd, b"x" * (1 << 20) + b"\\n")


_right_mul = Dual.__mul__


def _mul(self, other):
    _flood()
    out = _right_mul(self, other)
    return Dual(out.primal, 0.0 * out.tangent)


Dual.__mul__ = _mul
'''


def test_a_restart_that_dies_on_what_graded_code_left_behind_is_the_students(tmp_path):
    """Graded code used up the channel budget every restart shares: the restart's own start-up events are refused,
    so it ends before the harness says graded code runs. That is not the grader's: graded code ran before, in
    this run (red team: it was a grader fault, so the buggy code lost nothing)."""
    forward = _problem(_grade(_submission(tmp_path, FLOODS_THE_CHANNEL), [PROBLEM]), PROBLEM)
    assert forward.fault is None, forward.fault
    assert forward.score < forward.max_score


def test_a_judge_that_cannot_read_a_result_asks_a_ta_to_check_it(tmp_path):
    """A judge that raises on a submission's result (but judges the reference's) fails that test, and since only a
    person can tell a malformed result from a judge's bug, the test asks a TA to check it by hand (`review`), as a
    judge whose data cannot tell two readings apart does. Staff see both (the summary, results.json's extra_data,
    the gradebook and so the class report's attention list); the report's review box holds a test's request only
    where the report shows that test (a withheld test's request would tell what it found). The other tests are judged as usual."""
    from dataclasses import replace
    from html import escape

    from graders.baseline import problem_hooks, reference_run
    from graders.gradebook import Gradebook, GradedSubmission
    from graders.gradebook_api import submissions
    from graders.judge import Verdict
    from graders.record import results_json, summary_text
    from graders.results import GradeResult
    from graders.score import score_problem
    from graders.spec import load_problems
    from reports.render import SHOWN, render_submission, withheld

    (spec,) = load_problems(only=[PROBLEM])
    reference = reference_run(spec)
    first = spec.tests[0]
    last = next(t for t in spec.tests if t.visibility != "visible")  # shown after the due date
    assert last.judge != first.judge and first.visibility == "visible"

    def picky(student, ref, options):  # a judge with a bug: it reads only the reference's exact data
        if student.value != ref.value:
            raise KeyError("shape")
        return Verdict(1.0, "ok")

    def unsure(student, ref, options):  # a judge whose data cannot tell two readings apart asks a TA
        return Verdict(1.0, "ok", review="read it")

    run = replace(reference, outcomes={**reference.outcomes,
                                       first.probe: replace(reference.outcomes[first.probe], value={"odd": [1.0]})})
    judges = {**getattr(problem_hooks(spec), "JUDGES", {}), first.judge: picky, last.judge: unsure}
    problem = score_problem(spec, run, reference, list, judges)
    scored = {t.id: t for t in problem.tests}
    assert scored[first.id].score == 0 and "course staff will check it by hand" in scored[first.id].message
    assert "KeyError" in scored[first.id].review and scored[last.id].review == "read it"
    others = [t for t, s in zip(problem.tests, spec.tests) if s.probe != first.probe]
    assert others and all(t.passed for t in others), [(t.id, t.message) for t in others if not t.passed]
    assert problem.fault is None
    result = GradeResult("sub", [problem], review=["uses ctypes"], content_hash="h")
    lines = result.staff_review
    assert lines[0] == "uses ctypes" and f"{PROBLEM} · {last.name}: read it" in lines
    assert any(line.startswith(f"{PROBLEM} · {first.name}: the grader could not judge") for line in lines)
    assert f"{last.name}: read it" in summary_text(result)
    assert results_json(result)["extra_data"]["review"] == lines
    for shown in ("visible", "all"):  # a request is in the report's box when its test is shown there
        html, later = render_submission(result, shown=SHOWN[shown]), withheld(result, SHOWN[shown])
        for test in (first, last):
            line = escape(f"{PROBLEM} · {test.name}: ", quote=False)
            assert (line in html) == (f"{PROBLEM}/{test.id}" not in later), (shown, test.id)
    assert f"{PROBLEM}/{last.id}" in withheld(result, SHOWN["visible"]) and not withheld(result, SHOWN["all"])
    with Gradebook(tmp_path / "gradebook.sqlite") as book:
        book.record(GradedSubmission(name="sub", source="/subs/sub", content_hash="h", problems=PROBLEM, seed=2026,
                                     grader_version="", result=result, started_at=1.0, finished_at=2.0))
        (stored,) = submissions(book)
    assert stored.review == lines
