"""`autograde batch` / `autograde report`: a small class graded end to end, resume,
crashes and faults, grades.csv, the class report, and SIGKILL at any moment."""

from __future__ import annotations

import csv
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from contextlib import closing
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from click.testing import CliRunner

import classbuilder as cb
from conftest import ROOT
from graders import batch as batch_module
from graders.batch import BatchOptions, run_batch
from graders.cli import main
from graders.gradebook import Gradebook
from graders.spec import load_problems
from graders.submissions import discover

PROBLEM = "autodiff"
CLASS = {
    "alice": cb.reference,
    "bob": cb.template,
    "carol": cb.fanout_overwrite,
    "dave": cb.crash_at_import,
    "erin": cb.zipped(cb.reference),
    "frank": cb.not_reversed,
}


def options(**kw) -> BatchOptions:
    return BatchOptions(**{"problems": [PROBLEM], "jobs": 2, "progress": False, **kw})


def rows(out: Path) -> dict:
    with Gradebook(out / "gradebook.sqlite") as book:
        return {r.name: r for r in book.rows()}


@pytest.fixture(scope="session")
def graded_class(tmp_path_factory):
    """CLASS (plus a hidden folder and a stray file) graded once; shared read-only by the tests."""
    root = tmp_path_factory.mktemp("batch")
    subs = cb.make_class(root / "subs", CLASS)
    cb.reference(subs / ".hidden")
    (subs / "notes.txt").write_text("not a submission")
    out = root / "out"
    files_at_commit = {}

    def on_record(graded):
        student = out / graded.name
        files_at_commit[graded.name] = all((student / f).is_file() for f in batch_module.RESULT_FILES)

    run = run_batch(subs, out, options(), on_record=on_record)
    return subs, out, run, files_at_commit


def test_every_entry_is_one_submission_graded_once(graded_class):
    _subs, out, run, files_at_commit = graded_class
    assert sorted(g.name for g in run.graded) == sorted(CLASS)
    assert run.ignored == ["notes.txt"] and not run.skipped
    assert set(rows(out)) == set(CLASS)
    for name in CLASS:
        for f in ("results.json", "report.html", "junit.xml"):
            assert (out / name / f).is_file(), (name, f)
    # files are on disk before the gradebook commit
    assert files_at_commit == dict.fromkeys(CLASS, True)
    with closing(sqlite3.connect(out / "gradebook.sqlite")) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_scores_and_misconceptions(graded_class):
    _, out, _, _ = graded_class
    book = rows(out)
    maximum = sum(t.points for t in load_problems(only=[PROBLEM])[0].tests)
    for name in ("alice", "erin"):
        assert book[name].score == book[name].max_score == maximum, book[name]
        assert book[name].status == "graded"
    assert book["bob"].score == 0 and book["bob"].status == "graded"
    assert 0 <= book["carol"].score < maximum and book["carol"].status == "graded"
    found = json.loads((out / "carol" / "results.json").read_text())["extra_data"]["misconceptions"]
    assert "no-fanout-accumulation" in found, found
    # a wrong order must be judged (not a grader fault), whatever misconception it is matched to
    assert 0 <= book["frank"].score < maximum and book["frank"].status == "graded", book["frank"].error
    results = json.loads((out / "alice" / "results.json").read_text())
    assert results["score"] == maximum and results["extra_data"]["content_hash"] == book["alice"].content_hash


def test_crashing_submission_still_gets_a_row_with_a_clear_error(graded_class):
    _, out, run, _ = graded_class
    dave = rows(out)["dave"]
    assert dave.status == "error" and dave.score == 0
    assert "exited early with code 1" in dave.error, dave.error
    assert "exited early" in (out / "dave" / "report.html").read_text()
    assert [g.name for g in run.errors] == ["dave"] and not run.faults


def test_grades_csv_has_one_row_per_student(graded_class):
    _, out, _, _ = graded_class
    with open(out / "grades.csv", newline="") as handle:
        table = list(csv.DictReader(handle))
    assert list(table[0]) == ["student", "total", "max_total", PROBLEM, "status"]
    assert [r["student"] for r in table] == sorted(CLASS)
    book = rows(out)
    for r in table:
        assert float(r["total"]) == book[r["student"]].score == float(r[PROBLEM])
        assert float(r["max_total"]) == book[r["student"]].max_score
        assert r["status"] == book[r["student"]].status


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.sources = [], []

    def handle_starttag(self, tag, attrs):
        for key, value in attrs:
            if key in ("href", "xlink:href") and value:
                self.links.append(value)
            if key == "src" and value:
                self.sources.append(value)


