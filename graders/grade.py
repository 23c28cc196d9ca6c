"""Grade one submission: the pipeline, stage by stage, each problem isolated from the others."""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence

from . import __version__, sandbox
from .cache import forget_verified
from .faults import ATTEMPTS, GraderFault, inject
from .problemcheck import static_findings
from .baseline import (child_config, child_faults, control_run, limits_for, mutant_runs, problem_hooks,
                       reference_problem, reference_run)
from .integrity import screen_submission
from .intake import Submission, StudentFile, open_submission
from .probe import run_child
from .results import DEFAULT_SEED, ChildRun, GradeResult, ProblemResult
from .safetext import one_line
from .score import FAULT_MESSAGE, failed_problem, score_problem
from .offering import get_offering, offering_problems
from .judge import get_judge, judge_outcome
from .spec import ProblemSpec, TestSpec
from .version import grader_version


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
    #: draw the report's figures while grading, so that one that cannot be drawn is a fault of its problem (the
    #: commands that write reports, `grade` and `batch`, do; without them a report draws its figures itself)
    figures: bool = False


def grade_problem(
    spec: ProblemSpec, submission: Submission, workspace: Path, seed: int, limits: Optional[Dict[str, float]] = None,
    figures: bool = False,
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
                limits: Optional[Dict[str, float]], figures: bool) -> ProblemResult:
    """Assemble, probe, judge, score and draw one problem once; raises on a grader fault."""
    findings = static_findings(spec.folder)
    if findings:  # a malformed problem folder: said once, naming the file, never judged
        raise GraderFault("the problem folder does not pass `autograde check-problems`:\n" + "\n".join(findings))
    inject("system-error", spec.id)
    reference, mutants = reference_run(spec, seed), mutant_runs(spec, seed)  # the grader works before it judges
    hooks = problem_hooks(spec)
    local = dict(getattr(hooks, "JUDGES", {})) if hooks else {}
    probe_run = lambda name: _student_run(spec, record, workdir / name, seed, limits)
    runs, note = _runs_to_judge(spec, probe_run("run"), probe_run, seed, limits)
    inject("memory", spec.id)
    results = [score_problem(spec, run, reference, mutants, local) for run in runs]
    result = min(results, key=lambda r: r.score)  # two runs after a suspect failure: the worse one counts
    if note:
        result.notes.append(note)
    if figures:
        draw_figures(spec, result, reference, local)
    if record.found_at:
        result.notes.insert(0, f"graded {record.found_at} as {spec.swap.file}")
    return result


#: exceptions that say the interpreter or the machine failed, not the code it ran (when graded code raises
#: them itself, the control run tells)
MACHINE_ERRORS = ("SystemError",)


def _student_run(spec: ProblemSpec, record: StudentFile, workdir: Path, seed: int,
                 limits: Optional[Dict[str, float]]) -> ChildRun:
    """The problem's probes on the student's file, in a fresh child. A failure the grader owns for sure (the
    child ended, or its harness failed, before graded code ran) raises GraderFault."""
    run = run_child(child_config(spec, workdir, seed, record.staged, child_faults(spec)), limits_for(spec, limits))
    if run.machine:
        raise GraderFault("; ".join(run.machine))
    if run.fault and run.fault_before_student:
        raise GraderFault(f"before the student's code ran: {run.fault}")
    return run


def suspected_failures(run: ChildRun) -> Dict[str, str]:
    """{probe: why} for what in a student's run the grader or the machine may have caused, though graded code had
    control: a harness fault after the student's code ran (every probe it left without a result), a SIGKILL from
    outside the grader and the child's own memory limit, an interpreter SystemError in a probe (raised by it, or
    recorded in its data by `probekit.capture`)."""
    found: Dict[str, str] = {}
    if run.fault:
        found.update({o.probe: run.fault for o in run.outcomes.values() if o.status == "missing"})
    for where in run.outside_kills:
        for o in run.outcomes.values():
            if o.probe == where or (where == "import" and o.status == "missing"):
                found[o.probe] = "killed by SIGKILL from outside the grader and the problem's memory limit"
    for o in run.outcomes.values():
        if o.status == "error" and o.error_type in MACHINE_ERRORS:
            found[o.probe] = o.describe()
        elif o.ok and _recorded_error(o.value, MACHINE_ERRORS):
            found[o.probe] = f"{_recorded_error(o.value, MACHINE_ERRORS)} in its data"
    return found


