"""Grade one submission: the pipeline, stage by stage, each problem isolated from the others."""

from __future__ import annotations

import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Collection, Dict, List, Optional

from . import __version__, sandbox
from .attribution import runs_to_judge
from .baseline import baseline_runs, child_config, child_faults, limits_for, problem_hooks, reference_run_ready
from .cache import forget_verified
from .faults import ATTEMPTS, GraderFault, inject
from .intake import StudentFile, Submission, open_submission
from .integrity import screen_submission
from .judge import get_judge, judge_outcome
from .offering import get_offering, offering_problems
from .probe import run_child
from .problemlint import static_findings
from .results import DEFAULT_SEED, ChildRun, GradeResult, ProblemResult
from .runlog import note_run
from .safetext import one_line
from .score import FAULT_MESSAGE, failed_problem, score_problem
from .spec import ProblemSpec, TestSpec
from .version import grader_version
from .workspace import workspace_dir


@dataclass(frozen=True)
class GradeOptions:
    #: the course offering (problems/offerings.toml); None: its default
    offering: Optional[str] = None
    problems: Optional[List[str]] = None
    #: problems graded at once (each in its own child process)
    jobs: int = 2
    seed: int = DEFAULT_SEED
    #: tighter child limits (e.g. {"probe_seconds": 3, "wall_seconds": 20}); never looser than the problem's
    limits: Optional[Dict[str, float]] = None
    #: the visibilities (graders.schema.VISIBILITIES) of the tests whose figures are drawn while grading: those of
    #: the tests the written report shows (reports.render.SHOWN), so that one that cannot be drawn is a fault of
    #: its problem. The commands that write reports, `grade` and `batch`, set it; a report that shows a test whose
    #: figure was not drawn (`autograde report --show all`) draws it itself. Empty: none drawn
    figures: Collection[str] = ()


def grade_problem(
    spec: ProblemSpec, submission: Submission, workspace: Path, seed: int, limits: Optional[Dict[str, float]] = None,
    figures: Collection[str] = (),
) -> ProblemResult:
    """One problem: its own child, judged against the cached reference and mutants.

    Whatever fails on the grader's side (graders.faults: the cache, the interpreter, the sandbox, the reference,
    a judge or a figure, the grader's memory) is retried once, every cached artefact checked in full again;
    if it fails again the problem is a grader fault: not graded, never points lost, regraded by staff.
    """
    record = submission.files[spec.swap.file]
    if record.staged is None:
        return failed_problem(spec, record.error or f"{spec.swap.file} is missing")
    faults: List[str] = []
    for attempt in range(ATTEMPTS):
        if attempt:
            forget_verified()
        try:
            result = _grade_once(spec, record, workspace / "runs" / spec.id / str(attempt), seed, limits, figures)
        except Exception as exc:  # GraderFault, SystemError, MemoryError, a grader bug: never the student's
            faults.append(_describe_fault(exc))
            continue
        if faults:
            result.notes.append(f"graded on attempt {attempt + 1}: the grader failed on attempt 1 "
                                f"({one_line(faults[0])[:300]})")
        return result
    return failed_problem(spec, FAULT_MESSAGE, fault="\n".join(f"attempt {i + 1}: {f}" for i, f in enumerate(faults)))


def _describe_fault(exc: BaseException) -> str:
    if isinstance(exc, GraderFault):
        return str(exc)
    return f"{type(exc).__name__}: {exc}\n{traceback.format_exc(limit=5)}"


def _grade_once(spec: ProblemSpec, record: StudentFile, workdir: Path, seed: int,
                limits: Optional[Dict[str, float]], figures: Collection[str]) -> ProblemResult:
    """Assemble, probe, judge, score and draw one problem once; raises on a grader fault."""
    findings = static_findings(spec.folder)
    if findings:  # a malformed problem folder: said once, naming the file, never judged
        raise GraderFault("the problem folder does not pass `autograde check-problems`:\n" + "\n".join(findings))
    inject("system-error", spec.id)
    reference, mutants = baseline_runs(spec, seed)  # the grader works before it judges (its mutants: when needed)
    hooks = problem_hooks(spec)
    local = dict(getattr(hooks, "JUDGES", {})) if hooks else {}

    def probe_run(name: str) -> ChildRun:
        return _student_run(spec, record, workdir / name, seed, limits)

    runs, note = runs_to_judge(spec, probe_run("run"), probe_run, seed, limits)
    inject("memory", spec.id)
    results = [score_problem(spec, run, reference, mutants, local) for run in runs]
    result = min(results, key=lambda r: r.score)  # two runs after a suspect failure: the worse one counts
    if note:
        result.notes.append(note)
    if figures:
        draw_figures(spec, result, reference, local, figures)
    if record.found_at:
        result.notes.insert(0, f"graded {record.found_at} as {spec.swap.file}")
    return result