def _links(path: Path) -> list:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    assert not parser.sources, f"{path} loads {parser.sources}"
    return parser.links


def _assert_links_resolve(page: Path) -> list:
    files = []
    for link in _links(page):
        parts = urlsplit(link)
        assert not parts.scheme and not parts.netloc, f"{page.name} links outside: {link}"
        if parts.path:
            target = (page.parent / unquote(parts.path)).resolve()
            assert target.is_file(), f"{page.name}: {link} does not exist"
            files.append(target)
    return files


def test_class_report_is_self_contained_and_links_every_report(graded_class):
    _, out, _, _ = graded_class
    index = out / "index.html"
    html = index.read_text(encoding="utf-8")
    targets = _assert_links_resolve(index)
    for name in CLASS:
        assert (out / name / "report.html").resolve() in targets, name
        assert _assert_links_resolve(out / name / "report.html") == [index.resolve()]
    assert html.count("<svg") >= 2  # score histogram + per-problem distributions
    assert "no-fanout-accumulation" in html and 'href="carol/report.html#misconception-no-fanout-accumulation"' in html
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "").replace(
        'xmlns:xlink="http://www.w3.org/1999/xlink"', "").replace('"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd"', "")
    assert "https://" not in html


def test_report_command_rerenders_without_regrading(graded_class, tmp_path, monkeypatch):
    _, out, _, _ = graded_class
    copy = tmp_path / "out"
    shutil.copytree(out, copy)
    (copy / "index.html").unlink()
    (copy / "grades.csv").unlink()
    (copy / "carol" / "report.html").write_text("stale")
    before = {n: r.recorded_at for n, r in rows(copy).items()}
    monkeypatch.setattr(batch_module, "grade_submission", lambda *a, **k: pytest.fail("regraded"))
    result = CliRunner().invoke(main, ["report", str(copy)])
    assert result.exit_code == 0, result.output
    assert "no-fanout-accumulation" in (copy / "carol" / "report.html").read_text()
    assert (copy / "grades.csv").read_text() == (out / "grades.csv").read_text()
    assert {n: r.recorded_at for n, r in rows(copy).items()} == before
    _assert_links_resolve(copy / "index.html")
    assert CliRunner().invoke(main, ["report", str(tmp_path)]).exit_code == 2  # no gradebook there


def test_resume_skips_unchanged_regrades_changed_and_regrade_forces(graded_class, tmp_path):
    """Run again: nothing graded; one submission changed and one lost a file: those two graded again, recorded
    over their rows. `--regrade` is checked where a batch decides what to grade (`plan`, whose tasks are exactly
    what `run_batch` grades, as the two runs before show): every submission, none skipped, up to date or not
    (grading the whole class a third time would check nothing more)."""
    subs, out, _, _ = graded_class
    subs2, out2 = tmp_path / "subs", tmp_path / "out"
    shutil.copytree(subs, subs2)
    shutil.copytree(out, out2)
    again = run_batch(subs2, out2, options())
    assert again.graded == [] and sorted(again.skipped) == sorted(CLASS)

    cb.reference(subs2 / "carol")  # carol fixes her bug
    (out2 / "bob" / "report.html").unlink()  # a lost file also means "grade again"
    changed = run_batch(subs2, out2, options())
    assert sorted(g.name for g in changed.graded) == ["bob", "carol"]
    book = rows(out2)
    assert book["carol"].score == book["carol"].max_score
    assert not (out2 / "carol" / "report.html").read_text().count("no-fanout-accumulation")
    assert len(rows(out2)) == len(CLASS)  # graded again: their rows replaced, none added

    entries, _ = discover(subs2, out2)
    with Gradebook(out2 / "gradebook.sqlite") as book:
        assert batch_module.plan(entries, book, options(), out2)[1] == sorted(CLASS)  # all up to date now
        forced, skipped = batch_module.plan(entries, book, options(regrade=True), out2)
    assert sorted(t.name for t in forced) == sorted(CLASS) and not skipped