def _recorded_error(value: Any, types: Sequence[str]) -> Optional[str]:
    """The type of the first error record (`{"__error__": {"type": ...}}`) of one of `types` in a probe's data."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, dict):
            record = item.get("__error__")
            if isinstance(record, dict) and record.get("type") in types:
                return str(record["type"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


def _runs_to_judge(spec: ProblemSpec, first: ChildRun, probe_run: Any, seed: int,
                   limits: Optional[Dict[str, float]]) -> tuple:
    """([runs to judge], note): the student's run, or, after a failure the grader may have caused, two.

    A suspected failure (`suspected_failures`) must cost the student nothing and gain them nothing: the probes
    it hit are run twice more, in fresh children, and the problem is judged on each repair (the first run's
    other probes kept); the worse one counts, so code that fails on purpose to be run again gets no second
    chance. If the failure comes back, the reference solution's file is graded the same way now (`control_run`):
    failing too, the grader is broken (a fault); working, the failure is the student's code's.
    """
    suspects = suspected_failures(first)
    if not suspects:
        return [first], None
    again = [probe_run(f"again{i}") for i in (1, 2)]
    if any(suspected_failures(run) for run in again):
        control = control_run(spec, seed, limits_for(spec, limits), child_faults(spec))
        broken = reference_problem(control)
        if broken:
            raise GraderFault(f"{_said(suspects)}; the reference solution graded the same way fails too: {broken}")
        return [first], ("the grading process failed while your code had control, three times, and the reference "
                         f"solution graded the same way works: the failure is your code's ({_said(suspects)})")
    repaired = [_repair(first, run, suspects) for run in again]
    return repaired, (f"probes {', '.join(sorted(suspects))} failed in a way the grader may have caused "
                      f"({_said(suspects)}); they were run twice more and the worse of the two runs counts")


def _said(suspects: Dict[str, str]) -> str:
    return one_line("; ".join(dict.fromkeys(suspects.values())))[:300]


def _repair(first: ChildRun, again: ChildRun, lost: Dict[str, str]) -> ChildRun:
    """`first` with the outcomes of the `lost` probes taken from `again` (the whole of `again` when the first
    run never loaded the student's file)."""
    if all(o.status == "missing" for o in first.outcomes.values()):
        return again
    outcomes = {probe: again.outcomes[probe] if probe in lost else outcome for probe, outcome in first.outcomes.items()}
    return dataclasses.replace(first, outcomes=outcomes, fault=None, outside_kills=[],
                               notes=first.notes + [f"(run again) {n}" for n in again.notes])


def draw_figures(spec: ProblemSpec, result: ProblemResult, reference: ChildRun, local: Dict[str, Any]) -> None:
    """Each test's figure drawn now and kept on the test (the report never draws it again).

    A figure illustrates; no grade depends on it. One that cannot be drawn from the student's data (twice) is
    left out with a note. One that cannot be drawn from the reference's own data either (the reference judged
    against itself) is a grader fault of the problem, retried like the rest.
    """
    tests = {t.id: t for t in spec.tests}
    for test in result.tests:
        if not isinstance(test.figure, dict):
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


def _reference_figure_fails(spec: ProblemSpec, test: TestSpec, reference: ChildRun, local: Dict[str, Any]) -> Optional[str]:
    """Why the figure of `test` cannot be drawn from the reference judged against itself, or None if it can."""
    outcome = reference.outcomes[test.probe]
    try:
        figure = judge_outcome(get_judge(test.judge, local), outcome, outcome, test.options, spec.swap.file).figure
        if isinstance(figure, dict):
            _draw(spec.id, figure)
    except Exception as exc:
        return f"{type(exc).__name__}: {exc}"
    return None


#: where graders stage submissions and child outputs: one folder per user (a TA grading after root on the
#: same machine must not meet root's folder), <pid>-<random> per grading inside it
WORK_BASE = Path(tempfile.gettempdir()) / f"autograde-work-{os.getuid()}"


def work_base() -> Path:
    """This user's WORK_BASE, created if needed. Refused (with the folder named) when someone else owns it or
    can write to it: a folder another user made in /tmp could read or swap what is graded."""
    WORK_BASE.mkdir(mode=0o755, parents=True, exist_ok=True)
    info = WORK_BASE.lstat()
    if WORK_BASE.is_symlink() or info.st_uid != os.getuid():
        raise PermissionError(f"{WORK_BASE} is not a folder of this user (owner uid {info.st_uid}): "
                              "remove it or set TMPDIR")
    if info.st_mode & 0o022:
        WORK_BASE.chmod(0o755)  # ours, but writable by others (an old umask): no longer
    return WORK_BASE


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep_stale_workspaces() -> None:
    """Remove workspaces left by graders that were killed (their pid is gone)."""
    if not WORK_BASE.is_dir():
        return
    for entry in work_base().iterdir():
        pid = entry.name.partition("-")[0]
        if pid.isdigit() and not _alive(int(pid)):
            shutil.rmtree(entry, ignore_errors=True)


@contextmanager
def workspace_dir() -> Iterator[Path]:
    """A private scratch directory, removed afterwards (or by the next grader if this one is killed)."""
    base = work_base()
    sweep_stale_workspaces()
    path = Path(tempfile.mkdtemp(prefix=f"{os.getpid()}-", dir=base))
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def grade_submission(source: Path, options: GradeOptions = GradeOptions(), name: Optional[str] = None) -> GradeResult:
    """Intake → (assemble → probe → judge → score) per problem, in parallel."""
    started = time.monotonic()
    offering = get_offering(options.offering)
    specs = offering_problems(offering, only=options.problems)
    with workspace_dir() as workspace:
        submission = open_submission(source, workspace, [s.swap.file for s in specs], name=name)
        with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
            problems = list(pool.map(lambda s: grade_problem(s, submission, workspace, options.seed, options.limits,
                                                             options.figures), specs))
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