def _student_run(spec: ProblemSpec, record: StudentFile, workdir: Path, seed: int,
                 limits: Optional[Dict[str, float]]) -> ChildRun:
    """The problem's probes on the student's file, in a fresh child. A failure the grader owns for sure (the
    child ended, or its harness failed, before graded code ran) raises GraderFault."""
    run = run_child(child_config(spec, workdir, seed, record.staged, child_faults(spec)), limits_for(spec, limits))
    note_run(spec.id, "student", run, graded_file=record.staged)
    if run.machine:
        raise GraderFault("; ".join(run.machine))
    if run.fault and run.fault_before_student:
        raise GraderFault(f"before the student's code ran: {run.fault}")
    return run


def draw_figures(spec: ProblemSpec, result: ProblemResult, reference: ChildRun, local: Dict[str, Any],
                 shown: Collection[str]) -> None:
    """The figure of each test whose visibility is in `shown` (those the written report shows) drawn now and kept
    on the test (the report never draws it again); the others are not drawn (a figure of a test shown after the
    due date, the timing, work and accuracy tests, cost a batch 0.03-0.05 s of CPU each for a report that withholds
    it). The drawing library (matplotlib, about 0.35 s to import) is imported by the first figure drawn: a grading
    that draws none, as a batch of the course's offering, imports none.

    A figure illustrates; no grade depends on it. One that cannot be drawn from the student's data (twice) is
    left out with a note. One that cannot be drawn from the reference's own data either (the reference judged
    against itself) is a grader fault of the problem, retried like the rest.
    """
    tests = {t.id: t for t in spec.tests}
    for test in result.tests:
        if not isinstance(test.figure, dict) or test.id not in tests or tests[test.id].visibility not in shown:
            continue
        try:
            test.svg = _draw(spec.id, test.figure)
        except Exception:
            pass
        else:
            continue
        try:  # once more: a failure of the moment is not the student's data
            test.svg = _draw(spec.id, test.figure)
        except Exception as exc:
            broken = _reference_figure_fails(spec, tests[test.id], reference, local)
            if broken:
                raise GraderFault(f"the figure of test '{test.id}' cannot be drawn, not even from the reference's "
                                  f"data: {broken}") from None
            test.svg = None
            result.notes.append(f"the figure of '{test.name}' could not be drawn from this submission's data "
                                f"({type(exc).__name__})")


def _draw(problem: str, figure: Dict[str, Any]) -> Optional[str]:
    from .figures import figure_svg  # matplotlib: imported only by the commands that draw

    inject("figure", problem)
    return figure_svg(str(figure.get("kind")), figure, problem)


def _reference_figure_fails(spec: ProblemSpec, test: TestSpec, reference: ChildRun,
                            local: Dict[str, Any]) -> Optional[str]:
    """Why the figure of `test` cannot be drawn from the reference judged against itself, or None if it can."""
    outcome = reference.outcomes[test.probe]
    try:
        figure = judge_outcome(get_judge(test.judge, local), outcome, outcome, test.options, spec.swap.file).figure
        if isinstance(figure, dict):
            _draw(spec.id, figure)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


def grade_submission(source: Path, options: GradeOptions = GradeOptions(), name: Optional[str] = None) -> GradeResult:
    """Intake → (assemble → probe → judge → score) per problem, in parallel."""
    started = time.monotonic()
    offering = get_offering(options.offering)
    specs = offering_problems(offering, only=options.problems)
    with workspace_dir() as workspace:
        submission = open_submission(source, workspace, [s.swap.file for s in specs], name=name)
        with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
            # problems whose reference run is built go first: one that is still being built (a cold cache, a
            # batch's warming task) is waited for last, while the others are graded (results in `specs` order)
            ready = sorted(specs, key=lambda s: not reference_run_ready(s, options.seed))
            futures = {s.id: pool.submit(grade_problem, s, submission, workspace, options.seed, options.limits,
                                         options.figures) for s in ready}
            problems = [futures[s.id].result() for s in specs]
        review = _screen(submission, specs)
    return GradeResult(
        submission=submission.name,
        problems=problems,
        errors=list(submission.errors),
        warnings=list(submission.warnings),
        execution_time=round(time.monotonic() - started, 3),
        grader_version=f"{__version__}+{grader_version()}",
        seed=options.seed,
        content_hash=submission.content_hash,
        sandbox=sandbox.capabilities().level,
        offering=offering.id,
        review=review,
    )


def _screen(submission: Submission, specs: List[ProblemSpec]) -> List[str]:
    """The integrity screen's review lines; a screen that fails costs no grade (it says so, for a TA)."""
    try:
        return screen_submission(_staged_files(submission, specs))
    except Exception as exc:  # never lose the grades for a tripwire
        return [f"the integrity screen could not read the files ({type(exc).__name__}): a TA should read them"]


def _staged_files(submission: Submission, specs: List[ProblemSpec]) -> List[tuple]:
    """(staged copy, name as the contract gives it) of every graded file the submission has."""
    records = [(submission.files[s.swap.file], s.swap.file) for s in specs]
    return [(record.staged, name) for record, name in records if record.staged is not None]