def test_grader_fault_gives_a_fault_row_and_exit_code_1(tmp_path, monkeypatch):
    subs = cb.make_class(tmp_path / "subs", {"good": cb.reference, "unlucky": cb.reference})
    real = batch_module.grade_submission

    def flaky(source, opts, name=None):
        if name == "unlucky":
            raise RuntimeError("grader bug")
        return real(source, opts, name=name)

    monkeypatch.setattr(batch_module, "grade_submission", flaky)
    out = tmp_path / "out"
    # --jobs 1 grades in this process's thread pool, where the monkeypatched grader applies
    result = CliRunner().invoke(main, ["batch", str(subs), "--out", str(out), "--problems", "network",
                                       "--jobs", "1", "--no-progress"])
    assert result.exit_code == 1, result.output
    book = rows(out)
    assert book["unlucky"].status == "fault" and "RuntimeError: grader bug" in book["unlucky"].error
    assert book["good"].status == "graded" and book["good"].score == book["good"].max_score
    assert (out / "unlucky" / "report.html").is_file()
    assert "unlucky [fault]" in result.output
    # a fault is always retried: the next run grades it again (and succeeds)
    monkeypatch.setattr(batch_module, "grade_submission", real)
    again = run_batch(subs, out, BatchOptions(problems=["network"], jobs=1, progress=False))
    assert [g.name for g in again.graded] == ["unlucky"] and rows(out)["unlucky"].status == "graded"


def test_usage_errors_exit_2(tmp_path):
    runner = CliRunner()
    subs = tmp_path / "subs"
    (subs / "alice").mkdir(parents=True)
    (subs / "alice.zip").write_bytes(b"PK")
    out = tmp_path / "out"
    clash = runner.invoke(main, ["batch", str(subs), "--out", str(out)])
    assert clash.exit_code == 2 and "alice" in clash.output
    (subs / "alice.zip").unlink()
    unknown = runner.invoke(main, ["batch", str(subs), "--out", str(out), "--problems", "nope"])
    assert unknown.exit_code == 2 and "nope" in unknown.output and not out.exists()
    assert runner.invoke(main, ["batch", str(tmp_path / "missing"), "--out", str(out)]).exit_code == 2
    assert runner.invoke(main, ["batch", str(subs)]).exit_code == 2  # --out is required
    with batch_module.batch_lock(out):
        busy = runner.invoke(main, ["batch", str(subs), "--out", str(out)])
    assert busy.exit_code == 2 and "another autograde batch" in busy.output


# ------------------------------------------------------------ SIGKILL, exactly once

KILL_PROBLEM = "network"
KILL_CLASS = {
    **{f"ref{i}": cb.reference for i in range(4)},
    "blank0": cb.template,
    "blank1": cb.zipped(cb.template),
    "broken0": cb.sentiment_syntax_error,
    "ref_zip": cb.zipped(cb.reference),
}


def _batch_command(subs: Path, out: Path) -> list:
    return [sys.executable, "-m", "graders", "batch", str(subs), "--out", str(out),
            "--problems", KILL_PROBLEM, "--jobs", "2", "--no-progress"]


def _recorded(out: Path) -> int:
    if not (out / "gradebook.sqlite").is_file():
        return 0
    try:
        with closing(sqlite3.connect(out / "gradebook.sqlite", timeout=5)) as db:
            return db.execute("SELECT COUNT(*) FROM submissions").fetchone()[0]
    except sqlite3.OperationalError:  # the schema is not committed yet
        return 0


def _assert_consistent(out: Path, names, complete: bool) -> None:
    """No half records, no duplicates; files agree with the gradebook."""
    tests = len(load_problems(only=[KILL_PROBLEM])[0].tests)
    with closing(sqlite3.connect(out / "gradebook.sqlite")) as db:
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not complete and "submissions" not in tables:
            return  # killed while the schema was being created: that transaction never happened
        recorded = [r[0] for r in db.execute("SELECT name FROM submissions")]
        assert len(recorded) == len(set(recorded))
        assert set(recorded) <= set(names)
        if complete:
            assert sorted(recorded) == sorted(names)
        for name in recorded:
            assert db.execute("SELECT COUNT(*) FROM problem_scores WHERE name = ?", (name,)).fetchone()[0] == 1
            assert db.execute("SELECT COUNT(*) FROM test_scores WHERE name = ?", (name,)).fetchone()[0] == tests
            score, content_hash = db.execute(
                "SELECT score, content_hash FROM submissions WHERE name = ?", (name,)).fetchone()
            assert db.execute("SELECT SUM(score) FROM test_scores WHERE name = ?", (name,)).fetchone()[0] == pytest.approx(score)
            doc = json.loads((out / name / "results.json").read_text())
            assert doc["score"] == pytest.approx(score) and doc["extra_data"]["content_hash"] == content_hash
        for table in ("problem_scores", "test_scores", "misconceptions"):
            orphans = db.execute(f"SELECT COUNT(*) FROM {table} WHERE name NOT IN (SELECT name FROM submissions)")
            assert orphans.fetchone()[0] == 0, table


def _kill_when(proc: subprocess.Popen, out: Path, rows_at_least: int, delay: float) -> None:
    deadline = time.monotonic() + 60
    while _recorded(out) < rows_at_least and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(delay)
    proc.kill()  # SIGKILL
    proc.wait(timeout=30)


@pytest.mark.slow
def test_sigkill_at_random_moments_then_rerun_grades_each_exactly_once(tmp_path):
    subs = cb.make_class(tmp_path / "subs", KILL_CLASS)
    out = tmp_path / "out"
    seed = random.randrange(1 << 30)
    rng = random.Random(seed)
    # during start-up / the first gradings, then mid-batch twice (the run may also have finished)
    for rows_at_least, delay in ((0, rng.uniform(0.0, 2.5)), (2, rng.uniform(0.0, 0.6)), (5, rng.uniform(0.0, 0.4))):
        proc = subprocess.Popen(_batch_command(subs, out), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _kill_when(proc, out, rows_at_least, delay)
        if (out / "gradebook.sqlite").exists():
            _assert_consistent(out, KILL_CLASS, complete=False)
    before = _recorded(out)
    final = subprocess.run(_batch_command(subs, out), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert final.returncode == 0, (seed, final.stdout, final.stderr)
    # exactly the submissions without a record are graded again; recorded ones are not
    assert f"graded {len(KILL_CLASS) - before} submission(s)" in final.stdout, (seed, final.stdout)
    assert f"{before} unchanged" in final.stdout, (seed, final.stdout)
    _assert_consistent(out, KILL_CLASS, complete=True)
    book = rows(out)
    for name, row in book.items():
        expected = row.max_score if name.startswith("ref") else 0.0
        assert row.score == expected, (seed, name, row)
    assert book["broken0"].status == "error" and "SyntaxError" in book["broken0"].error
    assert not list(out.glob("*/.*.tmp*")), "temporary files left behind"
    again = subprocess.run(_batch_command(subs, out), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert "graded 0 submission(s)" in again.stdout and f"{len(KILL_CLASS)} unchanged" in again.stdout


KILL_IN_TRANSACTION = """
import os, signal, sys
from graders import gradebook
from graders.cli import main
original = gradebook.Gradebook._insert_scores
calls = []
def insert_then_die(db, name, result):
    original(db, name, result)
    calls.append(name)
    if len(calls) == 2:
        print("KILLING", name, flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
gradebook.Gradebook._insert_scores = staticmethod(insert_then_die)
main(sys.argv[1:])
"""


def test_sigkill_inside_the_commit_leaves_no_half_record(tmp_path):
    subs = cb.make_class(tmp_path / "subs", {"a": cb.reference, "b": cb.template, "c": cb.reference})
    out = tmp_path / "out"
    args = _batch_command(subs, out)[3:]
    killed = subprocess.run([sys.executable, "-c", KILL_IN_TRANSACTION, *args], cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr
    victim = killed.stdout.split("KILLING", 1)[1].split()[0]
    assert (out / victim / "results.json").is_file()  # its files were written before the commit
    assert victim not in rows(out) and len(rows(out)) == 1  # ... but no trace of it in the gradebook
    _assert_consistent(out, ["a", "b", "c"], complete=False)
    final = subprocess.run(_batch_command(subs, out), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert final.returncode == 0, final.stderr
    assert "graded 2 submission(s)" in final.stdout and "1 unchanged" in final.stdout
    _assert_consistent(out, ["a", "b", "c"], complete=True)


def _worker_pids(batch_pid: int) -> list:
    """The batch's worker processes (multiprocessing 'spawn' children)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            cmdline = (entry / "cmdline").read_bytes()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == batch_pid and b"spawn_main" in cmdline:  # not the resource tracker
            found.append(int(entry.name))
    return found


@pytest.mark.slow
def test_sigkill_of_a_worker_process_hands_its_work_to_a_new_pool(tmp_path):
    subs = cb.make_class(tmp_path / "subs", KILL_CLASS)
    out = tmp_path / "out"
    proc = subprocess.Popen(_batch_command(subs, out), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while len(_worker_pids(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.02)
    time.sleep(0.3)  # both workers have taken a submission: kill one while it grades
    workers = _worker_pids(proc.pid)
    assert workers, "no worker process found"
    os.kill(workers[0], signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, (stdout, stderr)
    assert "handed to a new pool" in stdout, stdout
    _assert_consistent(out, KILL_CLASS, complete=True)


def test_a_batch_submits_one_warming_task_per_problem_before_any_grading(monkeypatch):
    """The pool takes tasks in the order they are submitted: the warming tasks go first, so that the workers
    build each problem's stack and reference run side by side before the first gradings need them (none when
    faults are injected: the gradings are to meet them)."""
    from concurrent.futures import Future
    from concurrent.futures.process import BrokenProcessPool

    class Recording:
        def __init__(self):
            self.submitted = []

        def submit(self, fn, *args):
            self.submitted.append((fn.__name__, args[0] if fn is batch_module.warm_problem else args[0].name))
            future: Future = Future()
            if fn is batch_module.grade_task:
                future.set_exception(BrokenProcessPool("lost"))  # handed back as lost: nothing recorded
            else:
                future.set_result(None)
            return future

    tasks = [batch_module.GradeTask(name, f"/x/{name}", "/out", "s26", ("autodiff", "network"), 2026, 1, "", "v")
             for name in ("ann", "bob")]
    monkeypatch.delenv("AUTOGRADE_INJECT_FAULTS", raising=False)
    pool = Recording()
    lost = batch_module._collect(pool, tasks, None, None, None, None, last_chance=False)  # type: ignore[arg-type]
    assert sorted(task.name for task in lost) == ["ann", "bob"]
    assert pool.submitted == [("warm_problem", "autodiff"), ("warm_problem", "network"),
                              ("grade_task", "ann"), ("grade_task", "bob")]
    monkeypatch.setenv("AUTOGRADE_INJECT_FAULTS", "stack")
    pool = Recording()
    batch_module._collect(pool, tasks, None, None, None, None, last_chance=False)  # type: ignore[arg-type]
    assert [kind for kind, _ in pool.submitted] == ["grade_task", "grade_task"]


def test_a_submissions_problems_whose_reference_run_is_built_are_graded_first(monkeypatch):
    """While a batch's warming task still builds a problem's reference run, a grading that needs it waits: the
    submission's other problems, whose runs are built, are graded first (one at a time, as a batch grades them),
    and the results keep the offering's order."""
    from graders import grade as grade_module
    from graders.results import ProblemResult

    order = []

    def fake_grade_problem(spec, *args):
        order.append(spec.id)
        return ProblemResult(spec.id, spec.title, [])

    monkeypatch.setattr(grade_module, "grade_problem", fake_grade_problem)
    monkeypatch.setattr(grade_module, "reference_run_ready", lambda spec, seed: spec.id != "autodiff")
    options = grade_module.GradeOptions(offering="s26", problems=["autodiff", "network", "training"], jobs=1)
    result = grade_module.grade_submission(ROOT / "reference", options)
    assert order == ["network", "training", "autodiff"]
    assert [p.id for p in result.problems] == ["autodiff", "network", "training"]


def test_warming_builds_what_every_grading_of_a_problem_reads_and_never_raises(tmp_path, monkeypatch):
    """The tasks a batch starts with (one per problem): the problem's stack and the reference's run are in the
    (here empty) cache afterwards, so the first gradings do not build them one after the other; a problem that
    cannot be warmed costs nothing there (its gradings meet the fault)."""
    monkeypatch.setenv("AUTOGRADE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("AUTOGRADE_INJECT_FAULTS", raising=False)
    batch_module.warm_problem("network", "s26", 2026)
    from graders.cache import cache_root

    assert (cache_root() / "stacks" / "network" / ".manifest.json").is_file()
    assert list((cache_root() / "runs" / "network").glob("reference-*-2026.json"))
    batch_module.warm_problem("no_such_problem", "s26", 2026)  # no exception


def _printed_by_a_fresh_interpreter(code: str) -> list:
    """The words `code` prints, run by a new interpreter of this Python in the project's folder (it must succeed)."""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.split()


def test_the_drawing_library_is_imported_by_the_first_figure_a_grading_draws():
    """A worker's warming and a grading whose report shows no figure (the reference's visible tests draw none)
    import no drawing library (matplotlib: about 0.35 s); a grading that draws a figure (the reference's gradient
    passes, a test shown after the due date, in a report for course staff) imports it. Run in a fresh interpreter
    (this one has imported it)."""
    code = ("import sys\nfrom pathlib import Path\nfrom graders import batch, grade\nfrom reports.render import STAFF\n"
            "batch.warm_problem('forward', 'all', 0)\n"
            "for shown in (('visible',), STAFF):\n"
            "    options = grade.GradeOptions(offering='all', problems=['forward'], figures=shown)\n"
            "    (problem,) = grade.grade_submission(Path('reference'), options).problems\n"
            "    assert problem.score == problem.max_score, problem\n"
            "    print('matplotlib' in sys.modules, any(t.svg for t in problem.tests))\n")
    assert _printed_by_a_fresh_interpreter(code) == ["False", "False", "True", "True"]
